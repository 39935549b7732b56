"""Long horizons: a century-long campaign loads and runs, and the run loop leaves the
garbage collector off its history without leaking, because it makes no reference cycles."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from ledger.collector import collector_paused
from sim.campaign_load import CampaignError, load_campaign
from sim.campaign_model import MAX_HORIZON_DAYS
from sim.engine import Engine
from workbench.runs.commands import Advance


def _with_horizon(campaign: Path, days: int) -> Path:
    toml = campaign / "campaign.toml"
    text, count = re.subn(r"(?m)^horizon_days = \d+$", f"horizon_days = {days}", toml.read_text())
    assert count == 1
    toml.write_text(text)
    return campaign


def test_a_century_long_campaign_loads_and_one_day_more_is_refused(campaign_copy: Path) -> None:
    assert MAX_HORIZON_DAYS == 36_500
    assert load_campaign(_with_horizon(campaign_copy, 36_500)).horizon == 36_500
    with pytest.raises(CampaignError, match="horizon_days"):
        load_campaign(_with_horizon(campaign_copy, 36_501))


def test_one_advance_command_may_span_the_longest_horizon() -> None:
    assert Advance(days=MAX_HORIZON_DAYS).days == MAX_HORIZON_DAYS
    with pytest.raises(ValidationError):
        Advance(days=MAX_HORIZON_DAYS + 1)


def test_an_engine_reaches_a_late_day_of_a_long_horizon(bundle) -> None:
    engine = Engine(bundle.replace_horizon(MAX_HORIZON_DAYS), 4)
    engine.advance(400)
    engine.schedule("bank_loan")
    engine.run_to(800)
    assert engine.day == 800 and not engine.finished
    assert set(engine.book.trial_balance(800).values()) == {0}


def test_runs_branches_and_digests_make_no_reference_cycles(bundle) -> None:
    gc.collect()
    gc.disable()
    try:
        engine = Engine(bundle, 11)
        engine.schedule_choice(["bank_loan", "hire_roaster"])
        engine.advance(60)
        snap = engine.snapshot()
        branch = Engine.from_snapshot(snap)
        branch.schedule_choice(["raise_price", "spring_campaign", "roastery_expansion"])
        branch.run_to(150)
        branch.book.digest()
        engine.run_to(bundle.horizon)
        engine.book.digest()
        del engine, branch, snap
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_the_collector_is_restored_as_it_was() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("a failing run")
    assert gc.isenabled()
