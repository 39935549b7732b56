"""The author check: each finding kind comes from a deliberately broken campaign; both
bundled campaigns pass the admission gate (`check --strict`)."""

from __future__ import annotations

import functools
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from campaigns import BUNDLED_CAMPAIGNS, CAMPAIGNS_DIR, BundledCampaign
from workbench.authoring.check import (
    FINDING_KINDS,
    CheckReport,
    EffectSpread,
    Finding,
    _Findings,
    _Pair,
    _spread_findings,
    check_campaign,
)
from workbench.authoring.seeds import STRICT_SEEDS
from workbench.cli import main
from workbench.evaluation.branches import BranchRun


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CAMPAIGNS_DIR / name, target)
    return target


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _found(report: CheckReport, kind: str, severity: str, question: str) -> list[Finding]:
    return [
        f
        for f in report.findings
        if f.kind == kind and f.severity == severity and f.question == question
    ]


@pytest.mark.parametrize("bundled", BUNDLED_CAMPAIGNS, ids=lambda b: b.name)
def test_bundled_campaigns_pass_the_strict_gate(bundled) -> None:
    result = CliRunner().invoke(main, ["check", bundled.name, "--strict", "--json"])
    assert result.exit_code == 0, result.output[-3000:]
    document = json.loads(result.stdout)
    assert document["passed"] and document["strict"] and document["seeds"] == 10
    kinds = {f["kind"] for f in document["findings"]}
    assert {"deadline", "branch", "difference", "effect", "spread", "scale"} <= kinds


@pytest.mark.parametrize("bundled", BUNDLED_CAMPAIGNS, ids=lambda b: b.name)
def test_bundled_campaigns_pass_far_beyond_the_gates_seeds(bundled: BundledCampaign) -> None:
    """Ten other seeds are the gate; a bundled question that passes only on those (gelato's
    summer pick offered a freezer whose effect was -$6,500 on 57% of seeds and $0 on 35%:
    noise, which 100 seeds showed) is a fragile question, not a passing one."""
    report = check_campaign(bundled.name, seeds=60)
    assert report.passes(strict=True), [str(f) for f in report.findings if f.severity != "info"]


RENAME_SEEDS = 3
"""Other seeds of the renaming property: a few show whether they follow the id."""
CAMPAIGN_IDS = st.from_regex(r"\A[a-z0-9][a-z0-9_-]{0,63}\Z")
"""Every id a campaign may have (the model's pattern and length)."""


@functools.cache
def _bundled_report(name: str) -> CheckReport:
    """A bundled campaign's check on RENAME_SEEDS other seeds, run once per test process."""
    return check_campaign(name, seeds=RENAME_SEEDS)


@pytest.mark.parametrize("bundled", BUNDLED_CAMPAIGNS, ids=lambda b: b.name)
@settings(max_examples=5, deadline=None)
@given(campaign_id=CAMPAIGN_IDS)
def test_renaming_a_campaign_changes_none_of_its_findings(
    bundled: BundledCampaign, campaign_id: str
) -> None:
    """The id is a name: the other seeds, and so every finding and spread, do not follow it."""
    original = _bundled_report(bundled.name)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "renamed"
        shutil.copytree(bundled.path, folder)
        campaign = folder / "campaign.toml"
        text, renamed = re.subn(
            r'^id = "[^"]*"$', f'id = "{campaign_id}"', campaign.read_text(), count=1, flags=re.M
        )
        assert renamed == 1
        campaign.write_text(text)
        report = check_campaign(folder, seeds=RENAME_SEEDS)
    assert report.campaign == campaign_id
    assert report.findings == original.findings
    assert report.spreads == original.spreads


def test_the_second_campaign_exercises_every_question_feature() -> None:
    from sim.campaign_load import load_campaign

    bundle = load_campaign(CAMPAIGNS_DIR / "gelato")
    questions = list(bundle.questions.values())
    assert bundle.horizon >= 365 - 1 and len(questions) >= 8
    conclusions = {(q.conclusion.kind, q.conclusion.component) for q in questions if q.conclusion}
    assert {
        ("contract_component", "financing_net_assets"),
        ("contract_component", "irreversible_work"),
        ("supported_effects", None),
    } <= conclusions
    assert any(q.intervention.participant_selected for q in questions)
    assert any(q.baseline.actions for q in questions)
    assert any(len(q.intervention.actions) > 1 for q in questions)
    assert any(q.deadline_day < q.intervene_on_day for q in questions)
    assert [q.id for q in questions if q.expect_intervention == "rejected"] == ["q_kiosk_on_day_3"]
    assert {m.units for m in bundle.metrics.values()} == {"USD", "UNITS", "EVENTS"}
    kinds = {e.kind for a in bundle.actions.values() for e in a.effects}
    assert len(kinds) == 8


def test_a_designed_rejection_is_reported_as_designed() -> None:
    report = check_campaign("gelato")
    (finding,) = [
        f
        for f in report.findings
        if f.question == "q_kiosk_on_day_3" and f.kind == "branch" and f.branch == "intervention"
    ]
    assert finding.severity == "info" and "rejected as designed" in finding.message


def test_no_question_is_a_campaign_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    (folder / "questions.toml").write_text("")
    report = check_campaign(folder)
    assert [f.kind for f in report.findings] == ["campaign"] and not report.ok


def test_a_failed_precondition_is_a_branch_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(
        folder / "actions.toml",
        'prerequisites = { min_cash_after = "2000.00" }',
        'prerequisites = { min_cash_after = "900000.00" }',
    )
    report = check_campaign(folder)
    (finding,) = _found(report, "branch", "error", "q_second_roaster")
    assert "insufficient cash" in finding.message


def test_a_designed_rejection_that_executes_is_a_branch_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(
        folder / "questions.toml",
        'actions = ["bank_loan"] }',
        'actions = ["bank_loan"] }\nexpect_intervention = "rejected"',
    )
    report = check_campaign(folder)
    (finding,) = _found(report, "branch", "error", "q_bank_loan")
    assert "expects this intervention to be rejected" in finding.message


def test_identical_ledgers_are_a_difference_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(folder / "actions.toml", 'upfront_cost = "150.00"', 'upfront_cost = "0.00"')
    _edit(folder / "actions.toml", 'irreversible_work = "150.00"', 'irreversible_work = "0.00"')
    with (folder / "questions.toml").open("a") as handle:
        handle.write(
            '\n[[questions]]\nid = "q_too_soon"\ntitle = "Price rise, judged the next day"\n'
            'metric = "cumulative_revenue"\nscale = "100"\nintervene_on_day = 50\n'
            "deadline_day = 50\noutcome_day = 52\n"
            'baseline = { name = "Same", actions = [] }\n'
            'intervention = { name = "Raise", actions = ["raise_price"] }\n'
        )
    report = check_campaign(folder)
    (finding,) = _found(report, "difference", "error", "q_too_soon")
    assert "identical ledgers" in finding.message


def _still_metric_campaign(tmp_path: Path) -> Path:
    """A copy of the default campaign whose first question is judged on a metric that
    never moves (the units on hand on day 0)."""
    folder = _copy(tmp_path, "default")
    with (folder / "metrics.toml").open("a") as handle:
        handle.write(
            '\n[[metrics]]\nid = "opening_stock"\ntitle = "Units on hand on day 0"\n'
            'units = "UNITS"\nterms = [{ account = "Memo:Units:Opening", sign = -1 }]\n'
        )
    _edit(
        folder / "questions.toml",
        'metric = "net_assets"\nscale = "500"',
        'metric = "opening_stock"\nscale = "1"',
    )
    return folder


def test_a_metric_that_does_not_move_is_a_difference_warning(tmp_path: Path) -> None:
    folder = _still_metric_campaign(tmp_path)
    report = check_campaign(folder, seeds=2)
    assert _found(report, "difference", "warning", "q_bank_loan")
    assert _found(report, "scale", "warning", "q_bank_loan")
    assert report.ok and not report.passes(strict=True)


def test_a_scale_far_from_a_typical_error_is_a_scale_warning(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(folder / "questions.toml", 'scale = "2000"', 'scale = "1"')
    report = check_campaign(folder, seeds=2)
    (finding,) = _found(report, "scale", "warning", "q_spring_campaign")
    assert "a scale near" in finding.message
    result = CliRunner().invoke(main, ["check", str(folder), "--strict"])
    assert result.exit_code == 1
    assert CliRunner().invoke(main, ["check", str(folder), "--seeds", "2"]).exit_code == 0


def test_an_effect_that_is_mostly_noise_is_a_spread_warning(tmp_path: Path) -> None:
    """The winter social campaign judged on cash two weeks after launch, not five: its
    costs and its first extra sales about cancel, so the weather decides the sign (over
    100 seeds the effect's standard deviation is more than 100 times its mean)."""
    folder = _copy(tmp_path, "gelato")
    _edit(folder / "questions.toml", "outcome_day = 70\n", "outcome_day = 50\n")
    report = check_campaign(folder, seeds=10)
    (finding,) = _found(report, "spread", "warning", "q_winter_campaign")
    assert "measures noise" in finding.message and finding.branch == "intervention"
    assert report.ok and not report.passes(strict=True)


def test_a_wrong_declared_component_is_a_conclusion_error(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(folder / "actions.toml", 'irreversible_work = "5000.00"', 'irreversible_work = "4000.00"')
    report = check_campaign(folder)
    (finding,) = _found(report, "conclusion", "error", "q_second_roaster")
    assert "declared $4,000.00" in finding.message
    assert "ledger shows $5,000.00" in finding.message


def test_a_deadline_with_no_eligible_day_is_refused_with_exit_2(tmp_path: Path) -> None:
    folder = _copy(tmp_path, "default")
    _edit(folder / "questions.toml", "deadline_day = 30\n", "deadline_day = 0\n")
    result = CliRunner().invoke(main, ["check", str(folder), "--strict"])
    assert result.exit_code == 2
    assert "questions[0].deadline_day: 0 is out of range: allowed 1 to" in result.output
    report = check_campaign("default")
    windows = [f for f in report.findings if f.kind == "deadline"]
    assert len(windows) == 6 and "days 0 to 29 (30 days)" in windows[0].message


def test_every_finding_kind_is_documented_and_typed() -> None:
    text = (CAMPAIGNS_DIR.parent / "docs" / "authoring.md").read_text()
    for kind in FINDING_KINDS:
        assert f"`{kind}`" in text
    with pytest.raises(ValidationError):
        Finding(kind="nope", severity="info", question="q", branch="-", message="m", where="w")


def test_seeds_are_bounded() -> None:
    result = CliRunner().invoke(main, ["check", "--seeds", "1001"])
    assert result.exit_code == 2 and "1001" in result.output


@pytest.mark.parametrize(
    ("reasons", "example"),
    [
        (["cash short", "cash short", "no slot"], "e.g. cash short (and 1 more)"),
        (["no slot"], "e.g. no slot"),
        ([None, None], "e.g. unknown"),
    ],
)
def test_a_spread_finding_names_one_failure_and_counts_the_others(
    reasons: list[str | None], example: str
) -> None:
    """Branches that fail on other seeds: the first distinct reason, and how many more."""

    def branch(reason: str | None) -> BranchRun:
        return BranchRun("intervention", "Act", ("a",), "ep", "rejected", reason=reason)

    others = [_Pair(branch(None), branch(reason)) for reason in reasons]
    spread = EffectSpread(
        question="q",
        branch="Act",
        units="USD",
        scale="1",
        effect=None,
        seeds=len(others),
        executed=0,
        mean=None,
        stdev=None,
        low=None,
        high=None,
    )
    found = _Findings("q", "questions.toml", [])
    _spread_findings(found, "Act", spread, None, others)
    (finding,) = found.items
    assert finding.kind == "spread" and finding.severity == "warning"
    assert finding.message.endswith(example)
    assert f"on {len(others)} of {len(others)} other seeds" in finding.message


@settings(max_examples=12, deadline=None)
@given(seeds=st.integers(0, STRICT_SEEDS - 1))
def test_the_strict_gate_refuses_fewer_seeds_than_it_is_defined_on(seeds: int) -> None:
    """`check --strict --seeds 0` skipped every spread check and passed: the admission gate
    could be weakened by a flag. Fewer than `STRICT_SEEDS` other seeds are refused with
    one line (exit 2) before anything runs; a report on fewer never passes the gate."""
    result = CliRunner().invoke(main, ["check", "default", "--strict", "--seeds", str(seeds)])
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert f"seeds {seeds} is too few for the strict gate" in line
    assert f"{STRICT_SEEDS} to 1000" in line and "(--seeds)" in line
    report = check_campaign("default", seeds=seeds)
    assert report.ok and not report.passes(strict=True)
    assert report.passes(strict=False)


def test_spread_messages_are_true_with_no_other_seed(tmp_path: Path) -> None:
    """With no other seed the spread is unknown and a zero effect was measured on one seed:
    the messages said "the effect is zero on every seed" over none."""
    folder = _still_metric_campaign(tmp_path)
    alone = check_campaign(folder, seeds=0)
    (scale,) = _found(alone, "scale", "warning", "q_bank_loan")
    assert "every seed" not in scale.message
    assert "the effect is 0 on this seed, the only one run" in scale.message
    assert "from this seed alone" in scale.message
    (spread,) = _found(alone, "spread", "info", "q_bank_loan")
    assert "no other seed was run" in spread.message
    several = check_campaign(folder, seeds=2)
    (scale,) = _found(several, "scale", "warning", "q_bank_loan")
    assert "the effect is 0 on every one of the 3 seeds run" in scale.message
