"""Assessment rules: validating a submission against its question, and eligibility.

Eligibility is an exclusive cutoff: a submission made at the decisions of day `d`
counts for a question only when `d < deadline_day`. Among eligible submissions the
latest (highest journal seq) counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final, Protocol

from pydantic import ValidationError

from sim.campaign_load import CampaignBundle
from sim.campaign_model import Conclusion, Question
from workbench.messages import clip, problems
from workbench.runs.commands import CounterfactualAssessment, bounded_decimal

CENT: Final = Decimal("0.01")


class ChoiceRules(Protocol):
    """What the rules read of a question's intervention: fixed actions or a pick."""

    @property
    def actions(self) -> tuple[str, ...]: ...

    @property
    def select_from(self) -> tuple[str, ...]: ...


class QuestionRules(Protocol):
    """What the submission rules read of a question: a campaign's or its public contract."""

    @property
    def id(self) -> str: ...

    @property
    def conclusion(self) -> Conclusion | None: ...

    @property
    def intervention(self) -> ChoiceRules: ...


class AssessmentRules(Protocol):
    """The questions and declared effects a submission is checked against.

    The campaign (`CampaignRules`) and the player's public view (`workbench.play`'s
    `ViewRules`) give the same answers: every rule a submission meets is public.
    """

    @property
    def question_ids(self) -> tuple[str, ...]: ...

    def question(self, question_id: str) -> QuestionRules | None: ...

    def effect_names(self, action_id: str) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class CampaignRules:
    """The submission rules of a loaded campaign."""

    bundle: CampaignBundle

    @property
    def question_ids(self) -> tuple[str, ...]:
        """Every question id, in campaign order."""
        return tuple(self.bundle.questions)

    def question(self, question_id: str) -> Question | None:
        """One question, or None when unknown."""
        return self.bundle.questions.get(question_id)

    def effect_names(self, action_id: str) -> tuple[str, ...]:
        """The effects an action declares."""
        action = self.bundle.actions.get(action_id)
        return action.effect_names if action is not None else ()


def _rules(source: CampaignBundle | AssessmentRules) -> AssessmentRules:
    return CampaignRules(source) if isinstance(source, CampaignBundle) else source


@dataclass(frozen=True)
class SubmissionRecord:
    """A journaled submission: where it stands in the journal and what it said."""

    seq: int
    day: int
    assessment: CounterfactualAssessment


def eligible(question: Question, day: int) -> bool:
    """True when a submission made at the decisions of `day` beats the exclusive cutoff."""
    return day < question.deadline_day


def late_notes(question: Question, day: int) -> tuple[str, ...]:
    """What a submission made at the decisions of `day` is told when it misses the cutoff:
    it is journaled, but only submissions before the deadline day count."""
    if eligible(question, day):
        return ()
    return (
        f"submitted on day {day}, not before {question.id}'s deadline day "
        f"{question.deadline_day}: recorded, but it will not count",
    )


def intervention_actions(question: Question, choice: str | None) -> tuple[str, ...]:
    """The intervention's actions: fixed, or the participant's selection."""
    if question.intervention.participant_selected:
        return (choice,) if choice else ()
    return question.intervention.actions


def validate_assessment(
    source: CampaignBundle | AssessmentRules, assessment: CounterfactualAssessment
) -> list[str]:
    """Contract errors of a submission (empty when valid); names the field at fault."""
    rules = _rules(source)
    question = rules.question(assessment.question)
    if question is None:
        return [
            f"question: unknown question {clip(assessment.question)} "
            f"(known: {', '.join(sorted(rules.question_ids))})"
        ]
    errors: list[str] = []
    selectable = question.intervention.select_from
    if selectable:
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
        errors.extend(_conclusion_errors(rules, question, assessment.conclusion))
    return errors


def missing_conclusion(
    source: CampaignBundle | AssessmentRules, assessment: CounterfactualAssessment
) -> str | None:
    """A note when a question requires a conclusion the submission leaves out.

    The forecast alone is accepted and scored; the conclusion's verdict will be `missing`
    and `validate` exits 1.
    """
    question = _rules(source).question(assessment.question)
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
        return f"the {required.component} of {required.action} in dollars, to the cent"
    return f"the declared effects of {required.action} that show, comma separated (or none)"


def _conclusion_errors(rules: AssessmentRules, question: QuestionRules, value: Any) -> list[str]:
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
    declared = rules.effect_names(required.action)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return ["conclusion: a list of effect names"]
    unknown = [v for v in value if v not in declared]
    if unknown:
        return [
            f"conclusion: {', '.join(clip(v) for v in unknown)} not among "
            f"{required.action}'s declared effects ({', '.join(declared)})"
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
            # Text that names nothing (",,") stays text, for the check to refuse: only the
            # word `none` is the answer "no effect shows".
            data["conclusion"] = [] if names == ["none"] else names or conclusion.strip()
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
    source: CampaignBundle | AssessmentRules, data: Mapping[str, Any] | CounterfactualAssessment
) -> ParsedAssessment:
    """Schema and contract errors of a submission, one line each (none when it is valid)."""
    rules = _rules(source)
    if isinstance(data, CounterfactualAssessment):
        parsed = data
    elif not isinstance(data, Mapping):
        return ParsedAssessment(
            None,
            (
                f"an assessment is an object of fields (question, value, ...), not "
                f"{type(data).__name__} {clip(data)}",
            ),
        )
    else:
        value = data.get("value")
        if value is None or (isinstance(value, str) and not value.strip()):
            return ParsedAssessment(
                None, ("value: required: the predicted intervention − baseline, a number",)
            )
        conclusion = data.get("conclusion")
        question = rules.question(str(data.get("question")))
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
    errors = validate_assessment(rules, parsed)
    if errors:
        return ParsedAssessment(None, tuple(errors))
    note = missing_conclusion(rules, parsed)
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
