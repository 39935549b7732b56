"""Tampering with a journal file is caught and the broken line is named."""

from __future__ import annotations

from pathlib import Path

import pytest

from ledger.canonical import dumps
from ledger.journal import Journal, JournalError, entry_hash, read_entries

ENTRIES = 20
CHANGED = (
    "not valid JSON",
    "not a journal entry",
    "non-integer seq or day",
    "malformed kind or payload",
    "not in canonical encoding",
    "expected seq",
    "hash does not match",
    "previous-hash link is broken",
)


@pytest.fixture(scope="module")
def journal_bytes(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("journal") / "journal.jsonl"
    journal = Journal.open(path)
    journal.append(0, "header", "header", {"campaign": "tamper", "seed_commitment": "ab" * 32})
    for seq in range(1, ENTRIES):
        journal.append(
            seq // 4,
            "decide",
            f"cmd-{seq}",
            {
                "action": "price",
                "amount": seq * 125,
                "note": f"Ünïcode ☃ {seq}",
                "nested": {"list": [seq, None, True], "empty": {}},
            },
        )
    data = path.read_bytes()
    assert len(read_entries(data)) == ENTRIES
    return data


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def _join(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _error(data: bytes, tmp_path: Path) -> JournalError:
    path = tmp_path / "tampered.jsonl"
    path.write_bytes(data)
    with pytest.raises(JournalError) as caught:
        Journal.open(path)
    return caught.value


@pytest.mark.parametrize("line", [1, 2, 7, 13, 19, 20])
@pytest.mark.parametrize("where", [0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0])
def test_flipping_one_byte_names_its_line(
    journal_bytes: bytes, tmp_path: Path, line: int, where: float
) -> None:
    lines = _lines(journal_bytes)
    raw = bytearray(lines[line - 1])
    position = round(where * (len(raw) - 1))
    raw[position] ^= 0x01
    lines[line - 1] = bytes(raw)
    error = _error(_join(lines), tmp_path)
    assert error.line == line
    assert str(error).startswith(f"line {line}")
    assert any(reason in error.reason for reason in CHANGED), error.reason


def _prev_start(raw: bytes) -> int:
    return raw.index(b'"prev":"') + len(b'"prev":"')


@pytest.mark.parametrize("line", [2, 11, 20])
def test_flipping_a_byte_of_prev_names_its_line(
    journal_bytes: bytes, tmp_path: Path, line: int
) -> None:
    lines = _lines(journal_bytes)
    raw = bytearray(lines[line - 1])
    start = _prev_start(bytes(raw))
    raw[start + 5] = ord("0") if raw[start + 5] != ord("0") else ord("1")
    lines[line - 1] = bytes(raw)
    error = _error(_join(lines), tmp_path)
    assert error.line == line
    assert "hash does not match" in error.reason or "previous-hash link" in error.reason


@pytest.mark.parametrize("line", [2, 11, 20])
def test_a_forged_prev_with_a_recomputed_hash_breaks_the_chain_on_its_line(
    journal_bytes: bytes, tmp_path: Path, line: int
) -> None:
    lines = _lines(journal_bytes)
    entry = read_entries(journal_bytes)[line - 1]
    body = {**entry.body(), "prev": "f" * 64}
    lines[line - 1] = dumps({**body, "hash": entry_hash(body["prev"], body)})
    error = _error(_join(lines), tmp_path)
    assert error.line == line
    assert "previous-hash link is broken" in error.reason


@pytest.mark.parametrize("line", [1, 6, 19])
def test_a_forged_entry_with_a_recomputed_hash_is_caught_on_the_next_line(
    journal_bytes: bytes, tmp_path: Path, line: int
) -> None:
    lines = _lines(journal_bytes)
    entry = read_entries(journal_bytes)[line - 1]
    body = {**entry.body(), "payload": {**entry.payload, "amount": 10**9}}
    lines[line - 1] = dumps({**body, "hash": entry_hash(entry.prev, body)})
    error = _error(_join(lines), tmp_path)
    assert error.line == line + 1
    assert "previous-hash link is broken" in error.reason


@pytest.mark.parametrize("dropped", [1, 2, 10, 19])
def test_dropping_a_line_names_it_missing(
    journal_bytes: bytes, tmp_path: Path, dropped: int
) -> None:
    lines = _lines(journal_bytes)
    del lines[dropped - 1]
    error = _error(_join(lines), tmp_path)
    assert error.line == dropped
    assert f"entry {dropped - 1} is missing" in error.reason


def test_dropping_the_last_line_is_caught_only_by_the_head(
    journal_bytes: bytes, tmp_path: Path
) -> None:
    path = tmp_path / "short.jsonl"
    path.write_bytes(_join(_lines(journal_bytes)[:-1]))
    short = Journal.open(path)
    assert len(short) == ENTRIES - 1
    assert short.head != read_entries(journal_bytes)[-1].hash


@pytest.mark.parametrize(("first", "second"), [(1, 2), (3, 4), (5, 12), (19, 20)])
def test_reordering_two_lines_names_the_first(
    journal_bytes: bytes, tmp_path: Path, first: int, second: int
) -> None:
    lines = _lines(journal_bytes)
    lines[first - 1], lines[second - 1] = lines[second - 1], lines[first - 1]
    error = _error(_join(lines), tmp_path)
    assert error.line == first
    assert f"expected seq {first - 1} but found {second - 1}" in error.reason
    assert "reordered" in error.reason


def test_duplicating_a_line_names_the_duplicate(journal_bytes: bytes, tmp_path: Path) -> None:
    lines = _lines(journal_bytes)
    lines.insert(5, lines[4])
    error = _error(_join(lines), tmp_path)
    assert error.line == 6
    assert "reordered or duplicated" in error.reason


@pytest.mark.parametrize("cut", [1, 2, 40, -2])
def test_truncating_the_last_line_names_it_torn(
    journal_bytes: bytes, tmp_path: Path, cut: int
) -> None:
    last = len(_lines(journal_bytes)[-1]) + 1
    keep = len(journal_bytes) - (cut if cut > 0 else last + cut)
    error = _error(journal_bytes[:keep], tmp_path)
    assert error.line == ENTRIES
    assert "torn" in error.reason


def test_a_blank_line_is_named(journal_bytes: bytes, tmp_path: Path) -> None:
    lines = _lines(journal_bytes)
    lines.insert(3, b"")
    error = _error(_join(lines), tmp_path)
    assert error.line == 4 and "empty" in error.reason
