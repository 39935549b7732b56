"""The reward is exactly the seed's formula; its optimum is the reference width (hypothesis)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from graders.causal_gym.reward import (
    EFFECT_PRIOR,
    brier_skill,
    combine,
    estimand_score,
    outcome_scale,
    winkler,
)

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False, allow_infinity=False)


def _expected_loss(estimate: float, lo: float, hi: float, truth: float, r: float) -> float:
    """The seed's L written out independently: Winkler(alpha=0.12) + |error| + 2(r - w)+."""
    below = max(0.0, lo - truth)
    above = max(0.0, truth - hi)
    w = (hi - lo) + (2 / 0.12) * (below + above)
    return w + abs(estimate - truth) + 2 * max(0.0, r - (hi - lo))


@given(finite, finite, finite, finite, positive, positive)
def test_reward_equals_the_formula(
    estimate: float, a: float, b: float, truth: float, r: float, s: float
) -> None:
    lo, hi = min(a, b), max(a, b)
    result = estimand_score(estimate, lo, hi, truth, r, s)
    loss = _expected_loss(estimate, lo, hi, truth, r)
    assert math.isclose(result.loss, loss, rel_tol=1e-12, abs_tol=1e-9)
    assert math.isclose(result.reward, 1 - loss / s, rel_tol=1e-12, abs_tol=1e-9)
    assert result.covered == (lo <= truth <= hi)


@given(finite, positive, positive, st.floats(min_value=0.0, max_value=50.0))
def test_reference_width_is_the_unique_optimum(
    truth: float, r: float, s: float, other: float
) -> None:
    if math.isclose(other, r, rel_tol=1e-9, abs_tol=1e-9):
        return
    best = estimand_score(truth, truth - r / 2, truth + r / 2, truth, r, s).reward
    rival = estimand_score(truth, truth - other / 2, truth + other / 2, truth, r, s).reward
    assert best > rival


@given(st.floats(min_value=0.0, max_value=1.0), st.booleans())
def test_brier_skill_formula(p: float, present: bool) -> None:
    o = 1.0 if present else 0.0
    expected = 1 - (p - o) ** 2 / (EFFECT_PRIOR * (1 - EFFECT_PRIOR))
    assert math.isclose(brier_skill(p, present), expected, rel_tol=1e-12, abs_tol=1e-12)


def test_a_prior_forecast_has_expected_skill_zero() -> None:
    p0 = Fraction(13, 20)

    def skill(o: int) -> Fraction:
        return 1 - (p0 - o) ** 2 / (p0 * (1 - p0))

    assert p0 * skill(1) + (1 - p0) * skill(0) == 0
    assert math.isclose(
        0.65 * brier_skill(0.65, True) + 0.35 * brier_skill(0.65, False), 0.0, abs_tol=1e-12
    )


def test_winkler_charges_two_over_alpha_outside() -> None:
    assert winkler(0.0, 1.0, 0.5) == 1.0
    assert math.isclose(winkler(0.0, 1.0, 1.12), 1.0 + (2 / 0.12) * 0.12)
    assert math.isclose(winkler(0.0, 1.0, -0.06), 1.0 + (2 / 0.12) * 0.06)


def test_scale_ignores_nan_and_is_floored() -> None:
    assert math.isclose(outcome_scale(np.array([1.0, np.nan, 3.0])), 1.0)
    assert outcome_scale(np.array([2.0, 2.0])) == 1e-6
    assert outcome_scale(np.array([np.nan])) == 1e-6


@given(finite, finite, positive, positive)
def test_combined_reward_weights_and_clipping(
    estimate: float, truth: float, r: float, s: float
) -> None:
    part = estimand_score(estimate, estimate - r, estimate + r, truth, r, s)
    result = combine(
        "adjustment",
        part,
        {"adjustment_validity": 1.0},
        {"estimand": 0.7, "adjustment_validity": 0.3},
    )
    assert math.isclose(result.reward, 0.7 * part.reward + 0.3, rel_tol=1e-12, abs_tol=1e-12)
    assert result.clipped_reward == max(-1.0, result.reward)
    assert result.to_dict()["components"]["adjustment_validity"] == 1.0
