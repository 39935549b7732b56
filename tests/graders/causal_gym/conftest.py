"""causal-gym tasks materialised once per session and shared by every test that needs many.

Two populations: the issue-15 probe's 500 fresh null_detect ids (train 500..999) and a
deterministic sample of the committed audit's ids (every 15th of 0..299 in each family).
Whole-population audit figures come from the committed audit report, which the sample
ties to a fresh run (test_audit_report.py).
"""

from __future__ import annotations

import pytest

from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.tasks import HostTask, materialise

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
PROBE_IDS = range(500, 1000)
AUDIT_SAMPLE_IDS = range(0, 300, 15)


@pytest.fixture(scope="session")
def probe_tasks() -> list[HostTask]:
    """The 500 fresh null_detect tasks of the probe (25 keyed blocks of 20)."""
    return [materialise(KEY, "train", "null_detect", task_id) for task_id in PROBE_IDS]


@pytest.fixture(scope="session")
def audit_sample() -> dict[str, list[HostTask]]:
    """Twenty audit ids per family, spread over 0..299."""
    return {f: [materialise(KEY, "train", f, i) for i in AUDIT_SAMPLE_IDS] for f in FAMILIES}


@pytest.fixture(scope="session")
def sampled_tasks(
    probe_tasks: list[HostTask], audit_sample: dict[str, list[HostTask]]
) -> list[HostTask]:
    """Every shared task: 560 across the three families."""
    return [*probe_tasks, *(t for tasks in audit_sample.values() for t in tasks)]
