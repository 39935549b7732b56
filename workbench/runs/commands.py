"""Player commands as typed records: what a script line or a journal entry may say.

Every number a player submits is bounded here, at submission, so that an accepted
submission can always be scored: a decimal of at most `MAX_NUMBER_CHARS` characters,
at most `MAX_MAGNITUDE` in absolute value and at most `MAX_FRACTION_DIGITS` digits after
the decimal point (README, "Submission limits"; `workbench schema submission`).
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, WithJsonSchema, field_validator

from sim.campaign_model import MAX_HORIZON_DAYS
from workbench.messages import clip

MAX_MAGNITUDE: Final = Decimal(10) ** 15
"""Largest absolute value of a submitted number (a prediction or a money conclusion)."""
MAX_FRACTION_DIGITS: Final = 6
"""Most digits after the decimal point a submitted number may carry."""
MAX_NUMBER_CHARS: Final = 40
"""Longest text form of a submitted number."""
MAX_EFFECTS: Final = 32
"""Most effect names a supported-effects conclusion may list."""
MAX_NAME_CHARS: Final = 128
"""Longest question id, action id or effect name a submission may carry."""

_DECIMAL_TEXT = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
"""A number as text, exactly as the published JSON Schema's pattern reads it: ASCII digits
only (Python's `\\d` alone also takes other scripts' digits) and no surrounding space."""
DECIMAL_PATTERN: Final = f"^{_DECIMAL_TEXT.pattern}$"
_QUANTUM: Final = Decimal(1).scaleb(-MAX_FRACTION_DIGITS)

NUMBER_JSON_SCHEMA: Final[dict[str, Any]] = {
    "anyOf": [
        {"type": "string", "pattern": DECIMAL_PATTERN, "maxLength": MAX_NUMBER_CHARS},
        {"type": "number", "minimum": -int(MAX_MAGNITUDE), "maximum": int(MAX_MAGNITUDE)},
    ],
    "description": (
        f"A decimal number: |x| <= {int(MAX_MAGNITUDE)}, at most {MAX_FRACTION_DIGITS} "
        f"digits after the point, at most {MAX_NUMBER_CHARS} characters as text."
    ),
}
CONCLUSION_JSON_SCHEMA: Final[dict[str, Any]] = {
    "anyOf": [
        NUMBER_JSON_SCHEMA,
        {
            "type": "array",
            "maxItems": MAX_EFFECTS,
            "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
        },
        {"type": "null"},
    ]
}


def bounded_decimal(value: Any, what: str = "value") -> Decimal:
    """Parse a submitted number within the declared limits, or raise ValueError saying which."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
        raise ValueError(f"{what} must be a number")
    if isinstance(value, int) and abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"{what} is larger than {int(MAX_MAGNITUDE)} in absolute value")
    text = value if isinstance(value, str) else str(value)
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"{what} is longer than {MAX_NUMBER_CHARS} characters")
    if isinstance(value, str) and not _DECIMAL_TEXT.fullmatch(text):
        raise ValueError(f"{what} {clip(value)} is not a decimal number")
    try:
        number = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"{what} {clip(value)} is not a number") from None
    if not number.is_finite():
        raise ValueError(f"{what} must be finite")
    if number.copy_abs() > MAX_MAGNITUDE:
        raise ValueError(f"{what} is larger than {int(MAX_MAGNITUDE)} in absolute value")
    if number != number.quantize(_QUANTUM):
        raise ValueError(f"{what} has more than {MAX_FRACTION_DIGITS} digits after the point")
    return number


class _Command(BaseModel):
    """Fields shared by every command; strict, so `"3"` or `true` is never a number of days."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Caller-generated command id; a known id is a no-op.",
    )


class Schedule(_Command):
    """Schedule a named action at today's decisions."""

    kind: Literal["schedule"] = "schedule"
    action: str = Field(min_length=1, max_length=MAX_NAME_CHARS)


class Advance(_Command):
    """Run whole days (operations and close) with no further decisions."""

    kind: Literal["advance"] = "advance"
    days: int = Field(default=1, ge=1, le=MAX_HORIZON_DAYS)


class Finish(_Command):
    """End the run: the remaining days run with no decisions; then it accepts no command."""

    kind: Literal["finish"] = "finish"


class CounterfactualAssessment(BaseModel):
    """A counterfactual prediction: intervention − baseline in the metric's units."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    kind: Literal["counterfactual"] = "counterfactual"
    question: str = Field(
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="The question's id, as its public contract gives it.",
    )
    value: Annotated[str, WithJsonSchema(NUMBER_JSON_SCHEMA)] = Field(
        description=(
            "Predicted intervention − baseline of the question's metric on its outcome day, "
            f"in the metric's units: a decimal number, at most {MAX_FRACTION_DIGITS} digits "
            "after the point."
        )
    )
    conclusion: Annotated[str | list[str] | None, WithJsonSchema(CONCLUSION_JSON_SCHEMA)] = Field(
        default=None,
        description=(
            "The required conclusion: a money amount in dollars to the cent "
            "(contract_component) or a list of effect names (supported_effects)."
        ),
    )
    choice: str | None = Field(
        default=None,
        max_length=MAX_NAME_CHARS,
        description="The selected intervention action.",
    )

    @field_validator("value", mode="before")
    @classmethod
    def _value(cls, value: Any) -> str:
        return str(bounded_decimal(value, "value"))

    @field_validator("conclusion", mode="before")
    @classmethod
    def _conclusion(cls, value: Any) -> str | list[str] | None:
        if value is None:
            return None
        if isinstance(value, list):
            if len(value) > MAX_EFFECTS:
                raise ValueError(f"conclusion lists more than {MAX_EFFECTS} effects")
            if not all(isinstance(v, str) and 0 < len(v) <= MAX_NAME_CHARS for v in value):
                raise ValueError(f"conclusion: effect names of 1 to {MAX_NAME_CHARS} characters")
            return list(value)
        if isinstance(value, bool) or not isinstance(value, (str, int, float, Decimal)):
            raise ValueError(
                'conclusion: a money amount such as "-300.00" or a list of effect names'
            )
        return str(bounded_decimal(value, "conclusion"))


class SubmitAssessment(_Command):
    """Submit an assessment (journaled like every command)."""

    kind: Literal["submit_assessment"] = "submit_assessment"
    assessment: CounterfactualAssessment


PlayerCommand = Schedule | Advance | SubmitAssessment | Finish
Command = Annotated[PlayerCommand, Field(discriminator="kind")]
COMMAND_ADAPTER: TypeAdapter[PlayerCommand] = TypeAdapter(Command)


def command_payload(command: PlayerCommand) -> dict[str, Any]:
    """The journal payload of a command (everything but kind and id)."""
    return command.model_dump(mode="json", exclude={"id", "kind"}, exclude_none=True)


def command_from_entry(kind: str, payload: dict[str, Any]) -> PlayerCommand:
    """Rebuild a typed command from a journal entry's kind and payload."""
    return COMMAND_ADAPTER.validate_python({"kind": kind, **payload})
