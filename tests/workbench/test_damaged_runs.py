"""Damaged or interrupted run directories: one line and a documented code, never a traceback.

A seal that is not a canonical seal object, a second journal header, a store that is a
directory and a run.json without its journal are each named; an honestly interrupted run
(journal ahead of its seal) is told apart from a changed one and resumes when re-run; a
run whose journal header differs from this workbench's (another engine, numpy, campaign)
is named by the field and neither verified nor resumed. A run file that is a named pipe or
a device is refused at once, never read or waited on.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result

from ledger.canonical import dumps
from ledger.journal import entry_hash
from tests.placed import one_error_line as _error
from workbench.cli import main
from workbench.play.session import PlayerSession


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture()
def run(demo_run: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(demo_run, target)
    return target


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (b"[]\n", "a JSON object is expected"),
        (b"1\n", "a JSON object is expected"),
        (b"", "not valid JSON"),
        (b"{\n", "not valid JSON"),
        (b"\xff\xfe", "not valid JSON"),
        (b'{"final_day":"180"}\n', "is not a seal: field 'schema' is missing"),
    ],
)
def test_a_seal_that_is_not_a_seal_object_is_an_integrity_failure(
    run: Path, tmp_path: Path, content: bytes, says: str
) -> None:
    (run / "seal.json").write_bytes(content)
    assert says in _error(_cli("verify", str(run)), 3)
    result = _cli("validate", "counterfactual", "--results", str(run), "--out", str(tmp_path / "o"))
    assert says in _error(result, 3)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("final_day", "180", "field 'final_day' is not a count"),
        ("journal_entries", True, "field 'journal_entries' is not a count"),
        ("identities", None, "field 'identities' is not an object"),
        ("signed_by", "me", "unknown field 'signed_by'"),
    ],
)
def test_a_seal_with_a_field_of_the_wrong_kind_is_named(
    run: Path, field: str, value: object, says: str
) -> None:
    """A canonical seal whose field has the wrong type fails verification naming the field."""
    seal = orjson.loads((run / "seal.json").read_bytes())
    (run / "seal.json").write_bytes(dumps({**seal, field: value}) + b"\n")
    assert f"seal.json is not a seal: {says}" in _error(_cli("verify", str(run)), 3)


def test_a_non_canonical_seal_is_refused(run: Path) -> None:
    seal = (run / "seal.json").read_bytes()
    (run / "seal.json").write_bytes(seal.replace(b'":', b'": ', 1))
    assert "not in canonical encoding" in _error(_cli("verify", str(run)), 3)


@pytest.mark.parametrize("kind", ["directory", "oversized"])
def test_a_seal_that_cannot_be_read_is_an_integrity_failure(run: Path, kind: str) -> None:
    seal = run / "seal.json"
    seal.unlink()
    if kind == "directory":
        seal.mkdir()
    else:
        seal.write_bytes(b" " * (2 * 1024 * 1024))
    message = _error(_cli("verify", str(run)), 3)
    assert "directory" in message if kind == "directory" else "larger than its limit" in message


def test_a_second_header_entry_is_refused(run: Path) -> None:
    journal = run / "journal.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    last = dumps_entry(len(lines), "header", previous=lines[-1])
    journal.write_bytes(b"".join(lines) + last)
    message = _error(_cli("verify", str(run)), 3)
    assert f"line {len(lines) + 1}" in message and "second header" in message
    assert "second header" in _error(_cli("run", "--out", str(run)), 3)


def dumps_entry(seq: int, kind: str, previous: bytes) -> bytes:
    """A well-chained journal line after `previous` (so only its kind is wrong)."""
    import orjson

    prev = orjson.loads(previous)["hash"]
    body = {"seq": seq, "day": 180, "kind": kind, "id": f"x-{seq}", "payload": {}, "prev": prev}
    return dumps({**body, "hash": entry_hash(prev, body)}) + b"\n"


def test_an_interrupted_run_is_sealed_by_opening_it_to_play(tmp_path: Path) -> None:
    """Killed between a command and its seal: verify says so and names what to do, and
    opening the run to play (no command needed) seals it where it stands, never played on."""
    run = tmp_path / "run"
    session = PlayerSession.create(run)
    session.advance(10)
    early_seal = (run / "seal.json").read_bytes()
    session.schedule("bank_loan")
    session.advance(5)
    session.close()
    (run / "seal.json").write_bytes(early_seal)  # killed after journaling, before sealing
    message = _error(_cli("verify", str(run)), 3)
    assert "the run was interrupted" in message and f"workbench play --run {run}" in message
    assert "differs" not in message
    PlayerSession.resume(run).close()
    assert _cli("verify", str(run)).exit_code == 0
    assert PlayerSession.resume(run, read_only=True).day == 15


def test_a_changed_seal_is_not_called_an_interruption(run: Path) -> None:
    seal = (run / "seal.json").read_bytes()
    (run / "seal.json").write_bytes(seal.replace(b'"final_day":180', b'"final_day":179'))
    message = _error(_cli("verify", str(run)), 3)
    assert "seal differs from re-execution in: final_day" in message
    assert "interrupted" not in message


@pytest.mark.parametrize("name", ["store.sqlite", "seal.json"])
def test_a_seal_or_store_that_is_a_directory_is_named_before_anything_is_written(
    tmp_path: Path, name: str
) -> None:
    """A refused command changes nothing: `finish` and `run` stop before the journal."""
    run = tmp_path / "run"
    with PlayerSession.create(run) as session:
        session.advance(3)
    (run / name).unlink(missing_ok=True)
    (run / name).mkdir()
    before = sorted(p.name for p in run.iterdir())
    journal = (run / "journal.jsonl").read_bytes()
    assert "is not a regular file" in _error(_cli("run", "--out", str(run)), 2)
    assert "is not a regular file" in _error(_cli("finish", str(run)), 2)
    assert sorted(p.name for p in run.iterdir()) == before
    assert (run / "journal.jsonl").read_bytes() == journal


def test_a_registration_without_a_journal_is_finished_by_the_next_writer(
    run: Path, tmp_path: Path
) -> None:
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    shutil.copy(run / "run.json", fresh / "run.json")  # creation stopped after run.json
    assert "creation was interrupted" in _error(_cli("show", str(fresh)), 3)
    result = _cli("run", "--out", str(fresh))
    assert result.exit_code == 0, result.output
    assert _cli("verify", str(fresh)).exit_code == 0


def test_a_lost_journal_beside_a_seal_is_an_integrity_failure(run: Path) -> None:
    (run / "journal.jsonl").write_bytes(b"")
    assert "the journal was lost" in _error(_cli("run", "--out", str(run)), 3)
    assert "no header" in _error(_cli("verify", str(run)), 3)


def test_a_journal_that_is_a_directory_is_an_integrity_failure(run: Path) -> None:
    (run / "journal.jsonl").unlink()
    (run / "journal.jsonl").mkdir()
    assert "is a directory" in _error(_cli("verify", str(run)), 3)
    assert "is a directory" in _error(_cli("show", str(run)), 3)


def test_a_run_json_that_is_not_valid_is_one_line_per_problem(run: Path) -> None:
    (run / "run.json").write_bytes(b'{"schema": "cfwb.run/1", "campaign_id": 7}')
    result = _cli("verify", str(run))
    assert result.exit_code == 3 and "Traceback" not in result.output  # an altered run.json
    lines = result.output.strip().splitlines()
    assert len(lines) > 2 and all(f"{run / 'run.json'}: " in line for line in lines)
    assert any("campaign_id: Input should be a valid string" in line for line in lines)
    assert any("agent_id: Field required" in line for line in lines)


def test_a_re_encoded_run_json_is_an_alteration(run: Path) -> None:
    import json

    document = json.loads((run / "run.json").read_text())
    (run / "run.json").write_text(json.dumps(document, indent=1))
    assert "run.json: not in canonical encoding" in _error(_cli("verify", str(run)), 3)


def test_a_run_of_another_engine_version_is_named_by_its_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run made by another engine is refused naming both versions, not as a ledger
    difference (a 1.0 run's seals hold ledger digest v1, which 1.1 cannot reproduce), nor
    as tampering (exit 2: its seal vouches for its header), and is neither resumed nor
    shown: playing on would only end in a failed validation."""
    from sim.version import ENGINE_VERSION

    with monkeypatch.context() as old_engine:
        old_engine.setattr("workbench.runs.files.ENGINE_VERSION", "cfwb-engine/1.0")
        old_engine.setattr("workbench.runs.environment.ENGINE_VERSION", "cfwb-engine/1.0")
        with PlayerSession.create(tmp_path / "run") as session:
            session.schedule("hire_sales_rep")
            session.advance(3)
    run = tmp_path / "run"
    message = _error(_cli("verify", str(run)), 2)
    assert message == (
        f"Error: {run} was made with engine 'cfwb-engine/1.0'; this workbench has engine "
        f"'{ENGINE_VERSION}': replay it with the workbench release that made it"
    )
    journal = (run / "journal.jsonl").read_bytes()
    for command in (["finish", str(run)], ["show", str(run)], ["snapshot", str(run)]):
        assert _error(_cli(*command), 2) == message
    assert (run / "journal.jsonl").read_bytes() == journal


ENVIRONMENT_FIELDS = {
    "engine_version": "engine",
    "numpy_version": "numpy",
    "bit_generator": "bit generator",
}
HEADER_FIELDS = (
    "engine_version",
    "numpy_version",
    "bit_generator",
    "campaign_id",
    "campaign_digest",
    "agent_id",
    "seed_commitment",
)


@pytest.mark.parametrize("field", HEADER_FIELDS)
def test_a_run_whose_header_differs_in_any_field_is_neither_verified_nor_resumed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, field: str
) -> None:
    """Every field the header pins is checked, by verify and by resume alike; the
    installation's fields (engine, numpy, bit generator) name another installation."""
    import workbench.play.session as session_module
    from workbench.runs.files import header_payload

    def other_header(*args: object) -> dict[str, object]:
        return {**header_payload(*args), field: "something-else"}  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(session_module, "header_payload", other_header)
        with PlayerSession.create(tmp_path / "run") as session:
            session.advance(2)
    run = tmp_path / "run"
    journal = (run / "journal.jsonl").read_bytes()
    if field in ENVIRONMENT_FIELDS:
        # Sealed as made: another installation, which the message names (exit 2).
        expected = f"was made with {ENVIRONMENT_FIELDS[field]} 'something-else'"
        assert expected in _error(_cli("verify", str(run)), 2)
        assert expected in _error(_cli("finish", str(run)), 2)
    else:
        assert f"header field {field} is 'something-else'" in _error(_cli("verify", str(run)), 3)
        refused = _error(_cli("finish", str(run)), 3)
        assert f"header field {field}" in refused and "cannot be resumed" in refused
    assert (run / "journal.jsonl").read_bytes() == journal


def test_every_header_field_is_among_those_checked(tmp_path: Path) -> None:
    with PlayerSession.create(tmp_path / "run") as session:
        session.advance(1)
    header = (tmp_path / "run" / "journal.jsonl").read_bytes().split(b"\n", 1)[0]
    assert set(orjson.loads(header)["payload"]) == set(HEADER_FIELDS)


def _in_place_of(path: Path, kind: str) -> None:
    """Put a named pipe with no writer, or a device, where a run's file was."""
    path.unlink()
    if kind == "named pipe":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


def _promptly(*args: str) -> Result:
    """`_cli(*args)` in a thread that must finish: a read waiting for a pipe's writer fails."""
    results: list[Result] = []
    worker = threading.Thread(target=lambda: results.append(_cli(*args)), daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert results, f"{args[0]} waited on the pipe"
    return results[0]


@pytest.mark.parametrize("kind", ["named pipe", "device"])
@pytest.mark.parametrize(
    ("name", "code"), [("run.json", 2), ("journal.jsonl", 3), ("seal.json", 3)]
)
def test_a_run_file_that_is_a_pipe_or_device_is_refused_without_waiting(
    run: Path, tmp_path: Path, kind: str, name: str, code: int
) -> None:
    """A planted pipe would hang verification (and a whole batch) waiting for a writer:
    each command names the file at once and validation writes nothing."""
    _in_place_of(run / name, kind)
    out = tmp_path / "out"
    commands = [
        ["verify", str(run)],
        ["validate", "counterfactual", "--results", str(run), "--out", str(out)],
    ]
    if name != "seal.json":  # show reads the journal, not the seal
        commands.append(["show", str(run)])
    for args in commands:
        line = _error(_promptly(*args), code)
        assert f"{run / name}: " in line and f"is a {kind}, not a regular file" in line, line
    assert not out.exists()
