"""Answers a player typed but has not submitted: which of them a move would lose.

A draft lives only in the dashboard until it is submitted. Advancing past a question's
deadline, finishing the run or quitting loses it for good (a submission counts only
before the deadline day, and drafts are not kept), so the dashboard asks first; which
questions that concerns is decided here, from the public view alone.
"""

from __future__ import annotations

from collections.abc import Iterable

from workbench.play.models import PublicView


def lost_by_advancing(view: PublicView, typed: Iterable[str], to_day: int) -> list[str]:
    """Of the questions with an answer typed and not sent, those open today that reaching
    `to_day` closes (a submission counts only on a day before the deadline day)."""
    waiting = set(typed)
    return [q.id for q in view.questions if q.id in waiting and q.open and to_day >= q.deadline_day]


def lost_by_leaving(view: PublicView, typed: Iterable[str]) -> list[str]:
    """Of the questions with an answer typed and not sent, those still open: quitting
    drops the draft while it could still count."""
    waiting = set(typed)
    return [q.id for q in view.questions if q.id in waiting and q.open]
