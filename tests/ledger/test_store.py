"""The SQLite store: rows round-trip, balances match the book, rewrites replace atomically."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger import store
from ledger.book import Book
from ledger.store import MetricSeries, StoreError, write_store
from tests.ledger.store_queries import balances_at, closed_days, postings, query
from tests.ledger.synthetic import CHART, build_book
from tests.ledger.test_book_properties import CHART as SMALL_CHART
from tests.ledger.test_book_properties import Postings, days_of_transactions

METRICS = [
    MetricSeries("cash", "USD", [1_234, 5_678, Decimal("90.5")]),
    MetricSeries("fill_rate", "ratio", [0.75, None]),
    MetricSeries("stockout", "flag", [True], first_day=2),
]


@pytest.fixture(scope="module")
def book() -> Book:
    return build_book(days=10, close_last=False)


@pytest.fixture
def db(tmp_path: Path, book: Book) -> Path:
    return write_store(tmp_path / "run" / "ledger.db", book, METRICS)


def _book_postings(book: Book) -> list[tuple]:
    return [
        (t.seq, leg, t.day, t.narration, account, book.unit_of(account), amount, dict(t.tags))
        for t in book.transactions
        for leg, (account, amount) in enumerate(t.postings)
    ]


def test_postings_round_trip(db: Path, book: Book) -> None:
    expected = _book_postings(book)
    assert postings(db) == expected
    assert postings(db, "WHERE day = ?", 3) == [row for row in expected if row[2] == 3]
    assert postings(db, "WHERE account = ? AND day = ?", "Memo:Units:Sold", 4) == [
        row for row in expected if row[4] == "Memo:Units:Sold" and row[2] == 4
    ]
    assert postings(db, "WHERE day = 9")
    assert postings(db, "WHERE account = 'Liabilities:Loan'")[0][6] == -1_000_000


def test_balances_match_the_book_at_every_closed_day(db: Path, book: Book) -> None:
    assert book.last_closed_day == 8
    assert closed_days(db) == list(range(9))
    for day in closed_days(db):
        assert balances_at(db, day) == book.balances(day)
    assert dict(query(db, "SELECT account, unit FROM accounts ORDER BY rowid")) == book.accounts


def test_a_close_is_one_row_and_a_days_metrics_are_one_row(db: Path, book: Book) -> None:
    closes = query(db, "SELECT day, balances FROM closes ORDER BY day")
    assert [day for day, _ in closes] == list(range(9))
    assert orjson.loads(closes[4][1]) == book.balances(4)
    assert query(db, "SELECT count(*) FROM daily_metrics") == [(3,)]
    assert query(db, "SELECT balances ->> '$.\"Assets:Bank\"' FROM closes WHERE day = 2") == [
        (book.balance("Assets:Bank", 2),)
    ]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(days_of_transactions)
def test_any_book_round_trips(
    tmp_path_factory: pytest.TempPathFactory, days: list[list[Postings]]
) -> None:
    book = Book(SMALL_CHART)
    for day, transactions in enumerate(days):
        for index, legs in enumerate(transactions):
            book.post(day, f"txn {day}.{index}", legs, {"i": str(index)})
        book.close_day(day)
    db = write_store(tmp_path_factory.mktemp("store") / "s.db", book)
    assert postings(db) == _book_postings(book)
    assert all(balances_at(db, day) == book.balances(day) for day in range(len(days)))


def test_metrics_round_trip(db: Path) -> None:
    series = "SELECT day, value FROM metrics WHERE metric = ? ORDER BY day"
    assert query(db, "SELECT DISTINCT metric FROM metrics ORDER BY 1") == [
        ("cash",),
        ("fill_rate",),
        ("stockout",),
    ]
    assert query(db, series, "cash") == [(0, 1_234), (1, 5_678), (2, 90.5)]
    assert query(db, series, "fill_rate") == [(0, 0.75), (1, None)]
    assert query(db, series, "absent") == []
    assert query(
        db, "SELECT day, metric, value, units FROM metrics WHERE day = 2 ORDER BY metric"
    ) == [
        (2, "cash", 90.5, "USD"),
        (2, "stockout", 1, "flag"),
    ]
    assert type(query(db, series, "cash")[0][1]) is int


def test_meta_records_the_book_it_was_built_from(db: Path, book: Book) -> None:
    assert dict(query(db, "SELECT key, value FROM meta")) == {
        "schema": store.SCHEMA,
        "ledger_digest": book.digest(),
        "first_day": 0,
        "open_day": 9,
        "last_closed_day": 8,
        "transactions": len(book.transactions),
    }


def test_indexes_and_strict_tables(db: Path) -> None:
    indexes = {
        (table, name)
        for table, name in query(
            db, "SELECT tbl_name, name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    }
    assert {("transactions", "transactions_day"), ("legs", "legs_account")} <= indexes
    tables = query(
        db, "SELECT name, strict FROM pragma_table_list WHERE schema = 'main' AND type = 'table'"
    )
    assert all(strict for name, strict in tables if not name.startswith("sqlite_"))
    views = query(db, "SELECT name FROM sqlite_master WHERE type = 'view' ORDER BY name")
    assert views == [("balances",), ("metrics",), ("postings",)]


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name != "ledger.db")


def test_a_rewrite_replaces_all_content(db: Path) -> None:
    other = build_book(days=3, seed=99)
    write_store(db, other)
    assert closed_days(db) == [0, 1, 2]
    assert postings(db) == _book_postings(other)
    assert query(db, "SELECT count(*) FROM metrics") == [(0,)]
    assert query(db, "SELECT value FROM meta WHERE key = 'ledger_digest'") == [(other.digest(),)]
    assert _leftovers(db.parent) == []


def test_a_failed_rebuild_leaves_the_previous_store_intact(
    db: Path, book: Book, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = db.read_bytes()

    def broken_rows(_: Book) -> tuple[list, list]:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(store, "_rows", broken_rows)
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_store(db, build_book(days=2, seed=3))
    assert db.read_bytes() == before
    assert balances_at(db, 8) == book.balances(8)
    assert _leftovers(db.parent) == []


@pytest.mark.parametrize(
    ("series", "message"),
    [
        ([MetricSeries("cash", "USD", [1]), MetricSeries("cash", "USD", [2])], "given twice"),
        ([MetricSeries("cash", "USD", [1, "high"])], r"\('cash'\): day 1: value 'high' is not"),
        ([MetricSeries("cash", "USD", [Decimal("Infinity")], first_day=4)], "day 4: value"),
        ([MetricSeries("cash", "USD", [0, 2**63])], "day 1: value .* out of the 64-bit range"),
        ([MetricSeries("cash", "USD", [Decimal("1E+30")])], "not a finite number in range"),
        ([MetricSeries("cash", "USD", [1], first_day=0.5)], "first_day must be an integer"),
        ([MetricSeries("cash", "USD", [1], first_day=True)], "first_day must be an integer"),
        ([MetricSeries("", "USD", [1])], "metric id must be a non-empty string"),
        ([MetricSeries("a", "x", [1]), MetricSeries("b", 3, [2])], "series 1 .*units must be"),
        ([(0, "cash", 1, "USD")], "series 0 .*expected a MetricSeries"),
    ],
)
def test_bad_metric_series_are_named_and_nothing_is_written(
    tmp_path: Path, book: Book, series: list, message: str
) -> None:
    target = tmp_path / "ledger.db"
    with pytest.raises(StoreError, match=message):
        write_store(target, book, series)
    assert list(tmp_path.iterdir()) == []


@given(
    st.lists(
        st.tuples(
            st.integers(0, 5),
            st.lists(
                st.none()
                | st.booleans()
                | st.integers(-(2**60), 2**60)
                | st.floats(allow_nan=False, allow_infinity=False)
                | st.decimals(min_value=-(10**15), max_value=10**15, places=2)
                | st.decimals(min_value=-(10**15), max_value=10**15, places=24),
                max_size=6,
            ),
        ),
        max_size=4,
    )
)
@settings(max_examples=60, deadline=None)
def test_metric_series_are_stored_day_by_day_as_exact_numbers(
    spans: list[tuple[int, list[object]]],
) -> None:
    """Whatever days each series covers, a day's row holds exactly the metrics covering it,
    each value as the number it is (a whole Decimal as an exact int)."""
    series = [
        MetricSeries(f"m{i}", "u", values, first_day=start)
        for i, (start, values) in enumerate(spans)
    ]
    rows = dict(store.check_metrics(series).daily_rows())
    expected: dict[int, dict[str, object]] = {}
    for item in series:
        for offset, value in enumerate(item.values):
            if isinstance(value, bool):
                value = int(value)
            elif isinstance(value, Decimal):
                value = int(value) if value == value.to_integral_value() else float(value)
            expected.setdefault(item.first_day + offset, {})[item.metric] = value
    assert {day: orjson.loads(text) for day, text in rows.items()} == expected
    assert list(rows) == sorted(rows)


def test_an_empty_book_writes_an_empty_store(tmp_path: Path) -> None:
    db = write_store(tmp_path / "empty.db", Book(CHART))
    assert closed_days(db) == [] and postings(db) == []
    assert query(db, "SELECT count(*) FROM closes") == [(0,)]
