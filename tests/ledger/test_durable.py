"""Durable appends: every byte written, in order, fsynced, whatever size each write takes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import durable
from ledger.durable import append_durably, start_writeback, write_all


@given(data=st.binary(max_size=5000), step=st.integers(min_value=1, max_value=700))
def test_short_writes_still_write_everything(tmp_path_factory, data: bytes, step: int) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("short") / "file"
    real_write = os.write
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(durable.os, "write", lambda f, b: real_write(f, bytes(b[:step])))
            write_all(fd, data)
    finally:
        os.close(fd)
    assert path.read_bytes() == data


def test_appends_follow_each_other_and_are_synced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(durable.os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    path = tmp_path / "journal.jsonl"
    append_durably(path, b"one\n")
    append_durably(path, b"two\n")
    assert path.read_bytes() == b"one\ntwo\n"
    assert len(synced) == 2


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    mask = os.umask(0o027)
    try:
        append_durably(tmp_path / "new", b"x")
    finally:
        os.umask(mask)
    assert (tmp_path / "new").stat().st_mode & 0o777 == 0o640


def test_a_failed_append_raises_and_leaves_the_file(tmp_path: Path) -> None:
    path = tmp_path / "dir-not-file"
    path.mkdir()
    with pytest.raises(OSError):
        append_durably(path, b"x")
    assert path.is_dir()


@settings(deadline=None)  # each case fsyncs: 284 ms once on a busy disk, past the 200 ms default
@given(data=st.binary(max_size=20_000))
def test_starting_writeback_is_a_hint_that_changes_nothing(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    """A file's bytes are the same after the hint, whether or not they were synced yet."""
    path = tmp_path_factory.mktemp("hint") / "file"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        write_all(fd, data)
        start_writeback(fd)
        os.fsync(fd)
    finally:
        os.close(fd)
    assert path.read_bytes() == data


def test_starting_writeback_never_fails_on_what_is_not_a_file(tmp_path: Path) -> None:
    """Pipes, directories and closed descriptors take the hint silently: it is never an error."""
    read, write = os.pipe()
    directory = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for fd in (read, write, directory):
            start_writeback(fd)
    finally:
        for fd in (read, write, directory):
            os.close(fd)
    start_writeback(directory)


@given(
    recorded=st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=5),
    cut_to=st.integers(min_value=0, max_value=10_000),
)
def test_a_recorded_cut_never_rises_and_a_made_cut_settles_it(  # type: ignore[no-untyped-def]
    tmp_path_factory, recorded: list[int], cut_to: int
) -> None:
    """Records only fall (what lies past the lowest was never acknowledged either); once
    the file is durably cut below a record, the record goes (before, a group commit's
    successful cut under a higher record read as acknowledged entries lost)."""
    path = tmp_path_factory.mktemp("cut") / "journal.jsonl"
    path.write_bytes(b"x" * 10_000)
    for size in recorded:
        assert durable.record_cut(path, size)
    assert durable.pending_cut(path) == min(recorded)
    durable.truncate_durably(path, cut_to)
    expected = None if min(recorded) > cut_to else min(recorded)
    assert durable.pending_cut(path) == expected
    assert not list(path.parent.glob(".*.tmp"))
