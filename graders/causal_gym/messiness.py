"""The messiness stream: duplicated rows, gross outcome outliers and scattered missing values."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np
import pandas as pd

DUPLICATE_SHARE: Final = (0.005, 0.03)
OUTLIER_SHARE: Final = (0.001, 0.004)
OUTLIER_DISTANCE: Final = (8.0, 14.0)
MISSING_COLUMNS: Final = (1, 3)
MISSING_SHARE: Final = (0.005, 0.03)
MAD_TO_SD: Final = 1.4826


@dataclass(frozen=True)
class Mess:
    """What the messiness stream did, kept host-side for the audit."""

    duplicates: int
    outliers: int
    missing: int


def robust_scale(values: np.ndarray) -> tuple[float, float]:
    """Median and MAD-based standard deviation of the non-missing values."""
    finite = values[~np.isnan(values)]
    median = float(np.median(finite))
    return median, MAD_TO_SD * float(np.median(np.abs(finite - median)))


def make_messy(
    frame: pd.DataFrame,
    outcome: str,
    covariates: Sequence[str],
    rng: np.random.Generator,
) -> tuple[pd.DataFrame, Mess]:
    """Corrupt a clean frame: outliers and missing values first, then duplicates, then shuffle.

    The columns are worked on as numpy arrays and the frame is built once at the end (pandas
    per step was a sixth of task generation); the draws are the same, in the same order.
    """
    columns = {name: frame[name].to_numpy() for name in frame.columns}
    n = len(frame)
    y = columns[outcome].astype(float)
    median, scale = robust_scale(y)
    n_out = max(1, round(n * float(rng.uniform(*OUTLIER_SHARE))))
    rows = rng.choice(n, size=n_out, replace=False)
    signs = np.where(rng.random(n_out) < 0.5, -1.0, 1.0)
    y[rows] = median + signs * rng.uniform(*OUTLIER_DISTANCE, size=n_out) * scale
    columns[outcome] = y
    candidates = [*covariates, outcome]
    k = min(len(candidates), int(rng.integers(MISSING_COLUMNS[0], MISSING_COLUMNS[1] + 1)))
    missing = 0
    for index in rng.choice(len(candidates), size=k, replace=False):
        column = candidates[int(index)]
        count = max(1, round(n * float(rng.uniform(*MISSING_SHARE))))
        holes = rng.choice(n, size=count, replace=False)
        values = columns[column].astype(float)
        values[holes] = np.nan
        columns[column] = values
        missing += count
    n_dup = max(1, round(n * float(rng.uniform(*DUPLICATE_SHARE))))
    copies = rng.choice(n, size=n_dup, replace=False)
    order = rng.permutation(n + n_dup)
    messy = pd.DataFrame(
        {name: np.concatenate([values, values[copies]])[order] for name, values in columns.items()}
    )
    return messy, Mess(duplicates=n_dup, outliers=n_out, missing=missing)
