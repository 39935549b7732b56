"""One error hierarchy: one-line messages, lower-layer errors wrapped, flags only in the CLI."""

from __future__ import annotations

import ast
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App

from workbench import exit_codes
from workbench.cli import FLAGS, main
from workbench.errors import IntegrityError, UserError, WorkbenchError, one_line, reraised
from workbench.messages import single_line
from workbench.tui.errors import guarded

ROOT = Path(__file__).resolve().parents[2]
CORE = [
    path
    for package in ("ledger", "sim", "graders", "workbench")
    for path in (ROOT / package).rglob("*.py")
    if not path.is_relative_to(ROOT / "workbench" / "cli")
]


def _raised_texts(tree: ast.AST) -> list[tuple[int, str]]:
    """The string parts of every `raise X(...)` message in a module."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                for part in ast.walk(arg):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        found.append((node.lineno, part.value))
    return found


@pytest.mark.parametrize("path", CORE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_core_message_names_a_cli_flag(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for line, text in _raised_texts(tree):
        words = text.replace("(", " ").split()
        assert not any(w.startswith("--") and w[2:3].isalpha() for w in words), (line, text)


@given(st.text())
def test_one_line_never_keeps_a_line_break(text: str) -> None:
    assert "\n" not in one_line(text) and "\r" not in one_line(text)


def test_reraised_turns_a_lower_error_into_one_line_of_the_given_kind() -> None:
    with pytest.raises(IntegrityError) as caught, reraised(IntegrityError, ValueError, where="x"):
        raise ValueError("2 problems:\n  - first\n  - second")
    assert caught.value.message == "x: 2 problems: first; second"
    assert caught.value.exit_code == exit_codes.INTEGRITY
    with pytest.raises(KeyError), reraised(UserError, ValueError):
        raise KeyError("a bug is not translated")


def test_bad_campaign_is_one_line_naming_folder_and_field(campaign_copy: Path) -> None:
    toml = campaign_copy / "campaign.toml"
    toml.write_text(toml.read_text().replace("horizon_days = 180", 'horizon_days = "long"'))
    result = CliRunner().invoke(main, ["actions", str(campaign_copy)])
    assert result.exit_code == exit_codes.USAGE
    assert result.output.count("\n") == 1
    assert result.output.startswith(f"Error: campaign {campaign_copy}: campaign.toml: horizon_days")


def _with_two_problems(campaign: Path) -> Result:
    """`workbench actions CAMPAIGN` once its campaign.toml has two bad fields."""
    toml = campaign / "campaign.toml"
    text = toml.read_text().replace("horizon_days = 180", 'horizon_days = "long"')
    toml.write_text(text.replace('visibility = "development"', 'visibility = "secret"'))
    return CliRunner().invoke(main, ["actions", str(campaign)])


def test_each_campaign_problem_gets_its_own_line(campaign_copy: Path) -> None:
    result = _with_two_problems(campaign_copy)
    assert result.exit_code == exit_codes.USAGE
    lines = result.output.removeprefix("Error: ").splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"campaign {campaign_copy}: campaign.toml: ") for line in lines)
    assert {line.split(": ")[2] for line in lines} == {"visibility", "horizon_days"}


def test_the_cli_adds_the_flag_of_the_subject(demo_run: Path, tmp_path: Path) -> None:
    args = ["validate", "counterfactual", "--results", str(demo_run), "--out", str(tmp_path)]
    result = CliRunner().invoke(main, [*args, "--workers", "0"])
    assert result.exit_code == exit_codes.USAGE
    assert result.output == "Error: workers must be between 1 and 256, not 0 (--workers)\n"
    assert all(flag == f"--{subject}" for subject, flag in FLAGS.items())


async def test_the_tui_shows_workbench_errors_and_lets_bugs_crash() -> None:
    app: App[None] = App()
    async with app.run_test():

        def refuse() -> None:
            raise UserError("no such day")

        def bug() -> None:
            raise KeyError("bug")

        assert guarded(app, refuse) is None
        with pytest.raises(KeyError):
            guarded(app, bug)
    assert issubclass(UserError, WorkbenchError)


NAMES = st.text(
    st.characters(exclude_characters="\x00/", exclude_categories=("Cs",)), min_size=1, max_size=40
).filter(lambda name: name not in (".", ".."))
"""A name a user may type: any character a command line carries (not NUL) and a file name
takes (not `/`), newlines, carriage returns, escapes and separators included."""


def _one_line(result: Result) -> str:
    """The refused command's whole standard error: exactly one printable `Error:` line."""
    assert result.exit_code == exit_codes.USAGE, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    line, end, rest = result.stderr.partition("\n")
    assert end and not rest, result.stderr
    assert line.startswith("Error: ") and line.isprintable(), line
    return line


@settings(max_examples=60, deadline=None)
@given(name=NAMES)
def test_a_path_with_any_characters_leaves_the_error_on_one_line(name: str) -> None:
    """A newline in a typed path (`verify $'/tmp/a\\nb'`) split `Error:` over two lines:
    control characters were escaped, but newlines were kept as the message's own line breaks.
    Whatever a path holds, each command's error is one line naming it."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        missing = str(root / "missing" / name)
        out = str(root / "out")
        commands = [
            ["verify", "--", missing],
            ["vc", "grade", "--", missing],
            ["validate", "counterfactual", "--results", missing, "--out", out],
            ["ledger", "--format", "csv", "--", missing],
        ]
        for args in commands:
            line = _one_line(CliRunner().invoke(main, args))
            assert single_line(name)[:20] in line, (args, line)
        present = root / name
        present.mkdir()
        line = _one_line(CliRunner().invoke(main, ["verify", "--", str(present)]))
        assert line.endswith("is not a run directory (no run.json)"), line
        graded = root / f"{name}.jsonl"
        graded.write_text("[1]\n")
        line = _one_line(CliRunner().invoke(main, ["vc", "grade", "--", str(graded)]))
        assert line.endswith(":1: expected a JSON object"), line


def test_a_path_with_a_newline_is_one_line_from_the_real_command(tmp_path: Path) -> None:
    typed = tmp_path / "a\nb\rc"
    for args in (["verify", str(typed)], ["vc", "grade", str(typed)]):
        done = subprocess.run(
            [sys.executable, "-m", "workbench", *args], capture_output=True, timeout=120
        )
        assert done.returncode == exit_codes.USAGE
        assert done.stderr.count(b"\n") == 1 and b"\r" not in done.stderr, done.stderr
        assert b"a\\nb\\rc" in done.stderr


def test_each_problem_keeps_its_own_line_when_a_value_holds_a_newline(
    campaign_copy: Path,
) -> None:
    """Escaping a value's newlines keeps the message's own: two problems of a campaign whose
    folder name holds a newline are two lines, each naming the folder escaped."""
    folder = campaign_copy.with_name("new\nfolder")
    campaign_copy.rename(folder)
    result = _with_two_problems(folder)
    assert result.exit_code == exit_codes.USAGE
    lines = result.stderr.removeprefix("Error: ").splitlines()
    assert len(lines) == 2, result.stderr
    shown = str(folder).replace("\n", "\\n")
    assert all(line.startswith(f"campaign {shown}: campaign.toml: ") for line in lines), lines
