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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson

from ledger.book import Book
from ledger.canonical import dumps
from ledger.file_modes import replacing_mode

SCHEMA = "cfwb.store/2"

MetricValue = int | float | None
MetricInput = tuple[int, str, Any, str] | Mapping[str, Any]
"""A metric row from the caller: `(day, metric, value, units)` or a dict with those keys."""

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
    """Checked caller metrics: each day's values by metric, and each metric's units."""

    by_day: dict[int, dict[str, MetricValue]] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


class StoreError(ValueError):
    """A store that cannot be written as asked; the message says why."""


# -- writing ---------------------------------------------------------------------------


def _bad_metric(index: int, item: object, problem: str) -> StoreError:
    return StoreError(f"metric row {index} ({item!r}): {problem}")


def _metric_value(value: Any, index: int, item: object) -> MetricValue:
    kind = type(value)
    if kind is int or kind is float or value is None:
        return value
    if kind is bool:
        return int(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (int, float)):
        return int(value) if isinstance(value, int) else float(value)
    raise _bad_metric(index, item, f"value {value!r} is not a number")


def normalise_metrics(metrics: Iterable[MetricInput]) -> Metrics:
    """Check caller metric rows and group them by day; a bad or duplicate row is named."""
    checked = Metrics()
    by_day, units_of = checked.by_day, checked.units
    for index, item in enumerate(metrics):
        try:
            if type(item) is tuple:
                day, metric, value, units = item
            elif isinstance(item, Mapping):
                day, metric, value = item["day"], item["metric"], item["value"]
                units = item.get("units", "")
            else:
                day, metric, value, units = item
        except (KeyError, TypeError, ValueError):
            raise _bad_metric(index, item, "expected (day, metric, value, units)") from None
        if type(day) is not int:
            raise _bad_metric(index, item, "day must be an integer")
        if type(metric) is not str or not metric:
            raise _bad_metric(index, item, "metric id must be a non-empty string")
        if type(units) is not str:
            raise _bad_metric(index, item, "units must be a string")
        known = units_of.setdefault(metric, units)
        if known != units:
            raise _bad_metric(index, item, f"metric {metric!r} is in {known!r}, not {units!r}")
        values = by_day.setdefault(day, {})
        if metric in values:
            raise _bad_metric(index, item, f"metric {metric!r} is given twice for day {day}")
        values[metric] = _metric_value(value, index, item)
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
    last = book.last_closed_day
    closed = () if last is None else range(book.first_day, last + 1)
    db.execute("BEGIN")
    for table in _TABLES:
        db.execute(table)
    db.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?)", transactions)
    db.executemany("INSERT INTO legs VALUES (?, ?, ?, ?)", legs)
    db.executemany(
        "INSERT INTO closes VALUES (?, ?)",
        ((day, orjson.dumps(book.balances(day)).decode("utf-8")) for day in closed),
    )
    db.executemany(
        "INSERT INTO daily_metrics VALUES (?, ?)",
        (
            (day, orjson.dumps(values).decode("utf-8"))
            for day, values in sorted(metrics.by_day.items())
        ),
    )
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
        "last_closed_day": last,
        "transactions": len(transactions),
    }
    db.executemany("INSERT INTO meta VALUES (?, ?)", meta.items())
    for index in _INDEXES:
        db.execute(index)
    db.execute("COMMIT")


def _fsync_path(path: Path) -> None:
    flags = (os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)) if path.is_dir() else os.O_RDONLY
    try:
        fd = os.open(path, flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_store(db_path: Path | str, book: Book, metrics: Iterable[MetricInput] = ()) -> Path:
    """Write `book` (and metric rows) to a fresh SQLite file, atomically replacing `db_path`."""
    target = Path(db_path)
    checked = normalise_metrics(metrics)
    target.parent.mkdir(parents=True, exist_ok=True)
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
        _fsync_path(temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_path(target.parent)
    return target
