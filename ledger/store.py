"""SQLite store of a Book's postings, day-close balances and metrics, for fast UI queries.

The store is never the source of truth: the journal is. A book is rebuilt by replaying
the journal, and this store is rebuilt from that book; delete it at any time. Writing
replaces the whole file atomically (build a temp file beside it, fsync, `os.replace`), so
a failed rebuild leaves the previous store untouched.

Tables (all STRICT):

* `postings(seq, leg, day, narration, account, unit, amount, tags)`: one row per posting;
  `amount` in integer minor units, `tags` as canonical JSON.
* `balances(day, account, unit, balance)`: every account at every closed day's close.
* `metrics(day, metric, value, units)`: caller-supplied measurements (int, float or NULL).
* `accounts(account, unit, root)` and `meta(key, value)` (schema, ledger digest, days).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

from sqlite_utils import Database
from sqlite_utils.db import Table

from ledger.book import Book
from ledger.canonical import dumps, loads

SCHEMA = "cfwb.store/1"

MetricValue = int | float | None
MetricInput = tuple[int, str, Any, str] | Mapping[str, Any]
"""A metric row from the caller: `(day, metric, value, units)` or a dict with those keys."""


class StoreError(ValueError):
    """A store that cannot be written or read as asked; the message says why."""


class PostingRow(NamedTuple):
    """One stored posting."""

    seq: int
    leg: int
    day: int
    narration: str
    account: str
    unit: str
    amount: int
    tags: dict[str, str]


class MetricRow(NamedTuple):
    """One stored metric value."""

    day: int
    metric: str
    value: MetricValue
    units: str


# -- writing ---------------------------------------------------------------------------


def _metric_value(value: Any, where: str) -> MetricValue:
    if value is None or isinstance(value, float):
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise StoreError(f"{where}: value {value!r} is not a number")


def normalise_metrics(metrics: Iterable[MetricInput]) -> list[dict[str, Any]]:
    """Check caller metric rows and return them as dicts; a bad or duplicate row is named."""
    rows: list[dict[str, Any]] = []
    seen: set[tuple[int, str]] = set()
    for index, item in enumerate(metrics):
        where = f"metric row {index} ({item!r})"
        try:
            if isinstance(item, Mapping):
                day, metric, value = item["day"], item["metric"], item["value"]
                units = item.get("units", "")
            else:
                day, metric, value, units = item
        except (KeyError, TypeError, ValueError):
            raise StoreError(f"{where}: expected (day, metric, value, units)") from None
        if not isinstance(day, int) or isinstance(day, bool):
            raise StoreError(f"{where}: day must be an integer")
        if not isinstance(metric, str) or not metric:
            raise StoreError(f"{where}: metric id must be a non-empty string")
        if not isinstance(units, str):
            raise StoreError(f"{where}: units must be a string")
        if (day, metric) in seen:
            raise StoreError(f"{where}: metric {metric!r} is given twice for day {day}")
        seen.add((day, metric))
        rows.append(
            {"day": day, "metric": metric, "value": _metric_value(value, where), "units": units}
        )
    return rows


def _posting_rows(book: Book) -> Iterator[dict[str, Any]]:
    units = book.accounts
    for txn in book.transactions:
        tags = dumps(dict(txn.tags)).decode("utf-8")
        for leg, (account, amount) in enumerate(txn.postings):
            yield {
                "seq": txn.seq,
                "leg": leg,
                "day": txn.day,
                "narration": txn.narration,
                "account": account,
                "unit": units[account],
                "amount": amount,
                "tags": tags,
            }


def _balance_rows(book: Book) -> Iterator[dict[str, Any]]:
    units = book.accounts
    last = book.last_closed_day
    if last is None:
        return
    for day in range(book.first_day, last + 1):
        for account, balance in book.balances(day).items():
            yield {"day": day, "account": account, "unit": units[account], "balance": balance}


def _table(db: Database, name: str) -> Table:
    """The table `name` (sqlite-utils types `db[name]` as Table | View; the store has no views)."""
    return db.table(name)


def _fill(db: Database, book: Book, metrics: list[dict[str, Any]]) -> None:
    _table(db, "postings").create(
        {
            "seq": int,
            "leg": int,
            "day": int,
            "narration": str,
            "account": str,
            "unit": str,
            "amount": int,
            "tags": str,
        },
        pk=("seq", "leg"),
        not_null={"day", "narration", "account", "unit", "amount", "tags"},
        strict=True,
    )
    _table(db, "balances").create(
        {"day": int, "account": str, "unit": str, "balance": int},
        pk=("day", "account"),
        not_null={"unit", "balance"},
        strict=True,
    )
    _table(db, "metrics").create(
        {"day": int, "metric": str, "value": "ANY", "units": str},
        pk=("metric", "day"),
        not_null={"units"},
        strict=True,
    )
    _table(db, "accounts").create(
        {"account": str, "unit": str, "root": str}, pk="account", strict=True
    )
    _table(db, "meta").create({"key": str, "value": "ANY"}, pk="key", strict=True)

    _table(db, "postings").insert_all(_posting_rows(book), batch_size=2000)
    _table(db, "balances").insert_all(_balance_rows(book), batch_size=2000)
    _table(db, "metrics").insert_all(metrics, batch_size=2000)
    _table(db, "accounts").insert_all(
        {"account": a, "unit": u, "root": a.split(":", 1)[0]} for a, u in book.accounts.items()
    )
    _table(db, "meta").insert_all(
        {"key": k, "value": v}
        for k, v in {
            "schema": SCHEMA,
            "ledger_digest": book.digest(),
            "first_day": book.first_day,
            "open_day": book.open_day,
            "last_closed_day": book.last_closed_day,
            "transactions": len(book.transactions),
        }.items()
    )
    _table(db, "postings").create_index(["day"])
    _table(db, "postings").create_index(["account"])
    _table(db, "balances").create_index(["account"])
    _table(db, "metrics").create_index(["day"])


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
        conn = sqlite3.connect(temp)
        try:
            # The temp file is discarded on any failure, so SQLite's own journal is not needed.
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            _fill(Database(conn), book, rows)
            conn.commit()
        finally:
            conn.close()
        _fsync_path(temp)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    _fsync_path(target.parent)
    return target


# -- reading ---------------------------------------------------------------------------


@contextlib.contextmanager
def _reader(db_path: Path | str) -> Iterator[Database]:
    path = Path(db_path)
    if not path.is_file():
        raise StoreError(f"no store at {path}: rebuild it from the journal")
    conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        yield Database(conn)
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"store {path} cannot be read ({exc}): rebuild it") from exc
    finally:
        conn.close()


def read_meta(db_path: Path | str) -> dict[str, Any]:
    """The store's meta table: schema, ledger_digest, first_day, open_day, last_closed_day."""
    with _reader(db_path) as db:
        return {key: value for key, value in db.execute("SELECT key, value FROM meta")}


def read_days(db_path: Path | str) -> list[int]:
    """Every closed day that has balances, ascending."""
    with _reader(db_path) as db:
        return [row[0] for row in db.execute("SELECT DISTINCT day FROM balances ORDER BY day")]


def read_accounts(db_path: Path | str) -> dict[str, str]:
    """{account: unit} in chart order."""
    with _reader(db_path) as db:
        return dict(db.execute("SELECT account, unit FROM accounts ORDER BY rowid"))


def read_balances(db_path: Path | str, day: int) -> dict[str, int]:
    """{account: balance} at the close of `day`, like `Book.balances(day)`."""
    with _reader(db_path) as db:
        rows = db.execute(
            "SELECT account, balance FROM balances WHERE day = ? ORDER BY rowid", [day]
        ).fetchall()
    if not rows:
        raise StoreError(f"day {day} has no stored balances (it was not closed)")
    return dict(rows)


def read_balance_series(db_path: Path | str, account: str) -> list[tuple[int, int]]:
    """(day, balance at close) for one account over every closed day."""
    with _reader(db_path) as db:
        rows = db.execute(
            "SELECT day, balance FROM balances WHERE account = ? ORDER BY day", [account]
        ).fetchall()
    if not rows and account not in read_accounts(db_path):
        raise StoreError(f"unknown account {account!r}")
    return [(day, balance) for day, balance in rows]


def read_postings(
    db_path: Path | str, *, day: int | None = None, account: str | None = None
) -> list[PostingRow]:
    """Stored postings in posting order, optionally only one day's and/or one account's."""
    where: list[str] = []
    params: list[Any] = []
    if day is not None:
        where.append("day = ?")
        params.append(day)
    if account is not None:
        where.append("account = ?")
        params.append(account)
    clause = f" WHERE {' AND '.join(where)}" if where else ""
    sql = (
        "SELECT seq, leg, day, narration, account, unit, amount, tags FROM postings"
        f"{clause} ORDER BY seq, leg"
    )
    with _reader(db_path) as db:
        rows = db.execute(sql, params).fetchall()
    return [
        PostingRow(seq, leg, day, narration, account, unit, amount, loads(tags))
        for seq, leg, day, narration, account, unit, amount, tags in rows
    ]


def read_metric_ids(db_path: Path | str) -> list[str]:
    """Every stored metric id, sorted."""
    with _reader(db_path) as db:
        return [row[0] for row in db.execute("SELECT DISTINCT metric FROM metrics ORDER BY 1")]


def read_metric_series(db_path: Path | str, metric: str) -> list[tuple[int, MetricValue]]:
    """(day, value) for one metric, ascending by day; empty when the metric is unknown."""
    with _reader(db_path) as db:
        rows = db.execute(
            "SELECT day, value FROM metrics WHERE metric = ? ORDER BY day", [metric]
        ).fetchall()
    return [(day, value) for day, value in rows]


def read_metrics(db_path: Path | str, day: int) -> list[MetricRow]:
    """Every metric stored for one day, sorted by metric id."""
    with _reader(db_path) as db:
        rows = db.execute(
            "SELECT day, metric, value, units FROM metrics WHERE day = ? ORDER BY metric", [day]
        ).fetchall()
    return [MetricRow(*row) for row in rows]
