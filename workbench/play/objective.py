"""What a campaign asks of the player, how far the run has come, and how it ended.

The briefing (campaign, company, objective, questions), the objective's progress at
today's close and the end-of-campaign summary are decided here, from the public view
(which carries the objectives' terms) and the run's metric series, so a local and a
hosted run show the same verdicts. The session also judges the objective from its own
ledger (`objective_progress`); a test holds the two readings equal. None of it reads a
branch or an evaluator result.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ledger.book import Book
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Requirement, Task
from sim.metrics import evaluate_task, metric_value, to_display
from workbench.display import amount
from workbench.play.models import GoalTerms, ObjectiveTerms, PublicView

Status = Literal["on track", "behind", "met", "not met"]


@dataclass(frozen=True)
class Goal:
    """One requirement of an objective: a bound on a metric at a day."""

    metric: str
    metric_title: str
    units: str
    bound: Literal["at_least", "at_most"]
    threshold: Decimal
    day: int

    @property
    def text(self) -> str:
        """`Net assets ≥ $105,000.00 on day 180`."""
        sign = "≥" if self.bound == "at_least" else "≤"
        return f"{self.metric_title} {sign} {amount(self.threshold, self.units)} on day {self.day}"

    def satisfied_by(self, value: Decimal) -> bool:
        """True when `value` meets the bound."""
        if self.bound == "at_least":
            return value >= self.threshold
        return value <= self.threshold


@dataclass(frozen=True)
class Objective:
    """A factual business objective: its title and goals."""

    task_id: str
    title: str
    goals: tuple[Goal, ...]


@dataclass(frozen=True)
class QuestionBrief:
    """A question as the briefing lists it: what is asked and until when."""

    question_id: str
    title: str
    deadline_day: int


@dataclass(frozen=True)
class Briefing:
    """What the player reads before day 1: the situation, the objective, the questions."""

    title: str
    company: str
    description: str
    start_date: dt.date
    horizon: int
    objectives: tuple[Objective, ...]
    questions: tuple[QuestionBrief, ...]


def _goal(bundle: CampaignBundle, requirement: Requirement) -> Goal:
    metric = bundle.metrics[requirement.metric]
    bound = requirement.at_least if requirement.at_least is not None else requirement.at_most
    at_least = requirement.at_least is not None
    threshold = Decimal(bound if bound is not None else "0")
    return Goal(
        metric=metric.id,
        metric_title=metric.title.split(" (")[0],
        units=metric.units,
        bound="at_least" if at_least else "at_most",
        threshold=threshold,
        day=requirement.on_day if requirement.on_day is not None else bundle.horizon,
    )


def objective(bundle: CampaignBundle, task: Task) -> Objective:
    """A task of the campaign as an objective with typed goals."""
    return Objective(task.id, task.title, tuple(_goal(bundle, r) for r in task.requirements))


def briefing(view: PublicView) -> Briefing:
    """The briefing from the public view: campaign, horizon, objectives, questions by deadline."""
    start = dt.date.fromisoformat(view.date) - dt.timedelta(days=view.day)
    return Briefing(
        title=view.campaign.title,
        company=view.campaign.company,
        description=" ".join(view.campaign.description.split()),
        start_date=start,
        horizon=view.horizon,
        objectives=objectives_in(view),
        questions=tuple(
            QuestionBrief(q.id, q.title, q.deadline_day)
            for q in sorted(view.questions, key=lambda q: (q.deadline_day, q.id))
        ),
    )


def objectives_of(bundle: CampaignBundle) -> tuple[Objective, ...]:
    """Every business objective of a campaign, with typed goals."""
    return tuple(objective(bundle, t) for t in bundle.tasks)


def objective_terms(bundle: CampaignBundle) -> tuple[ObjectiveTerms, ...]:
    """The objectives as the public view carries them (thresholds as exact text)."""
    return tuple(
        ObjectiveTerms(
            task_id=o.task_id,
            title=o.title,
            goals=tuple(
                GoalTerms(
                    metric=g.metric,
                    metric_title=g.metric_title,
                    units=g.units,
                    bound=g.bound,
                    threshold=str(g.threshold),
                    day=g.day,
                )
                for g in o.goals
            ),
        )
        for o in objectives_of(bundle)
    )


def objectives_in(view: PublicView) -> tuple[Objective, ...]:
    """The objectives a view carries, with typed goals."""
    return tuple(
        Objective(
            o.task_id,
            o.title,
            tuple(
                Goal(g.metric, g.metric_title, g.units, g.bound, Decimal(g.threshold), g.day)
                for g in o.goals
            ),
        )
        for o in view.objectives
    )


@dataclass(frozen=True)
class GoalProgress:
    """A goal against the run's latest close: the value, whether it holds, the gap."""

    goal: Goal
    value: Decimal
    holds: bool

    @property
    def gap(self) -> Decimal:
        """How far the value is from the threshold (0 when the goal holds)."""
        if self.holds:
            return Decimal(0)
        return abs(self.goal.threshold - self.value)


@dataclass(frozen=True)
class ObjectiveProgress:
    """An objective at the latest close: each goal, and the verdict so far (or final)."""

    objective: Objective
    goals: tuple[GoalProgress, ...]
    status: Status
    final: bool


def objective_progress(
    bundle: CampaignBundle, book: Book, day: int, finished: bool
) -> tuple[ObjectiveProgress, ...]:
    """Every objective at `day`'s close; final verdicts (met / not met) once the run finished.

    Before the end a goal is judged on today's value: "on track" when every goal
    would hold if the campaign ended today, "behind" otherwise.
    """
    progress = []
    for task in bundle.tasks:
        target = objective(bundle, task)
        goals = []
        for goal in target.goals:
            metric = bundle.metrics[goal.metric]
            value = to_display(metric, metric_value(book, metric, min(day, goal.day)))
            goals.append(GoalProgress(goal, value, goal.satisfied_by(value)))
        if finished:
            met = evaluate_task(book, bundle.metrics, task, bundle.horizon).met
            status: Status = "met" if met else "not met"
        else:
            status = "on track" if all(g.holds for g in goals) else "behind"
        progress.append(ObjectiveProgress(target, tuple(goals), status, finished))
    return tuple(progress)


def progress_in(
    view: PublicView, series: dict[str, list[Decimal]]
) -> tuple[ObjectiveProgress, ...]:
    """Every objective read from the public view and the run's metric series (display units).

    The same verdicts as `objective_progress` on the run's ledger: a goal is judged on its
    metric at the latest close before its day (final once the run finished).
    """
    progress = []
    for target in objectives_in(view):
        goals = []
        for goal in target.goals:
            values = series.get(goal.metric) or [Decimal(0)]
            value = values[min(view.day, goal.day, len(values) - 1)]
            goals.append(GoalProgress(goal, value, goal.satisfied_by(value)))
        holds = all(g.holds for g in goals)
        status: Status
        if view.finished:
            status = "met" if holds else "not met"
        else:
            status = "on track" if holds else "behind"
        progress.append(ObjectiveProgress(target, tuple(goals), status, view.finished))
    return tuple(progress)


@dataclass(frozen=True)
class QuestionOutcome:
    """A question at the end of play: how many submissions, and which one counts."""

    question_id: str
    title: str
    deadline_day: int
    submissions: int
    counted_seq: int | None
    counted_value: str | None

    @property
    def answered(self) -> bool:
        """True when an eligible submission counts for the question."""
        return self.counted_seq is not None


@dataclass(frozen=True)
class CampaignSummary:
    """The end of a run as the player sees it: objective, submissions, what happens next."""

    day: int
    horizon: int
    finished: bool
    objectives: tuple[ObjectiveProgress, ...]
    submissions_made: int
    questions: tuple[QuestionOutcome, ...]
    next_steps: tuple[str, ...]

    @property
    def answered(self) -> int:
        """Questions with a submission that counts."""
        return sum(q.answered for q in self.questions)


def next_steps(
    run_dir: str | None, finished: bool, answered: int, questions: int
) -> tuple[str, ...]:
    """What happens after play: the author (or a host's operator) validates the finished run.

    `run_dir` is None for a hosted run, whose directory only its host knows.
    """
    if not finished:
        return ("The run is not finished: advance to the last day before it can be validated.",)
    if run_dir is None:
        steps = [
            "This hosted run is finished and sealed by its host: it accepts no more commands.",
            "The host's operator validates it offline (`workbench validate counterfactual` "
            "with the campaign's control file and your agent id): both branches of each "
            "question are replayed from your journal and each counted submission is scored.",
        ]
    else:
        steps = [
            f"The run in {run_dir} is finished and sealed: it accepts no more commands.",
            "The campaign author validates it offline (`workbench author`, or `workbench "
            f"validate counterfactual --results {run_dir} --out OUT`): both branches of each "
            "question are replayed from your journal and each counted submission is scored.",
        ]
    unanswered = questions - answered
    if unanswered:
        steps.append(
            f"{unanswered} of {questions} question(s) have no eligible submission: "
            "they are reported as unsubmitted."
        )
    steps.append("The business objective is reported apart from the scores.")
    return tuple(steps)


def campaign_summary(
    view: PublicView, objectives: tuple[ObjectiveProgress, ...], run_dir: str | None
) -> CampaignSummary:
    """The end-of-campaign summary from the public view (a preview before the end).

    `objectives` is the objectives' progress where the campaign is at hand (empty for a
    hosted run); which submission counts comes from the view's own submission rows.
    """
    outcomes = []
    for q in sorted(view.questions, key=lambda q: (q.deadline_day, q.id)):
        own = [s for s in view.submissions if s.question == q.id]
        counted = next((s for s in own if s.counts), None)
        outcomes.append(
            QuestionOutcome(
                q.id,
                q.title,
                q.deadline_day,
                len(own),
                counted.seq if counted else None,
                counted.value if counted else None,
            )
        )
    answered = sum(o.answered for o in outcomes)
    return CampaignSummary(
        day=view.day,
        horizon=view.horizon,
        finished=view.finished,
        objectives=objectives,
        submissions_made=len(view.submissions),
        questions=tuple(outcomes),
        next_steps=next_steps(run_dir, view.finished, answered, len(outcomes)),
    )
