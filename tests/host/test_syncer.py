"""The host's syncer waits for a descriptor instead of failing a journal it could not open.

An fsync opens its file by path; with no descriptor left in the process (another
agent's connections can use them up), the open failed with EMFILE and the run's
unacknowledged command was cut back and the run marked damaged until a restart. Here
the test process's own open-file limit really runs out while a sync waits.
"""

from __future__ import annotations

import asyncio
import errno
import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.host import syncer as syncer_module
from workbench.host.syncer import Syncer


@contextmanager
def no_descriptor_left() -> Iterator[None]:
    """While inside, this process can open no more files (its soft limit is set to the
    lowest free descriptor); the limit is restored on leaving."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    probe = os.open(os.devnull, os.O_RDONLY)
    os.close(probe)
    resource.setrlimit(resource.RLIMIT_NOFILE, (probe, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def until(condition: object, what: str) -> None:
    """Yield to the loop until `condition()` holds (the syncer thread works meanwhile)."""
    for _ in range(10_000):
        if condition():  # type: ignore[operator]
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"timed out waiting for {what}")


def _started(tmp_path: Path) -> tuple[Syncer, Path]:
    """A running syncer and a journal of 12 bytes, none of them durable yet."""
    journal = tmp_path / "journal.jsonl"
    journal.write_bytes(b'{"line": 1}\n')
    syncer = Syncer()
    syncer.opened(journal, 0)
    syncer.start()
    return syncer, journal


def test_a_sync_waits_for_a_descriptor_and_then_succeeds(tmp_path: Path) -> None:
    syncer, journal = _started(tmp_path)

    async def scenario() -> None:
        with no_descriptor_left():
            task = asyncio.ensure_future(syncer.sync(journal, 12))
            rounds = lambda: getattr(syncer, "_retries", {}).get(journal, 0)  # noqa: E731
            await until(lambda: task.done() or rounds() >= 2, "two refused opens")
            assert not task.done(), "the sync failed for want of a descriptor"
        await task

    try:
        asyncio.run(scenario())
    finally:
        syncer.stop()
    assert syncer.durable_size(journal) == 12


def test_a_descriptor_that_never_comes_fails_the_sync(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(syncer_module, "OPEN_RETRIES", 3, raising=False)
    syncer, journal = _started(tmp_path)

    async def scenario() -> OSError:
        with no_descriptor_left():
            try:
                await syncer.sync(journal, 12)
            except OSError as exc:
                return exc
        raise AssertionError("the sync succeeded without a descriptor")

    try:
        failure = asyncio.run(scenario())
    finally:
        syncer.stop()
    assert failure.errno == errno.EMFILE
    assert syncer.durable_size(journal) == 0


def test_a_sync_beyond_a_cut_is_refused_though_its_fsync_succeeds(tmp_path: Path) -> None:
    """A worker thread cut the journal back (its own fsync failed) while this sync
    waited: the syncer's fsync of the cut file succeeds, and the waiter must still be
    told its command is not acknowledged."""
    journal = tmp_path / "journal.jsonl"
    journal.write_bytes(b'{"line": 1}\n')
    fresh = Syncer()
    fresh.opened(journal, 0)
    assert fresh.cut(journal) == 0  # before the syncer's fsync

    async def scenario() -> OSError:
        fresh.start()
        try:
            await fresh.sync(journal, 12)
        except OSError as exc:
            return exc
        raise AssertionError("a command beyond the cut was acknowledged")

    try:
        failure = asyncio.run(scenario())
    finally:
        fresh.stop()
    assert failure.errno == errno.EIO and "cut back" in str(failure)
    assert fresh.durable_size(journal) == 0


@given(
    steps=st.lists(st.one_of(st.integers(min_value=0, max_value=64), st.just("cut")), max_size=30)
)
def test_nothing_acknowledged_lies_beyond_the_cut(steps: list[int | str]) -> None:
    """Any interleaving of fsyncs recorded (`made_durable`) and a cut: every size
    acknowledged after the cut lies within it, the cut keeps everything acknowledged
    before it, and later cuts return the first one's size."""
    syncer = Syncer()
    path = Path("journal.jsonl")
    syncer.opened(path, 0)
    before: list[int] = []
    kept: int | None = None
    for step in steps:
        if step == "cut":
            size = syncer.cut(path)
            assert size is not None and all(s <= size for s in before)
            assert kept is None or size == kept
            kept = size
        elif syncer.made_durable(path, int(step)):
            assert kept is None or int(step) <= kept
            if kept is None:
                before.append(int(step))
        else:
            assert kept is not None and int(step) > kept
