"""The evaluator benchmark's split of a cost into per-evaluation and per-question parts."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

SIZES = ((6, 1), (60, 1), (600, 3))


def _benchmark() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "validate_speed.py"
    spec = importlib.util.spec_from_file_location("validate_speed", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


VALIDATE_SPEED = _benchmark()


@given(
    st.floats(min_value=0, max_value=0.01),
    st.floats(min_value=0, max_value=0.01),
)
def test_the_fit_recovers_exact_costs(per_run: float, per_question: float) -> None:
    sizes = [(q, runs, runs * per_run + q * per_question) for q, runs in SIZES]
    fitted_run, fitted_question = VALIDATE_SPEED.cost_fit(sizes)
    assert abs(fitted_run - per_run) < 1e-9
    assert abs(fitted_question - per_question) < 1e-12


def test_the_small_size_still_pins_the_cost_per_evaluation() -> None:
    """A 1% error on the largest size moves the fitted 3 ms per evaluation by 0.05 ms
    (an unweighted fit moved it by 0.5 ms: the large size's noise swamped it)."""
    exact = [(q, runs, runs * 0.003 + q * 0.0015) for q, runs in SIZES]
    noisy = [(q, runs, t * (1.01 if q == 600 else 1)) for q, runs, t in exact]
    fitted_run, _ = VALIDATE_SPEED.cost_fit(noisy)
    assert abs(fitted_run - 0.003) < 0.0001


def test_the_memory_file_system_is_used_only_where_a_directory_can_be_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without a writable memory file system the benchmark says so instead of failing
    (/proc: a directory that even root, whom access(2) lets write anywhere, cannot write)."""
    a_file = tmp_path / "file"
    a_file.write_text("")
    proc = [Path("/proc")] if Path("/proc/self").is_dir() else []
    for unusable in (tmp_path / "missing", a_file, *proc):
        monkeypatch.setattr(VALIDATE_SPEED, "MEMORY_FS", unusable)
        assert VALIDATE_SPEED.memory_scratch() is None
    monkeypatch.setattr(VALIDATE_SPEED, "MEMORY_FS", tmp_path)
    scratch = VALIDATE_SPEED.memory_scratch()
    assert scratch is not None and scratch.parent == tmp_path and scratch.is_dir()
    assert not any(scratch.iterdir())
