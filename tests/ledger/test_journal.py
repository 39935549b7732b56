"""Journal properties: reopening reproduces the chain; known command ids are no-ops; fsync."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import durable as durable_module
from ledger.journal import GENESIS, CommandIdConflict, Journal, JournalError, entry_hash

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=10)
payload_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | text,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(text, children, max_size=3),
    max_leaves=8,
)
payloads = st.dictionaries(text, payload_values, max_size=4)
commands = st.lists(
    st.tuples(st.integers(0, 400), st.sampled_from(["post", "close", "decide"]), payloads),
    max_size=15,
)


def _fill(path: Path, items: list[tuple[int, str, dict[str, Any]]]) -> Journal:
    journal = Journal.open(path)
    journal.append(0, "header", "header", {"campaign": "test"})
    for index, (day, kind, payload) in enumerate(items):
        journal.append(day, kind, f"cmd-{index}", payload)
    return journal


@settings(max_examples=40, deadline=None)
@given(commands)
def test_reopening_gives_the_same_head_and_entries(items: list[tuple[int, str, dict]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.jsonl"
        written = _fill(path, items)
        reopened = Journal.open(path)
        assert reopened.head == written.head
        assert [e.record() for e in reopened] == [e.record() for e in written]
        assert reopened.to_bytes() == path.read_bytes() == written.to_bytes()
        assert len(reopened) == len(items) + 1
        prev = GENESIS
        for seq, entry in enumerate(reopened):
            assert (entry.seq, entry.prev) == (seq, prev)
            assert entry.hash == entry_hash(prev, entry.body())
            prev = entry.hash


@settings(max_examples=40, deadline=None)
@given(commands.filter(bool), st.data())
def test_reappending_a_known_command_is_a_no_op_and_a_clashing_one_is_refused(
    items: list[tuple[int, str, dict]], data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "journal.jsonl"
        _fill(path, items)
        before = path.read_bytes()
        journal = Journal.open(path)
        index = data.draw(st.integers(0, len(items) - 1))
        original = journal.get(f"cmd-{index}")
        assert original is not None
        day, kind, payload = items[index]
        again = journal.append(999, kind, f"cmd-{index}", payload)
        assert again == original
        assert (again.day, again.kind, again.payload) == items[index]
        with pytest.raises(CommandIdConflict, match=f"already used by the {kind} at seq"):
            journal.append(999, "other", f"cmd-{index}", {"different": True})
        with pytest.raises(CommandIdConflict):
            journal.append(day, kind, f"cmd-{index}", {**payload, "__changed__": True})
        assert path.read_bytes() == before
        assert len(journal) == len(items) + 1
        assert journal.head == Journal.open(path).head


def test_append_returns_chained_entries() -> None:
    journal = Journal.in_memory()
    header = journal.append(0, "header", "h", {"v": 1})
    first = journal.append(0, "post", "a", {"x": "é"})
    assert header.prev == GENESIS and first.prev == header.hash
    assert journal.head == first.hash and journal.header == header
    assert journal.get("a") == first and journal.get("missing") is None


def test_first_entry_must_be_the_header() -> None:
    journal = Journal.in_memory()
    with pytest.raises(JournalError, match="first entry must be the header"):
        journal.append(0, "post", "a", {})
    assert len(journal) == 0


@pytest.fixture
def synced(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The descriptors fsynced during the test, in order (the real fsync still runs)."""
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(fd)
        real_fsync(fd)

    monkeypatch.setattr(durable_module.os, "fsync", counting_fsync)
    return calls


def test_append_fsyncs_every_written_entry(tmp_path: Path, synced: list[int]) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal.open(path)
    journal.append(0, "header", "h", {})
    journal.append(0, "post", "a", {"n": 1})
    journal.append(1, "post", "b", {"n": 2})
    assert len(synced) == 3
    journal.append(1, "post", "a", {"n": 1})
    assert len(synced) == 3
    memory = Journal.in_memory()
    memory.append(0, "header", "h", {})
    assert len(synced) == 3


def test_a_missing_file_is_an_empty_journal(tmp_path: Path) -> None:
    journal = Journal.open(tmp_path / "absent.jsonl")
    assert len(journal) == 0 and journal.head == GENESIS and journal.header is None


def test_deferred_appends_are_written_and_synced_once(tmp_path: Path, synced: list[int]) -> None:
    path = tmp_path / "journal.jsonl"
    journal = Journal.open(path)
    journal.fsync_each = False
    journal.append(0, "header", "h", {})
    journal.append(0, "post", "a", {"n": 1})
    assert synced == []
    assert [e.id for e in Journal.open(path).entries] == ["h", "a"]  # written already
    journal.sync()
    assert len(synced) == 1
