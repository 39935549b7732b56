"""Money in prose: snap dollar amounts to a readable grid and write them in mixed formats."""

from __future__ import annotations

import random
from decimal import Decimal

THOUSAND = 1_000
MILLION = 1_000_000
BILLION = 1_000_000_000


def snap(amount: int) -> int:
    """Round to the step its magnitude is written with: $1K, then $10K, $100K, and $1M."""
    if amount < MILLION:
        step = THOUSAND
    elif amount < 10 * MILLION:
        step = 10 * THOUSAND
    elif amount < BILLION:
        step = 100 * THOUSAND
    else:
        step = MILLION
    return max(step, (amount + step // 2) // step * step)


def _scaled(amount: int, unit: int) -> str:
    """`amount / unit` in plain decimal without trailing zeros (2440000, 10**6 -> "2.44")."""
    return f"{(Decimal(amount) / unit).normalize():f}"


def short_millions(amount: int) -> str:
    """The easy items' clean figure: "$12M"."""
    return f"${_scaled(amount, MILLION)}M"


def money_formats(amount: int) -> tuple[str, ...]:
    """Every way the hard items may write an amount; each reads back to exactly `amount`."""
    formats: list[str] = []
    if amount < MILLION:
        formats += [f"${_scaled(amount, THOUSAND)}K", f"${amount:,}", f"{amount:,} dollars"]
    elif amount < BILLION:
        millions = _scaled(amount, MILLION)
        formats += [f"${millions}M", f"${millions} million", f"USD {millions} million"]
        if amount < 100 * MILLION:
            formats += [f"${amount:,}", f"{amount:,} dollars"]
    else:
        billions = _scaled(amount, BILLION)
        formats += [f"${billions}B", f"${billions} billion"]
    return tuple(formats)


def render_money(amount: int, rng: random.Random) -> str:
    """One of the amount's formats, chosen by the stream's random generator."""
    return rng.choice(money_formats(amount))
