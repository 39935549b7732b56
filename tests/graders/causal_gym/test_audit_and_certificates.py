"""560 shared tasks: all certified, solvable and clean; regeneration and traps behave.

The whole 900-task audit is checked through the committed report (test_audit_report.py);
these checks run on the session's shared tasks (conftest.py) so nothing is generated twice.
"""

from __future__ import annotations

import math
import re
from importlib import resources

from graders.causal_gym.audit import load_report
from graders.causal_gym.dictionary import TRAP_DESCRIPTIONS
from graders.causal_gym.identification import satisfies_backdoor
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.scm import ADJUSTABLE_ROLES, PRE_ROLES
from graders.causal_gym.tasks import HostTask, materialise

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
ROLE_WORDS = re.compile(
    r"confounder|instrument|collider|mediator|latent|prognostic|proxy|m.bias", re.I
)
LABELS = {"pre-treatment", "post-treatment", "treatment", "post-treatment (outcome)"}


def test_every_task_is_certified_and_solvable(sampled_tasks: list[HostTask]) -> None:
    for task in sampled_tasks:
        assert task.certificate.identified
        assert satisfies_backdoor(task.scm.graph(), task.scm.ids(ADJUSTABLE_ROLES))
        ref = task.reference
        assert math.isfinite(ref.estimate) and math.isfinite(ref.se) and ref.se > 0
        frame = task.staged.frame
        names = task.staged.dictionary
        assert set(frame[names.treatment].unique()) == {0, 1}
        assert frame.duplicated().any()
        assert frame.isna().to_numpy().any()
        if task.kind == "structural_null":
            assert task.truth == 0.0


def test_staged_folders_hold_two_files_and_no_secrets(sampled_tasks: list[HostTask]) -> None:
    for task in sampled_tasks:
        files = task.staged.files()
        assert sorted(files) == ["README.md", "data.csv"]
        readme, csv = files["README.md"], files["data.csv"]
        header = csv.split("\n", 1)[0].split(",")
        assert header == [c.name for c in task.staged.dictionary.columns]
        assert DEFAULT_KEY_HEX not in readme and DEFAULT_KEY_HEX not in csv
        for text in (readme, ",".join(header)):
            assert ROLE_WORDS.search(text) is None
        assert {c.label for c in task.staged.dictionary.columns} <= LABELS
        if task.truth != 0.0:
            assert repr(task.truth) not in readme
            assert f"{task.truth:.4f}" not in readme
        for column in task.staged.dictionary.columns:
            assert f"| `{column.name}` | {column.label} |" in readme


def test_regenerated_tasks_are_deterministic() -> None:
    text = resources.files("graders.causal_gym").joinpath("audit_report.json").read_bytes()
    regenerated = [a for a in load_report(text).tasks if a.attempt > 0]
    assert regenerated, "the committed audit should show at least one regenerated task"
    for entry in regenerated[:2]:
        task = materialise(KEY, "train", entry.family, entry.task_id)
        assert task.attempt == entry.attempt
        assert len(task.rejections) == task.attempt
        again = materialise(KEY, "train", entry.family, entry.task_id)
        assert again.staged.files() == task.staged.files()


def _trap(task: HostTask) -> str:
    roles = {node.role for node in task.scm.nodes}
    return next((r for r in ("m_bias", "proxy") if r in roles), "none")


def test_adjustment_traps_make_validity_a_real_choice(
    audit_sample: dict[str, list[HostTask]],
) -> None:
    seen = set()
    for task in audit_sample["adjustment"]:
        trap = _trap(task)
        seen.add(trap)
        graph, names = task.scm.graph(), task.staged.dictionary
        everything = set(task.scm.ids(PRE_ROLES))
        assert satisfies_backdoor(graph, everything) is (trap != "m_bias")
        if trap == "none":
            assert names.adjustable == names.pre_treatment
            continue
        (column,) = [c for c in names.columns if c.node == "X0"]
        assert column.timing == "pre-treatment"
        assert column.adjustable is (trap == "proxy")
        assert satisfies_backdoor(graph, everything - {"X0"}) is (trap == "m_bias")
        suffix = TRAP_DESCRIPTIONS[trap].split("{base}", 1)[1]
        expected = suffix.format(t=names.treatment, y=names.outcome)
        assert column.description.endswith(expected)
        assert f"| {column.description} |" in task.staged.readme_text
        assert "not necessarily all of them" in task.staged.readme_text
    assert seen == {"none", "m_bias", "proxy"}
    for family in ("ate", "null_detect"):
        for task in audit_sample[family]:
            assert _trap(task) == "none"
            assert "not necessarily all of them" not in task.staged.readme_text
