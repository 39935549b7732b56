"""Briefing, objective progress and the end-of-campaign summary, from a real run's ledger."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from sim.metrics import RequirementResult, TaskResult
from workbench.play.objective import briefing, progress_in
from workbench.play.session import PlayerSession


def test_briefing_states_the_objective_and_the_questions(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    brief = session.briefing()
    assert briefing(session.view()) == brief  # the view alone carries the objectives
    assert brief.horizon == 180 and brief.company == "Harbor Roasters"
    assert brief.objectives is not None
    [target] = brief.objectives
    assert [g.text for g in target.goals] == [
        "Net assets ≥ $105,000.00 on day 180",
        "Missed payrolls ≤ 0 events on day 180",
    ]
    deadlines = [q.deadline_day for q in brief.questions]
    assert deadlines == sorted(deadlines) and len(deadlines) == len(session.bundle.questions)
    assert brief.start_date.isoformat() == "2027-03-01"
    assert "\n" not in brief.description


def test_progress_is_judged_on_today_until_the_end(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    [progress] = session.objective_progress()
    assert progress.status == "behind" and not progress.final
    net, missed = progress.goals
    assert not net.holds and net.gap == Decimal("105000.00") - net.value
    assert missed.holds and missed.gap == 0
    session.advance(10)
    [later] = session.objective_progress()
    assert later.goals[0].value != net.value


def test_final_verdict_agrees_with_the_factual_task(demo_run: Path, tmp_path: Path) -> None:
    session = PlayerSession.resume(demo_run, read_only=True)
    [progress] = session.objective_progress()
    assert progress.final
    [task] = session.task_results()
    assert progress.status == ("met" if task.met else "not met")
    assert [g.value for g in progress.goals] == [r.value for r in task.requirements]


def test_summary_counts_submissions_and_says_what_happens_next(demo_run: Path) -> None:
    session = PlayerSession.resume(demo_run, read_only=True)
    summary = session.summary()
    assert summary.finished and summary.day == summary.horizon == 180
    assert summary.submissions_made == len(session.submissions) > 0
    assert summary.answered == sum(q.counted_seq is not None for q in summary.questions)
    text = " ".join(summary.next_steps)
    assert "validate" in text and str(demo_run) in text


def test_summary_before_the_end_says_the_run_is_not_finished(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    summary = session.summary()
    assert not summary.finished and summary.submissions_made == 0 and summary.answered == 0
    assert "not finished" in summary.next_steps[0]


@pytest.mark.parametrize("campaign", ["default", "gelato"])
def test_the_view_judges_the_objective_as_the_ledger_does(tmp_path: Path, campaign: str) -> None:
    """Every day of a played run, and at its end: a hosted run's reading is the local one."""
    session = PlayerSession.create(tmp_path / "run", campaign, autoseal=False)
    plan = {3: "hire_sales_rep", 20: "bank_loan", 40: "raise_price", 60: "spring_campaign"}
    while not session.finished:
        action = plan.get(session.day)
        if action in session.bundle.actions:
            session.schedule(action)
        assert progress_in(session.view(), session.metric_series()) == (
            session.objective_progress()
        ), session.day
        session.advance(min(7, session.horizon - session.day))
    final = progress_in(session.view(), session.metric_series())
    assert final == session.objective_progress() and all(p.final for p in final)


@pytest.mark.parametrize("day", [0, 1, 179, 180])
def test_a_requirement_is_read_on_its_day_or_the_last_one_closed(tmp_path: Path, day: int) -> None:
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    if day:
        session.advance(day)
    [task] = session.task_results()
    for req in task.requirements:
        assert req.value_day == min(req.day, day) and req.reached == (day >= req.day)
        assert not req.met or req.reached
    assert task.status == ("open" if day < 180 else "met" if task.met else "not met")


def _requirement(reached: bool, met: bool) -> RequirementResult:
    return RequirementResult("m", 30, "at_least", Decimal(1), Decimal(0), met, 30 if reached else 9)


OK, FAILED, AHEAD = (True, True), (True, False), (False, False)


@pytest.mark.parametrize(
    ("states", "status"),
    [
        ((OK, OK), "met"),
        ((OK, FAILED), "not met"),
        ((FAILED, FAILED), "not met"),
        ((FAILED, AHEAD), "not met"),
        ((OK, AHEAD), "open"),
        ((AHEAD, AHEAD), "open"),
    ],
)
def test_a_task_is_open_only_while_a_day_is_ahead_and_nothing_reached_failed(
    states: tuple[tuple[bool, bool], ...], status: str
) -> None:
    requirements = tuple(_requirement(reached, met) for reached, met in states)
    task = TaskResult("t", "T", all(req.met for req in requirements), requirements)
    assert task.status == status
    assert TaskResult("t", "T", task.met, requirements[::-1]).status == status
