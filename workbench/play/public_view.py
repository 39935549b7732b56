"""The player's public view: what a player may see, built as typed models (play/models.py).

It holds the day, public state, action catalog, question contracts and the player's
own submissions. It never holds the seed, a simulated branch outcome or a branch control.
"""

from __future__ import annotations

import datetime as dt
import os
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ledger.book import Book
from ledger.money import dollars, format_money, scale_of
from sim import chart as C
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Action, Question
from sim.effects import money_fields
from sim.engine import Engine
from sim.metrics import metric_value, to_display
from workbench import display
from workbench.errors import UserError, reraised
from workbench.play.models import (
    ActionTerms,
    AlertRow,
    CampaignInfo,
    ChoiceTerms,
    CommitmentRow,
    DayOperations,
    InterventionTerms,
    InventoryUnits,
    LoanRow,
    MetricRow,
    OrderRow,
    PrerequisiteTerms,
    PublicState,
    PublicView,
    QuestionContract,
    QuestionView,
    StaffingTerms,
    SubmissionRow,
)
from workbench.play.objective import objective_terms
from workbench.runs.assessment import SubmissionRecord, eligible, latest_eligible

if TYPE_CHECKING:
    from workbench.play.protocol import LedgerReader


def date_of(bundle: CampaignBundle, day: int) -> str:
    """The calendar date of a campaign day."""
    return (bundle.campaign.start_date + dt.timedelta(days=day)).isoformat()


def action_terms(action: Action) -> ActionTerms:
    """Every term of an action (the catalog entry players see)."""
    effects = []
    for effect in action.effects:
        data = effect.model_dump(mode="json")
        for key in money_fields(effect):
            data[key] = dollars(getattr(effect, key))
        effects.append(data)
    pre = action.prerequisites
    return ActionTerms(
        id=action.id,
        title=action.title,
        description=action.description,
        upfront_cost=dollars(action.upfront_cost),
        capitalized=dollars(action.capitalized),
        running_cost_per_day=dollars(action.running_cost_per_day),
        running_days=action.running_days,
        reserved_cash=dollars(action.reserved_cash),
        staffing=tuple(
            StaffingTerms(role=n.role, count=n.count, days=n.days) for n in action.staffing
        ),
        prerequisites=PrerequisiteTerms(
            completed=pre.completed,
            not_scheduled=pre.not_scheduled,
            min_cash_after=dollars(pre.min_cash_after),
            min_headcount=dict(pre.min_headcount),
        ),
        delay_days=action.delay_days,
        effects=tuple(effects),
        effect_set=tuple(action.effect_names),
        financing_net_assets=dollars(action.financing_net_assets),
        irreversible_work=dollars(action.irreversible_work),
    )


def _contract_fields(bundle: CampaignBundle, question: Question) -> dict[str, Any]:
    metric = bundle.metrics[question.metric]
    return {
        "id": question.id,
        "title": question.title,
        "metric": metric.id,
        "metric_title": metric.title,
        "units": metric.units,
        "scale": question.scale,
        "intervene_on_day": question.intervene_on_day,
        "deadline_day": question.deadline_day,
        "outcome_day": question.outcome_day,
        "baseline": ChoiceTerms(name=question.baseline.name, actions=question.baseline.actions),
        "intervention": InterventionTerms(
            name=question.intervention.name,
            actions=question.intervention.actions,
            select_from=question.intervention.select_from,
        ),
        "conclusion": question.conclusion,
    }


def question_contract(bundle: CampaignBundle, question: Question) -> QuestionContract:
    """A question's public contract: choices, timing, metric, units, scale, conclusion."""
    return QuestionContract(**_contract_fields(bundle, question))


def question_view(bundle: CampaignBundle, question: Question, day: int) -> QuestionView:
    """A question's contract with its countdown and whether it is open on `day`."""
    return QuestionView(
        **_contract_fields(bundle, question),
        days_to_deadline=question.deadline_day - day,
        open=eligible(question, day),
    )


def _metric_rows(bundle: CampaignBundle, book: Book, day: int) -> list[MetricRow]:
    rows = []
    for metric in bundle.metrics.values():
        now = metric_value(book, metric, day)
        before = metric_value(book, metric, day - 1) if day > 0 else now
        rows.append(
            MetricRow(
                id=metric.id,
                title=metric.title,
                units=metric.units,
                value=str(to_display(metric, now)),
                change=str(to_display(metric, now - before)),
            )
        )
    return rows


def _commitments(bundle: CampaignBundle, engine: Engine) -> list[CommitmentRow]:
    rows = []
    for action_id, c in sorted(engine.state.commitments.items()):
        action = bundle.actions[action_id]
        landing = sorted(
            {c.landing_day + action.effects[i].extra_delay_days for i in c.pending_effects}
        )
        rows.append(
            CommitmentRow(
                action=action_id,
                title=action.title,
                scheduled_day=c.scheduled_day,
                start_day=c.start_day,
                landing_day=c.landing_day,
                effects_pending=tuple(action.effects[i].kind for i in c.pending_effects),
                effects_land_on=tuple(landing),
                cash_reserved=dollars(c.reserve_left),
            )
        )
    return rows


def submission_rows(
    bundle: CampaignBundle, submissions: list[SubmissionRecord]
) -> list[SubmissionRow]:
    """Own submissions with their eligibility and whether each is the one that counts."""
    counting = {}
    for question in bundle.questions.values():
        chosen = latest_eligible(question, submissions)
        if chosen is not None:
            counting[question.id] = chosen.seq
    rows = []
    for record in submissions:
        asked = bundle.questions.get(record.assessment.question)
        rows.append(
            SubmissionRow(
                seq=record.seq,
                day=record.day,
                question=record.assessment.question,
                value=record.assessment.value,
                conclusion=record.assessment.conclusion,
                choice=record.assessment.choice,
                eligible=asked is not None and eligible(asked, record.day),
                counts=counting.get(record.assessment.question) == record.seq,
            )
        )
    return rows


def _state(engine: Engine) -> PublicState:
    state = engine.state
    last = state.history[-1] if state.history else None
    return PublicState(
        cash=dollars(engine.book.balance(C.CASH)),
        free_cash=dollars(engine.free_cash()),
        reserved_cash=dollars(state.reserved_cash),
        price=dollars(state.price),
        headcount=dict(state.headcount),
        equipment_capacity=state.equipment_capacity,
        supplier=state.supplier,
        inventory_units=InventoryUnits(
            raw=state.raw_units, in_transit=state.in_transit_units, finished=state.finished_units
        ),
        marketing_reach=round(state.reach_milli / 1000, 1),
        demand_lift_bp=state.demand_lift_bp,
        overhead_per_day=dollars(state.overhead_per_day),
        loans=tuple(
            LoanRow(
                action=loan.action_id,
                principal=dollars(loan.principal),
                annual_rate_bp=loan.annual_rate_bp,
                due_day=loan.maturity_day,
            )
            for loan in state.loans
        ),
        orders_in_transit=tuple(
            OrderRow(
                placed_day=o.placed_day,
                arrival_day=o.arrival_day,
                supplier=o.supplier,
                units=o.units,
            )
            for o in state.orders
        ),
        missed_payrolls=state.missed_payrolls,
        yesterday=None
        if last is None
        else DayOperations(
            demand=last.demand,
            sold=last.sold,
            lost_sales=last.lost_sales,
            produced=last.produced,
            capacity=last.capacity,
            utilisation=round(last.utilisation, 3),
            shocks=last.shocks,
        ),
    )


def build(
    bundle: CampaignBundle, engine: Engine, submissions: list[SubmissionRecord]
) -> PublicView:
    """The full public view of a run at its current day."""
    state = engine.state
    day = engine.day
    return PublicView(
        campaign=CampaignInfo(
            id=bundle.id,
            title=bundle.campaign.title,
            description=bundle.campaign.description.strip(),
            company=bundle.campaign.company.name,
        ),
        day=day,
        date=date_of(bundle, day),
        horizon=engine.horizon,
        finished=engine.finished,
        state=_state(engine),
        metrics=tuple(_metric_rows(bundle, engine.book, day)),
        commitments=tuple(_commitments(bundle, engine)),
        completed=dict(sorted(state.completed.items())),
        scheduled=dict(sorted(state.scheduled.items())),
        alerts=tuple(
            AlertRow(day=a.day, kind=a.kind, message=a.message) for a in state.alerts[-50:]
        ),
        actions=tuple(action_terms(a) for a in bundle.actions.values()),
        questions=tuple(question_view(bundle, q, day) for q in bundle.questions.values()),
        objectives=objective_terms(bundle),
        submissions=tuple(submission_rows(bundle, submissions)),
    )


def metric_series(bundle: CampaignBundle, book: Book) -> dict[str, list[Decimal]]:
    """Every metric at every closed day, in display units (for charts and `show`)."""
    last = book.last_closed_day or 0
    return {
        m.id: [to_display(m, metric_value(book, m, d)) for d in range(last + 1)]
        for m in bundle.metrics.values()
    }


EXPORT_NAMES: Final = 1000
"""Names `ledger-N.FMT` tried for an export beside files it must not replace."""


def write_export(ledger: LedgerReader, fmt: str, directory: Path, *, replace: bool = True) -> Path:
    """Write `ledger.beancount` or `ledger.csv` into `directory` whole or not at all.

    With `replace` (the run's own directory, where the previous export is the player's)
    it replaces `ledger.FMT`; without (a hosted run's export goes to the working
    directory, the user's files), it never replaces anything: the first free name of
    `ledger.FMT`, `ledger-2.FMT`, … is taken.
    """
    from workbench.outputs import write_new_file
    from workbench.runs.files import atomic_write

    if fmt not in ("beancount", "csv"):
        raise UserError(f"unknown ledger format {fmt!r} (beancount or csv)")
    data = ledger.export(fmt).encode()
    if replace:
        target = directory / f"ledger.{fmt}"
        try:
            atomic_write(target, data)
        except OSError as exc:
            raise UserError(f"cannot write {target}: {exc.strerror or exc}") from None
        return target
    for number in range(1, EXPORT_NAMES + 1):
        target = directory / (f"ledger.{fmt}" if number == 1 else f"ledger-{number}.{fmt}")
        if os.path.lexists(target):
            continue
        try:
            write_new_file(target, data, what="ledger export")
        except UserError as exc:
            if exc.subject == "force":  # it appeared meanwhile: take the next name
                continue
            raise
        return target
    raise UserError(f"{directory}: ledger.{fmt} to ledger-{EXPORT_NAMES}.{fmt} all exist")


def unbalanced(totals: dict[str, int]) -> dict[str, str]:
    """Units whose balances do not sum to zero (from `totals`), with the excess as text."""
    return {
        unit: display.money_of_cents(total) if unit == "USD" else display.count(total)
        for unit, total in sorted(totals.items())
        if total != 0
    }


class LedgerView:
    """Read-only ledger access for players: balances, trial balance, history, exports."""

    def __init__(self, book: Book, bundle: CampaignBundle) -> None:
        self._book = book
        self._bundle = bundle

    @property
    def last_day(self) -> int:
        """The latest closed day."""
        return self._book.last_closed_day or 0

    def trial_balance(self, day: int | None = None) -> list[tuple[str, str, str]]:
        """(account, unit, balance text) for every account at a day's close."""
        rows = []
        for name, unit, minor in self._book.trial_balance_rows(day):
            text = format_money(minor) if unit == "USD" else str(minor)
            rows.append((name, unit, text))
        return rows

    def totals(self, day: int | None = None) -> dict[str, int]:
        """Sum of balances per unit: all zero in a balanced book."""
        return self._book.trial_balance(day)

    def account_history(self, account: str) -> list[tuple[int, Decimal]]:
        """(day, balance in major units) for every closed day."""
        unit = self._book.unit_of(account)
        scale = scale_of(unit)
        return [
            (d, Decimal(self._book.balance(account, d)) / scale)
            for d in range(self._book.first_day, self.last_day + 1)
        ]

    def export(self, fmt: str) -> str:
        """The ledger as beancount or CSV text."""
        from ledger import export

        start = self._bundle.campaign.start_date
        with reraised(UserError, export.ExportError, where=f"{fmt} export"):
            if fmt == "beancount":
                return export.to_beancount(self._book, start)
            if fmt == "csv":
                return export.to_csv(self._book, start)
        raise UserError(f"unknown export format {fmt!r} (beancount or csv)")
