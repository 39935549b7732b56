"""The as-you-type check on the public view gives the campaign's verdicts.

A hosted run's form checks submissions against the view (`ViewRules`); `submit` checks
them against the campaign. For any submission, on every question of two campaigns, the
two agree line for line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import resolve_campaign
from sim.campaign_load import load_campaign
from workbench.play.session import PlayerSession
from workbench.play.view_rules import ViewRules
from workbench.runs.assessment import CampaignRules, parse_assessment

CAMPAIGNS = ("default", "gelato")
VALUES = st.one_of(
    st.none(),
    st.sampled_from(["", " ", "0", "-300", "-300.00", "-300.005", "1e30", "1e1000000", "abc"]),
    st.integers(-(10**9), 10**9).map(str),
    st.integers(-5, 5),
)
CONCLUSIONS = st.one_of(
    st.none(),
    st.sampled_from(["", "-300.00", "12.345", "x"]),
    st.lists(st.sampled_from(["hire", "capacity", "marketing", "demand", "loan", "none"])),
)


def view_and_bundle(campaign: str, root: Path) -> tuple[ViewRules, CampaignRules, list[str]]:
    bundle = load_campaign(resolve_campaign(campaign))
    session = PlayerSession.create(root / campaign, campaign, autoseal=False)
    actions = list(bundle.actions)
    return ViewRules(session.view()), CampaignRules(bundle), actions


@pytest.mark.parametrize("campaign", CAMPAIGNS)
def test_the_view_and_the_campaign_check_a_submission_alike(campaign: str, tmp_path: Path) -> None:
    view, bundle, actions = view_and_bundle(campaign, tmp_path)
    questions = [*bundle.question_ids, "q_unknown"]

    @settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        st.sampled_from(questions),
        VALUES,
        CONCLUSIONS,
        st.one_of(st.none(), st.sampled_from([*actions, "nope"])),
    )
    def agree(question: str, value: Any, conclusion: Any, choice: str | None) -> None:
        data: dict[str, Any] = {"kind": "counterfactual", "question": question}
        for key, item in (("value", value), ("conclusion", conclusion), ("choice", choice)):
            if item is not None:
                data[key] = item
        assert parse_assessment(view, data) == parse_assessment(bundle, data)

    agree()
