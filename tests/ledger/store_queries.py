"""The documented store queries (docs/ledger.md), in plain sqlite3, for the store tests."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

Posting = tuple[int, int, int, str, str, str, int, dict[str, str]]
"""(seq, leg, day, narration, account, unit, amount, tags)"""


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    """Every row of one read-only query."""
    conn = sqlite3.connect(db.resolve().as_uri() + "?mode=ro", uri=True)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def postings(db: Path, where: str = "", *params: Any) -> list[Posting]:
    """Rows of the `postings` view, in posting order."""
    rows = query(
        db,
        "SELECT seq, leg, day, narration, account, unit, amount, tags FROM postings"
        f" {where} ORDER BY seq, leg",
        *params,
    )
    return [(*row[:7], orjson.loads(row[7])) for row in rows]


def balances_at(db: Path, day: int) -> dict[str, int]:
    """{account: balance} at the close of `day`, in chart order, from the `balances` view."""
    rows = query(
        db,
        "SELECT b.account, b.balance FROM balances b JOIN accounts a USING (account)"
        " WHERE b.day = ? ORDER BY a.id",
        day,
    )
    return dict(rows)


def closed_days(db: Path) -> list[int]:
    """Every closed day, from the meta table."""
    meta = dict(query(db, "SELECT key, value FROM meta"))
    last = meta["last_closed_day"]
    return [] if last is None else list(range(meta["first_day"], last + 1))
