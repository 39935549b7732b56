"""The committed audit report: canonical, current, consistent, and matching a fresh run.

`graders/causal_gym/audit_report.json` is written by `workbench causal audit -n 300 --json`.
A full audit (900 tasks) is too slow for the suite, so this test regenerates a deterministic
sample of 60 ids (every 15th of 0..299 per family, shared with other tests) and compares
those entries; it recomputes every aggregate from the committed per-task entries. The whole
file is regenerated and compared by `benchmarks/causal_speed.py` (exit 1 on a mismatch).
"""

from __future__ import annotations

import math
from dataclasses import fields
from importlib import resources

import pytest

from graders.blas import PINNED, kernels
from graders.causal_gym.audit import (
    AuditReport,
    TaskAudit,
    audit_task,
    load_report,
    render_report,
    summarise,
)
from graders.causal_gym.families import BLOCK_KINDS, FAMILIES
from graders.causal_gym.tasks import HostTask
from graders.causal_gym.version import GENERATOR_VERSION

REPORT_FILE = "audit_report.json"
N = 300
REL = 1e-9
"""Floats may differ in their last bits across BLAS kernels; 1e-9 relative is far tighter
than any figure the report states. With the pinned kernels (`graders.blas`), which made the
committed figures, every entry must match exactly."""
EXACT = kernels() == PINNED


@pytest.fixture(scope="module")
def committed_text() -> str:
    return resources.files("graders.causal_gym").joinpath(REPORT_FILE).read_text("utf-8")


@pytest.fixture(scope="module")
def committed(committed_text: str) -> AuditReport:
    return load_report(committed_text)


def same_entry(fresh: TaskAudit, kept: TaskAudit) -> bool:
    """Field by field: exact for ids, kinds and flags; rewards exact under the pinned
    kernels, else to 1e-9 relative."""
    if EXACT:
        return fresh == kept
    for field in fields(TaskAudit):
        a, b = getattr(fresh, field.name), getattr(kept, field.name)
        pairs = list(zip(a, b, strict=True)) if isinstance(a, tuple) else [(a, b)]
        for x, y in pairs:
            if isinstance(x, float) and isinstance(y, float) and not isinstance(x, bool):
                if not math.isclose(x, y, rel_tol=REL, abs_tol=1e-12):
                    return False
            elif x != y:
                return False
    return True


def test_report_is_canonical_current_and_complete(
    committed_text: str, committed: AuditReport
) -> None:
    assert render_report(committed) == committed_text
    assert committed.generator_version == GENERATOR_VERSION
    assert committed.public_key and committed.namespace == "train"
    assert committed.n_per_family == N
    assert [f.family for f in committed.families] == list(FAMILIES)
    expected = [(f, i) for f in FAMILIES for i in range(N)]
    assert [(a.family, a.task_id) for a in committed.tasks] == expected


def test_aggregates_are_the_means_of_the_entries(committed: AuditReport) -> None:
    for fam in committed.families:
        entries = [a for a in committed.tasks if a.family == fam.family]
        assert summarise(fam.family, entries) == fam
    assert committed.coverage == pytest.approx(
        sum(a.covered for a in committed.tasks) / len(committed.tasks), rel=REL
    )


def test_sampled_entries_match_a_fresh_run(
    committed: AuditReport, audit_sample: dict[str, list[HostTask]]
) -> None:
    kept = {(a.family, a.task_id): a for a in committed.tasks}
    for tasks in audit_sample.values():
        for task in tasks:
            fresh = audit_task(task)
            assert same_entry(fresh, kept[(task.family, task.task_id)]), (
                f"{task.family} task {task.task_id} differs from the committed report; "
                "regenerate it with `workbench causal audit -n 300 --json "
                "graders/causal_gym/audit_report.json --force`"
            )


@pytest.mark.parametrize("family", list(FAMILIES))
def test_audit_lands_on_the_seed(committed: AuditReport, family: str) -> None:
    (summary,) = [f for f in committed.families if f.family == family]
    assert 0.88 <= summary.coverage <= 0.92
    assert 0.70 <= summary.honest_reward <= 0.90
    assert summary.sweep_peak == 0.90
    if family == "null_detect":
        check = summary.null_check
        assert check is not None and check.n == N * BLOCK_KINDS.count("structural_null") / 20
        assert check.tiny_width_reward < check.reference_width_reward
    if family == "adjustment":
        naive = summary.all_pre
        assert naive is not None
        assert 0.2 <= 1 - naive.valid_share <= 0.5
        assert naive.reward < summary.honest_reward
