"""The day engine: opening position, decisions, day cycle and branch-point snapshots.

A run is a pure function of (campaign, seed, decisions). Day 0 is the opening close;
each `advance` runs ordinary operations of the next day and closes it (DESIGN §4).
`snapshot()` captures the state after a close, before that day's decisions, and
`Engine.from_snapshot` continues from it without replaying from day 0.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.book import Book
from ledger.collector import collector_paused
from sim import chart as C
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Action
from sim.metrics import metric_value
from sim.operations import free_cash, run_operations
from sim.scheduling import ScheduleOutcome, check_terms, reserve
from sim.state import Alert, State
from sim.world import World


class EngineError(ValueError):
    """A request the engine cannot carry out (unknown action, past the horizon)."""


@dataclass(frozen=True)
class Snapshot:
    """A branch point: the state and ledger after a day's close, before its decisions."""

    bundle: CampaignBundle
    seed: int
    state: State
    book: Book
    world: World
    """The run's fixed inputs, shared by every branch from here (they never change)."""

    @property
    def day(self) -> int:
        """The closed day this snapshot was taken after."""
        return self.state.day


class Engine:
    """Runs one branch of a campaign day by day."""

    def __init__(self, bundle: CampaignBundle, seed: int, *, _restore: Snapshot | None = None):
        self.bundle = bundle
        self.seed = seed
        self.world = World.of(bundle, seed) if _restore is None else _restore.world
        if _restore is not None:
            self.state = _restore.state.clone()
            self.book = _restore.book.fork()
        else:
            self.state, self.book = self._open()

    # -- construction ---------------------------------------------------------------
    def _open(self) -> tuple[State, Book]:
        company = self.bundle.campaign.company
        book = Book(C.chart_for(self.bundle.campaign), first_day=0)
        raw_value = company.opening_raw_units * company.opening_raw_unit_cost
        finished_value = company.opening_finished_units * company.opening_finished_unit_cost
        equity = company.opening_cash + raw_value + finished_value
        book.post(
            0,
            company.opening_equity_note,
            (
                (C.CASH, company.opening_cash),
                (C.RAW, raw_value),
                (C.FINISHED, finished_value),
                (C.OWNER, -equity),
                (C.U_RAW, company.opening_raw_units),
                (C.U_FINISHED, company.opening_finished_units),
                (C.U_OPENING, -(company.opening_raw_units + company.opening_finished_units)),
            ),
        )
        gauges = [
            (C.GAUGE_PRICE, company.price),
            (C.GAUGE_CAPACITY, company.equipment_capacity),
            (C.GAUGE_SUPPLIER_COST, self.world.supplier_costs[company.supplier]),
        ]
        gauges += [(C.headcount_gauge(r.id), r.headcount) for r in company.roles]
        legs = []
        for gauge, value in gauges:
            if value:
                legs += [(gauge, value), (C.basis_of(gauge), -value)]
        if legs:
            book.post(0, "opening gauges", legs)
        book.close_day(0)
        state = State(
            day=0,
            price=company.price,
            headcount={r.id: r.headcount for r in company.roles},
            equipment_capacity=company.equipment_capacity,
            supplier=company.supplier,
            demand_lift_bp=0,
            overhead_per_day=0,
            reach_milli=0,
            raw_units=company.opening_raw_units,
            in_transit_units=0,
            finished_units=company.opening_finished_units,
        )
        return state, book

    @classmethod
    def from_snapshot(cls, snapshot: Snapshot) -> Engine:
        """A new engine continuing from a branch point (the snapshot stays reusable)."""
        return cls(snapshot.bundle, snapshot.seed, _restore=snapshot)

    def snapshot(self) -> Snapshot:
        """The branch point after the current day's close (cheap: copies, no replay)."""
        return Snapshot(self.bundle, self.seed, self.state.clone(), self.book.fork(), self.world)

    # -- queries --------------------------------------------------------------------
    @property
    def day(self) -> int:
        """The last closed day; decisions now belong to this day."""
        return self.state.day

    @property
    def horizon(self) -> int:
        """The campaign's last day."""
        return self.bundle.campaign.horizon_days

    @property
    def finished(self) -> bool:
        """True once the horizon day has closed."""
        return self.state.day >= self.horizon

    def free_cash(self) -> int:
        """Cash not reserved for commitments, in cents."""
        return free_cash(self.state, self.book)

    def metric(self, metric_id: str, day: int | None = None) -> int:
        """A registered metric at the close of `day` (now when None), in minor units."""
        return metric_value(self.book, self.bundle.metrics[metric_id], day)

    # -- decisions ------------------------------------------------------------------
    def _action(self, action_id: str) -> Action:
        action = self.bundle.actions.get(action_id)
        if action is None:
            known = ", ".join(sorted(self.bundle.actions))
            raise EngineError(f"unknown action {action_id!r} (known: {known})")
        return action

    def check(self, action_id: str) -> ScheduleOutcome:
        """Would scheduling `action_id` now be accepted? Changes nothing."""
        if self.finished:
            raise EngineError(f"the campaign ended on day {self.horizon}")
        return check_terms(self.state, self._action(action_id), self.book.balance(C.CASH))

    def schedule(self, action_id: str) -> ScheduleOutcome:
        """Schedule an action at this day's decisions: reserve it, or reject with the reason."""
        outcome = self.check(action_id)
        if outcome.accepted:
            reserve(self.state, self._action(action_id), outcome.start_day or self.day + 1)
        else:
            self.state.alerts.append(Alert(self.state.day, "rejected", outcome.reason or ""))
        return outcome

    def schedule_choice(self, action_ids: list[str] | tuple[str, ...]) -> list[ScheduleOutcome]:
        """Schedule a choice's actions in lexicographic action-id order (the fixed priority)."""
        return [self.schedule(action_id) for action_id in sorted(action_ids)]

    # -- the day cycle --------------------------------------------------------------
    def advance(self, days: int = 1) -> None:
        """Run `days` whole days: operations then close, for each."""
        if days < 1:
            raise EngineError("advance needs at least one day")
        if self.state.day + days > self.horizon:
            raise EngineError(
                f"cannot advance {days} day(s) from day {self.state.day}: the horizon is "
                f"day {self.horizon}"
            )
        with collector_paused():
            for _ in range(days):
                day = self.state.day + 1
                stats = run_operations(self.world, self.state, self.book, day)
                self.book.close_day(day)
                self.state.history.append(stats)
                self.state.day = day

    def run_to(self, day: int) -> None:
        """Advance until `day` has closed."""
        if day > self.state.day:
            self.advance(day - self.state.day)
