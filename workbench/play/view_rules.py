"""The submission rules read from the player's public view.

A hosted run has no campaign files on the player's side, yet every rule a submission
must meet is public: the question contracts (conclusion, pick) and each action's
declared effects. So the form's as-you-type check runs on the view for a local and a
hosted run alike, with the same verdicts as `submit` (a test holds them equal).
"""

from __future__ import annotations

from dataclasses import dataclass

from workbench.play.models import PublicView, QuestionView


@dataclass(frozen=True)
class ViewRules:
    """`AssessmentRules` over a public view."""

    view: PublicView

    @property
    def question_ids(self) -> tuple[str, ...]:
        """Every question id, in campaign order."""
        return tuple(q.id for q in self.view.questions)

    def question(self, question_id: str) -> QuestionView | None:
        """One question's contract, or None when unknown."""
        return self.view.question(question_id)

    def effect_names(self, action_id: str) -> tuple[str, ...]:
        """The effects an action declares."""
        terms = self.view.action(action_id)
        return terms.effect_set if terms is not None else ()
