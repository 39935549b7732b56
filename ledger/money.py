"""Exact money: integer minor units with a unit name. No float ever enters a balance."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation, localcontext

MINOR_PER_MAJOR = 100
"""Minor units per major unit for every currency this book uses (cents per dollar)."""


CURRENCY_UNITS = frozenset({"USD"})
"""Units that are money (two decimals); every other unit is a physical count."""


def scale_of(unit: str) -> int:
    """Minor units per major unit: 100 for a currency, 1 for a physical unit."""
    return MINOR_PER_MAJOR if unit in CURRENCY_UNITS else 1


class MoneyError(ValueError):
    """A money amount could not be represented exactly."""


def to_minor(value: str | int | Decimal) -> int:
    """Parse a major-unit amount ("1250.50", 12, Decimal) to exact minor units.

    Floats are refused: they cannot say what they mean to the cent. Sub-cent
    precision is refused rather than rounded.
    """
    if isinstance(value, (bool, float)):
        kind = type(value).__name__
        raise MoneyError(f"money must be a string or integer, not {kind}: {value!r}")
    try:
        amount = Decimal(str(value).replace(",", "").replace("_", "").strip())
    except InvalidOperation as exc:
        raise MoneyError(f"not a money amount: {value!r}") from exc
    if not amount.is_finite():
        raise MoneyError(f"not a finite money amount: {value!r}")
    with localcontext() as exact:
        # Enough digits that scaling by 100 can never round (the default keeps only 28).
        exact.prec = max(exact.prec, len(amount.as_tuple().digits) + 3)
        minor = amount * MINOR_PER_MAJOR
    if minor != minor.to_integral_value():
        raise MoneyError(f"more precise than one cent: {value!r}")
    return int(minor)


def to_major(minor: int) -> Decimal:
    """Minor units to an exact major-unit Decimal (12345 → Decimal('123.45'))."""
    return (Decimal(minor) / MINOR_PER_MAJOR).quantize(Decimal("0.01"))


def dollars(minor: int) -> str:
    """Cents as the exact plain dollar string JSON carries (-30000 → '-300.00')."""
    return str(to_major(minor))


def format_money(minor: int, unit: str = "USD") -> str:
    """Display text, the one spelling for people: 123456 USD → '$1,234.56', -1234 UNITS →
    '-1,234 UNITS'. The ASCII minus keeps it typeable back into any amount field."""
    sign = "-" if minor < 0 else ""
    if scale_of(unit) == 1:
        return f"{sign}{abs(minor):,} {unit}"
    major = to_major(abs(minor))
    symbol = "$" if unit == "USD" else ""
    suffix = "" if unit == "USD" else f" {unit}"
    return f"{sign}{symbol}{major:,.2f}{suffix}"


def format_dollars(text: str) -> str:
    """An exact dollar string, as JSON carries it, for display ('-300.00' → '-$300.00')."""
    return format_money(to_minor(text))
