"""The beancount export passes the real bean-check, agrees with our balances, and bites."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from beancount import loader
from beancount.core import data

from ledger.book import Book
from ledger.export import beancount_account, to_beancount
from ledger.money import scale_of
from tests.ledger.synthetic import build_book

BEAN_CHECK = Path(sys.executable).parent / "bean-check"
START = date(2025, 3, 1)
DAYS = 21


@pytest.fixture(scope="module")
def book() -> Book:
    built = build_book(days=DAYS)
    assert len(built.transactions) >= 100
    return built


@pytest.fixture(scope="module")
def exported(book: Book, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("beancount") / "ledger.beancount"
    path.write_text(to_beancount(book, START), encoding="utf-8")
    return path


def _bean_check(path: Path) -> subprocess.CompletedProcess[str]:
    assert BEAN_CHECK.exists(), f"bean-check not found beside {sys.executable}"
    return subprocess.run(
        [str(BEAN_CHECK), str(path)], capture_output=True, text=True, timeout=120, check=False
    )


def test_bean_check_accepts_the_export(exported: Path) -> None:
    result = _bean_check(exported)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


def test_beancount_balances_match_ours_at_every_day_close(exported: Path, book: Book) -> None:
    entries, errors, _ = loader.load_file(str(exported))
    assert errors == []
    transactions = [e for e in entries if isinstance(e, data.Transaction)]
    assert len(transactions) == len(book.transactions)
    assert len([e for e in entries if isinstance(e, data.Balance)]) == DAYS * len(book.accounts)

    units = book.accounts
    by_date: dict[date, list[data.Transaction]] = defaultdict(list)
    for txn in transactions:
        by_date[txn.date].append(txn)
    running: dict[str, Decimal] = defaultdict(Decimal)
    for day in range(DAYS):
        for txn in by_date[START + timedelta(days=day)]:
            for posting in txn.postings:
                running[posting.account] += posting.units.number
        for account, minor in book.balances(day).items():
            expected = Decimal(minor) / scale_of(units[account])
            assert running[beancount_account(account)] == expected, (day, account)


def test_beancount_keeps_narrations_tags_and_dates(exported: Path, book: Book) -> None:
    entries, _, _ = loader.load_file(str(exported))
    transactions = [e for e in entries if isinstance(e, data.Transaction)]
    for ours, theirs in zip(book.transactions, transactions, strict=True):
        assert theirs.narration == ours.narration
        assert theirs.date == START + timedelta(days=ours.day)
        if ours.tag("kind") is not None:
            assert theirs.meta["kind"] == ours.tag("kind")
        if ours.tag("SKU") is not None:
            assert theirs.meta["tag-534b55"] == ours.tag("SKU")
        assert [(p.account, p.units.currency) for p in theirs.postings] == [
            (beancount_account(a), book.unit_of(a)) for a, _ in ours.postings
        ]


def _transaction_blocks(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of each transaction block in exported text."""
    return [
        (m.start(), m.end())
        for m in re.finditer(r"^\d{4}-\d\d-\d\d \* .*?(?=\n\n|\Z)", text, flags=re.M | re.S)
    ]


def test_a_consistently_altered_transaction_fails_a_balance_assertion(
    exported: Path, tmp_path: Path
) -> None:
    text = exported.read_text(encoding="utf-8")
    blocks = [b for b in _transaction_blocks(text) if '"Wages"' in text[b[0] : b[1]]]
    start, end = blocks[len(blocks) // 2]
    block = text[start:end]
    altered = block.replace("480.00 USD", "480.01 USD")
    assert altered != block and altered.count("480.01") == 2
    path = tmp_path / "altered.beancount"
    path.write_text(text[:start] + altered + text[end:], encoding="utf-8")
    result = _bean_check(path)
    assert result.returncode != 0
    assert "Balance failed for 'Expenses:Wages'" in result.stderr
    assert "Balance failed for 'Assets:Bank'" in result.stderr


def test_one_changed_amount_makes_bean_check_fail(exported: Path, tmp_path: Path) -> None:
    text = exported.read_text(encoding="utf-8")
    assert text.count("  Expenses:Rent  2100.00 USD\n") >= 1
    path = tmp_path / "altered.beancount"
    path.write_text(
        text.replace("  Expenses:Rent  2100.00 USD\n", "  Expenses:Rent  2100.50 USD\n", 1),
        encoding="utf-8",
    )
    result = _bean_check(path)
    assert result.returncode != 0
    assert "Balance failed for 'Expenses:Rent'" in result.stderr


def test_a_one_unit_error_in_a_balance_assertion_is_caught(exported: Path, tmp_path: Path) -> None:
    text = exported.read_text(encoding="utf-8")
    match = re.search(r"^(\S+ balance Equity:Memo:Units:Sold  )(\d+)( ~ 0 UNITS)$", text, re.M)
    assert match is not None
    wrong = f"{match.group(1)}{int(match.group(2)) + 1}{match.group(3)}"
    path = tmp_path / "altered.beancount"
    path.write_text(text[: match.start()] + wrong + text[match.end() :], encoding="utf-8")
    result = _bean_check(path)
    assert result.returncode != 0
    assert "Balance failed for 'Equity:Memo:Units:Sold'" in result.stderr
