"""Player commands as typed records: what a script line or a journal entry may say."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_validator

from sim.campaign_model import MAX_HORIZON_DAYS


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(
        default=None,
        min_length=1,
        max_length=128,
        description="Caller-generated command id; a known id is a no-op.",
    )


class Schedule(_Command):
    """Schedule a named action at today's decisions."""

    kind: Literal["schedule"] = "schedule"
    action: str = Field(min_length=1)


class Advance(_Command):
    """Run whole days (operations and close) with no further decisions."""

    kind: Literal["advance"] = "advance"
    days: int = Field(default=1, ge=1, le=MAX_HORIZON_DAYS)


class CounterfactualAssessment(BaseModel):
    """A counterfactual prediction: intervention − baseline in the metric's units."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["counterfactual"] = "counterfactual"
    question: str = Field(min_length=1)
    value: str = Field(description="Predicted intervention − baseline, a decimal number.")
    conclusion: Any = None
    choice: str | None = Field(default=None, description="The selected intervention action.")

    @field_validator("value", mode="before")
    @classmethod
    def _decimal(cls, value: Any) -> str:
        if isinstance(value, bool):
            raise ValueError("value must be a number")
        try:
            number = Decimal(str(value))
        except InvalidOperation:
            raise ValueError(f"value {value!r} is not a number") from None
        if not number.is_finite():
            raise ValueError("value must be finite")
        return str(number)


class SubmitAssessment(_Command):
    """Submit an assessment (journaled like every command)."""

    kind: Literal["submit_assessment"] = "submit_assessment"
    assessment: CounterfactualAssessment


Command = Annotated[Schedule | Advance | SubmitAssessment, Field(discriminator="kind")]
COMMAND_ADAPTER: TypeAdapter[Schedule | Advance | SubmitAssessment] = TypeAdapter(Command)


def command_payload(command: Schedule | Advance | SubmitAssessment) -> dict[str, Any]:
    """The journal payload of a command (everything but kind and id)."""
    return command.model_dump(mode="json", exclude={"id", "kind"}, exclude_none=True)


def command_from_entry(kind: str, payload: dict[str, Any]) -> Schedule | Advance | SubmitAssessment:
    """Rebuild a typed command from a journal entry's kind and payload."""
    return COMMAND_ADAPTER.validate_python({"kind": kind, **payload})
