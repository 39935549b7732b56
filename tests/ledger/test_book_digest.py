"""The incremental ledger digest: equal to its plain definition however it was computed,
carried by forks and pickles, and changed by any change to any transaction."""

from __future__ import annotations

import hashlib
import pickle

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ledger.book import LEDGER_DIGEST_SCHEMA, Book, encode_transactions
from ledger.canonical import digest
from tests.ledger.synthetic import build_book
from tests.ledger.test_book_properties import CHART, Postings, days_of_transactions

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

GOLDEN_SYNTHETIC_DIGEST = "b03a66a39ae52870583898b42c4e752b4a190d23b11eaaec3a2a57b0f1dd6b10"
"""`build_book()`'s digest: pins the definition (docs/ledger.md) against silent change."""


def plain_digest(book: Book) -> str:
    """The digest as docs/ledger.md defines it, computed in one pass over the whole book."""
    transactions = hashlib.sha256(encode_transactions(book.transactions)).hexdigest()
    return digest(
        {
            "schema": LEDGER_DIGEST_SCHEMA,
            "chart": book.accounts,
            "first_day": book.first_day,
            "open_day": book.open_day,
            "transactions": transactions,
        }
    )


def _replay(days: list[list[Postings]], digest_after: set[int], fork_after: set[int]) -> Book:
    """Build a book day by day, taking digests and forking (continuing on the fork) on the way."""
    book = Book(CHART)
    step = 0
    for day, transactions in enumerate(days):
        for index, legs in enumerate(transactions):
            book.post(day, f"txn {day}.{index}", legs, {"i": str(index)})
            step += 1
            if step in digest_after:
                assert book.digest() == plain_digest(book)
            if step in fork_after:
                book = book.fork()
        book.close_day(day)
    return book


def test_golden_digest_of_the_synthetic_book() -> None:
    book = build_book()
    assert plain_digest(book) == book.digest() == GOLDEN_SYNTHETIC_DIGEST


@SETTINGS
@given(
    days_of_transactions,
    st.sets(st.integers(0, 40), max_size=8),
    st.sets(st.integers(0, 40), max_size=4),
)
def test_digest_is_its_definition_whenever_it_is_taken(
    days: list[list[Postings]], digest_after: set[int], fork_after: set[int]
) -> None:
    book = _replay(days, digest_after, fork_after)
    assert book.digest() == plain_digest(book) == _replay(days, set(), set()).digest()


def _tamper(legs: Postings, change: str) -> Postings:
    """The legs with one balanced change: an amount moved between legs, or two legs swapped."""
    units = CHART.units()
    first = legs[0]
    other = next(i for i in range(1, len(legs)) if units[legs[i][0]] == units[first[0]])
    changed = list(legs)
    if change == "amount":
        changed[0] = (first[0], first[1] + 1)
        changed[other] = (legs[other][0], legs[other][1] - 1)
    else:
        changed[0], changed[other] = legs[other], first
    return changed


@SETTINGS
@given(days_of_transactions, st.data())
def test_any_changed_transaction_changes_the_digest(
    days: list[list[Postings]], data: st.DataObject
) -> None:
    where = [(d, i) for d, txns in enumerate(days) for i in range(len(txns))]
    if not where:
        return
    day, index = data.draw(st.sampled_from(where))
    change = data.draw(st.sampled_from(["amount", "swap", "narration", "tag", "day"]))
    legs = days[day][index]
    unchanged = change == "swap" and _tamper(legs, change) == list(legs)
    if unchanged or (change == "day" and day == len(days) - 1):
        return
    book = Book(CHART)
    moved: list[tuple[Postings, str, dict[str, str]]] = []
    for d, transactions in enumerate(days):
        for postings, narration, tags in moved:
            book.post(d, narration, postings, tags)
        moved.clear()
        for i, postings in enumerate(transactions):
            narration, tags = f"txn {d}.{i}", {"i": str(i)}
            if (d, i) == (day, index):
                if change in ("amount", "swap"):
                    postings = _tamper(postings, change)
                elif change == "narration":
                    narration += " (edited)"
                elif change == "tag":
                    tags["edited"] = "yes"
                else:
                    moved.append((postings, narration, tags))
                    continue
            book.post(d, narration, postings, tags)
        book.close_day(d)
    assert book.digest() != _replay(days, set(), set()).digest()


def test_each_close_and_the_open_day_count() -> None:
    book = build_book(days=3)
    before = book.digest()
    book.close_day(book.open_day)
    assert book.digest() != before


def test_fork_shares_the_hashed_prefix_and_forks_diverge() -> None:
    book = build_book(days=10, close_last=True)
    twin = book.fork()
    assert book._hashed == twin._hashed == len(book.transactions)
    twin.post(twin.open_day, "fork only", [("Expenses:Rent", 5), ("Assets:Bank", -5)])
    assert twin.digest() != book.digest()
    assert twin.digest() == plain_digest(twin) and book.digest() == plain_digest(book)


def test_pickled_book_keeps_its_digest_and_continues() -> None:
    book = build_book(days=5)
    book.digest()
    copy = pickle.loads(pickle.dumps(book))
    assert copy.digest() == book.digest()
    for b in (book, copy):
        b.post(b.open_day, "after pickle", [("Expenses:Rent", 7), ("Assets:Bank", -7)])
    assert copy.digest() == book.digest() == plain_digest(book)


def test_empty_book_digest_is_defined() -> None:
    book = Book(CHART, first_day=3)
    assert book.transactions_sha256() == hashlib.sha256(b"[]").hexdigest()
    assert book.digest() == plain_digest(book)
