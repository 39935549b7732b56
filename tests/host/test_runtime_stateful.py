"""The hosted runtime as a state machine (hypothesis' stateful testing): one agent's
episode driven through the runtime in process, with retries, clashes, invalid commands,
seals, the other agent's play closing this one's session (one open session at a time),
graceful restarts, crashes (the host's sessions gone unsealed, a torn append left behind)
and journals the disk will not make durable, in any order.

A model holds what the host acknowledged (a reply given). After every step: the run's
journal on file holds exactly those commands; a retry's reply is the first reply marked
`retry`; a refused command changes neither the journal nor the agent's view; the view is
what replaying the journal from scratch gives; a run whose seal covers its journal
verifies under the control file; the other agent sees no run of this one's.
"""

from __future__ import annotations

import asyncio
import errno
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ledger import journal as journal_module
from ledger.canonical import dumps
from ledger.journal import make_entry, read_entries
from tests.machines import machine_settings
from tests.workbench.faults import fsync_then_cut_fail
from workbench.host.errors import HostError
from workbench.host.runtime import HostRuntime, Limits
from workbench.play import public_view
from workbench.play.wire import (
    AdvanceRequest,
    FinishRequest,
    ScheduleRequest,
    StartRequest,
    SubmitRequest,
)
from workbench.runs.commands import CounterfactualAssessment
from workbench.runs.registration import resolve_identity
from workbench.runs.replay import replay
from workbench.runs.verify import verify_run

from .conftest import ALPHA, BRAVO, Hosted, make_hosted

IDS = st.sampled_from(["a", "b", "c", "d", "e"])
ACTIONS = st.sampled_from(["bank_loan", "spring_campaign", "raise_price", "no_such_action"])
DAYS = st.one_of(st.sampled_from([1, 2, 3]), st.sampled_from([10, 30]), st.integers(1, 200))
ASSESSMENTS = st.sampled_from(
    [
        {"question": "q_bank_loan", "value": "-250", "conclusion": "-300.00"},
        {"question": "q_spring_campaign", "value": "12.5"},
        {"question": "q_spring_campaign", "value": "12.5", "conclusion": "1.00"},
        {"question": "no_such_question", "value": "1"},
    ]
)
FINISH_AFTER = 10
LIMITS = Limits(open_sessions=1, seal_interval=3600.0)
"""One open session, so the other agent's requests close this one's (sealing it) and its
next command resumes it from its journal; no sealing on a timer (a seal happens when a
rule asks, so the faults a rule injects meet the calls it means)."""

_WORLD: dict[str, Hosted] = {}


def world() -> Hosted:
    """One private campaign and control file for every example (each gets new runs)."""
    if "hosted" not in _WORLD:
        _WORLD["hosted"] = make_hosted(Path(tempfile.mkdtemp(prefix="cfwb-dst-host-")))
    return _WORLD["hosted"]


@dataclass(frozen=True)
class Acked:
    """A command the host replied to: its id, kind, payload and reply."""

    kind: str
    id: str
    payload: dict[str, Any]
    reply: dict[str, Any]


class HostedEpisode(RuleBasedStateMachine):
    """One agent's episode on an in-process runtime; see the module doc."""

    def __init__(self) -> None:
        super().__init__()
        shared = world()
        self.tmp = Path(tempfile.mkdtemp(prefix="cfwb-dst-runs-"))
        self.hosted = Hosted(shared.campaign, shared.control_path, shared.tokens, self.tmp / "r")
        self.control = self.hosted.control
        self.runtime: HostRuntime | None = None
        self.run_id = ""
        self.acked: list[Acked] = []
        self.damaged = False
        self.steps = 0
        self.bravo_run = ""
        self.bravo_steps = 0
        self.monkeypatch = pytest.MonkeyPatch()

    @initialize()
    def start(self) -> None:
        self.runtime = self.hosted.runtime(LIMITS)
        reply = self.rt.start(ALPHA, StartRequest(command_id="start"))
        assert reply.created
        self.run_id = reply.run.run_id
        self.bundle = self.rt.bundle
        self.seed = resolve_identity(self.bundle, self.control, ALPHA).seed

    def teardown(self) -> None:
        self.monkeypatch.undo()
        if self.runtime is not None:
            self.runtime.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    @property
    def rt(self) -> HostRuntime:
        assert self.runtime is not None
        return self.runtime

    @property
    def root(self) -> Path:
        return self.hosted.runs / self.run_id

    def journal(self) -> bytes:
        return (self.root / "journal.jsonl").read_bytes()

    @property
    def day(self) -> int:
        return self.acked[-1].reply["day"] if self.acked else 0

    def view(self) -> dict[str, Any] | None:
        try:
            return self.rt.snapshot(ALPHA, self.run_id).model_dump(mode="json")
        except HostError:
            return None

    # -- commands ---------------------------------------------------------------------
    def command(
        self, kind: str, command_id: str, payload: dict[str, Any] | None, call: Any
    ) -> None:
        """Send one command; `payload` None: invalid content, refused whatever its id."""
        self.steps += 1
        known = next((a for a in self.acked if a.id == command_id), None)
        if known is None:
            expected = "new"
        elif payload is not None and (known.kind, dumps(known.payload)) == (kind, dumps(payload)):
            expected = "retry"
        else:
            expected = "clash"
        if payload is None and expected != "clash":
            expected = "invalid"
        if expected == "new" and (self.damaged or self.day == self.bundle.horizon):
            expected = "refused"
        if expected == "retry" and self.damaged:
            expected = "refused"
        event(f"host {kind}: {expected}")
        journal, view = self.journal(), self.view()
        try:
            reply = call().model_dump(mode="json")
        except HostError as exc:
            event(f"host {kind}: {expected}: {exc.code}")
            assert expected not in ("new", "retry"), (expected, exc.code, exc.message)
            assert "\n" not in exc.message
            assert self.journal() == journal and self.view() == view, exc.message
            if expected == "clash":
                assert exc.code in ("conflict", "invalid", "run_damaged"), exc.code
            return
        assert expected in ("new", "retry"), (expected, kind, command_id, payload, reply)
        if expected == "retry":
            assert known is not None
            assert reply == {**known.reply, "retry": True}
            assert self.journal() == journal
            return
        assert payload is not None and reply["retry"] is False
        self.acked.append(Acked(kind, command_id, payload, reply))

    @rule(action=ACTIONS, command_id=IDS)
    def schedule(self, action: str, command_id: str) -> None:
        payload = {"action": action} if action in self.bundle.actions else None
        request = ScheduleRequest(command_id=command_id, action=action)
        self.command(
            "schedule", command_id, payload, lambda: self.rt.schedule(ALPHA, self.run_id, request)
        )

    @rule(days=DAYS, command_id=IDS)
    def advance(self, days: int, command_id: str) -> None:
        payload = {"days": days}
        known = any(a.id == command_id for a in self.acked)
        if not known and self.day + days > self.bundle.horizon:
            payload = None  # type: ignore[assignment]
        request = AdvanceRequest(command_id=command_id, days=days)
        self.command(
            "advance", command_id, payload, lambda: self.rt.advance(ALPHA, self.run_id, request)
        )

    @rule(assessment=ASSESSMENTS, command_id=IDS)
    def submit(self, assessment: dict[str, Any], command_id: str) -> None:
        parsed = CounterfactualAssessment.model_validate(assessment)
        valid = self.rt.bundle.questions.get(parsed.question) is not None and not (
            parsed.question == "q_spring_campaign" and parsed.conclusion is not None
        )
        payload = (
            {"assessment": parsed.model_dump(mode="json", exclude_none=True)} if valid else None
        )
        request = SubmitRequest(command_id=command_id, assessment=parsed)
        self.command(
            "submit_assessment",
            command_id,
            payload,
            lambda: self.rt.submit(ALPHA, self.run_id, request),
        )

    @precondition(lambda self: self.steps >= FINISH_AFTER)
    @rule(command_id=IDS)
    def finish(self, command_id: str) -> None:
        request = FinishRequest(command_id=command_id)
        self.command("finish", command_id, {}, lambda: self.rt.finish(ALPHA, self.run_id, request))

    @precondition(lambda self: bool(self.acked))
    @rule(data=st.data())
    def retry(self, data: st.DataObject) -> None:
        known = data.draw(st.sampled_from(self.acked))
        requests = {
            "schedule": lambda: self.rt.schedule(
                ALPHA, self.run_id, ScheduleRequest(command_id=known.id, **known.payload)
            ),
            "advance": lambda: self.rt.advance(
                ALPHA, self.run_id, AdvanceRequest(command_id=known.id, **known.payload)
            ),
            "submit_assessment": lambda: self.rt.submit(
                ALPHA, self.run_id, SubmitRequest(command_id=known.id, **known.payload)
            ),
            "finish": lambda: self.rt.finish(
                ALPHA, self.run_id, FinishRequest(command_id=known.id)
            ),
        }
        self.command(known.kind, known.id, known.payload, requests[known.kind])

    @rule()
    def the_other_agent_plays(self) -> None:
        """The other agent starts its episode or advances it a day: with one open session,
        this agent's is closed (sealed) and resumed by its next request."""
        if not self.bravo_run:
            self.bravo_run = self.rt.start(BRAVO, StartRequest(command_id="b-start")).run.run_id
        elif self.bravo_steps < 100:
            self.bravo_steps += 1
            request = AdvanceRequest(command_id=f"b-{self.bravo_steps}", days=1)
            assert self.rt.advance(BRAVO, self.bravo_run, request).day == self.bravo_steps

    # -- the host's life --------------------------------------------------------------
    @rule()
    def seal(self) -> None:
        self.rt.seal_changed()

    @rule()
    def restart(self) -> None:
        """A graceful stop (every changed run sealed) and a new host on the same runs."""
        event("host restart")
        self.rt.close()
        self.runtime = self.hosted.runtime(LIMITS)
        self.damaged = False

    @rule(torn=st.booleans(), data=st.data())
    def crash(self, torn: bool, data: st.DataObject) -> None:
        """The host killed: its sessions gone unsealed and its locks with the process;
        with `torn`, in the middle of appending a command it never acknowledged."""
        event(f"host crash (torn: {torn})")
        runtime = self.rt
        runtime._stopping.set()
        runtime._sealer.join()
        runtime.syncer.stop()
        for run in runtime._runs.values():
            if run.session is not None:
                run.session.close()
        assert runtime._lock is not None
        runtime._lock.release()
        self.runtime = None
        if torn and not self.damaged:
            entries = read_entries(self.journal())
            line = make_entry(
                len(entries), self.day, "advance", "lost", {"days": 1}, entries[-1].hash
            )
            raw = dumps(line.record()) + b"\n"
            cut = data.draw(st.integers(1, len(raw) - 1), label="cut")
            with open(self.root / "journal.jsonl", "ab") as handle:
                handle.write(raw[:cut])
        self.runtime = self.hosted.runtime(LIMITS)
        assert self.run_id not in self.rt.recovery.damaged, self.rt.recovery.damaged
        self.damaged = False

    @precondition(lambda self: not self.damaged)
    @rule(days=st.integers(1, 3), command_id=IDS)
    def journal_not_durable(self, days: int, command_id: str) -> None:
        """The fsync that would make a command durable fails: no reply, the command cut off
        again, the run refused until the host restarts."""
        if any(a.id == command_id for a in self.acked) or self.day + days > self.bundle.horizon:
            return
        event("host journal not durable")
        journal = self.journal()
        self.rt.snapshot(ALPHA, self.run_id)  # its session open: the command's fsync is first
        request = AdvanceRequest(command_id=command_id, days=days)
        with (
            fsync_then_cut_fail(self.monkeypatch, 1, cuts_fail=False),
            pytest.raises(HostError) as refused,
        ):
            self.rt.advance(ALPHA, self.run_id, request)
        assert refused.value.code == "run_damaged", refused.value.message
        assert self.journal() == journal
        self.damaged = True

    @precondition(lambda self: not self.damaged)
    @rule(
        days=st.integers(1, 3),
        command_id=IDS,
        sealed_first=st.booleans(),
        sync_fails=st.booleans(),
    )
    def on_the_event_loop(
        self, days: int, command_id: str, sealed_first: bool, sync_fails: bool
    ) -> None:
        """A command as the HTTP API applies it to an open run: written without fsync,
        replied to once the syncer has made it durable (perhaps after the sealer sealed
        it). When the syncer's fsync fails, there is no reply and the run is refused until
        the host restarts; what was not durable is cut, what a seal covered stays."""
        if any(a.id == command_id for a in self.acked) or self.day + days > self.bundle.horizon:
            return
        event(f"host on the event loop (sealed first: {sealed_first}, fails: {sync_fails})")
        journal = self.journal()
        self.rt.snapshot(ALPHA, self.run_id)  # its session open, as the API requires
        request = AdvanceRequest(command_id=command_id, days=days)
        reply = self.rt.advance(ALPHA, self.run_id, request, defer=True).model_dump(mode="json")
        if sealed_first:
            self.rt.seal_changed()
        if not sync_fails:
            path, size = self.rt.journal_path(self.run_id), self.rt.journal_size(self.run_id)
            asyncio.run(self.rt.syncer.sync(path, size))
            self.acked.append(Acked("advance", command_id, {"days": days}, reply))
            return
        self.rt.journal_failed(self.run_id, OSError(errno.EIO, "Input/output error"))
        self.damaged = True
        if sealed_first:  # durable and sealed: applied, though never replied to
            self.acked.append(Acked("advance", command_id, {"days": days}, reply))
        else:
            assert self.journal() == journal

    @precondition(lambda self: not self.damaged)
    @rule()
    def seal_not_durable(self) -> None:
        """The seal's fsync of this run's journal fails: a run with unsealed commands is
        damaged (nothing acknowledged is cut: each was made durable before its reply), and
        the host goes on serving the other agent."""
        event("host seal not durable")
        journal = self.journal()
        sealed = orjson.loads((self.root / "seal.json").read_bytes())["journal_head"]
        unsealed = sealed != read_entries(journal)[-1].hash
        real = journal_module.fsync_file

        def failing(path: Path) -> None:
            if self.run_id in str(path):
                raise OSError(errno.EIO, "Input/output error")
            real(path)

        with self.monkeypatch.context() as patch:
            patch.setattr(journal_module, "fsync_file", failing)
            self.rt.seal_changed()
        assert self.journal() == journal
        self.damaged = unsealed
        assert (self.view() is None) == self.damaged

    # -- invariants -------------------------------------------------------------------
    @invariant()
    def the_journal_holds_what_was_acknowledged(self) -> None:
        entries = read_entries(self.journal())
        held = [(e.kind, e.id, dict(e.payload)) for e in entries[1:]]
        assert held == [(a.kind, a.id, a.payload) for a in self.acked]

    @invariant()
    def the_view_is_the_journal_replayed(self) -> None:
        if self.runtime is None or self.damaged:
            return
        entries = read_entries(self.journal())
        replayed = replay(self.bundle, self.seed, entries)
        expected = public_view.build(self.bundle, replayed.engine, replayed.submissions)
        assert self.rt.snapshot(ALPHA, self.run_id) == expected
        assert replayed.engine.day == self.day

    @invariant()
    def a_sealed_run_verifies(self) -> None:
        entries = read_entries(self.journal())
        sealed = orjson.loads((self.root / "seal.json").read_bytes())
        if sealed["journal_head"] == entries[-1].hash:
            verified = verify_run(self.root, self.control)
            assert verified.ok, verified.divergence

    @invariant()
    def the_other_agent_sees_nothing_of_it(self) -> None:
        if self.runtime is None:
            return
        assert [r.run_id for r in self.rt.runs(BRAVO).runs] == [self.bravo_run] * bool(
            self.bravo_run
        )
        with pytest.raises(HostError) as refused:
            self.rt.snapshot(BRAVO, self.run_id)
        assert refused.value.code == "not_found"


HostedEpisode.TestCase.settings = machine_settings(40, 25)
test_hosted_episode = HostedEpisode.TestCase
