"""A run directory on disk: registration, journal, seal and SQLite store."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ledger.book import Book
from ledger.canonical import dumps
from ledger.durable import append_durably, cut_marker, pending_cut
from ledger.file_kinds import not_a_directory
from ledger.journal import Journal, JournalError
from ledger.seal import Seal, SealFormatError
from sim.campaign_load import CampaignBundle
from sim.version import ENGINE_VERSION
from workbench.errors import AccessError, UserError, WorkbenchError
from workbench.inputs import read_bounded
from workbench.messages import clip
from workbench.outputs import atomic_write
from workbench.runs.environment import environment_mismatch, environment_payload, how_to_replay
from workbench.runs.registration import Registration, parse_registration

RUN_FILE = "run.json"
JOURNAL_FILE = "journal.jsonl"
SEAL_FILE = "seal.json"
STORE_FILE = "store.sqlite"
HOST_RECORD_FILE = "host.json"
"""In a runs directory a host serves: its campaign and control file (workbench/host)."""


@dataclass(frozen=True)
class RunPaths:
    """Where each artifact of a run lives."""

    root: Path

    @property
    def registration(self) -> Path:
        return self.root / RUN_FILE

    @property
    def journal(self) -> Path:
        return self.root / JOURNAL_FILE

    @property
    def seal(self) -> Path:
        return self.root / SEAL_FILE

    @property
    def store(self) -> Path:
        return self.root / STORE_FILE

    def exists(self) -> bool:
        """True when this directory holds a registered run."""
        return self.registration.exists()


def append_journal(path: Path, data: bytes) -> None:
    """Append whole journal lines to the run's journal file and fsync them.

    A disk that refuses raises the OSError with the file as it was (`append_durably`), or
    TornAppend when not even the partial write could be cut off: the caller says which
    commands were not applied, in the words every refused command is reported in."""
    append_durably(path, data)


class SealError(ValueError):
    """A seal.json that is not a seal as this workbench writes it (names the problem)."""


def write_registration(paths: RunPaths, registration: Registration) -> None:
    """Write run.json."""
    atomic_write(paths.registration, dumps(registration.model_dump(by_alias=True)) + b"\n")


def not_a_run(paths: RunPaths) -> UserError:
    """The refusal of a run directory without a run.json: it does not exist, is not a
    directory, or is one that holds no run."""
    why = not_a_directory(paths.root)
    return UserError(f"{paths.root} {why or f'is not a run directory (no {RUN_FILE})'}")


def read_registration(paths: RunPaths) -> Registration:
    """Read run.json strictly, or say in one line what is wrong with it."""
    if not paths.registration.exists():
        raise not_a_run(paths)
    return parse_registration(
        str(paths.registration), read_bounded(paths.registration, "registration")
    )


def read_journal(paths: RunPaths) -> Journal:
    """Open and verify the run's journal through a bounded read; a missing file is empty.

    Anything that keeps it from being read (a directory, a pipe, a device, too large) is
    a JournalError like any other damage, with no line: its reason names the file.
    """
    return Journal.open(paths.journal, acknowledged_only(paths, journal_bytes(paths)))


def acknowledged_only(paths: RunPaths, data: bytes) -> bytes:
    """The journal `data` as a reader may take it: a JournalError when it still holds bytes
    never acknowledged beyond a recorded cut (readers name them; the next writer cuts them,
    unless the cut would split a line or drop an entry the seal covers: then it never will,
    and the reader says so)."""
    size = recorded_cut(paths, data)
    if size is None or size == len(data):
        return data
    record = cut_marker(paths.journal).name
    kept = data[:size]
    try:
        seal = read_seal(paths)
    except SealError:
        seal = None
    if (kept and not kept.endswith(b"\n")) or (
        seal is not None and seal.journal_entries > kept.count(b"\n")
    ):
        raise JournalError(
            f"{paths.journal}: {record} records {size} acknowledged bytes, which would split a "
            "line or drop a sealed entry: the run cannot be repaired"
        )
    raise JournalError(
        f"{paths.journal}: ends in {len(data) - size} bytes never acknowledged (an append "
        f"failed and could not be cut off; recorded in {record}); the next writer cuts them "
        "(`workbench play` opening it, or its host on restart)"
    )


def recorded_cut(paths: RunPaths, data: bytes) -> int | None:
    """The size a failed append recorded the journal `data` must be cut back to (None when
    none is pending); JournalError when the record is unreadable or the journal shorter."""
    try:
        size = pending_cut(paths.journal)
    except ValueError as exc:
        raise JournalError(str(exc)) from None
    if size is not None and size > len(data):
        raise JournalError(
            f"{paths.journal}: holds {len(data)} bytes but {size} were acknowledged "
            f"({cut_marker(paths.journal).name}): acknowledged entries were lost"
        )
    return size


def missing_header(paths: RunPaths) -> str:
    """Why a run's journal holds no header entry, for every reader to say alike: a creation
    interrupted after run.json (the next writer finishes it), or, beside a seal, a lost journal."""
    if os.path.lexists(paths.seal):
        return (
            f"{paths.journal} has no header entry but {paths.seal} exists: "
            "the journal was lost or emptied"
        )
    return (
        f"{paths.journal} has no header entry: the run's creation was interrupted; "
        f"run into {paths.root} again to finish creating it"
    )


def journal_bytes(paths: RunPaths) -> bytes:
    """The journal file's bytes through a bounded read (b"" when missing); JournalError
    when it cannot be read (see `read_journal`)."""
    if not os.path.lexists(paths.journal):
        return b""
    try:
        return read_bounded(paths.journal, "journal")
    except AccessError:
        raise
    except WorkbenchError as exc:
        raise JournalError(exc.message) from None


def read_seal(paths: RunPaths) -> Seal | None:
    """The stored seal, or None when absent; SealError when it is not a canonical seal."""
    if not os.path.lexists(paths.seal):
        return None
    try:
        data = read_bounded(paths.seal, "seal")
    except AccessError:
        raise
    except WorkbenchError as exc:
        raise SealError(exc.message) from None
    try:
        seal = Seal.from_data(orjson.loads(data))
    except orjson.JSONDecodeError:
        raise SealError(f"{paths.seal} is not valid JSON (changed or corrupted file)") from None
    except SealFormatError as exc:
        raise SealError(f"{paths.seal} is not a seal: {exc}") from None
    if seal.to_bytes() != data:
        raise SealError(f"{paths.seal} is not in canonical encoding (changed file)")
    return seal


def header_payload(bundle: CampaignBundle, registration: Registration) -> dict[str, Any]:
    """The journal header: engine, numpy and bit generator that shape the streams, and identity."""
    return {
        **environment_payload(),
        "campaign_id": bundle.id,
        "campaign_digest": bundle.digest,
        "agent_id": registration.agent_id,
        "seed_commitment": registration.seed_commitment,
    }


def header_problem(
    paths: RunPaths,
    journal: Journal,
    bundle: CampaignBundle,
    registration: Registration,
    seal_key: bytes | None,
) -> str | None:
    """How a run's journal header differs from the one this workbench writes, or None.

    The header pins what shapes the run's streams and seals (engine, numpy, bit
    generator) and its identity: a run made under other values cannot be replayed into
    the results it recorded, so it is neither resumed nor verified. A run made in another
    environment whose own seal vouches for its header (the seal, signed for a private run,
    covers this journal or a prefix of it) is a UserError naming both environments and
    what replays it; every other difference is returned, for the caller to report as an
    integrity failure.
    """
    header = journal.header
    assert header is not None
    mismatch = environment_mismatch(header.payload)
    if mismatch is not None:
        unvouched = _why_unvouched(paths, journal, seal_key)
        if unvouched is None:
            raise UserError(f"{paths.root} {mismatch}: {how_to_replay(header.payload)}")
        return f"journal line 1 (seq 0): the run {mismatch}, and {unvouched}"
    for key, value in header_payload(bundle, registration).items():
        if header.payload.get(key) != value:
            return (
                f"journal line 1 (seq 0): header field {key} is "
                f"{clip(header.payload.get(key))}, expected {clip(value)}"
            )
    return None


def _why_unvouched(paths: RunPaths, journal: Journal, seal_key: bytes | None) -> str | None:
    """None when seal.json seals this journal or a prefix of it (with a valid signature
    under `seal_key` when there is one); otherwise why it does not vouch for the header."""
    try:
        seal = read_seal(paths)
    except (SealError, WorkbenchError):
        return "its seal.json is not a seal to vouch for that"
    if seal is None:
        return "it has no seal to vouch for that"
    if seal_key is not None and not seal.signature_ok(seal_key):
        return "its seal does not vouch for that (not signed with the control file's key)"
    count = seal.journal_entries
    if 0 < count <= len(journal) and journal.entries[count - 1].hash == seal.journal_head:
        return None
    return "its seal does not vouch for that (it seals another journal)"


def build_seal(
    bundle: CampaignBundle,
    registration: Registration,
    journal: Journal,
    book: Book,
    day: int,
    seal_key: bytes | None = None,
) -> Seal:
    """The seal binding this run's identity, journal head and ledger; signed when keyed."""
    seal = Seal(
        campaign_id=bundle.id,
        campaign_digest=bundle.digest,
        identities={
            "company": bundle.campaign.company.name,
            "agent_id": registration.agent_id,
            "tasks": [t.id for t in bundle.tasks],
        },
        seed_commitment=registration.seed_commitment,
        journal_head=journal.head,
        journal_entries=len(journal),
        ledger_digest=book.digest(),
        final_day=day,
        engine_version=ENGINE_VERSION,
    )
    return seal if seal_key is None else seal.signed(seal_key)


def write_seal(paths: RunPaths, seal: Seal) -> None:
    """Write seal.json atomically."""
    atomic_write(paths.seal, seal.to_bytes())
