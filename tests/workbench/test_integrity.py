"""Scoring integrity (issue 11): no player can learn an answer before it counts.

One test (or group) per finding of the issue, each reproduced the way it was found:
2 the peek on an unfinished run, 3 the searchable private seed, 4 the re-sealed edit,
5 the unenforced conclusion, 6 the unscoreable submission, 7 the branch seals'
commitment and the unchecked terms digest. Finding 1's Validate screen is covered in
tests/tui/test_panels.py. Names that did not exist before the fix are imported inside
the tests, so that on the old code each test fails on its own assertion.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import json
import multiprocessing
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from graders import counterfactual as cf
from ledger.canonical import dumps
from ledger.journal import GENESIS, Journal, make_entry
from ledger.seal import Seal
from sim.campaign_load import load_campaign
from sim.engine import Engine
from workbench.cli import main
from workbench.errors import IntegrityError, UserError
from workbench.evaluation.branches import run_branch
from workbench.evaluation.evaluator import PairTask, evaluate_pair, run_evaluation
from workbench.play.session import PlayerSession
from workbench.runs.assessment import SubmissionRecord, validate_assessment
from workbench.runs.commands import CounterfactualAssessment
from workbench.runs.registration import ControlFile

from .conftest import Private

BANK_LOAN = (
    '{"kind":"submit_assessment","assessment":{"kind":"counterfactual",'
    '"question":"q_bank_loan","value":"-500","conclusion":"%s"}}\n'
)


def cli(*args: str | Path) -> Result:
    """Invoke `workbench` in-process."""
    return CliRunner().invoke(main, [str(a) for a in args])


def one_line_error(result: Result) -> str:
    """The result's message, asserting it is one line and no traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output
    return lines[0]


def script(tmp_path: Path, *lines: str) -> Path:
    """A play script with these lines."""
    path = tmp_path / "script.jsonl"
    path.write_text("".join(line if line.endswith("\n") else line + "\n" for line in lines))
    return path


def play_private(private: Private, run: Path, *lines: str, agent: str = "agent-7") -> Result:
    """Play the private campaign headless with a script."""
    return cli(
        "run",
        private.campaign,
        "--script",
        script(run.parent, *lines),
        "--out",
        run,
        "--control",
        private.control_path,
        "--agent",
        agent,
    )


def rewrite_journal(path: Path, edit: Callable[[Any], dict[str, Any]]) -> None:
    """Rebuild a journal through the Journal API with edited payloads (a valid chain)."""
    prev, entries = GENESIS, []
    for old in Journal.open(path).entries:
        entry = make_entry(old.seq, old.day, old.kind, old.id, edit(old), prev)
        entries.append(entry)
        prev = entry.hash
    path.write_bytes(Journal(None, entries).to_bytes())


# -- finding 2: validating an unfinished run was a peek ---------------------------------


def test_validate_refuses_an_unfinished_run_and_writes_nothing(tmp_path: Path) -> None:
    run = tmp_path / "my run"
    with PlayerSession.create(run) as session:  # an unfinished run, stopped on day 5
        session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
        session.advance(5)
    result = cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "peek")
    assert result.exit_code == 2
    message = one_line_error(result)
    assert "not finished (day 5 of 180)" in message
    assert f"`workbench finish '{run}'`" in message, "the command as a shell takes it"
    assert not (tmp_path / "peek").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli("validate", "counterfactual", "--results", run, "--out", empty).exit_code == 2
    assert list(empty.iterdir()) == []
    finished = cli("finish", run)
    assert finished.exit_code == 0, finished.output
    assert "finished on day 180 (from day 5)" in finished.output
    result = cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "after")
    report = json.loads((tmp_path / "after" / "report.json").read_text())
    statuses = {q["id"]: q["status"] for q in report["questions"]}
    assert statuses.pop("q_bank_loan") == "scored" and set(statuses.values()) == {"unsubmitted"}
    assert result.exit_code == 1


def test_a_finished_run_accepts_no_command(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    session.advance(3)
    assert not session.view().finished
    assert session.finish("end") == session.horizon
    assert session.view().finished and session.finished
    head = session.journal_head
    assert session.journal_entries[-1].kind == "finish"
    assert session.finish("end") == session.horizon  # a retry of the same command is a no-op
    refusals = (
        lambda: session.schedule("bank_loan"),
        lambda: session.advance(1),
        lambda: session.submit({"question": "q_bank_loan", "value": "1"}),
        lambda: session.finish(),
    )
    for command in refusals:
        with pytest.raises(UserError, match=r"is finished \(day 180 of 180\)"):
            command()
    assert session.journal_head == head
    session.close()  # release the writer lock
    resumed = PlayerSession.resume(tmp_path / "run")
    assert resumed.finished
    with pytest.raises(UserError, match="accepts no further command"):
        resumed.advance(1)


def test_a_script_can_finish_a_run_and_nothing_may_follow(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = cli(
        "run",
        "--script",
        script(tmp_path, '{"kind":"advance","days":2}', '{"kind":"finish"}', '{"kind":"advance"}'),
        "--out",
        run,
    )
    assert result.exit_code == 2
    assert "script.jsonl:3: " in one_line_error(result) and "is finished" in result.output
    assert not run.exists()  # a refused script writes nothing
    finished = cli(
        "run",
        "--script",
        script(tmp_path, '{"kind":"advance","days":2}', '{"kind":"finish"}'),
        "--out",
        run,
    )
    assert finished.exit_code == 0, finished.output
    journal = Journal.open(run / "journal.jsonl")
    journal.append(180, "advance", "late", {"days": 1})
    verified = cli("verify", run)
    assert verified.exit_code == 3
    assert "the run finished on day 180; no command may follow" in one_line_error(verified)


# -- finding 3: a private campaign's seed was recoverable ---------------------------------


def test_control_new_writes_an_owner_only_file_and_never_overwrites(private: Private) -> None:
    mode = stat.S_IMODE(os.stat(private.control_path).st_mode)
    assert mode == 0o600
    document = json.loads(private.control_path.read_text())
    assert document["schema"] == "cfwb.control/2"
    for secret in ("seed", "salt"):
        assert len(document[secret]) == 64 and int(document[secret], 16) >= 1 << 192
    assert set(private.tokens) == {"agent-7", "agent-8"}
    control = private.control
    for agent, token in private.tokens.items():
        assert document["tokens"][agent] == "sha256:" + hashlib.sha256(token.encode()).hexdigest()
        assert token not in private.control_path.read_text()
        assert control.token_agent(token) == agent
    assert control.token_agent(private.tokens["agent-7"] + "x") is None
    assert control.token_agent("") is None
    shared = {**document, "tokens": {a: document["tokens"]["agent-7"] for a in document["tokens"]}}
    with pytest.raises(ValidationError, match="two agents share a bearer token"):
        ControlFile.model_validate(shared)
    before = private.control_path.read_bytes()
    again = cli("control", "new", private.campaign, "--agent", "a", "--out", private.control_path)
    assert again.exit_code == 2 and "never overwritten" in one_line_error(again)
    assert private.control_path.read_bytes() == before
    public = cli("control", "new", "campaigns/default", "--agent", "a", "--out", "x.json")
    assert public.exit_code == 2 and "development campaign" in one_line_error(public)


@pytest.mark.parametrize(
    ("seed", "salt", "expected"),
    [
        (4242, "a-private-salt", "seed must be 64 hex digits"),
        (f"{31415926:064x}", "ab" * 32, "seed is too weak"),
        ("cd" * 32, f"{7:064x}", "salt is too weak"),
    ],
)
def test_weak_control_files_are_refused(
    private: Private, tmp_path: Path, seed: object, salt: str, expected: str
) -> None:
    document = json.loads(private.control_path.read_text())
    weak = tmp_path / "weak.json"
    weak.write_text(json.dumps({**document, "seed": seed, "salt": salt}))
    result = cli(
        "run", private.campaign, "--out", tmp_path / "r", "--control", weak, "--agent", "agent-7"
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()  # one line per problem
    assert "Traceback" not in result.output and any(expected in line for line in lines)
    assert not (tmp_path / "r").exists()


def _strings(value: Any) -> set[str]:
    """Every string and number inside a JSON document."""
    if isinstance(value, dict):
        return set().union(*(_strings(v) | {str(k)} for k, v in value.items()))
    if isinstance(value, list):
        return set().union(set(), *(_strings(v) for v in value))
    return {str(value)}


def test_a_private_run_directory_gives_nothing_to_search_the_seed_with(
    private: Private, tmp_path: Path
) -> None:
    """The issue's attack, at its best: even a seed in a small range is not found.

    The control file is weakened by hand (load_control would refuse it) so that the seed
    lies in the searched range; every string in the run directory is tried as the salt
    of the old commitment and as an HMAC key. The search itself works: with the key
    that stays in the control file it finds the seed.
    """
    from workbench.runs.registration import _derive

    seed = 4242
    weak = private.control.model_copy(update={"seed": f"{seed:064x}"})
    run = tmp_path / "run"
    session = PlayerSession.create(run, private.campaign, control=weak, agent_id="agent-7")
    session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
    session.advance(3)
    session.write_store()
    registration = json.loads((run / "run.json").read_text())
    target = registration["seed_commitment"]
    candidates = {p.name for p in run.iterdir()}
    for name in ("run.json", "seal.json"):
        candidates |= _strings(json.loads((run / name).read_text()))
    for line in (run / "journal.jsonl").read_bytes().splitlines():
        candidates |= _strings(orjson.loads(line))
    assert "salt" not in registration

    def search(keys: set[bytes], salts: set[str]) -> int | None:
        digest = registration["campaign_digest"]
        wanted = bytes.fromhex(target)
        salted = [hashlib.sha256(f"cfwb-seed\x00{salt}\x00".encode()) for salt in salts]
        keyed = [hmac.new(key, digestmod=hashlib.sha256) for key in keys]
        for s in range(5000):
            for prefix in salted:
                attempt = prefix.copy()
                attempt.update(str(s).encode())
                if attempt.digest() == wanted:
                    return s
            for material in (f"cfwb-seed\x00{digest}\x00{s:064x}", f"cfwb-seed\x00{s}"):
                message = material.encode()
                for key in keyed:
                    attempt = key.copy()
                    attempt.update(message)
                    if attempt.digest() == wanted:
                        return s
        return None

    keys = {c.encode() for c in candidates}
    keys |= {bytes.fromhex(c) for c in candidates if len(c) % 2 == 0 and _is_hex(c)}
    assert search(keys, candidates) is None
    assert search({_derive(weak.salt, b"seed-commitment")}, set()) == seed


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return True


def test_no_run_file_holds_the_seed_or_salt(private: Private, tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert play_private(private, run, BANK_LOAN % "-300.00").exit_code == 0
    control = private.control
    for path in run.iterdir():
        data = path.read_bytes()
        for secret in (control.seed, control.salt, str(control.seed_value)):
            assert secret.encode() not in data, path


# -- finding 4: seals were unsigned ---------------------------------------------------------


@pytest.fixture
def private_run(private: Private, tmp_path: Path) -> Path:
    """A finished private run with an eligible bank-loan submission."""
    run = tmp_path / "runs" / "a7"
    run.parent.mkdir()
    played = play_private(private, run, BANK_LOAN % "-300.00", '{"kind":"finish"}')
    assert played.exit_code == 0, played.output
    return run


def _edit_submission(run: Path) -> dict[str, Any]:
    """Change the submitted value through the Journal API; return the re-built seal fields."""

    def edit(entry: Any) -> dict[str, Any]:
        payload = dict(entry.payload)
        if entry.kind == "submit_assessment":
            payload["assessment"] = {**payload["assessment"], "value": "-521.91"}
        return payload

    rewrite_journal(run / "journal.jsonl", edit)
    seal = json.loads((run / "seal.json").read_text())
    seal["journal_head"] = Journal.open(run / "journal.jsonl").head
    return seal


@pytest.mark.parametrize(
    ("reseal", "expected"),
    [
        (lambda seal: seal, "has a wrong signature"),
        (lambda seal: {k: v for k, v in seal.items() if k != "signature"}, "is unsigned"),
        (lambda seal: _sign(seal, b"the player's own key"), "has a wrong signature"),
    ],
)
def test_a_resealed_edit_of_a_private_run_exits_3(
    private: Private,
    private_run: Path,
    tmp_path: Path,
    reseal: Callable[[dict[str, Any]], dict[str, Any]],
    expected: str,
) -> None:
    before = cli("verify", private_run, "--control", private.control_path, "--agent", "agent-7")
    assert before.exit_code == 0, before.output
    seal = reseal(_edit_submission(private_run))
    (private_run / "seal.json").write_bytes(Seal.from_data(seal).to_bytes())
    verified = cli("verify", private_run, "--control", private.control_path, "--agent", "agent-7")
    assert verified.exit_code == 3
    assert expected in one_line_error(verified)
    out = tmp_path / "o"
    result = cli(
        "validate",
        "counterfactual",
        private_run.parent,
        "--control",
        private.control_path,
        "--agent",
        "agent-7",
        "--out",
        out,
    )
    assert result.exit_code == 3 and expected in result.output
    assert not (out / "report.json").exists()


def test_a_session_will_not_reseal_an_edited_private_run(
    private: Private, private_run: Path
) -> None:
    """Resuming is no way to launder an edit: the stored seal must sign this journal."""
    _edit_submission(private_run)
    with pytest.raises(IntegrityError, match="an entry was changed after it was sealed"):
        PlayerSession.resume(private_run, control=private.control, agent_id="agent-7")
    (private_run / "seal.json").unlink()
    with pytest.raises(IntegrityError, match="is missing"):
        PlayerSession.resume(private_run, control=private.control, agent_id="agent-7")


def _sign(seal: dict[str, Any], key: bytes) -> dict[str, Any]:
    return Seal.from_data(seal).signed(key).to_data()


def test_the_signed_private_run_verifies(private: Private, private_run: Path) -> None:
    seal = Seal.from_data(json.loads((private_run / "seal.json").read_text()))
    assert seal.signature_ok(private.control.seal_key())
    result = cli("verify", private_run, "--control", private.control_path, "--agent", "agent-7")
    assert result.exit_code == 0, result.output


def test_a_wrong_control_file_is_named_not_a_ledger_difference(
    private: Private, private_run: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.json"
    from .conftest import control_new

    control_new(private.campaign, other, "agent-7", pinned=False)
    result = cli("verify", private_run, "--control", other, "--agent", "agent-7")
    assert result.exit_code == 2
    message = one_line_error(result)
    assert "wrong control file" in message and "ledger_digest" not in message
    out = tmp_path / "o"
    validated = cli(
        "validate", "counterfactual", private_run, "--control", other, "--agent", "agent-7",
        "--out", out,
    )  # fmt: skip
    assert validated.exit_code == 2 and "wrong control file" in one_line_error(validated)
    assert not out.exists()


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda reg: {**reg, "salt": "x" * 16}, "holds a salt"),
        (lambda reg: {**reg, "visibility": "public"}, "visibility: Input should be"),
        (lambda reg: {**reg, "schema": "cfwb.run/1"}, "schema: Input should be"),
        (lambda reg: {**reg, "seed_commitment": "00"}, "seed_commitment: String should match"),
        (lambda reg: {**reg, "note": "hi"}, "note: Extra inputs are not permitted"),
        (lambda reg: [reg], "not a JSON object"),
    ],
)
def test_run_json_is_validated_strictly(
    demo_run: Path, tmp_path: Path, change: Callable[[Any], Any], expected: str
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    registration = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps(change(registration)))
    for args in (("verify", run), ("snapshot", run)):
        result = cli(*args)
        assert result.exit_code == 3
        assert expected in one_line_error(result)


def test_a_private_run_relabelled_development_is_refused(
    private: Private, private_run: Path
) -> None:
    registration = json.loads((private_run / "run.json").read_text())
    registration["visibility"] = "development"
    (private_run / "run.json").write_bytes(dumps(registration) + b"\n")  # canonical, as written
    result = cli("verify", private_run)
    assert result.exit_code == 2 and "is private: its control file is required" in result.output
    result = cli("verify", private_run, "--control", private.control_path, "--agent", "agent-7")
    assert result.exit_code == 3
    assert "says visibility 'development'" in one_line_error(result)


# -- finding 5: required conclusions were not enforced --------------------------------------


@pytest.mark.parametrize(
    ("question", "conclusion", "verdict"),
    [
        ("q_bank_loan", "-299.00", "wrong"),
        ("q_bank_loan", None, "missing"),
        ("q_expansion_effects", ["overhead", "capacity"], "wrong"),
        ("q_bank_loan", "-300", "met"),
    ],
)
def test_a_wrong_or_missing_conclusion_fails_validate_but_the_forecast_is_scored(
    tmp_path: Path, question: str, conclusion: Any, verdict: str
) -> None:
    session = PlayerSession.create(tmp_path / "run")
    submitted = {"question": question, "value": "-500"}
    if conclusion is not None:
        submitted["conclusion"] = conclusion
    result = session.submit(submitted)
    assert result.accepted and result.eligible
    assert bool(result.notes) == (conclusion is None)
    session.finish()
    out = tmp_path / "o"
    code = cli("validate", "counterfactual", "--results", tmp_path / "run", "--out", out,
               "--question", question).exit_code  # fmt: skip
    report = json.loads((out / "report.json").read_text())
    entry = report["questions"][0]
    assert entry["status"] == "scored" and entry["loss"] is not None
    assert Decimal(entry["score"]) == -Decimal(entry["loss"])
    assert entry["conclusion"]["verdict"] == verdict
    assert report["summary"]["all_scored"] is True
    assert report["summary"]["conclusions_met"] == (verdict == "met")
    assert report["summary"]["conclusions_required"] == 1
    assert code == (0 if verdict == "met" else 1)


# -- finding 6: an accepted submission crashed the evaluation -------------------------------


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (BANK_LOAN.replace('"-500"', '"1e1000000"') % "-300.00", "value is larger than"),
        (BANK_LOAN % "1e30", "conclusion is larger than"),
        (BANK_LOAN.replace('"-500"', '"0.0000001"') % "-300.00", "more than 6 digits"),
        (BANK_LOAN.replace('"-500"', '"' + "9" * 41 + '"') % "-300.00", "longer than 40"),
    ],
)
def test_unscoreable_numbers_are_refused_at_submission(
    tmp_path: Path, line: str, expected: str
) -> None:
    run = tmp_path / "run"
    result = cli("run", "--script", script(tmp_path, line), "--out", run)
    assert result.exit_code == 2
    message = one_line_error(result)
    assert "script.jsonl:1: " in message and expected in message
    assert not run.exists()  # a refused script writes nothing


def test_the_submission_schema_declares_the_limits() -> None:
    result = cli("schema", "submission")
    schema = json.loads(result.output)
    value = schema["properties"]["value"]["anyOf"]
    assert {"type": "number", "minimum": -(10**15), "maximum": 10**15} in value
    assert any(v.get("maxLength") == 40 for v in value)


NUMBERS = st.one_of(
    st.text(alphabet="0123456789.eE+-", max_size=45),
    st.decimals(allow_nan=True, allow_infinity=True).map(str),
    st.floats(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.decimals(min_value=Decimal("-1e15"), max_value=Decimal("1e15"), places=6).map(str),
)


@settings(max_examples=400, deadline=None)
@given(value=NUMBERS, conclusion=NUMBERS, scale=st.sampled_from(["0.01", "500", "3000", "1e6"]))
def test_every_accepted_submission_can_be_scored(
    bundle: Any, value: Any, conclusion: Any, scale: str
) -> None:
    try:
        assessment = CounterfactualAssessment(
            question="q_bank_loan", value=value, conclusion=conclusion
        )
    except ValidationError:
        return
    validate_assessment(bundle, assessment)
    for effect in (Decimal("-999999999.99"), Decimal("0"), Decimal("21994.00")):
        loss = cf.loss(Decimal(assessment.value), effect, Decimal(scale))
        assert loss >= 0 and str(-loss)
    assert isinstance(assessment.conclusion, str)
    assert cf.contract_component_correct(Decimal(assessment.conclusion), Decimal("-300.00")) in (
        True,
        False,
    )


def test_an_out_of_bounds_value_forged_into_a_journal_is_an_integrity_failure(
    demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)

    def edit(entry: Any) -> dict[str, Any]:
        payload = dict(entry.payload)
        if entry.kind == "submit_assessment" and payload["assessment"]["question"] == "q_bank_loan":
            payload["assessment"] = {**payload["assessment"], "value": "1e1000000"}
        return payload

    rewrite_journal(run / "journal.jsonl", edit)
    result = cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "o")
    assert result.exit_code == 3
    message = one_line_error(result)
    assert "seq 1 (submit_assessment)" in message and "value is larger than" in message


def _limit_file_size(limit: int) -> Callable[[], None]:
    """A child-process hook: files may not grow beyond `limit` bytes (writes fail EFBIG)."""

    def limit_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limit_size


@pytest.mark.parametrize(
    ("limit", "failing"),
    [(1_000, "seals file"), (5_000, "evaluation output")],
)
@pytest.mark.parametrize("existing", [False, True])
def test_output_that_cannot_be_written_stops_with_one_line_and_leaves_nothing(
    demo_run: Path, tmp_path: Path, limit: int, failing: str, existing: bool
) -> None:
    """Writing fails (files may not grow): no report, nothing half-written, nothing lost.

    A real failing write: the child's files may grow to `limit` bytes, less than the
    demo's seals file (1,442) or than its report (about 11 KB, after the seals are
    written). What the evaluation wrote is removed, the directory too if it made it, so
    the same --out works once there is room.
    """
    out = tmp_path / "o"
    if existing:
        out.mkdir()
    before = {p.name: p.read_bytes() for p in demo_run.iterdir() if p.is_file()}
    result = subprocess.run(
        [sys.executable, "-m", "workbench", "validate", "counterfactual"]
        + ["--results", str(demo_run), "--out", str(out)],
        capture_output=True,
        text=True,
        preexec_fn=_limit_file_size(limit),
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert error.startswith(f"Error: {failing} ") and "cannot write (File too large)" in error
    assert sorted(out.iterdir()) == [] if existing else not out.exists()
    assert {p.name: p.read_bytes() for p in demo_run.iterdir() if p.is_file()} == before
    retry = cli("validate", "counterfactual", "--results", demo_run, "--out", out)
    assert retry.exit_code == 0, retry.output


def test_a_worker_killed_halfway_loses_no_question(demo_run: Path, tmp_path: Path) -> None:
    """kill -9 every pool worker after the first pair: the pairs they left run again on a
    new pool, and the report is the one a serial evaluation writes, byte for byte."""
    killed: list[int] = []

    def progress(done: int, total: int, question: str) -> None:
        if done == 1:
            for child in multiprocessing.active_children():
                if child.pid is not None:
                    os.kill(child.pid, signal.SIGKILL)
                    killed.append(child.pid)

    outcome = run_evaluation(demo_run, tmp_path / "o", workers=2, progress=progress)
    assert killed and outcome.report_path is not None
    assert [entry.status for entry in outcome.report.questions] == ["scored"] * 6
    serial = run_evaluation(demo_run, tmp_path / "serial", workers=1)
    assert serial.report_path is not None
    assert outcome.report_path.read_bytes() == serial.report_path.read_bytes()
    assert outcome.exit_code == serial.exit_code == 0


# -- finding 7: branch seals had no commitment; terms digests were not checked --------------


def test_branch_seals_carry_the_commitment_and_a_signature(
    private: Private, private_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "o"
    result = cli(
        "validate",
        "counterfactual",
        private_run.parent,
        "--control",
        private.control_path,
        "--agent",
        "agent-7",
        "--out",
        out,
        "--question",
        "q_bank_loan",
    )
    assert result.exit_code == 0, result.output
    commitment = json.loads((private_run / "run.json").read_text())["seed_commitment"]
    (path,) = (out / "seals").iterdir()
    lines = gzip.decompress(path.read_bytes()).splitlines()
    seals = [Seal.from_data(json.loads(line)) for line in lines]
    assert [seal.identities["branch"] for seal in seals] == ["baseline", "intervention"]
    for seal in seals:
        assert seal.seed_commitment == commitment != ""
        assert seal.signature_ok(private.control.seal_key())


def test_the_branch_verifier_rechecks_terms_digests(
    bundle: Any, campaign_copy: Path, tmp_path: Path
) -> None:
    """A worker that ran another version of an action's terms fails that branch."""
    from workbench.evaluation.branches import registered_terms

    actions = campaign_copy / "actions.toml"
    text = actions.read_text()
    actions.write_text(text.replace('upfront_cost = "300.00"', 'upfront_cost = "30.00"', 1))
    other = load_campaign(campaign_copy)
    assert other.actions["bank_loan"] != bundle.actions["bank_loan"]
    engine = Engine(other, 20261130)
    engine.run_to(20)
    question = bundle.questions["q_bank_loan"]
    submission = SubmissionRecord(
        1, 0, CounterfactualAssessment(question="q_bank_loan", value="-500", conclusion="-300")
    )
    task = PairTask(
        bundle,
        engine.snapshot(),
        question,
        ("bank_loan",),
        "head",
        submission,
        "c" * 64,
        registered_terms(bundle, ["bank_loan"]),
    )
    entry = evaluate_pair(task).entry
    intervention = entry.branches.intervention
    assert intervention is not None and intervention.status == "failed"
    assert intervention.reason and "terms digest of bank_loan" in intervention.reason
    assert entry.status == "unresolved" and entry.score is None
    honest = PairTask(
        bundle,
        engine.snapshot(),
        question,
        ("bank_loan",),
        "head",
        submission,
        "c" * 64,
        registered_terms(other, ["bank_loan"]),
    )
    honest_branch = evaluate_pair(honest).entry.branches.intervention
    assert honest_branch is not None and honest_branch.status == "ok"


def test_the_branch_verifier_rechecks_the_order(bundle: Any) -> None:
    from workbench.evaluation.branches import registered_terms, schedule_problem

    engine = Engine(bundle, 20261130)
    engine.run_to(45)
    question = bundle.questions["q_sales_desk_priority"]
    terms = registered_terms(bundle, question.intervention.actions)
    run = run_branch(
        engine.snapshot(),
        "intervention",
        question.intervention.name,
        question.intervention.actions,
        question.outcome_day,
        bundle.metrics[question.metric],
        "ep",
        seed_commitment="c" * 64,
    )
    assert run.status == "ok" and schedule_problem(run, terms) is None
    assert [s.action for s in run.schedule] == ["loyalty_program", "spring_campaign"]
    run.schedule.reverse()
    assert "lexicographic order" in (schedule_problem(run, terms) or "")
    run.schedule = run.schedule[1:]
    assert "lexicographic order" in (schedule_problem(run, terms) or "")


def test_a_damaged_sibling_run_neither_blocks_nor_hides(
    private: Private, private_run: Path, tmp_path: Path
) -> None:
    runs = private_run.parent
    sibling = runs / "b9"
    shutil.copytree(private_run, sibling)
    registration = json.loads((sibling / "run.json").read_text())
    (sibling / "run.json").write_text(json.dumps({**registration, "salt": "x" * 16}))
    out = tmp_path / "by-agent"
    found = cli(
        "validate", "counterfactual", runs, "--control", private.control_path,
        "--agent", "agent-7", "--out", out,
    )  # fmt: skip
    assert found.exit_code == 1, found.output  # validated: unsubmitted questions exit 1
    assert "q_bank_loan: scored" in found.output and (out / "report.json").is_file()
    shutil.rmtree(private_run)
    missing = cli(
        "validate", "counterfactual", runs, "--control", private.control_path,
        "--agent", "agent-7", "--out", tmp_path / "none",
    )  # fmt: skip
    assert missing.exit_code == 3
    message = one_line_error(missing)
    assert "no readable run for agent 'agent-7'" in message and "holds a salt" in message


def test_the_finish_advice_for_an_unfinished_private_run_names_its_control_file(
    private: Private, tmp_path: Path
) -> None:
    """Before, the advice was `workbench finish RUN`, which a private run refuses."""
    run = tmp_path / "runs" / "run"
    with PlayerSession.create(
        run, private.campaign, control=private.control, agent_id="agent-7"
    ) as session:
        session.advance(3)
    control = ("--control", private.control_path, "--agent", "agent-7")
    result = cli("validate", "counterfactual", run.parent, *control, "--out", tmp_path / "v")
    assert result.exit_code == 2
    assert f"`workbench finish {run}`, giving its control file," in result.output, result.output
    # One sentence: it read "…, giving its control file, (the remaining days …) and validate".
    assert "file, and validate again (the remaining days" in result.output, result.output
    assert cli("finish", run, "--control", private.control_path).exit_code == 0
