"""The seed's reward: Winkler loss (alpha 0.12), absolute error and narrowness penalty over s."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

import numpy as np

ALPHA: Final[float] = 0.12
NARROW_WEIGHT: Final[float] = 2.0
SCALE_FLOOR: Final[float] = 1e-6
EFFECT_PRIOR: Final[float] = 13 / 20
CLIP_FLOOR: Final[float] = -1.0


def winkler(lo: float, hi: float, truth: float, alpha: float = ALPHA) -> float:
    """Winkler interval score: width plus 2/alpha times how far the truth falls outside."""
    score = hi - lo
    if truth < lo:
        score += (2.0 / alpha) * (lo - truth)
    elif truth > hi:
        score += (2.0 / alpha) * (truth - hi)
    return score


def outcome_scale(outcome: np.ndarray) -> float:
    """s: population SD of the staged outcome ignoring NaN, floored at 1e-6."""
    values = np.asarray(outcome, dtype=float)
    values = values[~np.isnan(values)]
    if values.size == 0:
        return SCALE_FLOOR
    return max(float(np.std(values)), SCALE_FLOOR)


@dataclass(frozen=True)
class EstimandScore:
    """L = W + |estimate - truth| + 2 max(0, r - width); reward = 1 - L / s."""

    estimate: float
    lo: float
    hi: float
    truth: float
    width: float
    reference_width: float
    scale: float
    winkler: float
    abs_error: float
    narrow_penalty: float
    loss: float
    reward: float
    covered: bool


def estimand_score(
    estimate: float, lo: float, hi: float, truth: float, reference_width: float, scale: float
) -> EstimandScore:
    """Score one estimate and interval against the truth, the reference width r and scale s."""
    width = hi - lo
    w = winkler(lo, hi, truth)
    abs_error = abs(estimate - truth)
    penalty = NARROW_WEIGHT * max(0.0, reference_width - width)
    loss = w + abs_error + penalty
    return EstimandScore(
        estimate=estimate,
        lo=lo,
        hi=hi,
        truth=truth,
        width=width,
        reference_width=reference_width,
        scale=scale,
        winkler=w,
        abs_error=abs_error,
        narrow_penalty=penalty,
        loss=loss,
        reward=1.0 - loss / scale,
        covered=lo <= truth <= hi,
    )


def brier_skill(probability: float, effect_present: bool, prior: float = EFFECT_PRIOR) -> float:
    """Prior-normalised Brier skill 1 - (p - o)^2 / (p0 (1 - p0)); a prior forecast scores 0."""
    outcome = 1.0 if effect_present else 0.0
    return 1.0 - (probability - outcome) ** 2 / (prior * (1.0 - prior))


@dataclass(frozen=True)
class Score:
    """A family's reward, its display-only clipped value and every component behind it."""

    family: str
    reward: float
    clipped_reward: float
    estimand: EstimandScore
    weights: dict[str, float]
    components: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready breakdown."""
        return asdict(self)


def combine(
    family: str, estimand: EstimandScore, components: dict[str, float], weights: dict[str, float]
) -> Score:
    """Weight the estimand reward and the family's extra components into the final reward."""
    parts = {"estimand": estimand.reward, **components}
    reward = sum(weights[name] * parts[name] for name in weights)
    return Score(
        family=family,
        reward=reward,
        clipped_reward=max(CLIP_FLOOR, reward),
        estimand=estimand,
        weights=dict(weights),
        components=parts,
    )
