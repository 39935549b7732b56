"""Valid command bodies changed one to three ways (a field changed, dropped, added,
retyped or nested; the bytes damaged) to every command route: the host replies with a
status the API declares and one line, never a 5xx, and a refused command leaves the
run's journal as it was. The mutations start from bodies that pass, so they reach the
checks past the schema (assessment values, action ids, day counts, choices)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz import strategies as S
from tests.fuzz.harness import FULL
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, Live, journal_of, one_error

VALID: dict[str, dict[str, object]] = {
    "schedule": {"command_id": "s", "action": "bank_loan"},
    "advance": {"command_id": "a", "days": 1},
    "assessments": {
        "command_id": "q",
        "assessment": {
            "kind": "counterfactual",
            "question": "q_bank_loan",
            "value": "-1300",
            "conclusion": "-300.00",
        },
    },
}
"""A body that passes on each command route (finish is left out: one that passed would end
the run, and every later case would be refused as finished)."""
DECLARED = {200, 201, 400, 404, 409, 413, 422}


@settings(
    max_examples=3000 if FULL else 150,
    deadline=None,
    derandomize=not FULL,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data(), route=st.sampled_from(sorted(VALID)))
def test_a_changed_valid_body_gets_a_declared_reply(
    shared_live: Live, alpha_run: str, data: st.DataObject, route: str
) -> None:
    body = json.loads(json.dumps(VALID[route]))
    body["command_id"] = "mut-" + data.draw(st.uuids(), label="id").hex
    content = data.draw(S.changed_anywhere(body), label="body")
    before = journal_of(shared_live, alpha_run)
    with shared_live.client(ALPHA) as client:
        response = client.post(f"{API_PREFIX}/runs/{alpha_run}/{route}", content=content)
    assert response.status_code in DECLARED, response.text
    if response.status_code >= 400:
        one_error(response, response.status_code, response.json()["error"]["code"])
        assert journal_of(shared_live, alpha_run) == before
