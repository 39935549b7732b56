"""Two real processes at once, 50 times each: two writers on one run, two validations on one
`--out`. One wins, the other is refused; never a corrupted run or report.

Children are forked from a fork server that has imported this module (cheap: everything
is imported already, and the server is small, where the test process may have grown to
hundreds of megabytes after the dashboard tests) and released together by one event, so
they really race.
"""

from __future__ import annotations

import multiprocessing
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from campaigns import DEFAULT_CAMPAIGN
from workbench import exit_codes
from workbench.cli import main
from workbench.errors import WorkbenchError
from workbench.evaluation.evaluator import run_evaluation
from workbench.evaluation.report_check import check_report
from workbench.play.session import PlayerSession
from workbench.runs.files import RunPaths, read_journal, read_seal
from workbench.runs.lock import RunLocked
from workbench.runs.verify import verify_run

ROUNDS = 50
LOCKED = 10
"""Exit status of a child refused by the run lock (apart from other usage errors)."""

_server = multiprocessing.get_context("forkserver")
_server.set_forkserver_preload([__name__])


def _race(target: Callable[..., None], *args_per_child: tuple[object, ...]) -> list[int]:
    """Start one child per argument tuple, release them at once, return exit codes."""
    go = _server.Event()
    children = [
        _server.Process(target=_released, args=(go, target, *args)) for args in args_per_child
    ]
    for child in children:
        child.start()
    go.set()
    for child in children:
        child.join(60)
    return [child.exitcode for child in children]


def _released(go: object, target: Callable[..., None], *args: object) -> None:
    """In the child: wait for the release, then run `target`."""
    go.wait()  # type: ignore[attr-defined]
    target(*args)


def _write(run: Path, command_id: str) -> None:
    """A writer: resume the run, journal one day under `command_id`, seal, release."""
    try:
        with PlayerSession.resume(run, command=command_id) as session:
            session.advance(1, command_id)
    except RunLocked:
        raise SystemExit(LOCKED) from None


def _validate(run: Path, out: Path) -> None:
    """A validation into `out`; exits with its code, or the error's."""
    try:
        outcome = run_evaluation(run, out)
    except WorkbenchError as exc:
        raise SystemExit(exc.exit_code) from None
    raise SystemExit(outcome.exit_code)


@pytest.fixture(scope="module")
def one_question_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the default world with a single question (cheap to validate)."""
    root = tmp_path_factory.mktemp("race")
    campaign = root / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, campaign)
    questions = (campaign / "questions.toml").read_text().split("[[questions]]")
    (campaign / "questions.toml").write_text(questions[0] + "[[questions]]" + questions[1])
    run = root / "run"
    assert CliRunner().invoke(main, ["run", str(campaign), "--out", str(run)]).exit_code == 0
    return run


def test_two_writers_on_one_run_never_interleave(tmp_path: Path) -> None:
    run = tmp_path / "run"
    PlayerSession.create(run).close()
    written = 0
    for round_ in range(ROUNDS):
        codes = _race(_write, (run, f"round-{round_}-a"), (run, f"round-{round_}-b"))
        assert set(codes) <= {0, LOCKED} and 0 in codes, codes
        written += codes.count(0)
        paths = RunPaths(run)
        journal = read_journal(paths)  # raises on any torn, interleaved or unchained line
        seal = read_seal(paths)
        assert seal is not None and len(journal) == seal.journal_entries == 1 + written
        assert seal.journal_head == journal.head
    assert written >= ROUNDS
    result = verify_run(run)
    assert result.ok, result.divergence


def test_two_validations_on_one_out_never_mix(one_question_run: Path, tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        out = tmp_path / f"out-{round_}"
        codes = _race(_validate, (one_question_run, out), (one_question_run, out))
        assert sorted(codes) == [exit_codes.UNSCORED, exit_codes.USAGE], codes
        check = check_report(out, one_question_run if round_ in (0, ROUNDS - 1) else None)
        assert check.ok, check.problems
        assert check.seals == 2
        sums = subprocess.run(["sha256sum", "--quiet", "-c", "SHA256SUMS"], cwd=out, check=False)
        assert sums.returncode == 0


def test_two_validations_into_a_killed_ones_output_never_mix(
    one_question_run: Path, tmp_path: Path
) -> None:
    """The partial output a killed evaluation left is cleared by exactly one of two
    validations racing for it; the other is refused and the winner's report checks."""
    for round_ in range(ROUNDS // 2):
        out = tmp_path / f"out-{round_}"
        (out / "seals").mkdir(parents=True)
        (out / "seals" / "branches.jsonl.gz").write_bytes(b"\x1f\x8b cut short by kill -9")
        (out / ".SHA256SUMS.0123456789ab.tmp").write_bytes(b"half")
        codes = _race(_validate, (one_question_run, out), (one_question_run, out))
        assert sorted(codes) == [exit_codes.UNSCORED, exit_codes.USAGE], codes
        check = check_report(out, None)
        assert check.ok, check.problems
        assert sorted(p.name for p in out.iterdir()) == ["SHA256SUMS", "report.json", "seals"]
