"""Deterministic fault injection on real processes: a workbench command killed, or refused
by the disk, at each of its file system calls in turn (strace's syscall tampering).

The standard: every acknowledged command survives; the next writer repairs what a
killed or refused one left, and readers never take a damaged run for intact. strace
also records the order of the calls, which no kill can show: a rename is durable only
once its directory is fsynced (a power loss can forget it otherwise).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from sim.campaign_load import load_campaign
from tests.workbench.conftest import Private
from tests.workbench.faults import (
    ENV,
    NEEDS_STRACE,
    ROOT,
    SCRIPT,
    STRACE,
    calls,
    injected,
    one_line_failure,
    unfinished_run,
    workbench,
)
from workbench.play.session import PlayerSession

pytestmark = NEEDS_STRACE


@pytest.mark.parametrize("call", ["rename", "fsync", "write"])
def test_finish_killed_at_any_call_is_completed_by_the_next_writer(
    tmp_path: Path, call: str
) -> None:
    """Killed between its journaled finish and its seal, `finish` left the run
    'interrupted', and the next `finish` refused it as finished without sealing it: no
    command could ever repair it. Every writer opening a run now seals what it finds
    journaled beyond its seal."""
    base = unfinished_run(tmp_path / "base")
    shutil.copytree(base, tmp_path / "counted")
    total = calls(tmp_path, call, "finish", tmp_path / "counted")
    assert total >= 2
    for when in range(1, total + 1):
        run = tmp_path / f"run-{when}"
        shutil.copytree(base, run)
        killed = workbench(tmp_path, "finish", run, strace=injected(call, "signal=KILL", when))
        reader = workbench(tmp_path, "verify", run)
        if reader.returncode:
            one_line_failure(reader, {3})
        again = workbench(tmp_path, "finish", run)
        assert "Traceback" not in again.stderr
        verified = workbench(tmp_path, "verify", run)
        assert verified.returncode == 0, (call, when, killed.returncode, verified.stderr)
        assert "day 180" in verified.stdout


def test_finish_whose_seal_the_disk_refuses_is_sealed_by_the_next_writer(tmp_path: Path) -> None:
    """The disk refuses the seal after the finish is journaled: one line says the run is
    interrupted until it is opened again, and opening it (the next `finish`) seals it."""
    run = unfinished_run(tmp_path / "run")
    refused = workbench(tmp_path, "finish", run, strace=injected("rename", "error=EIO", 1))
    message = one_line_failure(refused, {2})
    assert "seal.json" in message and "opened again, which seals it" in message
    assert workbench(tmp_path, "verify", run).returncode == 3
    workbench(tmp_path, "finish", run)
    assert workbench(tmp_path, "verify", run).returncode == 0


def test_a_private_run_killed_before_its_first_seal_is_finished_by_the_next_writer(
    private: Private, tmp_path: Path
) -> None:
    """A headless private run wrote its whole journal, then its seal: killed between the
    two renames, it held every command unsealed, and was refused for ever ('a private
    run is always sealed'). The header is now sealed before any command is on file, so a
    run without a seal holds its header alone, and the next writer finishes creating it."""
    control = ("--control", private.control_path, "--agent", "agent-7")
    play = ("run", private.campaign, "--script", SCRIPT)
    total = calls(tmp_path, "rename", *play, "--out", tmp_path / "counted", *control)
    for when in range(1, total + 1):
        run = tmp_path / f"run-{when}"
        workbench(
            tmp_path, *play, "--out", run, *control, strace=injected("rename", "signal=KILL", when)
        )
        journal = run / "journal.jsonl"
        if journal.exists() and not (run / "seal.json").exists():
            assert journal.read_bytes().count(b"\n") == 1, "a command on file before a seal"
            reader = workbench(tmp_path, "verify", run, *control)
            assert "creation was interrupted" in one_line_failure(reader, {3})
        again = workbench(tmp_path, *play, "--out", run, *control)
        assert again.returncode == 0, (when, again.stderr)
        assert workbench(tmp_path, "verify", run, *control).returncode == 0


def test_a_development_run_whose_first_seal_failed_is_not_created(
    tmp_path: Path,
) -> None:
    """The disk refuses a new run's first seal: the run is not created at all (its
    run.json and journal header are removed again), so no run is left without a seal;
    a creation there succeeds once the disk takes it. (It had been left unsealed, and
    named damaged for ever, 'seal.json is missing', until opening it sealed it; a
    creation a kill interrupts is still finished by the next writer, above.)"""
    run = tmp_path / "run"
    created = subprocess.run(
        [
            STRACE or "strace",
            "-f",
            "-qq",
            *injected("rename", "error=EIO", 3),
            sys.executable,
            "-c",
            "import sys; from workbench.play.session import PlayerSession as S;"
            "S.create(sys.argv[1])",
            str(run),
        ],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "seal.json" in created.stderr and "the run was not created" in created.stderr
    assert sorted(p.name for p in run.iterdir()) == ["run.lock"]
    PlayerSession.create(run).close()
    assert workbench(tmp_path, "verify", run).returncode == 0


_MADE = re.compile(
    r'^\d+\s+(?:rename\("[^"]*", "(?P<renamed>[^"]+)"\)|mkdir\("(?P<made>[^"]+)", \d+\)'
    r'|link\("[^"]*", "(?P<linked>[^"]+)"\)) = 0',
    re.M,
)
_FSYNC_DIR = re.compile(r"^\d+\s+fsync\(\d+<(?P<path>[^>]+)>\) = 0", re.M)


def _run_args(tmp_path: Path, command: str) -> tuple[Path, tuple[str | Path, ...]]:
    """What `command` writes (the folder or file to watch) and its arguments; the runs it
    reads are made first, untraced."""
    run = tmp_path / "run"
    if command == "run":
        return run, ("run", "--script", SCRIPT, "--out", run)
    if command == "finish":
        unfinished_run(run)
        return run, ("finish", run)
    new = tmp_path / "new"
    if command == "demo":
        return new, ("demo", "--out", new / "demo")
    if command == "new":
        return new, ("new", new / "campaign")
    if command == "causal":
        return new, ("causal", "generate", "--family", "ate", "--task-id", "7", "--out", new / "t")
    finished = workbench(tmp_path, "run", "--script", SCRIPT, "--out", tmp_path / "runs" / "a")
    assert finished.returncode == 0, finished.stderr
    out = tmp_path / "new" / "out"
    if command == "validate":
        return out, (
            "validate",
            "counterfactual",
            "--results",
            tmp_path / "runs" / "a",
            "--out",
            out,
        )
    if command == "batch":
        return out, ("validate", "counterfactual", tmp_path / "runs", "--all-agents", "--out", out)
    assert command == "ledger"
    out.parent.mkdir()
    return out, ("ledger", tmp_path / "runs" / "a", "--format", "csv", "--out", out)


@pytest.mark.parametrize(
    "command", ["run", "finish", "validate", "batch", "ledger", "demo", "new", "causal"]
)
def test_every_name_a_command_creates_is_made_durable_before_it_returns(
    tmp_path: Path, command: str
) -> None:
    """A rename, link or mkdir is only durable once its directory is fsynced: without that,
    a power loss after `played to day 180` could forget run.json or journal.jsonl (and
    every command in it), and one after `report written` the report. Each one a command
    makes in what it writes must be followed by an fsync of the directory holding it."""
    written, args = _run_args(tmp_path, command)
    log = tmp_path / "trace.log"
    calls = "trace=rename,renameat,renameat2,mkdir,link,linkat,fsync"
    result = workbench(tmp_path, *args, strace=("-y", "-o", str(log), "-e", calls))
    assert result.returncode in (0, 1), result.stderr
    lines = log.read_text().splitlines()
    checked = 0
    for index, line in enumerate(lines):
        made = _MADE.match(line)
        if made is None:
            continue
        target = (tmp_path / (made["renamed"] or made["made"] or made["linked"])).resolve()
        if target != written and written not in target.parents:
            continue
        checked += 1
        directory = str(target.parent)
        later = [m["path"] for m in map(_FSYNC_DIR.match, lines[index + 1 :]) if m]
        assert directory in later, f"{line}: {directory} never fsynced after it"
    assert checked, f"{command} made no name in {written}"


def test_a_host_makes_its_new_runs_directory_durably(private: Private, tmp_path: Path) -> None:
    """The host creates its runs directory (and the staging folder in it) when missing:
    both names must be fsynced into their parents before any run in them is acknowledged,
    or a power loss forgets every run at once."""
    runs = tmp_path / "new" / "runs"
    log = tmp_path / "trace.log"
    command = [STRACE or "strace", "-f", "-qq", "-y", "-o", str(log), "-e", "trace=mkdir,fsync"]
    host = [sys.executable, "-m", "workbench", "host", str(private.campaign)]
    options = ["--control", str(private.control_path), "--runs", str(runs)]
    result = subprocess.run(
        [*command, *host, *options, "--stdio", "--agent", "agent-7"],
        cwd=tmp_path,
        env={**ENV, **os.environ, "PYTHONPATH": str(ROOT)},  # this test's own state folder
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    lines = log.read_text().splitlines()
    made = [(i, m["made"]) for i, m in enumerate(map(_MADE.match, lines)) if m and m["made"]]
    names = {str((tmp_path / name).resolve()) for _, name in made}
    assert {str(runs), str(runs.parent)} <= names, names
    for index, name in made:
        directory = str((tmp_path / name).resolve().parent)
        later = [m["path"] for m in map(_FSYNC_DIR.match, lines[index + 1 :]) if m]
        assert directory in later, f"{lines[index]}: {directory} never fsynced after it"


_OPEN = re.compile(r'^\d+\s+openat\(AT_FDCWD[^,]*, "(?P<path>[^"]+)", [^)]*\) = \d+', re.M)


def opened(cwd: Path, *args: str | Path) -> list[str]:
    """The names of the files `workbench ARGS` opens, in order (it must succeed)."""
    log = cwd / "open.log"
    result = workbench(cwd, *args, strace=("-o", str(log), "-e", "trace=openat"))
    assert result.returncode == 0, result.stderr
    names = [Path(m["path"]).name for m in map(_OPEN.match, log.read_text().splitlines()) if m]
    log.unlink()
    return names


def test_readers_read_the_seal_before_the_journal(private: Private, tmp_path: Path) -> None:
    """A reader racing the run's writer read the journal, then the seal: when the writer
    appended and sealed in between, the seal covered entries the reader had not read, and
    verify said 'seal differs from re-execution' (an edit) of an honest run, and `show` of
    a private run 'does not seal this journal'. Read seal first, the journal can only have
    grown since: at worst the seal lags it, which is named as such."""
    control = ("--control", private.control_path, "--agent", "agent-7")
    run = tmp_path / "run"
    created = workbench(tmp_path, "run", private.campaign, "--out", run, *control)
    assert created.returncode == 0, created.stderr
    for reader in ("verify", "show"):
        names = opened(tmp_path, reader, run, *control)
        assert names.index("seal.json") < names.index("journal.jsonl"), (reader, names)


def test_verify_names_a_live_writer_instead_of_an_interruption(tmp_path: Path) -> None:
    """A run whose seal lags its journal while its writer is at work is not interrupted:
    verify names the writer (from the lock file, taking no lock) and says to wait."""
    run = tmp_path / "run"
    session = PlayerSession.create(run, autoseal=False, write_ahead=True)
    session.seal()
    session.advance(2)
    try:
        result = workbench(tmp_path, "verify", run)
        message = one_line_failure(result, {2})
        assert f"being written by pid {os.getpid()}" in message, message
        assert "once that writer is done" in message
    finally:
        session.close()
    after = one_line_failure(workbench(tmp_path, "verify", run), {3})
    assert "interrupted" in after and "being written" not in after


def test_a_torn_line_read_while_its_writer_appends_is_the_writer_at_work(tmp_path: Path) -> None:
    """A reader that caught an append halfway called the run damaged (exit 3, a torn last
    line) while its writer was alive; with the writer named it is exit 2, wait for it. Once
    the writer is gone the same bytes are damage again."""
    run = tmp_path / "run"
    session = PlayerSession.create(run, autoseal=False, write_ahead=True)
    session.seal()
    try:
        with (run / "journal.jsonl").open("ab") as journal:
            journal.write(b'{"seq": 1, "day": 0, "kind": "adv')
        message = one_line_failure(workbench(tmp_path, "verify", run), {2})
        assert f"being written by pid {os.getpid()}" in message, message
    finally:
        session.close()
    assert "being written" not in one_line_failure(workbench(tmp_path, "verify", run), {3})


def test_a_dead_writers_pid_given_to_another_process_names_no_writer(tmp_path: Path) -> None:
    """The lock file still names a writer killed outright; when its pid now belongs to a
    process started after the lock was taken, that process is not the writer."""
    run = tmp_path / "run"
    session = PlayerSession.create(run, autoseal=False, write_ahead=True)
    session.seal()
    session.advance(2)
    session.close()
    holder = {"pid": os.getpid(), "command": "workbench play", "since": "2020-01-01T00:00:00+00:00"}
    (run / "run.lock").write_bytes(orjson.dumps(holder))
    message = one_line_failure(workbench(tmp_path, "verify", run), {3})
    assert "interrupted" in message and "being written" not in message


def test_a_lock_naming_a_live_process_never_hides_a_changed_journal(tmp_path: Path) -> None:
    """Only a torn tail or a seal lagging the journal may be a writer at work: a run.lock
    planted to name a live process (here pid 1, up since boot) leaves a changed entry an
    integrity failure (exit 3), not a 'being written' refusal."""
    run = tmp_path / "run"
    session = PlayerSession.create(run, autoseal=False, write_ahead=True)
    session.seal()
    session.advance(2)
    session.seal()
    session.close()
    journal = run / "journal.jsonl"
    journal.write_bytes(journal.read_bytes().replace(b'"days":2', b'"days":3', 1))
    holder = {"pid": 1, "command": "workbench play", "since": "2099-01-01T00:00:00+00:00"}
    (run / "run.lock").write_bytes(orjson.dumps(holder))
    message = one_line_failure(workbench(tmp_path, "verify", run), {3})
    assert "being written" not in message and "changed" in message, message


@pytest.mark.parametrize("call", ["write", "fsync", "rename"])
def test_new_killed_at_any_call_leaves_no_half_made_campaign_after_the_next_new(
    tmp_path: Path, call: str
) -> None:
    """`new` writes the campaign into a hidden folder beside its target and renames it into
    place: killed before that rename, it left `.NAME-XXXXXXXX` holding a whole campaign
    (check passed it), and nothing ever removed it. The target is now whole or absent,
    and the next `new` in that folder removes what a killed one left."""
    (tmp_path / "counted").mkdir()
    total = calls(tmp_path, call, "new", tmp_path / "counted" / "c")
    assert total >= 1
    for when in range(1, total + 1):
        parent = tmp_path / f"kill-{when}"
        parent.mkdir()
        killed = workbench(
            tmp_path, "new", parent / "c", strace=injected(call, "signal=KILL", when)
        )
        assert killed.returncode != 0, (call, when)
        if (parent / "c").exists():
            assert load_campaign(parent / "c").id == "c"
        again = workbench(tmp_path, "new", parent / "other")
        assert again.returncode == 0, again.stderr
        left = sorted(p.name for p in parent.iterdir())
        assert left in (["other"], ["c", "other"]), (call, when, left)
