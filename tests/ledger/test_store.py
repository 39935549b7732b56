"""The SQLite store: rows round-trip, balances match the book, rewrites replace atomically."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from sqlite_utils import Database

from ledger import store
from ledger.book import Book
from ledger.store import (
    MetricRow,
    PostingRow,
    StoreError,
    read_accounts,
    read_balance_series,
    read_balances,
    read_days,
    read_meta,
    read_metric_ids,
    read_metric_series,
    read_metrics,
    read_postings,
    write_store,
)
from tests.ledger.synthetic import CHART, build_book

METRICS = [
    (0, "cash", 1_234, "USD"),
    {"day": 1, "metric": "cash", "value": 5_678, "units": "USD"},
    (0, "fill_rate", 0.75, "ratio"),
    (1, "fill_rate", None, "ratio"),
    {"day": 2, "metric": "cash", "value": Decimal("90.5")},
    (2, "stockout", True, "flag"),
]


@pytest.fixture(scope="module")
def book() -> Book:
    return build_book(days=10, close_last=False)


@pytest.fixture
def db(tmp_path: Path, book: Book) -> Path:
    return write_store(tmp_path / "run" / "ledger.db", book, METRICS)


def test_postings_round_trip(db: Path, book: Book) -> None:
    expected = [
        PostingRow(
            t.seq, leg, t.day, t.narration, account, book.unit_of(account), amount, dict(t.tags)
        )
        for t in book.transactions
        for leg, (account, amount) in enumerate(t.postings)
    ]
    assert read_postings(db) == expected
    assert read_postings(db, day=3) == [row for row in expected if row.day == 3]
    assert read_postings(db, account="Memo:Units:Sold", day=4) == [
        row for row in expected if row.account == "Memo:Units:Sold" and row.day == 4
    ]
    assert read_postings(db, day=9)
    assert read_postings(db, account="Liabilities:Loan")[0].amount == -1_000_000


def test_balances_match_the_book_at_every_closed_day(db: Path, book: Book) -> None:
    assert book.last_closed_day == 8
    assert read_days(db) == list(range(9))
    for day in read_days(db):
        assert read_balances(db, day) == book.balances(day)
    assert read_balance_series(db, "Assets:Bank") == [
        (day, book.balance("Assets:Bank", day)) for day in range(9)
    ]
    assert read_accounts(db) == book.accounts


def test_unclosed_days_and_unknown_accounts_are_refused(db: Path) -> None:
    with pytest.raises(StoreError, match="day 9 has no stored balances"):
        read_balances(db, 9)
    with pytest.raises(StoreError, match="unknown account 'Assets:Nope'"):
        read_balance_series(db, "Assets:Nope")


def test_metrics_round_trip(db: Path) -> None:
    assert read_metric_ids(db) == ["cash", "fill_rate", "stockout"]
    assert read_metric_series(db, "cash") == [(0, 1_234), (1, 5_678), (2, 90.5)]
    assert read_metric_series(db, "fill_rate") == [(0, 0.75), (1, None)]
    assert read_metric_series(db, "absent") == []
    assert read_metrics(db, 2) == [
        MetricRow(2, "cash", 90.5, ""),
        MetricRow(2, "stockout", 1, "flag"),
    ]
    assert type(read_metric_series(db, "cash")[0][1]) is int


def test_meta_records_the_book_it_was_built_from(db: Path, book: Book) -> None:
    assert read_meta(db) == {
        "schema": store.SCHEMA,
        "ledger_digest": book.digest(),
        "first_day": 0,
        "open_day": 9,
        "last_closed_day": 8,
        "transactions": len(book.transactions),
    }


def test_indexes_on_day_and_account(db: Path) -> None:
    database = Database(db)
    postings = {tuple(index.columns) for index in database["postings"].indexes}
    balances = {tuple(index.columns) for index in database["balances"].indexes}
    assert {("day",), ("account",)} <= postings
    assert ("account",) in balances
    assert database["balances"].pks == ["day", "account"]


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != "ledger.db")


def test_a_rewrite_replaces_all_content(db: Path) -> None:
    other = build_book(days=3, seed=99)
    write_store(db, other)
    assert read_days(db) == [0, 1, 2]
    assert read_postings(db) == [
        PostingRow(t.seq, leg, t.day, t.narration, a, other.unit_of(a), amount, dict(t.tags))
        for t in other.transactions
        for leg, (a, amount) in enumerate(t.postings)
    ]
    assert read_metric_ids(db) == []
    assert read_meta(db)["ledger_digest"] == other.digest()
    assert _leftovers(db.parent) == []


def test_a_failed_rebuild_leaves_the_previous_store_intact(
    db: Path, book: Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = db.read_bytes()

    def broken_rows(_: Book):  # type: ignore[no-untyped-def]
        yield {"day": 0, "account": "Assets:Bank", "unit": "USD", "balance": 1}
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_balance_rows", broken_rows)
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_store(db, build_book(days=2, seed=3))
    assert db.read_bytes() == before
    assert read_balances(db, 8) == book.balances(8)
    assert _leftovers(db.parent) == []


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ([(0, "cash", 1, "USD"), (0, "cash", 2, "USD")], "'cash' is given twice for day 0"),
        ([(0, "cash", "high", "USD")], "value 'high' is not a number"),
        ([(0.5, "cash", 1, "USD")], "day must be an integer"),
        ([(0, "", 1, "USD")], "metric id must be a non-empty string"),
        ([(0, "cash", 1)], "expected \\(day, metric, value, units\\)"),
        ([{"day": 0, "value": 1}], "metric row 0"),
        ([(0, "a", 1, "x"), (1, "b", 2, 3)], "metric row 1 .*units must be a string"),
    ],
)
def test_bad_metric_rows_are_named_and_nothing_is_written(
    tmp_path: Path, book: Book, rows: list, message: str
) -> None:
    target = tmp_path / "ledger.db"
    with pytest.raises(StoreError, match=message):
        write_store(target, book, rows)
    assert list(tmp_path.iterdir()) == []


def test_reading_a_missing_store_says_to_rebuild(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at .*rebuild it from the journal"):
        read_balances(tmp_path / "absent.db", 0)


def test_reading_a_corrupt_store_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"not a database" * 100)
    with pytest.raises(StoreError, match="cannot be read"):
        read_days(path)


def test_an_empty_book_writes_an_empty_store(tmp_path: Path) -> None:
    db = write_store(tmp_path / "empty.db", Book(CHART))
    assert read_days(db) == [] and read_postings(db) == []
    assert read_meta(db)["last_closed_day"] is None
