"""SQLite store of a Book's postings, day-close balances and metrics, for queries.

The store is never the source of truth: the journal is. A book is rebuilt by replaying
the journal, and this store is rebuilt from that book; delete it at any time. Writing
replaces the whole file atomically (build a temp file beside it, fsync, `os.replace`), so
a failed rebuild leaves the previous store untouched. Rows go in with plain `executemany`
in one transaction; secondary indexes are built after the rows.

A day's close and a day's metrics are one row each, a JSON object keyed by account or
metric, so a 10-year run stores 7,300 rows for them instead of 175,000. Views give them
back one value per row. Tables (all STRICT) and views (docs/ledger.md has the queries):

* `transactions(seq, day, narration, tags)`: one row per transaction, tags as canonical JSON.
* `legs(seq, leg, account_id, amount)`: one row per posting, in minor units of the account's
  unit; `account_id` is the account's `accounts.id` (its place in the chart).
* `closes(day, balances)`: every account's balance at the day's close, `{account: balance}`.
* `daily_metrics(day, metric_values)`: the caller's measurements of that day, `{metric: value}`
  (int, float or null), and `metric_units(metric, units)`.
* `accounts(id, account, unit, root)` and `meta(key, value)` (schema, ledger digest, days).
* Views: `postings(seq, leg, day, narration, account, unit, amount, tags)`,
  `balances(day, account, unit, balance)` and `metrics(day, metric, value, units)`.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any, Final

import orjson

from ledger.book import Book
from ledger.canonical import dumps
from ledger.durable import fsync_dir, fsync_file, make_dirs
from ledger.file_modes import replacing_mode

SCHEMA = "cfwb.store/2"

MetricValue = int | float | None


@dataclass(frozen=True)
class MetricSeries:
    """One metric's value on consecutive days from `first_day`, in its `units`.

    Values are numbers (int, float, Decimal; bool as 0 or 1) or None for a day without one.
    """

    metric: str
    units: str
    values: Sequence[Any]
    first_day: int = 0


_TABLES = (
    "CREATE TABLE transactions (seq INTEGER PRIMARY KEY, day INTEGER NOT NULL,"
    " narration TEXT NOT NULL, tags TEXT NOT NULL) STRICT",
    "CREATE TABLE legs (seq INTEGER NOT NULL, leg INTEGER NOT NULL, account_id INTEGER NOT NULL,"
    " amount INTEGER NOT NULL, PRIMARY KEY (seq, leg)) STRICT, WITHOUT ROWID",
    "CREATE TABLE closes (day INTEGER PRIMARY KEY, balances TEXT NOT NULL) STRICT",
    "CREATE TABLE daily_metrics (day INTEGER PRIMARY KEY, metric_values TEXT NOT NULL) STRICT",
    "CREATE TABLE metric_units (metric TEXT PRIMARY KEY, units TEXT NOT NULL) STRICT",
    "CREATE TABLE accounts (id INTEGER PRIMARY KEY, account TEXT NOT NULL UNIQUE,"
    " unit TEXT NOT NULL, root TEXT NOT NULL) STRICT",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value ANY) STRICT",
    "CREATE VIEW postings AS SELECT l.seq, l.leg, t.day, t.narration, a.account, a.unit,"
    " l.amount, t.tags FROM legs l JOIN transactions t USING (seq) JOIN accounts a"
    " ON a.id = l.account_id",
    "CREATE VIEW balances AS SELECT c.day, j.key AS account, a.unit, j.value AS balance"
    " FROM closes c, json_each(c.balances) j JOIN accounts a ON a.account = j.key",
    "CREATE VIEW metrics AS SELECT d.day, j.key AS metric, j.value, u.units"
    " FROM daily_metrics d, json_each(d.metric_values) j JOIN metric_units u ON u.metric = j.key",
)
_INDEXES = (
    "CREATE INDEX transactions_day ON transactions (day)",
    "CREATE INDEX legs_account ON legs (account_id)",
)
"""Secondary indexes, built after the rows (each table's primary key is built as it fills)."""


@dataclass
class Metrics:
    """Checked caller metrics: each metric's units and its values, day by day."""

    units: dict[str, str] = field(default_factory=dict)
    first_days: list[int] = field(default_factory=list)
    columns: list[list[MetricValue]] = field(default_factory=list)

    def daily_rows(self) -> Iterator[tuple[int, str]]:
        """`(day, {metric: value} as JSON)` for every day some metric covers, in day order."""
        names = list(self.units)
        if not names:
            return
        lengths = {len(column) for column in self.columns}
        if set(self.first_days) == {0} and len(lengths) == 1:
            for day, values in enumerate(zip(*self.columns, strict=True)):
                yield day, orjson.dumps(dict(zip(names, values, strict=True))).decode("utf-8")
            return
        spans = list(zip(names, self.first_days, self.columns, strict=True))
        first = min(self.first_days)
        last = max(start + len(column) for _, start, column in spans)
        for day in range(first, last):
            row = {
                name: column[day - start]
                for name, start, column in spans
                if start <= day < start + len(column)
            }
            if row:
                yield day, orjson.dumps(row).decode("utf-8")


class StoreError(ValueError):
    """A store that cannot be written as asked; the message says why."""


# -- writing ---------------------------------------------------------------------------

_INT_RANGE: Final = range(-(2**63), 2**63)
"""The integers SQLite's JSON (and orjson) store exactly."""


def _bad_series(index: int, metric: object, problem: str) -> StoreError:
    return StoreError(f"metric series {index} ({metric!r}): {problem}")


def _metric_value(value: Any) -> MetricValue:
    """A stored value: int, float or None; a whole Decimal as its exact int, another Decimal
    as the nearest float, a bool as 0 or 1. ValueError says why a value cannot be stored."""
    kind = type(value)
    if kind is int:
        if value not in _INT_RANGE:
            raise ValueError("is out of the 64-bit range")
        return value
    if kind is float or value is None:
        return value
    if isinstance(value, Decimal):
        try:
            numerator, denominator = value.as_integer_ratio()
            return _metric_value(numerator) if denominator == 1 else numerator / denominator
        except (OverflowError, ValueError):
            raise ValueError("is not a finite number in range") from None
    if kind is bool:
        return int(value)
    if isinstance(value, int):
        return _metric_value(int(value))
    if isinstance(value, float):
        return float(value)
    raise ValueError("is not a number")


def _bad_value(index: int, item: MetricSeries) -> StoreError:
    """The first value of `item` that cannot be stored, named by its day."""
    for offset, value in enumerate(item.values):
        try:
            _metric_value(value)
        except ValueError as exc:
            day = item.first_day + offset
            return _bad_series(index, item.metric, f"day {day}: value {value!r} {exc}")
    return _bad_series(index, item.metric, "a value cannot be stored")


def check_metrics(series: Iterable[MetricSeries]) -> Metrics:
    """Check caller metric series; a bad one is named by its place and metric id."""
    checked = Metrics()
    for index, item in enumerate(series):
        if not isinstance(item, MetricSeries):
            raise _bad_series(index, item, "expected a MetricSeries")
        metric, units = item.metric, item.units
        if type(metric) is not str or not metric:
            raise _bad_series(index, metric, "metric id must be a non-empty string")
        if type(units) is not str:
            raise _bad_series(index, metric, "units must be a string")
        if type(item.first_day) is not int:
            raise _bad_series(index, metric, "first_day must be an integer")
        if metric in checked.units:
            raise _bad_series(index, metric, "the metric is given twice")
        try:
            column = [_metric_value(value) for value in item.values]
        except ValueError:
            raise _bad_value(index, item) from None
        checked.units[metric] = units
        checked.first_days.append(item.first_day)
        checked.columns.append(column)
    return checked


def _rows(book: Book) -> tuple[list[tuple[int, int, str, str]], list[tuple[int, int, int, int]]]:
    """(transaction rows, leg rows) of `book`, in posting order."""
    ids = {account: index for index, account in enumerate(book.accounts)}
    transactions = book.transactions
    tag_texts: dict[tuple[tuple[str, str], ...], str] = {}
    for txn in transactions:
        if txn.tags not in tag_texts:
            tag_texts[txn.tags] = dumps(dict(txn.tags)).decode("utf-8")
    return (
        [(t.seq, t.day, t.narration, tag_texts[t.tags]) for t in transactions],
        [
            (t.seq, leg, ids[account], amount)
            for t in transactions
            for leg, (account, amount) in enumerate(t.postings)
        ],
    )


def _fill(db: sqlite3.Connection, book: Book, metrics: Metrics) -> None:
    """Create the tables, insert every row in one transaction, then build the indexes."""
    transactions, legs = _rows(book)
    db.execute("BEGIN")
    for table in _TABLES:
        db.execute(table)
    db.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?)", transactions)
    db.executemany("INSERT INTO legs VALUES (?, ?, ?, ?)", legs)
    db.executemany(
        "INSERT INTO closes VALUES (?, ?)",
        (
            (day, orjson.dumps(balances).decode("utf-8"))
            for day, balances in enumerate(book.closes, start=book.first_day)
        ),
    )
    db.executemany("INSERT INTO daily_metrics VALUES (?, ?)", metrics.daily_rows())
    db.executemany("INSERT INTO metric_units VALUES (?, ?)", sorted(metrics.units.items()))
    db.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?, ?)",
        ((i, a, u, a.split(":", 1)[0]) for i, (a, u) in enumerate(book.accounts.items())),
    )
    meta: dict[str, Any] = {
        "schema": SCHEMA,
        "ledger_digest": book.digest(),
        "first_day": book.first_day,
        "open_day": book.open_day,
        "last_closed_day": book.last_closed_day,
        "transactions": len(transactions),
    }
    db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    for index in _INDEXES:
        db.execute(index)
    db.execute("COMMIT")


def write_store(db_path: Path | str, book: Book, metrics: Iterable[MetricSeries] = ()) -> Path:
    """Write `book` (and metric series) to a fresh SQLite file, atomically replacing `db_path`.

    Durably or not at all: a disk that refuses the fsync of the file (or of its directory)
    raises OSError, never leaving a store whose pages may be lost in place of the old one
    unannounced (the file is put in place only after its fsync succeeded)."""
    target = Path(db_path)
    checked = check_metrics(metrics)
    make_dirs(target.parent)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    temp = Path(name)
    try:
        temp.chmod(replacing_mode(target))
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            # The temp file is discarded on any failure, so SQLite's own journal is not needed.
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("PRAGMA temp_store = MEMORY")
            # Larger pages and a cache that holds the whole file: no page is written
            # before the commit, and a long run's B-trees are shallower (7% faster here).
            conn.execute("PRAGMA page_size = 16384")
            conn.execute("PRAGMA cache_size = -65536")
            _fill(conn, book, checked)
        finally:
            conn.close()
        fsync_file(temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    fsync_dir(target.parent)
    return target


# -- reading ---------------------------------------------------------------------------


def store_problem(db_path: Path | str, book: Book) -> str | None:
    """Why the store at `db_path` is not a whole store of `book` ("missing", "not a store:
    …", "of another ledger"), or None when it is.

    Opened read-only (never created, never changed); a file that is not an SQLite
    database, a store of another schema, or one whose integrity check fails is not a
    store, and one whose ledger digest differs (an older write, another run) is out of
    date. `write_store` only ever renames a whole, fsynced file into place, so this finds
    a damaged or stale file, never one half-written by a killed writer."""
    target = Path(db_path)
    if not target.exists():
        return "missing"
    try:
        conn = sqlite3.connect(f"{target.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        return f"not a store: {exc}"
    try:
        if conn.execute("PRAGMA quick_check").fetchone() != ("ok",):
            return "not a store: its integrity check fails"
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except sqlite3.Error as exc:
        return f"not a store: {exc}"
    finally:
        conn.close()
    if meta.get("schema") != SCHEMA:
        return f"not a store of schema {SCHEMA}"
    if meta.get("ledger_digest") != book.digest():
        return "of another ledger (out of date)"
    return None
