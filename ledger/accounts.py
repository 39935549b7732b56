"""The chart of accounts: five money roots plus memo accounts in physical units."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class AccountType(StrEnum):
    """The root an account hangs from; it decides the account's sign and report section."""

    ASSETS = "Assets"
    LIABILITIES = "Liabilities"
    EQUITY = "Equity"
    INCOME = "Income"
    EXPENSES = "Expenses"
    MEMO = "Memo"


_NAME = re.compile(r"^(Assets|Liabilities|Equity|Income|Expenses|Memo)(:[A-Z][A-Za-z0-9-]*)+$")
_UNIT = re.compile(r"^[A-Z][A-Z0-9_]{1,23}$")


class ChartError(ValueError):
    """An account name or unit that the chart cannot hold."""


@dataclass(frozen=True, slots=True)
class Account:
    """One account: a colon path under a root, and the single unit it is kept in."""

    name: str
    unit: str

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ChartError(
                f"bad account name {self.name!r}: it must start with one of "
                "Assets, Liabilities, Equity, Income, Expenses, Memo and have "
                "capitalised colon-separated components"
            )
        if not _UNIT.match(self.unit):
            raise ChartError(f"bad unit {self.unit!r} for account {self.name}")

    @property
    def type(self) -> AccountType:
        """The account's root type."""
        return AccountType(self.name.split(":", 1)[0])


@dataclass(frozen=True, slots=True)
class Chart:
    """An ordered, immutable set of accounts, each with its unit."""

    accounts: tuple[Account, ...]

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for account in self.accounts:
            if account.name in seen:
                raise ChartError(f"account {account.name} is declared twice")
            seen.add(account.name)

    @classmethod
    def of(cls, pairs: dict[str, str]) -> Chart:
        """Build a chart from {account name: unit}."""
        return cls(tuple(Account(name, unit) for name, unit in pairs.items()))

    def units(self) -> dict[str, str]:
        """{account name: unit}."""
        return {a.name: a.unit for a in self.accounts}
