"""The day engine: balance every day, common random numbers, branching, scheduling rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import book as book_module
from sim import operations
from sim.engine import Engine


def test_every_day_of_a_full_run_balances(bundle) -> None:
    engine = Engine(bundle, bundle.campaign.development_seed)
    engine.schedule("bank_loan")
    for day in range(bundle.horizon):
        if day == 30:
            engine.schedule("spring_campaign")
        engine.advance(1)
        assert 0 <= engine.state.reserved_cash <= engine.book.balance("Assets:Cash")
        assert engine.book.balance("Memo:Units:Raw") == engine.state.raw_units
        assert engine.book.balance("Memo:Units:Finished") == engine.state.finished_units
    for day in range(bundle.horizon + 1):
        assert set(engine.book.trial_balance(day).values()) == {0}


def test_same_choice_from_one_branch_point_gives_zero_difference(bundle) -> None:
    engine = Engine(bundle, 77)
    engine.advance(40)
    snap = engine.snapshot()
    runs = []
    for _ in range(2):
        branch = Engine.from_snapshot(snap)
        branch.schedule_choice(["spring_campaign", "raise_price"])
        branch.run_to(100)
        runs.append(branch)
    for metric in bundle.metrics:
        assert runs[0].metric(metric) == runs[1].metric(metric)
    assert runs[0].book.digest() == runs[1].book.digest()


def test_branching_never_replays_from_day_zero(bundle, monkeypatch) -> None:
    engine = Engine(bundle, 5)
    engine.advance(150)
    snap = engine.snapshot()
    days_run: list[int] = []
    original = operations.run_operations
    monkeypatch.setattr(
        "sim.engine.run_operations",
        lambda world, state, book, day: days_run.append(day) or original(world, state, book, day),
    )
    branch = Engine.from_snapshot(snap)
    branch.run_to(160)
    assert days_run == list(range(151, 161))
    assert engine.day == 150


def test_branch_digest_reuses_the_snapshot_prefix_and_equals_a_replay(bundle, monkeypatch) -> None:
    engine = Engine(bundle, 9)
    engine.advance(120)
    snap = engine.snapshot()
    prefix = len(snap.book.transactions)
    encoded: list[int] = []
    original = book_module.encode_transactions
    monkeypatch.setattr(
        book_module,
        "encode_transactions",
        lambda txns: encoded.append(len(txns)) or original(txns),
    )
    branch = Engine.from_snapshot(snap)
    branch.schedule("raise_price")
    branch.run_to(130)
    branch_digest = branch.book.digest()
    assert sum(encoded) == len(branch.book.transactions) - prefix
    monkeypatch.undo()
    replay = Engine(bundle, 9)
    replay.advance(120)
    replay.schedule("raise_price")
    replay.run_to(130)
    assert replay.book.digest() == branch_digest


def test_rejections_name_the_failed_term(bundle) -> None:
    engine = Engine(bundle, 1)
    cash = engine.check("second_roaster_machine")
    assert not cash.accepted and cash.term == "cash"
    assert "short" in (cash.reason or "")
    assert engine.schedule("raise_price").accepted
    conflict = engine.check("lower_price")
    assert conflict.term == "prerequisites.not_scheduled" and "raise_price" in conflict.reason
    again = engine.check("raise_price")
    assert again.term == "not_repeatable"
    assert engine.state.alerts == []
    engine.schedule("raise_price")
    assert engine.state.alerts[-1].kind == "rejected"


def test_competing_actions_follow_lexicographic_priority(bundle) -> None:
    engine = Engine(bundle, 3)
    engine.advance(45)
    outcomes = engine.schedule_choice(["spring_campaign", "loyalty_program"])
    assert [o.action_id for o in outcomes] == ["loyalty_program", "spring_campaign"]
    assert outcomes[0].start_day == 46
    assert outcomes[1].start_day == 56  # waits for the one sales rep
    reverse = Engine(bundle, 3)
    reverse.advance(45)
    reverse.schedule("spring_campaign")
    reverse.schedule("loyalty_program")
    engine.run_to(80)
    reverse.run_to(80)
    assert engine.metric("gross_profit") != reverse.metric("gross_profit")


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    day=st.integers(0, 100),
    actions=st.lists(
        st.sampled_from(
            ["spring_campaign", "raise_price", "bank_loan", "hire_roaster", "switch_to_highland"]
        ),
        unique=True,
    ),
)
def test_identical_choices_give_exactly_zero_effect(bundle, seed, day, actions) -> None:
    engine = Engine(bundle, seed)
    engine.run_to(day)
    snap = engine.snapshot()
    first, second = Engine.from_snapshot(snap), Engine.from_snapshot(snap)
    first.schedule_choice(actions)
    second.schedule_choice(list(reversed(actions)))
    first.run_to(day + 40)
    second.run_to(day + 40)
    assert all(first.metric(m) == second.metric(m) for m in bundle.metrics)
