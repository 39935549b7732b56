"""The host tells an agent when a submission misses its question's deadline (before, the
reply said `eligible: false` with no note, which an agent easily missed)."""

from __future__ import annotations

import httpx2

from tests.workbench.test_late_submissions import LATE
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Live


def test_the_host_reply_carries_the_note(live: Live) -> None:
    client: httpx2.Client = live.client(ALPHA)
    run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    client.post(f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 30})
    reply = client.post(
        f"{API_PREFIX}/runs/{run_id}/assessments",
        json={
            "command_id": "late",
            "assessment": {"kind": "counterfactual", "question": "q_spring_campaign", "value": "1"},
        },
    ).json()
    assert reply["eligible"] is False and reply["notes"] == [LATE]
