"""A run's whole life as a state machine (hypothesis' stateful testing): the player's
commands, valid and not, retries of command ids, seals, closing and reopening, crashes
(a torn append, a sealed line lost, an fsync or a write the disk refuses) and finishing,
in any order, on a real run directory; written as the CLI and the dashboard write it
(sealed after every command), as the host does (journaled first, sealed when asked) and
as `workbench run` does (held back, written and acknowledged by the seal).

A model holds what was acknowledged. After every step: the book balances per unit at
closed days; the journal on file holds the header and exactly the acknowledged commands;
replaying it from scratch gives the session's ledger digest and public view; a sealed run
verifies; the public view shows nothing after the day that closed last. A refused command
changes nothing (journal, seal, state) and says so in one line; a retried id returns the
first result and changes nothing; the acknowledged commands played into a new run give
the same journal, seal and run.json byte for byte.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from campaigns import DEFAULT_CAMPAIGN
from ledger.canonical import dumps
from ledger.journal import make_entry, read_entries
from tests.machines import machine_settings
from tests.workbench.faults import files_may_not_grow_beyond, fsync_then_cut_fail
from workbench.errors import IntegrityError, StorageError, UserError, WorkbenchError
from workbench.play import public_view
from workbench.play.session import PlayerSession, SubmitResult
from workbench.runs.bundle import load_bundle
from workbench.runs.replay import replay
from workbench.runs.verify import verify_run

BUNDLE = load_bundle(DEFAULT_CAMPAIGN)
HORIZON = BUNDLE.horizon
IDS = st.sampled_from(["a", "b", "c", "d", "e", "f"]) | st.none()
"""Few ids, so that a new command often reuses one (a retry or a clash)."""
ACTIONS = st.sampled_from(sorted(BUNDLE.actions))
BAD_ACTIONS = st.sampled_from(["no_such_action", "BANK_LOAN", "bank loan", "", "x" * 129])
DAYS = st.one_of(
    st.sampled_from([1, 2, 3]), st.sampled_from([5, 10, 30]), st.integers(1, HORIZON + 5)
)
"""Mostly a few days, so that a run lives long enough to meet every rule."""
FINISH_AFTER = 12
"""Steps before `finish` may be drawn (every later command is refused: a run that finished
early would test little else)."""
BAD_DAYS = st.sampled_from([0, -1, -30, True, False])


def _valid_assessments() -> list[dict[str, Any]]:
    """One valid submission per question (its conclusion and pick as the question asks)."""
    found = []
    for question in BUNDLE.questions.values():
        data: dict[str, Any] = {"question": question.id, "value": "-250"}
        if question.intervention.select_from:
            data["choice"] = question.intervention.select_from[0]
        if question.conclusion is not None:
            if question.conclusion.kind == "contract_component":
                data["conclusion"] = "-300.00"
            else:
                data["conclusion"] = []
        found.append(data)
    return found


VALID = _valid_assessments()
VALUES = st.sampled_from(["-250", "0", "12.5", "1000000", "-0.000001", 3, 1.5])
ASSESSMENTS = st.builds(
    lambda base, value: {**base, "value": value}, st.sampled_from(VALID), VALUES
)
MALFORMED = st.sampled_from(
    [
        {"question": "q_bank_loan"},
        {"question": "q_bank_loan", "value": ""},
        {"question": "q_bank_loan", "value": "abc"},
        {"question": "q_bank_loan", "value": "NaN"},
        {"question": "q_bank_loan", "value": "1e999"},
        {"question": "q_bank_loan", "value": "0.0000001"},
        {"question": "q_bank_loan", "value": True},
        {"question": "q_bank_loan", "value": [1]},
        {"question": "q_bank_loan", "value": "1", "conclusion": "-300.001"},
        {"question": "q_bank_loan", "value": "1", "conclusion": ["x"]},
        {"question": "q_bank_loan", "value": "1", "conclusion": " "},
        {"question": "q_spring_campaign", "value": "1", "conclusion": "5.00"},
        {"question": "q_spring_campaign", "value": "1", "choice": "bank_loan"},
        {"question": "no_such_question", "value": "1"},
        {"question": "q_bank_loan", "value": "1", "extra": 1},
        {"question": "q_pick_a_lever", "value": "1"},
        {"question": "q_pick_a_lever", "value": "1", "choice": "no_such_action"},
        {"question": "q_expansion_effects", "value": "1", "conclusion": ["x", "x"]},
    ]
)


@dataclass(frozen=True)
class Acked:
    """A command the session acknowledged: what the journal must hold for it."""

    kind: str
    id: str
    payload: dict[str, Any]
    result: object


def payload_of(kind: str, **fields: Any) -> dict[str, Any]:
    """A command's journal payload as the journal stores it (canonical round trip)."""
    return orjson.loads(dumps(fields))


class RunLifecycle(RuleBasedStateMachine):
    """One development run, played by random rules; see the module doc."""

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="cfwb-dst-"))
        self.root = self.tmp / "run"
        self.session: PlayerSession | None = None
        self.acked: list[Acked] = []
        self.torn = False
        """The session refused an append it could not cut off: it takes no command until
        the run is opened again."""
        self.monkeypatch = pytest.MonkeyPatch()
        self.steps = 0
        self.durable = 0

    AUTOSEAL = True
    """Seal after every command (the CLI and the dashboard); without, the session seals
    when asked (as the host does, and `workbench run` at its end)."""
    WRITE_AHEAD = True
    """Journal each command before applying it; without (`workbench run`), commands are
    held back in memory and written at the seal, which is when they are acknowledged."""

    @initialize()
    def create(self) -> None:
        self.session = PlayerSession.create(
            self.root, BUNDLE, autoseal=self.AUTOSEAL, write_ahead=self.WRITE_AHEAD
        )
        if not self.AUTOSEAL:
            self.s.seal()

    def reopen(self) -> PlayerSession:
        """The run opened again by a writer of the same kind."""
        self.session = PlayerSession.resume(
            self.root, BUNDLE, autoseal=self.AUTOSEAL, write_ahead=self.WRITE_AHEAD
        )
        return self.session

    @property
    def on_file(self) -> int:
        """How many acknowledged commands the journal file holds (a held-back session's
        later ones are in memory until its seal)."""
        return len(self.acked) if self.WRITE_AHEAD else self.durable

    def sealed(self) -> None:
        """A seal succeeded: every command the session holds is on file."""
        self.durable = len(self.acked)

    def closed(self) -> None:
        """The session is gone: what it held back in memory is gone with it."""
        del self.acked[self.on_file :]

    def teardown(self) -> None:
        self.monkeypatch.undo()
        if self.session is not None:
            self.session.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- the model --------------------------------------------------------------------
    @property
    def s(self) -> PlayerSession:
        assert self.session is not None
        return self.session

    def by_id(self, command_id: str | None) -> Acked | None:
        if command_id is None:
            return None
        return next((a for a in self.acked if a.id == command_id), None)

    @property
    def day(self) -> int:
        """The day the model expects: what the acknowledged advances and finish reached."""
        day = 0
        for acked in self.acked:
            if acked.kind == "advance":
                day += acked.payload["days"]
            elif acked.kind == "finish":
                day = HORIZON
        return day

    def expected(self, kind: str, command_id: str | None, payload: dict[str, Any]) -> str:
        """'retry', 'clash' or 'new' for a command with a valid payload."""
        known = self.by_id(command_id)
        if known is None:
            return "new"
        same = known.kind == kind and dumps(known.payload) == dumps(payload)
        return "retry" if same else "clash"

    def state(self) -> dict[str, Any]:
        """Everything a refused command must leave as it was."""
        paths = self.s.paths
        return {
            "journal": paths.journal.read_bytes(),
            "seal": paths.seal.read_bytes() if paths.seal.exists() else None,
            "cut": (paths.root / "journal.jsonl.cut").exists(),
            "day": self.s.day,
            "entries": self.s.journal_entries,
            "digest": self.s.ledger().totals(),
            "book": self.s._engine.book.digest(),
            "view": self.s.view().model_dump(mode="json"),
        }

    def command(
        self, kind: str, command_id: str | None, payload: dict[str, Any] | None, call: Any
    ) -> object:
        """Run one command and hold it to the model: `payload` None means it is invalid
        (refused whatever its id), else it is applied, retried or refused as the model
        expects. Returns its result (None when refused)."""
        before = self.state()
        expectation = "invalid" if payload is None else self.expected(kind, command_id, payload)
        if expectation == "new" and (self.s.finished or self.torn):
            expectation = "refused"
        self.steps += 1
        event(f"{kind}: {expectation}")
        try:
            result = call()
        except WorkbenchError as exc:
            event(f"{kind}: {expectation}: refused")
            assert "\n" not in exc.message, exc.message
            assert expectation != "new" and expectation != "retry", (expectation, exc.message)
            assert self.state() == before, exc.message
            if self.torn:
                assert isinstance(exc, StorageError) or expectation in ("invalid", "clash")
            return None
        if isinstance(result, SubmitResult) and not result.accepted:
            assert expectation == "invalid", (expectation, result.errors)
            assert all("\n" not in error for error in result.errors)
            assert self.state() == before
            return None
        assert expectation in ("new", "retry"), (expectation, kind, command_id, payload, result)
        if expectation == "retry":
            known = self.by_id(command_id)
            assert known is not None
            assert result == known.result, (kind, command_id, result, known.result)
            assert self.state() == before
            return result
        assert payload is not None
        entry = self.s.journal_entries[-1]
        assert (entry.kind, entry.payload) == (kind, payload)
        assert command_id is None or entry.id == command_id
        assert len(self.s.journal_entries) == len(before["entries"]) + 1
        self.acked.append(Acked(kind, entry.id, payload, result))
        return result

    # -- commands ---------------------------------------------------------------------
    @rule(action=ACTIONS, command_id=IDS)
    def schedule(self, action: str, command_id: str | None) -> None:
        self.command(
            "schedule",
            command_id,
            payload_of("schedule", action=action),
            lambda: self.s.schedule(action, command_id),
        )

    @rule(action=BAD_ACTIONS, command_id=IDS)
    def schedule_unknown(self, action: str, command_id: str | None) -> None:
        self.command("schedule", command_id, None, lambda: self.s.schedule(action, command_id))

    @rule(days=DAYS, command_id=IDS)
    def advance(self, days: int, command_id: str | None) -> None:
        payload = payload_of("advance", days=days)
        past = self.day + days > HORIZON and self.expected("advance", command_id, payload) == "new"
        self.command(
            "advance",
            command_id,
            None if past else payload,
            lambda: self.s.advance(days, command_id),
        )

    @rule(days=BAD_DAYS, command_id=IDS)
    def advance_not_a_day(self, days: int, command_id: str | None) -> None:
        self.command("advance", command_id, None, lambda: self.s.advance(days, command_id))

    @rule(assessment=ASSESSMENTS, command_id=IDS)
    def submit(self, assessment: dict[str, Any], command_id: str | None) -> None:
        parsed = self.s.check_assessment(assessment).assessment
        assert parsed is not None, assessment
        payload = payload_of("submit_assessment", assessment=parsed.model_dump(mode="json"))
        payload = {"assessment": {k: v for k, v in payload["assessment"].items() if v is not None}}
        self.command(
            "submit_assessment", command_id, payload, lambda: self.s.submit(assessment, command_id)
        )

    @rule(assessment=MALFORMED, command_id=IDS)
    def submit_malformed(self, assessment: dict[str, Any], command_id: str | None) -> None:
        self.command(
            "submit_assessment", command_id, None, lambda: self.s.submit(assessment, command_id)
        )

    @precondition(lambda self: self.steps >= FINISH_AFTER)
    @rule(command_id=IDS)
    def finish(self, command_id: str | None) -> None:
        self.command("finish", command_id, payload_of("finish"), lambda: self.s.finish(command_id))

    @precondition(lambda self: bool(self.acked))
    @rule(data=st.data())
    def retry(self, data: st.DataObject) -> None:
        """The same id and content again: the first result, nothing changed."""
        known = data.draw(st.sampled_from(self.acked))
        calls = {
            "schedule": lambda: self.s.schedule(known.payload["action"], known.id),
            "advance": lambda: self.s.advance(known.payload["days"], known.id),
            "submit_assessment": lambda: self.s.submit(dict(known.payload["assessment"]), known.id),
            "finish": lambda: self.s.finish(known.id),
        }
        self.command(known.kind, known.id, known.payload, calls[known.kind])

    @precondition(lambda self: not self.torn)
    @rule()
    def the_same_commands_in_a_new_run(self) -> None:
        """The acknowledged commands, with their ids, played into a new run: the same
        journal, ledger and seal, byte for byte."""
        event("the same commands in a new run")
        self.s.seal()
        self.sealed()
        fresh = self.tmp / f"again-{len(list(self.tmp.iterdir()))}"
        calls = {
            "schedule": lambda s, a: s.schedule(a.payload["action"], a.id),
            "advance": lambda s, a: s.advance(a.payload["days"], a.id),
            "submit_assessment": lambda s, a: s.submit(dict(a.payload["assessment"]), a.id),
            "finish": lambda s, a: s.finish(a.id),
        }
        with PlayerSession.create(fresh, BUNDLE) as again:
            for acked in self.acked:
                assert calls[acked.kind](again, acked) == acked.result
            assert again._engine.book.digest() == self.s._engine.book.digest()
        for name in ("journal.jsonl", "seal.json", "run.json"):
            assert (fresh / name).read_bytes() == (self.root / name).read_bytes(), name
        shutil.rmtree(fresh)

    # -- reads ------------------------------------------------------------------------
    @rule(action=ACTIONS | BAD_ACTIONS, assessment=ASSESSMENTS | MALFORMED)
    def read(self, action: str, assessment: dict[str, Any]) -> None:
        """Every read a player has changes nothing."""
        before = self.state()
        try:
            self.s.preview(action)
        except UserError as exc:
            assert "\n" not in exc.message
        self.s.traps_if_scheduled(action)
        self.s.sprung_traps()
        self.s.check_assessment(assessment)
        self.s.briefing()
        self.s.objective_progress()
        self.s.summary()
        self.s.task_results()
        self.s.metric_series()
        self.s.ledger().export("csv")
        assert self.state() == before

    # -- seals, closing, crashes ------------------------------------------------------
    @rule()
    def seal(self) -> None:
        """A seal; after a torn append it either refuses or seals what is on file, and never
        writes behind the tear."""
        if not self.torn:
            self.s.seal()
            self.sealed()
            assert verify_run(self.root).ok
            return
        journal = self.s.paths.journal.read_bytes()
        try:
            self.s.seal()
        except StorageError as exc:
            assert "\n" not in exc.message
        assert self.s.paths.journal.read_bytes() == journal

    @rule(read_only=st.booleans())
    def close_and_reopen(self, read_only: bool) -> None:
        event("close and reopen")
        pending = len(self.acked) > self.on_file
        before = self.state() if not (self.torn or pending) else None
        self.s.close()
        self.session = None
        self.closed()
        if read_only and not self.torn:
            with PlayerSession.resume(self.root, BUNDLE, read_only=True) as reader:
                held = [(e.kind, e.id, dict(e.payload)) for e in reader.journal_entries[1:]]
                assert held == [(a.kind, a.id, a.payload) for a in self.acked]
        elif read_only:  # a reader names bytes never acknowledged, and leaves them
            journal = self.root / "journal.jsonl"
            held = journal.read_bytes()
            with pytest.raises(IntegrityError, match="never acknowledged") as named:
                PlayerSession.resume(self.root, BUNDLE, read_only=True)
            assert "\n" not in named.value.message and journal.read_bytes() == held
        self.reopen()
        if before is not None:
            after = self.state()
            assert after["entries"] == before["entries"]
            assert after["book"] == before["book"] and after["view"] == before["view"]
        self.torn = False

    @precondition(lambda self: not self.torn)
    @rule(data=st.data())
    def crash_mid_append(self, data: st.DataObject) -> None:
        """A writer killed while appending a command it never acknowledged: the file ends
        in part of a line. Readers name it; the next writer cuts it, and only it."""
        event("crash mid append")
        journal = self.s.paths.journal
        whole = journal.read_bytes()
        entries = read_entries(whole)
        self.s.close()
        self.session = None
        self.closed()
        line = (
            dumps(
                make_entry(
                    len(entries), self.day, "advance", "lost", {"days": 1}, entries[-1].hash
                ).record()
            )
            + b"\n"
        )
        cut = data.draw(st.integers(1, len(line) - 1), label="cut")
        with open(journal, "ab") as handle:
            handle.write(line[:cut])
        verified = verify_run(self.root)
        assert not verified.ok and "torn" in (verified.divergence or "")
        with pytest.raises(IntegrityError):
            PlayerSession.resume(self.root, BUNDLE, read_only=True)
        assert journal.read_bytes() == whole + line[:cut]
        self.reopen()
        assert self.s.repairs.cut_tail
        assert journal.read_bytes() == whole

    @precondition(lambda self: not self.torn)
    @rule(data=st.data())
    def lose_a_sealed_line(self, data: st.DataObject) -> None:
        """The disk loses the end of a line the seal covers: no writer may cut it (an
        acknowledged command would be lost); opening the run refuses and changes nothing."""
        event("lose a sealed line")
        self.s.seal()
        self.sealed()
        journal = self.s.paths.journal
        whole = journal.read_bytes()
        self.s.close()
        self.session = None
        start = whole.rstrip(b"\n").rfind(b"\n") + 1
        cut = data.draw(st.integers(start, len(whole) - 1), label="cut")
        journal.write_bytes(whole[:cut])
        with pytest.raises(IntegrityError) as refused:
            PlayerSession.resume(self.root, BUNDLE)
        assert "\n" not in refused.value.message
        assert journal.read_bytes() == whole[:cut]
        journal.write_bytes(whole)
        self.reopen()

    @precondition(lambda self: not self.torn)
    @rule(
        fault=st.sampled_from(["full", "fsync", "fsync and cut", "seal fsync"]),
        days=st.integers(1, 3),
        command_id=IDS,
    )
    def disk_refuses(self, fault: str, days: int, command_id: str | None) -> None:
        """An advance the disk refuses: a write cut short (a full disk), an fsync that
        fails (its line cut off again, or the cut refused too and recorded), or the
        seal's fsync failing after the journal's (the command stands, its seal follows)."""
        payload = payload_of("advance", days=days)
        expectation = self.expected("advance", command_id, payload)
        if expectation != "new" or self.s.finished or self.day + days > HORIZON:
            return
        size = self.s.paths.journal.stat().st_size
        faults = {
            "full": lambda: files_may_not_grow_beyond(size + 40),
            "fsync": lambda: fsync_then_cut_fail(self.monkeypatch, 1, cuts_fail=False),
            "fsync and cut": lambda: fsync_then_cut_fail(self.monkeypatch, 1),
            "seal fsync": lambda: fsync_then_cut_fail(self.monkeypatch, 1, after=1),
        }
        event(f"disk refuses: {fault}")
        if not self.WRITE_AHEAD:
            self.held_back_disk_refuses(fault, faults[fault], days, command_id)
            return
        before = self.state()
        with faults[fault]():
            try:
                result = self.s.advance(days, command_id)
            except StorageError as exc:
                result = None
                assert "\n" not in exc.message and "not applied" in exc.message
        if fault == "seal fsync":
            assert result == before["day"] + days
            assert (self.s.seal_problem is not None) == self.AUTOSEAL
            entry = self.s.journal_entries[-1]
            self.acked.append(Acked("advance", entry.id, payload, result))
            return
        assert result is None
        after = self.state()
        if fault == "fsync and cut":
            assert after.pop("cut") and after.pop("journal").startswith(before.pop("journal"))
            before.pop("cut")
            self.torn = True
        assert after == before

    def held_back_disk_refuses(
        self, fault: str, injected: Any, days: int, command_id: str | None
    ) -> None:
        """`disk_refuses` for held-back commands: the advance is taken in memory, and the
        disk refuses the seal that writes it."""
        self.command(
            "advance",
            command_id,
            payload_of("advance", days=days),
            lambda: self.s.advance(days, command_id),
        )
        before = self.state()
        with injected(), pytest.raises(StorageError) as refused:
            self.s.seal()
        assert "\n" not in refused.value.message
        after = self.state()
        if fault == "seal fsync":  # written, so acknowledged; its seal follows
            assert "the commands are journaled" in refused.value.message
            assert after["journal"].startswith(before["journal"])
            self.sealed()
            return
        assert "not applied" in refused.value.message
        if fault == "fsync and cut":
            assert after.pop("cut") and after.pop("journal").startswith(before.pop("journal"))
            before.pop("cut")
            self.torn = True
        assert after == before

    # -- invariants -------------------------------------------------------------------
    @invariant()
    def book_balances_every_day(self) -> None:
        if self.session is None:
            return
        book = self.s._engine.book
        last = book.last_closed_day
        assert last == self.s.day
        for day in {0, last // 2, last}:
            assert not any(book.trial_balance(day).values()), day

    @invariant()
    def the_journal_holds_what_was_acknowledged(self) -> None:
        if self.session is None or self.torn:
            return
        entries = read_entries(self.s.paths.journal.read_bytes())
        assert entries == list(self.s.journal_entries)[: 1 + self.on_file]
        held = [(e.kind, e.id, dict(e.payload)) for e in self.s.journal_entries[1:]]
        assert held == [(a.kind, a.id, a.payload) for a in self.acked]
        assert self.s.day == self.day
        assert self.s.finished == (self.day == HORIZON)

    @invariant()
    def a_replay_from_scratch_is_the_same_run(self) -> None:
        if self.session is None:
            return
        replayed = replay(BUNDLE, self.s._identity.seed, self.s.journal_entries)
        assert replayed.engine.book.digest() == self.s._engine.book.digest()
        assert replayed.engine.day == self.s.day
        view = public_view.build(BUNDLE, replayed.engine, replayed.submissions)
        assert view == self.s.view()

    @invariant()
    def a_sealed_run_verifies(self) -> None:
        """A run whose seal covers its journal verifies; one whose seal lags (a seal the
        disk refused, or not asked for yet) is named interrupted, never damaged (from
        another process, verification would say a writer is at work)."""
        if self.session is None or self.torn:
            return
        sealed = orjson.loads(self.s.paths.seal.read_bytes())["journal_head"]
        if sealed == read_entries(self.s.paths.journal.read_bytes())[-1].hash:
            verified = verify_run(self.root)
            assert verified.ok, verified.divergence
            return
        assert self.s.seal_problem is not None or not self.AUTOSEAL
        verified = verify_run(self.root)
        assert not verified.ok and "the run was interrupted" in (verified.divergence or "")

    @invariant()
    def the_view_shows_nothing_after_today(self) -> None:
        if self.session is None:
            return
        day = self.s.day
        view = self.s.view()
        assert view.day == day
        assert all(alert.day <= day for alert in view.alerts)
        assert all(row.day <= day for row in view.submissions)
        series = self.s.metric_series()
        assert all(len(values) == day + 1 for values in series.values())
        assert all(t.day <= day for t in self.s._engine.book.transactions)
        history = self.s.ledger().account_history("Assets:Cash")
        assert [d for d, _ in history] == list(range(day + 1))
        assert isinstance(history[-1][1], Decimal)


RunLifecycle.TestCase.settings = machine_settings(60, 25)
test_run_lifecycle = RunLifecycle.TestCase


class HostModeRun(RunLifecycle):
    """The same run written as the host writes it: journaled before applied, sealed only
    when asked (and by whoever opens it next)."""

    AUTOSEAL = False


HostModeRun.TestCase.settings = RunLifecycle.TestCase.settings
test_host_mode_run_lifecycle = HostModeRun.TestCase


class HeldBackRun(RunLifecycle):
    """The same run written as `workbench run` writes it: commands held back in memory,
    written and acknowledged by the seal."""

    AUTOSEAL = False
    WRITE_AHEAD = False


HeldBackRun.TestCase.settings = RunLifecycle.TestCase.settings
test_held_back_run_lifecycle = HeldBackRun.TestCase
