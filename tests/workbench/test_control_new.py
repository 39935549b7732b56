"""`workbench control new`: a control file its readers can read, never in a run directory.

The workbench never writes a file larger than the limit its readers apply, and a file it
writes for a user never lands in a run directory (the control file holds the seed and
salt): both are refused with one line, exit 2, before anything is written.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from tests.workbench.conftest import make_private
from workbench.cli import main
from workbench.inputs import LIMITS
from workbench.runs.registration import MAX_AGENTS, load_control


def _cli(*args: str | Path) -> Result:
    """Run the real CLI in-process on `args`."""
    return CliRunner().invoke(main, [str(a) for a in args])


def _error_lines(result: Result) -> list[str]:
    """The error lines of a refused command (exit 2, no traceback, no token printed)."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output and "cfwb-agent-" not in result.output
    return result.output.splitlines()


def _control_new(campaign: Path, out: Path, agents: list[str]) -> Result:
    """`workbench control new CAMPAIGN --agent A... --out OUT`."""
    return _cli(
        "control", "new", campaign, *[a for x in agents for a in ("--agent", x)], "--out", out
    )


@pytest.fixture()
def campaign(campaign_copy: Path) -> Path:
    """A private copy of the default campaign."""
    return make_private(campaign_copy)


def test_the_most_agents_with_the_longest_ids_fit_and_are_read_back(
    campaign: Path, tmp_path: Path
) -> None:
    """Before: the read limit (64 KiB) fit about 740 agents while a control file may
    register 10,000; 800 agents were refused. Now the limit fits the model's largest file,
    and the agents come from a file as a command line of 10,000 options would not."""
    agents = [f"{i:05d}-" + "x" * 58 for i in range(MAX_AGENTS)]
    listing = tmp_path / "agents.txt"
    listing.write_text("# every agent of the evaluation\n\n" + "\n".join(agents) + "\n")
    out = tmp_path / "control.json"
    made = _cli("control", "new", campaign, "--agents-file", listing, "--out", out)
    assert made.exit_code == 0, made.output[-500:]
    assert len(made.stdout.splitlines()) == MAX_AGENTS
    assert out.stat().st_size <= LIMITS["control file"]
    assert load_control(out).agents == tuple(agents)  # what every later command reads


def test_one_agent_more_than_a_control_file_registers_is_one_line(
    campaign: Path, tmp_path: Path
) -> None:
    listing = tmp_path / "agents.txt"
    listing.write_text("\n".join(f"a{i}" for i in range(MAX_AGENTS)))
    out = tmp_path / "control.json"
    lines = _error_lines(
        _cli("control", "new", campaign, "--agent", "extra", "--agents-file", listing, "--out", out)
    )
    assert lines == ["Error: a control file registers at most 10,000 agents, not 10,001"]
    assert not out.exists()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("alpha\n-bad\nbravo\n", "agents.txt line 2: '-bad' is not an agent id"),
        ("# nobody\n\n", "agents.txt: agent list names no agent"),
        ("alpha\n\xff\n", "agents.txt: agent list is not UTF-8 text (byte 6)"),
    ],
)
def test_a_bad_agent_list_is_named_by_its_line(
    campaign: Path, tmp_path: Path, text: str, error: str
) -> None:
    listing = tmp_path / "agents.txt"
    listing.write_bytes(text.encode("latin-1"))
    out = tmp_path / "control.json"
    lines = _error_lines(_cli("control", "new", campaign, "--agents-file", listing, "--out", out))
    assert len(lines) == 1 and error in lines[0], lines
    assert not out.exists()


def test_an_agent_list_with_a_byte_order_mark_and_crlf_reads_as_written(
    campaign: Path, tmp_path: Path
) -> None:
    listing = tmp_path / "agents.txt"
    listing.write_bytes("\ufeffalpha\r\nbravo\r\n".encode())
    out = tmp_path / "control.json"
    made = _cli("control", "new", campaign, "--agents-file", listing, "--out", out)
    assert made.exit_code == 0, made.output
    assert load_control(out).agents == ("alpha", "bravo")


def test_no_agent_at_all_is_one_line(campaign: Path, tmp_path: Path) -> None:
    lines = _error_lines(_cli("control", "new", campaign, "--out", tmp_path / "c.json"))
    assert lines == ["Error: name the agents: --agent ID (repeat) or --agents-file FILE"]


@pytest.mark.parametrize("where", ["run", "run/inner", "link-to-run"])
def test_a_control_file_is_never_written_into_a_run_directory(
    campaign: Path, tmp_path: Path, demo_run: Path, where: str
) -> None:
    """Before: `--out RUN/ctl.json` put the seed and salt in the run without complaint."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    (run / "inner").mkdir()
    (tmp_path / "link-to-run").symlink_to(run)
    before = sorted(p.relative_to(run) for p in run.rglob("*"))
    out = tmp_path / where / "ctl.json"
    lines = _error_lines(_control_new(campaign, out, ["a1"]))
    assert len(lines) == 1
    assert lines[0].startswith(f"Error: control file {out}: ")
    assert lines[0].endswith(
        "is a run directory; a control file never stays with a run (it holds the seed and salt)"
    )
    assert sorted(p.relative_to(run) for p in run.rglob("*")) == before


def test_ledger_out_is_refused_below_a_run_directory_too(demo_run: Path, tmp_path: Path) -> None:
    """The same rule for every file written for a user: a folder inside a run is the run."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    (run / "exports").mkdir()
    out = run / "exports" / "ledger.csv"
    lines = _error_lines(_cli("ledger", run, "--format", "csv", "--out", out))
    assert lines == [
        f"Error: output file {out}: {run} is a run directory; exports are never written into a run"
    ]
    assert not out.exists()


def test_a_control_file_is_its_owner_s_alone_whole_and_never_overwritten(
    campaign: Path, tmp_path: Path
) -> None:
    """Written through a temporary sibling now, it keeps mode 0600 and leaves nothing else."""
    out = tmp_path / "keys" / "control.json"
    out.parent.mkdir()
    made = _control_new(campaign, out, ["a1", "a2"])
    assert made.exit_code == 0, made.output
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert [p.name for p in out.parent.iterdir()] == ["control.json"]
    before = out.read_bytes()
    lines = _error_lines(_control_new(campaign, out, ["a3"]))
    assert lines == [f"Error: {out} exists: a control file is never overwritten"]
    assert out.read_bytes() == before


@pytest.mark.parametrize(
    ("agents", "bad"),
    [([""], [""]), (["ok", "b b", "-x", "x" * 65], ["b b", "-x", "x" * 65])],
)
def test_each_malformed_agent_id_gets_one_line(
    campaign: Path, tmp_path: Path, agents: list[str], bad: list[str]
) -> None:
    """Before: `--agent ''` also printed `agents: Tuple should have at least 1 item`."""
    out = tmp_path / "control.json"
    lines = _error_lines(_control_new(campaign, out, agents))
    rule = (
        "an agent id is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit"
    )
    expected = [f"agent {a!r}: {rule}" for a in bad]
    expected[0] = f"Error: {expected[0]}"
    expected[-1] += " (--agent)"
    assert lines == expected
    assert not out.exists()


@pytest.mark.parametrize("where", ["control.json", "sub/control.json"])
def test_a_control_file_is_never_written_into_a_campaign_folder(
    campaign: Path, tmp_path: Path, where: str
) -> None:
    """Before: `--out CAMPAIGN/control.json` put the seed and salt beside the TOML files an
    author commits and hands out."""
    (campaign / "sub").mkdir()
    out = campaign / where
    lines = _error_lines(_cli("control", "new", campaign, "--agent", "a", "--out", out))
    assert len(lines) == 1 and f"{campaign} is a campaign folder" in lines[0], lines
    assert not out.exists()
