"""The business's chart of accounts, including memo gauges that record each effect's state."""

from __future__ import annotations

from ledger.accounts import Chart
from sim.campaign_model import ActionCatalog, Campaign

CASH = "Assets:Cash"
RAW = "Assets:Inventory:Raw"
IN_TRANSIT = "Assets:Inventory:InTransit"
FINISHED = "Assets:Inventory:Finished"
EQUIPMENT = "Assets:Equipment"
LOANS = "Liabilities:Loans"
WAGES_PAYABLE = "Liabilities:WagesPayable"
INTEREST_PAYABLE = "Liabilities:InterestPayable"
ACCOUNTS_PAYABLE = "Liabilities:AccountsPayable"
OWNER = "Equity:Owner"
SALES = "Income:Sales"
COGS = "Expenses:COGS"
WAGES = "Expenses:Wages"
RENT = "Expenses:Rent"
OVERHEAD = "Expenses:Overhead"
INTEREST = "Expenses:Interest"
ACTION_COSTS = "Expenses:Actions"
FINANCING_FEES = "Expenses:Financing:Fees"

U_RAW = "Memo:Units:Raw"
U_IN_TRANSIT = "Memo:Units:InTransit"
U_FINISHED = "Memo:Units:Finished"
U_SOLD = "Memo:Units:Sold"
U_PURCHASED = "Memo:Units:Purchased"
U_OPENING = "Memo:Units:Opening"
MISSED_PAYROLL = "Memo:Events:MissedPayroll"
EVENTS_BASIS = "Memo:Events:Basis"

GAUGE_CAPACITY = "Memo:Gauge:Capacity"
GAUGE_PRICE = "Memo:Gauge:Price"
GAUGE_REACH = "Memo:Gauge:Reach"
GAUGE_SUPPLIER_COST = "Memo:Gauge:SupplierCost"
GAUGE_DEMAND_LIFT = "Memo:Gauge:DemandLift"
GAUGE_OVERHEAD = "Memo:Gauge:Overhead"

_GAUGES = {
    GAUGE_CAPACITY: "UNITS_PER_DAY",
    GAUGE_PRICE: "CENTS",
    GAUGE_REACH: "REACH_MILLI",
    GAUGE_SUPPLIER_COST: "CENTS",
    GAUGE_DEMAND_LIFT: "BP",
    GAUGE_OVERHEAD: "CENTS",
}


def pascal(identifier: str) -> str:
    """`head_roaster` → `HeadRoaster` (an account-name component)."""
    return "".join(part.capitalize() for part in identifier.split("_") if part)


def headcount_gauge(role: str) -> str:
    """The memo gauge holding a role's headcount."""
    return f"Memo:Gauge:Headcount:{pascal(role)}"


def basis_of(gauge: str) -> str:
    """The counter account a gauge posts against (same unit)."""
    return gauge.replace("Memo:Gauge:", "Memo:Basis:", 1)


def chart_for(campaign: Campaign, catalog: ActionCatalog | None = None) -> Chart:
    """Every account the simulator posts to for this campaign."""
    usd = [
        CASH,
        RAW,
        IN_TRANSIT,
        FINISHED,
        EQUIPMENT,
        LOANS,
        WAGES_PAYABLE,
        INTEREST_PAYABLE,
        ACCOUNTS_PAYABLE,
        OWNER,
        SALES,
        COGS,
        WAGES,
        RENT,
        OVERHEAD,
        INTEREST,
        ACTION_COSTS,
        FINANCING_FEES,
    ]
    pairs: dict[str, str] = dict.fromkeys(usd, "USD")
    for name in (U_RAW, U_IN_TRANSIT, U_FINISHED, U_SOLD, U_PURCHASED, U_OPENING):
        pairs[name] = "UNITS"
    pairs[MISSED_PAYROLL] = "EVENTS"
    pairs[EVENTS_BASIS] = "EVENTS"
    gauges = dict(_GAUGES)
    for role in campaign.company.roles:
        gauges[headcount_gauge(role.id)] = "STAFF"
    for gauge, unit in gauges.items():
        pairs[gauge] = unit
        pairs[basis_of(gauge)] = unit
    return Chart.of(pairs)
