"""`vc grade` and `causal audit` on the local pool: byte-identical to serial, same refusals."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from graders.causal_gym import tasks as causal_tasks
from graders.vc_deal import batch as vc_batch
from workbench.cli import main


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def completions(tmp_path: Path) -> Path:
    """A few hundred graded lines: right, wrong, loose-only and unparseable answers."""
    code, items, _ = _run("vc", "generate", "-n", "240")
    assert code == 0
    lines = []
    for i, raw in enumerate(items.splitlines()):
        item = orjson.loads(raw)
        answer = float(item["answer"])
        text = [f"{answer}", f"{answer + 0.3:.2f} percent", "no idea", f"{answer * 2}"][i % 4]
        lines.append(
            orjson.dumps(
                {"completion": f"So it is {text}", "answer": item["answer"], "info": item["info"]}
            )
        )
    path = tmp_path / "completions.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_vc_grade_in_chunks_on_the_pool_is_byte_identical(
    completions: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vc_batch, "GRADE_CHUNK", 17)
    serial = _run("vc", "grade", str(completions))
    for loose in ((), ("--loose",)):
        assert _run("vc", "grade", str(completions), *loose, "--workers", "2") == _run(
            "vc", "grade", str(completions), *loose
        )
    assert serial[0] == 0 and len(serial[1].splitlines()) == 240


def test_causal_audit_on_the_pool_is_byte_identical(tmp_path: Path) -> None:
    outputs = []
    for workers in ("1", "2"):
        report = tmp_path / f"audit{workers}.json"
        code, stdout, _ = _run(
            "causal", "audit", "-n", "3", "--json", str(report), "--workers", workers
        )
        assert code == 0, stdout
        outputs.append((stdout.replace(str(report), "REPORT"), report.read_bytes()))
    assert outputs[0] == outputs[1]


def test_a_causal_refusal_in_a_worker_stays_a_user_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(causal_tasks, "MAX_ATTEMPTS", 0)
    for workers in ("1", "2"):
        code, _, stderr = _run(
            "causal", "audit", "--family", "ate", "-n", "2", "--workers", workers
        )
        assert code == 2 and "no valid task in 0 attempts" in stderr
        assert "Traceback" not in stderr
