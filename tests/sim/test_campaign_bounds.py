"""Campaign bounds: every refused value gets one line naming file, field and allowed range;
every accepted campaign plays to its horizon without an exception (hypothesis)."""

from __future__ import annotations

import copy
import re
import shutil
import tomllib
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_checks import LEDGER_LIMIT, money_magnitudes
from sim.campaign_load import DIGESTED_FILES, CampaignError, load_campaign
from sim.campaign_model import (
    FILE_MODELS,
    Bounds,
    DecimalBounds,
    MoneyBounds,
    Shock,
    TextRule,
    field_rules,
)
from sim.engine import Engine
from tests.toml_text import dumps
from workbench.cli import main
from workbench.play.session import PlayerSession

FILES = ("campaign.toml", "actions.toml", "metrics.toml", "questions.toml")
DEFAULT_DATA = {name: tomllib.loads((DEFAULT_CAMPAIGN / name).read_text()) for name in FILES}


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


ISSUE_VALUES = [
    (
        "campaign.toml",
        "base_per_day = 178.0",
        "base_per_day = 1" + "0" * 400,
        "demand.base_per_day",
        "10,000,000",
    ),
    ("campaign.toml", "elasticity = 1.7", "elasticity = -1" + "0" * 400, "demand.elasticity", "to"),
    ("campaign.toml", "elasticity = 1.7", "elasticity = 1" + "0" * 5000, "", "too many digits"),
    ("campaign.toml", 'price = "14.00"', 'price = "0"', "company.price", "$0.01"),
    ("campaign.toml", 'price = "14.00"', 'price = "-1.00"', "company.price", "$0.01"),
    (
        "campaign.toml",
        'reference_price = "14.00"',
        'reference_price = "0"',
        "demand.reference_price",
        "$0.01",
    ),
    (
        "campaign.toml",
        "base_per_day = 178.0",
        "base_per_day = 1e308",
        "demand.base_per_day",
        "10,000,000",
    ),
    ("campaign.toml", "weekly = [0.85", "weekly = [nan", "demand.weekly[0]", "0 to 10"),
    ("campaign.toml", "weekly = [0.85", "weekly = [inf", "demand.weekly[0]", "0 to 10"),
    ("campaign.toml", "weekly = [0.85", "weekly = [-0.85", "demand.weekly[0]", "0 to 10"),
    (
        "campaign.toml",
        'opening_cash = "14000.00"',
        'opening_cash = "1e308"',
        "company.opening_cash",
        "$1,000,000,000,000.00",
    ),
    (
        "campaign.toml",
        'opening_cash = "14000.00"',
        'opening_cash = "-14000.00"',
        "company.opening_cash",
        "$0.00 to",
    ),
    (
        "campaign.toml",
        "opening_finished_units = 260",
        "opening_finished_units = 9223372036854775807",
        "company.opening_finished_units",
        "0 to 1,000,000,000 units",
    ),
    (
        "campaign.toml",
        'start_date = "2027-03-01"',
        'start_date = "9999-12-31"',
        "start_date",
        "up to",
    ),
    (
        "campaign.toml",
        'wage_per_day = "210.00"',
        'wage_per_day = "-210.00"',
        "company.roles[0].wage_per_day",
        "$0.00 to",
    ),
    ("campaign.toml", 'rent_per_day = "340.00"', 'rent_per_day = "-1"', "rent_per_day", "$0.00"),
    (
        "campaign.toml",
        'unit_cost = "6.80"\nlead',
        'unit_cost = "-6.80"\nlead',
        "suppliers[0].unit_cost",
        "$0.01",
    ),
    (
        "campaign.toml",
        'title = "Harbor Roasters: a season',
        'title = "Harbor \\u001b[2J Roasters: a season',
        "title",
        "U+001B",
    ),
    (
        "campaign.toml",
        'title = "Sales and café accounts"',
        'title = "Sales\\u202eand café accounts"',
        "company.roles[1].title",
        "U+202E",
    ),
    ("campaign.toml", 'id = "port_strike"', 'id = "road_closure"', "shocks[1].id", "duplicate"),
    ("campaign.toml", 'id = "sales"', 'id = "roaster"', "company.roles[1].id", "duplicate"),
    ("campaign.toml", "horizon_days = 180", "horizon_days = 36501", "horizon_days", "36,500"),
    (
        "actions.toml",
        "units_per_day = 160",
        "units_per_day = -100000",
        "actions[2].effects[0].units_per_day",
        "0 to 1,000,000,000",
    ),
    (
        "actions.toml",
        'principal = "25000.00"',
        'principal = "-25000.00"',
        "actions[3].effects[0].principal",
        "$0.01",
    ),
    ("actions.toml", 'id = "lower_price"', 'id = "raise_price"', "actions[7].id", "duplicate"),
    (
        "actions.toml",
        'title = "Hire a third roaster"',
        'title = "Hire\\u0007 a third roaster"',
        "actions[0].title",
        "U+0007",
    ),
    ("metrics.toml", 'id = "gross_profit"', 'id = "cash"', "metrics[3].id", "duplicate"),
    (
        "metrics.toml",
        'at_least = "105000.00"',
        'at_least = "lots"',
        "requirements[0].at_least",
        "decimal",
    ),
    ("questions.toml", 'scale = "2000"', 'scale = "1e-999999"', "questions[0].scale", "above 0"),
    ("questions.toml", 'scale = "2000"', 'scale = "0"', "questions[0].scale", "above 0"),
    ("questions.toml", "deadline_day = 30\n", "deadline_day = 0\n", "deadline_day", "1 to"),
    (
        "questions.toml",
        'id = "q_bank_loan"',
        'id = "q_spring_campaign"',
        "questions[2].id",
        "duplicate",
    ),
]


@pytest.mark.parametrize(
    ("file", "old", "new", "field", "allowed"),
    ISSUE_VALUES,
    ids=[f"{i}-{v[3] or v[0]}" for i, v in enumerate(ISSUE_VALUES)],
)
def test_issue_values_are_refused_with_one_line_each(
    campaign_copy: Path, file: str, old: str, new: str, field: str, allowed: str
) -> None:
    _edit(campaign_copy / file, old, new)
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    lines = [str(p) for p in info.value.problems]
    assert all("\n" not in line and "\x1b" not in line for line in lines)
    assert any(line.startswith(file) and field in line and allowed in line for line in lines), lines
    result = CliRunner().invoke(
        main, ["run", str(campaign_copy), "--out", str(campaign_copy / "r")]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert not (campaign_copy / "r").exists()


def test_a_cut_of_demand_below_zero_is_refused(campaign_copy: Path) -> None:
    _edit(
        campaign_copy / "actions.toml",
        'effects = [{ kind = "demand", lift_bp = 600 }]',
        'effects = [{ kind = "demand", lift_bp = -5000 }]',
    )
    _edit(
        campaign_copy / "actions.toml",
        '{ kind = "demand", lift_bp = 700 }',
        '{ kind = "demand", lift_bp = -4000 }',
    )
    _edit(
        campaign_copy / "actions.toml",
        'effects = [{ kind = "supplier", supplier = "highland" }]',
        'effects = [{ kind = "demand", lift_bp = -1001 }]',
    )
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    assert "-10,000" in str(info.value)


def test_money_over_the_horizon_is_bounded(campaign_copy: Path) -> None:
    _edit(campaign_copy / "campaign.toml", 'price = "14.00"', 'price = "1000000.00"')
    _edit(campaign_copy / "campaign.toml", "reorder_quantity = 1800", "reorder_quantity = 99999999")
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    text = str(info.value)
    assert "above the limit" in text and "sales" in text and "\n" not in text


def test_schema_directive_is_not_part_of_the_digest(campaign_copy: Path) -> None:
    before = load_campaign(campaign_copy).digest
    path = campaign_copy / "campaign.toml"
    directive, _, body = path.read_text().partition("\n")
    assert directive == "#:schema ../schema/campaign.json"
    path.write_text(body)
    assert load_campaign(campaign_copy).digest == before
    path.write_text("#:schema /elsewhere/campaign.json\n" + body)
    assert load_campaign(campaign_copy).digest == before
    path.write_text("# another comment\n" + body)
    assert load_campaign(campaign_copy).digest != before


def test_an_oversized_file_is_refused(campaign_copy: Path) -> None:
    path = campaign_copy / "actions.toml"
    path.write_text(path.read_text() + "#" * (1024 * 1024))
    with pytest.raises(CampaignError, match="larger than the limit"):
        load_campaign(campaign_copy)


# -- the class: hypothesis over every field of every file -----------------------------------
def _generic(path: str) -> str:
    return re.sub(r"\[\d+\]", "[]", path)


RULES = {
    name: {rule.path: rule for rule in field_rules(model)} for name, model in FILE_MODELS.items()
}


def _rule_for(file: str, path: list[Any]) -> Any:
    """The field rule of a concrete path in the default data (`effects[2].principal`)."""
    text = ""
    node: Any = DEFAULT_DATA[file]
    for part in path:
        if isinstance(part, int):
            text += "[]"
        else:
            kind = node.get("kind")
            if kind is not None and text.endswith("effects[]"):
                text += f" (kind = `{kind}`)"
            text += f".{part}" if text else part
        node = node[part]
    found = RULES[file].get(text)
    return None if found is None else found.rule


def _leaves(node: Any, path: list[Any]) -> list[list[Any]]:
    if isinstance(node, dict):
        return [p for k, v in node.items() for p in _leaves(v, [*path, k])]
    if isinstance(node, list):
        return [p for i, v in enumerate(node) for p in _leaves(v, [*path, i])]
    return [path]


LEAVES = [(file, leaf) for file in FILES for leaf in _leaves(DEFAULT_DATA[file], [])]
SHORT_HORIZON = 400
"""Played horizons stay short in this test; the magnitude bound scales with the horizon, so a
short campaign near its bound stresses the same arithmetic as a long one near its own."""


def _inside(rule: Any) -> st.SearchStrategy[Any]:
    """Values a rule allows, its two edges drawn often."""
    if isinstance(rule, Bounds):
        if rule.real:
            inside: st.SearchStrategy[Any] = st.floats(
                float(rule.low), float(rule.high), allow_nan=False
            )
        else:
            inside = st.integers(int(rule.low), int(rule.high))
        return st.one_of(st.sampled_from([rule.low, rule.high]), inside)
    if isinstance(rule, MoneyBounds):
        cents = st.one_of(st.sampled_from([rule.low, rule.high]), st.integers(rule.low, rule.high))
        return cents.map(lambda c: f"{'-' if c < 0 else ''}{abs(c) // 100}.{abs(c) % 100:02d}")
    if isinstance(rule, DecimalBounds):
        low = "0.01" if rule.positive else rule.low
        return st.one_of(
            st.sampled_from([low, rule.high]),
            st.decimals(low, rule.high, places=2, allow_nan=False).map(str),
        )
    assert isinstance(rule, TextRule)
    printable = st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp", "Cf"))
    return st.text(printable, min_size=rule.min_length, max_size=rule.max_length)


def _anything(rule: Any) -> st.SearchStrategy[Any]:
    """Edge, out-of-range and wrongly typed values."""
    junk = st.sampled_from([True, "x", "1e308", 2**63, -(2**63), float("nan"), 1.5, [], {}])
    if isinstance(rule, Bounds):
        edges = [rule.low - 1, rule.high + 1, float("inf"), float("-inf"), 1e308, 2**63 - 1]
        return st.one_of(st.sampled_from(edges), junk)
    if isinstance(rule, MoneyBounds):
        return st.one_of(st.sampled_from([str(rule.low - 1), "1e308", "-0.01", "0.001"]), junk)
    if isinstance(rule, DecimalBounds):
        return st.one_of(st.sampled_from(["0", "1e-999999", "-1", "1" + "0" * 30]), junk)
    if isinstance(rule, TextRule):
        return st.one_of(st.text(max_size=rule.max_length + 2), junk)
    return st.one_of(st.integers(-(2**64), 2**64), st.text(max_size=10), junk)


RULED = [(f, p) for f, p in LEAVES if _rule_for(f, p) is not None]


@st.composite
def mutated_campaigns(draw: st.DrawFn) -> dict[str, dict[str, Any]]:
    """The default campaign with 1 to 8 leaves replaced: in range (edges often) for most
    leaves, and now and then by an out-of-range or wrongly typed value anywhere."""
    data = copy.deepcopy(DEFAULT_DATA)
    hostile = draw(st.integers(0, 3)) == 0
    for _ in range(draw(st.integers(1, 8))):
        file, path = draw(st.sampled_from(LEAVES if hostile else RULED))
        node: Any = data[file]
        try:
            for part in path[:-1]:
                node = node[part]
            node[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        rule = _rule_for(file, path)
        if path == ["horizon_days"]:
            values: st.SearchStrategy[Any] = st.integers(7, SHORT_HORIZON)
        elif rule is None or (hostile and draw(st.booleans())):
            values = _anything(rule)
        else:
            values = _inside(rule)
        node[path[-1]] = draw(values)
    return data


def _write(folder: Path, data: dict[str, dict[str, Any]]) -> None:
    folder.mkdir()
    for name, document in data.items():
        (folder / name).write_text(dumps(document), encoding="utf-8")


def _play_everything(run: Path, folder: Path) -> None:
    session = PlayerSession.create(run, folder, autoseal=False)
    for day in (0, session.horizon // 2):
        if session.day < day:
            session.advance(day - session.day)
        for action in sorted(session.bundle.actions):
            session.schedule(action)
    session.run_to_horizon()
    session.seal()
    session.write_store()
    orjson.dumps(session.view(), default=str)
    assert session.finished


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=mutated_campaigns())
def test_accepted_campaigns_play_and_refused_ones_say_why(
    tmp_path_factory: pytest.TempPathFactory, data: dict[str, dict[str, Any]]
) -> None:
    folder = tmp_path_factory.mktemp("fuzz") / "campaign"
    _write(folder, data)
    try:
        bundle = load_campaign(folder)
    except CampaignError as exc:
        event("refused")
        assert exc.problems
        for problem in exc.problems:
            line = str(problem)
            assert "\n" not in line and problem.file in DIGESTED_FILES and problem.message
            assert not any(ord(c) < 32 for c in line)
        return
    event("accepted")
    _play_everything(folder.parent / "run", folder)
    assert bundle.horizon <= SHORT_HORIZON


def test_a_campaign_at_the_money_limit_plays_to_its_horizon(tmp_path: Path) -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    company = data["campaign.toml"]["company"]
    company["price"] = "1000000.00"
    folder = tmp_path / "edge"
    for quantity in (10**9, 10**8, 10**7, 10**6, 10**5):
        company["reorder_quantity"] = quantity
        company["reorder_point"] = quantity
        shutil.rmtree(folder, ignore_errors=True)
        _write(folder, data)
        try:
            bundle = load_campaign(folder)
        except CampaignError:
            continue
        total = sum(m.value for m in money_magnitudes(bundle.campaign, _catalog(bundle)))
        assert LEDGER_LIMIT // 100 < total <= LEDGER_LIMIT
        _play_everything(tmp_path / "run", folder)
        return
    pytest.fail("no reorder quantity was accepted")


def _catalog(bundle: Any) -> Any:
    from sim.campaign_model import ActionCatalog

    return ActionCatalog(actions=tuple(bundle.actions.values()))


def test_the_longest_horizon_runs_with_every_action(tmp_path: Path) -> None:
    data = copy.deepcopy(DEFAULT_DATA)
    data["campaign.toml"]["horizon_days"] = 36_500
    folder = tmp_path / "long"
    _write(folder, data)
    bundle = load_campaign(folder)
    engine = Engine(bundle, 7)
    for action in sorted(bundle.actions):
        engine.schedule(action)
    engine.run_to(bundle.horizon)
    assert engine.day == 36_500
    assert all(abs(v) < 2**62 for v in engine.book.balances().values())


def test_a_hostile_key_is_escaped_and_cut_in_the_message(campaign_copy: Path) -> None:
    path = campaign_copy / "campaign.toml"
    path.write_text(path.read_text() + '\n"\\u001b[2J' + "k" * 500 + '" = 1\n')
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    (line,) = [str(p) for p in info.value.problems]
    assert "\x1b" not in line and "\\x1b[2J" in line and len(line) < 300
    # the key is cut to 120 characters of path; the message lists the table's own fields
    assert line.endswith(": unknown field: allowed " + ", ".join(sorted(Shock.model_fields)))


@settings(max_examples=300)
@given(
    real=st.booleans(),
    value=st.integers()
    | st.integers(min_value=10**300, max_value=10**400).map(lambda v: v * -1)
    | st.integers(min_value=10**300, max_value=10**400)
    | st.floats(),
)
def test_a_bounded_number_is_in_range_or_one_validation_error(real: bool, value: object) -> None:
    """A number beyond any float (10**400) was converted before its range was checked:
    OverflowError escaped as a traceback. Any int or float is now the value or a
    validation error naming the range."""
    from pydantic_core import PydanticCustomError

    bounds = Bounds(0.5 if real else 1, 1e6, "units", real=real)
    try:
        checked = bounds._check(value)
    except PydanticCustomError as exc:
        assert exc.type in ("number_type", "number_finite", "number_range")
        return
    assert bounds.low <= checked <= bounds.high
    assert type(checked) is (float if real else int)
