"""Book behaviour: day closes, closed-day queries, subtrees, net assets and forks."""

from __future__ import annotations

import pytest

from ledger.accounts import Chart
from ledger.book import Book, LedgerError

CHART = Chart.of(
    {
        "Assets:Cash": "USD",
        "Assets:Cash:Petty": "USD",
        "Assets:Stock": "USD",
        "Liabilities:Card": "USD",
        "Equity:Opening": "USD",
        "Income:Sales": "USD",
        "Expenses:Rent": "USD",
        "Memo:Units:Stock": "UNITS",
        "Memo:Units:Offset": "UNITS",
    }
)


def _opened(first_day: int = 0) -> Book:
    book = Book(CHART, first_day=first_day)
    book.post(first_day, "open", [("Assets:Cash", 10_000), ("Equity:Opening", -10_000)])
    return book


def test_close_day_moves_postings_to_the_next_day() -> None:
    book = _opened()
    assert book.open_day == 0 and book.last_closed_day is None
    book.close_day(0)
    assert book.open_day == 1 and book.last_closed_day == 0
    txn = book.post(1, "rent", [("Expenses:Rent", 500), ("Assets:Cash", -500)])
    assert txn.day == 1 and txn.seq == 1


def test_posting_to_a_closed_day_is_rejected() -> None:
    book = _opened()
    book.close_day(0)
    before = book.digest()
    with pytest.raises(LedgerError, match=r"'late' is dated day 0 but the open day is 1"):
        book.post(0, "late", [("Expenses:Rent", 500), ("Assets:Cash", -500)])
    assert book.digest() == before


def test_posting_to_a_future_day_is_rejected() -> None:
    book = _opened()
    with pytest.raises(LedgerError, match="open day is 0"):
        book.post(2, "early", [("Expenses:Rent", 500), ("Assets:Cash", -500)])


def test_closing_other_than_the_open_day_is_rejected() -> None:
    book = _opened()
    with pytest.raises(LedgerError, match="cannot close day 1: the open day is 0"):
        book.close_day(1)


def test_balance_at_closed_days_is_frozen() -> None:
    book = _opened(first_day=3)
    book.close_day(3)
    book.post(4, "rent", [("Expenses:Rent", 2_500), ("Assets:Cash", -2_500)])
    book.close_day(4)
    book.post(5, "card rent", [("Expenses:Rent", 700), ("Liabilities:Card", -700)])
    assert book.balance("Assets:Cash", 3) == 10_000
    assert book.balance("Assets:Cash", 4) == 7_500
    assert book.balance("Assets:Cash") == 7_500
    assert book.balance("Liabilities:Card", 4) == 0
    assert book.balance("Liabilities:Card") == -700
    assert book.balances(3)["Expenses:Rent"] == 0
    assert book.balances(4)["Expenses:Rent"] == 2_500


@pytest.mark.parametrize("day", [2, 5, 6])
def test_balance_of_an_unclosed_day_is_refused(day: int) -> None:
    book = _opened(first_day=3)
    book.close_day(3)
    book.close_day(4)
    with pytest.raises(LedgerError, match=rf"day {day} is not closed \(closed days: 3..4\)"):
        book.balance("Assets:Cash", day)


def test_unknown_account_balance_is_refused() -> None:
    with pytest.raises(LedgerError, match="unknown account 'Assets:Nope'"):
        _opened().balance("Assets:Nope")


def test_balances_returns_a_copy() -> None:
    book = _opened()
    book.close_day(0)
    book.balances(0)["Assets:Cash"] = 1
    book.balances()["Assets:Cash"] = 1
    assert book.balance("Assets:Cash", 0) == 10_000
    assert book.balance("Assets:Cash") == 10_000


def test_subtree_sums_an_account_and_its_descendants_per_unit() -> None:
    book = _opened()
    book.post(0, "petty", [("Assets:Cash:Petty", 1_200), ("Assets:Cash", -1_200)])
    book.post(
        0,
        "buy stock",
        [
            ("Assets:Stock", 3_000),
            ("Liabilities:Card", -3_000),
            ("Memo:Units:Stock", 12),
            ("Memo:Units:Offset", -12),
        ],
    )
    assert book.subtree("Assets:Cash") == {"USD": 10_000}
    assert book.subtree("Assets:Cash:Petty") == {"USD": 1_200}
    assert book.subtree("Assets") == {"USD": 13_000}
    assert book.subtree("Memo") == {"UNITS": 0}
    assert book.subtree("Memo:Units:Stock") == {"UNITS": 12}
    assert book.subtree("Assets:Ca") == {}
    assert book.subtree_total("Assets", "USD") == 13_000


def test_net_assets_is_assets_plus_credit_liabilities() -> None:
    book = _opened()
    book.post(0, "buy stock", [("Assets:Stock", 3_000), ("Liabilities:Card", -3_000)])
    book.close_day(0)
    book.post(1, "rent", [("Expenses:Rent", 400), ("Assets:Cash", -400)])
    assert book.net_assets(0) == 10_000
    assert book.net_assets() == 9_600


def test_trial_balance_rows_are_ordered_by_root_then_name() -> None:
    rows = _opened().trial_balance_rows()
    roots = [name.split(":")[0] for name, _, _ in rows]
    assert roots == sorted(
        roots, key=["Assets", "Liabilities", "Equity", "Income", "Expenses", "Memo"].index
    )
    assert ("Assets:Cash", "USD", 10_000) in rows
    assert sum(amount for _, unit, amount in rows if unit == "USD") == 0


def test_fork_is_independent_of_its_original() -> None:
    book = _opened()
    book.close_day(0)
    before = (book.digest(), book.balances(), book.balances(0), len(book.transactions))
    twin = book.fork()
    assert twin.digest() == book.digest()
    twin.post(1, "fork only", [("Expenses:Rent", 900), ("Assets:Cash", -900)])
    twin.close_day(1)
    assert (book.digest(), book.balances(), book.balances(0), len(book.transactions)) == before
    assert book.open_day == 1 and twin.open_day == 2
    assert book.trial_balance(0) == {"UNITS": 0, "USD": 0}
    assert twin.balance("Assets:Cash") == 9_100 and book.balance("Assets:Cash") == 10_000


def test_original_keeps_working_after_fork() -> None:
    book = _opened()
    twin = book.fork()
    book.post(0, "original only", [("Expenses:Rent", 100), ("Assets:Cash", -100)])
    assert twin.balance("Assets:Cash") == 10_000
    assert len(twin.transactions) == 1 and len(book.transactions) == 2


def test_transaction_record_and_tags() -> None:
    txn = _opened().post(
        0, "tagged", [("Expenses:Rent", 1), ("Assets:Cash", -1)], {"kind": "rent", "b": "2"}
    )
    assert txn.tag("kind") == "rent" and txn.tag("missing") is None
    assert txn.as_record() == {
        "seq": 1,
        "day": 0,
        "narration": "tagged",
        "postings": [["Expenses:Rent", 1], ["Assets:Cash", -1]],
        "tags": {"b": "2", "kind": "rent"},
    }
