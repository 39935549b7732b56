"""A malformed campaign gets one `campaign DIR: FILE: field: problem` line per problem, from
every command that loads a campaign, as every other malformed file does; never more than
`LINES` lines (the last counts the rest)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from sim.campaign_load import CampaignError, load_campaign
from workbench.cli import main
from workbench.errors import UserError
from workbench.messages import LINE, LINES

NEGATIVE = {
    "opening_cash": '"-1"',
    "opening_raw_units": "-1",
    "opening_finished_units": "-1",
    "price": '"-1"',
    "rent_per_day": '"-1"',
    "equipment_capacity": "-5",
    "reorder_point": "-1",
    "reorder_quantity": "-1",
    "payroll_every_days": "-1",
    "low_cash_alert": '"-1"',
}
"""Ten fields of [company] set out of range: the audit's campaign with ten problems."""


def _cli(*args: str | Path) -> Result:
    """Run the real CLI in-process on `args`."""
    return CliRunner().invoke(main, [str(a) for a in args])


def _problem_lines(result: Result) -> list[str]:
    """The lines of a refused command's error (exit 2, no traceback), `Error: ` dropped."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    assert result.output.startswith("Error: "), result.output
    return result.output.removeprefix("Error: ").splitlines()


def _with_ten_problems(campaign: Path) -> Path:
    """`campaign` with the ten [company] fields of NEGATIVE out of range."""
    toml = campaign / "campaign.toml"
    text = toml.read_text()
    for field, value in NEGATIVE.items():
        text, found = re.subn(rf"^{field} = .*$", f"{field} = {value}", text, flags=re.M)
        assert found == 1, field
    toml.write_text(text)
    return campaign


def _assert_ten_lines(lines: list[str], campaign: Path) -> None:
    """One line per problem, each naming the folder, the file, the field and the range."""
    assert len(lines) == len(NEGATIVE), lines
    prefix = f"campaign {campaign}: campaign.toml: company."
    assert all(line.startswith(prefix) and "allowed" in line for line in lines), lines
    assert [line.removeprefix(prefix).split(":")[0] for line in lines] == list(NEGATIVE)


@pytest.mark.parametrize(
    "command",
    [
        ["check", "{campaign}"],
        ["check", "{campaign}", "--strict", "--json"],
        ["actions", "{campaign}"],
        ["run", "{campaign}", "--out", "{tmp}/run"],
        ["new", "{tmp}/copy", "--from", "{campaign}"],
        ["control", "new", "{campaign}", "--agent", "a1", "--out", "{tmp}/control.json"],
        ["play", "{campaign}"],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_every_command_that_loads_a_campaign_names_each_problem_on_its_own_line(
    campaign_copy: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    a_terminal: None,
) -> None:
    """Before, the ten problems were joined on one line and cut at 400 characters."""
    monkeypatch.chdir(tmp_path)  # `play` would claim runs/ here
    campaign = _with_ten_problems(campaign_copy)
    args = [a.format(campaign=campaign, tmp=tmp_path) for a in command]
    _assert_ten_lines(_problem_lines(_cli(*args)), campaign)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign"]


def test_verify_and_validate_name_each_problem_of_a_run_s_campaign(
    campaign_copy: Path, tmp_path: Path
) -> None:
    """A run whose campaign was broken afterwards: its loaders list every problem too."""
    run = tmp_path / "run"
    played = _cli("run", campaign_copy, "--out", run)
    assert played.exit_code == 0, played.output
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    _with_ten_problems(campaign_copy)
    campaign = campaign_copy.resolve()
    _assert_ten_lines(_problem_lines(_cli("verify", run)), campaign)
    out = tmp_path / "out"
    validated = _cli("validate", "counterfactual", "--results", run, "--out", out)
    _assert_ten_lines(_problem_lines(validated), campaign)
    assert not out.exists()
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_an_empty_campaign_file_names_each_missing_field(campaign_copy: Path) -> None:
    """Before: `campaign DIR has 7 problems: …; …` on one line."""
    (campaign_copy / "campaign.toml").write_text("")
    lines = _problem_lines(_cli("check", campaign_copy))
    prefix = f"campaign {campaign_copy}: campaign.toml: "
    fields = [line.removeprefix(prefix) for line in lines]
    assert [field.partition(": ")[0] for field in fields] == [
        name
        for name in (
            "id",
            "title",
            "start_date",
            "horizon_days",
            "company",
            "suppliers",
            "demand",
        )
    ]
    assert all(": is missing (it is required)" in field for field in fields), fields


def test_a_flood_of_problems_shows_the_first_and_counts_the_rest(campaign_copy: Path) -> None:
    """Every entry of a list is checked, so a campaign file can hold thousands of problems:
    the message stops at LINES lines, the last saying how many more there are."""
    actions = campaign_copy / "actions.toml"
    actions.write_text(actions.read_text() + "[[actions]]\nid = 1\n" * 40)
    with pytest.raises(CampaignError) as refused:
        load_campaign(campaign_copy)
    total = len(refused.value.problems)
    assert total > LINES
    lines = _problem_lines(_cli("check", campaign_copy))
    assert len(lines) == LINES
    assert all(line.startswith(f"campaign {campaign_copy}: ") for line in lines[:-1])
    assert lines[-1] == f"… and {total - (LINES - 1):,} more problems"
    assert all(len(line) <= LINE + 30 for line in lines)


def test_a_script_line_with_a_flood_of_problems_is_bounded_too(tmp_path: Path) -> None:
    """The CLI's last guard bounds any message to LINES lines, whoever made it."""
    fields = ",".join(f'"x{i}":1' for i in range(LINES + 50))
    script = tmp_path / "s.jsonl"
    script.write_text(f'{{"kind":"advance","days":1,{fields}}}\n')
    lines = _problem_lines(_cli("run", "--script", script, "--out", tmp_path / "run"))
    assert len(lines) == LINES
    assert lines[-1] == f"… and {LINES + 50 - (LINES - 1)} more lines"
    assert not (tmp_path / "run").exists()


def test_new_names_the_folder_it_was_given_not_its_staging_folder(tmp_path: Path) -> None:
    """`new /proc/x` named `/proc/.x-s53rbhpv`, the temporary folder it could not make."""
    lines = _problem_lines(_cli("new", "/proc/x"))
    assert len(lines) == 1
    assert lines[0].startswith("/proc/x: cannot create the campaign (")
    assert "/proc/." not in lines[0]


def test_new_from_a_campaign_that_would_outgrow_its_file_limit_writes_nothing(
    campaign_copy: Path, tmp_path: Path
) -> None:
    """A copy gains a header and a `#:schema` line: a campaign file just under the loader's
    1 MiB limit would become one the loader refuses (before: a traceback)."""
    toml = campaign_copy / "campaign.toml"
    text = toml.read_text()
    toml.write_text(text + "#" * (1024 * 1024 - len(text.encode()) - 1) + "\n")
    assert load_campaign(campaign_copy).id == "harbor-roasters"
    target = tmp_path / "copy"
    lines = _problem_lines(_cli("new", target, "--from", campaign_copy))
    assert len(lines) == 1
    found = re.fullmatch(
        rf"{re.escape(str(target / 'campaign.toml'))}: campaign file would be ([\d,]+) bytes, "
        r"larger than its limit of 1 MiB; nothing was written",
        lines[0],
    )
    assert found is not None, lines
    assert int(found.group(1).replace(",", "")) > 1024 * 1024
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign"]


def test_actions_prints_prerequisites_as_words() -> None:
    """Before: `prerequisites: {'completed': [], 'not_scheduled': [], ...}`."""
    result = _cli("actions")
    assert result.exit_code == 0, result.output
    assert "{'" not in result.output
    lines = result.output.splitlines()
    needs = {
        lines[i - 2].split(":")[0]: line.split("prerequisites: ", 1)[1]
        for i, line in enumerate(lines)
        if "prerequisites: " in line
    }
    assert needs["raise_price"] == "not scheduled: lower_price; free cash after ≥ $0.00"
    assert needs["second_roaster_machine"] == "free cash after ≥ $2,000.00"


def _planted(folder: Path, name: str, kind: str) -> None:
    """Put something that is not a regular file at `folder/name`."""
    path = folder / name
    path.unlink(missing_ok=True)
    if kind == "a named pipe":
        os.mkfifo(path)
    elif kind == "a device":
        path.symlink_to("/dev/zero")
    elif kind == "a directory":
        path.mkdir()
    elif kind == "a socket":
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
    else:
        assert kind == "a broken link"
        path.symlink_to(folder / "nowhere")


KINDS = ("a named pipe", "a device", "a directory", "a socket", "a broken link")


CASES = [
    *(
        ("check", name, kind)
        for name in ("actions.toml", "questions.toml", "reference.jsonl")
        for kind in KINDS
    ),
    ("new", "reference.jsonl", "a named pipe"),
    ("new", "actions.toml", "a directory"),
    ("actions", "reference.jsonl", "a named pipe"),
]


@pytest.mark.parametrize(("command", "name", "kind"), CASES)
def test_a_campaign_file_that_is_not_a_regular_file_is_named_never_waited_on(
    campaign_copy: Path, tmp_path: Path, command: str, name: str, kind: str
) -> None:
    """A campaign folder holds the author's files. A named pipe as its reference.jsonl hung
    `check` for ever (read as a script, which waits for a pipe's writer), a broken link
    there dropped the reference play without a word, and a directory as actions.toml was
    named `3: cannot access (Is a directory)`. Each is now one line naming the file and
    what it is, from every command that loads the campaign, and nothing is written."""
    _planted(campaign_copy, name, kind)
    args = {
        "check": ["check", campaign_copy, "--seeds", "0"],
        "new": ["new", tmp_path / "copy", "--from", campaign_copy],
        "actions": ["actions", campaign_copy],
    }[command]
    result = subprocess.run(
        [sys.executable, "-m", "workbench", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2, result.stderr
    expected = (
        "is a symbolic link to nothing (a broken link)"
        if kind == "a broken link"
        else (f"is {kind}")
    )
    assert result.stderr == (
        f"Error: campaign {campaign_copy}: {name}: {expected}, not a regular file\n"
    )
    assert not (tmp_path / "copy").exists()


def test_a_reference_script_swapped_for_a_pipe_after_the_load_is_refused_not_waited_on(
    campaign_copy: Path,
) -> None:
    """The reference play reads reference.jsonl after the campaign loaded: a pipe put there
    in between is refused as well (a reference script is never a stream)."""
    from workbench.inputs import read_bounded

    _planted(campaign_copy, "reference.jsonl", "a named pipe")
    with pytest.raises(UserError, match="reference script is a named pipe, not a regular file"):
        read_bounded(campaign_copy / "reference.jsonl", "reference script")
