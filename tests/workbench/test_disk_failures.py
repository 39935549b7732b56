"""A disk that refuses a write, and what a killed writer leaves: nothing acknowledged is
lost, nothing refused is applied, and the next writer repairs the rest.

The failures are real: the process's files may not grow beyond a size (RLIMIT_FSIZE, so
a write fails with EFBIG partway, as on a full disk), or a file's place is taken by a
directory. A journal line the disk cut short is removed again by the failing append
itself, or else by the next writer, under the run lock; readers only name it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.workbench.faults import files_may_not_grow_beyond, fsync_then_cut_fail
from workbench.cli import main
from workbench.errors import IntegrityError, StorageError, UserError
from workbench.play.session import PlayerSession
from workbench.runs.lock import RunLock, RunLocked
from workbench.runs.verify import verify_run


@pytest.fixture
def session(tmp_path: Path) -> Iterator[PlayerSession]:
    """A development run three days in, journaled and sealed after every command."""
    played = PlayerSession.create(tmp_path / "run")
    played.advance(3)
    yield played
    played.close()


COMMANDS: dict[str, Callable[[PlayerSession], object]] = {
    "advance": lambda s: s.advance(1),
    "schedule": lambda s: s.schedule("bank_loan"),
    "submit_assessment": lambda s: s.submit({"question": "q_bank_loan", "value": "-250"}),
    "finish": lambda s: s.finish(),
}


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_a_command_the_disk_cuts_short_is_not_applied_and_the_run_is_as_it_was(
    session: PlayerSession, kind: str
) -> None:
    journal = session.paths.journal
    before = journal.read_bytes()
    day, entries = session.day, len(session.journal_entries)
    with files_may_not_grow_beyond(len(before) + 40), pytest.raises(StorageError) as refused:
        COMMANDS[kind](session)
    assert f"cannot write the {kind}" in refused.value.message
    assert "not applied" in refused.value.message and str(journal) in refused.value.message
    assert journal.read_bytes() == before
    assert (session.day, len(session.journal_entries)) == (day, entries)
    assert verify_run(session.paths.root).ok
    COMMANDS[kind](session)
    assert len(session.journal_entries) == entries + 1
    assert verify_run(session.paths.root).ok


def test_the_cli_says_so_in_one_line_and_nothing_changes(
    session: PlayerSession, tmp_path: Path
) -> None:
    session.close()
    run = session.paths.root
    before = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    script = tmp_path / "script.jsonl"
    script.write_text('{"kind":"schedule","action":"bank_loan"}\n' * 40)
    with files_may_not_grow_beyond(len(before["journal.jsonl"]) + 40):
        result = CliRunner().invoke(main, ["run", "--out", str(run), "--script", str(script)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "cannot" in result.output
    after = {p.name: p.read_bytes() for p in run.iterdir() if p.is_file()}
    assert after["journal.jsonl"] == before["journal.jsonl"]
    assert verify_run(run).ok


def _torn(run: Path, fragment: bytes = b'{"day":3,"hash":"54') -> bytes:
    """Append a fragment of a line, as an append killed partway leaves it; the whole journal."""
    journal = run / "journal.jsonl"
    whole = journal.read_bytes()
    journal.write_bytes(whole + fragment)
    return whole


def test_a_torn_last_line_is_cut_by_the_next_writer_and_only_named_by_readers(
    session: PlayerSession,
) -> None:
    session.close()
    run = session.paths.root
    whole = _torn(run)
    torn = (run / "journal.jsonl").read_bytes()
    assert "is torn" in (verify_run(run).divergence or "")
    assert CliRunner().invoke(main, ["show", str(run)]).exit_code == 3
    assert (run / "journal.jsonl").read_bytes() == torn
    with PlayerSession.resume(run) as resumed:
        assert resumed.repairs.cut_tail
        assert (run / "journal.jsonl").read_bytes() == whole
        resumed.advance(1)
    assert verify_run(run).ok


def test_a_torn_line_a_seal_covers_is_never_cut(session: PlayerSession) -> None:
    """The seal covers every whole entry: a last entry that lost its newline was
    acknowledged, so cutting it would drop it. The writer refuses; nothing changes."""
    session.close()
    journal = session.paths.journal
    journal.write_bytes(journal.read_bytes()[:-1])
    damaged = journal.read_bytes()
    with pytest.raises(IntegrityError, match="a sealed entry was lost"):
        PlayerSession.resume(session.paths.root)
    assert journal.read_bytes() == damaged


def test_a_sealed_line_lost_whole_is_never_sealed_over(session: PlayerSession) -> None:
    """The same loss one byte earlier: the journal lost its last line whole, newline and
    all. A writer went on from the shorter journal, and its next seal replaced the one
    that named the loss: an acknowledged command vanished and the run verified."""
    session.schedule("bank_loan", "sealed")
    session.close()
    journal = session.paths.journal
    whole = journal.read_bytes()
    journal.write_bytes(whole[: whole.rstrip(b"\n").rfind(b"\n") + 1])
    damaged = journal.read_bytes()
    with pytest.raises(IntegrityError, match="a sealed entry was lost") as refused:
        PlayerSession.resume(session.paths.root)
    assert "\n" not in refused.value.message
    assert journal.read_bytes() == damaged
    assert not verify_run(session.paths.root).ok


def test_a_killed_writers_temporary_files_are_removed_by_the_next(
    session: PlayerSession,
) -> None:
    session.close()
    run = session.paths.root
    for name in (".seal.json.0123456789ab.tmp", ".store.sqlite.k2j4h5g6.tmp"):
        (run / name).write_bytes(b"half")
    (run / ".odd.tmp").mkdir()
    with PlayerSession.resume(run) as resumed:
        assert resumed.repairs.leftovers == (
            ".seal.json.0123456789ab.tmp",
            ".store.sqlite.k2j4h5g6.tmp",
        )
    assert sorted(p.name for p in run.iterdir() if p.name.endswith(".tmp")) == [".odd.tmp"]


def test_a_creation_killed_before_run_json_is_finished_but_a_users_file_is_kept(
    tmp_path: Path,
) -> None:
    killed = tmp_path / "killed"
    killed.mkdir()
    (killed / "run.lock").write_bytes(b"")
    (killed / ".run.json.0123456789ab.tmp").write_bytes(b'{"half')
    result = CliRunner().invoke(main, ["run", "--out", str(killed)])
    assert result.exit_code == 0, result.output
    assert not list(killed.glob("*.tmp")) and verify_run(killed).ok
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / ".notes.tmp").write_text("keep me")
    with pytest.raises(UserError, match="not an empty run directory"):
        PlayerSession.create(mine).advance(1)
    assert (mine / ".notes.tmp").read_text() == "keep me"


def test_a_full_disk_does_not_keep_a_writer_from_its_run(session: PlayerSession) -> None:
    """The lock file names its holder as a courtesy: a disk with no room for the name
    still gives the lock, and a second writer is still refused."""
    session.close()
    run = session.paths.root
    with files_may_not_grow_beyond(0):
        lock = RunLock.acquire(run)
    try:
        with pytest.raises(RunLocked, match="another process"):
            RunLock.acquire(run)
    finally:
        lock.release()


def test_a_seal_that_cannot_be_written_does_not_undo_the_command(
    session: PlayerSession,
) -> None:
    """The command is journaled and applied before its seal: a seal the disk refuses is
    the session's `seal_problem`, and the next seal that can be written clears it."""
    seal = session.paths.seal
    os.unlink(seal)
    seal.mkdir()
    assert session.advance(1) == 4
    assert session.seal_problem is not None and "seal.json" in session.seal_problem
    seal.rmdir()
    session.advance(1)
    assert session.seal_problem is None and verify_run(session.paths.root).ok


@pytest.mark.parametrize("kind", sorted(COMMANDS))
def test_a_whole_line_the_disk_would_not_sync_or_cut_is_recorded_and_cut_by_the_next_writer(
    session: PlayerSession, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    """Two faults at once: the append's fsync fails and cutting the line off fails too, so
    the file ends in a whole line that was never acknowledged. The cut is recorded
    (journal.jsonl.cut); readers name the line, the next writer cuts it: the command the
    user saw refused never takes effect."""
    journal = session.paths.journal
    before = journal.read_bytes()
    day, entries = session.day, len(session.journal_entries)
    with fsync_then_cut_fail(monkeypatch, fsyncs=1), pytest.raises(StorageError) as refused:
        COMMANDS[kind](session)
    assert "recorded in journal.jsonl.cut" in refused.value.message
    assert "not applied" in refused.value.message
    assert journal.read_bytes().startswith(before) and len(journal.read_bytes()) > len(before)
    assert (journal.parent / "journal.jsonl.cut").read_bytes() == b"%d\n" % len(before)
    with pytest.raises(StorageError, match="torn"):
        session.advance(1)
    session.close()
    run = session.paths.root
    assert "never acknowledged" in (verify_run(run).divergence or "")
    shown = CliRunner().invoke(main, ["show", str(run)])
    assert shown.exit_code == 3 and "never acknowledged" in shown.output
    with PlayerSession.resume(run) as resumed:
        assert resumed.repairs.cut_tail
        assert journal.read_bytes() == before and not (run / "journal.jsonl.cut").exists()
        assert (resumed.day, len(resumed.journal_entries)) == (day, entries)
        COMMANDS[kind](resumed)
    assert verify_run(run).ok


def test_held_back_commands_that_tore_the_journal_are_never_written_behind_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A session that holds its commands back (`workbench run`) writes them at its seal:
    when that append's fsync and its cut both fail, the journal ends in their lines, never
    acknowledged. A second seal appended them again behind those lines and sealed them, so
    the next writer could neither cut the first copy (the seal covers it) nor keep it: the
    run was lost. Now every later seal and command is refused until the run is reopened."""
    session = PlayerSession.create(tmp_path / "run", autoseal=False)
    session.seal()
    session.advance(2)
    journal, seal = session.paths.journal, session.paths.seal
    before, sealed = journal.read_bytes(), seal.read_bytes()
    with fsync_then_cut_fail(monkeypatch, fsyncs=1), pytest.raises(StorageError) as refused:
        session.seal()
    assert "recorded in journal.jsonl.cut" in refused.value.message
    torn = journal.read_bytes()
    for again in (session.seal, lambda: session.advance(1)):
        with pytest.raises(StorageError, match="torn"):
            again()
        assert journal.read_bytes() == torn and seal.read_bytes() == sealed
    session.close()
    with PlayerSession.resume(session.paths.root) as resumed:
        assert resumed.repairs.cut_tail and journal.read_bytes() == before
        assert resumed.day == 0
        resumed.advance(2)
    assert verify_run(session.paths.root).ok


def test_a_cut_that_cannot_be_recorded_either_says_so_and_takes_no_more_commands(
    session: PlayerSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three faults: not even the record of the cut can be written. The message says so
    and the session refuses every later command rather than write behind the line."""
    with fsync_then_cut_fail(monkeypatch, fsyncs=10), pytest.raises(StorageError) as refused:
        session.advance(1)
    assert "could not be recorded either" in refused.value.message
    assert not (session.paths.root / "journal.jsonl.cut").exists()
    assert not list(session.paths.root.glob(".*.tmp"))
    with pytest.raises(StorageError, match="torn"):
        session.advance(1)


@pytest.mark.parametrize(
    ("record", "problem"),
    [(b"12x\n", "not a recorded cut"), (b"99999999\n", "acknowledged entries were lost")],
)
def test_a_recorded_cut_that_does_not_fit_the_journal_is_refused_and_changes_nothing(
    session: PlayerSession, record: bytes, problem: str
) -> None:
    session.close()
    run = session.paths.root
    (run / "journal.jsonl.cut").write_bytes(record)
    before = session.paths.journal.read_bytes()
    assert problem in (verify_run(run).divergence or "")
    with pytest.raises(IntegrityError, match=problem):
        PlayerSession.resume(run)
    assert session.paths.journal.read_bytes() == before


def test_a_recorded_cut_into_a_sealed_entry_is_refused(session: PlayerSession) -> None:
    """A record that would cut entries the seal covers (acknowledged) is never obeyed."""
    session.close()
    run = session.paths.root
    journal = session.paths.journal
    first_line = journal.read_bytes().index(b"\n") + 1
    (run / "journal.jsonl.cut").write_bytes(b"%d\n" % first_line)
    before = journal.read_bytes()
    with pytest.raises(IntegrityError, match="a sealed entry was lost"):
        PlayerSession.resume(run)
    assert journal.read_bytes() == before
    said = verify_run(run).divergence or ""  # a reader promises no repair that won't come
    assert "the run cannot be repaired" in said and "next writer" not in said
    (run / "journal.jsonl.cut").write_bytes(b"%d\n" % (first_line + 5))
    assert "would split a line" in (verify_run(run).divergence or "")
