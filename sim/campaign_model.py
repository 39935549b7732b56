"""Pydantic models of a campaign's TOML files; money fields hold exact integer cents.

Every number has a closed allowed range and every text a length and character rule,
declared once on its type (`Bounds`, `MoneyBounds`, `DecimalBounds`, `TextRule`). The
same objects validate, print the range in error messages, write the JSON Schema and
generate the field tables of docs/authoring.md, so the three cannot drift. The ranges
keep each value sane on its own; `sim.campaign_checks.magnitude_problems` then bounds
the products the engine forms over the horizon (price × units sold, wages × days, …).
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
from dataclasses import dataclass
from decimal import Decimal
from types import UnionType
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    model_validator,
)
from pydantic_core import PydanticCustomError, core_schema

from ledger.canonical import digest

MAX_HORIZON_DAYS = 36_500
"""The longest campaign: a hundred years of days."""
MAX_DAYS = MAX_HORIZON_DAYS
"""Any duration or day number (delays, terms, question days)."""
MAX_LEAD_DAYS = 365
"""A supplier's lead time or a shock's extra lead days."""
MAX_UNITS = 1_000_000_000
"""Any count of product units: stock, capacity, order sizes, output per person."""
MAX_STAFF = 1_000_000
"""Any headcount."""
MAX_DEMAND = 10_000_000.0
"""Base demand a day, in units."""
MAX_REACH = 1_000_000.0
"""Marketing reach points added a day."""
CENT = 1
"""One cent: the smallest price."""
MAX_PRICE = 100_000_000
"""$1,000,000.00 in cents: the price or cost of one unit."""
MAX_DAILY = 100_000_000_000
"""$1,000,000,000.00 in cents: a daily wage, rent, overhead or running cost."""
MAX_AMOUNT = 100_000_000_000_000
"""$1,000,000,000,000.00 in cents: a lump sum (opening cash, upfront cost, loan principal)."""
MAX_SEED = 2**63 - 1
"""The largest development seed (TOML integers are 64-bit)."""
MAX_LIST = 200
"""The most actions, questions or listed action ids in one place."""
MAX_SMALL_LIST = 32
"""The most roles, suppliers, shocks, staffing needs or requirements in one place."""
MAX_METRIC_TERMS = 16
"""The most ledger subtrees one metric sums (keeps a metric inside 64-bit integers)."""
TITLE_CHARS = 200
DESCRIPTION_CHARS = 10_000


def _number(value: float | int) -> str:
    if isinstance(value, float) and not value.is_integer():
        return repr(value)
    return f"{int(value):,}"


def _dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def shown(value: Any) -> str:
    """A user's value for a message, as TOML writes it (`true`, `2027-02-28`, `'text'`),
    cut short so a huge input is never echoed whole."""
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class Bounds:
    """A whole or real number in a closed range, with its unit (validation, schema and docs)."""

    low: int | float
    high: int | float
    unit: str = ""
    real: bool = False

    def describe(self) -> str:
        """The allowed range in words, e.g. `0 to 1,000,000,000 units`."""
        unit = f" {self.unit}" if self.unit else ""
        return f"{_number(self.low)} to {_number(self.high)}{unit}"

    def kind(self) -> str:
        """The TOML type an author writes."""
        return "number" if self.real else "integer"

    def _check(self, value: Any) -> int | float:
        kind = "a number" if self.real else "a whole number"
        ok_type = isinstance(value, int) and not isinstance(value, bool)
        if self.real:
            ok_type = ok_type or isinstance(value, float)
        if not ok_type:
            raise PydanticCustomError(
                "number_type",
                "expected {kind} from {range}, got {got}",
                {"kind": kind, "range": self.describe(), "got": shown(value)},
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise PydanticCustomError(
                "number_finite",
                "{got} is not a finite number: allowed {range}",
                {"got": shown(value), "range": self.describe()},
            )
        if not self.low <= value <= self.high:
            raise PydanticCustomError(
                "number_range",
                "{got} is out of range: allowed {range}",
                {"got": shown(value), "range": self.describe()},
            )
        return float(value) if self.real else value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(self._check)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {"type": self.kind(), "minimum": self.low, "maximum": self.high}


def _not_plain(value: Any, places: int, digits: int) -> str:
    """Why `value` is not a plain decimal string with at most `digits` digits before its point
    and `places` after it (money and decimal fields): the real cause, not the form in general."""
    example = '"1250.00"' if places == 2 else '"1000" or "0.5"'
    if isinstance(value, float) and not isinstance(value, bool):
        return f"is a TOML number, not a decimal string in quotes such as {example}"
    if not isinstance(value, str):
        return f"is not a decimal string in quotes such as {example}"
    if value in ("", "-"):
        return f"is empty, not a decimal such as {example}"
    match = re.fullmatch(r"-?([0-9]*)(?:\.([0-9]*))?", value)
    if match is None:
        try:
            finite = Decimal(value).is_finite()
        except ArithmeticError:
            return f"is not a decimal number such as {example}"
        if not finite:
            return "is not a finite number"
        return f"is not a plain decimal such as {example} (no exponent, sign or spaces)"
    whole, fraction = match.group(1), match.group(2)
    if fraction is not None and len(fraction) > places:
        return f"has {len(fraction)} decimal places, more than {places}"
    if not whole or fraction == "":
        return f"needs digits on both sides of its point, such as {example}"
    return f"has {len(whole)} digits before its point, more than {digits}"


MONEY_PATTERN = r"^-?[0-9]{1,13}(\.[0-9]{1,2})?$"
_MONEY = re.compile(MONEY_PATTERN)


@dataclass(frozen=True)
class MoneyBounds:
    """A dollar amount exact to the cent, held as integer cents, in a closed range."""

    low: int
    high: int

    unit = "USD"

    def describe(self) -> str:
        """The allowed range in dollars."""
        return f"{_dollars(self.low)} to {_dollars(self.high)}"

    def kind(self) -> str:
        """The TOML type an author writes."""
        return 'string "1250.00" (or whole dollars)'

    def _check(self, value: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            cents = value * 100
        elif isinstance(value, str) and _MONEY.match(value):
            whole, _, frac = value.lstrip("-").partition(".")
            cents = int(whole) * 100 + int((frac + "00")[:2])
            cents = -cents if value.startswith("-") else cents
        else:
            raise PydanticCustomError(
                "money_type",
                "{got} {why}: allowed dollars exact to the cent, {range}",
                {"got": shown(value), "why": _not_plain(value, 2, 13), "range": self.describe()},
            )
        if not self.low <= cents <= self.high:
            raise PydanticCustomError(
                "money_range",
                "{got} is out of range: allowed {range}",
                {"got": shown(value), "range": self.describe()},
            )
        return cents

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(self._check)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "anyOf": [
                {"type": "string", "pattern": MONEY_PATTERN},
                {"type": "integer", "minimum": -(-self.low // 100), "maximum": self.high // 100},
            ]
        }


DECIMAL_PATTERN = r"^-?[0-9]{1,19}(\.[0-9]{1,6})?$"
_DECIMAL = re.compile(DECIMAL_PATTERN)


@dataclass(frozen=True)
class DecimalBounds:
    """A decimal number written as a string (kept as written), in a closed range."""

    low: str
    high: str
    unit: str = ""
    positive: bool = False

    def describe(self) -> str:
        """The allowed range in words."""
        low = f"{Decimal(self.low):,}"
        low = f"above {low}" if self.positive else low
        unit = f" {self.unit}" if self.unit else ""
        return f"{low} to {Decimal(self.high):,}{unit}"

    def kind(self) -> str:
        """The TOML type an author writes."""
        return 'string "1000" (decimal)'

    def _check(self, value: Any) -> str:
        if not isinstance(value, str) or not _DECIMAL.match(value):
            raise PydanticCustomError(
                "decimal_type",
                "{got} {why}: allowed {range}",
                {"got": shown(value), "why": _not_plain(value, 6, 19), "range": self.describe()},
            )
        number = Decimal(value)
        low, high = Decimal(self.low), Decimal(self.high)
        inside = (number > low if self.positive else number >= low) and number <= high
        if not inside:
            raise PydanticCustomError(
                "decimal_range",
                "{got} is out of range: allowed {range}",
                {"got": shown(value), "range": self.describe()},
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(self._check)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {"type": "string", "pattern": DECIMAL_PATTERN}


_BIDI = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029"
)


_NO_BIDI = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029"
_ONE_LINE_TEXT = rf"^[^\u0000-\u001f\u007f-\u009f{_NO_BIDI}]*$"
_MULTILINE_TEXT = rf"^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f{_NO_BIDI}]*$"


def forbidden_character(text: str, multiline: bool) -> tuple[int, str] | None:
    """The first character a terminal could act on (controls, bidi overrides), if any."""
    for index, char in enumerate(text):
        if multiline and char in "\n\r\t":
            continue
        if unicodedata.category(char) == "Cc" or char in _BIDI:
            return index, char
    return None


@dataclass(frozen=True)
class TextRule:
    """Printable text of bounded length: no control or bidi characters (newlines in prose)."""

    max_length: int
    multiline: bool = False
    min_length: int = 1

    def describe(self) -> str:
        """The rule in words."""
        lines = "newlines allowed" if self.multiline else "one line"
        return f"{self.min_length} to {self.max_length:,} characters, {lines}, no controls"

    def kind(self) -> str:
        """The TOML type an author writes."""
        return "string"

    def _check(self, value: Any) -> str:
        if not isinstance(value, str):
            raise PydanticCustomError(
                "text_type", "expected text, got {got}", {"got": shown(value)}
            )
        if not self.min_length <= len(value) <= self.max_length:
            raise PydanticCustomError(
                "text_length",
                "{got} has {n} characters: allowed {rule}",
                {"got": shown(value), "n": len(value), "rule": self.describe()},
            )
        bad = forbidden_character(value, self.multiline)
        if bad is not None:
            index, char = bad
            raise PydanticCustomError(
                "text_control",
                "contains the control character U+{code} at position {index}: allowed {rule}",
                {"code": f"{ord(char):04X}", "index": index, "rule": self.describe()},
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_plain_validator_function(self._check)

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        return {
            "type": "string",
            "minLength": self.min_length,
            "maxLength": self.max_length,
            "pattern": _MULTILINE_TEXT if self.multiline else _ONE_LINE_TEXT,
        }


@dataclass(frozen=True)
class Items:
    """How many entries a list holds, checked after its entries (so one bad entry is one error)."""

    low: int
    high: int

    def describe(self) -> str:
        """The allowed count in words."""
        return f"{self.low} to {self.high} entries"

    def _check(self, value: tuple[Any, ...]) -> tuple[Any, ...]:
        if not self.low <= len(value) <= self.high:
            raise PydanticCustomError(
                "items_count",
                "{n} entries: allowed {rule}",
                {"n": len(value), "rule": self.describe()},
            )
        return value

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: core_schema.CoreSchema, handler: GetJsonSchemaHandler
    ) -> dict[str, Any]:
        document = handler(schema)
        document.update(minItems=self.low, maxItems=self.high)
        return document


# -- field types (each carries its rule once) ----------------------------------------------
Identifier = Annotated[str, Field(pattern=r"^[a-z0-9_]+$", min_length=1, max_length=64)]
RoleId = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$", min_length=1, max_length=64)]
Title = Annotated[str, TextRule(TITLE_CHARS)]
Prose = Annotated[str, TextRule(DESCRIPTION_CHARS, multiline=True, min_length=0)]

Money = Annotated[int, MoneyBounds(-MAX_AMOUNT, MAX_AMOUNT)]
"""A signed lump sum in dollars (contract components), held as exact integer cents."""
Amount = Annotated[int, MoneyBounds(0, MAX_AMOUNT)]
PositiveAmount = Annotated[int, MoneyBounds(CENT, MAX_AMOUNT)]
DailyAmount = Annotated[int, MoneyBounds(0, MAX_DAILY)]
UnitPrice = Annotated[int, MoneyBounds(CENT, MAX_PRICE)]
UnitCost = Annotated[int, MoneyBounds(0, MAX_PRICE)]

Units = Annotated[int, Bounds(0, MAX_UNITS, "units")]
UnitsAtLeastOne = Annotated[int, Bounds(1, MAX_UNITS, "units")]
UnitsPerDay = Annotated[int, Bounds(0, MAX_UNITS, "units/day")]
Staff = Annotated[int, Bounds(0, MAX_STAFF, "people")]
StaffAtLeastOne = Annotated[int, Bounds(1, MAX_STAFF, "people")]
Days = Annotated[int, Bounds(1, MAX_DAYS, "days")]
DaysOrNone = Annotated[int, Bounds(0, MAX_DAYS, "days")]
Day = Annotated[int, Bounds(0, MAX_DAYS, "day number")]
QuestionDay = Annotated[int, Bounds(1, MAX_DAYS, "day number")]
"""A question's days: from day 1, as its deadline is never before day 1."""
LeadDays = Annotated[int, Bounds(1, MAX_LEAD_DAYS, "days")]
ExtraLeadDays = Annotated[int, Bounds(0, MAX_LEAD_DAYS, "days")]
Probability = Annotated[float, Bounds(0.0, 1.0, "probability", real=True)]
Share = Annotated[float, Bounds(0.0, 1.0, "share", real=True)]
WeeklyFactor = Annotated[float, Bounds(0.0, 10.0, "", real=True)]


def _repeated(items: list[str]) -> tuple[str, int, int] | None:
    """The first item listed twice, with the indexes of its first two places."""
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        if item in first:
            return item, first[item], index
        first[item] = index
    return None


class Strict(BaseModel):
    """Base: unknown fields are errors, models are immutable, floats are finite."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


# -- campaign.toml -------------------------------------------------------------------------
class Role(Strict):
    """A staff role: headcount, daily wage and daily production per person."""

    id: RoleId = Field(description="Role id; starts with a letter (it names a ledger account).")
    title: Title
    headcount: Staff = Field(description="People in this role on day 0.")
    wage_per_day: DailyAmount = Field(description="Wage of one person a day, paid on payroll days.")
    units_per_day: UnitsPerDay = Field(description="Units one person of this role produces a day.")


class Supplier(Strict):
    """A supplier of raw units: price and a lead-time range drawn per order day."""

    id: Identifier
    title: Title
    unit_cost: UnitPrice = Field(description="Price of one raw unit.")
    lead_time_min: LeadDays = Field(description="Shortest delivery time of an order.")
    lead_time_max: LeadDays = Field(description="Longest delivery time (at least lead_time_min).")

    @model_validator(mode="after")
    def _range(self) -> Supplier:
        if self.lead_time_max < self.lead_time_min:
            raise ValueError(
                f"lead_time_max {self.lead_time_max} is below lead_time_min "
                f"{self.lead_time_min}: allowed {self.lead_time_min} to {MAX_LEAD_DAYS} days"
            )
        return self


class Company(Strict):
    """The company's opening position and standing policies."""

    name: Title
    opening_cash: Amount = Field(description="Cash on day 0.")
    opening_equity_note: Title = "Owner contribution"
    opening_raw_units: Units = Field(description="Raw units in stock on day 0.")
    opening_raw_unit_cost: UnitCost = Field(description="Book value of one opening raw unit.")
    opening_finished_units: Units = Field(description="Finished units in stock on day 0.")
    opening_finished_unit_cost: UnitCost = Field(
        description="Book value of one opening finished unit."
    )
    price: UnitPrice = Field(description="Selling price of one finished unit on day 0.")
    rent_per_day: DailyAmount = Field(description="Rent charged every day.")
    equipment_capacity: UnitsPerDay = Field(description="Units a day the equipment can process.")
    supplier: Identifier = Field(description="Id of the supplier used on day 0.")
    reorder_point: Units = Field(
        description="Order raw units when raw + in-transit stock falls below this."
    )
    reorder_quantity: UnitsAtLeastOne = Field(description="Raw units in one order.")
    payroll_every_days: Annotated[int, Bounds(1, 31, "days")] = Field(
        description="Wages are paid on every day divisible by this."
    )
    low_cash_alert: Amount = Field(description="Alert the player when free cash falls below.")
    roles: Annotated[tuple[Role, ...], Items(1, MAX_SMALL_LIST)]


class Demand(Strict):
    """Daily demand: base × weekly × annual season × price response × lifts × noise × shocks."""

    base_per_day: Annotated[float, Bounds(0.01, MAX_DEMAND, "units/day", real=True)] = Field(
        description="Mean demand a day at the reference price, before season and noise."
    )
    reference_price: UnitPrice = Field(description="Price at which demand equals its base.")
    elasticity: Annotated[float, Bounds(0.0, 5.0, "", real=True)] = Field(
        description="Demand scales as (price / reference_price) ^ -elasticity."
    )
    weekly: tuple[
        WeeklyFactor,
        WeeklyFactor,
        WeeklyFactor,
        WeeklyFactor,
        WeeklyFactor,
        WeeklyFactor,
        WeeklyFactor,
    ] = Field(description="Seven factors, for day % 7 = 0..6.")
    annual_amplitude: Annotated[float, Bounds(0.0, 0.99, "share", real=True)] = Field(
        description="Annual season: 1 + amplitude × cos(2π (day − peak) / 365)."
    )
    annual_peak_day: Annotated[int, Bounds(0, 365, "day of year")] = Field(
        description="Day of the annual peak."
    )
    noise_sigma: Annotated[float, Bounds(0.0, 0.5, "", real=True)] = Field(
        description="Log-normal daily noise (0.5 means most days within about ±50%)."
    )
    reach_lift_per_point: Annotated[float, Bounds(0.0, 1.0, "per point", real=True)] = Field(
        description="Demand lift per marketing reach point."
    )
    reach_decay: Share = Field(description="Share of marketing reach lost each day.")


class Shock(Strict):
    """An exogenous shock process: starts with a daily probability and lasts a drawn spell."""

    id: Identifier
    title: Title
    target: Literal["demand", "lead_time"]
    start_probability: Probability = Field(description="Chance a day that a spell starts.")
    min_days: Days = Field(description="Shortest spell.")
    max_days: Days = Field(description="Longest spell (at least min_days).")
    demand_multiplier: Annotated[float, Bounds(0.0, 3.0, "", real=True)] = Field(
        default=1.0, description="Demand factor while a demand shock lasts."
    )
    extra_lead_days: ExtraLeadDays = Field(
        default=0, description="Days added to orders placed while a lead-time shock lasts."
    )

    @model_validator(mode="after")
    def _range(self) -> Shock:
        if self.max_days < self.min_days:
            raise ValueError(
                f"max_days {self.max_days} is below min_days {self.min_days}: allowed "
                f"{self.min_days} to {MAX_DAYS:,} days"
            )
        return self


_DATE_TEXT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _calendar_date(value: Any) -> Any:
    """A date as written, a TOML date or "YYYY-MM-DD": a date-time is refused whatever its
    time (pydantic cut one at midnight, even with an offset, to its day, and refused others)."""
    if isinstance(value, dt.datetime) or (
        isinstance(value, str) and _DATE_TEXT.fullmatch(value) is None
    ):
        raise PydanticCustomError("date_type", "not a date")
    return value


CalendarDate = Annotated[dt.date, BeforeValidator(_calendar_date)]


class Campaign(Strict):
    """campaign.toml: identity, timing, seeds, the company and its exogenous processes."""

    id: Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", min_length=1, max_length=64)]
    title: Title
    description: Prose = ""
    visibility: Literal["development", "private"] = "development"
    development_seed: Annotated[int, Bounds(0, MAX_SEED, "")] | None = Field(
        default=None, description="Public seed of a development campaign (none when private)."
    )
    start_date: CalendarDate = Field(
        description="Calendar date of day 0 (YYYY-MM-DD); a date-time is refused, even at midnight."
    )
    horizon_days: Annotated[int, Bounds(7, MAX_HORIZON_DAYS, "days")] = Field(
        description="The last day of the campaign."
    )
    company: Company
    suppliers: Annotated[tuple[Supplier, ...], Items(1, MAX_SMALL_LIST)]
    demand: Demand
    shocks: Annotated[tuple[Shock, ...], Items(0, MAX_SMALL_LIST)] = ()

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

    role: RoleId
    count: StaffAtLeastOne
    days: Days


class Prerequisites(Strict):
    """Conditions checked when the action is scheduled."""

    completed: Annotated[tuple[Identifier, ...], Items(0, MAX_LIST)] = Field(
        default=(), description="Actions whose effects must have landed."
    )
    not_scheduled: Annotated[tuple[Identifier, ...], Items(0, MAX_LIST)] = Field(
        default=(), description="Actions that must not have been scheduled (mutual exclusion)."
    )
    min_cash_after: Amount = Field(default=0, description="Cash that must remain after reserving.")
    min_headcount: Annotated[dict[RoleId, Staff], Field(max_length=MAX_SMALL_LIST)] = Field(
        default_factory=dict, description="Least headcount of each named role."
    )


class EffectBase(Strict):
    """Every effect may land later than its action's delay."""

    extra_delay_days: DaysOrNone = Field(
        default=0, description="Days after the action's landing day that this effect lands."
    )


class HireEffect(EffectBase):
    """Adds people to a role."""

    kind: Literal["hire"] = "hire"
    role: RoleId
    count: StaffAtLeastOne


class CapacityEffect(EffectBase):
    """Adds equipment capacity."""

    kind: Literal["capacity"] = "capacity"
    units_per_day: UnitsPerDay


class PriceEffect(EffectBase):
    """Sets a new selling price."""

    kind: Literal["price"] = "price"
    new_price: UnitPrice


class MarketingEffect(EffectBase):
    """Adds marketing reach every day for a number of days."""

    kind: Literal["marketing"] = "marketing"
    reach_per_day: Annotated[float, Bounds(0.001, MAX_REACH, "points/day", real=True)]
    days: Days


class LoanEffect(EffectBase):
    """Borrows a bullet loan with daily interest."""

    kind: Literal["loan"] = "loan"
    principal: PositiveAmount
    annual_rate_bp: Annotated[int, Bounds(0, 10_000, "basis points")]
    term_days: Days


class SupplierEffect(EffectBase):
    """Switches to another supplier."""

    kind: Literal["supplier"] = "supplier"
    supplier: Identifier


class DemandEffect(EffectBase):
    """Lifts (or cuts) demand for good."""

    kind: Literal["demand"] = "demand"
    lift_bp: Annotated[int, Bounds(-5_000, 20_000, "basis points")] = Field(
        description="Demand lift in basis points."
    )


class OverheadEffect(EffectBase):
    """Adds a daily overhead."""

    kind: Literal["overhead"] = "overhead"
    per_day: DailyAmount


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
    title: Title
    description: Prose = ""
    upfront_cost: Amount = Field(default=0, description="Paid on the action's start day.")
    capitalized: Amount = Field(
        default=0, description="Part of the upfront cost kept as equipment."
    )
    upfront_flow: Literal["irreversible", "financing"] = "irreversible"
    running_cost_per_day: DailyAmount = Field(default=0, description="Paid each running day.")
    running_days: DaysOrNone = Field(default=0, description="Days the running cost is paid.")
    staffing: Annotated[tuple[StaffNeed, ...], Items(0, MAX_SMALL_LIST)] = ()
    prerequisites: Prerequisites = Prerequisites()
    delay_days: Days = Field(description="Days from the start day until the effects land.")
    effects: Annotated[tuple[Effect, ...], Items(1, 8)]
    financing_net_assets: Money = Field(
        description="Declared net-asset change of its financing flows (a contract component)."
    )
    irreversible_work: Money = Field(
        description="Declared part of its cost that is sunk once started (a contract component)."
    )

    @model_validator(mode="after")
    def _terms(self) -> Action:
        if not 0 <= self.capitalized <= self.upfront_cost:
            raise ValueError(
                f"capitalized {_dollars(self.capitalized)} is more than upfront_cost "
                f"{_dollars(self.upfront_cost)}: allowed $0.00 to the upfront_cost"
            )
        if self.running_cost_per_day and not self.running_days:
            raise ValueError(
                f"running_cost_per_day {_dollars(self.running_cost_per_day)} needs running_days: "
                f"allowed 1 to {MAX_DAYS:,} days (0 only without a running cost)"
            )
        twice = _repeated([e.kind for e in self.effects])
        if twice is not None:
            raise ValueError(
                f"effects hold kind {twice[0]!r} twice (effects[{twice[1]}] and "
                f"effects[{twice[2]}]): each kind at most once per action"
            )
        return self

    @property
    def effect_names(self) -> tuple[str, ...]:
        """The declared effect set, by kind."""
        return tuple(e.kind for e in self.effects)

    def terms_digest(self) -> str:
        """Digest of every registered term: what the branch verifier compares a branch's
        scheduled action against (any change of any term changes it)."""
        return digest(self.model_dump(mode="json"))

    @property
    def reserved_cash(self) -> int:
        """Cash reserved at scheduling: upfront plus every running day."""
        return self.upfront_cost + self.running_cost_per_day * self.running_days


class ActionCatalog(Strict):
    """actions.toml."""

    actions: Annotated[tuple[Action, ...], Items(1, MAX_LIST)]


# -- metrics.toml --------------------------------------------------------------------------
class MetricTerm(Strict):
    """One signed ledger subtree in a metric."""

    account: Annotated[str, Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9:-]+$")] = (
        Field(description="A ledger account or subtree, e.g. Assets:Cash or Income:Sales.")
    )
    sign: Literal[1, -1] = 1


class Metric(Strict):
    """A registered metric: a signed sum of ledger subtree balances at a day's close."""

    id: Identifier
    title: Title
    units: Literal["USD", "UNITS", "EVENTS"]
    terms: Annotated[tuple[MetricTerm, ...], Items(1, MAX_METRIC_TERMS)]


Threshold = Annotated[str, DecimalBounds("-1000000000000000", "1000000000000000")]


class Requirement(Strict):
    """One condition of a task on a metric at a day (the horizon when omitted)."""

    metric: Identifier
    at_least: Threshold | None = None
    at_most: Threshold | None = None
    on_day: Day | None = Field(default=None, description="Day checked (the horizon when omitted).")

    @model_validator(mode="after")
    def _bound(self) -> Requirement:
        if (self.at_least is None) == (self.at_most is None):
            raise ValueError("give exactly one of at_least or at_most")
        return self


class Task(Strict):
    """A factual business objective evaluated from the ledger."""

    id: Identifier
    title: Title
    requirements: Annotated[tuple[Requirement, ...], Items(1, MAX_SMALL_LIST)]


class MetricsFile(Strict):
    """metrics.toml: registered metrics and tasks."""

    metrics: Annotated[tuple[Metric, ...], Items(1, 64)]
    tasks: Annotated[tuple[Task, ...], Items(0, 64)] = ()


# -- questions.toml ------------------------------------------------------------------------
class Choice(Strict):
    """A named choice: a fixed set of actions, or a participant pick from an allowed set."""

    name: Title
    actions: Annotated[tuple[Identifier, ...], Items(0, MAX_LIST)] = ()
    select_from: Annotated[tuple[Identifier, ...], Items(0, MAX_LIST)] = ()

    @model_validator(mode="after")
    def _form(self) -> Choice:
        if self.actions and self.select_from:
            raise ValueError("a choice has either actions or select_from, not both")
        for field in ("actions", "select_from"):
            twice = _repeated(list(getattr(self, field)))
            if twice is not None:
                raise ValueError(
                    f"{field} lists {twice[0]!r} twice ({field}[{twice[1]}] and "
                    f"{field}[{twice[2]}]): list each action once"
                )
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


Scale = Annotated[str, DecimalBounds("0", "1000000000000", "metric units", positive=True)]


class Question(Strict):
    """A counterfactual question (DESIGN §8)."""

    id: Identifier
    title: Title
    metric: Identifier
    scale: Scale = Field(
        description="Loss scale in the metric's display units: an error of one scale costs 1."
    )
    intervene_on_day: QuestionDay = Field(
        description="Branch point: after this day closes (never before deadline_day, so day 1 "
        "or later)."
    )
    deadline_day: QuestionDay = Field(
        description="Submissions count when made on a day before this one (day 0 is the first)."
    )
    outcome_day: QuestionDay = Field(
        description="Day whose close gives the outcome (after intervene_on_day)."
    )
    baseline: Choice
    intervention: Choice
    conclusion: Conclusion | None = None
    expect_intervention: Literal["executes", "rejected"] = Field(
        default="executes",
        description="What `workbench check` expects of the intervention: `rejected` marks a "
        "question whose intervention is refused by design (the evaluator scores what trying "
        "does: the refused action changes nothing).",
    )

    @model_validator(mode="after")
    def _timing(self) -> Question:
        if self.deadline_day > self.intervene_on_day:
            other = (
                f", or deadline_day 1 to {self.intervene_on_day}"
                if self.intervene_on_day >= 1
                else ""
            )
            raise ValueError(
                f"intervene_on_day {self.intervene_on_day} is before deadline_day "
                f"{self.deadline_day}: allowed intervene_on_day {self.deadline_day} or later "
                f"(never before deadline_day, so never before day 1){other}"
            )
        if self.outcome_day <= self.intervene_on_day:
            raise ValueError(
                f"outcome_day {self.outcome_day} is not after intervene_on_day "
                f"{self.intervene_on_day}: allowed outcome_day {self.intervene_on_day + 1} "
                "or later (up to the horizon)"
            )
        if self.baseline.participant_selected:
            raise ValueError("only the intervention can be participant-selected")
        return self


class QuestionsFile(Strict):
    """questions.toml."""

    questions: Annotated[tuple[Question, ...], Items(0, MAX_LIST)] = ()


# -- the field reference (docs/authoring.md and the tests read the rules from here) --------
FILE_MODELS: dict[str, type[Strict]] = {
    "campaign.toml": Campaign,
    "actions.toml": ActionCatalog,
    "metrics.toml": MetricsFile,
    "questions.toml": QuestionsFile,
}
"""The model of each campaign file."""

Rule = Bounds | MoneyBounds | DecimalBounds | TextRule


@dataclass(frozen=True)
class FieldRule:
    """One field of a campaign file: where it sits, what it holds and what is allowed."""

    path: str
    kind: str
    allowed: str
    default: str
    description: str
    rule: Rule | None = None


def _unwrap(annotation: Any) -> tuple[Any, list[Any], bool]:
    """(bare type, metadata, optional) of an annotation."""
    metadata: list[Any] = []
    optional = False
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation, *extra = get_args(annotation)
            metadata += extra
        elif origin in (Union, UnionType) and type(None) in get_args(annotation):
            members = [a for a in get_args(annotation) if a is not type(None)]
            optional = True
            if len(members) != 1:
                return Union[tuple(members)], metadata, optional  # noqa: UP007
            annotation = members[0]
        else:
            return annotation, metadata, optional


def _constraint(metadata: list[Any], name: str) -> Any:
    """A pydantic constraint (`pattern`, `max_length`) from annotation metadata, if any."""
    for item in metadata:
        for inner in [item, *(getattr(item, "metadata", None) or [])]:
            value = getattr(inner, name, None)
            if value is not None:
                return value
    return None


def _pattern(metadata: list[Any]) -> str | None:
    pattern = _constraint(metadata, "pattern")
    return None if pattern is None else str(pattern)


def _leaf(annotation: Any, metadata: list[Any]) -> tuple[str, str, Rule | None]:
    """(kind, allowed, rule) of a scalar annotation."""
    for item in metadata:
        if isinstance(item, Bounds | MoneyBounds | DecimalBounds | TextRule):
            return item.kind(), item.describe(), item
    if get_origin(annotation) is Literal:
        choices = " or ".join(
            f"`{v}`" if isinstance(v, str) else str(v) for v in get_args(annotation)
        )
        return "choice", choices, None
    if annotation is dt.date:
        return "date", "a date such as 2027-03-01", None
    pattern = _pattern(metadata)
    if annotation is str and pattern:
        longest = _constraint(metadata, "max_length")
        return "id", f"matches `{pattern}`, at most {longest} characters", None
    return getattr(annotation, "__name__", str(annotation)), "", None


def _default(info: Any) -> str:
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if isinstance(value, BaseModel):
        return "(empty table)"
    if value in ((), {}, ""):
        return "empty"
    if value is None:
        return "none"
    if isinstance(value, int) and not isinstance(value, bool):
        money = [m for m in info.metadata if isinstance(m, MoneyBounds)]
        annotation_meta = _unwrap(info.annotation)[1]
        if money or any(isinstance(m, MoneyBounds) for m in annotation_meta):
            return f'"{value // 100}.{value % 100:02d}"'
    return f"`{value}`" if isinstance(value, str) else str(value)


def field_rules(model: type[BaseModel], prefix: str = "") -> list[FieldRule]:
    """Every field of `model` (recursively), in declaration order, with its rule."""
    rules: list[FieldRule] = []
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        annotation, metadata, _ = _unwrap(info.annotation)
        metadata = [*info.metadata, *metadata]
        description = " ".join((info.description or "").split())
        origin = get_origin(annotation)
        if origin is tuple:
            args = get_args(annotation)
            count = next((m for m in metadata if isinstance(m, Items)), None)
            element = args[0]
            inner, inner_meta, _ = _unwrap(element)
            fixed = len(args) != 2 or args[1] is not Ellipsis
            size = f"exactly {len(args)} entries" if fixed else (count.describe() if count else "")
            models = _models(inner)
            if models:
                rules.append(
                    FieldRule(path, "list of tables", size, _default(info), description, None)
                )
                for member in models:
                    tag = _tag(member)
                    head = f"{path}[]" + (f" (kind = `{tag}`)" if tag and len(models) > 1 else "")
                    rules += field_rules(member, head + ".")
                continue
            kind, allowed, rule = _leaf(inner, inner_meta)
            allowed = f"{size}; each {allowed}" if allowed else size
            rules.append(
                FieldRule(path, f"list of {kind}", allowed, _default(info), description, rule)
            )
            continue
        if origin is dict:
            key, value = get_args(annotation)
            _, key_meta, _ = _unwrap(key)
            value_type, value_meta, _ = _unwrap(value)
            kind, allowed, rule = _leaf(value_type, value_meta)
            pattern = _pattern(key_meta)
            allowed = f"keys match `{pattern}`; each {allowed}" if pattern else allowed
            rules.append(
                FieldRule(path, f"table of {kind}", allowed, _default(info), description, rule)
            )
            continue
        models = _models(annotation)
        if models:
            rules.append(FieldRule(path, "table", "", _default(info), description, None))
            for member in models:
                rules += field_rules(member, f"{path}.")
            continue
        kind, allowed, rule = _leaf(annotation, metadata)
        rules.append(FieldRule(path, kind, allowed, _default(info), description, rule))
    rules.sort(key=lambda r: r.path != f"{prefix}kind")
    return rules


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (one, or each member of a union)."""
    bare, _, _ = _unwrap(annotation)
    members = get_args(bare) if get_origin(bare) in (Union, UnionType) else (bare,)
    return [m for m in members if isinstance(m, type) and issubclass(m, BaseModel)]


def _tag(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("kind")
    return str(field.default) if field is not None and isinstance(field.default, str) else None
