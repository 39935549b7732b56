"""Group commit: a command on the event loop is acknowledged only once its journal is durable.

The host applies a command to an open run on its event loop and writes the journal line
without fsync; the syncer thread fsyncs it (with every other run's) and only then is the
reply sent. These tests hold the syncer's fsync, break it, and hold a run's lock, and
check what a client sees.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest

from ledger.journal import Journal
from workbench.host import syncer as syncer_module
from workbench.host.agent_threads import THREADS_PER_AGENT
from workbench.host.api import Api
from workbench.host.runtime import Limits
from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, BRAVO, Hosted, Live, async_http_client


@pytest.fixture
def quiet_live(hosted: Hosted) -> Iterator[Live]:
    """A live host whose sealer waits a minute (it syncs journals on its own when it seals)."""
    runtime = hosted.runtime(Limits(seal_interval=60))
    with ServerThread(runtime) as server:
        yield Live(hosted, runtime, server.url)
    runtime.close()


def start(live: Live, agent: str) -> str:
    reply = live.client(agent).post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    return str(reply.json()["run"]["run_id"])


def advance_in_thread(live: Live, agent: str, run_id: str, command_id: str) -> dict[str, object]:
    """POST an advance from a thread; the dict gets `response` when it returns."""
    done: dict[str, object] = {}

    def post() -> None:
        with live.client(agent) as client:
            done["response"] = client.post(
                f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": command_id, "days": 1}
            )

    thread = threading.Thread(target=post)
    thread.start()
    done["thread"] = thread
    return done


@pytest.fixture
def held_fsync(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[threading.Event, threading.Event]]:
    """The syncer's fsync, held: `entered` when it starts, it goes on at `release`."""
    entered, release = threading.Event(), threading.Event()
    real = syncer_module.fsync_file

    def held(path: Path) -> None:
        entered.set()
        assert release.wait(60)
        real(path)

    monkeypatch.setattr(syncer_module, "fsync_file", held)
    yield entered, release
    release.set()


def test_no_reply_before_the_journal_is_durable(
    quiet_live: Live, held_fsync: tuple[threading.Event, threading.Event]
) -> None:
    live = quiet_live
    entered, release = held_fsync
    run_id = start(live, ALPHA)
    first = advance_in_thread(live, ALPHA, run_id, "a")
    assert entered.wait(30)
    retry = advance_in_thread(live, ALPHA, run_id, "a")  # the same command, sent again
    first["thread"].join(0.3)  # type: ignore[attr-defined]
    assert "response" not in first and "response" not in retry
    journal = Journal.open(live.hosted.runs / run_id / "journal.jsonl")
    assert [e.id for e in journal.entries[1:]] == ["a"]  # written, not yet acknowledged
    release.set()
    for sent in (first, retry):
        sent["thread"].join(30)  # type: ignore[attr-defined]
        response = sent["response"]
        assert isinstance(response, httpx2.Response) and response.status_code == 200
    assert retry["response"].json()["retry"] is True  # type: ignore[attr-defined]


def test_a_journal_that_cannot_be_made_durable_is_never_acknowledged(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    import errno

    run_id, other = start(live, ALPHA), start(live, BRAVO)

    def failing(path: Path) -> None:
        if run_id in str(path):
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(syncer_module, "fsync_file", failing)
    with live.client(ALPHA) as client:
        path = f"{API_PREFIX}/runs/{run_id}/advance"
        reply = client.post(path, json={"command_id": "a", "days": 1})
        assert reply.status_code == 503
        error = reply.json()["error"]
        assert error["code"] == "run_damaged" and "not acknowledged" in error["message"]
        refused = client.post(path, json={"command_id": "b", "days": 1})
        assert refused.status_code == 503
        assert "could not be made durable" in refused.json()["error"]["message"]
    journal = live.hosted.runs / run_id / "journal.jsonl"
    assert [e.id for e in Journal.open(journal).entries[1:]] == []  # the refused line is cut
    with live.client(BRAVO) as client:
        reply = client.post(
            f"{API_PREFIX}/runs/{other}/advance", json={"command_id": "c", "days": 1}
        )
        assert reply.status_code == 200
    monkeypatch.undo()
    live.runtime.close()
    restarted = live.hosted.runtime()
    try:
        assert restarted.run_info(ALPHA, run_id).day == 0  # never applied, after a restart too
    finally:
        restarted.close()


def test_a_run_locked_elsewhere_does_not_stall_the_others(live: Live) -> None:
    busy, free = start(live, ALPHA), start(live, BRAVO)
    lock = live.runtime._runs[busy].lock
    lock.acquire()
    try:
        waiting = advance_in_thread(live, ALPHA, busy, "a")
        with live.client(BRAVO) as client:
            reply = client.post(
                f"{API_PREFIX}/runs/{free}/advance", json={"command_id": "b", "days": 1}
            )
        assert reply.status_code == 200
        assert "response" not in waiting
    finally:
        lock.release()
    waiting["thread"].join(30)  # type: ignore[attr-defined]
    response = waiting["response"]
    assert isinstance(response, httpx2.Response) and response.status_code == 200


def test_a_refused_line_that_cannot_be_cut_is_recorded_and_cut_on_restart(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The syncer's fsync fails and so does cutting the unacknowledged line off: the host
    records the cut (journal.jsonl.cut) and its next start cuts the line, so the command
    answered 503 is never applied. The ftruncate is the injected fault (a real disk cannot
    be made to refuse it on demand); the record and the repair are real."""
    import errno
    import os

    from workbench.runs.verify import verify_run

    run_id = start(live, ALPHA)
    journal = live.hosted.runs / run_id / "journal.jsonl"
    before = journal.read_bytes()

    def failing(path: Path) -> None:
        if run_id in str(path):
            raise OSError(errno.EIO, "Input/output error")

    def no_cut(fd: int, length: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(syncer_module, "fsync_file", failing)
    monkeypatch.setattr(os, "ftruncate", no_cut)
    with live.client(ALPHA) as client:
        reply = client.post(
            f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 1}
        )
        assert reply.status_code == 503
    monkeypatch.undo()
    assert len(journal.read_bytes()) > len(before)
    assert (journal.parent / "journal.jsonl.cut").read_bytes() == b"%d\n" % len(before)
    live.runtime.close()
    control = live.hosted.control
    assert "never acknowledged" in (verify_run(journal.parent, control, ALPHA).divergence or "")
    restarted = live.hosted.runtime()
    try:
        assert restarted.run_info(ALPHA, run_id).day == 0
        assert journal.read_bytes().startswith(before)
        assert not (journal.parent / "journal.jsonl.cut").exists()
    finally:
        restarted.close()
    assert verify_run(journal.parent, control, ALPHA).ok


def test_one_agent_flooding_a_locked_run_leaves_threads_for_the_others(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sixty requests of one agent all waiting on its run's lock used to hold every worker
    thread (40), so another agent's request waited for that lock too; now an agent's
    requests hold at most a few threads and the others are served meanwhile."""
    arrived = threading.Semaphore(0)
    handler = Api.snapshot

    async def counted(self: Api, request: object, agent: str) -> object:
        arrived.release()
        return await handler(self, request, agent)  # type: ignore[arg-type]

    monkeypatch.setattr(Api, "snapshot", counted)  # before the server binds its routes
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        try:
            _flood_one_agent(Live(hosted, runtime, server.url), arrived)
        finally:
            runtime.close()


def _flood_one_agent(live: Live, arrived: threading.Semaphore) -> None:
    """Hold ALPHA's run lock, send sixty ALPHA snapshots, then ask as BRAVO."""
    busy = start(live, ALPHA)
    flood = 60
    replies: list[int] = []

    async def send_all() -> None:
        headers = {"Authorization": f"Bearer {live.hosted.tokens[ALPHA]}"}
        limits = httpx2.Limits(max_connections=flood)
        async with async_http_client(
            base_url=live.url, headers=headers, timeout=120, limits=limits
        ) as client:

            async def one() -> None:
                reply = await client.get(f"{API_PREFIX}/runs/{busy}/snapshot")
                replies.append(reply.status_code)

            async with anyio.create_task_group() as group:
                for _ in range(flood):
                    group.start_soon(one)

    lock = live.runtime._runs[busy].lock
    lock.acquire()
    flooding = threading.Thread(target=anyio.run, args=(send_all,))
    idle = _worker_threads()
    try:
        flooding.start()
        for _ in range(flood):
            assert arrived.acquire(timeout=60), "the flood did not reach the host"
        held = _worker_threads() - idle
        with live.client(BRAVO) as client:
            reply = client.get(f"{API_PREFIX}/runs", timeout=30)
        assert reply.status_code == 200, reply.text
        assert held <= THREADS_PER_AGENT
    finally:
        lock.release()
        flooding.join(120)
    assert replies == [200] * flood


def _worker_threads() -> int:
    """Worker threads of this process's event loops (the in-process host's among them)."""
    return sum("AnyIO worker" in thread.name for thread in threading.enumerate())


def _advance_while_locked(live: Live, run_id: str, command_id: str) -> httpx2.Response:
    """An advance sent while the run's lock is held elsewhere, so a worker thread applies
    and fsyncs it (not the event loop and its syncer); the lock is released at once."""
    lock = live.runtime._runs[run_id].lock
    lock.acquire()
    try:
        waiting = advance_in_thread(live, ALPHA, run_id, command_id)
        for _ in range(3000):  # until a worker thread holds the request, waiting on the lock
            slots = live.runtime.threads._slots.get(ALPHA)
            if slots is not None and slots.borrowed_tokens >= 1:
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the advance never reached a worker thread")
    finally:
        lock.release()
    waiting["thread"].join(30)  # type: ignore[attr-defined]
    response = waiting["response"]
    assert isinstance(response, httpx2.Response)
    return response


def _failing_worker_fsync(monkeypatch: pytest.MonkeyPatch, run_id: str) -> None:
    """Worker threads' fsyncs of `run_id`'s journal fail (EIO); the syncer's are untouched."""
    import errno

    from ledger import journal as journal_module

    real = journal_module.fsync_file

    def failing(path: Path) -> None:
        if run_id in str(path):
            raise OSError(errno.EIO, "Input/output error")
        real(path)

    monkeypatch.setattr(journal_module, "fsync_file", failing)


def _entries(live: Live, run_id: str) -> list[str]:
    return [e.id for e in Journal.open(live.hosted.runs / run_id / "journal.jsonl").entries[1:]]


def test_a_command_acknowledged_from_a_worker_thread_survives_a_later_failed_fsync(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A command fsynced in a worker thread was unknown to the syncer, so when a later
    command's fsync failed, the journal was cut back to before both: an acknowledged
    command was lost."""
    import errno

    run_id = start(live, ALPHA)
    assert _advance_while_locked(live, run_id, "a").status_code == 200

    def failing(path: Path) -> None:
        if run_id in str(path):
            raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(syncer_module, "fsync_file", failing)
    with live.client(ALPHA) as client:
        reply = client.post(
            f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "b", "days": 1}
        )
    assert reply.status_code == 503 and reply.json()["error"]["code"] == "run_damaged"
    assert _entries(live, run_id) == ["a"]  # "b" cut, "a" kept


def test_a_worker_threads_failed_fsync_damages_the_run_as_the_syncers_does(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The worker-thread path answered 500 `internal` and left the unacknowledged command
    in the journal, to be applied when the run was resumed; it is now `run_damaged` with
    the command cut off, as when the syncer's fsync fails."""
    run_id = start(live, ALPHA)
    _failing_worker_fsync(monkeypatch, run_id)
    reply = _advance_while_locked(live, run_id, "a")
    assert reply.status_code == 503, reply.text
    error = reply.json()["error"]
    assert error["code"] == "run_damaged" and "not acknowledged" in error["message"]
    monkeypatch.undo()
    assert _entries(live, run_id) == []


def test_a_command_cut_back_while_its_fsync_was_in_flight_is_never_acknowledged(
    quiet_live: Live,
    held_fsync: tuple[threading.Event, threading.Event],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The syncer is fsyncing "a" when a worker thread's fsync of "b" fails and cuts the
    journal back to before both: the syncer's fsync then succeeds on the cut file, and "a"
    was acknowledged though it is no longer in the journal."""
    live = quiet_live
    entered, release = held_fsync
    run_id = start(live, ALPHA)
    first = advance_in_thread(live, ALPHA, run_id, "a")
    assert entered.wait(30)
    _failing_worker_fsync(monkeypatch, run_id)
    refused = _advance_while_locked(live, run_id, "b")
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "run_damaged"
    release.set()
    first["thread"].join(30)  # type: ignore[attr-defined]
    reply = first["response"]
    assert isinstance(reply, httpx2.Response)
    assert _entries(live, run_id) == []
    assert reply.status_code == 503, reply.text  # was 200: acknowledged, then lost
    assert reply.json()["error"]["code"] == "run_damaged"


def test_a_read_shows_a_command_only_once_it_is_durable(
    quiet_live: Live, held_fsync: tuple[threading.Event, threading.Event]
) -> None:
    """A read while the syncer is still fsyncing "a" makes the journal durable itself
    before it shows "a"'s day; it does not wait for the syncer."""
    live = quiet_live
    entered, release = held_fsync
    run_id = start(live, ALPHA)
    first = advance_in_thread(live, ALPHA, run_id, "a")
    assert entered.wait(30)
    with live.client(ALPHA) as client:
        shown = client.get(f"{API_PREFIX}/runs/{run_id}/snapshot")
    assert shown.status_code == 200 and shown.json()["day"] == 1
    assert "response" not in first  # the syncer still holds "a"'s reply
    journal = live.hosted.runs / run_id / "journal.jsonl"
    assert live.runtime.syncer.durable_size(journal) == journal.stat().st_size
    release.set()
    first["thread"].join(30)  # type: ignore[attr-defined]
    assert first["response"].status_code == 200  # type: ignore[attr-defined]


@pytest.mark.parametrize("route", ["/snapshot", "", "/journal", "/metrics", "/ledger"])
def test_a_read_never_shows_a_command_that_is_then_cut_off(
    quiet_live: Live,
    held_fsync: tuple[threading.Event, threading.Event],
    monkeypatch: pytest.MonkeyPatch,
    route: str,
) -> None:
    """A read showed "a" (the day it advanced to) before its fsync; when that fsync
    failed, "a" was cut off and never acknowledged, yet its outcome had been shown."""
    live = quiet_live
    entered, release = held_fsync
    run_id = start(live, ALPHA)
    first = advance_in_thread(live, ALPHA, run_id, "a")
    assert entered.wait(30)
    _failing_worker_fsync(monkeypatch, run_id)
    with live.client(ALPHA) as client:
        shown = client.get(f"{API_PREFIX}/runs/{run_id}{route}")
    assert shown.status_code == 503, shown.text[:200]  # was 200, showing day 1
    assert shown.json()["error"]["code"] == "run_damaged"
    release.set()
    first["thread"].join(30)  # type: ignore[attr-defined]
    assert first["response"].status_code == 503  # type: ignore[attr-defined]
    assert _entries(live, run_id) == []


def test_a_seal_whose_journal_fsync_fails_damages_the_run_and_acknowledges_nothing_more(
    quiet_live: Live,
    held_fsync: tuple[threading.Event, threading.Event],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sealer's fsync of the journal failed while "b" waited for the syncer's: the
    sealer raised (logged, retried) and "b" was acknowledged when the syncer's fsync then
    succeeded, though after a failed fsync the kernel may call lost pages clean."""
    live = quiet_live
    entered, release = held_fsync
    run_id = start(live, ALPHA)
    release.set()  # "a" goes through
    with live.client(ALPHA) as client:
        reply = client.post(
            f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 1}
        )
    assert reply.status_code == 200
    release.clear()
    entered.clear()
    waiting = advance_in_thread(live, ALPHA, run_id, "b")
    assert entered.wait(30)
    _failing_worker_fsync(monkeypatch, run_id)
    assert live.runtime.seal_changed() == 0  # was: OSError out of the sealer's round
    release.set()
    waiting["thread"].join(30)  # type: ignore[attr-defined]
    assert waiting["response"].status_code == 503  # type: ignore[attr-defined]
    assert _entries(live, run_id) == ["a"]


def test_a_host_stopping_while_its_journal_fsync_fails_stops_cleanly(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing the host seals every changed run: a failed journal fsync there raised out of
    `close`, leaving the other runs unsealed and the runs directory locked."""
    runtime = hosted.runtime(Limits(seal_interval=60))
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        run_id, other = start(live, ALPHA), start(live, BRAVO)
        for agent, run in ((ALPHA, run_id), (BRAVO, other)):
            with live.client(agent) as client:
                reply = client.post(
                    f"{API_PREFIX}/runs/{run}/advance", json={"command_id": "a", "days": 1}
                )
                assert reply.status_code == 200
        _failing_worker_fsync(monkeypatch, run_id)
        runtime.close()  # was: OSError, and the runs directory still locked
    monkeypatch.undo()
    restarted = hosted.runtime()
    try:
        assert restarted.run_info(ALPHA, run_id).day == 1  # acknowledged, kept
        assert restarted.run_info(BRAVO, other).day == 1
    finally:
        restarted.close()


def test_a_seal_that_cannot_make_the_journal_durable_damages_the_run_and_stops_cleanly(
    hosted: Hosted, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seal fsyncs the journal first; when that fsync failed, the raw OSError escaped the
    sealer and a graceful stop (which then left the runs directory locked and the other
    runs unsealed), and the commands written but not yet acknowledged stayed in the
    journal, for a later fsync to acknowledge. Now it is the journal's failure: those
    commands are cut off, the run is damaged, and the host stops cleanly."""
    from workbench.host.errors import HostError
    from workbench.play.wire import AdvanceRequest, StartRequest

    runtime = hosted.runtime(Limits(seal_interval=3600))
    run_id = runtime.start(ALPHA, StartRequest(command_id="s")).run.run_id
    runtime.advance(ALPHA, run_id, AdvanceRequest(command_id="acked", days=2))
    # Written without fsync, as on the event loop, and not yet acknowledged (its reply
    # waits for the syncer):
    runtime.advance(ALPHA, run_id, AdvanceRequest(command_id="waiting", days=1), defer=True)
    _failing_worker_fsync(monkeypatch, run_id)
    assert runtime.seal_changed() == 0
    monkeypatch.undo()
    with pytest.raises(HostError) as refused:
        runtime.snapshot(ALPHA, run_id)
    assert refused.value.code == "run_damaged"
    runtime.close()
    journal = hosted.runs / run_id / "journal.jsonl"
    assert [e.id for e in Journal.open(journal).entries[1:]] == ["acked"]
    again = hosted.runtime()
    assert again.snapshot(ALPHA, run_id).day == 2
    again.close()


def test_a_failed_fsync_after_a_seal_never_cuts_what_the_seal_covers(hosted: Hosted) -> None:
    """A command written on the event loop was sealed (the seal fsyncs the journal) before
    the syncer reached it; the syncer's fsync then failed, and the journal was cut back to
    what the syncer alone had recorded durable: below the seal, so the run could never be
    opened again. Now the seal's fsync counts: the run is refused until the host restarts,
    and then plays on with the sealed command."""
    import errno

    from workbench.play.wire import AdvanceRequest, StartRequest

    runtime = hosted.runtime(Limits(seal_interval=3600))
    run_id = runtime.start(ALPHA, StartRequest(command_id="s")).run.run_id
    runtime.advance(ALPHA, run_id, AdvanceRequest(command_id="acked", days=2))
    runtime.advance(ALPHA, run_id, AdvanceRequest(command_id="sealed", days=1), defer=True)
    assert runtime.seal_changed() == 1
    runtime.journal_failed(run_id, OSError(errno.EIO, "Input/output error"))  # the syncer's
    runtime.close()
    journal = hosted.runs / run_id / "journal.jsonl"
    assert [e.id for e in Journal.open(journal).entries[1:]] == ["acked", "sealed"]
    again = hosted.runtime()
    assert not again.recovery.damaged
    assert again.snapshot(ALPHA, run_id).day == 3
    again.close()


def test_a_command_a_seal_made_durable_is_acknowledged_though_the_syncers_fsync_fails(
    quiet_live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Acknowledged exactly when kept: "a" waits for the syncer, a seal makes the journal
    durable with "a" in it, then the syncer's fsync fails. The journal is cut back to what
    is durable, which keeps "a", so its reply is 200; it was 503 "not acknowledged" while
    "a" stayed in the journal, to be applied when the run was resumed."""
    import errno

    live = quiet_live
    entered, release = threading.Event(), threading.Event()
    run_id = start(live, ALPHA)

    def held_then_failing(path: Path) -> None:
        entered.set()
        assert release.wait(60)
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(syncer_module, "fsync_file", held_then_failing)
    first = advance_in_thread(live, ALPHA, run_id, "a")
    assert entered.wait(30)
    assert live.runtime.seal_changed() == 1
    release.set()
    first["thread"].join(30)  # type: ignore[attr-defined]
    assert first["response"].status_code == 200  # type: ignore[attr-defined]
    assert _entries(live, run_id) == ["a"]
    with live.client(ALPHA) as client:
        refused = client.post(
            f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "b", "days": 1}
        )
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "run_damaged"
    assert _entries(live, run_id) == ["a"]
