"""Export a Book as beancount text that `bean-check` accepts, and as a CSV of postings.

Both exports are pure functions returning `str`; writing files is the caller's job.

Beancount mapping:

* Day `d` is dated `start_date + d` days. Every account is opened on the book's first day.
* Memo accounts are not a beancount root, so they are exported under Equity:
  `Memo:Units:Sold` becomes `Equity:Memo:Units:Sold`. Their units become commodities.
* Amounts are exact: minor units divided by `scale_of(unit)` (1234 USD is `12.34 USD`,
  5 UNITS is `5 UNITS`). Narrations and tag values are escaped beancount strings.
* Tags become transaction metadata. A tag key that is a valid beancount metadata key is
  kept; any other key is written as `tag-<hex of its UTF-8 bytes>`.
* Each day close becomes one `balance` assertion per account. Beancount checks a balance at
  the START of its date, so the close of day `d` is asserted on `start_date + d + 1`. A
  beancount assertion covers the account and its sub-accounts in that currency, so the
  asserted amount is that subtree's sum. Assertions carry an explicit zero tolerance
  (`~ 0`): beancount's default tolerance for `12.34 USD` would let a one-cent error pass.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import date, timedelta

from ledger.book import Book, Transaction
from ledger.canonical import dumps
from ledger.money import scale_of

DEFAULT_START_DATE = date(2025, 1, 1)
"""The calendar date of day 0 when the caller does not give one."""

MEMO_ROOT = "Memo"
MEMO_EXPORT_PREFIX = "Equity:Memo"

CSV_COLUMNS = ("seq", "leg", "day", "date", "narration", "account", "unit", "amount", "tags")
"""Header of the postings CSV, one row per posting."""

_BEAN_CURRENCY = re.compile(r"^[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]$")
_BEAN_META_KEY = re.compile(r"^[a-z][a-zA-Z0-9_-]*$")
_RESERVED_META_KEYS = frozenset({"filename", "lineno"})


class ExportError(ValueError):
    """A book that cannot be written in the target format; the message names what."""


def decimal_text(minor: int, unit: str) -> str:
    """Exact decimal text of minor units in `unit` (1234 USD → '12.34', -5 UNITS → '-5')."""
    scale = scale_of(unit)
    places = len(str(scale)) - 1
    if scale != 10**places:
        raise ExportError(f"unit {unit} has scale {scale}, which is not a power of ten")
    whole, fraction = divmod(abs(minor), scale)
    sign = "-" if minor < 0 else ""
    return f"{sign}{whole}.{fraction:0{places}d}" if places else f"{sign}{whole}"


def beancount_account(name: str) -> str:
    """The beancount name of an account: memo accounts move under `Equity:Memo`."""
    root, _, rest = name.partition(":")
    return f"{MEMO_EXPORT_PREFIX}:{rest}" if root == MEMO_ROOT else name


def day_date(day: int, start_date: date = DEFAULT_START_DATE) -> date:
    """The calendar date of simulation day `day`."""
    return start_date + timedelta(days=day)


def beancount_string(text: str) -> str:
    """A double-quoted beancount string literal for `text`."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def meta_key(tag: str) -> str:
    """The beancount metadata key for a tag key (kept when valid, else hex-encoded)."""
    if _BEAN_META_KEY.match(tag) and tag not in _RESERVED_META_KEYS:
        return tag
    return "tag-" + tag.encode("utf-8").hex()


def _exported_names(book: Book) -> dict[str, str]:
    """{account: beancount name}, refusing names or units beancount cannot hold."""
    names: dict[str, str] = {}
    seen: dict[str, str] = {}
    for account, unit in book.accounts.items():
        if not _BEAN_CURRENCY.match(unit):
            raise ExportError(f"unit {unit!r} of account {account} is not a beancount currency")
        exported = beancount_account(account)
        if exported in seen:
            raise ExportError(f"accounts {seen[exported]} and {account} both export as {exported}")
        seen[exported] = account
        names[account] = exported
    return names


def _subtrees(book: Book, names: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """{account: accounts a beancount balance assertion on it sums (itself and descendants)}."""
    units = book.accounts
    result: dict[str, tuple[str, ...]] = {}
    for account, exported in names.items():
        result[account] = tuple(
            other
            for other, other_name in names.items()
            if units[other] == units[account]
            and (other_name == exported or other_name.startswith(exported + ":"))
        )
    return result


def _transaction_lines(
    txn: Transaction, names: dict[str, str], units: dict[str, str], when: date
) -> Iterator[str]:
    yield f"{when.isoformat()} * {beancount_string(txn.narration)}"
    keys: dict[str, str] = {}
    for tag, value in txn.tags:
        key = meta_key(tag)
        if key in keys:
            raise ExportError(
                f"transaction {txn.seq} ({txn.narration!r}): tags {keys[key]!r} and {tag!r} "
                f"both export as metadata key {key}"
            )
        keys[key] = tag
        yield f"  {key}: {beancount_string(str(value))}"
    for account, amount in txn.postings:
        unit = units[account]
        yield f"  {names[account]}  {decimal_text(amount, unit)} {unit}"


def to_beancount(
    book: Book, start_date: date = DEFAULT_START_DATE, title: str | None = None
) -> str:
    """The whole book as beancount text, with a balance assertion per account per day close."""
    names = _exported_names(book)
    units = book.accounts
    subtrees = _subtrees(book, names)
    opened = day_date(book.first_day, start_date).isoformat()
    lines = ['option "operating_currency" "USD"']
    if title is not None:
        lines.append(f'option "title" {beancount_string(title)}')
    lines.append("")
    lines.extend(f"{opened} commodity {unit}" for unit in sorted(set(units.values())))
    lines.append("")
    order = sorted(names, key=names.__getitem__)
    lines.extend(f"{opened} open {names[a]} {units[a]}" for a in order)

    by_day: dict[int, list[Transaction]] = {}
    for txn in book.transactions:
        by_day.setdefault(txn.day, []).append(txn)
    last_closed = book.last_closed_day
    last_day = max([*by_day, book.first_day - 1 if last_closed is None else last_closed])
    for day in range(book.first_day, last_day + 1):
        when = day_date(day, start_date)
        for txn in by_day.get(day, ()):
            lines.append("")
            lines.extend(_transaction_lines(txn, names, units, when))
        if last_closed is not None and day <= last_closed:
            closes = book.balances(day)
            asserted = (when + timedelta(days=1)).isoformat()
            lines.append("")
            for account in order:
                total = sum(closes[a] for a in subtrees[account])
                unit = units[account]
                lines.append(
                    f"{asserted} balance {names[account]}  {decimal_text(total, unit)} ~ 0 {unit}"
                )
    return "\n".join(lines) + "\n"


def to_csv(book: Book, start_date: date = DEFAULT_START_DATE) -> str:
    """Every posting as CSV rows (`CSV_COLUMNS`); amounts as exact decimal text, tags as JSON."""
    units = book.accounts
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for txn in book.transactions:
        when = day_date(txn.day, start_date).isoformat()
        tags = dumps(dict(txn.tags)).decode("utf-8")
        for leg, (account, amount) in enumerate(txn.postings):
            unit = units[account]
            writer.writerow(
                (
                    txn.seq,
                    leg,
                    txn.day,
                    when,
                    txn.narration,
                    account,
                    unit,
                    decimal_text(amount, unit),
                    tags,
                )
            )
    return out.getvalue()
