"""Difficulty tiers with overlapping row-count ranges, and the keyed training-size jitter."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

TIERS: Final[dict[str, tuple[int, int]]] = {
    "easy": (900, 2000),
    "medium": (450, 1150),
    "hard": (250, 650),
}
JITTER: Final[float] = 0.5
MIN_ROWS: Final[int] = 150


@dataclass(frozen=True)
class Size:
    """A task's tier and the number of units drawn from its SCM (before duplicates are added)."""

    tier: str
    n_units: int


def tier_size(rng: np.random.Generator, tier: str) -> int:
    """A row count uniform in the tier's closed range."""
    low, high = TIERS[tier]
    return int(rng.integers(low, high + 1))


def train_size(rng: np.random.Generator) -> Size:
    """A training size: uniform tier, uniform count in its range, then jittered by up to 50%."""
    tier = tuple(TIERS)[int(rng.integers(len(TIERS)))]
    base = tier_size(rng, tier)
    factor = 1.0 + float(rng.uniform(-JITTER, JITTER))
    return Size(tier, max(MIN_ROWS, round(base * factor)))
