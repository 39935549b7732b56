"""Gold answers: the investor's post-round ownership, rounded half-up to cents in `Decimal`."""

from __future__ import annotations

from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, ROUND_HALF_UP, Context, Decimal, InvalidOperation

CENT = Decimal("0.01")
"""The grid every answer and every extracted number is rounded to before comparison."""

_DIVISION = Context(prec=60, rounding=ROUND_HALF_UP)
"""Precision of the unrounded ownership (`ownership_exact`, shown in `info`); the gold's
rounding is decided exactly, without it (`gold_ownership`)."""

EXACT = Context(prec=MAX_PREC, rounding=ROUND_HALF_UP, Emax=MAX_EMAX, Emin=MIN_EMIN)
"""Unbounded precision for rounding and subtraction, which are exact and never divide."""

Amount = int | float | str | Decimal
"""A number as callers hold it: floats go through their shortest repr, never their binary value."""


def shown(value: object, limit: int = 40) -> str:
    """`repr(value)` for a one-line message, shortened to its start and length when long."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return f"{value[:20]!r}... ({len(value)} characters)"
    return f"{text[:20]}... ({len(text)} characters)"


def to_decimal(value: Amount) -> Decimal:
    """Read a finite number exactly (floats via `repr`, so 16.13 is 16.13); raise ValueError."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise ValueError(f"not a number: {shown(value)}")
    try:
        number = (
            value
            if isinstance(value, Decimal)
            else Decimal(repr(value) if isinstance(value, float) else str(value).strip())
        )
    except InvalidOperation as exc:
        raise ValueError(f"not a number: {shown(value)}") from exc
    if not number.is_finite():
        raise ValueError(f"not a finite number: {shown(value)}")
    return number


def round_cents(value: Decimal) -> Decimal:
    """Round to two decimals half-up (15.625 -> 15.63), exact at any magnitude."""
    return value.quantize(CENT, context=EXACT)


def ownership_exact(raise_amount: Amount, pre_money: Amount) -> Decimal:
    """Unrounded ownership in percent: raise / (pre_money + raise) x 100."""
    new_money = to_decimal(raise_amount)
    pre = to_decimal(pre_money)
    if new_money <= 0 or pre < 0:
        raise ValueError(f"need raise > 0 and pre-money >= 0, got {raise_amount!r}, {pre_money!r}")
    return _DIVISION.divide(EXACT.multiply(new_money, 100), EXACT.add(pre, new_money))


def gold_ownership(raise_amount: Amount, pre_money: Amount) -> Decimal:
    """The gold answer: ownership in percent rounded to cents half-up (never float `round`).

    Decided exactly at any magnitude, never from a rounded quotient: the number of cents is
    floor(ratio x 10000 + 1/2), an integer division of exact sums. (A 60-digit quotient of
    amounts past 10**60 can land on a tie, 15.625, that the exact ratio falls just short of.)
    """
    new_money = to_decimal(raise_amount)
    pre = to_decimal(pre_money)
    if new_money <= 0 or pre < 0:
        raise ValueError(f"need raise > 0 and pre-money >= 0, got {raise_amount!r}, {pre_money!r}")
    post = EXACT.add(pre, new_money)
    doubled = EXACT.add(EXACT.multiply(new_money, 20_000), post)
    cents = EXACT.divide_int(doubled, EXACT.multiply(post, 2))
    return cents.scaleb(-2, EXACT).quantize(CENT, context=EXACT)
