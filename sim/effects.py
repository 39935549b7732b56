"""Every effect kind's one home: how it lands, the gauge that shows it, its money fields.

An effect's data model is declared with the campaign models (`sim.campaign_model`); what
it does is declared here, in `EFFECTS`, keyed by kind. A kind without an entry fails
`tests/sim/test_effects.py`, so a new kind is its model plus one entry below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ledger.book import Book
from sim import chart as C
from sim.campaign_model import (
    CapacityEffect,
    DemandEffect,
    Effect,
    EffectBase,
    HireEffect,
    LoanEffect,
    MarketingEffect,
    OverheadEffect,
    PriceEffect,
    SupplierEffect,
)
from sim.state import Loan, State
from sim.world import World

E = TypeVar("E", bound=EffectBase)


@dataclass(frozen=True, slots=True)
class Landing:
    """Where an effect lands: the run's world, state and book, the day and the action."""

    world: World
    state: State
    book: Book
    day: int
    action_id: str

    def gauge(self, gauge: str, delta: int) -> None:
        """Move a memo gauge by `delta` against its basis (nothing when it does not move)."""
        if delta:
            self.book.post(
                self.day,
                f"{self.action_id}: gauge {gauge.rsplit(':', 1)[-1]}",
                ((gauge, delta), (C.basis_of(gauge), -delta)),
                {"action": self.action_id},
            )


@dataclass(frozen=True, slots=True)
class EffectKind(Generic[E]):
    """What one kind of effect does."""

    land: Callable[[E, Landing], None]
    """Change the state and post to the book on the landing day."""
    gauge: Callable[[E], str]
    """The ledger account whose balance shows whether the effect has landed."""
    money_fields: tuple[str, ...] = ()
    """Fields held in cents, shown to players as dollar strings."""


def _land_hire(effect: HireEffect, at: Landing) -> None:
    at.state.headcount[effect.role] = at.state.headcount.get(effect.role, 0) + effect.count
    at.gauge(C.headcount_gauge(effect.role), effect.count)


def _land_capacity(effect: CapacityEffect, at: Landing) -> None:
    at.state.equipment_capacity += effect.units_per_day
    at.gauge(C.GAUGE_CAPACITY, effect.units_per_day)


def _land_price(effect: PriceEffect, at: Landing) -> None:
    at.gauge(C.GAUGE_PRICE, effect.new_price - at.state.price)
    at.state.price = effect.new_price


def _land_marketing(effect: MarketingEffect, at: Landing) -> None:
    at.state.marketing.append((at.day + effect.days, round(effect.reach_per_day * 1000)))


def _land_loan(effect: LoanEffect, at: Landing) -> None:
    aid = at.action_id
    at.state.loans.append(
        Loan(aid, effect.principal, effect.annual_rate_bp, at.day + effect.term_days)
    )
    at.book.post(
        at.day,
        f"{aid}: loan proceeds",
        ((C.CASH, effect.principal), (C.LOANS, -effect.principal)),
        {"action": aid, "flow": "financing"},
    )


def _land_supplier(effect: SupplierEffect, at: Landing) -> None:
    costs = at.world.supplier_costs
    at.gauge(C.GAUGE_SUPPLIER_COST, costs[effect.supplier] - costs[at.state.supplier])
    at.state.supplier = effect.supplier


def _land_demand(effect: DemandEffect, at: Landing) -> None:
    at.state.demand_lift_bp += effect.lift_bp
    at.gauge(C.GAUGE_DEMAND_LIFT, effect.lift_bp)


def _land_overhead(effect: OverheadEffect, at: Landing) -> None:
    at.state.overhead_per_day += effect.per_day
    at.gauge(C.GAUGE_OVERHEAD, effect.per_day)


EFFECTS: dict[str, EffectKind[Any]] = {
    "hire": EffectKind(_land_hire, lambda e: C.headcount_gauge(e.role)),
    "capacity": EffectKind(_land_capacity, lambda e: C.GAUGE_CAPACITY),
    "price": EffectKind(_land_price, lambda e: C.GAUGE_PRICE, ("new_price",)),
    "marketing": EffectKind(_land_marketing, lambda e: C.GAUGE_REACH),
    "loan": EffectKind(_land_loan, lambda e: C.LOANS, ("principal",)),
    "supplier": EffectKind(_land_supplier, lambda e: C.GAUGE_SUPPLIER_COST),
    "demand": EffectKind(_land_demand, lambda e: C.GAUGE_DEMAND_LIFT),
    "overhead": EffectKind(_land_overhead, lambda e: C.GAUGE_OVERHEAD, ("per_day",)),
}
"""Every effect kind, keyed by its `kind` tag."""


def land(effect: Effect, at: Landing) -> None:
    """Land one effect: change the state and post to the book as its kind says."""
    EFFECTS[effect.kind].land(effect, at)


def gauge_of(effect: Effect) -> str:
    """The ledger account whose balance shows whether `effect` has landed."""
    return EFFECTS[effect.kind].gauge(effect)


def money_fields(effect: Effect) -> tuple[str, ...]:
    """The fields of `effect` held in cents."""
    return EFFECTS[effect.kind].money_fields
