"""Question traps agree with the evaluator: a warned action is exactly one that breaks a branch."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.campaign_load import CampaignBundle
from workbench.evaluation.evaluator import run_evaluation
from workbench.evaluation.report import CounterfactualReport
from workbench.play.models import PublicView
from workbench.play.session import PlayerSession
from workbench.play.traps import question_cautions, sprung_traps, traps_if_scheduled

BLOCKED_REASONS = ("already scheduled", "conflicts with")


def _blocked_arms(report: CounterfactualReport) -> set[tuple[str, str]]:
    """(question, arm) pairs whose branch was rejected because of an earlier commitment."""
    found = set()
    for entry in report.questions:
        for arm, record in (
            ("baseline", entry.branches.baseline),
            ("intervention", entry.branches.intervention),
        ):
            reason = (record.reason if record else None) or ""
            rejected = record is not None and record.status == "rejected"
            if rejected and any(r in reason for r in BLOCKED_REASONS):
                found.add((entry.id, arm))
    return found


def _accepted_at_day_zero(bundle: CampaignBundle, tmp: Path) -> list[str]:
    session = PlayerSession.create(tmp / "probe", autoseal=False)
    return [a for a in bundle.actions if session.preview(a).accepted]


def test_every_warning_is_a_rejected_branch_and_nothing_else(
    bundle: CampaignBundle, tmp_path: Path
) -> None:
    """For each action a player can schedule on day 0, the warned questions are the broken ones."""
    actions = _accepted_at_day_zero(bundle, tmp_path)
    assert actions
    for action_id in actions:
        run = tmp_path / action_id
        session = PlayerSession.create(run, autoseal=False)
        predicted = session.traps_if_scheduled(action_id)
        assert session.schedule(action_id).accepted
        assert session.sprung_traps() == predicted
        for trap in predicted:
            if trap.pick:
                session.submit({"question": trap.question_id, "value": "0", "choice": trap.blocked})
        session.run_to_horizon()
        session.seal()
        report = run_evaluation(run, tmp_path / f"{action_id}-report").report
        assert _blocked_arms(report) == {(t.question_id, t.arm) for t in predicted}, action_id


@pytest.fixture
def view(tmp_path: Path) -> PublicView:
    """The public view of a new default run on day 0."""
    session = PlayerSession.create(tmp_path / "view", autoseal=False)
    return session.view()


def test_no_trap_on_or_after_the_branch_day(view: PublicView) -> None:
    q = view.question("q_spring_campaign")
    assert q is not None
    assert traps_if_scheduled(view, "spring_campaign", q.intervene_on_day - 1)
    later = traps_if_scheduled(view, "spring_campaign", q.intervene_on_day)
    assert q.id not in {t.question_id for t in later}


def test_exclusions_are_traps_for_a_pick(view: PublicView) -> None:
    traps = traps_if_scheduled(view, "lower_price")
    assert [(t.question_id, t.blocked, t.pick) for t in traps] == [
        ("q_pick_a_lever", "raise_price", True)
    ]
    assert "cannot be scheduled once lower_price is" in traps[0].text


def test_sprung_traps_use_the_day_each_action_was_scheduled(view: PublicView) -> None:
    later = view.model_copy(update={"scheduled": {"spring_campaign": 35}})
    assert sprung_traps(later) == traps_if_scheduled(view, "spring_campaign", 35)
    assert {t.question_id for t in sprung_traps(later)} == {
        "q_sales_desk_priority",
        "q_pick_a_lever",
    }


def test_the_view_records_each_scheduled_action_with_its_day(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    session.advance(3)
    assert session.schedule("hire_sales_rep").accepted
    assert not session.schedule("hire_sales_rep").accepted
    assert session.view().scheduled == {"hire_sales_rep": 3}


@pytest.mark.parametrize("question_id", ["q_spring_campaign", "q_pick_a_lever", "q_bank_loan"])
def test_every_question_names_its_cautions(view: PublicView, question_id: str) -> None:
    question = view.question(question_id)
    assert question is not None
    on_the_day = view.model_copy(update={"day": question.intervene_on_day})
    assert question_cautions(on_the_day, question) == ()
    cautions = question_cautions(view, question)
    arm_actions = question.intervention.select_from or question.intervention.actions
    assert len(cautions) == len(arm_actions)
    for line, action_id in zip(cautions, arm_actions, strict=True):
        assert action_id in line and f"day {question.intervene_on_day}" in line
