"""Issue 15: post-treatment columns say nothing about null status beyond the effect itself.

The probe regresses the outcome on the treatment, the pre-treatment columns and each
post-treatment column, and answers "no effect" when one looks inert (|t| < 2). Under
generator version 1 it flagged 110 of 112 structural nulls with a mediator and no non-null.
On 500 fresh ids its flag rate must not differ significantly between null and non-null
tasks, and its strategy must not beat the honest reference by more than two standard errors.
"""

from __future__ import annotations

import math
from dataclasses import replace
from statistics import fmean, stdev

import pytest

from graders.causal_gym.keys import derive_streams
from graders.causal_gym.naming import pick_naming
from graders.causal_gym.scm import OUTCOME, SCM, simulate
from graders.causal_gym.staging import stage
from graders.causal_gym.tasks import HostTask
from tests.graders.causal_gym.conftest import KEY
from tests.graders.causal_gym.null_probe import ProbeResult, flags, run_probe


@pytest.fixture(scope="module")
def results(probe_tasks: list[HostTask]) -> list[ProbeResult]:
    return [run_probe(task) for task in probe_tasks]


def two_proportion_z(hits_a: int, n_a: int, hits_b: int, n_b: int) -> float:
    """Pooled two-proportion z statistic; 0 when both rates are 0 or both are 1."""
    pooled = (hits_a + hits_b) / (n_a + n_b)
    if pooled in (0.0, 1.0):
        return 0.0
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    return (hits_a / n_a - hits_b / n_b) / spread


def test_flag_rate_does_not_separate_nulls(results: list[ProbeResult]) -> None:
    nulls = [r for r in results if r.null]
    others = [r for r in results if not r.null]
    assert (len(nulls), len(others)) == (175, 325)
    z = two_proportion_z(
        sum(r.flagged for r in nulls), len(nulls), sum(r.flagged for r in others), len(others)
    )
    assert abs(z) < 2.0, f"flag rates differ: z = {z:.2f}"


def test_probe_strategy_does_not_beat_the_honest_reference(results: list[ProbeResult]) -> None:
    gains = [r.probe_reward - r.honest_reward for r in results]
    se = stdev(gains) / math.sqrt(len(gains))
    assert fmean(gains) <= 2 * se


def _version_one_null(scm: SCM) -> SCM:
    """The version-1 structural null: the outcome ignores the mediators' sources entirely."""
    outcome = scm.node(OUTCOME)
    weights = tuple(
        0.0 if parent.startswith("UM") else weight
        for parent, weight in zip(outcome.parents, outcome.weights, strict=True)
    )
    return scm.with_node(replace(outcome, weights=weights))


def test_the_probe_catches_the_version_one_side_channel(probe_tasks: list[HostTask]) -> None:
    """Not vacuous: restaged with version 1's cut, nulls with a mediator are flagged."""
    with_mediator = [
        t
        for t in probe_tasks
        if t.kind == "structural_null" and any(n.role == "mediator" for n in t.scm.nodes)
    ][:16]
    old = new = 0
    for task in with_mediator:
        streams = derive_streams(KEY, "train", "null_detect", task.task_id)
        scm = _version_one_null(task.scm)
        sample = simulate(scm, task.size.n_units, streams.rng("data", task.attempt))
        staged = stage(
            scm,
            sample,
            pick_naming(streams.rng("naming", task.attempt)),
            "null_detect",
            streams.rng("messiness", task.attempt),
            streams.rng("prompt", task.attempt),
        )
        old += flags(staged.frame, staged.dictionary)
        new += flags(task.staged.frame, task.staged.dictionary)
    assert len(with_mediator) == 16
    assert old >= 13 and new <= 2
