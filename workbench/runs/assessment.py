"""Assessment rules: validating a submission against its question, and eligibility.

Eligibility is an exclusive cutoff: a submission made at the decisions of day `d`
counts for a question only when `d < deadline_day`. Among eligible submissions the
latest (highest journal seq) counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

from pydantic import ValidationError

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Conclusion, Question
from workbench.messages import clip, problems
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


def conclusion_needed(required: Conclusion) -> str:
    """What a required conclusion asks for, in words."""
    if required.kind == "contract_component":
        return f"the {required.component} of {required.action} in dollars, e.g. -300.00"
    return f"the declared effects of {required.action} that show, comma separated (or none)"


def _conclusion_errors(bundle: CampaignBundle, question: Question, value: Any) -> list[str]:
    required = question.conclusion
    assert required is not None
    if isinstance(value, str) and not value.strip():
        return [f"conclusion: empty; give {conclusion_needed(required)}, or leave it out"]
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


def assessment_from_form(
    question_id: str,
    required: Conclusion | None,
    picks: tuple[str, ...],
    typed: tuple[str, str, str | None],
) -> dict[str, Any]:
    """A submission from a form's typed (value, conclusion, choice): blanks left out.

    Only fields the question takes (its required conclusion, a pick when `picks` is not
    empty) are included, so what one question's form held never leaks into another's.
    """
    value, conclusion, choice = typed
    data: dict[str, Any] = {"kind": "counterfactual", "question": question_id}
    if value.strip():
        data["value"] = value.strip()
    if required is not None and conclusion.strip():
        if required.kind == "supported_effects":
            names = [p.strip() for p in conclusion.split(",") if p.strip()]
            data["conclusion"] = [] if names == ["none"] else names
        else:
            data["conclusion"] = conclusion.strip()
    if picks and choice:
        data["choice"] = choice
    return data


@dataclass(frozen=True)
class ParsedAssessment:
    """A submission checked exactly as `submit` checks it: the typed record, or the errors.

    `notes` are accepted-but-worth-knowing remarks (a required conclusion left out).
    """

    assessment: CounterfactualAssessment | None
    errors: tuple[str, ...]
    notes: tuple[str, ...] = ()


def parse_assessment(
    bundle: CampaignBundle, data: Mapping[str, Any] | CounterfactualAssessment
) -> ParsedAssessment:
    """Schema and contract errors of a submission, one line each (none when it is valid)."""
    if isinstance(data, CounterfactualAssessment):
        parsed = data
    else:
        value = data.get("value")
        if value is None or (isinstance(value, str) and not value.strip()):
            return ParsedAssessment(
                None, ("value: required: the predicted intervention − baseline, a number",)
            )
        conclusion = data.get("conclusion")
        question = bundle.questions.get(str(data.get("question")))
        if isinstance(conclusion, str) and not conclusion.strip() and question is not None:
            if question.conclusion is None:
                return ParsedAssessment(None, ("conclusion: this question takes no conclusion",))
            return ParsedAssessment(
                None,
                (
                    f"conclusion: empty; give {conclusion_needed(question.conclusion)}, or "
                    "leave it out "
                    "(its verdict is then missing)",
                ),
            )
        try:
            parsed = CounterfactualAssessment.model_validate(dict(data))
        except ValidationError as exc:
            return ParsedAssessment(None, tuple(problems(exc, "assessment")))
    errors = validate_assessment(bundle, parsed)
    if errors:
        return ParsedAssessment(None, tuple(errors))
    note = missing_conclusion(bundle, parsed)
    return ParsedAssessment(parsed, (), () if note is None else (note,))


def latest_eligible(
    question: Question, submissions: list[SubmissionRecord]
) -> SubmissionRecord | None:
    """The submission that counts for `question`, if any."""
    chosen = None
    for record in submissions:
        if record.assessment.question == question.id and eligible(question, record.day):
            chosen = record
    return chosen
