"""One OpenBLAS kernel family wherever the CPU runs it, a user's choice kept, a mismatch refused.

The kernels are chosen when numpy loads OpenBLAS, so the end-to-end checks run in fresh
processes, as a user's command or a Dask worker would.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from graders import blas
from graders.blas import PINNED, VARIABLE, kernels, pin_kernels
from graders.causal_gym.audit import audit_address
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.tasks import CausalGenerationError

RUNS_PINNED = blas._cpu_flags() >= {"avx2", "fma"}


def _kernels_in_a_new_process(code: str, **env: str) -> str:
    """What `kernels()` says in a fresh interpreter that runs `code` first."""
    environment = {k: v for k, v in os.environ.items() if k != VARIABLE} | env
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nfrom graders.blas import kernels\nprint(kernels())"],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
    )
    return done.stdout.strip()


@pytest.mark.skipif(not RUNS_PINNED, reason="this CPU cannot run the pinned kernels")
def test_a_command_runs_the_pinned_kernels_whatever_its_cpu_prefers() -> None:
    assert _kernels_in_a_new_process("import workbench, numpy") == PINNED
    assert _kernels_in_a_new_process("import graders.causal_gym.reference") == PINNED
    assert kernels() == PINNED, "the test process itself loaded numpy before the graders"


def test_a_users_choice_and_an_earlier_numpy_are_left_alone() -> None:
    chosen = _kernels_in_a_new_process("import workbench, numpy", **{VARIABLE: "Nehalem"})
    assert chosen == "Nehalem"
    first = _kernels_in_a_new_process(
        "import numpy, os, workbench\nassert 'OPENBLAS_CORETYPE' not in os.environ"
    )
    assert first not in ("", "none")


@pytest.mark.parametrize(
    ("flags", "numpy_loaded", "pinned"),
    [
        ({"sse2", "avx", "avx2", "fma"}, False, True),
        ({"sse2", "avx", "avx2"}, False, False),
        ({"sse2", "fma"}, False, False),
        (set(), False, False),
        ({"avx2", "fma"}, True, False),
    ],
)
def test_the_pin_is_asked_only_before_numpy_and_where_the_cpu_runs_it(
    monkeypatch: pytest.MonkeyPatch, flags: set[str], numpy_loaded: bool, pinned: bool
) -> None:
    monkeypatch.delenv(VARIABLE, raising=False)
    monkeypatch.setattr(blas, "_cpu_flags", lambda: frozenset(flags))
    if not numpy_loaded:
        monkeypatch.delitem(sys.modules, "numpy")
    pin_kernels()
    assert os.environ.get(VARIABLE) == (PINNED if pinned else None)


def test_a_worker_with_other_kernels_refuses_its_task() -> None:
    key = bytes.fromhex(DEFAULT_KEY_HEX)
    assert audit_address((key, "train", "ate", 0, kernels())).task_id == 0
    with pytest.raises(CausalGenerationError, match=f"runs {kernels()} kernels, the client's "):
        audit_address((key, "train", "ate", 0, "Nehalem"))
