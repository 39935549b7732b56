"""Every path argument and option refuses a bad value in one `Error:` line, exit 2.

A directory given where a file is wanted (`run --script /tmp`), a file, named pipe or
device where a directory is wanted, a loop of symbolic links: click's own checks printed
its three-line usage error for the first two (`Usage: …`, `Try … --help`, `Error: Invalid
value for '--script': File '/tmp' is a directory.`), and `run --out LOOP` a traceback
(pathlib's resolve). The value was a good option and the file at fault, so it is named
as every reader names a file: `PATH: is a directory, not a file (--script)`. A missing or
unreadable file is the command's reader's to name, on one line too (checked here for the
commands that play and read runs).
"""

from __future__ import annotations

import os
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from tests.test_cli_basics import _path_parameters
from workbench.cli import main
from workbench.cli.options import PathText


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _one_line(result: Result, code: int = 2) -> str:
    """The single `Error:` line of a refused command (nothing on standard output)."""
    assert result.exit_code == code, (result.exit_code, result.output)
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.stderr
    assert "Usage:" not in result.output and result.stdout == "", result.output
    return lines[0]


def parameter_words(param: click.Parameter) -> str:
    """How a message names the parameter: `--script`, or `the RUN_DIR argument`."""
    if isinstance(param, click.Option):
        return max(param.opts, key=len)
    assert param.name is not None
    return f"the {param.name.upper()} argument"


def _invocation(command: str, param: click.Parameter, value: str) -> list[str]:
    """The shortest command line that hands `value` to `param` (it is converted first:
    click converts the parameters given before reporting the ones missing)."""
    words = command.split()
    if isinstance(param, click.Option):
        return [*words, max(param.opts, key=len), value]
    return [*words, value]


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A directory, a regular file, a named pipe and a loop of symbolic links."""
    root = tmp_path_factory.mktemp("places")
    (root / "folder").mkdir()
    (root / "file.txt").write_text("x\n")
    os.mkfifo(root / "pipe")
    (root / "loop").symlink_to("loop")
    return {
        "folder": root / "folder",
        "file": root / "file.txt",
        "pipe": root / "pipe",
        "loop": root / "loop",
    }


PARAMETERS = [(command, name, param) for command, name, param in _path_parameters()]


@pytest.mark.parametrize(
    ("command", "param"),
    [(command, param) for command, _, param in PARAMETERS],
    ids=[f"{command}:{name}" for command, name, _ in PARAMETERS],
)
def test_a_path_of_the_wrong_kind_is_one_line_naming_the_path_and_the_parameter(
    command: str, param: click.Parameter, places: dict[str, Path]
) -> None:
    assert isinstance(param.type, PathText)
    wrong = []
    if not param.type.dir_okay:
        wrong.append((places["folder"], "is a directory, not a file"))
    if not param.type.file_okay:
        wrong.append((places["file"], "is a file, not a directory"))
        wrong.append((places["pipe"], "is a named pipe, not a directory"))
    wrong.append((places["loop"], "cannot access (Too many levels of symbolic links)"))
    for path, says in wrong:
        line = _one_line(_cli(*_invocation(command, param, str(path))))
        assert line == f"Error: {path}: {says} ({parameter_words(param)})", line


def test_the_script_that_is_a_directory_names_the_flag(tmp_path: Path) -> None:
    """The reported case: `workbench run --script /tmp --out RUN` (nothing is created)."""
    line = _one_line(_cli("run", "--script", str(tmp_path), "--out", str(tmp_path / "run")))
    assert line == f"Error: {tmp_path}: is a directory, not a file (--script)"
    assert not (tmp_path / "run").exists()


def test_a_symbolic_link_loop_as_a_new_run_is_no_traceback(tmp_path: Path) -> None:
    """`run --out LOOP` raised pathlib's RuntimeError (resolving the loop) as a traceback."""
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    line = _one_line(_cli("run", "--out", str(loop)))
    assert "Too many levels of symbolic links" in line and "(--out)" in line
    assert loop.is_symlink() and sorted(os.listdir(tmp_path)) == ["loop"]


@pytest.mark.parametrize(
    "param", [param for _, _, param in PARAMETERS], ids=[f"{c}:{n}" for c, n, _ in PARAMETERS]
)
def test_an_empty_path_is_one_line_too(param: click.Parameter) -> None:
    command = next(c for c, _, p in PARAMETERS if p is param)
    line = _one_line(_cli(*_invocation(command, param, "")))
    assert line == f"Error: an empty path names nothing ({parameter_words(param)})", line


def _reads(run: Path, new: Path) -> dict[str, list[str]]:
    """Command lines of the run lifecycle with `{}` where a user's file goes."""
    return {
        "run --script": ["run", "--script", "{}", "--out", str(new)],
        "run --control": ["run", "--control", "{}", "--out", str(new)],
        "finish --control": ["finish", str(run), "--control", "{}"],
        "verify --control": ["verify", str(run), "--control", "{}"],
        "show --control": ["show", str(run), "--control", "{}"],
    }


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("{tmp}/missing", "does not exist"),
        ("{tmp}/no/such/folder/file", "does not exist"),
        ("/proc/self/mem", "(Input/output error)"),
    ],
    ids=["missing", "missing-folder", "unreadable"],
)
def test_a_missing_or_unreadable_file_of_the_run_lifecycle_is_one_line(
    demo_run: Path, tmp_path: Path, value: str, says: str
) -> None:
    """A file whose read fails (as root no mode stops a read; /proc/self/mem's does, with
    EIO) or that is not there: one line naming it, exit 2, no run created."""
    path = value.format(tmp=tmp_path)
    for name, args in _reads(demo_run, tmp_path / "new").items():
        line = _one_line(_cli(*[path if a == "{}" else a for a in args]))
        assert path in line and says in line, (name, line)
    assert not (tmp_path / "new").exists()


@pytest.mark.parametrize("command", ["play", "serve"])
@pytest.mark.parametrize("words", [["--run"], []], ids=["--run", "CAMPAIGN"])
def test_the_dashboard_names_a_file_given_for_its_run_or_campaign_folder(
    command: str, words: list[str], places: dict[str, Path]
) -> None:
    """`play --run FILE` opened the app and ended it with `FILE exists and is not a
    directory`, and `serve --run FILE` said the same before serving: neither named the
    option, as the README promises every path parameter does (`serve FILE` called the
    file not a campaign folder, `play FILE` needed a terminal first). Refused before the
    app or the server starts, naming the parameter, with no terminal needed."""
    path = places["file"]
    line = _one_line(_cli(command, *words, str(path)))
    named = "--run" if words else "the CAMPAIGN argument"
    assert line == f"Error: {path}: is a file, not a directory ({named})", line


def _directory_readers(missing: str, out: str) -> dict[str, list[str]]:
    """Command lines that read an existing directory, with `missing` given for it."""
    return {
        "verify": ["verify", missing],
        "show": ["show", missing],
        "ledger": ["ledger", missing],
        "snapshot": ["snapshot", missing],
        "finish": ["finish", missing],
        "validate --results": ["validate", "counterfactual", "--results", missing, "--out", out],
        "validate --all-agents": ["validate", "counterfactual", missing, "--all-agents"]
        + ["--out", out],
        "verify-report": ["verify-report", missing],
        "check": ["check", missing],
        "run": ["run", missing, "--out", out],
        "actions": ["actions", missing],
        "control new": ["control", "new", missing, "--agent", "a", "--out", out + ".json"],
    }


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("{tmp}/missing", "does not exist"),
        ("{tmp}/file.txt/below", "does not exist (a folder on its way is a file)"),
        ("{tmp}/dangling", "is a link to nothing"),
    ],
    ids=["missing", "below-a-file", "dangling-link"],
)
def test_a_directory_to_read_that_is_not_there_is_named_missing(
    tmp_path: Path, value: str, says: str
) -> None:
    """`verify-report nosuch` said `nosuch is not a directory`, `verify nosuch` that it was
    not a run directory and `check nosuch` not a campaign folder: each sent a user who had
    mistyped a name looking for a file there. Every reader of a directory now says it does
    not exist, and writes nothing."""
    (tmp_path / "file.txt").write_text("x\n")
    (tmp_path / "dangling").symlink_to(tmp_path / "gone")
    path = value.format(tmp=tmp_path)
    before = sorted(os.listdir(tmp_path))
    for name, args in _directory_readers(path, str(tmp_path / "out")).items():
        line = _one_line(_cli(*args))
        assert path in line and line.endswith(says), (name, line)
    assert sorted(os.listdir(tmp_path)) == before


def test_a_directory_to_read_that_holds_no_run_says_so(tmp_path: Path) -> None:
    """An existing directory without run.json is still named as not a run directory."""
    empty = tmp_path / "empty"
    empty.mkdir()
    readers = _directory_readers(str(empty), str(tmp_path / "out"))
    for name in ("verify", "show", "ledger", "snapshot", "finish", "validate --results"):
        line = _one_line(_cli(*readers[name]))
        assert line == f"Error: {empty} is not a run directory (no run.json)", (name, line)
    assert sorted(os.listdir(tmp_path)) == ["empty"] and not os.listdir(empty)


def test_runs_dir_without_a_control_file_says_what_was_given(
    demo_run: Path, tmp_path: Path
) -> None:
    """`validate counterfactual PATH --out OUT` without --control named the private form
    whatever PATH was: a missing folder, or a development run (whose form is --results),
    each now said as such; a folder of runs still names the private form."""
    out = str(tmp_path / "out")
    missing = tmp_path / "nosuch"
    line = _one_line(_cli("validate", "counterfactual", str(missing), "--out", out))
    assert line == f"Error: {missing} does not exist"
    line = _one_line(_cli("validate", "counterfactual", str(demo_run), "--out", out))
    assert f"is a run: a development run is validated with --results {demo_run}" in line
    line = _one_line(_cli("validate", "counterfactual", str(tmp_path), "--out", out))
    assert line.endswith("it needs --control and --agent (or --all-agents)")
    assert not (tmp_path / "out").exists()
