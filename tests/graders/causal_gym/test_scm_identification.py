"""SCM truth by intervention and the backdoor certificate, on hand-built graphs."""

from __future__ import annotations

import math
from functools import partial

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.causal_gym.generator import (
    TRAP_COLUMN,
    EffectKind,
    generate_scm,
    pin_effect,
)
from graders.causal_gym.identification import certify, satisfies_backdoor
from graders.causal_gym.scm import (
    ADJUSTABLE_ROLES,
    OUTCOME,
    PRE_ROLES,
    SCM,
    TREATMENT,
    Node,
    causal_path_is_linear,
    draw_noise,
    linear_effect,
    propagate,
    true_ate,
    without_effect,
)


def _model(latent_to_outcome: bool = False, bend: float = 0.0) -> SCM:
    """C -> T, C -> Y, T -> M -> Y, T -> Y, T -> K <- Y; optional latent L -> T, L -> Y."""
    nodes = [
        Node("L", "latent"),
        Node("C0", "confounder"),
        Node("T", "treatment", ("C0", "L"), (0.5, 0.8 if latent_to_outcome else 0.0), (False,) * 2),
        Node("M0", "mediator", ("T",), (0.9,), (False,), noise_sd=0.7, bend=bend),
        Node(
            "Y",
            "outcome",
            ("T", "C0", "M0", "L"),
            (0.4, 0.7, 0.5, 0.6 if latent_to_outcome else 0.0),
            (False,) * 4,
        ),
        Node("K0", "collider", ("T", "Y"), (0.5, 0.5), (False, False)),
    ]
    return SCM(tuple(nodes))


def test_linear_truth_is_the_path_sum() -> None:
    scm = _model()
    assert causal_path_is_linear(scm)
    assert math.isclose(linear_effect(scm), 0.4 + 0.9 * 0.5)
    assert math.isclose(true_ate(scm, np.random.default_rng(0)), 0.85)


def test_nonlinear_truth_matches_quadrature() -> None:
    scm = _model(bend=0.3)
    assert not causal_path_is_linear(scm)
    nodes, weights = np.polynomial.hermite_e.hermegauss(80)
    weights = weights / weights.sum()

    def mean_m(t: float) -> float:
        v = 0.9 * t + 0.7 * nodes
        return float(np.sum(weights * (v + 0.3 * np.tanh(v))))

    exact = 0.4 + 0.5 * (mean_m(1.0) - mean_m(0.0))
    assert math.isclose(true_ate(scm, np.random.default_rng(1)), exact, abs_tol=2e-3)


def test_interventions_fix_the_treatment() -> None:
    scm = _model()
    values = propagate(scm, draw_noise(scm, 100, np.random.default_rng(2)), {"T": 1.0})
    assert np.all(values["T"] == 1.0)


def test_structural_null_has_no_directed_path_and_zero_truth() -> None:
    scm = without_effect(_model())
    assert not nx.has_path(scm.graph(), "T", "Y")
    assert true_ate(scm, np.random.default_rng(3)) == 0.0
    assert nx.has_path(scm.graph(), "T", "M0") and nx.has_path(scm.graph(), "UM0", "Y")
    assert certify(scm).identified


def test_structural_null_refuses_a_bent_mediator() -> None:
    with pytest.raises(ValueError, match="linear"):
        without_effect(_model(bend=0.3))


def _observed(scm: SCM, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    return {node.id: values[node.id] for node in scm.nodes if node.observed}


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_structural_null_looks_exactly_like_a_zero_effect(seed: int) -> None:
    """The class behind issue 15: the null differs from a non-null only by its total effect.

    Same structural draws, same noise (a mediator's source U takes the mediator's own noise):
    the null and the same model pinned to a zero total effect give identical observed data,
    so no function of the staged columns, post-treatment ones included, can tell them apart.
    """
    fresh = partial(np.random.default_rng, seed + 1)
    null = generate_scm(np.random.default_rng(seed), "structural_null", fresh)
    zero = pin_effect(generate_scm(np.random.default_rng(seed), "free", fresh), 0.0, fresh)
    assert not nx.has_path(null.graph(), TREATMENT, OUTCOME)
    assert true_ate(null, fresh()) == 0.0
    assert abs(true_ate(zero, fresh())) < 1e-12
    noise = draw_noise(zero, 400, np.random.default_rng(seed + 2))
    null_noise = dict(noise)
    for node in null.nodes:
        if node.id.startswith("UM"):
            null_noise[node.id] = noise[node.id.removeprefix("U")]
    a, b = _observed(null, propagate(null, null_noise)), _observed(zero, propagate(zero, noise))
    assert a.keys() == b.keys()
    for name in a:
        np.testing.assert_allclose(a[name], b[name], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("seed", range(60))
def test_traps_decide_which_pre_treatment_sets_are_valid(seed: int) -> None:
    fresh = partial(np.random.default_rng, seed)
    scm = generate_scm(np.random.default_rng(seed), "free", fresh, traps=True)
    graph = scm.graph()
    roles = {node.id: node.role for node in scm.nodes}
    everything = set(scm.ids(PRE_ROLES))
    adjustable = set(scm.ids(ADJUSTABLE_ROLES))
    trap = roles.get(TRAP_COLUMN, "none")
    if trap == "m_bias":
        assert not satisfies_backdoor(graph, everything)
        assert everything - adjustable == {TRAP_COLUMN}
    else:
        assert everything == adjustable
    if trap == "proxy":
        assert not satisfies_backdoor(graph, everything - {TRAP_COLUMN})
    assert satisfies_backdoor(graph, adjustable) is certify(scm).identified


def test_traps_appear_in_a_third_of_models_each() -> None:
    counts = {"none": 0, "m_bias": 0, "proxy": 0}
    for seed in range(300):
        fresh = partial(np.random.default_rng, seed)
        scm = generate_scm(np.random.default_rng(seed), "free", fresh, traps=True)
        counts[{n.id: n.role for n in scm.nodes}.get(TRAP_COLUMN, "none")] += 1
        assert not any(
            n.role in ("m_bias", "proxy")
            for n in generate_scm(np.random.default_rng(seed), "free", fresh).nodes
        )
    assert all(70 <= count <= 130 for count in counts.values()), counts


def test_certificate_accepts_observed_confounding_only() -> None:
    assert certify(_model()).identified


def test_certificate_rejects_a_latent_confounder() -> None:
    certificate = certify(_model(latent_to_outcome=True))
    assert not certificate.identified
    assert "backdoor" in certificate.reason


def test_certificate_rejects_a_pre_labelled_descendant() -> None:
    scm = _model()
    nodes = list(scm.nodes)
    nodes.insert(4, Node("Z0", "instrument", ("T",), (1.0,), (False,)))
    certificate = certify(SCM(tuple(nodes)))
    assert not certificate.identified
    assert "descendant" in certificate.reason


@pytest.mark.parametrize(
    ("adjust", "valid"),
    [({"C0"}, True), (set(), False), ({"C0", "M0"}, False), ({"C0", "K0"}, False)],
)
def test_backdoor_criterion(adjust: set[str], valid: bool) -> None:
    assert satisfies_backdoor(_model().graph(), adjust) is valid


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("kind", "low", "high"), [("hard", 0.05, 0.25), ("wide", 0.25, 1.0)])
def test_pinned_effects_are_exact(seed: int, kind: EffectKind, low: float, high: float) -> None:
    fresh = partial(np.random.default_rng, 1000 + seed)
    scm = generate_scm(np.random.default_rng(seed), kind, fresh)
    truth = abs(true_ate(scm, fresh()))
    assert low - 1e-12 <= truth <= high + 1e-12
