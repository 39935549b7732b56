"""Beancount text and CSV exports: exact amounts, escaping, memo mapping, dates."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import pytest

from ledger.accounts import Chart
from ledger.book import Book
from ledger.canonical import loads
from ledger.export import (
    CSV_COLUMNS,
    ExportError,
    beancount_account,
    beancount_string,
    decimal_text,
    meta_key,
    to_beancount,
    to_csv,
)
from ledger.money import scale_of
from tests.ledger.synthetic import build_book

START = date(2024, 2, 27)


@pytest.mark.parametrize(
    ("minor", "unit", "text"),
    [
        (1234, "USD", "12.34"),
        (-1234, "USD", "-12.34"),
        (5, "USD", "0.05"),
        (-5, "USD", "-0.05"),
        (0, "USD", "0.00"),
        (100, "USD", "1.00"),
        (123456789012345678901, "USD", "1234567890123456789.01"),
        (5, "UNITS", "5"),
        (-7, "UNITS", "-7"),
        (0, "UNITS", "0"),
    ],
)
def test_decimal_text_is_exact(minor: int, unit: str, text: str) -> None:
    assert decimal_text(minor, unit) == text
    assert Decimal(text) * scale_of(unit) == minor


@pytest.mark.parametrize(
    ("name", "exported"),
    [
        ("Memo:Units:Sold", "Equity:Memo:Units:Sold"),
        ("Memo:Stock", "Equity:Memo:Stock"),
        ("Assets:Cash", "Assets:Cash"),
        ("Equity:Memorial", "Equity:Memorial"),
    ],
)
def test_memo_accounts_move_under_equity(name: str, exported: str) -> None:
    assert beancount_account(name) == exported


def test_beancount_strings_escape_quotes_and_backslashes() -> None:
    assert beancount_string('say "hi" \\n') == '"say \\"hi\\" \\\\n"'


@pytest.mark.parametrize(
    ("tag", "key"),
    [
        ("kind", "kind"),
        ("order_id", "order_id"),
        ("a-B9", "a-B9"),
        ("SKU", "tag-534b55"),
        ("lineno", "tag-6c696e656e6f"),
        ("é", "tag-c3a9"),
        ("", "tag-"),
    ],
)
def test_tag_keys_become_valid_metadata_keys(tag: str, key: str) -> None:
    assert meta_key(tag) == key


def _small_book(first_day: int = 0) -> Book:
    book = Book(
        Chart.of(
            {
                "Assets:Cash": "USD",
                "Income:Sales": "USD",
                "Memo:Units:Sold": "UNITS",
                "Memo:Units:Out": "UNITS",
            }
        ),
        first_day=first_day,
    )
    book.post(
        first_day,
        'Sale "one"',
        [
            ("Assets:Cash", 1234),
            ("Income:Sales", -1234),
            ("Memo:Units:Sold", 5),
            ("Memo:Units:Out", -5),
        ],
        {"kind": "sale", "SKU": "w-1"},
    )
    book.close_day(first_day)
    book.post(
        first_day + 1, "Refund, partial\nsecond line", [("Assets:Cash", -34), ("Income:Sales", 34)]
    )
    return book


def test_beancount_text_layout() -> None:
    text = to_beancount(_small_book(first_day=2), START, title="Run 7")
    assert text.splitlines()[:2] == ['option "operating_currency" "USD"', 'option "title" "Run 7"']
    assert "2024-02-29 commodity UNITS\n2024-02-29 commodity USD\n" in text
    for line in [
        "2024-02-29 open Assets:Cash USD",
        "2024-02-29 open Income:Sales USD",
        "2024-02-29 open Equity:Memo:Units:Sold UNITS",
        "2024-02-29 open Equity:Memo:Units:Out UNITS",
    ]:
        assert line + "\n" in text
    assert (
        '2024-02-29 * "Sale \\"one\\""\n'
        '  tag-534b55: "w-1"\n'
        '  kind: "sale"\n'
        "  Assets:Cash  12.34 USD\n"
        "  Income:Sales  -12.34 USD\n"
        "  Equity:Memo:Units:Sold  5 UNITS\n"
        "  Equity:Memo:Units:Out  -5 UNITS\n"
    ) in text
    assert "2024-03-01 balance Assets:Cash  12.34 ~ 0 USD\n" in text
    assert "2024-03-01 balance Equity:Memo:Units:Sold  5 ~ 0 UNITS\n" in text
    assert '2024-03-01 * "Refund, partial\nsecond line"\n  Assets:Cash  -0.34 USD\n' in text
    assert text.count(" balance ") == 4
    assert "Memo:Units" not in text.replace("Equity:Memo:Units", "")


def test_beancount_asserts_subtree_sums_for_parent_accounts() -> None:
    book = Book(
        Chart.of({"Assets:Bank": "USD", "Assets:Bank:Savings": "USD", "Equity:Opening": "USD"})
    )
    book.post(
        0, "open", [("Assets:Bank", 700), ("Assets:Bank:Savings", 300), ("Equity:Opening", -1000)]
    )
    book.close_day(0)
    text = to_beancount(book, START)
    assert "2024-02-28 balance Assets:Bank  10.00 ~ 0 USD\n" in text
    assert "2024-02-28 balance Assets:Bank:Savings  3.00 ~ 0 USD\n" in text


def test_units_beancount_cannot_hold_are_refused() -> None:
    book = Book(Chart.of({"Assets:Crates": "CRATE_", "Equity:Crates": "CRATE_"}))
    with pytest.raises(ExportError, match="unit 'CRATE_' of account Assets:Crates"):
        to_beancount(book)


def test_memo_names_colliding_with_equity_are_refused() -> None:
    book = Book(Chart.of({"Memo:Stock": "UNITS", "Equity:Memo:Stock": "UNITS"}))
    with pytest.raises(ExportError, match="Memo:Stock and Equity:Memo:Stock both export"):
        to_beancount(book)


def test_colliding_metadata_keys_are_refused() -> None:
    book = Book(Chart.of({"Assets:Cash": "USD", "Equity:Opening": "USD"}))
    book.post(
        0, "tagged", [("Assets:Cash", 1), ("Equity:Opening", -1)], {"SKU": "a", "tag-534b55": "b"}
    )
    with pytest.raises(ExportError, match="transaction 0 .*metadata key tag-534b55"):
        to_beancount(book)


def test_an_empty_book_exports_only_declarations() -> None:
    text = to_beancount(Book(Chart.of({"Assets:Cash": "USD"})), START)
    assert " * " not in text and " balance " not in text
    assert "2024-02-27 open Assets:Cash USD\n" in text


def test_csv_has_one_exact_row_per_posting() -> None:
    book = build_book(days=4)
    rows = list(csv.DictReader(io.StringIO(to_csv(book, START))))
    postings = [
        (t, leg, a, amount) for t in book.transactions for leg, (a, amount) in enumerate(t.postings)
    ]
    assert len(rows) == len(postings)
    for row, (txn, leg, account, amount) in zip(rows, postings, strict=True):
        assert tuple(row) == CSV_COLUMNS
        assert (int(row["seq"]), int(row["leg"]), int(row["day"])) == (txn.seq, leg, txn.day)
        assert row["date"] == date.fromordinal(START.toordinal() + txn.day).isoformat()
        assert (row["narration"], row["account"]) == (txn.narration, account)
        assert row["unit"] == book.unit_of(account)
        assert Decimal(row["amount"]) * scale_of(row["unit"]) == amount
        assert loads(row["tags"]) == dict(txn.tags)


def test_csv_quotes_awkward_narrations() -> None:
    rows = list(csv.reader(io.StringIO(to_csv(_small_book()))))
    assert rows[0] == list(CSV_COLUMNS)
    assert rows[1] == [
        "0",
        "0",
        "0",
        "2025-01-01",
        'Sale "one"',
        "Assets:Cash",
        "USD",
        "12.34",
        '{"SKU":"w-1","kind":"sale"}',
    ]
    assert rows[5][4] == "Refund, partial\nsecond line"
    assert rows[5][7] == "-0.34"
    assert rows[3][6:8] == ["UNITS", "5"]
