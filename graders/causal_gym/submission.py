"""Typed submissions per family (pydantic, strict JSON); invalid input yields only its errors."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import Annotated, Any, Final

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ledger.json_keys import repeated_key

MAX_ABS: Final[float] = 1e15
"""Largest magnitude of a submitted number. Beyond it a double cannot hold a tenth, every staged
outcome is far inside it, and it keeps every reward a finite number (no overflow to inf)."""
MAX_SUBMISSION: Final[int] = 1024 * 1024
"""Longest submission text, in characters or bytes (the CLI reads at most 1 MiB too)."""
CLIP: Final[int] = 60
"""Longest piece of a submission echoed in an error (a key name, a location)."""

Finite = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_ABS, le=MAX_ABS)]


class IntervalSubmission(BaseModel):
    """Every family: a point estimate of the ATE and a 90% interval [lo, hi]."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, allow_inf_nan=False)

    estimate: Finite = Field(description="Point estimate of the average treatment effect.")
    interval: tuple[Finite, Finite] = Field(
        description="90% interval [lo, hi] for the average treatment effect, lo <= hi."
    )

    @model_validator(mode="after")
    def _ordered(self) -> IntervalSubmission:
        """An interval must not be reversed."""
        if self.interval[0] > self.interval[1]:
            raise ValueError("interval must satisfy lo <= hi")
        return self

    @property
    def lo(self) -> float:
        """Lower end of the interval."""
        return self.interval[0]

    @property
    def hi(self) -> float:
        """Upper end of the interval."""
        return self.interval[1]


class AteSubmission(IntervalSubmission):
    """Family `ate`: estimate and interval only."""


class AdjustmentSubmission(IntervalSubmission):
    """Family `adjustment`: also the backdoor adjustment set used, as column names."""

    adjustment_set: list[Annotated[str, Field(min_length=1)]] = Field(
        description="Column names of a backdoor adjustment set (pre-treatment columns only)."
    )

    @model_validator(mode="after")
    def _distinct(self) -> AdjustmentSubmission:
        """A column may appear in the set only once."""
        if len(set(self.adjustment_set)) != len(self.adjustment_set):
            raise ValueError("adjustment_set must not repeat a column")
        return self


class NullDetectSubmission(IntervalSubmission):
    """Family `null_detect`: also the probability that the treatment has any effect."""

    effect_probability: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)] = Field(
        description="Probability in [0, 1] that the treatment has a nonzero causal effect."
    )


MODELS: Final[dict[str, type[IntervalSubmission]]] = {
    "ate": AteSubmission,
    "adjustment": AdjustmentSubmission,
    "null_detect": NullDetectSubmission,
}


class InvalidSubmission(ValueError):
    """A submission outside its family's schema; carries only the validation errors."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__("; ".join(f"{e['loc']}: {e['msg']}" for e in errors))
        self.errors = errors


def clip(text: str, limit: int = CLIP) -> str:
    """`text` with control characters escaped, cut to `limit` characters with an ellipsis.

    Errors quote pieces of the input; this keeps them short and harmless on a terminal.
    """
    shown = "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def _no_constants(name: str) -> Any:
    """parse_constant: NaN and Infinity are not JSON."""
    raise ValueError(f"{name} is not a JSON number")


def check_strict_json(text: str | bytes) -> None:
    """Refuse text that is not strict JSON: malformed, NaN/Infinity, or an object key repeated."""
    try:
        json.loads(text, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        message = f"not strict JSON: {clip(str(exc), 2 * CLIP)}"
        raise InvalidSubmission([{"loc": "", "msg": message, "type": "json_invalid"}]) from None
    key = repeated_key(text)
    if key is not None:
        message = f"duplicate key '{clip(key)}': strict JSON names each key once"
        raise InvalidSubmission([{"loc": "", "msg": message, "type": "duplicate_key"}])


def schema(family: str) -> dict[str, Any]:
    """The JSON Schema of a family's submission."""
    return MODELS[family].model_json_schema()


@cache
def schema_text(family: str) -> str:
    """The schema as indented, key-sorted JSON, built once per family (every staged task's
    README shows it, and pydantic takes a millisecond to generate it)."""
    return json.dumps(schema(family), indent=2, sort_keys=True)


def parse_submission(family: str, raw: str | bytes | Mapping[str, Any]) -> IntervalSubmission:
    """Validate strict JSON text or a mapping against the family's schema.

    Raises InvalidSubmission, whose errors never echo more than a clipped piece of the input.
    """
    model = MODELS[family]
    try:
        text = raw if isinstance(raw, str | bytes) else orjson.dumps(dict(raw))
    except TypeError as exc:
        raise InvalidSubmission([{"loc": "", "msg": clip(str(exc)), "type": "json_type"}]) from None
    if len(text) > MAX_SUBMISSION:
        message = f"larger than the submission limit of {MAX_SUBMISSION:,} characters"
        raise InvalidSubmission([{"loc": "", "msg": message, "type": "too_large"}])
    check_strict_json(text)
    try:
        return model.model_validate_json(text)
    except ValidationError as exc:
        errors = [
            {
                "loc": clip(".".join(str(p) for p in e["loc"])),
                "msg": clip(e["msg"], 2 * CLIP),
                "type": e["type"],
            }
            for e in exc.errors(include_url=False)
        ]
        raise InvalidSubmission(errors) from None
