"""Every file the workbench writes gets the mode a new file gets (the umask), not mkstemp's
0o600, and a rewritten file keeps its own; only the control file, which holds the seed,
is the owner's alone (and, of directories, a host's runs directory and a private
campaign's evaluation output: tests/host/test_operator_privacy.py)."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.file_modes import new_file_mode
from workbench.cli import main
from workbench.play.session import PlayerSession


def _files(root: Path) -> Iterator[Path]:
    return (p for p in sorted(root.rglob("*")) if p.is_file())


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_027() -> Iterator[None]:
    """A stricter umask than the usual 0o022, so that the rule, not luck, is tested."""
    import ledger.file_modes as modes

    old = os.umask(0o027)
    saved = modes._UMASK
    modes._UMASK = 0o027
    try:
        yield
    finally:
        os.umask(old)
        modes._UMASK = saved


def test_a_run_an_evaluation_and_a_batch_are_written_with_the_umask(
    demo_run: Path, tmp_path: Path, umask_027: None
) -> None:
    runner = CliRunner()
    run = tmp_path / "runs" / "played"
    shutil.copytree(demo_run, run)
    for path in _files(run):
        path.chmod(0o644)
    assert runner.invoke(main, ["run", "--out", str(tmp_path / "runs" / "fresh")]).exit_code == 0
    out = tmp_path / "out"
    result = runner.invoke(
        main, ["validate", "counterfactual", "--results", str(run), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    batch = tmp_path / "batch"
    result = runner.invoke(
        main,
        ["validate", "counterfactual", str(tmp_path / "runs"), "--all-agents", "--out", str(batch)],
    )
    assert result.exit_code in (0, 1), result.output
    expected = new_file_mode()
    assert expected == 0o640
    written = [*_files(tmp_path / "runs" / "fresh"), *_files(out), *_files(batch)]
    assert len(written) >= 8
    assert {p.name: _mode(p) for p in written} == {p.name: expected for p in written}


def test_a_rewritten_file_keeps_its_mode(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    seal = tmp_path / "run" / "seal.json"
    before = seal.read_bytes()
    seal.chmod(0o604)
    session.advance(2)
    assert seal.read_bytes() != before and _mode(seal) == 0o604


def _dirs(root: Path) -> Iterator[Path]:
    return (p for p in [root, *sorted(root.rglob("*"))] if p.is_dir())


def test_every_directory_the_workbench_makes_gets_the_umask(
    demo_run: Path, tmp_path: Path, umask_027: None
) -> None:
    """`workbench new` staged its folder with mkdtemp (0o700) and renamed it into place: a
    campaign shared with a team was its author's alone. Every directory made here gets
    what mkdir gives under the umask."""
    from ledger.file_modes import new_directory_mode

    runner = CliRunner()
    campaign = tmp_path / "shop"
    assert runner.invoke(main, ["new", str(campaign)]).exit_code == 0
    run = tmp_path / "run"
    assert runner.invoke(main, ["run", "--out", str(run)]).exit_code == 0
    out = tmp_path / "out"
    result = runner.invoke(
        main, ["validate", "counterfactual", "--results", str(demo_run), "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    made = [*_dirs(campaign), *_dirs(run), *_dirs(out)]
    assert new_directory_mode() == 0o750 and len(made) >= 4
    assert {str(p): _mode(p) for p in made} == {str(p): 0o750 for p in made}


def test_the_next_steps_of_new_can_be_pasted_into_a_shell(tmp_path: Path) -> None:
    import shlex
    import subprocess
    import sys

    campaign = tmp_path / "my shop's campaign"
    result = CliRunner().invoke(main, ["new", str(campaign)])
    assert result.exit_code == 0, result.output
    hint = result.output.strip().splitlines()[-1]
    check = hint.split("`")[1]
    assert check.startswith("workbench check ") and check.endswith(" --strict")
    words = shlex.split(check)
    assert words[2] == str(campaign)
    done = subprocess.run(
        [sys.executable, "-m", "workbench", *words[1:]], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
