"""Pydantic models of a campaign's TOML files; money fields hold exact integer cents."""

from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from ledger.money import MoneyError, to_minor


def _money(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return to_minor(value)
    if isinstance(value, str):
        try:
            return to_minor(value)
        except MoneyError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError('money must be written as a string such as "1250.00" or a whole number')


Money = Annotated[
    int,
    BeforeValidator(_money),
    WithJsonSchema(
        {
            "type": ["string", "integer"],
            "pattern": r"^-?\d+(\.\d{1,2})?$",
            "description": 'Amount in dollars, e.g. "1250.00" (exact to the cent).',
        }
    ),
]
"""A money amount written in dollars, held as exact integer cents."""

Identifier = Annotated[str, Field(pattern=r"^[a-z0-9_]+$", min_length=1, max_length=64)]
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


class Strict(BaseModel):
    """Base: unknown fields are errors, models are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)


# -- campaign.toml -------------------------------------------------------------------------
class Role(Strict):
    """A staff role: headcount, daily wage and daily production per person."""

    id: Identifier
    title: str
    headcount: int = Field(ge=0)
    wage_per_day: Money
    units_per_day: int = Field(ge=0, description="Units one person of this role produces a day.")


class Supplier(Strict):
    """A supplier of raw units: price and a lead-time range drawn per order day."""

    id: Identifier
    title: str
    unit_cost: Money
    lead_time_min: int = Field(ge=1)
    lead_time_max: int = Field(ge=1)

    @model_validator(mode="after")
    def _range(self) -> Supplier:
        if self.lead_time_max < self.lead_time_min:
            raise ValueError("lead_time_max must be at least lead_time_min")
        return self


class Company(Strict):
    """The company's opening position and standing policies."""

    name: str
    opening_cash: Money
    opening_equity_note: str = "Owner contribution"
    opening_raw_units: int = Field(ge=0)
    opening_raw_unit_cost: Money
    opening_finished_units: int = Field(ge=0)
    opening_finished_unit_cost: Money
    price: Money
    rent_per_day: Money
    equipment_capacity: int = Field(ge=0, description="Units a day the equipment can process.")
    supplier: Identifier
    reorder_point: int = Field(ge=0)
    reorder_quantity: int = Field(ge=1)
    payroll_every_days: int = Field(ge=1, le=31)
    low_cash_alert: Money
    roles: tuple[Role, ...] = Field(min_length=1)


class Demand(Strict):
    """Daily demand: base × weekly × annual season × price response × lifts × noise × shocks."""

    base_per_day: float = Field(gt=0)
    reference_price: Money
    elasticity: float = Field(ge=0, le=5)
    weekly: tuple[float, ...] = Field(min_length=7, max_length=7)
    annual_amplitude: float = Field(ge=0, lt=1)
    annual_peak_day: int = Field(ge=0, le=365)
    noise_sigma: float = Field(ge=0, le=1)
    reach_lift_per_point: float = Field(ge=0, description="Demand lift per marketing reach point.")
    reach_decay: Fraction = Field(description="Share of marketing reach lost each day.")


class Shock(Strict):
    """An exogenous shock process: starts with a daily probability and lasts a drawn spell."""

    id: Identifier
    title: str
    target: Literal["demand", "lead_time"]
    start_probability: Fraction
    min_days: int = Field(ge=1)
    max_days: int = Field(ge=1)
    demand_multiplier: float = Field(default=1.0, ge=0, le=3)
    extra_lead_days: int = Field(default=0, ge=0)

    @model_validator(mode="after")
    def _range(self) -> Shock:
        if self.max_days < self.min_days:
            raise ValueError("max_days must be at least min_days")
        return self


MAX_HORIZON_DAYS = 36_500
"""The longest campaign: a century of days (per-day cost stays flat, memory grows ~4 KB/day)."""


class Campaign(Strict):
    """campaign.toml: identity, timing, seeds, the company and its exogenous processes."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")]
    title: str
    description: str = ""
    visibility: Literal["development", "private"] = "development"
    development_seed: int | None = Field(default=None, ge=0)
    start_date: dt.date
    horizon_days: int = Field(ge=7, le=MAX_HORIZON_DAYS)
    company: Company
    suppliers: tuple[Supplier, ...] = Field(min_length=1)
    demand: Demand
    shocks: tuple[Shock, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> Campaign:
        if self.visibility == "development" and self.development_seed is None:
            raise ValueError("a development campaign must publish development_seed")
        if self.visibility == "private" and self.development_seed is not None:
            raise ValueError("a private campaign must not hold a seed (the control file does)")
        supplier_ids = [s.id for s in self.suppliers]
        if self.company.supplier not in supplier_ids:
            raise ValueError(
                f"company.supplier {self.company.supplier!r} is not one of the suppliers "
                f"{supplier_ids}"
            )
        return self


# -- actions.toml --------------------------------------------------------------------------
class StaffNeed(Strict):
    """Staff an action occupies from its start: count people of a role for some days."""

    role: Identifier
    count: int = Field(ge=1)
    days: int = Field(ge=1)


class Prerequisites(Strict):
    """Conditions checked when the action is scheduled."""

    completed: tuple[Identifier, ...] = ()
    not_scheduled: tuple[Identifier, ...] = Field(
        default=(), description="Actions that must not have been scheduled (mutual exclusion)."
    )
    min_cash_after: Money = Field(default=0, description="Cash that must remain after reserving.")
    min_headcount: dict[str, int] = Field(default_factory=dict)


class EffectBase(Strict):
    """Every effect may land later than its action's delay."""

    extra_delay_days: int = Field(default=0, ge=0)


class HireEffect(EffectBase):
    kind: Literal["hire"] = "hire"
    role: Identifier
    count: int = Field(ge=1)


class CapacityEffect(EffectBase):
    kind: Literal["capacity"] = "capacity"
    units_per_day: int


class PriceEffect(EffectBase):
    kind: Literal["price"] = "price"
    new_price: Money


class MarketingEffect(EffectBase):
    kind: Literal["marketing"] = "marketing"
    reach_per_day: float = Field(gt=0)
    days: int = Field(ge=1)


class LoanEffect(EffectBase):
    kind: Literal["loan"] = "loan"
    principal: Money
    annual_rate_bp: int = Field(ge=0, le=10_000)
    term_days: int = Field(ge=1)


class SupplierEffect(EffectBase):
    kind: Literal["supplier"] = "supplier"
    supplier: Identifier


class DemandEffect(EffectBase):
    kind: Literal["demand"] = "demand"
    lift_bp: int = Field(ge=-5_000, le=20_000, description="Demand lift in basis points.")


class OverheadEffect(EffectBase):
    kind: Literal["overhead"] = "overhead"
    per_day: Money


Effect = Annotated[
    HireEffect
    | CapacityEffect
    | PriceEffect
    | MarketingEffect
    | LoanEffect
    | SupplierEffect
    | DemandEffect
    | OverheadEffect,
    Field(discriminator="kind"),
]


class Action(Strict):
    """A named action with its terms (DESIGN §5)."""

    id: Identifier
    title: str
    description: str = ""
    upfront_cost: Money = 0
    capitalized: Money = Field(default=0, description="Part of the upfront cost kept as equipment.")
    upfront_flow: Literal["irreversible", "financing"] = "irreversible"
    running_cost_per_day: Money = 0
    running_days: int = Field(default=0, ge=0)
    staffing: tuple[StaffNeed, ...] = ()
    prerequisites: Prerequisites = Prerequisites()
    delay_days: int = Field(ge=1, description="Days from scheduling until the effects land.")
    effects: tuple[Effect, ...] = Field(min_length=1)
    financing_net_assets: Money
    irreversible_work: Money

    @model_validator(mode="after")
    def _terms(self) -> Action:
        if self.upfront_cost < 0 or self.running_cost_per_day < 0:
            raise ValueError("costs cannot be negative")
        if not 0 <= self.capitalized <= self.upfront_cost:
            raise ValueError("capitalized must be between 0 and upfront_cost")
        if self.running_cost_per_day and not self.running_days:
            raise ValueError("running_cost_per_day needs running_days")
        kinds = [e.kind for e in self.effects]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"effects must have distinct kinds, got {kinds}")
        return self

    @property
    def effect_names(self) -> tuple[str, ...]:
        """The declared effect set, by kind."""
        return tuple(e.kind for e in self.effects)

    @property
    def reserved_cash(self) -> int:
        """Cash reserved at scheduling: upfront plus every running day."""
        return self.upfront_cost + self.running_cost_per_day * self.running_days


class ActionCatalog(Strict):
    """actions.toml."""

    actions: tuple[Action, ...] = Field(min_length=1)


# -- metrics.toml --------------------------------------------------------------------------
class MetricTerm(Strict):
    """One signed ledger subtree in a metric."""

    account: str
    sign: Literal[1, -1] = 1


class Metric(Strict):
    """A registered metric: a signed sum of ledger subtree balances at a day's close."""

    id: Identifier
    title: str
    units: Literal["USD", "UNITS", "EVENTS"]
    terms: tuple[MetricTerm, ...] = Field(min_length=1)


class Requirement(Strict):
    """One condition of a task on a metric at a day (the horizon when omitted)."""

    metric: Identifier
    at_least: str | None = None
    at_most: str | None = None
    on_day: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _bound(self) -> Requirement:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least or at_most")
        return self


class Task(Strict):
    """A factual business objective evaluated from the ledger."""

    id: Identifier
    title: str
    requirements: tuple[Requirement, ...] = Field(min_length=1)


class MetricsFile(Strict):
    """metrics.toml: registered metrics and tasks."""

    metrics: tuple[Metric, ...] = Field(min_length=1)
    tasks: tuple[Task, ...] = ()


# -- questions.toml ------------------------------------------------------------------------
class Choice(Strict):
    """A named choice: a fixed set of actions, or a participant pick from an allowed set."""

    name: str
    actions: tuple[Identifier, ...] = ()
    select_from: tuple[Identifier, ...] = ()

    @model_validator(mode="after")
    def _form(self) -> Choice:
        if self.actions and self.select_from:
            raise ValueError("a choice has either actions or select_from, not both")
        if len(set(self.actions)) != len(self.actions):
            raise ValueError("a choice lists an action twice")
        return self

    @property
    def participant_selected(self) -> bool:
        """True when the participant picks the action from `select_from`."""
        return bool(self.select_from)


class Conclusion(Strict):
    """A typed conclusion the participant must submit besides the number."""

    kind: Literal["contract_component", "supported_effects"]
    action: Identifier
    component: Literal["financing_net_assets", "irreversible_work"] | None = None

    @model_validator(mode="after")
    def _form(self) -> Conclusion:
        if self.kind == "contract_component" and self.component is None:
            raise ValueError("contract_component needs component")
        if self.kind == "supported_effects" and self.component is not None:
            raise ValueError("supported_effects takes no component")
        return self


class Question(Strict):
    """A counterfactual question (DESIGN §8)."""

    id: Identifier
    title: str
    metric: Identifier
    scale: str = Field(description='Loss scale in the metric\'s display units, e.g. "1000".')
    intervene_on_day: int = Field(ge=0)
    deadline_day: int = Field(ge=0)
    outcome_day: int = Field(ge=1)
    baseline: Choice
    intervention: Choice
    conclusion: Conclusion | None = None

    @field_validator("scale")
    @classmethod
    def _scale(cls, value: str) -> str:
        from decimal import Decimal, InvalidOperation

        try:
            number = Decimal(value)
        except InvalidOperation:
            raise ValueError(f"scale {value!r} is not a number") from None
        if not number.is_finite() or number <= 0:
            raise ValueError("scale must be a positive number")
        return value

    @model_validator(mode="after")
    def _timing(self) -> Question:
        if self.deadline_day > self.intervene_on_day:
            raise ValueError(
                f"deadline_day {self.deadline_day} is after intervene_on_day "
                f"{self.intervene_on_day}"
            )
        if self.outcome_day <= self.intervene_on_day:
            raise ValueError(
                f"outcome_day {self.outcome_day} must be after intervene_on_day "
                f"{self.intervene_on_day}"
            )
        if self.baseline.participant_selected:
            raise ValueError("only the intervention can be participant-selected")
        return self


class QuestionsFile(Strict):
    """questions.toml."""

    questions: tuple[Question, ...] = ()
