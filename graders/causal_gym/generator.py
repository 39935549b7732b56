"""The SCM stream: a random DAG (confounders, instruments, traps) with documented ranges."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Literal

import numpy as np

from graders.causal_gym.scm import OUTCOME, SCM, TREATMENT, Node, true_ate, without_effect

EffectKind = Literal["free", "structural_null", "hard", "wide"]
TrapKind = Literal["none", "m_bias", "proxy"]
TruthRng = Callable[[], np.random.Generator]
TRAP_KINDS: Final[tuple[TrapKind, ...]] = ("none", "m_bias", "proxy")

N_CONFOUNDERS: Final = (2, 5)
N_INSTRUMENTS: Final = (0, 2)
N_PROGNOSTIC: Final = (1, 3)
N_MEDIATORS: Final = (0, 2)
N_COLLIDERS: Final = (1, 2)
P_LATENT: Final = 0.3
P_CONFOUNDER_EDGE: Final = 0.3
W_COVARIATE_EDGE: Final = (0.2, 0.6)
W_LATENT: Final = (0.4, 0.8)
W_CONFOUNDER_TREATMENT: Final = (0.2, 0.6)
W_INSTRUMENT_TREATMENT: Final = (0.4, 0.9)
TREATMENT_INTERCEPT: Final = (-0.6, 0.6)
W_CONFOUNDER_OUTCOME: Final = (0.3, 1.0)
W_PROGNOSTIC_OUTCOME: Final = (0.3, 1.0)
P_CURVED_PROGNOSTIC: Final = 0.5
W_TREATMENT_MEDIATOR: Final = (0.4, 1.2)
W_MEDIATOR_OUTCOME: Final = (0.3, 1.0)
W_DIRECT_EFFECT: Final = (0.1, 1.0)
W_COLLIDER_TREATMENT: Final = (0.3, 1.0)
W_COLLIDER_OUTCOME: Final = (0.3, 0.8)
P_BEND: Final = 0.5
BEND: Final = (0.15, 0.4)
NOISE_CHILD: Final = (0.6, 1.0)
NOISE_POST: Final = (0.5, 1.0)
NOISE_OUTCOME: Final = (0.5, 1.2)
HARD_ATE: Final = (0.05, 0.25)
WIDE_ATE: Final = (0.25, 1.0)
W_TRAP_TREATMENT: Final = (0.5, 1.0)
W_TRAP_COLUMN: Final = (0.6, 1.0)
W_TRAP_OUTCOME: Final = (0.5, 1.0)
W_PROXY_OUTCOME: Final = (0.3, 1.0)
TRAP_COLUMN: Final[str] = "X0"
TRAP_TREATMENT_SOURCE: Final[str] = "UA"
TRAP_OUTCOME_SOURCE: Final[str] = "UB"


@dataclass(frozen=True)
class Draw:
    """A thin helper over the generator: signed uniforms, counts and coin flips."""

    rng: np.random.Generator

    def signed(self, bounds: tuple[float, float]) -> float:
        """A magnitude uniform in `bounds` with a random sign."""
        magnitude = float(self.rng.uniform(*bounds))
        return magnitude if self.rng.random() < 0.5 else -magnitude

    def uniform(self, bounds: tuple[float, float]) -> float:
        """A uniform draw in `bounds`."""
        return float(self.rng.uniform(*bounds))

    def count(self, bounds: tuple[int, int]) -> int:
        """An integer uniform in the closed range `bounds`."""
        return int(self.rng.integers(bounds[0], bounds[1] + 1))

    def coin(self, p: float) -> bool:
        """True with probability p."""
        return bool(self.rng.random() < p)

    def bend(self) -> float:
        """A mild nonlinearity for a node, or zero (linear) half the time."""
        return self.signed(BEND) if self.coin(P_BEND) else 0.0


def _pre_treatment(draw: Draw, latent_targets: set[str], ids: dict[str, list[str]]) -> list[Node]:
    """Confounders (with edges among themselves), instruments and outcome-only causes."""
    nodes: list[Node] = []
    if latent_targets:
        nodes.append(Node("L", "latent"))

    def latent_edge(node_id: str) -> tuple[tuple[str, ...], tuple[float, ...]]:
        return (("L",), (draw.signed(W_LATENT),)) if node_id in latent_targets else ((), ())

    for i, node_id in enumerate(ids["confounder"]):
        parents, weights = latent_edge(node_id)
        for earlier in ids["confounder"][:i]:
            if draw.coin(P_CONFOUNDER_EDGE):
                parents, weights = parents + (earlier,), weights + (draw.signed(W_COVARIATE_EDGE),)
        noise = draw.uniform(NOISE_CHILD) if parents else 1.0
        nodes.append(
            Node(node_id, "confounder", parents, weights, (False,) * len(parents), noise_sd=noise)
        )
    for node_id in ids["instrument"]:
        parents, weights = latent_edge(node_id)
        nodes.append(Node(node_id, "instrument", parents, weights, (False,) * len(parents)))
    for node_id in ids["prognostic"]:
        parents, weights = latent_edge(node_id)
        nodes.append(Node(node_id, "prognostic", parents, weights, (False,) * len(parents)))
    return nodes


def _treatment(draw: Draw, latent: bool, ids: dict[str, list[str]]) -> Node:
    """The binary treatment: logistic in its confounders, instruments and maybe the latent."""
    parents = tuple(ids["confounder"]) + tuple(ids["instrument"])
    weights = tuple(draw.signed(W_CONFOUNDER_TREATMENT) for _ in ids["confounder"]) + tuple(
        draw.signed(W_INSTRUMENT_TREATMENT) for _ in ids["instrument"]
    )
    if latent:
        parents, weights = parents + ("L",), weights + (draw.signed(W_LATENT),)
    return Node(
        TREATMENT,
        "treatment",
        parents,
        weights,
        (False,) * len(parents),
        intercept=draw.uniform(TREATMENT_INTERCEPT),
    )


def _outcome(draw: Draw, targets: set[str], ids: dict[str, list[str]]) -> Node:
    """The outcome: linear in treatment, confounders, mediators; curved in outcome-only causes."""
    parents: list[str] = [TREATMENT]
    weights: list[float] = [draw.signed(W_DIRECT_EFFECT)]
    curved: list[bool] = [False]
    for node_id in ids["confounder"]:
        parents.append(node_id)
        weights.append(draw.signed(W_CONFOUNDER_OUTCOME))
        curved.append(False)
    for node_id in ids["prognostic"]:
        parents.append(node_id)
        weights.append(draw.signed(W_PROGNOSTIC_OUTCOME))
        curved.append(draw.coin(P_CURVED_PROGNOSTIC) and node_id not in targets)
    for node_id in ids["mediator"]:
        parents.append(node_id)
        weights.append(draw.signed(W_MEDIATOR_OUTCOME))
        curved.append(False)
    if OUTCOME in targets:
        parents.append("L")
        weights.append(draw.signed(W_LATENT))
        curved.append(False)
    return Node(
        OUTCOME,
        "outcome",
        tuple(parents),
        tuple(weights),
        tuple(curved),
        noise_sd=draw.uniform(NOISE_OUTCOME),
    )


def _latent_targets(draw: Draw, ids: dict[str, list[str]]) -> set[str]:
    """Children of an optional latent: one of pre-treatment or T, one of pre-treatment or Y."""
    if not draw.coin(P_LATENT):
        return set()
    pre = ids["confounder"] + ids["instrument"] + ids["prognostic"]
    first = [*pre, TREATMENT]
    second = [*pre, OUTCOME]
    a = first[int(draw.rng.integers(len(first)))]
    b = second[int(draw.rng.integers(len(second)))]
    return {a, b}


def _add_trap(draw: Draw, nodes: list[Node]) -> list[Node]:
    """Maybe add one pre-treatment column X0 driven by unobserved sources (a third of tasks each).

    `m_bias`: UA -> T, UA -> X0 <- UB, UB -> Y. X0 is a collider of two unrecorded causes, so
    adjusting for it opens T <- UA -> X0 <- UB -> Y: the full pre-treatment set is invalid.
    `proxy`: UA -> T, UA -> X0 -> Y. X0 carries UA's confounding, so it must be adjusted for.
    """
    trap = TRAP_KINDS[int(draw.rng.integers(len(TRAP_KINDS)))]
    if trap == "none":
        return nodes
    to_treatment = draw.signed(W_TRAP_TREATMENT)
    sources = [Node(TRAP_TREATMENT_SOURCE, "latent")]
    parents: tuple[str, ...] = (TRAP_TREATMENT_SOURCE,)
    weights: tuple[float, ...] = (draw.signed(W_TRAP_COLUMN),)
    outcome_edge = (TRAP_COLUMN, draw.signed(W_PROXY_OUTCOME))
    if trap == "m_bias":
        sources.append(Node(TRAP_OUTCOME_SOURCE, "latent"))
        parents, weights = parents + (TRAP_OUTCOME_SOURCE,), weights + (draw.signed(W_TRAP_COLUMN),)
        outcome_edge = (TRAP_OUTCOME_SOURCE, draw.signed(W_TRAP_OUTCOME))
    column = Node(
        TRAP_COLUMN,
        trap,
        parents,
        weights,
        (False,) * len(parents),
        noise_sd=draw.uniform(NOISE_CHILD),
    )
    out: list[Node] = [*sources]
    for node in nodes:
        if node.id == TREATMENT:
            out.append(column)
            node = _extra_parent(node, TRAP_TREATMENT_SOURCE, to_treatment)
        elif node.id == OUTCOME:
            node = _extra_parent(node, *outcome_edge)
        out.append(node)
    return out


def _extra_parent(node: Node, parent: str, weight: float) -> Node:
    """A copy of `node` with one more linear parent."""
    return replace(
        node,
        parents=(*node.parents, parent),
        weights=(*node.weights, weight),
        curved=(*node.curved, False),
    )


def generate_scm(
    rng: np.random.Generator, kind: EffectKind, truth_rng: TruthRng, traps: bool = False
) -> SCM:
    """Draw a random SCM; effect kinds other than `free` pin the total effect to their band.

    With `traps` (the adjustment family) a third of the models gain an M-bias column and a
    third a proxy confounder, so adjusting for every pre-treatment column is not always valid.
    """
    draw = Draw(rng)
    counts = {
        "confounder": draw.count(N_CONFOUNDERS),
        "instrument": draw.count(N_INSTRUMENTS),
        "prognostic": draw.count(N_PROGNOSTIC),
        "mediator": draw.count(N_MEDIATORS),
        "collider": draw.count(N_COLLIDERS),
    }
    prefix = {
        "confounder": "C",
        "instrument": "Z",
        "prognostic": "P",
        "mediator": "M",
        "collider": "K",
    }
    ids = {role: [f"{prefix[role]}{i}" for i in range(k)] for role, k in counts.items()}
    targets = _latent_targets(draw, ids)
    nodes = _pre_treatment(draw, targets, ids)
    nodes.append(_treatment(draw, TREATMENT in targets, ids))
    for node_id in ids["mediator"]:
        nodes.append(
            Node(
                node_id,
                "mediator",
                (TREATMENT,),
                (draw.signed(W_TREATMENT_MEDIATOR),),
                (False,),
                noise_sd=draw.uniform(NOISE_POST),
            )
        )
    nodes.append(_outcome(draw, targets, ids))
    for node_id in ids["collider"]:
        weights = (draw.signed(W_COLLIDER_TREATMENT), draw.signed(W_COLLIDER_OUTCOME))
        nodes.append(
            Node(
                node_id,
                "collider",
                (TREATMENT, OUTCOME),
                weights,
                (False, False),
                noise_sd=draw.uniform(NOISE_POST),
                bend=draw.bend(),
            )
        )
    if traps:
        nodes = _add_trap(draw, nodes)
    scm = SCM(tuple(nodes))
    if kind == "structural_null":
        return without_effect(scm)
    if kind == "free":
        return scm
    band = HARD_ATE if kind == "hard" else WIDE_ATE
    return pin_effect(scm, draw.signed(band), truth_rng)


def pin_effect(scm: SCM, target: float, truth_rng: TruthRng) -> SCM:
    """Set the direct effect so the total effect equals `target` (the mediated part is kept).

    The simulation noise comes from the same fresh generator the final truth uses, so
    the pinned total is exact, not merely close.
    """
    outcome = scm.node(OUTCOME)
    zeroed = scm.with_node(replace(outcome, weights=(0.0, *outcome.weights[1:])))
    mediated = true_ate(zeroed, truth_rng())
    return scm.with_node(replace(outcome, weights=(target - mediated, *outcome.weights[1:])))
