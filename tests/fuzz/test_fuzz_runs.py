"""Fuzzing the files of a finished run: seals, journal lines and run.json under verify,
snapshot and validate. Readers never write, so the run stays as the case left it; an
intact run verifies (exit 0) and any change is refused (2 or 3), never a traceback."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import orjson
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import strategies as S
from tests.fuzz.harness import fuzz_settings, invoke


@st.composite
def seal_bytes(draw: st.DrawFn, seal: dict) -> bytes:
    """A seal: canonical and changed, mutated, re-encoded loosely, or junk."""
    how = draw(st.sampled_from(["field", "mutated", "loose", "junk", "same"]))
    if how == "field":
        key = draw(st.sampled_from(sorted(seal)))
        return S.canonical({**seal, key: draw(S.json_values)})
    if how == "mutated":
        return draw(S.mutated(seal))
    if how == "loose":
        return orjson.dumps(seal, option=orjson.OPT_INDENT_2)
    if how == "junk":
        return draw(st.binary(max_size=64) | st.builds(S.encode, S.json_values))
    return S.canonical(seal)


@fuzz_settings("seals")
@given(data=st.data())
def test_fuzz_seals(data: st.DataObject, finished_run: Path) -> None:
    original = (finished_run / "seal.json").read_bytes()
    seal = orjson.loads(original)
    content = data.draw(seal_bytes(seal), label="seal")
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        shutil.copytree(finished_run, run)
        (run / "seal.json").write_bytes(content)
        command = data.draw(st.sampled_from(["verify", "verify", "verify", "validate"]))
        if command == "verify":
            outcome = invoke("seals", ["verify", str(run)], [run])
        else:
            out = Path(tmp) / "out"
            args = ["validate", "counterfactual", "--results", str(run), "--out", str(out)]
            outcome = invoke("seals", args, [run])
        if content == original:
            assert outcome.exit_code == 0, outcome.output
        else:
            assert outcome.exit_code == 3, outcome.output


@fuzz_settings("run files")
@given(data=st.data())
def test_fuzz_run_files(data: st.DataObject, finished_run: Path) -> None:
    name = data.draw(st.sampled_from(["journal.jsonl", "run.json"]), label="file")
    original = (finished_run / name).read_bytes()
    if name == "run.json":
        content = data.draw(S.mutated(orjson.loads(original)) | st.binary(max_size=64))
    else:
        lines = original.splitlines(keepends=True)
        index = data.draw(st.integers(0, len(lines) - 1), label="line")
        entry = orjson.loads(lines[index])
        line = data.draw(S.mutated(entry) | st.binary(max_size=40), label="entry")
        how = data.draw(st.sampled_from(["replace", "insert", "drop", "duplicate"]))
        if how == "replace":
            lines[index] = line + b"\n"
        elif how == "insert":
            lines.insert(index, line + b"\n")
        elif how == "drop":
            del lines[index]
        else:
            lines.insert(index, lines[index])
        content = b"".join(lines)
    command = data.draw(st.sampled_from(["verify", "snapshot", "show"]), label="command")
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        shutil.copytree(finished_run, run)
        (run / name).write_bytes(content)
        outcome = invoke("run files", [command, str(run)], [run])
        if content == original:
            assert outcome.exit_code == 0, outcome.output
        elif command == "verify":
            assert outcome.exit_code in (2, 3), outcome.output
