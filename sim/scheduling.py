"""Scheduling an action: check every term, then reserve cash and staff (DESIGN §5).

A rejection is an ordinary outcome, not an error: it carries the precise reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from ledger.money import format_money
from sim.campaign_model import Action
from sim.state import Commitment, StaffHold, State

MAX_WAIT_DAYS = 366
"""How far ahead an action may wait for busy staff before it is rejected."""


@dataclass(frozen=True, slots=True)
class ScheduleOutcome:
    """Whether an action was accepted; when not, which term failed and why."""

    action_id: str
    day: int
    accepted: bool
    reason: str | None = None
    term: str | None = None
    start_day: int | None = None

    @property
    def waits(self) -> int:
        """Days the action waits for busy staff before it starts (0 when it starts tomorrow)."""
        return 0 if self.start_day is None else self.start_day - self.day - 1


def _reject(action: Action, day: int, term: str, reason: str) -> ScheduleOutcome:
    return ScheduleOutcome(action.id, day, False, f"{action.id}: {reason}", term)


def check_terms(state: State, action: Action, cash: int) -> ScheduleOutcome:
    """Check every term of `action` against the state at the decisions of `state.day`."""
    day = state.day
    if action.id in state.scheduled:
        return _reject(
            action, day, "not_repeatable", f"already scheduled on day {state.scheduled[action.id]}"
        )
    for other in action.prerequisites.not_scheduled:
        if other in state.scheduled:
            return _reject(
                action,
                day,
                "prerequisites.not_scheduled",
                f"conflicts with {other}, scheduled on day {state.scheduled[other]}",
            )
    for needed in action.prerequisites.completed:
        if needed not in state.completed:
            if needed in state.scheduled:
                landing = state.commitments[needed].landing_day
                detail = f"it lands on day {landing}"
            else:
                detail = "it has not been scheduled"
            return _reject(
                action,
                day,
                "prerequisites.completed",
                f"prerequisite {needed} is not completed ({detail})",
            )
    for role, minimum in sorted(action.prerequisites.min_headcount.items()):
        have = state.headcount.get(role, 0)
        if have < minimum:
            return _reject(
                action,
                day,
                "prerequisites.min_headcount",
                f"needs at least {minimum} {role} staff, has {have}",
            )
    for need in action.staffing:
        headcount = state.headcount.get(need.role, 0)
        if headcount < need.count:
            return _reject(
                action,
                day,
                "staffing",
                f"role {need.role} lacks staff: needs {need.count}, headcount {headcount}",
            )
    start = first_free_start(state, action)
    if start is None:
        return _reject(
            action,
            day,
            "staffing",
            f"staff for {action.id} is booked beyond the horizon "
            f"({', '.join(n.role for n in action.staffing)})",
        )
    free_cash = cash - state.reserved_cash
    needed_cash = action.reserved_cash + action.prerequisites.min_cash_after
    if free_cash < needed_cash:
        parts = [f"upfront {format_money(action.upfront_cost)}"]
        if action.running_days:
            parts.append(
                f"running {format_money(action.running_cost_per_day)} x {action.running_days} days"
            )
        if action.prerequisites.min_cash_after:
            parts.append(f"keeping {format_money(action.prerequisites.min_cash_after)}")
        return _reject(
            action,
            day,
            "cash",
            f"insufficient cash: needs {format_money(needed_cash)} "
            f"({' + '.join(parts)}), has {format_money(max(free_cash, 0))} free "
            f"({format_money(state.reserved_cash)} reserved): "
            f"{format_money(needed_cash - free_cash)} short",
        )
    return ScheduleOutcome(action.id, day, True, start_day=start)


def first_free_start(state: State, action: Action, horizon: int | None = None) -> int | None:
    """The first day from tomorrow on when every staffing need is free for its whole span.

    Staff are held in the order actions are scheduled, so an action competing for
    busy staff waits for them: the fixed priority decides who goes first.
    """
    first = state.day + 1
    if not action.staffing:
        return first
    last = first + MAX_WAIT_DAYS if horizon is None else horizon
    for start in range(first, last + 1):
        if all(
            state.headcount.get(n.role, 0) - state.busy(n.role, d) >= n.count
            for n in action.staffing
            for d in range(start, start + n.days)
        ):
            return start
    return None


def reserve(state: State, action: Action, start: int) -> Commitment:
    """Record an accepted action: reserve its cash and staff, queue its effects."""
    day = state.day
    commitment = Commitment(
        action_id=action.id,
        scheduled_day=day,
        start_day=start,
        landing_day=start - 1 + action.delay_days,
        reserve_left=action.reserved_cash,
        pending_effects=tuple(range(len(action.effects))),
    )
    state.commitments[action.id] = commitment
    state.scheduled[action.id] = day
    state.reserved_cash += action.reserved_cash
    for need in action.staffing:
        state.holds.append(StaffHold(need.role, need.count, start, start + need.days, action.id))
    return commitment
