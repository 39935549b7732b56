"""Bounded reads: limits hold for regular files, devices, pipes, directories and missing paths."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from workbench.errors import UserError
from workbench.inputs import WRITTEN_BY_THE_WORKBENCH, read_bounded


def test_reads_a_file_within_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, "submission", limit=100) == b"x" * 100


def test_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(UserError, match="larger than its limit of 100 bytes"):
        read_bounded(path, "submission", limit=100)


def test_a_regular_file_over_its_limit_is_refused_without_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A journal of 300 MiB (here sparse) is refused by its size: nothing of it is read."""
    from workbench import inputs

    path = tmp_path / "journal.jsonl"
    with path.open("wb") as handle:
        handle.truncate(300 * 1024 * 1024)

    def never(*args: object) -> bytes:
        raise AssertionError("read a file already over its limit")

    monkeypatch.setattr(inputs, "read_at_most", never)
    with pytest.raises(UserError, match="journal is larger than its limit of 256 MiB"):
        read_bounded(path, "journal")


def test_an_unbounded_device_is_refused_without_reading_it_all() -> None:
    with pytest.raises(UserError, match="control file is larger than its limit of 4 MiB"):
        read_bounded("/dev/zero", "control file")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_missing_and_directory_paths_name_the_input(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "nope" if kind == "missing" else tmp_path
    with pytest.raises(UserError, match=f"{path}: script"):
        read_bounded(path, "script")


def _without_waiting(read: Callable[[], bytes]) -> bytes:
    """`read()` in a thread that must finish promptly: a wait for a pipe's writer fails."""
    result: list[bytes] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(read())
        except BaseException as exc:  # re-raised in the test's thread
            errors.append(exc)

    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    reader.join(timeout=30)
    assert not reader.is_alive(), "the read waited for a writer"
    if errors:
        raise errors[0]
    return result[0]


@pytest.mark.parametrize("what", sorted(WRITTEN_BY_THE_WORKBENCH))
def test_a_pipe_or_device_where_only_the_workbench_writes_is_refused_unread(
    tmp_path: Path, what: str
) -> None:
    """A named pipe with no writer is refused at once, and so is a device: never waited on."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(UserError, match=f"^{pipe}: {what} is a named pipe, not a regular file$"):
        _without_waiting(lambda: read_bounded(pipe, what))
    with pytest.raises(UserError, match=f"^/dev/zero: {what} is a device, not a regular file$"):
        read_bounded("/dev/zero", what)


def test_a_named_pipe_a_user_hands_over_waits_for_its_writer(tmp_path: Path) -> None:
    """A script may come from a named pipe: it is read as `cat` reads it, waiting for a
    writer that comes later (read at once as empty, it would play a run to its end with
    no decisions), and to the writer's end, not a partial read."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)

    def late_writer() -> None:
        time.sleep(0.3)
        with open(pipe, "wb") as handle:
            handle.write(b"advance 2\n")

    late = threading.Thread(target=late_writer)
    late.start()
    try:
        assert read_bounded(pipe, "script") == b"advance 2\n"
    finally:
        late.join()
    writer_ready = threading.Event()

    def write() -> None:
        fd = os.open(pipe, os.O_RDWR)  # holds the pipe open for writing before the read
        writer_ready.set()
        os.write(fd, b"advance 3\n")
        time.sleep(0.2)  # the reader must wait for the rest, not take a partial read as all
        os.write(fd, b"advance 4\n")
        os.close(fd)

    writer = threading.Thread(target=write)
    writer.start()
    writer_ready.wait()
    try:
        assert read_bounded(pipe, "script") == b"advance 3\nadvance 4\n"
    finally:
        writer.join()


PACKAGE_FILES = ("resources.files", "TEMPLATES", "SCHEMA_DIR", "DOCS")
"""Receivers of whole-file reads that name the package's own files, not a user's."""
UNBOUNDED_ALLOWED = {
    "ledger/journal.py": "Journal.open(path) without data, for tests; the workbench passes "
    "bytes read by read_bounded",
}


def test_no_product_code_reads_a_users_file_whole() -> None:
    """Every read of a file someone else may have made goes through a bounded reader:
    `read_bytes`, `read_text` and `.read()` without a size appear only on the package's
    own files (a start-up recovery that read journals whole once hung on a planted pipe)."""
    import ast

    root = Path(__file__).resolve().parents[2]
    found = []
    for package in ("ledger", "sim", "graders", "workbench", "campaigns"):
        for path in sorted((root / package).rglob("*.py")):
            name = str(path.relative_to(root))
            for node in ast.walk(ast.parse(path.read_text())):
                if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                    continue
                whole = node.func.attr in ("read_bytes", "read_text") or (
                    node.func.attr == "read" and not node.args
                )
                receiver = ast.unparse(node.func.value)
                package_file = any(p in receiver for p in PACKAGE_FILES)
                if whole and not package_file and name not in UNBOUNDED_ALLOWED:
                    found.append(f"{name}:{node.lineno} {receiver}.{node.func.attr}()")
    assert not found, found
