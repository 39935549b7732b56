"""The double-entry book: balanced transactions, day closes and balance queries.

Amounts are integer minor units of each account's unit. A transaction must sum
to zero per unit; otherwise it is refused whole and the book is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ledger.accounts import AccountType, Chart
from ledger.canonical import digest


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
    )

    def __init__(self, chart: Chart, first_day: int = 0) -> None:
        self._units: dict[str, str] = chart.units()
        self._balances: dict[str, int] = dict.fromkeys(self._units, 0)
        self._transactions: list[Transaction] = []
        self._closes: list[dict[str, int]] = []
        self._first_day = first_day
        self._open_day = first_day
        self._prefix_cache: dict[str, tuple[str, ...]] = {}

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

    def open_account(self, name: str, unit: str) -> None:
        """Add an account to the chart (idempotent when the unit matches)."""
        from ledger.accounts import Account

        existing = self._units.get(name)
        if existing is not None:
            if existing != unit:
                raise LedgerError(f"account {name} is kept in {existing}, not {unit}")
            return
        Account(name, unit)
        self._units[name] = unit
        self._balances[name] = 0
        # Rebuild rather than mutate: forks share these close dicts with their parent.
        self._closes = [{**closes, name: 0} for closes in self._closes]
        self._prefix_cache.clear()

    def close_day(self, day: int) -> None:
        """Close the open day: freeze its balances; later postings go to the next day."""
        if day != self._open_day:
            raise LedgerError(f"cannot close day {day}: the open day is {self._open_day}")
        self._closes.append(dict(self._balances))
        self._open_day = day + 1

    def fork(self) -> Book:
        """An independent copy sharing the immutable history (cheap: no replay)."""
        twin = Book.__new__(Book)
        twin._units = dict(self._units)
        twin._balances = dict(self._balances)
        twin._transactions = list(self._transactions)
        twin._closes = list(self._closes)
        twin._first_day = self._first_day
        twin._open_day = self._open_day
        twin._prefix_cache = dict(self._prefix_cache)
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

    def transactions_since(self, seq: int) -> list[Transaction]:
        """Transactions with sequence number ≥ `seq` (cheap tail read)."""
        return self._transactions[seq:]

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

    def digest(self) -> str:
        """SHA-256 over the chart, every transaction and every day close."""
        return digest(
            {
                "chart": self._units,
                "first_day": self._first_day,
                "transactions": [t.as_record() for t in self._transactions],
                "closes": self._closes,
            }
        )
