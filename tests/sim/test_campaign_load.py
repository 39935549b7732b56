"""Campaign validation: every problem names its file and field, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_checks import cross_check
from sim.campaign_load import CampaignError, load_campaign
from sim.campaign_model import (
    ActionCatalog,
    Campaign,
    Metric,
    MetricsFile,
    MetricTerm,
    QuestionsFile,
)
from sim.chart import chart_for
from workbench.cli import main


def test_default_campaign_meets_the_brief(bundle) -> None:
    assert bundle.horizon >= 120
    assert len(bundle.actions) >= 8
    assert len(bundle.metrics) >= 3 and len(bundle.tasks) >= 1
    kinds = {e.kind for a in bundle.actions.values() for e in a.effects}
    assert {"hire", "capacity", "loan", "marketing", "price", "supplier"} <= kinds
    assert len(bundle.questions) >= 5


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "expect"),
    [
        ("campaign.toml", "horizon_days = 180\n", "", ("campaign.toml", "horizon_days")),
        (
            "campaign.toml",
            "horizon_days = 180",
            'horizon_days = "long"',
            ("campaign.toml", "horizon_days"),
        ),
        (
            "actions.toml",
            'prerequisites = { not_scheduled = ["lower_price"] }',
            'prerequisites = { completed = ["no_such_action"] }',
            ("actions.toml", "prerequisites.completed", "no_such_action"),
        ),
        (
            "questions.toml",
            "deadline_day = 30\n",
            "deadline_day = 31\n",
            ("questions.toml", "deadline_day"),
        ),
        (
            "questions.toml",
            'actions = ["spring_campaign"] }',
            'actions = ["nope"] }',
            ("questions.toml", "intervention.actions", "nope"),
        ),
    ],
)
def test_malformed_campaign_names_file_and_field(
    campaign_copy: Path, file: str, old: str, new: str, expect: tuple[str, ...]
) -> None:
    _edit(campaign_copy / file, old, new)
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    text = str(info.value)
    for fragment in expect:
        assert fragment in text


def test_prerequisite_cycle_is_named(campaign_copy: Path) -> None:
    actions = campaign_copy / "actions.toml"
    _edit(
        actions,
        'prerequisites = { not_scheduled = ["lower_price"] }',
        'prerequisites = { completed = ["lower_price"] }',
    )
    _edit(
        actions,
        'prerequisites = { not_scheduled = ["raise_price"] }',
        'prerequisites = { completed = ["raise_price"] }',
    )
    with pytest.raises(CampaignError, match="prerequisite cycle"):
        load_campaign(campaign_copy)


def test_cli_reports_bad_campaign_without_traceback(campaign_copy: Path, tmp_path: Path) -> None:
    _edit(campaign_copy / "campaign.toml", "horizon_days = 180", 'horizon_days = "long"')
    result = CliRunner().invoke(main, ["run", str(campaign_copy), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "campaign.toml: horizon_days" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "r").exists()


def test_schema_command_prints_json_schema() -> None:
    result = CliRunner().invoke(main, ["schema", "campaign"])
    assert result.exit_code == 0
    assert '"horizon_days"' in result.output


def test_a_reload_sees_every_edit_and_every_problem_again(campaign_copy: Path) -> None:
    """Parsing is cached by the files' bytes: an edit is seen, a broken file always refused."""
    first = load_campaign(campaign_copy)
    assert load_campaign(campaign_copy) == first
    _edit(campaign_copy / "campaign.toml", "horizon_days = 180", "horizon_days = 170")
    edited = load_campaign(campaign_copy)
    assert edited.horizon == 170 and edited.digest != first.digest
    _edit(campaign_copy / "campaign.toml", "horizon_days = 170", 'horizon_days = "x"')
    for _ in range(2):
        with pytest.raises(CampaignError) as refused:
            load_campaign(campaign_copy)
        assert any(p.file == "campaign.toml" for p in refused.value.problems)
    _edit(campaign_copy / "campaign.toml", 'horizon_days = "x"', "horizon_days = 180")
    assert load_campaign(campaign_copy).digest == first.digest


# -- a metric term must be able to hold its metric's unit -----------------------------------
def _default_models() -> tuple[Campaign, ActionCatalog]:
    bundle = load_campaign(DEFAULT_CAMPAIGN)
    return bundle.campaign, ActionCatalog(actions=tuple(bundle.actions.values()))


CHART_UNITS = chart_for(_default_models()[0]).units()
SUBTREES = sorted(
    {":".join(name.split(":")[:k]) for name in CHART_UNITS for k in range(1, name.count(":") + 2)}
)
"""Every account of the simulator's chart and every subtree above one (`Memo`, `Memo:Units`)."""


@settings(max_examples=150, deadline=None)
@given(
    units=st.sampled_from(["USD", "UNITS", "EVENTS"]),
    accounts=st.lists(st.sampled_from(SUBTREES), min_size=1, max_size=4),
)
def test_a_metric_term_over_accounts_never_in_its_units_is_refused(
    units: str, accounts: list[str]
) -> None:
    """A metric sums each term in its own unit only, so a term whose subtree holds no
    account in that unit read 0 on every day of every run (a task `at_most = "0"` on it was
    always met). Such a term is refused at load, one line per term; every other is kept."""
    campaign, catalog = _default_models()
    terms = tuple(MetricTerm(account=account) for account in accounts)
    metrics = MetricsFile(metrics=(Metric(id="m", title="M", units=units, terms=terms),))
    problems = [p for p in cross_check(campaign, catalog, metrics, QuestionsFile()) if p.path]
    flagged = {p.path: p for p in problems if p.path.startswith("metrics[0].terms")}
    for j, account in enumerate(accounts):
        held = {u for n, u in CHART_UNITS.items() if n == account or n.startswith(account + ":")}
        problem = flagged.get(f"metrics[0].terms[{j}].account")
        assert (problem is not None) == (units not in held), (account, units, held)
        if problem is not None:
            line = str(problem)
            assert line.startswith("metrics.toml: metrics[0].terms[")
            assert repr(account) in line and "'m'" in line and f"not {units}" in line
            assert all(u in line for u in held) and "\n" not in line


@pytest.mark.parametrize(
    ("old", "new", "where", "holds"),
    [
        ('units = "EVENTS"', 'units = "UNITS"', "metrics[5].terms[0].account", "EVENTS"),
        (
            'units = "USD"\nterms = [{ account = "Assets:Cash" }]',
            'units = "UNITS"\nterms = [{ account = "Assets:Cash" }]',
            "metrics[0].terms[0].account",
            "USD",
        ),
        (
            '{ account = "Expenses:COGS", sign = -1 }',
            '{ account = "Memo:Units:Sold", sign = -1 }',
            "metrics[3].terms[1].account",
            "UNITS",
        ),
    ],
)
def test_check_strict_refuses_a_metric_in_the_wrong_units(
    campaign_copy: Path, old: str, new: str, where: str, holds: str
) -> None:
    """The audit's repro: `check --strict` passed a metric that always read 0."""
    _edit(campaign_copy / "metrics.toml", old, new)
    result = CliRunner().invoke(main, ["check", str(campaign_copy), "--strict"])
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if "metrics.toml" in line]
    assert where in line and f"holds {holds}, not" in line
    assert "Traceback" not in result.output
