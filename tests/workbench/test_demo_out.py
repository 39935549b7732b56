"""`workbench demo --out`: a new directory, or a numbered one beside an existing directory;
anything else at --out is refused in one line (exit 2) and nothing is made anywhere.

`--out /dev/null` exited 0 having made /dev/null-2/ and /dev/null-2-validation/ in /dev.
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.placed import one_error_line as _one_line_error
from tests.placed import place
from workbench import exit_codes
from workbench.cli import main


def _demo(out: Path) -> Result:
    """`workbench demo --out OUT` through click."""
    return CliRunner().invoke(main, ["demo", "--out", str(out)])


def _entries(folder: Path) -> list[tuple[str, int]]:
    """Every entry under `folder` (links not followed), with its file type."""
    found = []
    for root, dirs, files in os.walk(folder):
        for name in sorted(dirs + files):
            path = Path(root) / name
            found.append((str(path.relative_to(folder)), stat.S_IFMT(os.lstat(path).st_mode)))
    return sorted(found)


def _not_a_directory(kind: str, tmp_path: Path) -> Path:
    """Something at `tmp_path/demo` that is not a directory (a link to one counts)."""
    out = tmp_path / "demo"
    place(kind, out, tmp_path)
    return out


@pytest.mark.parametrize(
    "kind", ["device", "named pipe", "file", "link to a directory", "dangling link"]
)
def test_an_out_that_is_not_a_directory_is_refused_and_nothing_is_made(
    kind: str, tmp_path: Path
) -> None:
    out = _not_a_directory(kind, tmp_path)
    before = _entries(tmp_path)
    message = _one_line_error(_demo(out))
    assert str(out) in message
    assert "not a directory" in message or "is a file" in message
    assert _entries(tmp_path) == before


def test_an_out_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("mine")
    before = _entries(tmp_path)
    assert "Not a directory" in _one_line_error(_demo(tmp_path / "file" / "demo"))
    assert _entries(tmp_path) == before


def test_the_demo_never_plays_inside_a_run_directory(demo_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = _entries(run)
    assert "is a run directory" in _one_line_error(_demo(run / "demo"))
    assert _entries(run) == before


def test_beside_an_existing_directory_the_next_free_number_is_used(tmp_path: Path) -> None:
    """An existing directory keeps its documented meaning: the demo plays beside it, past
    any name that is taken, even by a dangling link."""
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "mine.txt").write_text("mine")
    (tmp_path / "demo-2").symlink_to(tmp_path / "nowhere")
    result = _demo(tmp_path / "demo")
    assert result.exit_code in (exit_codes.OK, exit_codes.UNSCORED), result.output
    assert f"played the default campaign into {tmp_path / 'demo-3'}" in result.output
    assert (tmp_path / "demo-3" / "run.json").is_file()
    assert (tmp_path / "demo-3-validation" / "report.json").is_file()
    assert sorted(p.name for p in (tmp_path / "demo").iterdir()) == ["mine.txt"]
    assert (tmp_path / "demo-2").is_symlink()


def test_choosing_the_run_directory_claims_it(tmp_path: Path) -> None:
    """Two demos started together into one existing --out chose the same `OUT-2` (it was
    only looked at), and the second was refused by the first's run lock. Choosing makes it."""
    from workbench.play.demo import demo_run_dir

    (tmp_path / "demo").mkdir()
    first, second = demo_run_dir(tmp_path / "demo"), demo_run_dir(tmp_path / "demo")
    assert (first.name, second.name) == ("demo-2", "demo-3")
    assert first.is_dir() and second.is_dir() and not any(first.iterdir())
    fresh = demo_run_dir(tmp_path / "new" / "demo")
    assert fresh == tmp_path / "new" / "demo" and fresh.is_dir()


def test_a_demo_that_fails_leaves_no_directory_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claimed directory goes again when the play fails before writing anything."""
    from workbench.play import demo

    monkeypatch.setattr(demo, "DEMO_SCRIPT", tmp_path / "missing.jsonl")
    before = _entries(tmp_path)
    _one_line_error(_demo(tmp_path / "demo"))
    assert _entries(tmp_path) == before
