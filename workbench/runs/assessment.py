"""Assessment rules: validating a submission against its question, and eligibility.

Eligibility is an exclusive cutoff: a submission made at the decisions of day `d`
counts for a question only when `d < deadline_day`. Among eligible submissions the
latest (highest journal seq) counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question
from workbench.messages import clip
from workbench.runs.commands import CounterfactualAssessment, bounded_decimal

CENT: Final = Decimal("0.01")


@dataclass(frozen=True)
class SubmissionRecord:
    """A journaled submission: where it stands in the journal and what it said."""

    seq: int
    day: int
    assessment: CounterfactualAssessment


def eligible(question: Question, day: int) -> bool:
    """True when a submission made at the decisions of `day` beats the exclusive cutoff."""
    return day < question.deadline_day


def intervention_actions(question: Question, choice: str | None) -> tuple[str, ...]:
    """The intervention's actions: fixed, or the participant's selection."""
    if question.intervention.participant_selected:
        return (choice,) if choice else ()
    return question.intervention.actions


def validate_assessment(bundle: CampaignBundle, assessment: CounterfactualAssessment) -> list[str]:
    """Contract errors of a submission (empty when valid); names the field at fault."""
    question = bundle.questions.get(assessment.question)
    if question is None:
        return [
            f"question: unknown question {clip(assessment.question)} "
            f"(known: {', '.join(sorted(bundle.questions))})"
        ]
    errors: list[str] = []
    selectable = question.intervention.select_from
    if question.intervention.participant_selected:
        if assessment.choice is None:
            errors.append(f"choice: required, one of {', '.join(selectable)}")
        elif assessment.choice not in selectable:
            errors.append(
                f"choice: {clip(assessment.choice)} is not one of {', '.join(selectable)}"
            )
    elif assessment.choice is not None:
        errors.append("choice: this question's intervention is fixed; omit choice")
    if question.conclusion is None:
        if assessment.conclusion is not None:
            errors.append("conclusion: this question takes no conclusion")
    elif assessment.conclusion is not None:
        errors.extend(_conclusion_errors(bundle, question, assessment.conclusion))
    return errors


def missing_conclusion(bundle: CampaignBundle, assessment: CounterfactualAssessment) -> str | None:
    """A note when a question requires a conclusion the submission leaves out.

    The forecast alone is accepted and scored; the conclusion's verdict will be `missing`
    and `validate` exits 1.
    """
    question = bundle.questions.get(assessment.question)
    required = question.conclusion if question is not None else None
    if required is None or assessment.conclusion is not None:
        return None
    return (
        f"conclusion: {assessment.question} requires a {required.kind} conclusion of "
        f"{required.action}; without one its verdict is `missing`"
    )


def _conclusion_errors(bundle: CampaignBundle, question: Question, value: Any) -> list[str]:
    required = question.conclusion
    assert required is not None
    if required.kind == "contract_component":
        if isinstance(value, list):
            return ['conclusion: a money amount in dollars, e.g. "-300.00"']
        try:
            amount = bounded_decimal(value, "conclusion")
        except ValueError as exc:
            return [str(exc)]
        if amount != amount.quantize(CENT):
            return ["conclusion: must be exact to the cent"]
        return []
    declared = bundle.actions[required.action].effect_names
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return ["conclusion: a list of effect names"]
    unknown = [v for v in value if v not in declared]
    if unknown:
        return [
            f"conclusion: {', '.join(unknown)} not among {required.action}'s declared "
            f"effects ({', '.join(declared)})"
        ]
    if len(set(value)) != len(value):
        return ["conclusion: lists an effect twice"]
    return []


def latest_eligible(
    question: Question, submissions: list[SubmissionRecord]
) -> SubmissionRecord | None:
    """The submission that counts for `question`, if any."""
    chosen = None
    for record in submissions:
        if record.assessment.question == question.id and eligible(question, record.day):
            chosen = record
    return chosen
