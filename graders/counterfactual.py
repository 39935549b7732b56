"""Counterfactual scoring: the proper loss and the typed-conclusion checks (pure functions).

loss = ((prediction − (intervention − baseline)) / scale)², score = −loss, computed in
Decimal so that the same inputs give the same digits everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal, localcontext

PRECISION = 28
"""Significant digits of every loss and mean (the exponent range is the widest Decimal has,
so no finite input overflows)."""


def _context() -> Context:
    return Context(prec=PRECISION, Emax=MAX_EMAX, Emin=MIN_EMIN)


def effect(baseline: Decimal, intervention: Decimal) -> Decimal:
    """The counterfactual effect: intervention − baseline."""
    return intervention - baseline


def loss(prediction: Decimal, true_effect: Decimal, scale: Decimal) -> Decimal:
    """((prediction − effect) / scale)², exact to 28 significant digits."""
    if scale <= 0:
        raise ValueError("scale must be positive")
    with localcontext(_context()):
        return ((prediction - true_effect) / scale) ** 2


def score(prediction: Decimal, true_effect: Decimal, scale: Decimal) -> Decimal:
    """The negative loss (higher is better; 0 is perfect)."""
    return -loss(prediction, true_effect, scale)


def mean(scores: Sequence[Decimal]) -> Decimal:
    """The mean of scores, to 28 significant digits."""
    if not scores:
        raise ValueError("mean of no scores")
    with localcontext(_context()):
        return sum(scores, Decimal(0)) / len(scores)


def contract_component_correct(submitted: Decimal, evidence: Decimal) -> bool:
    """A contract-component conclusion is right when it equals the ledger evidence to the cent."""
    return submitted.quantize(Decimal("0.01")) == evidence.quantize(Decimal("0.01"))


def supported_effects_correct(submitted: Iterable[str], supported: Iterable[str]) -> bool:
    """A supported-effects conclusion is right when it names exactly the supported effects."""
    return set(submitted) == set(supported)
