"""The simulator's mutable world state, with cheap explicit cloning for branch points."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any


@dataclass(frozen=True, slots=True)
class Alert:
    """Something a player should notice: a rejected action, low cash, missed payroll."""

    day: int
    kind: str
    message: str


@dataclass(frozen=True, slots=True)
class DayStats:
    """Operational observations of one day (not money: that lives in the ledger)."""

    day: int
    demand: int
    sold: int
    lost_sales: int
    produced: int
    capacity: int
    staff_capacity: int
    free_cash: int
    shocks: tuple[str, ...]

    @property
    def utilisation(self) -> float:
        """Share of production capacity used."""
        return self.produced / self.capacity if self.capacity else 0.0


@dataclass(slots=True)
class Commitment:
    """An accepted action in flight: its schedule, cash still reserved, effects to land."""

    action_id: str
    scheduled_day: int
    start_day: int
    landing_day: int
    reserve_left: int
    pending_effects: tuple[int, ...]

    def copy(self) -> Commitment:
        """An independent copy."""
        return replace(self)


@dataclass(frozen=True, slots=True)
class StaffHold:
    """Staff of a role held by an action for a span of days (inclusive start, exclusive end)."""

    role: str
    count: int
    from_day: int
    until_day: int
    action_id: str


@dataclass(slots=True)
class Loan:
    """An outstanding loan: bullet principal, daily interest with an exact integer carry."""

    action_id: str
    principal: int
    annual_rate_bp: int
    maturity_day: int
    carry: int = 0

    def copy(self) -> Loan:
        """An independent copy."""
        return replace(self)


@dataclass(frozen=True, slots=True)
class Order:
    """A supplier order in transit."""

    placed_day: int
    arrival_day: int
    supplier: str
    units: int
    value: int


@dataclass(slots=True)
class State:
    """Everything the day engine reads and changes besides the ledger."""

    day: int
    price: int
    headcount: dict[str, int]
    equipment_capacity: int
    supplier: str
    demand_lift_bp: int
    overhead_per_day: int
    reach_milli: int
    raw_units: int
    in_transit_units: int
    finished_units: int
    reserved_cash: int = 0
    marketing: list[tuple[int, int]] = field(default_factory=list)
    orders: list[Order] = field(default_factory=list)
    loans: list[Loan] = field(default_factory=list)
    holds: list[StaffHold] = field(default_factory=list)
    commitments: dict[str, Commitment] = field(default_factory=dict)
    scheduled: dict[str, int] = field(default_factory=dict)
    completed: dict[str, int] = field(default_factory=dict)
    alerts: list[Alert] = field(default_factory=list)
    history: list[DayStats] = field(default_factory=list)
    missed_payrolls: int = 0

    def clone(self) -> State:
        """A deep-enough copy: the declared mutable containers copied, immutable records shared."""
        copies = {name: copy(getattr(self, name)) for name, copy in _CONTAINERS.items()}
        return replace(self, **copies)

    def busy(self, role: str, day: int) -> int:
        """Staff of `role` held by actions on `day`."""
        return sum(
            h.count for h in self.holds if h.role == role and h.from_day <= day < h.until_day
        )


_CONTAINERS: dict[str, Callable[[Any], Any]] = {
    "headcount": dict,
    "marketing": list,
    "orders": list,
    "loans": lambda loans: [loan.copy() for loan in loans],
    "holds": list,
    "commitments": lambda commitments: {k: c.copy() for k, c in commitments.items()},
    "scheduled": dict,
    "completed": dict,
    "alerts": list,
    "history": list,
}
"""How `State.clone` copies each mutable field (every other field is immutable; a test checks)."""
