"""`run` and `finish` on a disk that fills: one line naming the run and the cause, exit 2,
and no run half-written.

`run` plays in memory and writes the run at the end: run.json, the journal's header, the
header's seal, then every command in one append. A disk that filled during that append
left a run sealed at day 0 with none of the script's commands (`verify`: intact, day 0)
and said `cannot append to the journal`, not the documented words of a refused command.
Now a new run is written whole or not at all (whatever write the disk refuses, what was
written of it is removed again), and commands appended to an existing run are refused in
the words every refused command gets: `RUN/journal.jsonl: cannot write … (reason); … not
applied and the run is as it was`.

The failures are real: this process's files may not grow beyond a size (RLIMIT_FSIZE,
so a write fails with EFBIG partway, as on a full disk).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.workbench.faults import files_may_not_grow_beyond, unfinished_run
from workbench.cli import main
from workbench.play.session import PlayerSession
from workbench.runs.verify import verify_run

RUN_FILES = ("run.json", "journal.jsonl", "seal.json")


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _one_line(result: Result) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert "Traceback" not in result.output, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    return lines[0]


@pytest.fixture
def script(tmp_path: Path) -> Path:
    """Sixty one-day advances: a journal far larger than its header."""
    path = tmp_path / "script.jsonl"
    path.write_text('{"kind":"advance","days":1}\n' * 60)
    return path


@pytest.fixture(scope="module")
def sizes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, int]:
    """The size of each file a new run's creation writes before its commands."""
    root = tmp_path_factory.mktemp("sizes") / "run"
    PlayerSession.create(root).close()
    return {name: (root / name).stat().st_size for name in RUN_FILES}


STAGES = {
    "run.json": lambda s: s["run.json"] - 1,
    "journal header": lambda s: s["journal.jsonl"] - 1,
    "header seal": lambda s: s["seal.json"] - 1,
    "commands": lambda s: max(s.values()) + 200,
}


@pytest.mark.parametrize("stage", sorted(STAGES))
def test_a_new_run_the_disk_refuses_is_not_created_at_all(
    tmp_path: Path, script: Path, sizes: dict[str, int], stage: str
) -> None:
    limit = STAGES[stage](sizes)
    assert limit >= min(sizes.values()) - 1
    out = tmp_path / "run"
    with files_may_not_grow_beyond(limit):
        result = _cli("run", "--script", script, "--out", out)
    line = _one_line(result)
    assert str(out) in line and "File too large" in line, line
    assert line.endswith(f"the run was not created: {out} holds no run, as before"), line
    left = sorted(p.name for p in out.iterdir()) if out.exists() else []
    assert not set(left) & set(RUN_FILES), left
    assert "is not a run directory" in _one_line(_cli("verify", out))
    played = _cli("run", "--script", script, "--out", out)
    assert played.exit_code == 0, played.output
    result_of = verify_run(out)
    assert result_of.ok and result_of.seal is not None and result_of.seal.final_day == 180


def test_the_commands_the_disk_refuses_are_named_as_a_refused_command_is(
    tmp_path: Path, script: Path, sizes: dict[str, int]
) -> None:
    out = tmp_path / "run"
    with files_may_not_grow_beyond(max(sizes.values()) + 200):
        line = _one_line(_cli("run", "--script", script, "--out", out))
    assert line == (
        f"Error: {out}/journal.jsonl: cannot write 61 commands (File too large); they were "
        f"not applied and the run was not created: {out} holds no run, as before"
    )


def test_commands_to_an_existing_run_are_not_applied_and_it_is_as_it_was(
    tmp_path: Path, script: Path
) -> None:
    run = unfinished_run(tmp_path / "run")
    before = {name: (run / name).read_bytes() for name in RUN_FILES}
    with files_may_not_grow_beyond(len(before["journal.jsonl"]) + 40):
        line = _one_line(_cli("run", "--script", script, "--out", run))
    assert line == (
        f"Error: {run}/journal.jsonl: cannot write 61 commands (File too large); they were "
        "not applied and the run is as it was"
    )
    assert {name: (run / name).read_bytes() for name in RUN_FILES} == before
    assert verify_run(run).ok


def test_a_finish_the_disk_refuses_is_not_applied_and_finishes_once_there_is_room(
    tmp_path: Path,
) -> None:
    run = unfinished_run(tmp_path / "run")
    before = {name: (run / name).read_bytes() for name in RUN_FILES}
    with files_may_not_grow_beyond(len(before["journal.jsonl"]) + 40):
        line = _one_line(_cli("finish", run))
    assert line == (
        f"Error: {run}/journal.jsonl: cannot write the finish (File too large); it was "
        "not applied and the run is as it was"
    )
    assert {name: (run / name).read_bytes() for name in RUN_FILES} == before
    finished = _cli("finish", run)
    assert finished.exit_code == 0, finished.output
    assert verify_run(run).ok and (run / "store.sqlite").is_file()
