"""Re-execute a command journal on a fresh engine: the heart of play, verify and evaluate."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from pydantic import ValidationError

from ledger.journal import HEADER_KIND, Entry
from sim.campaign_load import CampaignBundle
from sim.engine import Engine, Snapshot
from sim.scheduling import ScheduleOutcome
from workbench.messages import problems
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


@dataclass(frozen=True)
class Advanced:
    """What an advance or finish command did: the day the run reached, and whether it ended."""

    day: int
    finished: bool = False


CommandOutcome = ScheduleOutcome | Advanced | SubmissionRecord
"""What one journaled command did: a schedule's outcome, the day reached, or the submission."""


@dataclass
class ReplayResult:
    """An engine after re-executing a journal, with what each command did."""

    engine: Engine
    outcomes: dict[int, CommandOutcome] = field(default_factory=dict)
    submissions: list[SubmissionRecord] = field(default_factory=list)
    snapshots: dict[int, Snapshot] = field(default_factory=dict)


def _run_to(
    engine: Engine,
    target: int,
    snapshot_days: frozenset[int],
    snapshots: dict[int, Snapshot] | None,
) -> None:
    """Run to `target` in as few loops as the wanted snapshots allow, taking them on the way."""
    if snapshots is not None:
        for day in sorted(d for d in snapshot_days if engine.day < d <= target):
            engine.run_to(day)
            snapshots[day] = engine.snapshot()
    engine.run_to(target)


def apply_command(
    engine: Engine,
    command: PlayerCommand,
    seq: int,
    submissions: list[SubmissionRecord],
    snapshot_days: frozenset[int] = frozenset(),
    snapshots: dict[int, Snapshot] | None = None,
) -> CommandOutcome:
    """Apply one command; return what it did. Snapshots branch points on the way."""
    if isinstance(command, Schedule):
        return engine.schedule(command.action)
    if isinstance(command, Advance):
        if engine.day + command.days > engine.horizon:
            engine.advance(command.days)  # refused whole, naming the horizon
        _run_to(engine, engine.day + command.days, snapshot_days, snapshots)
        return Advanced(engine.day)
    if isinstance(command, Finish):
        _run_to(engine, engine.horizon, snapshot_days, snapshots)
        return Advanced(engine.day, finished=True)
    record = SubmissionRecord(seq, engine.day, command.assessment)
    submissions.append(record)
    return record


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
            detail = "; ".join(problems(exc, "payload"))
            raise ReplayError(f"seq {entry.seq} ({entry.kind}): {detail}") from exc
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
