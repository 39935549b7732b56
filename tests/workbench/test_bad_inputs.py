"""Bad input is refused with bounded one-line messages and changes nothing.

Unbounded streams, loosely typed script values, missing scripts, clashing command ids,
huge values and control characters: each gets exit 2, a message that names the file,
line and field without echoing the value in full, and an untouched run directory.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.cli import main
from workbench.errors import UserError
from workbench.messages import CLIP, LINE, clip
from workbench.play.session import PlayerSession
from workbench.runs.registration import AGENT_ID, AGENT_ID_RULE


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _refused(result: Result) -> list[str]:
    """The error lines of a refused command (exit 2, no traceback)."""
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    return [line for line in result.output.splitlines() if line]


def _files(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


@pytest.fixture()
def run(demo_run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(demo_run, target)
    return target


def test_an_unbounded_script_is_refused_without_reading_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lines = _refused(_cli("run", "--script", "/dev/zero", "--out", str(out)))
    assert lines == ["Error: /dev/zero: script is larger than its limit of 16 MiB"]
    assert not out.exists()


def test_an_unbounded_control_file_is_refused(tmp_path: Path) -> None:
    lines = _refused(_cli("check", "--control", "/dev/zero"))
    assert lines == ["Error: /dev/zero: control file is larger than its limit of 4 MiB"]


def test_a_missing_script_creates_no_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    lines = _refused(_cli("run", "--script", str(tmp_path / "missing.jsonl"), "--out", str(out)))
    assert lines == [f"Error: {tmp_path / 'missing.jsonl'}: script does not exist"]
    assert not out.exists()


@pytest.mark.parametrize("days", ['"3"', "true", "3.0", "null"])
def test_script_days_must_be_a_json_integer(tmp_path: Path, days: str) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(f'{{"kind":"advance","days":1}}\n{{"kind":"advance","days":{days}}}\n')
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert len(lines) == 1 and lines[0].startswith(f"Error: {script}:2: advance.days: ")
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("inside", "problem"),
    [
        ("1", "advance.pad: Extra inputs are not permitted"),
        ('{"k":1,"k":2}', "key 'k' is given twice"),
    ],
)
def test_a_script_line_nested_as_deep_as_it_parses_is_one_line(
    tmp_path: Path, inside: str, problem: str
) -> None:
    """orjson parses 1024 levels; checking the line for a repeated key recursed through
    them and the command ended in a traceback."""
    script = tmp_path / "s.jsonl"
    script.write_text(f'{{"kind":"advance","days":1,"pad":{"[" * 1000}{inside}{"]" * 1000}}}\n')
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert len(lines) == 1 and lines[0].startswith(f"Error: {script}:1: ")
    assert problem in lines[0]
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ('{"advance": 3}', "kind: Field required"),
        ('{"kind": "jump-to-day-179"}', "kind: Input should be one of: schedule, advance, "),
        ('{"kind": 5}', "kind: Input should be one of: schedule, advance, "),
        ('{"kind": null, "days": 1}', "kind: Input should be one of: schedule, advance, "),
    ],
)
def test_a_script_line_without_a_known_kind_says_which_kinds_there_are(
    tmp_path: Path, line: str, problem: str
) -> None:
    """In the script's words (`kind`), not the parser's (its discriminator), and without
    echoing what was written."""
    script = tmp_path / "s.jsonl"
    script.write_text(line + "\n")
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert len(lines) == 1 and lines[0].startswith(f"Error: {script}:1: {problem}")
    assert "discriminator" not in lines[0] and "jump" not in lines[0]
    assert lines[0].endswith("finish") or lines[0].endswith("Field required")


def test_every_problem_of_a_script_line_gets_its_own_line(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text('{"kind":"advance","days":"3","id":"","extra":1}\n')
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert len(lines) == 3
    assert all(f"{script}:1: advance." in line for line in lines)


def test_a_control_file_with_several_problems_names_each(tmp_path: Path) -> None:
    control = tmp_path / "control.json"
    control.write_text(json.dumps({"campaign_id": 1, "seed": -1, "salt": "x"}))
    lines = _refused(_cli("check", "--control", str(control)))
    fields = [line.split(f"control file {control}: ", 1)[1].split(":")[0] for line in lines]
    assert {"campaign_id", "campaign_digest", "seed", "salt", "agents"} <= set(fields)
    assert len(fields) == len(set(fields))


@pytest.mark.parametrize(
    ("first", "second", "kinds"),
    [
        (
            {"kind": "advance", "days": 3},
            {
                "kind": "submit_assessment",
                "assessment": {"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"},
            },
            ("advance", "submit_assessment"),
        ),
        (
            {"kind": "advance", "days": 3},
            {"kind": "schedule", "action": "bank_loan"},
            ("advance", "schedule"),
        ),
        (
            {"kind": "advance", "days": 3},
            {"kind": "advance", "days": 4},
            ("advance", "advance"),
        ),
    ],
)
def test_a_command_id_used_for_other_content_is_refused(
    tmp_path: Path, first: dict, second: dict, kinds: tuple[str, str]
) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(
        json.dumps({**first, "id": "same"}) + "\n" + json.dumps({**second, "id": "same"}) + "\n"
    )
    out = tmp_path / "run"
    lines = _refused(_cli("run", "--script", str(script), "--out", str(out)))
    assert lines == [
        f"Error: {script}:2: command id 'same' is already used by the {kinds[0]} at seq 1; "
        f"this {kinds[1]} is refused"
    ]
    assert not out.exists()


def test_a_retried_command_with_the_same_content_is_a_no_op(run: Path, tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "fresh")
    first = session.schedule("bank_loan", "loan-1")
    again = session.schedule("bank_loan", "loan-1")
    assert again == first and len(session.journal_entries) == 2
    with pytest.raises(UserError, match="already used by the schedule at seq 1"):
        session.advance(1, "loan-1")


def test_a_retried_advance_returns_the_day_it_reached_not_today(tmp_path: Path) -> None:
    """A retry returns what the first call returned (the host's reply does too), even
    after more days were played: it returned the run's current day instead."""
    session = PlayerSession.create(tmp_path / "fresh")
    assert session.advance(1, "adv-1") == 1
    assert session.finish() == session.horizon
    assert session.advance(1, "adv-1") == 1
    assert len(session.journal_entries) == 3


def test_a_clash_in_a_resumed_run_leaves_it_unchanged(run: Path, tmp_path: Path) -> None:
    session = PlayerSession.resume(run, read_only=True)
    used = session.journal_entries[1]
    session.close()
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"kind": "advance", "days": 1, "id": used.id}) + "\n")
    before = _files(run)
    lines = _refused(_cli("run", "--script", str(script), "--out", str(run)))
    assert f"already used by the {used.kind} at seq {used.seq}" in lines[0]
    assert _files(run) == before


def test_a_huge_value_is_not_echoed_in_full(tmp_path: Path) -> None:
    action = "x" * 100_000
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"kind": "schedule", "action": action}) + "\n")
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert len(lines) == 1 and len(lines[0]) < LINE + 100
    assert "x" * (LINE + 1) not in lines[0]


def test_a_huge_question_id_is_clipped_with_its_length(demo_run: Path, tmp_path: Path) -> None:
    question = "q" * 50_000
    out = tmp_path / "out"
    args = ["validate", "counterfactual", "--results", str(demo_run), "--out", str(out)]
    lines = _refused(_cli(*args, "--question", question))
    assert len(lines) == 1 and f"({len(question)} chars)" in lines[0]
    assert len(lines[0]) < LINE + 100
    assert not out.exists()


def test_control_characters_never_reach_the_terminal(tmp_path: Path) -> None:
    script = tmp_path / "s.jsonl"
    script.write_text(json.dumps({"kind": "schedule", "action": "\x1b[2J\x07bell"}) + "\n")
    lines = _refused(_cli("run", "--script", str(script), "--out", str(tmp_path / "run")))
    assert "\x1b" not in lines[0] and "\x07" not in lines[0]
    assert "\\x1b[2J\\x07bell" in lines[0]


def test_clip_keeps_short_values_and_cuts_long_ones() -> None:
    assert clip("abc") == "'abc'"
    long = "a" * (CLIP + 5)
    assert clip(long) == f"{'a' * CLIP!r}… ({CLIP + 5} chars)"


def test_copying_a_campaign_reads_its_reference_script_bounded(
    campaign_copy: Path, tmp_path: Path
) -> None:
    reference = campaign_copy / "reference.jsonl"
    with open(reference, "wb") as handle:
        handle.truncate(17 * 1024 * 1024)  # sparse: as large as a runaway file, instantly
    lines = _refused(_cli("new", str(tmp_path / "mine"), "--from", str(campaign_copy)))
    assert lines == [f"Error: {reference}: reference script is larger than its limit of 16 MiB"]
    assert not (tmp_path / "mine").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["verify", "{run}"],
        ["show", "{run}"],
        ["snapshot", "{run}"],
        ["ledger", "{run}"],
        ["validate", "counterfactual", "--results", "{run}", "--out", "{out}"],
        ["finish", "{run}"],
    ],
    ids=lambda c: c[0] if c[0] != "validate" else "validate",
)
def test_another_agents_run_is_a_usage_error_for_every_command(
    demo_run: Path, tmp_path: Path, command: list[str]
) -> None:
    """`--agent` names whose run is expected: a run another agent played is refused with
    one line and exit 2 by readers and writers alike, never read as theirs, never called
    an integrity failure."""
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    args = [part.format(run=run, out=tmp_path / "out") for part in command]
    result = CliRunner().invoke(main, [*args, "--agent", "someone-else"])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert errors == [f"Error: {run} was played by 'player', not 'someone-else' (--agent)"]
    assert {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()} == before


def test_a_script_line_naming_a_key_twice_is_refused_and_nothing_is_played(
    tmp_path: Path,
) -> None:
    """JSON parsers keep the last of a repeated key: `"action":"bank_loan","action":
    "hire_roaster"` scheduled hire_roaster. A command says what it means once."""
    script = tmp_path / "s.jsonl"
    script.write_text(
        '{"kind":"advance","days":1}\n'
        '{"kind":"schedule","action":"bank_loan","action":"hire_roaster"}\n'
    )
    result = CliRunner().invoke(
        main, ["run", "--out", str(tmp_path / "run"), "--script", str(script)]
    )
    assert result.exit_code == 2, result.output
    assert f"Error: {script}:2: key 'action' is given twice; give it once" in result.output
    assert not (tmp_path / "run").exists()


def test_a_run_of_another_campaign_is_named_as_such(tmp_path: Path) -> None:
    """'was played on campaign digest …, but gelato now has …' read as if gelato had been
    edited: a run of another campaign says which campaign it was played on."""
    run = tmp_path / "run"
    assert CliRunner().invoke(main, ["run", "--out", str(run)]).exit_code == 0
    result = CliRunner().invoke(main, ["run", "gelato", "--out", str(run)])
    assert result.exit_code == 2, result.output
    assert "was played on campaign 'harbor-roasters', not 'marina-gelato'" in result.output


@given(
    agent=st.text(max_size=80).filter(
        lambda a: not AGENT_ID.fullmatch(a) and "\x00" not in a and not a.startswith("-")
    )
)
@settings(max_examples=25, deadline=None)
def test_an_agent_id_outside_the_rule_is_one_line_for_a_development_run(agent: str) -> None:
    """`run --agent '=cmd|calc'` without a control file printed pydantic's traceback (exit 1)
    once the run's registration was built: any id outside the rule is refused first, in one
    line naming the flag, and no run is made."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        result = _cli("run", "--agent", agent, "--out", str(out))
        assert result.exit_code == 2, result.output
        assert _refused(result) == [
            f"Error: agent {clip(agent)}: an agent id is {AGENT_ID_RULE} (--agent)"
        ]
        assert not out.exists()


@pytest.mark.parametrize("assessment", [["q1", "3"], "q1=3", 3, None])
def test_an_assessment_that_is_not_an_object_is_refused_in_one_line(
    tmp_path: Path, assessment: object
) -> None:
    """The session's submit took any value and raised AttributeError on one that is not a
    mapping (`.get`); it is refused like any other malformed assessment."""
    session = PlayerSession.create(tmp_path / "fresh")
    result = session.submit(assessment)  # type: ignore[arg-type]
    assert len(result.errors) == 1 and "\n" not in result.errors[0]
    assert "an assessment is an object of fields" in result.errors[0]
    assert len(session.journal_entries) == 1
