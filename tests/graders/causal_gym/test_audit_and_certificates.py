"""300 tasks per family: all certified, solvable and clean; the audit lands on the seed's."""

from __future__ import annotations

import math
import re

import pytest

from graders.causal_gym.audit import TaskAudit, audit_task, summarise
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.identification import satisfies_backdoor
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.scm import PRE_ROLES
from graders.causal_gym.tasks import HostTask, materialise

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
N = 300
ROLE_WORDS = re.compile(r"confounder|instrument|collider|mediator|latent|prognostic", re.I)


@pytest.fixture(scope="module")
def tasks() -> dict[str, list[HostTask]]:
    return {f: [materialise(KEY, "train", f, i) for i in range(N)] for f in FAMILIES}


@pytest.fixture(scope="module")
def audits(tasks: dict[str, list[HostTask]]) -> dict[str, list[TaskAudit]]:
    return {f: [audit_task(t) for t in family_tasks] for f, family_tasks in tasks.items()}


def test_every_task_is_certified_and_solvable(tasks: dict[str, list[HostTask]]) -> None:
    for family_tasks in tasks.values():
        for task in family_tasks:
            assert task.certificate.identified
            graph = task.scm.graph()
            assert satisfies_backdoor(graph, task.scm.ids(PRE_ROLES))
            ref = task.reference
            assert math.isfinite(ref.estimate) and math.isfinite(ref.se) and ref.se > 0
            frame = task.staged.frame
            names = task.staged.dictionary
            assert set(frame[names.treatment].unique()) == {0, 1}
            assert frame.duplicated().any()
            assert frame.isna().to_numpy().any()
            if task.kind == "structural_null":
                assert task.truth == 0.0


def test_staged_folders_hold_two_files_and_no_secrets(tasks: dict[str, list[HostTask]]) -> None:
    for family_tasks in tasks.values():
        for task in family_tasks:
            files = task.staged.files()
            assert sorted(files) == ["README.md", "data.csv"]
            readme, csv = files["README.md"], files["data.csv"]
            header = csv.split("\n", 1)[0].split(",")
            assert header == [c.name for c in task.staged.dictionary.columns]
            assert DEFAULT_KEY_HEX not in readme and DEFAULT_KEY_HEX not in csv
            for text in (readme, ",".join(header)):
                assert ROLE_WORDS.search(text) is None
            labels = {c.label for c in task.staged.dictionary.columns}
            assert labels <= {
                "pre-treatment",
                "post-treatment",
                "treatment",
                "post-treatment (outcome)",
            }
            if task.truth != 0.0:
                assert repr(task.truth) not in readme
                assert f"{task.truth:.4f}" not in readme
            for column in task.staged.dictionary.columns:
                assert f"| `{column.name}` | {column.label} |" in readme


def test_some_tasks_were_regenerated_deterministically(tasks: dict[str, list[HostTask]]) -> None:
    regenerated = [t for ts in tasks.values() for t in ts if t.attempt > 0]
    assert regenerated
    for task in regenerated[:3]:
        assert len(task.rejections) == task.attempt
        again = materialise(KEY, "train", task.family, task.task_id)
        assert again.attempt == task.attempt
        assert again.staged.files() == task.staged.files()


@pytest.mark.parametrize("family", list(FAMILIES))
def test_audit_matches_the_seed(audits: dict[str, list[TaskAudit]], family: str) -> None:
    summary = summarise(family, audits[family])
    assert summary.n == N
    assert 0.86 <= summary.coverage <= 0.94
    assert 0.70 <= summary.honest_reward <= 0.90
    assert summary.sweep_peak == 0.90
    if family == "null_detect":
        check = summary.null_check
        assert check is not None and check["n"] == N * 7 / 20
        assert check["tiny_width_reward"] < check["reference_width_reward"]
