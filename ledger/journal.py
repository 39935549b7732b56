"""The command journal: append-only, hash-chained JSON lines in canonical encoding.

Each line is one entry `{seq, day, kind, id, payload, prev, hash}` where
`hash = sha256(prev ‖ canonical(entry without hash))`. Entry 0 is the header.
Opening a journal re-checks every line and names the first one that is torn,
changed, missing, reordered or off the chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ledger.canonical import dumps
from ledger.durable import TornAppend, append_durably, append_written, fsync_file

GENESIS = "0" * 64
HEADER_KIND = "header"


class CommandIdConflict(ValueError):
    """A command id already journaled for a different command: refused, never dropped."""

    def __init__(self, known: Entry, kind: str) -> None:
        super().__init__(f"already used by the {known.kind} at seq {known.seq} (day {known.day})")
        self.known = known
        self.kind = kind


class JournalError(ValueError):
    """A journal that is not intact; `line` is 1-based and names where it broke."""

    def __init__(self, message: str, line: int | None = None, seq: int | None = None) -> None:
        where = f"line {line}" if line is not None else "journal"
        if seq is not None:
            where += f" (seq {seq})"
        super().__init__(f"{where}: {message}")
        self.line = line
        self.seq = seq
        self.reason = message


class TornJournal(JournalError):
    """A journal whose last line has no newline: an append cut short, or one still being
    written by a live writer (a reader racing it), never a changed entry."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One journal entry, as stored."""

    seq: int
    day: int
    kind: str
    id: str
    payload: Mapping[str, Any]
    prev: str
    hash: str

    def body(self) -> dict[str, Any]:
        """The hashed part of the entry (everything but `hash`)."""
        return {
            "seq": self.seq,
            "day": self.day,
            "kind": self.kind,
            "id": self.id,
            "payload": self.payload,
            "prev": self.prev,
        }

    def record(self) -> dict[str, Any]:
        """The full stored record."""
        return {**self.body(), "hash": self.hash}


def entry_hash(prev: str, body: Mapping[str, Any]) -> str:
    """`sha256(prev ‖ canonical(body))` as hex."""
    return hashlib.sha256(prev.encode("ascii") + dumps(body)).hexdigest()


def make_entry(
    seq: int, day: int, kind: str, id: str, payload: Mapping[str, Any], prev: str
) -> Entry:
    """Build the next entry on the chain after `prev`."""
    # Round-trip the payload so the stored entry is exactly what a reader will see.
    payload = orjson.loads(dumps(payload))
    body = {"seq": seq, "day": day, "kind": kind, "id": id, "payload": payload, "prev": prev}
    return Entry(seq, day, kind, id, payload, prev, entry_hash(prev, body))


_FIELDS = ("seq", "day", "kind", "id", "payload", "prev", "hash")


def parse_line(raw: bytes, line: int, expected_seq: int, prev: str) -> Entry:
    """Decode and check one line against the chain so far."""
    try:
        record = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise JournalError("is not valid JSON (changed or corrupted entry)", line) from None
    if not isinstance(record, dict) or set(record) != set(_FIELDS):
        raise JournalError(f"is not a journal entry (fields must be {', '.join(_FIELDS)})", line)
    seq = record["seq"]
    if not isinstance(seq, int) or not isinstance(record["day"], int):
        raise JournalError("has a non-integer seq or day (changed entry)", line)
    if not isinstance(record["payload"], dict) or not isinstance(record["kind"], str):
        raise JournalError("has a malformed kind or payload (changed entry)", line)
    entry = Entry(
        seq,
        record["day"],
        record["kind"],
        str(record["id"]),
        record["payload"],
        str(record["prev"]),
        str(record["hash"]),
    )
    if dumps(entry.record()) != raw:
        raise JournalError("is not in canonical encoding (changed entry)", line, seq)
    if seq != expected_seq:
        if seq > expected_seq:
            raise JournalError(
                f"expected seq {expected_seq} but found {seq}: entry "
                f"{expected_seq} is missing or entries are reordered",
                line,
                seq,
            )
        raise JournalError(
            f"expected seq {expected_seq} but found {seq}: entries are reordered or duplicated",
            line,
            seq,
        )
    if entry_hash(entry.prev, entry.body()) != entry.hash:
        raise JournalError("hash does not match its content (changed entry)", line, seq)
    if entry.prev != prev:
        raise JournalError(
            "previous-hash link is broken (chain broken before this entry)", line, seq
        )
    return entry


def read_entries(data: bytes) -> list[Entry]:
    """Parse and verify a whole journal's bytes; raise `JournalError` naming the first fault."""
    if not data:
        return []
    lines = data.split(b"\n")
    torn = lines[-1] != b""
    if torn:
        raise TornJournal("is torn: the last line has no newline (interrupted append)", len(lines))
    entries: list[Entry] = []
    prev = GENESIS
    for index, raw in enumerate(lines[:-1]):
        if not raw:
            raise JournalError("is empty", index + 1)
        entry = parse_line(raw, index + 1, len(entries), prev)
        if index > 0 and entry.kind == HEADER_KIND:
            raise JournalError("is a second header entry (changed journal)", index + 1, entry.seq)
        entries.append(entry)
        prev = entry.hash
    if entries and entries[0].kind != HEADER_KIND:
        raise JournalError("first entry is not the header", 1, 0)
    return entries


class Journal:
    """An append-only journal, in memory and optionally mirrored to a file (fsynced)."""

    def __init__(
        self, path: Path | None = None, entries: list[Entry] | None = None, size: int | None = None
    ) -> None:
        self._path = path
        self._size = size
        """Bytes of the backing file this journal wrote or read (None: not known)."""
        self.fsync_each = True
        """False: appends are written but not fsynced; the owner calls `sync` before it
        acknowledges them (the host batches the fsyncs of many runs in one thread)."""
        self._entries: list[Entry] = list(entries or [])
        self._by_id: dict[str, Entry] = {e.id: e for e in self._entries}
        self._torn: str | None = None
        """Why the file ends in a fragment of a failed append (`TornAppend`): no append
        is written behind it; whoever reopens the run cuts it."""

    @classmethod
    def open(cls, path: Path, data: bytes | None = None) -> Journal:
        """Open (and fully verify) a journal file; a missing file is an empty journal.

        `data`, when given, is the file's content already read (by a bounded reader).
        """
        path = Path(path)
        if data is None:
            data = path.read_bytes() if path.exists() else b""
        return cls(path, read_entries(data), len(data))

    @classmethod
    def in_memory(cls) -> Journal:
        """A journal kept only in memory (branches, tests)."""
        return cls(None)

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries)

    @property
    def entries(self) -> tuple[Entry, ...]:
        """Every entry in order."""
        return tuple(self._entries)

    @property
    def head(self) -> str:
        """Hash of the last entry (the genesis hash when empty)."""
        return self._entries[-1].hash if self._entries else GENESIS

    @property
    def header(self) -> Entry | None:
        """The header entry, if written."""
        return self._entries[0] if self._entries else None

    @property
    def path(self) -> Path | None:
        """The backing file, if any."""
        return self._path

    @property
    def size(self) -> int | None:
        """Bytes of the backing file as this journal read and appended them (None when it
        was made from entries alone): counted, never asked of the file system."""
        return self._size

    def get(self, command_id: str) -> Entry | None:
        """The entry with this command id, if any."""
        return self._by_id.get(command_id)

    def known(self, command_id: str, kind: str, payload: Mapping[str, Any]) -> Entry | None:
        """The entry already journaled under `command_id` for this same command, if any.

        Raises CommandIdConflict when the id was used for a different kind or payload.
        """
        known = self._by_id.get(command_id)
        if known is None:
            return None
        if known.kind != kind or dumps(known.payload) != dumps(payload):
            raise CommandIdConflict(known, kind)
        return known

    def append(self, day: int, kind: str, command_id: str, payload: Mapping[str, Any]) -> Entry:
        """Append one entry; a retry of a known command (same id and content) is a no-op
        returning the original entry, and a known id with other content is refused.

        A failed file append raises OSError and leaves the file and the journal as they
        were; `TornAppend` when it could not, after which every append is refused."""
        known = self.known(command_id, kind, payload)
        if known is not None:
            return known
        if not self._entries and kind != HEADER_KIND:
            raise JournalError("the first entry must be the header")
        if self._entries and kind == HEADER_KIND:
            raise JournalError("a journal has one header entry, the first")
        entry = make_entry(len(self._entries), day, kind, command_id, payload, self.head)
        if self._path is not None:
            if self._torn is not None:
                raise TornAppend(None, f"an earlier append failed and left it torn ({self._torn})")
            line = dumps(entry.record()) + b"\n"
            try:
                if self.fsync_each:
                    append_durably(self._path, line)
                else:
                    append_written(self._path, line)
            except TornAppend as exc:
                self._torn = exc.strerror
                raise
            if self._size is not None:
                self._size += len(line)
        self._entries.append(entry)
        self._by_id[command_id] = entry
        return entry

    def sync(self) -> None:
        """Make every appended entry durable (needed only when `fsync_each` is off)."""
        if self._path is not None and self._entries:
            fsync_file(self._path)

    def to_bytes(self, start: int = 0, stop: int | None = None) -> bytes:
        """The journal's exact file content, entries `start` to `stop` (all by default)."""
        return b"".join(dumps(e.record()) + b"\n" for e in self._entries[start:stop])
