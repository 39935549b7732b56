"""Backdoor identification: the certificate every staged task carries, via networkx d-separation."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import networkx as nx

from graders.causal_gym.scm import ADJUSTABLE_ROLES, OUTCOME, SCM, TREATMENT


@dataclass(frozen=True)
class Certificate:
    """Whether the adjustable pre-treatment covariates identify the ATE, and why not if they fail.

    The adjustable covariates are every observed pre-treatment column except an M-bias column
    (adjustment family), which a valid adjustment must leave out.
    """

    identified: bool
    adjustment_set: tuple[str, ...]
    reason: str


def backdoor_graph(graph: nx.DiGraph, treatment: str = TREATMENT) -> nx.DiGraph:
    """The graph with the treatment's outgoing edges removed."""
    cut = graph.copy()
    cut.remove_edges_from(list(graph.out_edges(treatment)))
    return cut


def satisfies_backdoor(
    graph: nx.DiGraph, adjust: Iterable[str], treatment: str = TREATMENT, outcome: str = OUTCOME
) -> bool:
    """Backdoor criterion: no descendant of T, and T, Y d-separated without T's out-edges."""
    members = set(adjust)
    if treatment in members or outcome in members or not members <= set(graph.nodes):
        return False
    if members & nx.descendants(graph, treatment):
        return False
    return bool(
        nx.is_d_separator(backdoor_graph(graph, treatment), {treatment}, {outcome}, members)
    )


def certify(scm: SCM) -> Certificate:
    """Certify that the adjustable pre-treatment covariates satisfy the backdoor criterion."""
    adjust = scm.ids(ADJUSTABLE_ROLES)
    graph = scm.graph()
    late = set(adjust) & nx.descendants(graph, TREATMENT)
    if late:
        return Certificate(False, adjust, f"descendants of the treatment: {sorted(late)}")
    if not nx.is_d_separator(backdoor_graph(graph), {TREATMENT}, {OUTCOME}, set(adjust)):
        return Certificate(False, adjust, "an open backdoor path remains")
    return Certificate(True, adjust, "backdoor criterion holds")
