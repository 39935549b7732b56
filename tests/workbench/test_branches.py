"""Running one choice of a question from a branch point, offline."""

from __future__ import annotations

import pytest

from sim.campaign_load import CampaignBundle
from sim.engine import Engine, Snapshot
from sim.metrics import metric_value, to_display
from workbench.evaluation.branches import (
    BranchRun,
    component_evidence,
    effect_gauges,
    episode_id,
    run_branch,
    supported_effects,
)


@pytest.fixture(scope="module")
def day20(bundle: CampaignBundle) -> Snapshot:
    """The default campaign after day 20 closes, no decisions taken."""
    seed = bundle.campaign.development_seed
    assert seed is not None
    engine = Engine(bundle, seed)
    engine.run_to(20)
    return engine.snapshot()


def _run(
    snapshot: Snapshot, actions: tuple[str, ...], episode: str = "ep-test", day: int = 60
) -> BranchRun:
    metric = snapshot.bundle.metrics["net_assets"]
    return run_branch(
        snapshot, "intervention", "choice", actions, day, metric, episode, seed_commitment="sc"
    )


def test_episode_ids_are_distinct_per_run_question_and_branch() -> None:
    ids = {
        episode_id(head, question, branch)
        for head in ("a" * 64, "b" * 64)
        for question in ("q1", "q2")
        for branch in ("baseline", "intervention")
    }
    assert len(ids) == 8
    assert all(i.startswith("ep-") and len(i) == 19 for i in ids)
    assert episode_id("h", "q", "b") == episode_id("h", "q", "b")


def test_terms_digest_follows_every_term(bundle: CampaignBundle) -> None:
    loan = bundle.actions["bank_loan"]
    assert loan.terms_digest() == loan.model_copy().terms_digest()
    assert loan.terms_digest() != loan.model_copy(update={"delay_days": 6}).terms_digest()


def test_the_bundle_carries_every_actions_terms_digest(bundle: CampaignBundle) -> None:
    """Computed once per parse, each equal to the action's own digest, for every action."""
    assert bundle.terms_digests == {a: act.terms_digest() for a, act in bundle.actions.items()}
    longer = bundle.replace_horizon(bundle.horizon + 1)
    assert longer.terms_digests == bundle.terms_digests


def test_a_branch_without_actions_is_the_engine_run_on(day20: Snapshot) -> None:
    run = _run(day20, ())
    assert run.status == "ok" and run.reason is None and run.schedule == []
    engine = Engine.from_snapshot(day20)
    engine.run_to(60)
    metric = day20.bundle.metrics["net_assets"]
    assert run.outcome == str(to_display(metric, metric_value(engine.book, metric, 60)))
    assert run.seal is not None and run.seal.final_day == 60
    assert run.seal.seed_commitment == "sc"


def test_the_episode_id_changes_the_seal_but_never_the_outcome(day20: Snapshot) -> None:
    first, second = _run(day20, ("bank_loan",), "ep-one"), _run(day20, ("bank_loan",), "ep-two")
    assert first.outcome == second.outcome and first.book is not None and second.book is not None
    assert first.book.digest() == second.book.digest()
    assert first.seal != second.seal
    assert _run(day20, ("bank_loan",), "ep-one").seal == first.seal


def test_actions_run_in_lexicographic_order_whatever_the_given_order(day20: Snapshot) -> None:
    forward = _run(day20, ("hire_sales_rep", "bank_loan"))
    backward = _run(day20, ("bank_loan", "hire_sales_rep"))
    assert [s.action for s in forward.schedule] == ["bank_loan", "hire_sales_rep"]
    assert forward.actions == backward.actions == ("bank_loan", "hire_sales_rep")
    assert forward.outcome == backward.outcome


def test_a_failed_precondition_is_rejected_with_its_reason(day20: Snapshot) -> None:
    run = _run(day20, ("raise_price", "lower_price"))
    assert run.status == "rejected" and run.outcome is None and run.book is None
    assert [s.accepted for s in run.schedule] == [True, False]
    assert run.reason is not None and run.reason.startswith("raise_price:")


def test_an_infrastructure_failure_is_recorded_never_raised(day20: Snapshot) -> None:
    run = _run(day20, ("no_such_action",))
    assert run.status == "failed" and run.outcome is None
    assert run.reason is not None and "no_such_action" in run.reason


def test_the_ledger_shows_the_loans_declared_financing_component(day20: Snapshot) -> None:
    loan = day20.bundle.actions["bank_loan"]
    run = _run(day20, ("bank_loan",))
    assert run.book is not None
    assert component_evidence(run.book, loan, "financing_net_assets", 60) == -30000
    assert component_evidence(run.book, loan, "irreversible_work", 60) == 0


def test_supported_effects_are_the_gauges_that_differ(day20: Snapshot) -> None:
    loan = day20.bundle.actions["bank_loan"]
    base, inter = _run(day20, ()), _run(day20, ("bank_loan",))
    assert base.book is not None and inter.book is not None
    assert set(effect_gauges(inter.book, loan, 60)) == {e.kind for e in loan.effects}
    assert supported_effects(base.book, base.book, loan, 60) == []
    assert supported_effects(base.book, inter.book, loan, 60) == ["loan"]
