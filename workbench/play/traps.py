"""Question traps: scheduling an action early can make a question unresolvable.

A question's branches start after day D (its intervention day) closes, and every
commitment made before then carries into both branches. Actions are not repeatable,
and some exclude others (`prerequisites.not_scheduled`), so scheduling before day D
an action that one of the question's choices must schedule at D gets that choice
rejected in its branch: the question cannot be scored. This module names those
actions so the player is warned before it happens, not after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question

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


def _arm_actions(question: Question, arm: Arm) -> tuple[tuple[str, bool], ...]:
    """(action, is a participant pick) for every action a choice may schedule."""
    choice = question.baseline if arm == "baseline" else question.intervention
    if choice.participant_selected:
        return tuple((a, True) for a in choice.select_from)
    return tuple((a, False) for a in choice.actions)


def blockers(bundle: CampaignBundle, action_id: str) -> tuple[str, ...]:
    """Actions whose earlier scheduling gets `action_id` rejected: itself and its exclusions."""
    action = bundle.actions[action_id]
    return (action_id, *action.prerequisites.not_scheduled)


def traps_if_scheduled(bundle: CampaignBundle, day: int, action_id: str) -> tuple[Trap, ...]:
    """The questions that scheduling `action_id` at the decisions of `day` would break."""
    found = []
    for q in bundle.questions.values():
        if day >= q.intervene_on_day:
            continue
        for arm in ARMS:
            for blocked, pick in _arm_actions(q, arm):
                if action_id in blockers(bundle, blocked):
                    found.append(Trap(q.id, arm, blocked, action_id, q.intervene_on_day, pick))
    return tuple(found)


def sprung_traps(bundle: CampaignBundle, scheduled: Mapping[str, int]) -> tuple[Trap, ...]:
    """Traps already sprung: actions scheduled (on the given days) before a question's day."""
    found: list[Trap] = []
    for action_id, day in sorted(scheduled.items(), key=lambda item: (item[1], item[0])):
        found.extend(traps_if_scheduled(bundle, day, action_id))
    return tuple(found)


def question_cautions(bundle: CampaignBundle, question: Question, day: int) -> tuple[str, ...]:
    """Which actions not to schedule before the question's day, and why (none from that day)."""
    if day >= question.intervene_on_day:
        return ()
    lines = []
    for arm in ARMS:
        for blocked, pick in _arm_actions(question, arm):
            names = ", ".join(blockers(bundle, blocked))
            subject = f"the pick {blocked}" if pick else f"the {arm} ({blocked})"
            lines.append(
                f"Scheduling {names} before day {question.intervene_on_day} makes "
                f"{subject} unresolvable."
            )
    return tuple(lines)
