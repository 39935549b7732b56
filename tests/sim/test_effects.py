"""The effect registry covers every effect kind, each kind's gauge shows it landing, and the
sim core's pieces take only what they need (no engine in operations, clone by declaration)."""

from __future__ import annotations

import ast
import typing
from dataclasses import fields
from pathlib import Path

import pytest

import sim
from sim import chart as C
from sim.campaign_model import Effect, MoneyBounds
from sim.effects import EFFECTS, gauge_of, money_fields
from sim.engine import Engine
from sim.state import _CONTAINERS, State

EFFECT_MODELS = typing.get_args(typing.get_args(Effect)[0])
"""Every effect model in the campaign's `Effect` union."""


def _kind(model: type) -> str:
    return model.model_fields["kind"].default


def test_every_effect_kind_has_exactly_one_registry_entry() -> None:
    assert sorted(_kind(m) for m in EFFECT_MODELS) == sorted(EFFECTS)


@pytest.mark.parametrize("model", EFFECT_MODELS, ids=_kind)
def test_money_fields_are_the_fields_held_in_cents(model: type) -> None:
    in_cents = tuple(
        name
        for name, f in model.model_fields.items()
        if any(isinstance(rule, MoneyBounds) for rule in f.metadata)
    )
    assert EFFECTS[_kind(model)].money_fields == in_cents


def test_every_declared_effect_has_a_gauge_in_the_chart(bundle) -> None:
    accounts = C.chart_for(bundle.campaign).units()
    for action in bundle.actions.values():
        for effect in action.effects:
            assert gauge_of(effect) in accounts, (action.id, effect.kind)
            assert set(money_fields(effect)) <= set(type(effect).model_fields)


def test_each_kind_moves_its_gauge_on_its_landing_day(bundle) -> None:
    landed: set[str] = set()
    for action in bundle.actions.values():
        engine = Engine(bundle, 21)
        engine.advance(30)
        baseline = Engine.from_snapshot(engine.snapshot())
        outcome = engine.schedule(action.id)
        if not outcome.accepted:
            continue
        landing = engine.state.commitments[action.id].landing_day
        for effect in action.effects:
            day = landing + effect.extra_delay_days
            engine.run_to(day)
            baseline.run_to(day)
            gauge = gauge_of(effect)
            assert engine.book.balance(gauge, day) != baseline.book.balance(gauge, day), (
                action.id,
                effect.kind,
            )
            assert engine.book.balance(gauge, day - 1) == baseline.book.balance(gauge, day - 1)
            landed.add(effect.kind)
    assert landed == set(EFFECTS)


def test_operations_and_effects_do_not_import_the_engine() -> None:
    package = Path(sim.__file__).parent
    for module in ("operations", "effects", "world", "state", "scheduling"):
        tree = ast.parse((package / f"{module}.py").read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        assert "sim.engine" not in imported, module


def test_clone_copies_every_mutable_field_and_only_those(bundle) -> None:
    engine = Engine(bundle, 2)
    engine.schedule_choice(["bank_loan", "hire_roaster", "spring_campaign"])
    engine.advance(20)
    state = engine.state
    for f in fields(State):
        value = getattr(state, f.name)
        if f.name not in _CONTAINERS:
            assert isinstance(value, int | str | tuple), f.name
    twin = state.clone()
    assert twin == state
    for name in _CONTAINERS:
        assert getattr(twin, name) is not getattr(state, name), name
    assert all(a is not b for a, b in zip(twin.loans, state.loans, strict=True))
    twin.headcount["roaster"] += 5
    twin.loans[0].carry += 1
    twin.history.clear()
    assert state.headcount["roaster"] == twin.headcount["roaster"] - 5
    assert state.loans[0].carry == twin.loans[0].carry - 1 and state.history
