"""Batch validation (`validate counterfactual RUNS_DIR --all-agents`) on the local executor."""

from __future__ import annotations

import csv
import io
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import time
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from graders import counterfactual as cf
from tests.workbench.batch_runs import play_short, tree
from tests.workbench.conftest import Private, cli_as_a_user, control_new
from workbench import exit_codes
from workbench.cli import main
from workbench.evaluation.batch import validate_runs
from workbench.evaluation.evaluator import run_evaluation
from workbench.evaluation.executors import ExecutorSpec
from workbench.evaluation.leaderboard import bootstrap_interval, rank_key
from workbench.play.session import PlayerSession
from workbench.runs.commands import MAX_MAGNITUDE
from workbench.runs.registration import load_control

AGENTS = ("ada", "bob", "ada", "cyd")
WIDE = Context(prec=200, Emax=MAX_EMAX, Emin=MIN_EMIN)
"""A decimal context that rounds no score."""


@pytest.fixture(scope="module")
def runs_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Four finished development runs of three agents."""
    root = tmp_path_factory.mktemp("batch") / "runs"
    for i, agent in enumerate(AGENTS):
        play_short(root / f"run-{i}", agent, seed=i)
    return root


def _validate(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["validate", "counterfactual", *args])
    return result.exit_code, result.stdout, result.stderr


def _csv(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text())))


def test_each_report_is_the_single_validation_byte_for_byte(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, stdout, _ = _validate(str(runs_dir), "--all-agents", "--out", str(out))
    assert code in (0, 1), stdout
    for run in sorted(runs_dir.iterdir()):
        single = tmp_path / f"single-{run.name}"
        outcome = run_evaluation(run, single)
        assert tree(out / "reports" / run.name) == tree(single), run.name
        assert f"  {run.name} (" in stdout
    rows = [line for line in stdout.splitlines() if line.startswith("  run-")]
    assert len(rows) == len(AGENTS)
    for row in rows:
        assert re.fullmatch(
            r"  run-\d \(\w+\): scored \d+/\d+, mean score (-?[\d,]+(\.\d{1,3})?|-); "
            r"conclusions met \d+/\d+",
            row,
        ), row
    assert code == (0 if all(_passed(out / "reports" / r.name) for r in runs_dir.iterdir()) else 1)
    assert outcome.report_path is not None


def _passed(folder: Path) -> bool:
    import orjson

    summary = orjson.loads((folder / "report.json").read_bytes())["summary"]
    return bool(summary["all_scored"] and summary["all_conclusions_met"])


def test_worker_counts_give_identical_outputs(runs_dir: Path, tmp_path: Path) -> None:
    trees = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        validate_runs(runs_dir, out, executor=ExecutorSpec("local", workers=workers))
        trees.append(tree(out))
    assert trees[0] == trees[1]
    assert set(trees[0]) >= {"leaderboard.csv", "runs.csv", "reports/run-0/report.json"}


def test_leaderboard_rows_per_agent(runs_dir: Path, tmp_path: Path) -> None:
    outcome = validate_runs(runs_dir, tmp_path / "out")
    board = _csv(outcome.leaderboard_path)
    assert [row["agent"] for row in board] == list(outcome.table["agent"])
    assert sorted(row["agent"] for row in board) == ["ada", "bob", "cyd"]
    ada = next(row for row in board if row["agent"] == "ada")
    assert ada["runs"] == ada["runs_evaluated"] == "2"
    scores = [
        Decimal(q.score)
        for row in outcome.rows
        if row.agent == "ada" and row.report is not None
        for q in row.report.questions
        if q.score is not None
    ]
    assert int(ada["scored"]) == len(scores)
    mean = sum(scores, Decimal(0)) / len(scores)
    assert abs(Decimal(ada["mean_score"]) - mean) <= Decimal("0.0000005")
    assert Decimal(ada["ci95_low"]) <= Decimal(ada["mean_score"]) <= Decimal(ada["ci95_high"])
    keys = [
        (-Fraction(int(row["scored"]), int(row["questions"])), -Decimal(row["mean_score"]))
        for row in board
    ]
    assert keys == sorted(keys)
    assert [row["rank"] for row in board] == ["1", "2", "3"]


def test_answering_only_some_questions_never_outranks_answering_all(tmp_path: Path) -> None:
    """Ranking by the mean over scored questions alone would put an agent that answers one
    question (loss small) above one that answers every question badly: the share scored
    comes first."""
    runs = tmp_path / "runs"
    picky = PlayerSession.create(runs / "run-picky", agent_id="picky", autoseal=False)
    first = next(iter(picky.bundle.questions.values()))
    assert picky.submit({"kind": "counterfactual", "question": first.id, "value": "0"}).accepted
    picky.finish()
    picky.seal()
    full = PlayerSession.create(runs / "run-full", agent_id="full", autoseal=False)
    for question in full.bundle.questions.values():
        assessment: dict[str, object] = {
            "kind": "counterfactual",
            "question": question.id,
            "value": "-9000000",
        }
        if question.intervention.participant_selected:
            assessment["choice"] = sorted(question.intervention.select_from)[0]
        assert full.submit(assessment).accepted
    full.finish()
    full.seal()
    board = {
        row["agent"]: row for row in _csv(validate_runs(runs, tmp_path / "out").leaderboard_path)
    }
    assert Decimal(board["picky"]["mean_score"]) > Decimal(board["full"]["mean_score"])
    assert int(board["picky"]["scored"]) < int(board["full"]["scored"])
    assert (board["full"]["rank"], board["picky"]["rank"]) == ("1", "2")


@given(
    st.lists(
        st.tuples(
            st.integers(1, 30),
            st.integers(0, 30),
            st.decimals(-1000, 0, places=3, allow_nan=False),
        ),
        min_size=2,
        max_size=8,
    )
)
def test_a_larger_share_scored_always_ranks_higher(agents: list[tuple[int, int, Decimal]]) -> None:
    rows = [
        (f"agent-{i}", questions, min(scored, questions), mean if scored else None)
        for i, (questions, scored, mean) in enumerate(agents)
    ]
    order = sorted(rows, key=lambda row: rank_key(*row))
    for better, worse in zip(order, order[1:], strict=False):
        if worse[3] is None:
            continue
        assert better[3] is not None
        share = (Fraction(better[2], better[1]), Fraction(worse[2], worse[1]))
        assert share[0] >= share[1]
        if share[0] == share[1]:
            assert better[3] >= worse[3]


def _score_everything(session: PlayerSession, value: str) -> None:
    """Submit `value` for every question of `session`'s campaign, then finish and seal."""
    for question in session.bundle.questions.values():
        assessment: dict[str, object] = {
            "kind": "counterfactual",
            "question": question.id,
            "value": value,
        }
        if question.intervention.participant_selected:
            assessment["choice"] = sorted(question.intervention.select_from)[0]
        assert session.submit(assessment).accepted
    session.finish()
    session.seal()


@pytest.mark.parametrize("value", [str(MAX_MAGNITUDE), str(-MAX_MAGNITUDE)])
def test_the_largest_accepted_submission_still_makes_a_leaderboard(
    runs_dir: Path, tmp_path: Path, value: str
) -> None:
    """A submission at the accepted limit scores about -4e24: the leaderboard and runs.csv
    print it to six places (it was an InvalidOperation traceback, and nobody's leaderboard)."""
    runs = tmp_path / "runs"
    shutil.copytree(runs_dir / "run-0", runs / "run-0")
    _score_everything(PlayerSession.create(runs / "huge", agent_id="huge", autoseal=False), value)
    out = tmp_path / "out"
    code, stdout, stderr = _validate(str(runs), "--all-agents", "--out", str(out))
    assert code in (0, 1) and "Traceback" not in stdout + stderr, stdout + stderr
    scores = [
        Decimal(q["score"])
        for q in orjson.loads((out / "reports" / "huge" / "report.json").read_bytes())["questions"]
        if q["score"] is not None
    ]
    assert scores and min(scores) < Decimal("-1e22")
    board = {row["agent"]: row for row in _csv(out / "leaderboard.csv")}
    mean = sum(scores, Decimal(0)) / len(scores)
    assert abs(Decimal(board["huge"]["mean_score"]) - mean) <= abs(mean) * Decimal("1e-27")
    assert re.fullmatch(r"-\d{20,}\.\d{6}", board["huge"]["mean_score"])
    assert re.fullmatch(r"-\d{20,}\.\d{6}", board["huge"]["ci95_low"])
    runs_rows = {row["run"]: row for row in _csv(out / "runs.csv")}
    assert runs_rows["huge"]["mean_score"].endswith(board["huge"]["mean_score"][-7:])


def test_unfinished_and_tampered_runs_fail_alone(runs_dir: Path, tmp_path: Path) -> None:
    """An unfinished run is skipped (exit 1); a tampered one fails integrity (exit 3)."""
    mixed = tmp_path / "runs"
    shutil.copytree(runs_dir, mixed)
    play_short(mixed / "run-open", "bob", seed=9, finish=False)
    code, _, stderr = _validate(str(mixed), "--all-agents", "--out", str(tmp_path / "a"))
    assert code == 1
    assert "run-open: skipped:" in stderr and "is not finished" in stderr
    assert not (tmp_path / "a" / "reports" / "run-open").exists()
    assert (tmp_path / "a" / "leaderboard.csv").exists()

    journal = mixed / "run-1" / "journal.jsonl"
    journal.write_text(journal.read_text().replace('"value":"', '"value":"1', 1))
    code, stdout, stderr = _validate(str(mixed), "--all-agents", "--out", str(tmp_path / "b"))
    assert code == 3, stdout + stderr
    assert "run-1: integrity failure, nothing scored:" in stderr
    assert not (tmp_path / "b" / "reports" / "run-1").exists()
    for name in ("run-0", "run-2", "run-3"):
        assert tree(tmp_path / "b" / "reports" / name) == tree(tmp_path / "a" / "reports" / name)
    rows = {row["run"]: row for row in _csv(tmp_path / "b" / "runs.csv")}
    assert rows["run-1"]["status"] == "integrity" and rows["run-1"]["report"] == ""
    assert rows["run-open"]["status"] == "refused"
    assert rows["run-0"]["report"] == "reports/run-0/report.json"


@pytest.mark.parametrize("damage", ["device", "named pipe", "directory", "too large", "not JSON"])
def test_a_run_json_that_cannot_be_read_fails_its_run_alone(
    runs_dir: Path, tmp_path: Path, damage: str
) -> None:
    """Whatever stands in a run's run.json, the batch names that run and evaluates the rest:
    unreadable (a device, a pipe, a directory, over its limit) is refused, exit 1; readable
    but not a registration is an integrity failure, exit 3."""
    mixed = tmp_path / "runs"
    shutil.copytree(runs_dir, mixed)
    registration = mixed / "run-2" / "run.json"
    registration.unlink()
    if damage == "device":
        registration.symlink_to("/dev/zero")
    elif damage == "named pipe":
        os.mkfifo(registration)
    elif damage == "directory":
        registration.mkdir()
    elif damage == "too large":
        registration.write_bytes(b" " * (64 * 1024 + 1))
    else:
        registration.write_bytes(b"garbage\n")
    out = tmp_path / "out"
    code, stdout, stderr = _validate(str(mixed), "--all-agents", "--out", str(out))
    status = "integrity" if damage == "not JSON" else "refused"
    assert code == (3 if status == "integrity" else 1), stdout + stderr
    assert "Traceback" not in stdout + stderr
    rows = {row["run"]: row for row in _csv(out / "runs.csv")}
    assert rows["run-2"]["status"] == status and str(registration) in rows["run-2"]["reason"]
    assert [rows[f"run-{i}"]["status"] for i in (0, 1, 3)] == ["evaluated"] * 3
    assert (out / "leaderboard.csv").exists()


def test_a_run_that_lost_its_run_json_is_named_not_dropped(runs_dir: Path, tmp_path: Path) -> None:
    """A run directory whose run.json is gone (or a link to nothing) still holds the run's
    files: it is named and skipped, exit 1 (it vanished from the batch without a word, and
    the exit code could be 0). A directory of anything else stays out, silently."""
    mixed = tmp_path / "runs"
    shutil.copytree(runs_dir, mixed)
    (mixed / "run-1" / "run.json").unlink()
    (mixed / "run-2" / "run.json").unlink()
    (mixed / "run-2" / "run.json").symlink_to(tmp_path / "nowhere")
    (mixed / "notes").mkdir()
    (mixed / "notes" / "todo.txt").write_text("not a run\n")
    out = tmp_path / "out"
    code, stdout, stderr = _validate(str(mixed), "--all-agents", "--out", str(out))
    assert code == 1, stdout + stderr
    rows = {row["run"]: row for row in _csv(out / "runs.csv")}
    assert rows["run-1"]["status"] == rows["run-2"]["status"] == "refused"
    assert rows["run-1"]["reason"] == (
        f"{mixed / 'run-1' / 'run.json'} is missing, though its journal.jsonl is there"
    )
    assert rows["run-2"]["reason"] == f"{mixed / 'run-2' / 'run.json'} is a link to nothing"
    assert "run-1: skipped: " in stderr and "run-2: skipped: " in stderr
    assert "notes" not in rows and "notes" not in stdout + stderr
    assert [rows[f"run-{i}"]["status"] for i in (0, 3)] == ["evaluated"] * 2


def test_links_to_one_run_count_it_once(runs_dir: Path, tmp_path: Path) -> None:
    """Symbolic links beside a run (`latest -> run-1`) or two links to one run elsewhere:
    the run counts once, under its own name when RUNS_DIR holds it (the links pooled its
    questions twice and more): the leaderboard is the one without the links."""
    plain = tmp_path / "plain"
    shutil.copytree(runs_dir, plain)
    outside = tmp_path / "elsewhere" / "run-x"
    play_short(outside, "ext", seed=9)
    (plain / "run-x").symlink_to(outside)
    linked = tmp_path / "linked"
    shutil.copytree(plain, linked, symlinks=True)
    (linked / "latest").symlink_to("run-1")
    (linked / "a-first").symlink_to(linked / "run-1")
    (linked / "zz-x").symlink_to(outside)
    (tmp_path / "notes").mkdir()
    (linked / "notes-1").symlink_to(tmp_path / "notes")
    (linked / "notes-2").symlink_to(tmp_path / "notes")
    reference, out = tmp_path / "reference", tmp_path / "out"
    expected = validate_runs(plain, reference).exit_code
    assert validate_runs(linked, out).exit_code == expected
    assert (out / "leaderboard.csv").read_bytes() == (reference / "leaderboard.csv").read_bytes()
    rows = {row["run"]: row for row in _csv(out / "runs.csv")}
    for alias, original in (("latest", "run-1"), ("a-first", "run-1"), ("zz-x", "run-x")):
        assert rows[alias]["status"] == "excluded", rows[alias]
        assert rows[alias]["reason"] == f"the same directory as '{original}': a run counts once"
    assert "notes-1" not in rows and "notes-2" not in rows
    assert sorted((out / "reports").iterdir()) == [
        out / "reports" / name for name in ("run-0", "run-1", "run-2", "run-3", "run-x")
    ]


def test_a_run_directory_that_cannot_be_entered_fails_its_run_alone(
    runs_dir: Path, tmp_path: Path
) -> None:
    """A run directory without permissions is that run's 'refused' row; the rest is evaluated
    (it was a PermissionError traceback, and no report for anyone)."""
    mixed = tmp_path / "runs"
    shutil.copytree(runs_dir, mixed)
    locked = mixed / "run-1"
    locked.chmod(0)  # not even its owner may enter it
    try:
        done = cli_as_a_user(
            "validate", "counterfactual", str(mixed), "--all-agents", "--out", str(tmp_path / "o")
        )
    finally:
        locked.chmod(0o755)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    rows = {row["run"]: row for row in _csv(tmp_path / "o" / "runs.csv")}
    assert rows["run-1"]["status"] == "refused"
    assert rows["run-1"]["reason"] == f"{locked / 'run.json'}: cannot read (Permission denied)"
    assert [rows[f"run-{i}"]["status"] for i in (0, 2, 3)] == ["evaluated"] * 3


def test_a_batch_that_cannot_write_removes_what_it_wrote(runs_dir: Path, tmp_path: Path) -> None:
    """A write fails part way (files may not grow past 2,000 bytes: a report is larger):
    one line, exit 2, OUT gone with every report written before; the same OUT then works."""

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (2_000, 2_000))

    out = tmp_path / "o"
    done = subprocess.run(
        [sys.executable, "-m", "workbench", "validate", "counterfactual", str(runs_dir)]
        + ["--all-agents", "--out", str(out)],
        capture_output=True,
        text=True,
        preexec_fn=small_files,
        check=False,
        timeout=600,
    )
    assert done.returncode == 2, done.stderr
    (error,) = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert "cannot write (File too large)" in error and "Traceback" not in done.stderr
    assert not out.exists()
    code, stdout, stderr = _validate(str(runs_dir), "--all-agents", "--out", str(out))
    assert code == 1, stdout + stderr  # these runs leave questions unscored
    assert (out / "leaderboard.csv").exists()


def test_run_names_that_would_break_lines_or_drive_the_terminal_are_escaped(
    runs_dir: Path, tmp_path: Path
) -> None:
    """Run directories are named by whoever submitted them: each prints as one escaped line."""
    mixed = tmp_path / "runs"
    mixed.mkdir()
    shutil.copytree(runs_dir / "run-0", mixed / "red\x1b[31m\nforged line")
    shutil.copytree(runs_dir / "run-1", mixed / "open\x07")
    (mixed / "open\x07" / "seal.json").unlink()  # fails integrity: a stderr line of its own
    code, stdout, stderr = _validate(str(mixed), "--all-agents", "--out", str(tmp_path / "o"))
    assert code == 3, stdout + stderr
    assert "\x1b" not in stdout + stderr and "\x07" not in stdout + stderr
    assert "  red\\x1b[31m\\nforged line (ada): scored " in stdout
    assert not any(line.startswith("forged line") for line in stdout.splitlines())
    assert any(line.startswith("open\\x07: integrity failure") for line in stderr.splitlines())


def test_private_batch_names_missing_agents_and_leaves_out_others(
    private: Private, runs_dir: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    play_short(runs / "p7", "agent-7", seed=1, campaign=private.campaign, control=private.control)
    shutil.copytree(runs_dir / "run-0", runs / "dev")
    out = tmp_path / "out"
    code, stdout, stderr = _validate(
        str(runs), "--all-agents", "--control", str(private.control_path), "--out", str(out)
    )
    assert code == 1, stdout + stderr
    assert "agent agent-8: missing: no run under" in stderr
    assert "dev: not in this batch: a development run" in stderr
    assert sorted(p.name for p in out.iterdir()) == ["leaderboard.csv", "reports", "runs.csv"]
    single = tmp_path / "single"
    run_evaluation(runs, single, control=private.control, agent="agent-7")
    assert tree(out / "reports" / "p7") == tree(single)
    board = {row["agent"]: row for row in _csv(out / "leaderboard.csv")}
    assert set(board) == {"agent-7", "agent-8"}
    assert board["agent-8"]["runs"] == "0" and board["agent-8"]["rank"] == ""


def test_a_private_run_among_development_runs_is_left_out(
    private: Private, runs_dir: Path, tmp_path: Path
) -> None:
    """Without --control a batch takes the development runs: a private run beside them is
    excluded and named, as a development run is in a private batch; it was `refused`, so
    its agent joined the development leaderboard and the batch exited 1 whatever it
    scored."""
    plain, mixed = tmp_path / "plain", tmp_path / "mixed"
    shutil.copytree(runs_dir, plain)
    shutil.copytree(runs_dir, mixed)
    play_short(mixed / "p7", "agent-7", seed=1, campaign=private.campaign, control=private.control)
    reference = validate_runs(plain, tmp_path / "reference")
    code, stdout, stderr = _validate(str(mixed), "--all-agents", "--out", str(tmp_path / "out"))
    assert code == reference.exit_code, stdout + stderr
    assert "p7: not in this batch: a private campaign run: validate it with its control file" in (
        stderr
    )
    assert (tmp_path / "out" / "leaderboard.csv").read_bytes() == (
        reference.leaderboard_path.read_bytes()
    )
    rows = {row["run"]: row for row in _csv(tmp_path / "out" / "runs.csv")}
    assert rows["p7"]["status"] == "excluded" and rows["p7"]["agent"] == "agent-7"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--all-agents", "--agent", "x"], "either --agent ID or --all-agents"),
        (
            ["--all-agents", "--scheduler", "tcp://127.0.0.1:1"],
            "a scheduler address needs the dask executor (--scheduler)",
        ),
        (
            ["--all-agents", "--executor", "dask", "--scheduler", "tcp://h:1", "--workers", "2"],
            "a running scheduler's own workers are used (--workers)",
        ),
        (
            ["--all-agents", "--workers", "0"],
            "workers must be between 1 and 256, not 0 (--workers)",
        ),
    ],
)
def test_usage_errors_are_one_line(
    runs_dir: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    code, _, stderr = _validate(str(runs_dir), *args, "--out", str(tmp_path / "o"))
    assert code == 2 and message in stderr and len(stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_out_and_runs_dir_are_checked_before_anything(runs_dir: Path, tmp_path: Path) -> None:
    code, _, stderr = _validate(str(runs_dir / "run-0"), "--all-agents", "--out", str(tmp_path))
    assert code == 2 and "is a run directory" in stderr
    code, _, stderr = _validate(str(runs_dir), "--all-agents", "--out", str(runs_dir / "inside"))
    assert code == 2 and "inside the results directory" in stderr
    assert not (runs_dir / "inside").exists()


def test_an_interrupted_batch_leaves_no_leaderboard(runs_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"

    def stop(row: object) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        validate_runs(runs_dir, out, on_row=stop)
    assert not (out / "leaderboard.csv").exists()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.decimals(min_value=-1000, max_value=0, places=4, allow_nan=False),
        min_size=1,
        max_size=40,
    ),
    st.text(min_size=1, max_size=12),
)
def test_bootstrap_interval_is_seeded_and_bounded(scores: list[Decimal], agent: str) -> None:
    interval = bootstrap_interval(scores, agent)
    assert interval is not None and interval == bootstrap_interval(list(scores), agent)
    low, high = (Decimal(v) for v in interval)
    step = Decimal("0.000001")
    assert min(scores) - step <= low <= high <= max(scores) + step
    if len(set(scores)) == 1:
        assert low == high
    assert bootstrap_interval([], agent) is None


LARGEST_SCORE = ((2 * MAX_MAGNITUDE) / Decimal("0.000001")) ** 2
"""About the largest |score| a report holds: the largest accepted prediction minus an
effect as large, over the smallest scale a campaign may set (0.000001), squared."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.decimals(min_value=-LARGEST_SCORE, max_value=0, places=6, allow_nan=False),
        min_size=1,
        max_size=20,
    )
)
def test_bootstrap_interval_of_any_score_a_report_holds(scores: list[Decimal]) -> None:
    """Any finite score prints at six places, in order, near the scores (relative to their
    size: the resampling is in floating point)."""
    interval = bootstrap_interval(scores, "agent")
    assert interval is not None
    for text in interval:
        assert re.fullmatch(r"-?\d+\.\d{6}", text), text
    low, high = (Decimal(v) for v in interval)
    slack = Decimal("0.000001") + max(abs(s) for s in scores) * Decimal("1e-12")
    assert min(scores) - slack <= low <= high <= max(scores) + slack


@settings(max_examples=80, deadline=None)
@given(
    st.decimals(min_value=-LARGEST_SCORE, max_value=0, places=6, allow_nan=False),
    st.integers(1, 12),
)
def test_equal_scores_have_their_mean_as_the_interval(score: Decimal, copies: int) -> None:
    """One score, or the same score again and again: the interval is the mean shown beside
    it, digit for digit (in floating point a score of 1e11 to six places lost its last
    digits, and the interval lay beside the mean)."""
    mean = str(cf.mean([score] * copies).quantize(Decimal("0.000001"), context=WIDE))
    assert bootstrap_interval([score] * copies, "agent") == (mean, mean)


def test_a_batch_stopped_by_sigterm_removes_its_output_as_ctrl_c_does(
    runs_dir: Path, tmp_path: Path
) -> None:
    """`timeout` or a CI runner's cancel sends SIGTERM, which ended the process at once and
    left a partial OUT; now it is one line, exit 143, and OUT is gone. The batch is frozen
    (SIGSTOP) once OUT exists, so the signal lands mid-batch whatever this machine's speed."""
    many = tmp_path / "runs"
    for i in range(48):
        shutil.copytree(runs_dir / f"run-{i % 4}", many / f"run-{i:02d}")
    out = tmp_path / "out"
    batch = subprocess.Popen(
        [sys.executable, "-m", "workbench", "validate", "counterfactual", str(many),
         "--all-agents", "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        while not out.exists() and batch.poll() is None:
            time.sleep(0.005)
        batch.send_signal(signal.SIGSTOP)
        assert batch.poll() is None, "the batch ended before it could be stopped mid-way"
        assert out.exists()
        batch.send_signal(signal.SIGTERM)
        batch.send_signal(signal.SIGCONT)
        _, stderr = batch.communicate(timeout=120)
    finally:
        batch.kill()
        batch.wait(30)
    assert batch.returncode == exit_codes.TERMINATED, stderr
    assert stderr.splitlines()[-1] == "Error: terminated"
    assert "Traceback" not in stderr
    assert not out.exists()


def test_a_control_file_of_another_world_is_refused_whole(private: Private, tmp_path: Path) -> None:
    """Every run of the campaign was `refused` one by one and the batch exited 1 with a
    leaderboard of nobody; the control file itself is what is wrong (exit 2, as for one
    run), and nothing is written. One run of another world among the right ones is still
    that run's refusal alone."""
    runs = tmp_path / "runs"
    play_short(runs / "p7", "agent-7", seed=1, campaign=private.campaign, control=private.control)
    other = tmp_path / "other.json"
    control_new(private.campaign, other, "agent-7", "agent-8", pinned=False)
    out = tmp_path / "out"
    code, _, stderr = _validate(
        str(runs), "--all-agents", "--control", str(other), "--out", str(out)
    )
    assert code == 2, stderr
    assert stderr.strip() == (
        f"Error: the control file is for another world of campaign "
        f"'{private.control.campaign_id}': none of its 1 run(s) under {runs.absolute()} was "
        "played on its seed (the control file of another `control new`?) (--control)"
    )
    assert not out.exists()
    play_short(
        runs / "p8", "agent-8", seed=2, campaign=private.campaign, control=load_control(other)
    )
    code, _, stderr = _validate(
        str(runs), "--all-agents", "--control", str(other), "--out", str(out)
    )
    rows = {row["run"]: row for row in _csv(out / "runs.csv")}
    assert (rows["p7"]["status"], rows["p8"]["status"]) == ("refused", "evaluated"), stderr


def test_development_runs_of_several_campaigns_are_refused_whole(tmp_path: Path) -> None:
    """An agent's runs of two campaigns (or of two versions of one) were pooled into one
    leaderboard row, its mean taken over different questions as if one task: now the
    batch is refused in one line naming each campaign, exit 2, nothing written."""
    root = Path(__file__).resolve().parents[2] / "campaigns"
    edited = tmp_path / "edited"
    shutil.copytree(root / "default", edited)
    toml = edited / "campaign.toml"
    toml.write_text(toml.read_text() + "\n# an edit: another version of the campaign\n")
    runs = tmp_path / "runs"
    play_short(runs / "a-default", "ada", seed=1)
    play_short(runs / "b-gelato", "ada", seed=2, campaign=root / "gelato")
    play_short(runs / "c-edited", "bob", seed=3, campaign=edited)
    out = tmp_path / "out"
    code, _, err = _validate(str(runs), "--all-agents", "--out", str(out))
    assert code == exit_codes.USAGE, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "development runs of 3 campaigns" in lines[0]
    assert lines[0].count("harbor-roasters") == 2 and "marina-gelato" in lines[0]
    assert not out.exists()
    shutil.rmtree(runs / "b-gelato")
    shutil.rmtree(runs / "c-edited")
    code, _, err = _validate(str(runs), "--all-agents", "--out", str(out))
    assert code in (exit_codes.OK, exit_codes.UNSCORED), err
    assert (out / "leaderboard.csv").exists()
