"""A deterministic multi-week book with every account root, used by store and export tests."""

from __future__ import annotations

import random

from ledger.accounts import Chart
from ledger.book import Book

CHART = Chart.of(
    {
        "Assets:Bank": "USD",
        "Assets:Bank:Savings": "USD",
        "Assets:Inventory": "USD",
        "Assets:Receivables": "USD",
        "Liabilities:Payables": "USD",
        "Liabilities:Loan": "USD",
        "Equity:Opening": "USD",
        "Income:Sales": "USD",
        "Income:Interest": "USD",
        "Expenses:Cogs": "USD",
        "Expenses:Wages": "USD",
        "Expenses:Rent": "USD",
        "Memo:Units:Stock": "UNITS",
        "Memo:Units:Sold": "UNITS",
        "Memo:Units:Received": "UNITS",
    }
)


def build_book(days: int = 21, seed: int = 7, close_last: bool = True) -> Book:
    """A book of `days` days, ≥ 5 transactions a day, mixing USD and UNITS postings."""
    rng = random.Random(seed)
    book = Book(CHART)
    book.post(0, "Opening capital", [("Assets:Bank", 5_000_000), ("Equity:Opening", -5_000_000)])
    book.post(0, "Loan drawn", [("Assets:Bank", 1_000_000), ("Liabilities:Loan", -1_000_000)])
    for day in range(days):
        received = rng.randint(5, 40)
        cost = received * 1_250
        book.post(
            day,
            f"Stock received, day {day}",
            [
                ("Assets:Inventory", cost),
                ("Liabilities:Payables", -cost),
                ("Memo:Units:Stock", received),
                ("Memo:Units:Received", -received),
            ],
            {"kind": "receipt", "SKU": "widget-1"},
        )
        for order in range(rng.randint(2, 4)):
            units = rng.randint(1, 9)
            price = rng.choice([1_999, 2_450, 3_001])
            book.post(
                day,
                f'Sale #{day}-{order} to "Café Ünïcode", net \\ 30',
                [
                    ("Assets:Receivables", units * price),
                    ("Income:Sales", -units * price),
                    ("Expenses:Cogs", units * 1_250),
                    ("Assets:Inventory", -units * 1_250),
                    ("Memo:Units:Sold", units),
                    ("Memo:Units:Stock", -units),
                ],
                {"kind": "sale", "order": f"{day}-{order}"},
            )
        collected = book.balance("Assets:Receivables") // 2
        book.post(
            day, "Collections", [("Assets:Bank", collected), ("Assets:Receivables", -collected)]
        )
        book.post(day, "Wages", [("Expenses:Wages", 48_000), ("Assets:Bank", -48_000)])
        if day % 7 == 6:
            owed = -book.balance("Liabilities:Payables")
            book.post(
                day, "Pay suppliers", [("Liabilities:Payables", owed), ("Assets:Bank", -owed)]
            )
            book.post(day, "Weekly rent", [("Expenses:Rent", 210_000), ("Assets:Bank", -210_000)])
            book.post(
                day,
                "Sweep to savings",
                [("Assets:Bank:Savings", 100_000), ("Assets:Bank", -100_000)],
            )
            book.post(
                day, "Savings interest", [("Assets:Bank:Savings", 37), ("Income:Interest", -37)]
            )
        if day == days // 2:
            book.post(
                day, "Loan repayment", [("Liabilities:Loan", 250_000), ("Assets:Bank", -250_000)]
            )
        if close_last or day < days - 1:
            book.close_day(day)
    return book
