"""`causal generate --out`: one writer at a time, a killed writer's temporaries cleared, and
a refusal that lists the folder's other files in one bounded, printable line."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from graders.causal_gym.keys import KEY_ENV
from tests.placed import one_error_line
from workbench.cli import main


@pytest.fixture()
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.delenv(KEY_ENV, raising=False)
    return CliRunner()


def _generate(runner: CliRunner, out: Path, task_id: int = 3, *extra: str) -> Result:
    args = ["causal", "generate", "--family", "ate", "--task-id", str(task_id), "--out", str(out)]
    return runner.invoke(main, [*args, *extra])


def _contents(folder: Path) -> dict[str, bytes]:
    return {entry.name: entry.read_bytes() for entry in sorted(folder.iterdir())}


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_folder_another_command_is_staging_into_is_refused_untouched(
    runner: CliRunner, tmp_path: Path, force: list[str]
) -> None:
    """Two commands staging into one folder could leave one task's data.csv beside the
    other's README.md: each renames its files in place one by one."""
    out = tmp_path / "task"
    assert _generate(runner, out, 4).exit_code == 0
    before = _contents(out)
    fd = os.open(out, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as the other command holds it while it writes
        refused = _generate(runner, out, 3, *force)
        assert "another command is staging a task there now" in one_error_line(refused)
        assert _contents(out) == before
    finally:
        os.close(fd)
    assert _generate(runner, out, 3, "--force").exit_code == 0


@pytest.mark.parametrize("existing", [False, True])
def test_a_killed_writers_temporaries_are_removed_not_refused(
    runner: CliRunner, tmp_path: Path, existing: bool
) -> None:
    out = tmp_path / "task"
    if existing:
        assert _generate(runner, out, 4).exit_code == 0
    else:
        out.mkdir()
    left = [out / ".data.csv.0123456789ab.tmp", out / ".README.md.fedcba987654.tmp"]
    for path in left:
        path.write_bytes(b"half a file")
    result = _generate(runner, out, 3, *(["--force"] if existing else []))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data.csv"]


@pytest.mark.parametrize(
    "name", [".data.csv.tmp", ".data.csv.0123456789AB.tmp", ".notes.0123456789ab.tmp", "x.csv"]
)
def test_files_that_are_not_a_killed_writers_temporaries_are_still_refused(
    runner: CliRunner, tmp_path: Path, name: str
) -> None:
    out = tmp_path / "task"
    out.mkdir()
    (out / name).write_text("mine")
    assert name in one_error_line(_generate(runner, out))
    assert _contents(out) == {name: b"mine"}


def test_a_temporary_name_that_is_a_link_is_never_removed(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "task"
    out.mkdir()
    (tmp_path / "target").write_text("mine")
    (out / ".data.csv.0123456789ab.tmp").symlink_to(tmp_path / "target")
    assert _generate(runner, out).exit_code == 2
    assert (out / ".data.csv.0123456789ab.tmp").is_symlink()


def test_other_files_are_listed_in_one_bounded_printable_line(
    runner: CliRunner, tmp_path: Path
) -> None:
    out = tmp_path / "task"
    out.mkdir()
    names = ["a\nb", "\x1b[31mred", "z" * 250, *(f"f{i:04}" for i in range(2000))]
    for name in names:
        (out / name).write_text("mine")
    line = one_error_line(_generate(runner, out))
    assert line.isprintable() and len(line) < 400
    assert "a\\nb" in line and "\\x1b[31mred" in line and "and 1,998 more" in line
    assert len(list(out.iterdir())) == len(names)
