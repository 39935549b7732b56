"""The counterfactual loss and conclusion checks: exact Decimal properties."""

from __future__ import annotations

from decimal import Decimal, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders import counterfactual as cf

amounts = st.decimals(min_value=-(10**9), max_value=10**9, places=2, allow_nan=False)
scales = st.decimals(min_value=Decimal("0.01"), max_value=10**6, places=2, allow_nan=False)


@given(amounts, amounts)
def test_effect_is_intervention_minus_baseline(baseline: Decimal, intervention: Decimal) -> None:
    assert cf.effect(baseline, intervention) == intervention - baseline
    assert cf.effect(baseline, baseline) == 0


@given(amounts, amounts, scales)
def test_loss_is_a_square_and_score_its_negative(
    prediction: Decimal, effect: Decimal, scale: Decimal
) -> None:
    loss = cf.loss(prediction, effect, scale)
    assert loss >= 0
    assert (loss == 0) == (prediction == effect)
    assert cf.score(prediction, effect, scale) == -loss


@given(amounts, amounts, scales)
def test_loss_is_symmetric_around_the_effect(
    offset: Decimal, effect: Decimal, scale: Decimal
) -> None:
    assert cf.loss(effect + offset, effect, scale) == cf.loss(effect - offset, effect, scale)


@given(amounts, amounts, scales, st.integers(min_value=1, max_value=1000))
def test_loss_does_not_depend_on_the_units(
    prediction: Decimal, effect: Decimal, scale: Decimal, k: int
) -> None:
    assert cf.loss(prediction * k, effect * k, scale * k) == cf.loss(prediction, effect, scale)


@given(amounts, amounts, scales)
def test_loss_ignores_the_callers_decimal_precision(
    prediction: Decimal, effect: Decimal, scale: Decimal
) -> None:
    expected = cf.loss(prediction, effect, scale)
    with localcontext() as ctx:
        ctx.prec = 6
        assert cf.loss(prediction, effect, scale) == expected


def test_one_scale_off_costs_one() -> None:
    assert cf.loss(Decimal("-1300"), Decimal("-800"), Decimal("500")) == 1


@pytest.mark.parametrize("scale", [Decimal(0), Decimal("-1")])
def test_a_non_positive_scale_is_refused(scale: Decimal) -> None:
    with pytest.raises(ValueError, match="scale must be positive"):
        cf.loss(Decimal(1), Decimal(1), scale)


@given(amounts)
def test_a_component_is_right_to_the_cent_and_wrong_a_cent_off(evidence: Decimal) -> None:
    assert cf.contract_component_correct(evidence, evidence)
    assert cf.contract_component_correct(evidence.normalize(), evidence)
    assert not cf.contract_component_correct(evidence + Decimal("0.01"), evidence)


def test_a_component_written_without_cents_matches() -> None:
    assert cf.contract_component_correct(Decimal("-300"), Decimal("-300.00"))


@given(st.lists(st.sampled_from(["hire", "capacity", "price", "overhead"]), unique=True))
def test_supported_effects_must_be_named_exactly_in_any_order(supported: list[str]) -> None:
    assert cf.supported_effects_correct(list(reversed(supported)), supported)
    assert not cf.supported_effects_correct([*supported, "loan"], supported)
    if supported:
        assert not cf.supported_effects_correct(supported[1:], supported)
