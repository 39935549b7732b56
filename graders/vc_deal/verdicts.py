"""Verdicts: strict (equal at cents), loose (within 0.50 points) and format validity."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from graders.vc_deal.extract import Completion, extract_value
from graders.vc_deal.gold import EXACT, Amount, round_cents, to_decimal

LOOSE_TOLERANCE = Decimal("0.50")
"""The loose grader's window in percentage points, inclusive on both sides."""


@dataclass(frozen=True, slots=True)
class Verdicts:
    """The three binary verdicts on one extracted number; loose >= strict by construction."""

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


@dataclass(frozen=True, slots=True)
class GoldWindow:
    """A gold answer at cents and the inclusive loose window around it."""

    gold: Decimal
    low: Decimal
    high: Decimal


def _window(answer: Amount) -> GoldWindow:
    """Round the gold to cents and widen it by the loose tolerance, exactly."""
    gold = round_cents(to_decimal(answer))
    return GoldWindow(gold, EXACT.subtract(gold, LOOSE_TOLERANCE), EXACT.add(gold, LOOSE_TOLERANCE))


_cached_window = lru_cache(maxsize=4096, typed=True)(_window)


def gold_window(answer: Amount) -> GoldWindow:
    """The gold window, cached per exact type and value; ValueError for a non-number."""
    try:
        return _cached_window(answer)
    except TypeError:
        return _window(answer)


def judge(value: Decimal | None, answer: Amount) -> Verdicts:
    """Verdicts for an already extracted number against the gold answer."""
    window = gold_window(answer)
    if value is None:
        return NO_NUMBER
    got = round_cents(value)
    if got == window.gold:
        return _EXACT_MATCH
    return _WITHIN_TOLERANCE if window.low <= got <= window.high else _WRONG_NUMBER


def grade_completion(completion: Completion, answer: Amount) -> Verdicts:
    """Extract once, then judge both ways: the whole grading pipeline for one completion."""
    return judge(extract_value(completion), answer)
