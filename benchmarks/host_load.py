"""Host load: N concurrent agents each play the whole default campaign over HTTP on loopback.

Run as `.venv/bin/python benchmarks/host_load.py [--agents 32] [--think-ms 0] [--seed 1]`.

The benchmark makes a private copy of the default campaign and a fresh control file with
N agents, starts `workbench host` as a subprocess on a free 127.0.0.1 port, and runs N
agents in one asyncio loop, each with its own HTTP connection: start an episode, then
random legal commands (schedule a catalog action, submit an assessment to an open
question, advance 1-3 days) until the horizon, then finish. It prints commands/s and
latency percentiles (overall and by kind), then stops the host and checks that every
acknowledged command is in its run's journal exactly once and in order (nothing lost,
nothing doubled), that every run verifies, and that validating every finished run
succeeds. The reference is the same command sequences replayed on in-process sessions
(no HTTP), measured in the same run. Every loop is bounded in count and time.
Target: p99 < 50 ms at 32 agents on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import orjson

from campaigns import DEFAULT_CAMPAIGN
from ledger.journal import Journal
from workbench.evaluation.evaluator import run_evaluation
from workbench.evaluation.pool import PR_SET_PDEATHSIG
from workbench.exit_codes import INTEGRITY
from workbench.play.session import PlayerSession
from workbench.runs.bundle import load_bundle
from workbench.runs.registration import ControlFile, load_control, new_control, write_control
from workbench.runs.verify import verify_run

TARGET_P99_MS = 50.0
MAX_COMMANDS_PER_AGENT = 1000
LOAD_TIMEOUT_SECONDS = 1800.0
START_TIMEOUT_SECONDS = 120.0


@dataclass
class AgentLog:
    """One agent's run: every acknowledged command in order, with its latency."""

    agent: str
    run_id: str = ""
    acked: list[str] = field(default_factory=list)
    commands: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)


def private_campaign(root: Path) -> Path:
    """A private copy of the default campaign (no public seed)."""
    campaign = root / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, campaign)
    toml = campaign / "campaign.toml"
    text = toml.read_text().replace('visibility = "development"', 'visibility = "private"')
    toml.write_text(re.sub(r"(?m)^development_seed = .*\n", "", text))
    return campaign


def stop_with_this_process() -> None:
    """In the host's child process: SIGTERM it when this benchmark dies (Linux), so a
    killed or timed-out benchmark leaves no host behind."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)


def start_host(
    campaign: Path, control: Path, runs: Path, log: Path
) -> tuple[subprocess.Popen[bytes], str]:
    """`workbench host` on a free loopback port; returns the process and its URL."""
    command = [
        sys.executable, "-m", "workbench", "host", str(campaign),
        "--control", str(control), "--runs", str(runs), "--host", "127.0.0.1", "--port", "0",
    ]  # fmt: skip
    with open(log, "wb") as handle:
        process = subprocess.Popen(
            command, stdout=handle, stderr=handle, preexec_fn=stop_with_this_process
        )
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    while time.monotonic() < deadline:
        found = re.findall(r"at (http://127\.0\.0\.1:\d+) ", log.read_text())
        if found:
            try:
                if httpx2.get(f"{found[-1]}/health", timeout=5).status_code == 200:
                    return process, found[-1]
            except httpx2.TransportError:
                pass
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    raise SystemExit(f"the host did not start: {log.read_text()[-1000:]}")


class Connection:
    """One agent's keep-alive HTTP/1.1 connection: a plain client that costs the host's
    machine little CPU (an httpx client took as much CPU per request as the host itself,
    so on two cores the load generator measured its own queueing)."""

    def __init__(self, url: str, token: str) -> None:
        host, _, port = url.removeprefix("http://").partition(":")
        self.host, self.port = host, int(port)
        self.auth = f"Authorization: Bearer {token}\r\nHost: {host}\r\n"
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> Connection:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self.writer is not None:
            self.writer.close()

    async def request(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """Send one request and read its whole reply: (status, body)."""
        assert self.reader is not None and self.writer is not None
        data = b"" if body is None else orjson.dumps(body)
        kind = "Content-Type: application/json\r\n" if body is not None else ""
        head = f"{method} {path} HTTP/1.1\r\n{self.auth}{kind}Content-Length: {len(data)}\r\n\r\n"
        self.writer.write(head.encode() + data)
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)


async def play(url: str, log: AgentLog, token: str, seed: int, think: float) -> None:
    """Play the whole campaign with random legal commands, recording every reply."""
    rng = random.Random(seed)
    async with Connection(url, token) as client:
        catalog = orjson.loads((await client.request("GET", "/v1/actions"))[1])["actions"]
        contracts = orjson.loads((await client.request("GET", "/v1/questions"))[1])["questions"]
        actions = [a["id"] for a in catalog]

        async def send(kind: str, path: str, body: dict[str, Any]) -> dict[str, Any] | None:
            started = time.perf_counter()
            status, reply = await client.request("POST", path, body)
            log.latencies[kind].append(time.perf_counter() - started)
            if status not in (200, 201):
                log.errors.append(f"{kind} {status}: {reply[:200]!r}")
                return None
            parsed: dict[str, Any] = orjson.loads(reply)
            return parsed

        reply = await send("start", "/v1/runs", {"command_id": f"{log.agent}-start"})
        if reply is None:
            return
        log.run_id = reply["run"]["run_id"]
        day, horizon = 0, reply["run"]["horizon"]
        for step in range(MAX_COMMANDS_PER_AGENT):
            if think:
                await asyncio.sleep(rng.expovariate(1 / think))
            command_id = f"{log.agent}-{step}"
            pick = rng.random()
            open_questions = [q for q in contracts if day < q["deadline_day"]]
            if day >= horizon:
                break
            if day >= horizon - 5 or step == MAX_COMMANDS_PER_AGENT - 1:
                kind, tail, body = "finish", "finish", {}
            elif pick < 0.15:
                kind, tail, body = "schedule", "schedule", {"action": rng.choice(actions)}
            elif pick < 0.25 and open_questions:
                question = rng.choice(open_questions)
                assessment: dict[str, Any] = {
                    "question": question["id"],
                    "value": str(rng.randint(-5000, 5000)),
                }
                conclusion = question["conclusion"]
                if conclusion and conclusion["kind"] == "contract_component":
                    assessment["conclusion"] = f"{rng.randint(-900, 900)}.00"
                if question["intervention"]["select_from"]:
                    assessment["choice"] = rng.choice(question["intervention"]["select_from"])
                kind, tail, body = "submit", "assessments", {"assessment": assessment}
            else:
                days = min(rng.randint(1, 3), horizon - day)
                kind, tail, body = "advance", "advance", {"days": days}
            body = {"command_id": command_id, **body}
            reply = await send(kind, f"/v1/runs/{log.run_id}/{tail}", body)
            if reply is None:
                continue
            log.acked.append(command_id)
            log.commands.append((tail, body))
            day = reply["day"]
            if reply["finished"]:
                break


async def load(
    url: str, logs: list[AgentLog], tokens: dict[str, str], seed: int, think: float
) -> float:
    """All agents at once; returns the wall time."""
    started = time.perf_counter()
    await asyncio.wait_for(
        asyncio.gather(
            *(
                play(url, log, tokens[log.agent], seed * 1000 + i, think)
                for i, log in enumerate(logs)
            )
        ),
        LOAD_TIMEOUT_SECONDS,
    )
    return time.perf_counter() - started


def cpu_seconds(pid: int) -> float:
    """User plus system CPU time of a process so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    """The q-quantile in milliseconds."""
    ordered = sorted(values)
    return 1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def reference(campaign: Path, control: ControlFile, logs: list[AgentLog], root: Path) -> float:
    """Commands/s of the same command sequences on in-process sessions (no HTTP)."""
    count = 0
    started = time.perf_counter()
    for i, log in enumerate(logs[:4]):
        session = PlayerSession.create(
            root / f"ref-{i}", campaign, control=control, agent_id=log.agent
        )
        for tail, body in log.commands:
            if tail == "schedule":
                session.schedule(body["action"], body["command_id"])
            elif tail == "advance":
                session.advance(body["days"], body["command_id"])
            elif tail == "assessments":
                session.submit(body["assessment"], body["command_id"])
            else:
                session.finish(body["command_id"])
            count += 1
        session.close()
    return count / (time.perf_counter() - started)


def validate(args: tuple[str, str, str, str]) -> str | None:
    """Validate one finished run; None when it succeeded, else why not."""
    run_dir, control_path, agent, out = args
    outcome = run_evaluation(
        Path(run_dir), Path(out), control=load_control(control_path), agent=agent
    )
    if outcome.exit_code == INTEGRITY:
        return f"{run_dir}: {outcome.message}"
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--think-ms", type=float, default=0.0, help="Mean pause between commands.")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--validate-workers", type=int, default=2)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="host-load-"))
    try:
        campaign = private_campaign(root)
        agents = tuple(f"agent-{i:03d}" for i in range(args.agents))
        control, tokens = new_control(load_bundle(campaign), agents)
        control_path = root / "control.json"
        write_control(control_path, control)
        runs = root / "runs"
        process, url = start_host(campaign, control_path, runs, root / "host.log")
        logs = [AgentLog(agent) for agent in agents]
        try:
            host_cpu = cpu_seconds(process.pid)
            client_cpu = time.process_time()
            wall = asyncio.run(load(url, logs, tokens, args.seed, args.think_ms / 1000))
            client_cpu = time.process_time() - client_cpu
            host_cpu = cpu_seconds(process.pid) - host_cpu
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=120)
        latencies = [v for log in logs for values in log.latencies.values() for v in values]
        acked = sum(len(log.acked) + 1 for log in logs if log.run_id)
        print(
            f"host load: {args.agents} agents, think {args.think_ms:g} ms, on 127.0.0.1 "
            f"(host {url})"
        )
        print(
            f"  {acked} commands acknowledged in {wall:.1f} s: {acked / wall:.0f} commands/s; "
            f"latency p50 {percentile(latencies, 0.50):.1f} ms, p99 "
            f"{percentile(latencies, 0.99):.1f} ms, max {1000 * max(latencies):.1f} ms"
        )
        print(
            f"  CPU during the load: host {host_cpu:.1f} s "
            f"({1000 * host_cpu / acked:.2f} ms a command), load generator {client_cpu:.1f} s, "
            f"in {wall:.1f} s of wall time on {os.cpu_count()} cores"
        )
        by_kind: dict[str, list[float]] = defaultdict(list)
        for log in logs:
            for kind, values in log.latencies.items():
                by_kind[kind] += values
        for kind, values in sorted(by_kind.items()):
            print(
                f"    {kind:<8} n={len(values):<6} p50 {percentile(values, 0.5):6.1f} ms  "
                f"p99 {percentile(values, 0.99):6.1f} ms  "
                f"mean {1000 * statistics.mean(values):6.1f} ms"
            )
        local = reference(campaign, control, logs, root / "reference")
        print(
            f"  reference: the same commands on in-process sessions {local:.0f} commands/s "
            f"(host/reference {acked / wall / local:.2f})"
        )
        errors = [e for log in logs for e in log.errors]
        lost = doubled = 0
        for log in logs:
            journal = Journal.open(runs / log.run_id / "journal.jsonl")
            ids = [e.id for e in journal.entries[1:]]
            lost += len(set(log.acked) - set(ids))
            doubled += len(ids) - len(set(ids))
            if ids != log.acked:
                errors.append(f"{log.run_id}: journal differs from the acknowledged commands")
        unverified = [
            log.run_id for log in logs if not verify_run(runs / log.run_id, control, log.agent).ok
        ]
        jobs = [
            (str(runs / log.run_id), str(control_path), log.agent, str(root / "out" / log.run_id))
            for log in logs
        ]
        started = time.perf_counter()
        with ProcessPoolExecutor(args.validate_workers) as pool:
            failed = [r for r in pool.map(validate, jobs) if r is not None]
        print(
            f"  checks: {lost} lost, {doubled} duplicated, {len(unverified)} of {len(logs)} runs "
            f"failed verification, {len(failed)} of {len(jobs)} validations failed "
            f"({time.perf_counter() - started:.0f} s), {len(errors)} errors"
        )
        for line in (errors + unverified + failed)[:10]:
            print(f"    {line}")
        play = [v for kind, values in by_kind.items() if kind != "start" for v in values]
        p99 = percentile(play, 0.99)
        print(
            f"  play commands (every kind but the one start per episode): p50 "
            f"{percentile(play, 0.5):.1f} ms, p99 {p99:.1f} ms; target p99 < "
            f"{TARGET_P99_MS:.0f} ms: {'met' if p99 < TARGET_P99_MS else 'MISSED'}"
        )
        ok = not (lost or doubled or unverified or failed or errors)
        return 0 if ok else 1
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
