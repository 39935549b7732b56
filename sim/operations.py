"""One day's ordinary operations, in the fixed order of DESIGN §4 step 1.

Commitments (lexicographic by action id), deliveries, loans, production, demand and
sales, marketing reach, reordering, wages and payroll, rent and overheads. Every money
movement posts to the ledger; physical flows post to memo accounts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ledger.money import format_money
from sim import chart as C
from sim.campaign_model import Action
from sim.state import Alert, DayStats, Loan, Order

if TYPE_CHECKING:
    from sim.engine import Engine

_DAYS_PER_YEAR = 365
_ORDER_LOT = 50


def free_cash(engine: Engine) -> int:
    """Cash not reserved for accepted commitments."""
    return engine.book.balance(C.CASH) - engine.state.reserved_cash


def _alert(engine: Engine, day: int, kind: str, message: str) -> None:
    engine.state.alerts.append(Alert(day, kind, message))


def _pay_from_reserve(
    engine: Engine, day: int, action: Action, amount: int, account: str, flow: str, narration: str
) -> None:
    state = engine.state
    commitment = state.commitments[action.id]
    commitment.reserve_left -= amount
    state.reserved_cash -= amount
    engine.book.post(
        day, narration, ((C.CASH, -amount), (account, amount)), {"action": action.id, "flow": flow}
    )


def _start_and_run(engine: Engine, day: int, action: Action) -> None:
    commitment = engine.state.commitments[action.id]
    if commitment.start_day == day and action.upfront_cost:
        expensed = action.upfront_cost - action.capitalized
        if action.capitalized:
            _pay_from_reserve(
                engine,
                day,
                action,
                action.capitalized,
                C.EQUIPMENT,
                "capital",
                f"{action.id}: capitalised equipment",
            )
        if expensed:
            account = C.FINANCING_FEES if action.upfront_flow == "financing" else C.ACTION_COSTS
            _pay_from_reserve(
                engine,
                day,
                action,
                expensed,
                account,
                action.upfront_flow,
                f"{action.id}: upfront cost",
            )
    offset = day - commitment.start_day
    if action.running_cost_per_day and 0 <= offset < action.running_days:
        _pay_from_reserve(
            engine,
            day,
            action,
            action.running_cost_per_day,
            C.ACTION_COSTS,
            "irreversible",
            f"{action.id}: running cost",
        )


def _gauge(engine: Engine, day: int, gauge: str, delta: int, action_id: str) -> None:
    if delta:
        engine.book.post(
            day,
            f"{action_id}: gauge {gauge.rsplit(':', 1)[-1]}",
            ((gauge, delta), (C.basis_of(gauge), -delta)),
            {"action": action_id},
        )


def _land_effect(engine: Engine, day: int, action: Action, index: int) -> None:
    state = engine.state
    effect = action.effects[index]
    aid = action.id
    if effect.kind == "hire":
        state.headcount[effect.role] = state.headcount.get(effect.role, 0) + effect.count
        _gauge(engine, day, C.headcount_gauge(effect.role), effect.count, aid)
    elif effect.kind == "capacity":
        state.equipment_capacity += effect.units_per_day
        _gauge(engine, day, C.GAUGE_CAPACITY, effect.units_per_day, aid)
    elif effect.kind == "price":
        _gauge(engine, day, C.GAUGE_PRICE, effect.new_price - state.price, aid)
        state.price = effect.new_price
    elif effect.kind == "marketing":
        state.marketing.append((day + effect.days, round(effect.reach_per_day * 1000)))
    elif effect.kind == "loan":
        state.loans.append(
            Loan(aid, effect.principal, effect.annual_rate_bp, day + effect.term_days)
        )
        engine.book.post(
            day,
            f"{aid}: loan proceeds",
            ((C.CASH, effect.principal), (C.LOANS, -effect.principal)),
            {"action": aid, "flow": "financing"},
        )
    elif effect.kind == "supplier":
        costs = engine.supplier_costs
        _gauge(
            engine, day, C.GAUGE_SUPPLIER_COST, costs[effect.supplier] - costs[state.supplier], aid
        )
        state.supplier = effect.supplier
    elif effect.kind == "demand":
        state.demand_lift_bp += effect.lift_bp
        _gauge(engine, day, C.GAUGE_DEMAND_LIFT, effect.lift_bp, aid)
    elif effect.kind == "overhead":
        state.overhead_per_day += effect.per_day
        _gauge(engine, day, C.GAUGE_OVERHEAD, effect.per_day, aid)


def _commitments(engine: Engine, day: int) -> None:
    state = engine.state
    actions = engine.bundle.actions
    for action_id in sorted(state.commitments):
        action = actions[action_id]
        commitment = state.commitments[action_id]
        _start_and_run(engine, day, action)
        still: list[int] = []
        for index in commitment.pending_effects:
            if commitment.landing_day + action.effects[index].extra_delay_days == day:
                _land_effect(engine, day, action, index)
            else:
                still.append(index)
        commitment.pending_effects = tuple(still)
        if commitment.landing_day == day:
            state.completed[action_id] = day
        running_done = day >= commitment.start_day + action.running_days - 1
        if not still and running_done and commitment.landing_day <= day:
            if commitment.reserve_left:
                state.reserved_cash -= commitment.reserve_left
            del state.commitments[action_id]
    state.holds = [h for h in state.holds if h.until_day > day]


def _deliveries(engine: Engine, day: int) -> None:
    state = engine.state
    arriving = [o for o in state.orders if o.arrival_day == day]
    if not arriving:
        return
    state.orders = [o for o in state.orders if o.arrival_day != day]
    for order in arriving:
        engine.book.post(
            day,
            f"delivery from {order.supplier} (ordered day {order.placed_day})",
            (
                (C.IN_TRANSIT, -order.value),
                (C.RAW, order.value),
                (C.U_IN_TRANSIT, -order.units),
                (C.U_RAW, order.units),
            ),
        )
        state.in_transit_units -= order.units
        state.raw_units += order.units


def _loans(engine: Engine, day: int) -> None:
    state = engine.state
    book = engine.book
    for loan in state.loans:
        numerator = loan.principal * loan.annual_rate_bp + loan.carry
        interest, loan.carry = divmod(numerator, 10_000 * _DAYS_PER_YEAR)
        if interest:
            tags = {"action": loan.action_id, "flow": "interest"}
            if free_cash(engine) >= interest:
                book.post(
                    day,
                    f"{loan.action_id}: interest",
                    ((C.INTEREST, interest), (C.CASH, -interest)),
                    tags,
                )
            else:
                book.post(
                    day,
                    f"{loan.action_id}: interest accrued unpaid",
                    ((C.INTEREST, interest), (C.INTEREST_PAYABLE, -interest)),
                    tags,
                )
    owed_interest = -book.balance(C.INTEREST_PAYABLE)
    if owed_interest and free_cash(engine) >= owed_interest:
        book.post(
            day,
            "interest arrears paid",
            ((C.INTEREST_PAYABLE, owed_interest), (C.CASH, -owed_interest)),
        )
    for loan in list(state.loans):
        if day < loan.maturity_day:
            continue
        if free_cash(engine) >= loan.principal:
            book.post(
                day,
                f"{loan.action_id}: principal repaid",
                ((C.LOANS, loan.principal), (C.CASH, -loan.principal)),
                {"action": loan.action_id, "flow": "financing"},
            )
            state.loans.remove(loan)
        elif day == loan.maturity_day:
            _alert(
                engine,
                day,
                "loan_overdue",
                f"{loan.action_id}: principal {format_money(loan.principal)} due, "
                f"only {format_money(max(free_cash(engine), 0))} free",
            )


def _production(engine: Engine, day: int) -> tuple[int, int, int]:
    state = engine.state
    staff_capacity = 0
    for role in engine.productive_roles:
        available = state.headcount.get(role.id, 0) - state.busy(role.id, day)
        staff_capacity += max(available, 0) * role.units_per_day
    capacity = min(staff_capacity, state.equipment_capacity)
    produced = min(capacity, state.raw_units)
    if produced:
        value = engine.book.balance(C.RAW) * produced // state.raw_units
        engine.book.post(
            day,
            "production",
            (
                (C.RAW, -value),
                (C.FINISHED, value),
                (C.U_RAW, -produced),
                (C.U_FINISHED, produced),
            ),
        )
        state.raw_units -= produced
        state.finished_units += produced
    return produced, capacity, staff_capacity


def _demand_and_sales(engine: Engine, day: int) -> tuple[int, int]:
    state = engine.state
    draws = engine.draws
    reach_points = state.reach_milli / 1000.0
    mean = (
        draws.demand_base[day]
        * engine.price_factor(state.price)
        * (1.0 + state.demand_lift_bp / 10_000.0)
        * (1.0 + reach_points * engine.reach_lift)
    )
    demand = int(mean + draws.demand_round[day])
    sold = min(demand, state.finished_units)
    if sold:
        revenue = sold * state.price
        cost = engine.book.balance(C.FINISHED) * sold // state.finished_units
        engine.book.post(
            day,
            "sales",
            (
                (C.CASH, revenue),
                (C.SALES, -revenue),
                (C.COGS, cost),
                (C.FINISHED, -cost),
                (C.U_FINISHED, -sold),
                (C.U_SOLD, sold),
            ),
        )
        state.finished_units -= sold
    return demand, sold


def _marketing(engine: Engine, day: int) -> None:
    state = engine.state
    inflow = sum(milli for until, milli in state.marketing if day < until)
    state.marketing = [(until, milli) for until, milli in state.marketing if day + 1 < until]
    new = state.reach_milli - state.reach_milli * engine.reach_decay_ppm // 1_000_000 + inflow
    if new != state.reach_milli:
        engine.book.post(
            day,
            "marketing reach",
            (
                (C.GAUGE_REACH, new - state.reach_milli),
                (C.basis_of(C.GAUGE_REACH), state.reach_milli - new),
            ),
        )
        state.reach_milli = new


def _reorder(engine: Engine, day: int) -> None:
    state = engine.state
    company = engine.bundle.campaign.company
    if state.raw_units + state.in_transit_units >= company.reorder_point:
        return
    unit_cost = engine.supplier_costs[state.supplier]
    units = company.reorder_quantity
    available = free_cash(engine)
    if units * unit_cost > available:
        units = (available // unit_cost) // _ORDER_LOT * _ORDER_LOT
        if units <= 0:
            _alert(
                engine,
                day,
                "order_skipped",
                f"supplier order skipped: {format_money(company.reorder_quantity * unit_cost)}"
                f" needed, {format_money(max(available, 0))} free",
            )
            return
        _alert(
            engine, day, "order_reduced", f"supplier order cut to {units} units for lack of cash"
        )
    supplier = engine.suppliers[state.supplier]
    u = engine.draws.lead_uniform[state.supplier][day]
    lead = supplier.lead_time_min + int(u * (supplier.lead_time_max - supplier.lead_time_min + 1))
    lead += engine.draws.extra_lead_days[day]
    value = units * unit_cost
    engine.book.post(
        day,
        f"order {units} units from {state.supplier}",
        (
            (C.CASH, -value),
            (C.IN_TRANSIT, value),
            (C.U_PURCHASED, -units),
            (C.U_IN_TRANSIT, units),
        ),
    )
    state.orders.append(Order(day, day + lead, state.supplier, units, value))
    state.in_transit_units += units


def _payroll(engine: Engine, day: int) -> None:
    state = engine.state
    book = engine.book
    wages = sum(state.headcount.get(r.id, 0) * r.wage_per_day for r in engine.roles)
    if wages:
        book.post(day, "wages accrued", ((C.WAGES, wages), (C.WAGES_PAYABLE, -wages)))
    if day % engine.bundle.campaign.company.payroll_every_days:
        return
    owed = -book.balance(C.WAGES_PAYABLE)
    if not owed:
        return
    if free_cash(engine) >= owed:
        book.post(day, "payroll", ((C.WAGES_PAYABLE, owed), (C.CASH, -owed)))
    else:
        book.post(day, "missed payroll", ((C.MISSED_PAYROLL, 1), (C.EVENTS_BASIS, -1)))
        state.missed_payrolls += 1
        _alert(
            engine,
            day,
            "missed_payroll",
            f"payroll of {format_money(owed)} missed: "
            f"{format_money(max(free_cash(engine), 0))} free",
        )


def _overheads(engine: Engine, day: int) -> None:
    book = engine.book
    rent = engine.bundle.campaign.company.rent_per_day
    overhead = engine.state.overhead_per_day
    owed = -book.balance(C.ACCOUNTS_PAYABLE)
    due = rent + overhead + owed
    if free_cash(engine) >= due:
        legs = [(C.CASH, -due), (C.RENT, rent)]
        if overhead:
            legs.append((C.OVERHEAD, overhead))
        if owed:
            legs.append((C.ACCOUNTS_PAYABLE, owed))
        book.post(day, "rent and overheads", legs)
    else:
        legs = [(C.ACCOUNTS_PAYABLE, -(rent + overhead)), (C.RENT, rent)]
        if overhead:
            legs.append((C.OVERHEAD, overhead))
        book.post(day, "rent and overheads unpaid", legs)
        if not owed:
            _alert(engine, day, "bills_unpaid", "rent and overheads could not be paid")


def run_operations(engine: Engine, day: int) -> DayStats:
    """Run every ordinary operation of `day` and return its observations."""
    _commitments(engine, day)
    _deliveries(engine, day)
    _loans(engine, day)
    produced, capacity, staff_capacity = _production(engine, day)
    demand, sold = _demand_and_sales(engine, day)
    _marketing(engine, day)
    _reorder(engine, day)
    _payroll(engine, day)
    _overheads(engine, day)
    cash_free = free_cash(engine)
    if 0 <= cash_free < engine.bundle.campaign.company.low_cash_alert:
        previous = engine.state.history[-1].free_cash if engine.state.history else cash_free + 1
        if previous >= engine.bundle.campaign.company.low_cash_alert:
            _alert(engine, day, "low_cash", f"free cash down to {format_money(cash_free)}")
    return DayStats(
        day,
        demand,
        sold,
        demand - sold,
        produced,
        capacity,
        staff_capacity,
        cash_free,
        engine.draws.active_shocks[day],
    )
