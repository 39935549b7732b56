"""SQLite store of a Book's transactions, postings, day-close balances and metrics, for queries.

The store is never the source of truth: the journal is. A book is rebuilt by replaying
the journal, and this store is rebuilt from that book; delete it at any time. Writing
replaces the whole file atomically (build a temp file beside it, fsync, `os.replace`), so
a failed rebuild leaves the previous store untouched. Rows go in with plain `executemany`
in one transaction; secondary indexes are built after the rows.

Tables (all STRICT; docs/ledger.md has the queries):

* `transactions(seq, day, narration, tags)`: one row per transaction, tags as canonical JSON.
* `postings(seq, leg, account, amount)`: one row per posting, in minor units of the account's
  unit (join `transactions` on `seq` for its day and narration).
* `balances(account, day, balance)`: each account at the first closed day, then a row only
  for a close that changed it; the balance at the close of day d is the row with the
  latest day <= d (a 10-year run keeps 42,000 rows instead of 153,000).
* `metrics(metric, day, value, units)`: caller-supplied measurements (int, float or NULL).
* `accounts(account, unit, root)` and `meta(key, value)` (schema, ledger digest, days).
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterable, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

from ledger.book import Book
from ledger.canonical import dumps

SCHEMA = "cfwb.store/2"

MetricValue = int | float | None
MetricInput = tuple[int, str, Any, str] | Mapping[str, Any]
"""A metric row from the caller: `(day, metric, value, units)` or a dict with those keys."""

MetricRow = tuple[str, int, MetricValue, str]
"""A checked metric row as stored: `(metric, day, value, units)`."""

_TABLES = (
    "CREATE TABLE transactions (seq INTEGER PRIMARY KEY, day INTEGER NOT NULL,"
    " narration TEXT NOT NULL, tags TEXT NOT NULL) STRICT",
    "CREATE TABLE postings (seq INTEGER NOT NULL, leg INTEGER NOT NULL, account TEXT NOT NULL,"
    " amount INTEGER NOT NULL, PRIMARY KEY (seq, leg)) STRICT, WITHOUT ROWID",
    "CREATE TABLE balances (account TEXT NOT NULL, day INTEGER NOT NULL,"
    " balance INTEGER NOT NULL, PRIMARY KEY (account, day)) STRICT, WITHOUT ROWID",
    "CREATE TABLE metrics (metric TEXT NOT NULL, day INTEGER NOT NULL, value ANY,"
    " units TEXT NOT NULL, PRIMARY KEY (metric, day)) STRICT, WITHOUT ROWID",
    "CREATE TABLE accounts (account TEXT PRIMARY KEY, unit TEXT NOT NULL, root TEXT NOT NULL)"
    " STRICT",
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value ANY) STRICT",
)
_INDEXES = (
    "CREATE INDEX transactions_day ON transactions (day)",
    "CREATE INDEX postings_account ON postings (account)",
)
"""Secondary indexes, built after the rows (each table's primary key is built as it fills)."""


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


def normalise_metrics(metrics: Iterable[MetricInput]) -> list[MetricRow]:
    """Check caller metric rows and return them as tuples; a bad or duplicate row is named."""
    rows: list[MetricRow] = []
    seen: set[tuple[str, int]] = set()
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
        key = (metric, day)
        if key in seen:
            raise _bad_metric(index, item, f"metric {metric!r} is given twice for day {day}")
        seen.add(key)
        rows.append((metric, day, _metric_value(value, index, item), units))
    return rows


def _rows(book: Book) -> tuple[list[tuple[int, int, str, str]], list[tuple[int, int, str, int]]]:
    """(transaction rows, posting rows) of `book`, in posting order."""
    transactions: list[tuple[int, int, str, str]] = []
    postings: list[tuple[int, int, str, int]] = []
    add_posting = postings.append
    for txn in book.transactions:
        seq = txn.seq
        transactions.append((seq, txn.day, txn.narration, dumps(dict(txn.tags)).decode("utf-8")))
        for leg, (account, amount) in enumerate(txn.postings):
            add_posting((seq, leg, account, amount))
    return transactions, postings


def _fill(db: sqlite3.Connection, book: Book, metrics: list[MetricRow]) -> None:
    """Create the tables, insert every row in one transaction, then build the indexes."""
    transactions, postings = _rows(book)
    db.execute("BEGIN")
    for table in _TABLES:
        db.execute(table)
    db.executemany("INSERT INTO transactions VALUES (?, ?, ?, ?)", transactions)
    db.executemany("INSERT INTO postings VALUES (?, ?, ?, ?)", postings)
    # In key order, so every row appends to its B-tree instead of searching it.
    db.executemany("INSERT INTO balances VALUES (?, ?, ?)", sorted(book.close_changes()))
    db.executemany("INSERT INTO metrics VALUES (?, ?, ?, ?)", sorted(metrics))
    db.executemany(
        "INSERT INTO accounts VALUES (?, ?, ?)",
        ((a, u, a.split(":", 1)[0]) for a, u in book.accounts.items()),
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
    rows = normalise_metrics(metrics)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    temp = Path(name)
    try:
        # mkstemp creates 0600; keep a rebuilt store as readable as the one it replaces.
        temp.chmod(target.stat().st_mode & 0o777 if target.exists() else 0o644)
        conn = sqlite3.connect(temp, isolation_level=None)
        try:
            # The temp file is discarded on any failure, so SQLite's own journal is not needed.
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("PRAGMA temp_store = MEMORY")
            _fill(conn, book, rows)
        finally:
            conn.close()
        _fsync_path(temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_path(target.parent)
    return target
