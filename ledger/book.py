"""The double-entry book: balanced transactions, day closes and balance queries.

Amounts are integer minor units of each account's unit. A transaction must sum
to zero per unit; otherwise it is refused whole and the book is unchanged.

The book's digest hashes every transaction through a running SHA-256 carried by the
book and its forks, so taking it costs the transactions posted since the last time,
not the whole history (see `Book.digest`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import orjson

from ledger.accounts import AccountType, Chart
from ledger.canonical import digest
from ledger.collector import collector_paused

LEDGER_DIGEST_SCHEMA = "cfwb.ledger-digest/2"
"""Names the digest definition below; it changes whenever the definition does."""


_HASH_BATCH = 4096
"""Transactions encoded per hash update: enough to amortise the call, few enough to die young."""


class LedgerError(ValueError):
    """A transaction or query the book refuses; the message names what and where."""


@dataclass(frozen=True, slots=True)
class Transaction:
    """A set of postings on one day that sums to zero per unit."""

    seq: int
    day: int
    narration: str
    postings: tuple[tuple[str, int], ...]
    tags: tuple[tuple[str, str], ...] = ()

    def tag(self, key: str) -> str | None:
        """The value of tag `key`, or None."""
        for k, v in self.tags:
            if k == key:
                return v
        return None

    def as_record(self) -> dict[str, object]:
        """A plain dict for canonical encoding and export."""
        return {
            "seq": self.seq,
            "day": self.day,
            "narration": self.narration,
            "postings": [list(p) for p in self.postings],
            "tags": dict(self.tags),
        }


def encode_transactions(transactions: Iterable[Transaction]) -> bytes:
    """Rows `[seq, day, narration, [[account, amount]...], [[tag, value]...]]` as canonical JSON."""
    # Rows hold no objects, so plain orjson is already canonical (and skips key sorting).
    return orjson.dumps([(t.seq, t.day, t.narration, t.postings, t.tags) for t in transactions])


class Book:
    """A ledger over a chart: post transactions, close days, query balances."""

    __slots__ = (
        "_units",
        "_balances",
        "_transactions",
        "_closes",
        "_first_day",
        "_open_day",
        "_prefix_cache",
        "_hasher",
        "_hashed",
    )

    def __init__(self, chart: Chart, first_day: int = 0) -> None:
        self._units: dict[str, str] = chart.units()
        self._balances: dict[str, int] = dict.fromkeys(self._units, 0)
        self._transactions: list[Transaction] = []
        self._closes: list[dict[str, int]] = []
        self._first_day = first_day
        self._open_day = first_day
        self._prefix_cache: dict[str, tuple[str, ...]] = {}
        self._hasher = hashlib.sha256()
        self._hashed = 0

    # -- building -----------------------------------------------------------------
    def post(
        self,
        day: int,
        narration: str,
        postings: Iterable[tuple[str, int]],
        tags: Mapping[str, str] | None = None,
    ) -> Transaction:
        """Apply a balanced transaction on the open day, or refuse it whole."""
        if day != self._open_day:
            raise LedgerError(
                f"transaction {narration!r} is dated day {day} but the open day is {self._open_day}"
            )
        legs = tuple(postings)
        if not legs:
            raise LedgerError(f"transaction {narration!r} has no postings")
        units = self._units
        sums: dict[str, int] = {}
        for account, amount in legs:
            unit = units.get(account)
            if unit is None:
                raise LedgerError(f"transaction {narration!r} names unknown account {account!r}")
            if type(amount) is not int:
                raise LedgerError(
                    f"transaction {narration!r} posts a non-integer amount {amount!r} to {account}"
                )
            sums[unit] = sums.get(unit, 0) + amount
        for unit, total in sums.items():
            if total:
                raise LedgerError(
                    f"transaction {narration!r} does not balance: {unit} postings sum to {total}"
                )
        balances = self._balances
        for account, amount in legs:
            balances[account] += amount
        txn = Transaction(
            len(self._transactions),
            day,
            narration,
            legs,
            tuple(sorted(tags.items())) if tags else (),
        )
        self._transactions.append(txn)
        return txn

    def close_day(self, day: int) -> None:
        """Close the open day: freeze its balances; later postings go to the next day."""
        if day != self._open_day:
            raise LedgerError(f"cannot close day {day}: the open day is {self._open_day}")
        self._closes.append(dict(self._balances))
        self._open_day = day + 1

    def fork(self) -> Book:
        """An independent copy sharing the immutable history (cheap: no replay).

        The running hash is brought up to date first, so the copy and the original
        share the hashing of the history before the fork.
        """
        self._hash_new_transactions()
        twin = Book.__new__(Book)
        twin._units = dict(self._units)
        twin._balances = dict(self._balances)
        twin._transactions = list(self._transactions)
        twin._closes = list(self._closes)
        twin._first_day = self._first_day
        twin._open_day = self._open_day
        twin._prefix_cache = dict(self._prefix_cache)
        twin._hasher = self._hasher.copy()
        twin._hashed = self._hashed
        return twin

    # -- queries ------------------------------------------------------------------
    @property
    def open_day(self) -> int:
        """The day new postings go to."""
        return self._open_day

    @property
    def last_closed_day(self) -> int | None:
        """The latest closed day, or None before the first close."""
        return self._open_day - 1 if self._closes else None

    @property
    def first_day(self) -> int:
        """The first day this book was opened on."""
        return self._first_day

    @property
    def transactions(self) -> tuple[Transaction, ...]:
        """Every transaction in posting order."""
        return tuple(self._transactions)

    @property
    def closes(self) -> tuple[Mapping[str, int], ...]:
        """Every closed day's balances, from `first_day` on: the book's own records, read-only
        (for a bulk reader such as the store; `balances(day)` gives a copy to keep)."""
        return tuple(self._closes)

    @property
    def accounts(self) -> dict[str, str]:
        """{account name: unit} for every account in the chart."""
        return dict(self._units)

    def unit_of(self, account: str) -> str:
        """The unit `account` is kept in."""
        try:
            return self._units[account]
        except KeyError:
            raise LedgerError(f"unknown account {account!r}") from None

    def _balances_at(self, day: int | None) -> dict[str, int]:
        if day is None:
            return self._balances
        index = day - self._first_day
        if index < 0 or index >= len(self._closes):
            raise LedgerError(
                f"day {day} is not closed (closed days: {self._first_day}..{self._open_day - 1})"
            )
        return self._closes[index]

    def balance(self, account: str, day: int | None = None) -> int:
        """Balance of one account at the close of `day` (now when None)."""
        balances = self._balances_at(day)
        try:
            return balances[account]
        except KeyError:
            raise LedgerError(f"unknown account {account!r}") from None

    def balances(self, day: int | None = None) -> dict[str, int]:
        """Every account's balance at the close of `day` (now when None)."""
        return dict(self._balances_at(day))

    def _subtree_accounts(self, prefix: str) -> tuple[str, ...]:
        cached = self._prefix_cache.get(prefix)
        if cached is None:
            cached = tuple(
                name for name in self._units if name == prefix or name.startswith(prefix + ":")
            )
            self._prefix_cache[prefix] = cached
        return cached

    def subtree(self, prefix: str, day: int | None = None) -> dict[str, int]:
        """Sum per unit of every account at or under `prefix`."""
        balances = self._balances_at(day)
        totals: dict[str, int] = {}
        for name in self._subtree_accounts(prefix):
            unit = self._units[name]
            totals[unit] = totals.get(unit, 0) + balances[name]
        return totals

    def subtree_total(self, prefix: str, unit: str, day: int | None = None) -> int:
        """Sum in one unit of every account at or under `prefix`."""
        balances = self._balances_at(day)
        units = self._units
        return sum(balances[n] for n in self._subtree_accounts(prefix) if units[n] == unit)

    def net_assets(self, day: int | None = None, unit: str = "USD") -> int:
        """Assets plus liabilities (liabilities carry credit, i.e. negative, balances)."""
        return self.subtree_total("Assets", unit, day) + self.subtree_total(
            "Liabilities", unit, day
        )

    def trial_balance(self, day: int | None = None) -> dict[str, int]:
        """Sum of all balances per unit: zero for every unit in a sound book."""
        balances = self._balances_at(day)
        totals: dict[str, int] = dict.fromkeys(sorted(set(self._units.values())), 0)
        for name, amount in balances.items():
            totals[self._units[name]] += amount
        return totals

    def trial_balance_rows(self, day: int | None = None) -> list[tuple[str, str, int]]:
        """(account, unit, balance) for every account, ordered by root then name."""
        balances = self._balances_at(day)
        order = {t.value: i for i, t in enumerate(AccountType)}
        names = sorted(self._units, key=lambda n: (order[n.split(":", 1)[0]], n))
        return [(n, self._units[n], balances[n]) for n in names]

    def _hash_new_transactions(self) -> None:
        """Feed transactions posted since the last call into the running hash.

        The hashed stream is `encode_transactions(every transaction)` without its closing
        bracket: a batch's array contributes its elements, after "[" for the first batch
        and "," for later ones, so any split into batches hashes the same bytes. Batches
        are bounded so their rows die young, and the collector is paused while they live.
        """
        transactions = self._transactions
        end = len(transactions)
        if self._hashed == end:
            return
        with collector_paused():
            for start in range(self._hashed, end, _HASH_BATCH):
                batch = encode_transactions(transactions[start : min(start + _HASH_BATCH, end)])
                self._hasher.update((b"," if start else b"[") + batch[1:-1])
        self._hashed = end

    def transactions_sha256(self) -> str:
        """SHA-256 of `encode_transactions(self.transactions)`, computed incrementally."""
        self._hash_new_transactions()
        hasher = self._hasher.copy()
        hasher.update(b"]" if self._hashed else b"[]")
        return hasher.hexdigest()

    def digest(self) -> str:
        """SHA-256 of the canonical `{schema, chart, first_day, open_day, transactions}`.

        `transactions` is `transactions_sha256()`, so a digest costs only what was posted
        since the previous one. Day closes are the balances the transactions and the open
        day determine, so they need no hashing of their own.
        """
        return digest(
            {
                "schema": LEDGER_DIGEST_SCHEMA,
                "chart": self._units,
                "first_day": self._first_day,
                "open_day": self._open_day,
                "transactions": self.transactions_sha256(),
            }
        )

    def __getstate__(self) -> dict[str, object]:
        """Pickle state: hash objects do not pickle, so the receiver re-hashes lazily."""
        state: dict[str, object] = {name: getattr(self, name) for name in Book.__slots__}
        del state["_hasher"]
        state["_hashed"] = 0
        return state

    def __setstate__(self, state: dict[str, object]) -> None:
        """Restore a pickled book with a fresh running hash."""
        for name, value in state.items():
            setattr(self, name, value)
        self._hasher = hashlib.sha256()
