"""The SQLite store is a cache of a finished run: a `finish` killed while writing it left
no store, and no command would write it again (`finish` refused the run as finished).

The store is written to a temporary sibling, fsynced and renamed, so a killed write
leaves the temporary (which the next writer removes) and never a half-written
store.sqlite; a store that is there is read only after a check (`store_problem`: an
SQLite file of the store's schema whose integrity check passes, of this run's ledger).
The next `finish` of a finished run whose store is missing, damaged or out of date
writes it again (exit 0); a finished run whose store is whole is refused as before.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result

from tests.workbench.faults import NEEDS_STRACE, calls, injected, unfinished_run, workbench
from workbench.cli import main
from workbench.runs.verify import verify_run


def _cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def _whole_store(run: Path) -> None:
    """The run's store is a whole SQLite store of the ledger its seal names, with no
    temporary beside it."""
    seal = orjson.loads((run / "seal.json").read_bytes())
    db = sqlite3.connect(f"{(run / 'store.sqlite').resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
    finally:
        db.close()
    assert meta["ledger_digest"] == seal["ledger_digest"]
    assert meta["last_closed_day"] == seal["final_day"] == 180
    assert not list(run.glob(".store.sqlite.*.tmp"))


@NEEDS_STRACE
def test_finish_killed_while_writing_the_store_leaves_no_store_and_the_next_finish_writes_it(
    tmp_path: Path,
) -> None:
    """Killed (SIGKILL) at the store's rename, its last: the temporary is there, no
    store.sqlite; the run is finished and sealed, so `verify` passes; `finish` again
    writes the store (it said 'is finished: it accepts no further command', exit 2)."""
    base = unfinished_run(tmp_path / "base")
    shutil.copytree(base, tmp_path / "counted")
    renames = calls(tmp_path, "rename", "finish", tmp_path / "counted")
    run = tmp_path / "run"
    shutil.copytree(base, run)
    killed = workbench(tmp_path, "finish", run, strace=injected("rename", "signal=KILL", renames))
    assert killed.returncode != 0
    assert not (run / "store.sqlite").exists()
    assert list(run.glob(".store.sqlite.*.tmp")), sorted(p.name for p in run.iterdir())
    assert workbench(tmp_path, "verify", run).returncode == 0
    again = workbench(tmp_path, "finish", run)
    assert again.returncode == 0, again.stderr
    assert (
        again.stdout.strip()
        == f"{run}: finished already on day 180; its store (missing) is written again"
    )
    _whole_store(run)
    assert verify_run(run).ok


@NEEDS_STRACE
@pytest.mark.parametrize("call", ["fsync", "pwrite64"])
def test_finish_killed_at_any_store_write_is_completed_by_the_next_finish(
    tmp_path: Path, call: str
) -> None:
    """Killed at each fsync (the journal's, the seal's, the store's) or while SQLite writes
    the store's pages: the next `finish` leaves a finished, verified run with a whole store."""
    base = unfinished_run(tmp_path / "base")
    shutil.copytree(base, tmp_path / "counted")
    total = calls(tmp_path, call, "finish", tmp_path / "counted")
    assert total >= 1
    # Every fsync; SQLite's page writes at the first, the middle and the last (each kill
    # costs a process: all of them took 90 s).
    whens = range(1, total + 1) if call == "fsync" else sorted({1, (total + 1) // 2, total})
    for when in whens:
        run = tmp_path / f"run-{when}"
        shutil.copytree(base, run)
        workbench(tmp_path, "finish", run, strace=injected(call, "signal=KILL", when))
        if (run / "store.sqlite").exists():
            _whole_store(run)  # never a half-written store in its place
        again = workbench(tmp_path, "finish", run)
        assert "Traceback" not in again.stderr
        _whole_store(run)
        assert verify_run(run).ok, (call, when)


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """A run finished by `finish`, with its store."""
    run = unfinished_run(tmp_path / "run")
    assert _cli("finish", run).exit_code == 0
    _whole_store(run)
    return run


def _truncated(store: Path) -> None:
    data = store.read_bytes()
    store.write_bytes(data[: len(data) // 2])


def _junk(store: Path) -> None:
    store.write_bytes(b"not a database\n" * 1000)


def _stale(store: Path) -> None:
    with sqlite3.connect(store) as db:
        db.execute("UPDATE meta SET value = 'an older ledger' WHERE key = 'ledger_digest'")
    db.close()


def _empty(store: Path) -> None:
    store.write_bytes(b"")


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (Path.unlink, "missing"),
        (_truncated, "not a store"),
        (_junk, "not a store"),
        (_empty, "not a store"),
        (_stale, "out of date"),
    ],
    ids=["missing", "truncated", "junk", "empty", "stale"],
)
def test_finish_writes_a_missing_or_damaged_store_of_a_finished_run_again(
    finished: Path, damage: object, says: str
) -> None:
    store = finished / "store.sqlite"
    assert callable(damage)
    damage(store)
    result = _cli("finish", finished)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{finished}: finished already on day 180; its store (")
    assert says in result.stdout and result.stderr == ""
    _whole_store(finished)


def test_a_finished_run_with_a_whole_store_is_still_refused(finished: Path) -> None:
    before = (finished / "store.sqlite").read_bytes()
    result = _cli("finish", finished)
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"Error: {finished} is finished (day 180 of 180): it accepts no further command\n"
    )
    assert (finished / "store.sqlite").read_bytes() == before
