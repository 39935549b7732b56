"""One day's ordinary operations, in the fixed order of DESIGN §4 step 1.

Commitments (lexicographic by action id), deliveries, loans, production, demand and
sales, marketing reach, reordering, wages and payroll, rent and overheads. Every money
movement posts to the ledger; physical flows post to memo accounts. Each operation takes
only what it reads or changes: the run's fixed `World`, its `State` and its `Book`.
"""

from __future__ import annotations

from ledger.book import Book
from ledger.money import format_money
from sim import chart as C
from sim.campaign_model import Action
from sim.effects import Landing, land
from sim.state import Alert, DayStats, Order, State
from sim.world import World

_DAYS_PER_YEAR = 365
_ORDER_LOT = 50


def free_cash(state: State, book: Book) -> int:
    """Cash not reserved for accepted commitments."""
    return book.balance(C.CASH) - state.reserved_cash


def _alert(state: State, day: int, kind: str, message: str) -> None:
    state.alerts.append(Alert(day, kind, message))


def _pay_from_reserve(
    state: State,
    book: Book,
    day: int,
    action: Action,
    amount: int,
    account: str,
    flow: str,
    narration: str,
) -> None:
    commitment = state.commitments[action.id]
    commitment.reserve_left -= amount
    state.reserved_cash -= amount
    book.post(
        day, narration, ((C.CASH, -amount), (account, amount)), {"action": action.id, "flow": flow}
    )


def _start_and_run(state: State, book: Book, day: int, action: Action) -> None:
    commitment = state.commitments[action.id]
    if commitment.start_day == day and action.upfront_cost:
        expensed = action.upfront_cost - action.capitalized
        if action.capitalized:
            _pay_from_reserve(
                state,
                book,
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
                state,
                book,
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
            state,
            book,
            day,
            action,
            action.running_cost_per_day,
            C.ACTION_COSTS,
            "irreversible",
            f"{action.id}: running cost",
        )


def _commitments(world: World, state: State, book: Book, day: int) -> None:
    for action_id in sorted(state.commitments):
        action = world.actions[action_id]
        commitment = state.commitments[action_id]
        _start_and_run(state, book, day, action)
        still: list[int] = []
        for index in commitment.pending_effects:
            effect = action.effects[index]
            if commitment.landing_day + effect.extra_delay_days == day:
                land(effect, Landing(world, state, book, day, action_id))
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


def _deliveries(state: State, book: Book, day: int) -> None:
    arriving = [o for o in state.orders if o.arrival_day == day]
    if not arriving:
        return
    state.orders = [o for o in state.orders if o.arrival_day != day]
    for order in arriving:
        book.post(
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


def _loans(state: State, book: Book, day: int) -> None:
    for loan in state.loans:
        numerator = loan.principal * loan.annual_rate_bp + loan.carry
        interest, loan.carry = divmod(numerator, 10_000 * _DAYS_PER_YEAR)
        if interest:
            tags = {"action": loan.action_id, "flow": "interest"}
            if free_cash(state, book) >= interest:
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
    if owed_interest and free_cash(state, book) >= owed_interest:
        book.post(
            day,
            "interest arrears paid",
            ((C.INTEREST_PAYABLE, owed_interest), (C.CASH, -owed_interest)),
        )
    for loan in list(state.loans):
        if day < loan.maturity_day:
            continue
        if free_cash(state, book) >= loan.principal:
            book.post(
                day,
                f"{loan.action_id}: principal repaid",
                ((C.LOANS, loan.principal), (C.CASH, -loan.principal)),
                {"action": loan.action_id, "flow": "financing"},
            )
            state.loans.remove(loan)
        elif day == loan.maturity_day:
            _alert(
                state,
                day,
                "loan_overdue",
                f"{loan.action_id}: principal {format_money(loan.principal)} due, "
                f"only {format_money(max(free_cash(state, book), 0))} free",
            )


def _production(world: World, state: State, book: Book, day: int) -> tuple[int, int, int]:
    staff_capacity = 0
    for role in world.productive_roles:
        available = state.headcount.get(role.id, 0) - state.busy(role.id, day)
        staff_capacity += max(available, 0) * role.units_per_day
    capacity = min(staff_capacity, state.equipment_capacity)
    produced = min(capacity, state.raw_units)
    if produced:
        value = book.balance(C.RAW) * produced // state.raw_units
        book.post(
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


def _demand_and_sales(world: World, state: State, book: Book, day: int) -> tuple[int, int]:
    draws = world.draws
    reach_points = state.reach_milli / 1000.0
    mean = (
        draws.demand_base[day]
        * world.price_factor(state.price)
        * (1.0 + state.demand_lift_bp / 10_000.0)
        * (1.0 + reach_points * world.demand.reach_lift_per_point)
    )
    demand = int(mean + draws.demand_round[day])
    sold = min(demand, state.finished_units)
    if sold:
        revenue = sold * state.price
        cost = book.balance(C.FINISHED) * sold // state.finished_units
        book.post(
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


def _marketing(world: World, state: State, book: Book, day: int) -> None:
    inflow = sum(milli for until, milli in state.marketing if day < until)
    state.marketing = [(until, milli) for until, milli in state.marketing if day + 1 < until]
    new = state.reach_milli - state.reach_milli * world.reach_decay_ppm // 1_000_000 + inflow
    if new != state.reach_milli:
        book.post(
            day,
            "marketing reach",
            (
                (C.GAUGE_REACH, new - state.reach_milli),
                (C.basis_of(C.GAUGE_REACH), state.reach_milli - new),
            ),
        )
        state.reach_milli = new


def _reorder(world: World, state: State, book: Book, day: int) -> None:
    company = world.company
    if state.raw_units + state.in_transit_units >= company.reorder_point:
        return
    unit_cost = world.supplier_costs[state.supplier]
    units = company.reorder_quantity
    available = free_cash(state, book)
    if units * unit_cost > available:
        units = (available // unit_cost) // _ORDER_LOT * _ORDER_LOT
        if units <= 0:
            _alert(
                state,
                day,
                "order_skipped",
                f"supplier order skipped: {format_money(company.reorder_quantity * unit_cost)}"
                f" needed, {format_money(max(available, 0))} free",
            )
            return
        _alert(
            state, day, "order_reduced", f"supplier order cut to {units:,} units for lack of cash"
        )
    supplier = world.suppliers[state.supplier]
    u = world.draws.lead_uniform[state.supplier][day]
    lead = supplier.lead_time_min + int(u * (supplier.lead_time_max - supplier.lead_time_min + 1))
    lead += world.draws.extra_lead_days[day]
    value = units * unit_cost
    book.post(
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


def _payroll(world: World, state: State, book: Book, day: int) -> None:
    wages = sum(state.headcount.get(r.id, 0) * r.wage_per_day for r in world.roles)
    if wages:
        book.post(day, "wages accrued", ((C.WAGES, wages), (C.WAGES_PAYABLE, -wages)))
    if day % world.company.payroll_every_days:
        return
    owed = -book.balance(C.WAGES_PAYABLE)
    if not owed:
        return
    if free_cash(state, book) >= owed:
        book.post(day, "payroll", ((C.WAGES_PAYABLE, owed), (C.CASH, -owed)))
    else:
        book.post(day, "missed payroll", ((C.MISSED_PAYROLL, 1), (C.EVENTS_BASIS, -1)))
        state.missed_payrolls += 1
        _alert(
            state,
            day,
            "missed_payroll",
            f"payroll of {format_money(owed)} missed: "
            f"{format_money(max(free_cash(state, book), 0))} free",
        )


def _overheads(world: World, state: State, book: Book, day: int) -> None:
    rent = world.company.rent_per_day
    overhead = state.overhead_per_day
    owed = -book.balance(C.ACCOUNTS_PAYABLE)
    due = rent + overhead + owed
    if free_cash(state, book) >= due:
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
            _alert(state, day, "bills_unpaid", "rent and overheads could not be paid")


def run_operations(world: World, state: State, book: Book, day: int) -> DayStats:
    """Run every ordinary operation of `day` and return its observations."""
    _commitments(world, state, book, day)
    _deliveries(state, book, day)
    _loans(state, book, day)
    produced, capacity, staff_capacity = _production(world, state, book, day)
    demand, sold = _demand_and_sales(world, state, book, day)
    _marketing(world, state, book, day)
    _reorder(world, state, book, day)
    _payroll(world, state, book, day)
    _overheads(world, state, book, day)
    cash_free = free_cash(state, book)
    low_cash = world.company.low_cash_alert
    if 0 <= cash_free < low_cash:
        previous = state.history[-1].free_cash if state.history else cash_free + 1
        if previous >= low_cash:
            _alert(state, day, "low_cash", f"free cash down to {format_money(cash_free)}")
    return DayStats(
        day,
        demand,
        sold,
        demand - sold,
        produced,
        capacity,
        staff_capacity,
        cash_free,
        world.draws.active_shocks[day],
    )
