"""A question whose intervention is rejected by design (`expect_intervention = "rejected"`)
is admitted only if the rejection holds on the other seeds too: before, `check --strict`
looked at the campaign's seed alone, and admitted a designed rejection that executes on
most other seeds (so on a private seed its answer is an effect, not the designed 0)."""

from __future__ import annotations

import shutil
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from workbench.authoring.check import check_campaign

CUSHIONED = """
[[actions]]
id = "spring_campaign_lean"
title = "Run a four-week marketing campaign, keeping a cash cushion"
upfront_cost = "600.00"
running_cost_per_day = "150.00"
running_days = 28
staffing = [{ role = "sales", count = 1, days = 7 }]
prerequisites = { min_cash_after = "%s" }
delay_days = 2
effects = [{ kind = "marketing", reach_per_day = 45.0, days = 28 }]
financing_net_assets = "0.00"
irreversible_work = "4800.00"
"""
"""The spring campaign with a cash cushion: on day 30 the default campaign's seed has
$7,494 free, so a $2,800 cushion refuses it there but not on most other seeds, and a
$20,000 cushion refuses it on every seed."""


def _campaign(tmp_path: Path, cushion: str) -> Path:
    folder = tmp_path / "campaign"
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    with (folder / "actions.toml").open("a") as actions:
        actions.write(CUSHIONED % cushion)
    questions = folder / "questions.toml"
    old = 'intervention = { name = "Run the spring campaign", actions = ["spring_campaign"] }'
    text = questions.read_text()
    assert old in text
    questions.write_text(
        text.replace(
            old,
            'intervention = { name = "Try the campaign", actions = ["spring_campaign_lean"] }\n'
            'expect_intervention = "rejected"',
            1,
        )
    )
    return folder


def test_a_rejection_on_this_seed_only_fails_the_strict_gate(tmp_path: Path) -> None:
    report = check_campaign(_campaign(tmp_path, "2800.00"), strict=True)
    mine = [f for f in report.findings if f.question == "q_spring_campaign"]
    assert any(f.message.startswith("rejected as designed") for f in mine)
    warned = [f for f in mine if f.severity == "warning" and f.kind == "spread"]
    assert len(warned) == 1 and "executes on" in warned[0].message
    assert report.ok and not report.passes(strict=True)


def test_a_rejection_on_every_seed_passes(tmp_path: Path) -> None:
    report = check_campaign(_campaign(tmp_path, "20000.00"), strict=True)
    mine = [f for f in report.findings if f.question == "q_spring_campaign"]
    assert any(f.message.startswith("rejected as designed") for f in mine)
    assert not [f for f in mine if f.kind == "spread"]
    assert report.passes(strict=True)
