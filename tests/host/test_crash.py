"""SIGKILL the host mid-load, restart it: every acknowledged command is in its run's journal,
no command is in it twice, a retry of a command in flight applies it at most once, and
every run verifies (after the restart's recovery, and after a graceful stop). The states
a kill can leave (a creation cut short, a torn journal line, a seal behind its journal, a
damaged run) are also built directly and recovered.
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest

from ledger.journal import Journal
from workbench.errors import UserError
from workbench.host.recovery import STAGING
from workbench.host.runtime import HostRuntime, Limits
from workbench.host.server import ServerThread
from workbench.play.session import PlayerSession
from workbench.play.wire import API_PREFIX
from workbench.runs.files import RunPaths, read_registration
from workbench.runs.verify import verify_run

from .conftest import ALPHA, BRAVO, Hosted, HostProcess, Live, http_client, make_hosted

ACTIONS = ("spring_campaign", "bank_loan", "loyalty_program", "hire_roaster", "raise_price")


@dataclass
class Load:
    """One client thread's run, what the host acknowledged and what was in flight."""

    agent: str
    name: str
    run_id: str = ""
    acked: list[str] = field(default_factory=list)
    in_flight: list[tuple[str, dict[str, object]]] = field(default_factory=list)


def drive(url: str, token: str, load: Load, stop: threading.Event, seed: int) -> None:
    """Send commands until the host dies or `stop` is set (bounded in count)."""
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    with http_client(base_url=url, headers=headers, timeout=30) as client:
        try:
            reply = client.post(f"{API_PREFIX}/runs", json={"command_id": load.name})
        except httpx2.TransportError:
            return
        if reply.status_code not in (200, 201):
            return
        load.run_id = reply.json()["run"]["run_id"]
        for step in range(2000):
            if stop.is_set():
                return
            command_id = f"{load.name}-{step}"
            body: dict[str, object]
            pick = rng.random()
            if pick < 0.2:
                tail, body = "schedule", {"action": rng.choice(ACTIONS)}
            elif pick < 0.3:
                value = str(rng.randint(-999, 999))
                tail, body = (
                    "assessments",
                    {"assessment": {"question": "q_spring_campaign", "value": value}},
                )
            else:
                tail, body = "advance", {"days": 1}
            body["command_id"] = command_id
            try:
                response = client.post(f"{API_PREFIX}/runs/{load.run_id}/{tail}", json=body)
            except httpx2.TransportError:
                load.in_flight.append((tail, body))
                return
            if response.status_code == 200:
                load.acked.append(command_id)
            elif response.status_code == 409:
                return
            else:
                raise AssertionError(response.text)


LOAD_AGENTS = tuple(f"agent-load-{n}" for n in range(12))
"""Four agents a round for three rounds: each agent plays one episode."""


def run_load(url: str, hosted: Hosted, round_: int, kill: HostProcess | None) -> list[Load]:
    """Four client threads, each an agent's episode; SIGKILL the host after a random moment."""
    stop = threading.Event()
    loads = [Load(agent, f"r{round_}-{agent}") for agent in LOAD_AGENTS[4 * round_ :][:4]]
    threads = [
        threading.Thread(
            target=drive, args=(url, hosted.tokens[load.agent], load, stop, round_ * 10 + i)
        )
        for i, load in enumerate(loads)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 60
    while sum(len(load.acked) for load in loads) < 20 and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(random.Random(round_).uniform(0.05, 0.4))
    if kill is not None:
        kill.kill()
    stop.set()
    for thread in threads:
        thread.join(timeout=120)
    return loads


def check_runs(hosted: Hosted, loads: list[Load]) -> None:
    """Every acknowledged command is journaled once, and every run verifies."""
    for load in loads:
        if not load.run_id:
            continue
        journal = Journal.open(hosted.runs / load.run_id / "journal.jsonl")
        counts = Counter(e.id for e in journal.entries)
        assert all(n == 1 for n in counts.values())
        missing = [i for i in load.acked if i not in counts]
        assert not missing, f"acknowledged but not journaled: {missing}"
    for root in sorted(hosted.runs.glob("run-*")):
        agent = read_registration(RunPaths(root)).agent_id
        result = verify_run(root, hosted.control, agent)
        assert result.ok, result.divergence


def retry_in_flight(url: str, hosted: Hosted, loads: list[Load]) -> None:
    """Send each command that was in flight at the kill twice: applied at most once."""
    for load in loads:
        with http_client(
            base_url=url,
            headers={"Authorization": f"Bearer {hosted.tokens[load.agent]}"},
            timeout=60,
        ) as client:
            for tail, body in load.in_flight:
                path = f"{API_PREFIX}/runs/{load.run_id}/{tail}"
                first = client.post(path, json=body)
                again = client.post(path, json=body)
                assert first.status_code in (200, 409), first.text
                if first.status_code == 200:
                    assert again.json()["retry"] is True
                    load.acked.append(str(body["command_id"]))


def test_sigkill_mid_load_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    """Three rounds of load and SIGKILL, each on the host the previous kill left to recover;
    then a graceful stop, and a start after it."""
    hosted = make_hosted(tmp_path / "hosted", agents=LOAD_AGENTS)
    host = HostProcess(hosted, tmp_path / "host.log").start()
    all_loads: list[Load] = []
    try:
        for round_ in range(3):
            loads = run_load(host.url, hosted, round_, host)
            assert sum(len(load.acked) for load in loads) >= 20
            all_loads += loads
            host = HostProcess(hosted, tmp_path / "host.log").start()
            check_runs(hosted, all_loads)
            retry_in_flight(host.url, hosted, loads)
        assert host.stop() == 0
        check_runs(hosted, all_loads)
        host = HostProcess(hosted, tmp_path / "host.log").start()
        assert host.stop() == 0
    finally:
        host.kill()
    assert "Traceback" not in (tmp_path / "host.log").read_text()


def test_a_stop_right_after_the_ready_line_stops_the_host(hosted: Hosted, tmp_path: Path) -> None:
    """SIGTERM as soon as the host says it is up, before uvicorn listens for signals itself
    (a supervisor's quick stop): it stops gracefully instead of serving on."""
    log = tmp_path / "host.log"
    host = HostProcess(hosted, log).spawn()
    assert host.process is not None
    try:
        deadline = time.monotonic() + 120
        while not HostProcess.URL.search(log.read_text()) and time.monotonic() < deadline:
            assert host.process.poll() is None, log.read_text()
            time.sleep(0.001)
        host.process.send_signal(signal.SIGTERM)
        assert host.process.wait(timeout=30) == 0
    finally:
        host.kill()
    assert "host stopped; every run is sealed" in log.read_text()


# -- the states a kill can leave, built directly -------------------------------------------
@pytest.fixture
def played(hosted: Hosted) -> tuple[Hosted, str]:
    """A run of ALPHA's with a few commands, the host stopped."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        client = Live(hosted, runtime, server.url).client(ALPHA)
        run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
        for i in range(3):
            client.post(
                f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": f"a{i}", "days": 2}
            )
    runtime.close()
    return hosted, run_id


def test_a_creation_cut_short_is_discarded(played: tuple[Hosted, str]) -> None:
    hosted, run_id = played
    partial = hosted.runs / STAGING / ("run-" + "f" * 32)
    partial.mkdir()
    (partial / "run.json").write_text("{}")
    runtime = hosted.runtime()
    assert runtime.recovery.discarded == [partial.name]
    assert not partial.exists() and runtime.recovery.runs == [run_id]
    runtime.close()


def test_a_torn_journal_line_is_cut_and_the_run_verifies(played: tuple[Hosted, str]) -> None:
    hosted, run_id = played
    journal = hosted.runs / run_id / "journal.jsonl"
    whole = journal.read_bytes()
    journal.write_bytes(whole + b'{"seq":4,"day":6,"kind":"adv')
    (hosted.runs / run_id / ".seal.json.x1y2.tmp").write_bytes(b'{"half')
    runtime = hosted.runtime()
    assert runtime.recovery.cut_tails == [run_id]
    assert runtime.recovery.leftovers == [f"{run_id}/.seal.json.x1y2.tmp"]
    assert not (hosted.runs / run_id / ".seal.json.x1y2.tmp").exists()
    assert journal.read_bytes() == whole
    assert verify_run(hosted.runs / run_id, hosted.control, ALPHA).ok
    runtime.close()


def test_a_seal_behind_its_journal_is_written_again(played: tuple[Hosted, str]) -> None:
    hosted, run_id = played
    root = hosted.runs / run_id
    seal = (root / "seal.json").read_bytes()
    with PlayerSession.resume(root, control=hosted.control) as session:
        session.advance(1, "after-the-seal")
    (root / "seal.json").write_bytes(seal)
    assert not verify_run(root, hosted.control, ALPHA).ok
    runtime = hosted.runtime()
    assert runtime.recovery.resealed == [run_id]
    assert verify_run(root, hosted.control, ALPHA).ok
    runtime.close()


def test_a_damaged_run_is_refused_alone(played: tuple[Hosted, str]) -> None:
    hosted, run_id = played
    journal = hosted.runs / run_id / "journal.jsonl"
    journal.write_bytes(journal.read_bytes().replace(b'"days":2', b'"days":3', 1))
    runtime = hosted.runtime()
    assert set(runtime.recovery.damaged) == {run_id}
    with ServerThread(runtime) as server:
        client = Live(hosted, runtime, server.url).client(ALPHA)
        response = client.get(f"{API_PREFIX}/runs/{run_id}/snapshot")
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "run_damaged"
        again = client.post(f"{API_PREFIX}/runs", json={"command_id": "fresh"})
        assert again.status_code == 409 and run_id in again.json()["error"]["message"]
        other = Live(hosted, runtime, server.url).client(BRAVO)
        assert other.post(f"{API_PREFIX}/runs", json={"command_id": "fresh"}).status_code == 201
    runtime.close()


def _opened_promptly(hosted: Hosted) -> HostRuntime:
    """`hosted.runtime()` in a thread that must finish: a read waiting on a pipe fails."""
    opened: list[HostRuntime | BaseException] = []

    def start() -> None:
        try:
            opened.append(hosted.runtime())
        except BaseException as exc:  # the caller inspects what start-up raised
            opened.append(exc)

    worker = threading.Thread(target=start, daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert opened, "the host's start-up waited on a pipe"
    result = opened[0]
    if isinstance(result, BaseException):
        raise result
    return result


@pytest.mark.parametrize("name", ["journal.jsonl", "seal.json"])
@pytest.mark.parametrize("kind", ["named pipe", "oversized file"])
def test_a_planted_pipe_or_oversized_file_in_a_run_is_damage_not_a_hang(
    played: tuple[Hosted, str], name: str, kind: str
) -> None:
    """Start-up recovery reads every run's journal and seal: a pipe in place of one hung
    the host before it served anyone, and a 300 MiB file was read whole. Each is now that
    run's damage; the host starts and serves the others."""
    hosted, run_id = played
    target = hosted.runs / run_id / name
    target.unlink()
    if kind == "named pipe":
        os.mkfifo(target)
    else:
        with target.open("wb") as handle:
            handle.truncate(300 * 1024 * 1024)
    runtime = _opened_promptly(hosted)
    try:
        assert set(runtime.recovery.damaged) == {run_id}
        assert name in runtime.recovery.damaged[run_id]
    finally:
        runtime.close()


def test_a_host_record_that_is_a_pipe_is_refused_at_once(hosted: Hosted) -> None:
    hosted.runtime().close()
    record = hosted.runs / "host.json"
    record.unlink()
    os.mkfifo(record)
    with pytest.raises(UserError, match="host record is a named pipe, not a regular file"):
        _opened_promptly(hosted)


def test_the_seal_follows_the_journal(live: Live) -> None:
    """A command is journaled before its reply; the sealer signs it soon after; a finish
    is sealed before its reply; a stopped host leaves every run sealed."""
    client = live.client(ALPHA)
    run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    root = live.hosted.runs / run_id
    reply = client.post(f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 3})
    assert reply.status_code == 200
    assert [e.id for e in Journal.open(root / "journal.jsonl").entries[1:]] == ["a"]
    live.runtime.seal_changed()
    assert verify_run(root, live.hosted.control, ALPHA).ok
    client.post(f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "b", "days": 1})
    client.post(f"{API_PREFIX}/runs/{run_id}/finish", json={"command_id": "f"})
    assert verify_run(root, live.hosted.control, ALPHA).ok
    bravo = live.client(BRAVO)
    other = bravo.post(f"{API_PREFIX}/runs", json={"command_id": "t"}).json()["run"]["run_id"]
    bravo.post(f"{API_PREFIX}/runs/{other}/advance", json={"command_id": "c", "days": 2})
    live.runtime.close()
    assert verify_run(live.hosted.runs / other, live.hosted.control, BRAVO).ok


def test_each_run_is_sealed_on_its_own_clock(hosted: Hosted) -> None:
    """A changed run waits `seal_interval` for its seal, then the sealer thread signs it."""
    runtime = hosted.runtime(Limits(seal_interval=0.5))
    try:
        with ServerThread(runtime) as server:
            client = Live(hosted, runtime, server.url).client(ALPHA)
            run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"][
                "run_id"
            ]
            client.post(f"{API_PREFIX}/runs/{run_id}/advance", json={"command_id": "a", "days": 2})
            assert runtime.seal_changed(older_than=3600) == 0
            root = hosted.runs / run_id
            deadline = time.monotonic() + 30
            while not verify_run(root, hosted.control, ALPHA).ok and time.monotonic() < deadline:
                time.sleep(0.05)
            assert verify_run(root, hosted.control, ALPHA).ok
            assert runtime.seal_changed() == 0
    finally:
        runtime.close()


def test_a_command_the_disk_refuses_is_503_and_not_applied(live: Live) -> None:
    """A journal line the disk cuts short (files may not grow: EFBIG partway, as on a
    full disk) is removed again; the agent gets 503 storage_failed, nothing is applied,
    and the same command goes through once there is room."""
    import resource

    client = live.client(ALPHA)
    run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    advance = f"{API_PREFIX}/runs/{run_id}/advance"
    assert client.post(advance, json={"command_id": "a", "days": 2}).status_code == 200
    journal = live.hosted.runs / run_id / "journal.jsonl"
    before = journal.read_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 40, hard))
    try:
        refused = client.post(advance, json={"command_id": "b", "days": 3})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert refused.status_code == 503, refused.text
    error = refused.json()["error"]
    assert error["code"] == "storage_failed" and "not applied" in error["message"]
    assert str(live.hosted.runs) not in error["message"]
    assert journal.read_bytes() == before
    assert client.get(f"{API_PREFIX}/runs/{run_id}").json()["day"] == 2
    again = client.post(advance, json={"command_id": "b", "days": 3})
    assert again.status_code == 200 and again.json()["day"] == 5
    live.runtime.close()
    assert verify_run(live.hosted.runs / run_id, live.hosted.control, ALPHA).ok


def test_a_start_the_disk_refuses_gives_no_second_episode(
    live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A creation the disk refuses (files may not grow: EFBIG) is 503 storage_failed and
    leaves nothing; one whose rename cannot be made durable is 503 too, but the run is the
    agent's episode from its rename on: a start with another id is 409, the same id 200."""
    import errno
    import resource

    import workbench.host.runtime as runtime_module

    client = live.client(ALPHA)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, hard))
    try:
        full = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)
    assert full.status_code == 503 and full.json()["error"]["code"] == "storage_failed"
    assert not list(live.hosted.runs.glob("run-*"))
    assert not list((live.hosted.runs / STAGING).iterdir())
    real = runtime_module.fsync_dir
    failures = iter([OSError(errno.EIO, "Input/output error")] * 2)
    synced: list[Path] = []

    def failing_twice(path: Path) -> None:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        synced.append(path)
        real(path)

    monkeypatch.setattr(runtime_module, "fsync_dir", failing_twice)
    first = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    assert first.status_code == 503 and first.json()["error"]["code"] == "storage_failed"
    other = client.post(f"{API_PREFIX}/runs", json={"command_id": "t"})
    assert other.status_code == 409 and other.json()["error"]["code"] == "episode_exists"
    # The same start again makes the creation durable (it replied created without it).
    still = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    assert still.status_code == 503 and still.json()["error"]["code"] == "storage_failed"
    again = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    assert again.status_code == 200 and len(list(live.hosted.runs.glob("run-*"))) == 1
    assert live.hosted.runs in synced
    synced.clear()
    assert client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).status_code == 200
    assert synced == []  # durable now: nothing more to do


@pytest.mark.parametrize(
    "damage", ["malformed", "pipe", "missing", "malformed, and a cut record unreadable"]
)
def test_a_damaged_run_json_is_refused_alone_and_still_its_agents_episode(
    hosted: Hosted, damage: str
) -> None:
    """One run whose run.json is malformed, a named pipe or gone: the host still starts
    and serves the others; that run answers 503, and its agent (read from the journal's
    header) cannot start a second episode."""
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        mine = live.client(ALPHA).post(f"{API_PREFIX}/runs", json={"command_id": "s"})
        theirs = live.client(BRAVO).post(f"{API_PREFIX}/runs", json={"command_id": "s"})
    runtime.close()
    run_id, other = mine.json()["run"]["run_id"], theirs.json()["run"]["run_id"]
    registration = hosted.runs / run_id / "run.json"
    registration.unlink()
    if damage.startswith("malformed"):
        registration.write_text('{"bad":1}\n')
    if damage.endswith("unreadable"):  # the header line still names the owner
        (hosted.runs / run_id / "journal.jsonl.cut").mkdir()
    if damage == "pipe":
        os.mkfifo(registration)
    runtime = _opened_promptly(hosted)
    try:
        assert run_id in runtime.recovery.damaged
        with ServerThread(runtime) as server:
            live = Live(hosted, runtime, server.url)
            alpha, bravo = live.client(ALPHA), live.client(BRAVO)
            assert alpha.get(f"{API_PREFIX}/runs/{run_id}").status_code == 503
            second = alpha.post(f"{API_PREFIX}/runs", json={"command_id": "t"})
            assert second.status_code == 409, second.text
            advance = bravo.post(
                f"{API_PREFIX}/runs/{other}/advance", json={"command_id": "a", "days": 1}
            )
            assert advance.status_code == 200
    finally:
        runtime.close()
