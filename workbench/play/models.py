"""Typed models of what a player may see: the public view, action terms, question contracts.

These are the boundary between the session and its readers (CLI, dashboard, evaluator
report): readers use attributes, never string keys. `to_data()` gives the JSON-ready form
`workbench snapshot` prints; field order is the output's key order. Money is an exact
dollar string ("1234.56"), as everywhere in JSON.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_serializer

from sim.campaign_model import Conclusion

SCHEMA = "cfwb.snapshot/1"


class ViewModel(BaseModel):
    """Base of every public model: immutable, no unknown fields."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    def to_data(self) -> dict[str, Any]:
        """The JSON-ready form (aliases applied, tuples as lists)."""
        return self.model_dump(mode="json", by_alias=True)


# -- action catalog ------------------------------------------------------------------------
class StaffingTerms(ViewModel):
    """Staff an action occupies from its start."""

    role: str
    count: int
    days: int


class PrerequisiteTerms(ViewModel):
    """Conditions checked when an action is scheduled."""

    completed: tuple[str, ...]
    not_scheduled: tuple[str, ...]
    min_cash_after: str
    min_headcount: dict[str, int]


class ActionTerms(ViewModel):
    """Every term of an action: the catalog entry a player sees before scheduling it."""

    id: str
    title: str
    description: str
    upfront_cost: str
    capitalized: str
    running_cost_per_day: str
    running_days: int
    reserved_cash: str
    staffing: tuple[StaffingTerms, ...]
    prerequisites: PrerequisiteTerms
    delay_days: int
    effects: tuple[dict[str, JsonValue], ...]
    """Each effect's fields by name (they differ by kind), money as dollar strings."""
    effect_set: tuple[str, ...]
    financing_net_assets: str
    irreversible_work: str


# -- question contracts --------------------------------------------------------------------
class ChoiceTerms(ViewModel):
    """A question's baseline: a named choice and its fixed actions."""

    name: str
    actions: tuple[str, ...]


class InterventionTerms(ChoiceTerms):
    """A question's intervention: fixed actions, or a pick from `select_from`."""

    select_from: tuple[str, ...]


class QuestionContract(ViewModel):
    """A question's public contract: choices, timing, metric, units, scale, conclusion."""

    id: str
    title: str
    metric: str
    metric_title: str
    units: str
    scale: str
    intervene_on_day: int
    deadline_day: int
    outcome_day: int
    baseline: ChoiceTerms
    intervention: InterventionTerms
    predict: str = "intervention - baseline"
    conclusion: Conclusion | None
    """The typed conclusion a submission must carry besides the number, if any."""

    @field_serializer("conclusion")
    def _conclusion(self, conclusion: Conclusion | None) -> dict[str, Any] | None:
        return None if conclusion is None else conclusion.model_dump(exclude_none=True)


class QuestionView(QuestionContract):
    """A question's contract as it stands on the current day."""

    days_to_deadline: int
    open: bool
    """True while a submission made now would be eligible."""


# -- run state -----------------------------------------------------------------------------
class CampaignInfo(ViewModel):
    """Which campaign is played."""

    id: str
    title: str
    description: str
    company: str


class InventoryUnits(ViewModel):
    """Raw units in stock and in transit, finished units on the shelf."""

    raw: int
    in_transit: int
    finished: int


class LoanRow(ViewModel):
    """An outstanding loan."""

    action: str
    principal: str
    annual_rate_bp: int
    due_day: int


class OrderRow(ViewModel):
    """A supplier order in transit."""

    placed_day: int
    arrival_day: int
    supplier: str
    units: int


class DayOperations(ViewModel):
    """Operating statistics of the last closed day."""

    demand: int
    sold: int
    lost_sales: int
    produced: int
    capacity: int
    utilisation: float
    shocks: tuple[str, ...]


class PublicState(ViewModel):
    """The company today: cash, price, staff, capacity, inventory, loans, orders."""

    cash: str
    free_cash: str
    reserved_cash: str
    price: str
    headcount: dict[str, int]
    equipment_capacity: int
    supplier: str
    inventory_units: InventoryUnits
    marketing_reach: float
    demand_lift_bp: int
    overhead_per_day: str
    loans: tuple[LoanRow, ...]
    orders_in_transit: tuple[OrderRow, ...]
    missed_payrolls: int
    yesterday: DayOperations | None


class MetricRow(ViewModel):
    """A metric's value today and its change since yesterday, in display units."""

    id: str
    title: str
    units: str
    value: str
    change: str


class CommitmentRow(ViewModel):
    """An accepted action in flight."""

    action: str
    title: str
    scheduled_day: int
    start_day: int
    landing_day: int
    effects_pending: tuple[str, ...]
    effects_land_on: tuple[int, ...]
    cash_reserved: str


class AlertRow(ViewModel):
    """Something the player should notice."""

    day: int
    kind: str
    message: str


class SubmissionRow(ViewModel):
    """One of the player's own submissions, with eligibility and whether it counts."""

    seq: int
    day: int
    question: str
    value: str
    conclusion: str | list[str] | None
    choice: str | None
    eligible: bool
    counts: bool


class GoalTerms(ViewModel):
    """One requirement of a business objective: a bound on a metric at a day's close."""

    metric: str
    metric_title: str
    units: str
    bound: Literal["at_least", "at_most"]
    threshold: str
    day: int


class ObjectiveTerms(ViewModel):
    """A factual business objective as the player reads it (reported apart, never scored)."""

    task_id: str
    title: str
    goals: tuple[GoalTerms, ...]


class PublicView(ViewModel):
    """The player's whole public view of a run at its current day (`workbench snapshot`)."""

    schema_: str = Field(default=SCHEMA, alias="schema")
    campaign: CampaignInfo
    day: int
    date: str
    horizon: int
    finished: bool
    state: PublicState
    metrics: tuple[MetricRow, ...]
    commitments: tuple[CommitmentRow, ...]
    completed: dict[str, int]
    scheduled: dict[str, int] = Field(
        description="Every action scheduled in this run, with the day of that decision.",
    )
    alerts: tuple[AlertRow, ...]
    actions: tuple[ActionTerms, ...]
    questions: tuple[QuestionView, ...]
    objectives: tuple[ObjectiveTerms, ...]
    submissions: tuple[SubmissionRow, ...]

    def action(self, action_id: str) -> ActionTerms | None:
        """The catalog entry of one action, or None when unknown."""
        return next((a for a in self.actions if a.id == action_id), None)

    def question(self, question_id: str) -> QuestionView | None:
        """One question's contract as it stands today, or None when unknown."""
        return next((q for q in self.questions if q.id == question_id), None)
