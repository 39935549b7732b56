"""Bounded reads: the first limit + 1 bytes of anything, whatever its size says."""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.bounded_read import CHUNK, read_at_most

sizes = st.integers(min_value=0, max_value=3 * CHUNK)
limits = st.integers(min_value=0, max_value=3 * CHUNK)


@settings(max_examples=60)
@given(size=sizes, limit=limits, start=st.integers(min_value=0, max_value=10))
def test_a_regular_file_gives_its_first_limit_plus_one_bytes(
    tmp_path_factory: pytest.TempPathFactory, size: int, limit: int, start: int
) -> None:
    """From wherever the handle stands, exactly as `read(limit + 1)` would."""
    path = tmp_path_factory.mktemp("read") / "data"
    data = os.urandom(size)
    path.write_bytes(data)
    with open(path, "rb") as handle:
        handle.seek(min(start, size))
        assert read_at_most(handle, limit) == data[min(start, size) :][: limit + 1]


@settings(max_examples=30)
@given(size=sizes, limit=limits)
def test_a_pipe_which_says_nothing_of_its_size_is_read_to_the_limit(size: int, limit: int) -> None:
    """A pipe's size is 0: what follows is read in chunks, stopping at limit + 1."""
    data = os.urandom(size)
    reader, writer = os.pipe()

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), open(writer, "wb") as out:
            out.write(data)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        with open(reader, "rb") as handle:
            assert read_at_most(handle, limit) == data[: limit + 1]
    finally:
        feeder.join()


def test_a_file_larger_than_its_size_says_is_read_whole() -> None:
    """/proc files say 0 bytes and hold more: the read goes on past the size given."""
    expected = Path("/proc/self/mountinfo").read_bytes()
    with open("/proc/self/mountinfo", "rb") as handle:
        data = read_at_most(handle, 1 << 20)
    assert len(data) > 0
    assert data.splitlines()[0] == expected.splitlines()[0]


@given(data=st.binary(max_size=4 * CHUNK), limit=limits)
def test_a_stream_without_a_file_is_read_to_the_limit(data: bytes, limit: int) -> None:
    """A gzip stream over memory (the seals file as verify-report opens it) has no size."""
    with gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data))) as stream:
        assert read_at_most(stream, limit) == data[: limit + 1]
