"""Re-execute a command journal on a fresh engine: the heart of play, verify and evaluate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from ledger.journal import HEADER_KIND, Entry
from sim.campaign_load import CampaignBundle
from sim.engine import Engine, Snapshot
from workbench.runs.assessment import SubmissionRecord
from workbench.runs.commands import (
    Advance,
    Finish,
    PlayerCommand,
    Schedule,
    command_from_entry,
)


class ReplayError(ValueError):
    """A journal entry that cannot be re-executed (names the entry)."""


@dataclass
class ReplayResult:
    """An engine after re-executing a journal, with what each command did."""

    engine: Engine
    outcomes: dict[int, dict[str, Any]] = field(default_factory=dict)
    submissions: list[SubmissionRecord] = field(default_factory=list)
    snapshots: dict[int, Snapshot] = field(default_factory=dict)


def apply_command(
    engine: Engine,
    command: PlayerCommand,
    seq: int,
    submissions: list[SubmissionRecord],
    snapshot_days: frozenset[int] = frozenset(),
    snapshots: dict[int, Snapshot] | None = None,
) -> dict[str, Any]:
    """Apply one command; return its outcome record. Snapshots branch points on the way."""
    if isinstance(command, Schedule):
        outcome = engine.schedule(command.action)
        return {
            "accepted": outcome.accepted,
            "reason": outcome.reason,
            "start_day": outcome.start_day,
        }
    if isinstance(command, Advance):
        for _ in range(command.days):
            engine.advance(1)
            if snapshots is not None and engine.day in snapshot_days:
                snapshots[engine.day] = engine.snapshot()
        return {"day": engine.day}
    if isinstance(command, Finish):
        for day in range(engine.day + 1, engine.horizon + 1):
            engine.advance(1)
            if snapshots is not None and day in snapshot_days:
                snapshots[day] = engine.snapshot()
        return {"day": engine.day, "finished": True}
    submissions.append(SubmissionRecord(seq, engine.day, command.assessment))
    return {"recorded": True}


def replay(
    bundle: CampaignBundle,
    seed: int,
    entries: Iterable[Entry],
    snapshot_days: Iterable[int] = (),
) -> ReplayResult:
    """Re-execute every non-header entry; capture a snapshot after the close of each asked day.

    A snapshot for day D is taken when day D has closed and before any decision of day D.
    """
    engine = Engine(bundle, seed)
    wanted = frozenset(snapshot_days)
    result = ReplayResult(engine)
    if 0 in wanted:
        result.snapshots[0] = engine.snapshot()
    for entry in entries:
        if entry.kind == HEADER_KIND:
            continue
        if engine.finished:
            raise ReplayError(
                f"seq {entry.seq} ({entry.kind}): the run finished on day {engine.day}; "
                "no command may follow"
            )
        if entry.day != engine.day:
            raise ReplayError(
                f"seq {entry.seq}: entry is dated day {entry.day} but the run is "
                f"at day {engine.day} (changed or reordered entry)"
            )
        try:
            command = command_from_entry(entry.kind, dict(entry.payload))
            outcome = apply_command(
                engine, command, entry.seq, result.submissions, wanted, result.snapshots
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"][1:]) or "payload"
            message = str(first["msg"]).removeprefix("Value error, ")
            raise ReplayError(f"seq {entry.seq} ({entry.kind}): {where}: {message}") from exc
        except ValueError as exc:
            raise ReplayError(f"seq {entry.seq} ({entry.kind}): {exc}") from exc
        result.outcomes[entry.seq] = outcome
    return result


def reach_branch_points(result: ReplayResult, days: Iterable[int]) -> dict[int, Snapshot]:
    """Snapshots for every asked day, running past the journal's end with no decisions."""
    snapshots = dict(result.snapshots)
    missing = sorted(d for d in set(days) if d not in snapshots)
    if not missing:
        return snapshots
    engine = Engine.from_snapshot(result.engine.snapshot())
    for day in missing:
        if day < engine.day:
            raise ReplayError(f"day {day} was not captured during replay")
        engine.run_to(day)
        snapshots[day] = engine.snapshot()
    return snapshots
