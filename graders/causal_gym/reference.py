"""The honest reference: deduplicate, drop robust outcome outliers, OLS on declared covariates."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from statistics import NormalDist
from typing import TYPE_CHECKING, Final

import numpy as np
import pandas as pd
from threadpoolctl import ThreadpoolController

from graders.causal_gym.messiness import robust_scale

if TYPE_CHECKING:
    from statsmodels.regression.linear_model import OLS

Z90: Final[float] = NormalDist().inv_cdf(0.95)
OUTLIER_CUTOFF: Final[float] = 6.0


@cache
def _fitting() -> tuple[type[OLS], ThreadpoolController]:
    """statsmodels' OLS and the BLAS controller, loaded once, on the first fit.

    Importing statsmodels takes about a second: at module import it froze the dashboard's
    Causal screen on its first visit (its task loader calls `load_fitting` in a worker).
    Only its linear models are loaded: `statsmodels.api` loads every model family as
    well, 0.3 s more CPU for each process that fits (a CLI run, a Dask worker).
    The controller finds numpy's and scipy's BLAS, so it is made after statsmodels loaded
    scipy's. These fits are a few thousand rows by a dozen columns: one BLAS thread is
    always fastest, and on a busy machine OpenBLAS's spinning helper threads made each fit
    10-20x slower. One thread also makes the figures independent of the machine's BLAS
    thread count.
    """
    from statsmodels.regression.linear_model import OLS

    return OLS, ThreadpoolController()


def load_fitting() -> None:
    """Load what a fit needs now (off a UI thread, before the first estimate)."""
    _fitting()


class Unsolvable(ValueError):
    """The staged frame cannot support the reference estimate (rank, arms or finiteness)."""


@dataclass(frozen=True)
class Estimate:
    """A treatment-effect estimate with its standard error, 90% interval and rows used."""

    estimate: float
    se: float
    n_used: int

    @property
    def lo(self) -> float:
        """Lower end of the normal 90% interval."""
        return self.estimate - Z90 * self.se

    @property
    def hi(self) -> float:
        """Upper end of the normal 90% interval."""
        return self.estimate + Z90 * self.se

    @property
    def width(self) -> float:
        """Width of the normal 90% interval: 2 x 1.6449 x SE."""
        return 2.0 * Z90 * self.se


_MIX: Final = np.uint64(0x9E3779B97F4A7C15)
_SHIFT: Final = np.uint64(29)
_EXACT_LIMIT: Final[float] = 2.0**53
"""The first magnitude float64 cannot hold exactly as an integer."""


def duplicated_rows(frame: pd.DataFrame) -> np.ndarray:
    """Rows equal to an earlier row, as `frame.duplicated()` marks them, in a third its time.

    Rows are compared by their numbers' float64 bits, with -0.0 written as 0.0 and every
    NaN as one NaN (pandas treats both pairs as equal). Each row is hashed to one 64-bit
    number and the hashes factorised; every row marked as a repeat is then compared bit
    for bit with the first row of its hash, so a collision sends the frame to pandas,
    never to a wrong answer. So do frames with a column that is not a number, or with a
    magnitude float64 cannot hold exactly as an integer (2**53 and beyond).
    """
    repeated = _hashed_repeats(frame)
    return frame.duplicated().to_numpy() if repeated is None else repeated


def _hashed_repeats(frame: pd.DataFrame) -> np.ndarray | None:
    """`duplicated_rows` by row hash, or None where only pandas can answer exactly."""
    if frame.empty or not all(dtype.kind in "fiub" for dtype in frame.dtypes):
        return None
    values = frame.to_numpy(dtype=np.float64) + 0.0
    missing = np.isnan(values)
    if np.any(np.abs(values[~missing]) >= _EXACT_LIMIT):
        return None
    values[missing] = np.nan
    bits = values.view(np.uint64)
    hashed = np.zeros(len(frame), dtype=np.uint64)
    for j in range(bits.shape[1]):
        hashed = (hashed ^ bits[:, j]) * _MIX
        hashed ^= hashed >> _SHIFT
    codes, _ = pd.factorize(hashed)
    _, first = np.unique(codes, return_index=True)
    repeated = np.ones(len(frame), dtype=bool)
    repeated[first] = False
    return repeated if (bits[repeated] == bits[first[codes[repeated]]]).all() else None


def clean(frame: pd.DataFrame, outcome: str) -> pd.DataFrame:
    """Drop exact duplicate rows, then outcomes more than 6 robust SDs from the median."""
    unique = ~duplicated_rows(frame)
    y = frame[outcome].to_numpy(dtype=float)
    median, scale = robust_scale(y[unique])
    within = np.abs(y - median) <= OUTLIER_CUTOFF * max(scale, 1e-12)
    kept: pd.DataFrame = frame[unique & (np.isnan(y) | within)]
    return kept


def ols_effect(
    frame: pd.DataFrame, treatment: str, outcome: str, covariates: Sequence[str]
) -> Estimate:
    """OLS of the outcome on the treatment and covariates (complete rows); raises Unsolvable."""
    values = frame[[outcome, treatment, *covariates]].to_numpy(dtype=float)
    used = values[~np.isnan(values).any(axis=1)]
    t = used[:, 1]
    if len(used) == 0 or not (np.any(t == 1.0) and np.any(t == 0.0)):
        raise Unsolvable("both treatment arms must be present")
    # Column-major, as pandas hands out a frame's columns: LAPACK's last bits follow layout.
    design = np.asfortranarray(np.column_stack([np.ones(len(used)), used[:, 1:]]))
    ols, blas = _fitting()
    with blas.limit(limits=1, user_api="blas"):
        if len(used) <= design.shape[1] or np.linalg.matrix_rank(design) < design.shape[1]:
            raise Unsolvable("the design matrix is not of full column rank")
        fit = ols(np.ascontiguousarray(used[:, 0]), design).fit()
        estimate, se = float(fit.params[1]), float(fit.bse[1])
    if not (np.isfinite(estimate) and np.isfinite(se) and se > 0.0):
        raise Unsolvable("the estimate or its standard error is not finite")
    return Estimate(estimate, se, len(used))


def difference_in_means(frame: pd.DataFrame, treatment: str, outcome: str) -> Estimate:
    """Unadjusted contrast of arm means with the OLS (pooled-variance) standard error."""
    return ols_effect(frame, treatment, outcome, ())


def honest_reference(
    frame: pd.DataFrame, treatment: str, outcome: str, covariates: Sequence[str]
) -> Estimate:
    """The reference every task must support: clean, then adjust for the certified covariates."""
    return ols_effect(clean(frame, outcome), treatment, outcome, covariates)
