"""Fuzzing an evaluation's output under `verify-report`: report.json changed anywhere in
its nesting (mostly still canonical, so the deeper checks run), SHA256SUMS or the seals
file damaged. `verify-report` only reads: the output stays as the case left it; an intact
output checks (exit 0) and a changed one is reported (1) or refused (2, 3), never a
traceback."""

from __future__ import annotations

import gzip
import shutil
import tempfile
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from tests.fuzz import strategies as S
from tests.fuzz.harness import fuzz_settings, invoke
from workbench.evaluation.report import CounterfactualReport


@pytest.fixture(scope="session")
def evaluated(finished_run: Path, fuzz_root: Path) -> Path:
    """A validation output of the finished run (copy it before changing it)."""
    out = fuzz_root / "evaluated"
    outcome = invoke(
        "reports", ["validate", "counterfactual", "--results", str(finished_run), "--out", str(out)]
    )
    assert outcome.exit_code in (0, 1), outcome.output
    return out


@fuzz_settings("reports")
@given(data=st.data())
def test_fuzz_reports(data: st.DataObject, evaluated: Path, finished_run: Path) -> None:
    target = data.draw(st.sampled_from(["report", "report", "report", "sums", "seals"]))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        shutil.copytree(evaluated, out)
        if target == "report":
            report = orjson.loads((out / "report.json").read_bytes())
            (out / "report.json").write_bytes(data.draw(S.changed_anywhere(report), label="report"))
        elif target == "sums":
            sums = (out / "SHA256SUMS").read_bytes()
            (out / "SHA256SUMS").write_bytes(data.draw(S.damaged(sums), label="sums"))
        else:
            seals = out / "seals" / "branches.jsonl.gz"
            lines = gzip.decompress(seals.read_bytes()).splitlines(keepends=True)
            index = data.draw(st.integers(0, len(lines) - 1), label="line")
            lines[index] = data.draw(S.mutated(orjson.loads(lines[index])), label="seal") + b"\n"
            seals.write_bytes(gzip.compress(b"".join(lines), mtime=0))
        args = ["verify-report", str(out)]
        rerun = data.draw(st.booleans(), label="with results")
        if rerun:
            args += ["--results", str(finished_run)]
        outcome = invoke("reports", args, [out, finished_run])
        if target != "report" or rerun:
            assert (outcome.exit_code == 0) == _same(out, evaluated, target), outcome.output
        elif _same(out, evaluated, target):
            assert outcome.exit_code == 0, outcome.output


def _same(out: Path, evaluated: Path, target: str) -> bool:
    """The output as evaluated, but for what a re-evaluation does not compare (the
    execution facts and the run folder's name, in canonical report bytes)."""
    if target != "report":
        return all(
            (out / name).read_bytes() == (evaluated / name).read_bytes()
            for name in ("SHA256SUMS", "seals/branches.jsonl.gz")
        )
    raw, original = (out / "report.json").read_bytes(), (evaluated / "report.json").read_bytes()
    if raw == original:
        return True
    try:
        changed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(changed, dict) or S.canonical(changed) != raw:
        return False
    try:
        CounterfactualReport.model_validate(changed)
    except ValidationError:
        return False
    return _comparable(changed) == _comparable(orjson.loads(original))


def _comparable(report: dict[str, Any]) -> dict[str, Any]:
    trimmed = {k: v for k, v in report.items() if k != "execution"}
    factual = trimmed.get("factual")
    if isinstance(factual, dict):
        trimmed["factual"] = {k: v for k, v in factual.items() if k != "run"}
    return trimmed
