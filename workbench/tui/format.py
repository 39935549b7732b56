"""Small text helpers shared by the screens (no run logic)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation


def signed(text: str) -> str:
    """A change with an explicit sign ("+12.00", "-3", "0")."""
    try:
        number = Decimal(text)
    except InvalidOperation:
        return text
    return f"+{text}" if number > 0 else text


def unit_label(units: str) -> str:
    """A short unit label for a metric."""
    return {"USD": "$", "UNITS": "bags", "EVENTS": "events"}.get(units, units.lower())


def parse_decimal(text: str) -> Decimal | None:
    """The decimal in `text`, or None when it is not a finite number."""
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None
