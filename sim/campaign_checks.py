"""Cross-file checks of a campaign: ids are unique, references resolve, timings fit, and
every quantity the engine forms over the horizon stays inside exact 64-bit arithmetic.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter

from ledger.accounts import ChartError
from sim.campaign_errors import Problem
from sim.campaign_model import (
    Action,
    ActionCatalog,
    Campaign,
    DemandEffect,
    HireEffect,
    LoanEffect,
    MarketingEffect,
    MetricsFile,
    OverheadEffect,
    PriceEffect,
    QuestionsFile,
)
from sim.chart import chart_for, headcount_gauge
from sim.metrics import LEDGER_UNIT

_CAMPAIGN = "campaign.toml"
_ACTIONS = "actions.toml"
_METRICS = "metrics.toml"
_QUESTIONS = "questions.toml"

LEDGER_LIMIT = 2**58
"""Bound on money that can move over a horizon (cents) and on any gauge: a metric sums at
most 16 ledger subtrees, so every balance, metric and posting stays below 2^62, inside
SQLite's and orjson's 64-bit integers and Decimal's 28 digits."""
DEMAND_LIMIT = 2**53
"""Bound on one day's demand (units): demand is computed in floating point, which counts
whole units exactly only up to 2^53."""
WORST_NOISE_Z = math.sqrt(-2.0 * math.log(1e-300))
"""The largest normal deviate the demand draws can produce (sim.draws clamps u at 1e-300)."""
DAYS_PER_YEAR = 365


def cross_check(
    campaign: Campaign, catalog: ActionCatalog, metrics: MetricsFile, questions: QuestionsFile
) -> list[Problem]:
    """Every problem that spans fields or files."""
    problems: list[Problem] = []
    problems += _unique(_CAMPAIGN, "company.roles", "role", [r.id for r in campaign.company.roles])
    problems += _unique(_CAMPAIGN, "suppliers", "supplier", [s.id for s in campaign.suppliers])
    problems += _unique(_CAMPAIGN, "shocks", "shock", [s.id for s in campaign.shocks])
    problems += _unique(_METRICS, "metrics", "metric", [m.id for m in metrics.metrics])
    problems += _unique(_METRICS, "tasks", "task", [t.id for t in metrics.tasks])
    problems += _role_accounts(campaign)
    problems += _calendar(campaign)
    roles = {r.id for r in campaign.company.roles}
    suppliers = {s.id for s in campaign.suppliers}
    action_ids = [a.id for a in catalog.actions]
    known = set(action_ids)
    problems += _unique(_ACTIONS, "actions", "action", action_ids)
    for i, action in enumerate(catalog.actions):
        where = f"actions[{i}]"
        for j, need in enumerate(action.staffing):
            if need.role not in roles:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.staffing[{j}].role",
                        f"unknown role {need.role!r} (roles: {sorted(roles)})",
                    )
                )
        for field in ("completed", "not_scheduled"):
            for j, other in enumerate(getattr(action.prerequisites, field)):
                if other not in known:
                    problems.append(
                        Problem(
                            _ACTIONS,
                            f"{where}.prerequisites.{field}[{j}]",
                            f"unknown action {other!r}",
                        )
                    )
        for role in action.prerequisites.min_headcount:
            if role not in roles:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.prerequisites.min_headcount.{role}",
                        f"unknown role {role!r}",
                    )
                )
        for j, effect in enumerate(action.effects):
            if effect.kind == "hire" and effect.role not in roles:
                problems.append(
                    Problem(_ACTIONS, f"{where}.effects[{j}].role", f"unknown role {effect.role!r}")
                )
            if effect.kind == "supplier" and effect.supplier not in suppliers:
                problems.append(
                    Problem(
                        _ACTIONS,
                        f"{where}.effects[{j}].supplier",
                        f"unknown supplier {effect.supplier!r}",
                    )
                )
    cycle = prerequisite_cycle(list(catalog.actions))
    if cycle:
        problems.append(
            Problem(
                _ACTIONS,
                "prerequisites.completed",
                "prerequisite cycle: " + " -> ".join([*cycle, cycle[0]]),
            )
        )
    try:
        accounts = chart_for(campaign, catalog).units()
    except ChartError as exc:
        problems.append(Problem(_CAMPAIGN, "company.roles", str(exc)))
        accounts = {}
    metric_ids = {m.id for m in metrics.metrics}
    problems += _metric_terms(metrics, accounts)
    for i, task in enumerate(metrics.tasks):
        for j, req in enumerate(task.requirements):
            if req.metric not in metric_ids:
                problems.append(
                    Problem(
                        _METRICS,
                        f"tasks[{i}].requirements[{j}].metric",
                        f"unknown metric {req.metric!r}",
                    )
                )
            if req.on_day is not None and req.on_day > campaign.horizon_days:
                problems.append(
                    Problem(
                        _METRICS,
                        f"tasks[{i}].requirements[{j}].on_day",
                        f"{req.on_day} is after the horizon: allowed 0 to "
                        f"{campaign.horizon_days} (horizon_days in campaign.toml)",
                    )
                )
    horizon = campaign.horizon_days
    for i, q in enumerate(questions.questions):
        where = f"questions[{i}]"
        if q.metric not in metric_ids:
            problems.append(Problem(_QUESTIONS, f"{where}.metric", f"unknown metric {q.metric!r}"))
        if q.outcome_day > horizon:
            problems.append(
                Problem(
                    _QUESTIONS,
                    f"{where}.outcome_day",
                    f"{q.outcome_day} is after the horizon: allowed {q.intervene_on_day + 1} to "
                    f"{horizon} (after intervene_on_day, up to horizon_days in campaign.toml)"
                    if q.intervene_on_day < horizon
                    else f"{q.outcome_day} is after the horizon {horizon} (horizon_days in "
                    f"campaign.toml), and intervene_on_day {q.intervene_on_day} leaves no day "
                    f"for it: allowed intervene_on_day up to {horizon - 1}",
                )
            )
        for side in ("baseline", "intervention"):
            choice = getattr(q, side)
            for field in ("actions", "select_from"):
                for j, action_id in enumerate(getattr(choice, field)):
                    if action_id not in known:
                        problems.append(
                            Problem(
                                _QUESTIONS,
                                f"{where}.{side}.{field}[{j}]",
                                f"unknown action {action_id!r}",
                            )
                        )
        if q.conclusion is not None:
            in_choice = set(q.intervention.actions) | set(q.intervention.select_from)
            if q.conclusion.action not in in_choice:
                problems.append(
                    Problem(
                        _QUESTIONS,
                        f"{where}.conclusion.action",
                        f"action {q.conclusion.action!r} is not in the intervention choice",
                    )
                )
    problems += _unique(_QUESTIONS, "questions", "question", [q.id for q in questions.questions])
    problems += _demand_lifts(catalog)
    problems += magnitude_problems(campaign, catalog)
    return problems


def _metric_terms(metrics: MetricsFile, accounts: dict[str, str]) -> list[Problem]:
    """Every metric term must name a subtree of the chart that holds the metric's unit.

    A metric sums each term's accounts in its own unit only (`sim.metrics.metric_value`), so
    a term whose accounts are all kept in other units reads 0 on every day of every run,
    and a task bound on it (`at_most = "0"`) is met whatever happens.
    """
    problems = []
    for i, metric in enumerate(metrics.metrics):
        unit = LEDGER_UNIT[metric.units]
        for j, term in enumerate(metric.terms):
            where = f"metrics[{i}].terms[{j}].account"
            held = sorted(
                {
                    u
                    for a, u in accounts.items()
                    if a == term.account or a.startswith(term.account + ":")
                }
            )
            if not held:
                if accounts:
                    problems.append(
                        Problem(_METRICS, where, f"no ledger account at or under {term.account!r}")
                    )
                continue
            if unit not in held:
                metric_units = [u for u in held if u in LEDGER_UNIT]
                fix = (
                    f'set units = "{metric_units[0]}" or name an account kept in {unit}'
                    if len(metric_units) == 1
                    else f"name an account kept in {unit}"
                    + ("" if metric_units else " (a metric's units are USD, UNITS or EVENTS)")
                )
                problems.append(
                    Problem(
                        _METRICS,
                        where,
                        f"{term.account!r} holds {' and '.join(held)}, not {unit} (the units of "
                        f"metric {metric.id!r}), so this term would always read 0: {fix}",
                    )
                )
    return problems


def _unique(file: str, where: str, what: str, ids: list[str]) -> list[Problem]:
    """One problem per repeated id, naming where it was first declared."""
    first: dict[str, int] = {}
    problems = []
    for i, item in enumerate(ids):
        if item in first:
            problems.append(
                Problem(
                    file,
                    f"{where}[{i}].id",
                    f"duplicate {what} id {item!r} (first declared at {where}[{first[item]}]);"
                    " ids must be unique",
                )
            )
        else:
            first[item] = i
    return problems


def _role_accounts(campaign: Campaign) -> list[Problem]:
    """Two role ids must not name the same headcount account (e.g. `a_1` and `a1`)."""
    seen: dict[str, str] = {}
    problems = []
    for i, role in enumerate(campaign.company.roles):
        account = headcount_gauge(role.id)
        other = seen.setdefault(account, role.id)
        if other != role.id:
            problems.append(
                Problem(
                    _CAMPAIGN,
                    f"company.roles[{i}].id",
                    f"role ids {other!r} and {role.id!r} both name the ledger account {account}",
                )
            )
    return problems


def _calendar(campaign: Campaign) -> list[Problem]:
    """Every day of the campaign must be a calendar date."""
    latest = dt.date.max - dt.timedelta(days=campaign.horizon_days)
    if campaign.start_date <= latest:
        return []
    return [
        Problem(
            _CAMPAIGN,
            "start_date",
            f"{campaign.start_date.isoformat()} puts day {campaign.horizon_days} (the horizon) "
            f"past the calendar's last day {dt.date.max.isoformat()}: allowed up to "
            f"{latest.isoformat()} for this horizon",
        )
    ]


def _effects(catalog: ActionCatalog, kind: type) -> Iterable:
    return (e for a in catalog.actions for e in a.effects if isinstance(e, kind))


def _demand_lifts(catalog: ActionCatalog) -> list[Problem]:
    """Every demand cut together must leave demand at or above zero."""
    cuts = sum(min(e.lift_bp, 0) for e in _effects(catalog, DemandEffect))
    if cuts >= -10_000:
        return []
    return [
        Problem(
            _ACTIONS,
            "effects.lift_bp",
            f"the negative demand lifts add up to {cuts:,} basis points; together they must "
            "stay at or above -10,000 (demand can fall to zero, not below)",
        )
    ]


@dataclass(frozen=True)
class Magnitude:
    """One worst-case quantity of a campaign over its horizon, and the fields behind it."""

    name: str
    file: str
    fields: str
    value: int


def money_magnitudes(campaign: Campaign, catalog: ActionCatalog) -> list[Magnitude]:
    """Upper bounds (cents) of the money each process can move over the whole horizon.

    Every ledger balance, metric term and posting is bounded by their sum: a transaction
    moves any subtree by at most its positive legs, and each part below counts those.
    """
    company = campaign.company
    horizon = campaign.horizon_days
    prices = [company.price] + [e.new_price for e in _effects(catalog, PriceEffect)]
    dearest = max(s.unit_cost for s in campaign.suppliers)
    units_ever = (
        company.opening_raw_units
        + company.opening_finished_units
        + horizon * company.reorder_quantity
    )
    opening_stock = (
        company.opening_raw_units * company.opening_raw_unit_cost
        + company.opening_finished_units * company.opening_finished_unit_cost
    )
    hires: dict[str, int] = {}
    for effect in _effects(catalog, HireEffect):
        hires[effect.role] = hires.get(effect.role, 0) + effect.count
    daily_wages = sum((r.headcount + hires.get(r.id, 0)) * r.wage_per_day for r in company.roles)
    daily_overhead = company.rent_per_day + sum(
        e.per_day for e in _effects(catalog, OverheadEffect)
    )
    loans = list(_effects(catalog, LoanEffect))
    interest = sum(
        -(-e.principal * e.annual_rate_bp * horizon // (10_000 * DAYS_PER_YEAR)) for e in loans
    )
    return [
        Magnitude(
            "the opening position",
            _CAMPAIGN,
            "company.opening_cash and opening units x their unit costs",
            company.opening_cash + opening_stock,
        ),
        Magnitude(
            "stock bought, produced and sold at cost",
            _CAMPAIGN,
            "horizon_days x company.reorder_quantity x the dearest supplier's unit_cost",
            3 * (opening_stock + horizon * company.reorder_quantity * dearest),
        ),
        Magnitude(
            "sales",
            _CAMPAIGN,
            "(opening units + horizon_days x company.reorder_quantity) x the highest price",
            units_ever * max(prices),
        ),
        Magnitude(
            "wages",
            _CAMPAIGN,
            "horizon_days x (headcount + hires) x wage_per_day",
            2 * horizon * daily_wages,
        ),
        Magnitude(
            "rent and overheads",
            _CAMPAIGN,
            "horizon_days x (company.rent_per_day + overhead effects)",
            2 * horizon * daily_overhead,
        ),
        Magnitude(
            "action costs",
            _ACTIONS,
            "upfront_cost + running_cost_per_day x running_days",
            sum(a.reserved_cash for a in catalog.actions),
        ),
        Magnitude(
            "loans",
            _ACTIONS,
            "principal and annual_rate_bp over horizon_days",
            2 * sum(e.principal for e in loans) + 2 * interest,
        ),
    ]


def worst_demand(campaign: Campaign, catalog: ActionCatalog) -> float:
    """Upper bound of one day's demand (units), as the engine computes it, possibly inf."""
    demand = campaign.demand
    cheapest = min([campaign.company.price] + [e.new_price for e in _effects(catalog, PriceEffect)])
    shocks = sum(
        math.log(max(s.demand_multiplier, 1.0)) for s in campaign.shocks if s.target == "demand"
    )
    lift = sum(max(e.lift_bp, 0) for e in _effects(catalog, DemandEffect)) / 10_000
    reach = sum(e.reach_per_day * e.days for e in _effects(catalog, MarketingEffect))
    sigma = demand.noise_sigma
    peak = max(demand.weekly)
    if peak == 0:
        return 1.0
    log_mean = (
        math.log(demand.base_per_day)
        + math.log(peak)
        + math.log1p(demand.annual_amplitude)
        + shocks
        - demand.elasticity * math.log(cheapest / demand.reference_price)
        + math.log1p(lift)
        + math.log1p(reach * demand.reach_lift_per_point)
        + sigma * WORST_NOISE_Z
        - sigma * sigma / 2
    )
    return math.exp(log_mean) + 1 if log_mean < 700 else math.inf


def _dollars(cents: int) -> str:
    if cents < 10**20:
        return f"${cents // 100:,}"
    return f"${cents / 100:.3g}"


def magnitude_problems(campaign: Campaign, catalog: ActionCatalog) -> list[Problem]:
    """Refuse a campaign whose worst case would leave exact 64-bit arithmetic."""
    problems = []
    horizon = f"{campaign.horizon_days:,}-day horizon"
    parts = money_magnitudes(campaign, catalog)
    total = sum(p.value for p in parts)
    if total > LEDGER_LIMIT:
        largest = max(parts, key=lambda p: p.value)
        problems.append(
            Problem(
                largest.file,
                "",
                f"money over the {horizon} could reach {_dollars(total)}, above the limit of "
                f"{_dollars(LEDGER_LIMIT)}; the largest part is {largest.name} "
                f"({largest.fields} = {_dollars(largest.value)}): lower those values",
            )
        )
    reach_milli = sum(
        round(e.reach_per_day * 1000) * e.days for e in _effects(catalog, MarketingEffect)
    )
    if reach_milli > LEDGER_LIMIT:
        problems.append(
            Problem(
                _ACTIONS,
                "effects.reach_per_day",
                f"marketing reach could reach {reach_milli / 1000:.3g} points (reach_per_day x "
                f"days over every action), above the limit of {LEDGER_LIMIT / 1000:.3g}",
            )
        )
    demand = worst_demand(campaign, catalog)
    if demand > DEMAND_LIMIT:
        problems.append(
            Problem(
                _CAMPAIGN,
                "demand",
                f"one day's demand could reach {demand:.3g} units, above the limit of "
                f"{DEMAND_LIMIT:.3g} (2^53): base_per_day x weekly x season x "
                "(lowest price / reference_price)^-elasticity x lifts x reach x noise; "
                "lower base_per_day, elasticity or noise_sigma, or raise the lowest price",
            )
        )
    return problems


def prerequisite_cycle(actions: list[Action]) -> list[str] | None:
    """A cycle in the 'completed' prerequisite graph, if any (each action needs the next).

    The standard library's graphlib finds it (networkx costs 0.15 s to import on every
    campaign load).
    """
    sorter = TopologicalSorter({a.id: a.prerequisites.completed for a in actions})
    try:
        sorter.prepare()
    except CycleError as exc:
        nodes = exc.args[1]
        return list(reversed(nodes[1:]))
    return None
