"""Property tests: balanced books stay balanced; invalid transactions change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.accounts import Chart
from ledger.book import Book, LedgerError

ACCOUNTS = {
    "Assets:Cash": "USD",
    "Assets:Cash:Till": "USD",
    "Liabilities:Card": "USD",
    "Equity:Opening": "USD",
    "Income:Sales": "USD",
    "Expenses:Rent": "USD",
    "Memo:Units:Stock": "UNITS",
    "Memo:Units:Sold": "UNITS",
    "Memo:Units:Lost": "UNITS",
}
CHART = Chart.of(ACCOUNTS)
BY_UNIT = {
    unit: sorted(a for a, u in ACCOUNTS.items() if u == unit) for unit in set(ACCOUNTS.values())
}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Postings = list[tuple[str, int]]


@st.composite
def balanced_postings(draw: st.DrawFn) -> Postings:
    """Legs in one or two units, each unit's legs summing to zero."""
    units = draw(st.lists(st.sampled_from(sorted(BY_UNIT)), min_size=1, max_size=2, unique=True))
    legs: Postings = []
    for unit in units:
        accounts = st.sampled_from(BY_UNIT[unit])
        amounts = draw(st.lists(st.integers(-(10**12), 10**12), min_size=1, max_size=4))
        legs += [(draw(accounts), amount) for amount in amounts]
        legs.append((draw(accounts), -sum(amounts)))
    return draw(st.permutations(legs))


days_of_transactions = st.lists(st.lists(balanced_postings(), max_size=5), min_size=1, max_size=6)


def _build(days: list[list[Postings]]) -> Book:
    book = Book(CHART)
    for day, transactions in enumerate(days):
        for index, legs in enumerate(transactions):
            book.post(day, f"txn {day}.{index}", legs, {"i": str(index)})
        book.close_day(day)
    return book


@SETTINGS
@given(days_of_transactions)
def test_balanced_transactions_keep_the_trial_balance_at_zero(days: list[list[Postings]]) -> None:
    book = Book(CHART)
    snapshots: list[dict[str, int]] = []
    expected = dict.fromkeys(ACCOUNTS, 0)
    for day, transactions in enumerate(days):
        for index, legs in enumerate(transactions):
            book.post(day, f"txn {day}.{index}", legs)
            for account, amount in legs:
                expected[account] += amount
        book.close_day(day)
        assert book.trial_balance(day) == {"UNITS": 0, "USD": 0}
        assert book.balances(day) == expected
        snapshots.append(dict(expected))
    assert [book.balances(day) for day in range(len(days))] == snapshots
    assert len(book.transactions) == sum(len(t) for t in days)
    assert book.trial_balance() == {"UNITS": 0, "USD": 0}


def _state(book: Book) -> tuple[Any, ...]:
    closed = range(book.first_day, book.open_day)
    return (
        book.balances(),
        [book.balances(d) for d in closed],
        len(book.transactions),
        book.digest(),
        book.open_day,
    )


@st.composite
def invalid_transaction(draw: st.DrawFn) -> tuple[str, Postings, str]:
    """(kind, postings, text the error must contain) for one bad transaction."""
    legs = list(draw(balanced_postings()))
    index = draw(st.integers(0, len(legs) - 1))
    account, amount = legs[index]
    kind = draw(st.sampled_from(["unbalanced", "unknown account", "float"]))
    if kind == "unbalanced":
        delta = draw(st.integers(-(10**6), 10**6).filter(bool))
        legs[index] = (account, amount + delta)
        return kind, legs, f"does not balance: {ACCOUNTS[account]} postings sum to {delta}"
    if kind == "unknown account":
        ghost = draw(
            st.sampled_from(
                ["Assets:Ghost", "Expenses:Rent:Extra", "Memo:Units", "assets:cash", "Assets:Cash "]
            )
        )
        legs[index] = (ghost, amount)
        return kind, legs, f"unknown account {ghost!r}"
    as_float = float(amount) + draw(st.sampled_from([0.0, 0.5]))
    legs[index] = (account, as_float)  # type: ignore[arg-type]
    return kind, legs, f"non-integer amount {as_float!r} to {account}"


@SETTINGS
@given(days_of_transactions, invalid_transaction(), st.booleans())
def test_invalid_transactions_are_rejected_whole_and_named(
    days: list[list[Postings]], bad: tuple[str, Postings, str], close_all: bool
) -> None:
    book = _build(days if close_all else days[:-1])
    before = _state(book)
    kind, legs, reason = bad
    narration = f"bad {kind}"
    with pytest.raises(LedgerError) as caught:
        book.post(book.open_day, narration, legs)
    message = str(caught.value)
    assert f"transaction {narration!r}" in message
    assert reason in message
    assert _state(book) == before
    book.post(book.open_day, "still usable", [("Assets:Cash", 1), ("Equity:Opening", -1)])
    assert book.trial_balance() == {"UNITS": 0, "USD": 0}


def test_empty_transaction_is_rejected() -> None:
    book = Book(CHART)
    with pytest.raises(LedgerError, match="'nothing' has no postings"):
        book.post(0, "nothing", [])
    assert book.transactions == ()
