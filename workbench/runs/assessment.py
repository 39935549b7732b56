"""Assessment rules: validating a submission against its question, and eligibility.

Eligibility is an exclusive cutoff: a submission made at the decisions of day `d`
counts for a question only when `d < deadline_day`. Among eligible submissions the
latest (highest journal seq) counts.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question
from workbench.messages import clip
from workbench.runs.commands import CounterfactualAssessment


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
    required = question.conclusion
    if required is None:
        if assessment.conclusion is not None:
            errors.append("conclusion: this question takes no conclusion")
        return errors
    errors.extend(_conclusion_errors(bundle, question, assessment.conclusion))
    return errors


def _conclusion_errors(bundle: CampaignBundle, question: Question, value: Any) -> list[str]:
    required = question.conclusion
    assert required is not None
    if value is None:
        return [f"conclusion: required ({required.kind} of {required.action})"]
    if required.kind == "contract_component":
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            return ['conclusion: a money amount in dollars, e.g. "-300.00"']
        try:
            amount = Decimal(str(value))
        except InvalidOperation:
            return [f"conclusion: {clip(value)} is not a money amount"]
        if not amount.is_finite() or amount != amount.quantize(Decimal("0.01")):
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
