"""Registered metrics and tasks as ledger queries, so an outcome rebuilds from a ledger alone."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from ledger.book import Book
from ledger.money import to_major
from sim.campaign_model import Metric, Task

LEDGER_UNIT = {"USD": "USD", "UNITS": "UNITS", "EVENTS": "EVENTS"}


def metric_value(book: Book, metric: Metric, day: int | None = None) -> int:
    """The metric at the close of `day`, in minor units of its ledger unit."""
    unit = LEDGER_UNIT[metric.units]
    return sum(term.sign * book.subtree_total(term.account, unit, day) for term in metric.terms)


def to_display(metric: Metric, minor: int) -> Decimal:
    """Minor units to the metric's display units (dollars for USD, counts otherwise)."""
    return to_major(minor) if metric.units == "USD" else Decimal(minor)


@dataclass(frozen=True)
class RequirementResult:
    """One requirement of a task, checked: `value` is the metric at `value_day`, which is
    `day` once the run has closed it and the run's last closed day before that."""

    metric: str
    day: int
    bound: str
    threshold: Decimal
    value: Decimal
    met: bool
    value_day: int

    @property
    def reached(self) -> bool:
        """True when the run has closed the requirement's day (so `met` is final)."""
        return self.value_day == self.day


@dataclass(frozen=True)
class TaskResult:
    """A factual business objective, evaluated from the ledger."""

    task_id: str
    title: str
    met: bool
    requirements: tuple[RequirementResult, ...]

    @property
    def status(self) -> Literal["met", "not met", "open"]:
        """`open` while a requirement's day is still ahead and none reached has failed."""
        if self.met:
            return "met"
        failed = any(req.reached and not req.met for req in self.requirements)
        ahead = any(not req.reached for req in self.requirements)
        return "open" if ahead and not failed else "not met"


def evaluate_task(book: Book, metrics: dict[str, Metric], task: Task, horizon: int) -> TaskResult:
    """Check every requirement of `task` against the ledger's day closes."""
    results = []
    last = book.last_closed_day or 0
    for req in task.requirements:
        metric = metrics[req.metric]
        day = req.on_day if req.on_day is not None else horizon
        value_day = min(day, last)
        value = to_display(metric, metric_value(book, metric, value_day))
        if req.at_least is not None:
            threshold = Decimal(req.at_least)
            met = value >= threshold
            bound = "at_least"
        else:
            threshold = Decimal(req.at_most or "0")
            met = value <= threshold
            bound = "at_most"
        met = met and day <= last
        results.append(RequirementResult(req.metric, day, bound, threshold, value, met, value_day))
    return TaskResult(task.id, task.title, all(r.met for r in results), tuple(results))
