"""Structural causal models: linear or mildly nonlinear nodes, simulation and the true ATE."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal

import networkx as nx
import numpy as np

Role = Literal[
    "confounder",
    "instrument",
    "prognostic",
    "latent",
    "treatment",
    "outcome",
    "mediator",
    "collider",
    "proxy",
    "m_bias",
]
PRE_ROLES: Final[frozenset[str]] = frozenset(
    {"confounder", "instrument", "prognostic", "proxy", "m_bias"}
)
ADJUSTABLE_ROLES: Final[frozenset[str]] = PRE_ROLES - {"m_bias"}
"""Pre-treatment roles a valid adjustment may use: an M-bias column opens a backdoor path."""
POST_ROLES: Final[frozenset[str]] = frozenset({"mediator", "collider"})
TREATMENT: Final[str] = "T"
OUTCOME: Final[str] = "Y"
TRUTH_DRAWS: Final[int] = 100_000


@dataclass(frozen=True)
class Node:
    """One variable: x = intercept + sum(w * f(parent)) + sd * e, then x + bend * tanh(x).

    `curved[i]` applies f = tanh to parent i (identity otherwise). The treatment is
    binary instead: T = 1 when a uniform draw falls below the logistic of its index.
    """

    id: str
    role: Role
    parents: tuple[str, ...] = ()
    weights: tuple[float, ...] = ()
    curved: tuple[bool, ...] = ()
    intercept: float = 0.0
    noise_sd: float = 1.0
    bend: float = 0.0

    @property
    def observed(self) -> bool:
        """Latent nodes shape the graph but never reach the staged data."""
        return self.role != "latent"


@dataclass(frozen=True)
class SCM:
    """A DAG of nodes in topological order, with a binary treatment `T` and an outcome `Y`."""

    nodes: tuple[Node, ...]

    def node(self, node_id: str) -> Node:
        """Look a node up by id."""
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)

    def ids(self, roles: frozenset[str] | set[str]) -> tuple[str, ...]:
        """Ids of the nodes whose role is in `roles`, in topological order."""
        return tuple(node.id for node in self.nodes if node.role in roles)

    def graph(self) -> nx.DiGraph:
        """The causal graph, latent nodes included, with every edge of nonzero weight."""
        graph: nx.DiGraph[str] = nx.DiGraph()
        graph.add_nodes_from(node.id for node in self.nodes)
        for node in self.nodes:
            graph.add_edges_from(
                (p, node.id) for p, w in zip(node.parents, node.weights, strict=True) if w
            )
        return graph

    def with_node(self, new: Node) -> SCM:
        """A copy with one node's mechanism replaced."""
        return SCM(tuple(new if node.id == new.id else node for node in self.nodes))


def draw_noise(scm: SCM, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Exogenous noise for n units: uniform for the treatment, standard normal elsewhere."""
    noise: dict[str, np.ndarray] = {}
    for node in scm.nodes:
        if node.role == "treatment":
            noise[node.id] = rng.random(n)
        else:
            noise[node.id] = rng.standard_normal(n)
    return noise


def propagate(
    scm: SCM, noise: Mapping[str, np.ndarray], do: Mapping[str, float] | None = None
) -> dict[str, np.ndarray]:
    """Evaluate every mechanism in topological order; `do` fixes nodes (interventions)."""
    fixed = do or {}
    values: dict[str, np.ndarray] = {}
    for node in scm.nodes:
        size = noise[node.id].shape[0]
        if node.id in fixed:
            values[node.id] = np.full(size, float(fixed[node.id]))
            continue
        index = np.full(size, node.intercept)
        for parent, weight, curved in zip(node.parents, node.weights, node.curved, strict=True):
            if weight:
                index = index + weight * (np.tanh(values[parent]) if curved else values[parent])
        if node.role == "treatment":
            values[node.id] = (noise[node.id] < 1.0 / (1.0 + np.exp(-index))).astype(float)
            continue
        value = index + node.noise_sd * noise[node.id]
        if node.bend:
            value = value + node.bend * np.tanh(value)
        values[node.id] = value
    return values


def simulate(scm: SCM, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """Draw n observational units from the model."""
    return propagate(scm, draw_noise(scm, n, rng))


def causal_path_is_linear(scm: SCM) -> bool:
    """True when every node on a directed treatment-to-outcome path is linear in the treatment."""
    graph = scm.graph()
    downstream = nx.descendants(graph, TREATMENT) | {TREATMENT}
    between = downstream & (nx.ancestors(graph, OUTCOME) | {OUTCOME})
    for node_id in between - {TREATMENT}:
        node = scm.node(node_id)
        curved_downstream = any(
            c and p in downstream for p, c in zip(node.parents, node.curved, strict=True)
        )
        if node.bend or curved_downstream:
            return False
    return True


def linear_effect(scm: SCM) -> float:
    """Exact total effect of T on Y by the path-sum rule, valid when the causal path is linear."""
    slope: dict[str, float] = {}
    for node in scm.nodes:
        if node.role == "treatment":
            slope[node.id] = 1.0
            continue
        slope[node.id] = sum(
            w * slope.get(p, 0.0) for p, w in zip(node.parents, node.weights, strict=True)
        )
    return slope[OUTCOME]


def true_ate(scm: SCM, rng: np.random.Generator, draws: int = TRUTH_DRAWS) -> float:
    """E[Y | do(T=1)] - E[Y | do(T=0)]: exact if linear, else by simulation with shared noise.

    The simulation runs over the outcome's ancestors only: nothing else can move it.
    """
    if causal_path_is_linear(scm):
        return float(linear_effect(scm))
    needed = nx.ancestors(scm.graph(), OUTCOME) | {OUTCOME}
    relevant = SCM(tuple(node for node in scm.nodes if node.id in needed))
    noise = draw_noise(relevant, draws, rng)
    treated = propagate(relevant, noise, {TREATMENT: 1.0})[OUTCOME]
    control = propagate(relevant, noise, {TREATMENT: 0.0})[OUTCOME]
    return float(np.mean(treated - control))


def without_effect(scm: SCM) -> SCM:
    """The structural null: no directed path from T to Y, yet the same look as a zero effect.

    The direct edge T -> Y is dropped. Each mediator keeps its edge from the treatment, but
    the outcome no longer responds to the mediator: it responds to the mediator's own
    variation, an unobserved source U with U -> M and U -> Y (M = a T + sd U, and Y gains
    w sd U where it had w M). Observationally this is the same model with its direct effect
    set to cancel the mediated one, so the post-treatment columns look exactly as they would
    with a zero total effect: they carry nothing about null status beyond the effect itself.
    Mediators must be linear in the treatment for that equivalence, so bent ones are refused.
    """
    sources: dict[str, str] = {}
    nodes: list[Node] = []
    for node in scm.nodes:
        if node.role == "mediator":
            if node.bend or any(node.curved) or node.intercept:
                raise ValueError(f"mediator {node.id} must be linear without intercept")
            source = f"U{node.id}"
            sources[node.id] = source
            nodes.append(Node(source, "latent"))
            nodes.append(
                replace(
                    node,
                    parents=(*node.parents, source),
                    weights=(*node.weights, node.noise_sd),
                    curved=(*node.curved, False),
                    noise_sd=0.0,
                )
            )
        elif node.id == OUTCOME:
            parents, weights = [], []
            for parent, weight in zip(node.parents, node.weights, strict=True):
                if parent in sources:
                    parents.append(sources[parent])
                    weights.append(weight * scm.node(parent).noise_sd)
                else:
                    parents.append(parent)
                    weights.append(0.0 if parent == TREATMENT else weight)
            nodes.append(replace(node, parents=tuple(parents), weights=tuple(weights)))
        else:
            nodes.append(node)
    return SCM(tuple(nodes))
