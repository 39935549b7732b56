"""Display text for amounts on screens and in summaries, over the core's one money formatter.

Money is spelt by `ledger.money.format_money` everywhere (`$14,000.00`, `-$300.00`: the
ASCII minus keeps a shown amount typeable back into a field); this module adds signed
changes, counts with their unit noun, and short measured numbers. Pure functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Protocol

from ledger.money import format_money, to_minor

UNIT_NOUNS = {"UNITS": ("unit", "units"), "EVENTS": ("event", "events")}
"""How a metric's non-money unit reads after a count (one, many): campaign-neutral words,
since a campaign names its product only in its titles (bags of coffee, loaves, cones)."""


def _decimal(value: Decimal | str | int) -> Decimal:
    if isinstance(value, Decimal):
        return value
    try:
        return Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"not a number: {value!r}") from None


def money(dollars: Decimal | str | int) -> str:
    """Exact dollars as the core spells money: `$14,000.00`, `-$300.00`."""
    return format_money(to_minor(_decimal(dollars).quantize(Decimal("0.01"))))


def money_of_cents(cents: int) -> str:
    """Integer cents as money text (`1400000` → `$14,000.00`)."""
    return format_money(cents)


def signed_money(dollars: Decimal | str | int) -> str:
    """A change in dollars with its sign: `+$1,200.00`, `-$300.00`, `$0.00`."""
    amount = _decimal(dollars)
    return f"+{money(amount)}" if amount > 0 else money(amount)


def count(value: Decimal | str | int) -> str:
    """A count with thousands separated (`-1,234`)."""
    number = _decimal(value)
    sign = "-" if number < 0 else ""
    text = f"{abs(number):,f}" if number != number.to_integral_value() else f"{abs(number):,.0f}"
    return f"{sign}{text}"


def amount(value: Decimal | str | int, units: str) -> str:
    """A metric value in its units: money for USD, `1,234 units` for counts."""
    if units == "USD":
        return money(value)
    number = _decimal(value)
    one, many = UNIT_NOUNS.get(units, (units.lower(), units.lower()))
    return f"{count(number)} {one if abs(number) == 1 else many}"


def signed_amount(value: Decimal | str | int, units: str) -> str:
    """A change of a metric with its sign (`+$12.00`, `−3 units`, `0 events`)."""
    number = _decimal(value)
    text = amount(number, units)
    return f"+{text}" if number > 0 else text


def unit_label(units: str) -> str:
    """A short unit label for a column (`$`, `units`, `events`)."""
    return "$" if units == "USD" else UNIT_NOUNS.get(units, ("", units.lower()))[1]


def plain_number(value: Decimal | str) -> str:
    """A submitted number exactly, with thousands separators and never in exponent form
    (`1.5E+3` → `1,500`, `-1300` → `-1,300`); text that is not a number, as it is."""
    try:
        number = _decimal(value)
    except (ValueError, ArithmeticError):
        return str(value)
    if not number.is_finite():
        return str(value)
    return f"{number:,f}"


SHORT_DIGITS = 28
"""The widest number `short_number` spells in full (Decimal's precision, a report's too)."""


def short_number(value: Decimal | str | float) -> str:
    """A measured number (a loss, a score) to four significant digits, never in exponent form;
    as written when it is not one that fits in `SHORT_DIGITS` digits (a report read from the
    runs folder may hold anything: `abc`, `Infinity` or `1e999999999` closed the author app)."""
    try:
        number = _decimal(value) if not isinstance(value, float) else Decimal(repr(value))
        if number.is_zero():
            return "0"
        exponent = number.adjusted()
        if not number.is_finite() or abs(exponent) >= SHORT_DIGITS:
            return str(value)
        places = max(0, 3 - exponent)
        text = f"{round(number, places):,.{places}f}"
    except (ValueError, ArithmeticError):
        return str(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


class Scored(Protocol):
    """What `score_counts` reads of a report summary (`workbench.evaluation.report.Summary`)."""

    @property
    def questions(self) -> int: ...
    @property
    def scored(self) -> int: ...
    @property
    def mean_score(self) -> str | None: ...
    @property
    def conclusions_required(self) -> int: ...
    @property
    def conclusions_met(self) -> int: ...


def score_counts(summary: Scored) -> str:
    """A report summary in one phrase: `scored 6/6, mean score -2.251; conclusions met 3/3`."""
    mean = short_number(summary.mean_score) if summary.mean_score is not None else "-"
    return (
        f"scored {summary.scored}/{summary.questions}, mean score {mean}; "
        f"conclusions met {summary.conclusions_met}/{summary.conclusions_required}"
    )


class Needs(Protocol):
    """What `prerequisites_text` reads of an action's prerequisites
    (`workbench.play.models.PrerequisiteTerms`)."""

    @property
    def completed(self) -> Sequence[str]: ...
    @property
    def not_scheduled(self) -> Sequence[str]: ...
    @property
    def min_cash_after(self) -> str: ...
    @property
    def min_headcount(self) -> Mapping[str, int]: ...


def prerequisites_text(pre: Needs) -> str:
    """An action's prerequisites in words, the ones it has only: `completed: a, b; free cash
    after ≥ $2,000.00; headcount roaster ≥ 2` (the free-cash floor is always shown)."""
    needs = [
        f"completed: {', '.join(pre.completed)}" if pre.completed else "",
        f"not scheduled: {', '.join(pre.not_scheduled)}" if pre.not_scheduled else "",
        f"free cash after ≥ {money(pre.min_cash_after)}",
        ", ".join(f"headcount {r} ≥ {n}" for r, n in pre.min_headcount.items()),
    ]
    return "; ".join(n for n in needs if n)
