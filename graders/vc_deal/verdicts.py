"""Verdicts: strict (equal at cents), loose (within 0.50 points) and format validity.

Both sides are rounded to cents half-up in `Decimal` at the default precision of 28 digits,
as the study's grader does, so a number too large for that (27 or more digits before the
point) can never be correct. Strict rounds the extracted number exactly; loose rounds it
after a trip through a Python float, as the study does.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from functools import lru_cache

from graders.vc_deal.extract import Completion, extract_value
from graders.vc_deal.gold import CENT, EXACT, Amount, shown, to_decimal

LOOSE_TOLERANCE = Decimal("0.50")
"""The loose grader's window in percentage points, inclusive on both sides."""

STUDY_PRECISION = 28
"""Python's default `Decimal` precision, at which the study rounds both sides to cents."""

_STUDY = Context(prec=STUDY_PRECISION, rounding=ROUND_HALF_UP)

_FLOAT_SAFE_GOLD = Decimal(10**11)
"""Golds below this have loose windows whose verdicts floats cannot blur (see `judge`)."""


@dataclass(frozen=True, slots=True)
class Verdicts:
    """The three binary verdicts on one extracted number."""

    strict_correct: float
    loose_correct: float
    format_valid_number: float

    def reward(self, loose: bool = False) -> float:
        """The scalar reward: strict by default, loose when asked."""
        return self.loose_correct if loose else self.strict_correct


NO_NUMBER = Verdicts(0.0, 0.0, 0.0)
_EXACT_MATCH = Verdicts(1.0, 1.0, 1.0)
_WITHIN_TOLERANCE = Verdicts(0.0, 1.0, 1.0)
_WRONG_NUMBER = Verdicts(0.0, 0.0, 1.0)
_STRICT_ONLY = Verdicts(1.0, 0.0, 1.0)


def study_cents(value: Decimal) -> Decimal | None:
    """`value` rounded to cents half-up at 28 digits, or None where the study's rounding fails.

    It fails for infinity and for any number whose rounded form needs more than 28 digits.
    """
    try:
        return value.quantize(CENT, context=_STUDY)
    except InvalidOperation:
        return None


def float_cents(value: Decimal) -> Decimal | None:
    """The loose side: `value` as a Python float, its shortest repr, then `study_cents`."""
    return study_cents(Decimal(repr(float(value))))


@dataclass(frozen=True, slots=True)
class GoldWindow:
    """A gold at cents, its inclusive loose window, and that window narrowed and widened a cent.

    `float_safe` is set for a gold under 10**11, where the whole window has at most 15
    digits, so a float reproduces its bounds exactly.
    """

    gold: Decimal
    low: Decimal
    high: Decimal
    surely_in_low: Decimal
    surely_in_high: Decimal
    surely_out_low: Decimal
    surely_out_high: Decimal
    float_safe: bool

    def holds(self, cents: Decimal | None) -> bool:
        """Whether rounded cents lie in the loose window (never for a failed rounding)."""
        return cents is not None and self.low <= cents <= self.high


def _window(answer: Amount) -> GoldWindow:
    """Round the gold to cents as the study does and widen it by the loose tolerance."""
    gold = study_cents(to_decimal(answer))
    if gold is None:
        limit = f"{STUDY_PRECISION} digits"
        raise ValueError(f"too large to round to cents in {limit}: {shown(answer)}")
    low = EXACT.subtract(gold, LOOSE_TOLERANCE)
    high = EXACT.add(gold, LOOSE_TOLERANCE)
    return GoldWindow(
        gold,
        low,
        high,
        EXACT.add(low, CENT),
        EXACT.subtract(high, CENT),
        EXACT.subtract(low, CENT),
        EXACT.add(high, CENT),
        abs(gold) < _FLOAT_SAFE_GOLD,
    )


_cached_window = lru_cache(maxsize=4096, typed=True)(_window)


def gold_window(answer: Amount) -> GoldWindow:
    """The gold window, cached per exact type and value; ValueError for a gold it cannot round."""
    try:
        return _cached_window(answer)
    except TypeError:
        return _window(answer)


def judge(value: Decimal | None, answer: Amount) -> Verdicts:
    """Verdicts for an already extracted number against the gold answer.

    The loose side's float trip is taken only where it can change the verdict. For a
    float-safe gold, a number whose exact cents are inside the window by more than a cent
    stays inside as a float (below 10**12 a float is within 0.0002 of the number), and one
    outside by more than a cent stays outside (the float conversion and its shortest repr
    are monotonic, and the window's bounds are exact floats).
    """
    window = gold_window(answer)
    if value is None:
        return NO_NUMBER
    try:
        got: Decimal | None = value.quantize(CENT, None, _STUDY)
    except InvalidOperation:
        got = None
    if window.float_safe:
        if got is None:
            return _WRONG_NUMBER
        if got == window.gold:
            return _EXACT_MATCH
        if window.surely_in_low <= got <= window.surely_in_high:
            return _WITHIN_TOLERANCE
        if got < window.surely_out_low or got > window.surely_out_high:
            return _WRONG_NUMBER
    strict = got is not None and got == window.gold
    loose = window.holds(float_cents(value))
    if strict:
        return _EXACT_MATCH if loose else _STRICT_ONLY
    return _WITHIN_TOLERANCE if loose else _WRONG_NUMBER


def grade_completion(completion: Completion, answer: Amount) -> Verdicts:
    """Extract once, then judge both ways: the whole grading pipeline for one completion."""
    return judge(extract_value(completion), answer)
