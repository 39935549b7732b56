"""Question traps: scheduling an action early can make a question unresolvable.

A question's branches start after day D (its intervention day) closes, and every
commitment made before then carries into both branches. Actions are not repeatable,
and some exclude others (`prerequisites.not_scheduled`), so scheduling before day D
an action that one of the question's choices must schedule at D gets that choice
rejected in its branch: the question cannot be scored. This module names those
actions so the player is warned before it happens, not after.

Everything here reads the player's public view (question contracts, the action
catalog's exclusions, the actions scheduled so far), so a hosted run warns exactly as a
local one does: the rule is public, and no campaign file or seed is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from workbench.play.models import PublicView, QuestionContract

Arm = Literal["baseline", "intervention"]
ARMS: tuple[Arm, ...] = ("baseline", "intervention")


@dataclass(frozen=True)
class Trap:
    """Scheduling `scheduled` before day `intervene_on_day` blocks `blocked` in a choice."""

    question_id: str
    arm: Arm
    blocked: str
    scheduled: str
    intervene_on_day: int
    pick: bool

    @property
    def why(self) -> str:
        """Why the branch would be rejected."""
        if self.blocked == self.scheduled:
            return f"{self.blocked} cannot be scheduled twice"
        return f"{self.blocked} cannot be scheduled once {self.scheduled} is"

    @property
    def sprung_text(self) -> str:
        """One line for a trap already sprung (the action was scheduled before the day)."""
        choice = f"the pick {self.blocked}" if self.pick else f"its {self.arm}"
        return (
            f"{choice} cannot run: {self.scheduled} was scheduled before day "
            f"{self.intervene_on_day}, when the branches start, and {self.why}"
        )

    @property
    def text(self) -> str:
        """One line naming the question, the choice and the reason."""
        choice = f"the pick {self.blocked}" if self.pick else f"its {self.arm}"
        return (
            f"{self.question_id} becomes unresolvable if {choice} is to be tested: "
            f"its branches start on day {self.intervene_on_day} and {self.why}"
        )


def _arm_actions(question: QuestionContract, arm: Arm) -> tuple[tuple[str, bool], ...]:
    """(action, is a participant pick) for every action a choice may schedule."""
    if arm == "baseline":
        return tuple((a, False) for a in question.baseline.actions)
    if question.intervention.select_from:
        return tuple((a, True) for a in question.intervention.select_from)
    return tuple((a, False) for a in question.intervention.actions)


def blockers(view: PublicView, action_id: str) -> tuple[str, ...]:
    """Actions whose earlier scheduling gets `action_id` rejected: itself and its exclusions."""
    terms = view.action(action_id)
    return (action_id, *(terms.prerequisites.not_scheduled if terms else ()))


def traps_if_scheduled(
    view: PublicView, action_id: str, day: int | None = None
) -> tuple[Trap, ...]:
    """The questions that scheduling `action_id` at the decisions of `day` (today when
    omitted) would break."""
    when = view.day if day is None else day
    found = []
    for q in view.questions:
        if when >= q.intervene_on_day:
            continue
        for arm in ARMS:
            for blocked, pick in _arm_actions(q, arm):
                if action_id in blockers(view, blocked):
                    found.append(Trap(q.id, arm, blocked, action_id, q.intervene_on_day, pick))
    return tuple(found)


def sprung_traps(view: PublicView) -> tuple[Trap, ...]:
    """Traps already sprung: actions scheduled (on the days the view records) before a
    question's day."""
    found: list[Trap] = []
    for action_id, day in sorted(view.scheduled.items(), key=lambda item: (item[1], item[0])):
        found.extend(traps_if_scheduled(view, action_id, day))
    return tuple(found)


def question_cautions(view: PublicView, question: QuestionContract) -> tuple[str, ...]:
    """Which actions not to schedule before the question's day, and why (none from that day)."""
    if view.day >= question.intervene_on_day:
        return ()
    lines = []
    for arm in ARMS:
        for blocked, pick in _arm_actions(question, arm):
            names = ", ".join(blockers(view, blocked))
            subject = f"the pick {blocked}" if pick else f"the {arm} ({blocked})"
            lines.append(
                f"Scheduling {names} before day {question.intervene_on_day} makes "
                f"{subject} unresolvable."
            )
    return tuple(lines)
