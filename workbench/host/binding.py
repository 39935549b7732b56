"""A control file's world is served from one runs directory on a machine.

Every run of a control file plays the same world (its seed), so a host started on a
second runs directory would give each agent a second episode: play the intervention in
one, the baseline in the other, subtract. The first host to serve a world records, in the
machine's state directory, which runs directory serves it: the record is found by the
world's seed commitment, so a copy of the control file, a link to it or another name for
it finds the same record. It names the directory's path and its own random id (in its
host.json), so a new directory made at the same path is told apart. A host on any other
directory is refused. This guards the operator's and a launcher's mistakes (a stdio
configuration naming a fresh `--runs`), not an operator set on starting over: removing
the record, as the message says, is that.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Final, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ledger.canonical import dumps
from ledger.durable import fsync_dir, make_dirs, write_all
from workbench.errors import UserError
from workbench.inputs import read_bounded
from workbench.messages import clip
from workbench.outputs import atomic_write
from workbench.runs.files import HOST_RECORD_FILE

STATE_ENV: Final = "CFWB_STATE_DIR"
"""Overrides where the machine's state is kept (tests; a machine with a read-only home)."""
BINDING_SCHEMA: Final = "cfwb.hosted/1"


class RunsBinding(BaseModel):
    """Which runs directory serves a world: its resolved path and its host.json's id."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["cfwb.hosted/1"] = Field(default=BINDING_SCHEMA, alias="schema")
    runs_dir: str = Field(min_length=1, max_length=4096)
    runs_id: str | None = Field(default=None, pattern=r"^[0-9a-f]{32}$")


def state_dir() -> Path:
    """The user's workbench state: $CFWB_STATE_DIR, else $XDG_STATE_HOME's folder, else
    ~/.local/state's. A relative value is ignored, as the XDG rules say (it would name
    another folder from every working directory)."""
    override = os.environ.get(STATE_ENV, "")
    if Path(override).is_absolute():
        return Path(override)
    base = os.environ.get("XDG_STATE_HOME", "")
    home = Path(base) if Path(base).is_absolute() else Path.home() / ".local" / "state"
    return home / "counterfactual-workbench"


def binding_path(commitment: str) -> Path:
    """Where the runs directory serving the world of `commitment` is recorded."""
    return state_dir() / "hosted" / f"{commitment}.json"


def check_binding(commitment: str, runs_dir: Path) -> bool:
    """Refuse a runs directory other than the one the world of `commitment` is served from
    (UserError, exit 2); True when one is recorded (it is this one), False when none is."""
    return _checked(binding_path(commitment), runs_dir) is not None


def _checked(record: Path, runs_dir: Path) -> RunsBinding | None:
    """The record at `record` once `runs_dir` is the directory it names (None: none yet)."""
    if not os.path.lexists(record):
        return None
    try:
        found = RunsBinding.model_validate(orjson.loads(read_bounded(record, "host record")))
    except (orjson.JSONDecodeError, ValidationError):
        raise UserError(f"{record} is not a record of a hosted world ({BINDING_SCHEMA})") from None
    resolved = runs_dir.resolve()
    if Path(found.runs_dir) != resolved:
        raise UserError(
            "another runs directory would give every agent a second episode of the same "
            f"world: this control file's world is served from {clip(found.runs_dir, 300)} "
            f"(moved the runs? edit {record})"
        )
    if found.runs_id is not None and _runs_id(resolved) != found.runs_id:
        raise UserError(
            f"{resolved} is not the runs directory this control file's world was served "
            "from (that one is gone or was replaced): a new one would give every agent a "
            f"second episode of the same world (to start it over on purpose, remove {record})"
        )
    return found


def bind(commitment: str, runs_dir: Path) -> None:
    """Record that the world of `commitment` is served from `runs_dir` (its host.json just
    written by the host), unless recorded already (then check it, and give a record made
    before directories had ids this one's).

    Exclusive: of two hosts starting at once on different directories, one records its
    own and the other is refused. Written whole (a temporary file linked into place).
    """
    resolved = runs_dir.resolve()
    record = binding_path(commitment)
    runs_id = _runs_id(resolved)
    found = _checked(record, runs_dir)
    if found is not None:
        if found.runs_id is None and runs_id is not None:
            data = dumps(found.model_copy(update={"runs_id": runs_id}).model_dump(by_alias=True))
            atomic_write(record, data + b"\n", what="record of a hosted world")
        return
    binding = RunsBinding(runs_dir=str(resolved), runs_id=runs_id)
    data = dumps(binding.model_dump(by_alias=True)) + b"\n"
    temp = record.with_name(f".{record.name}.{secrets.token_hex(6)}.tmp")
    try:
        make_dirs(record.parent, mode=0o700)
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, record)
        except FileExistsError:
            _checked(record, runs_dir)
            return
        fsync_dir(record.parent)
    except OSError as exc:
        raise UserError(
            f"{record}: cannot record which runs directory serves this world "
            f"({exc.strerror or exc}); set {STATE_ENV} to a writable directory"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()


def _runs_id(runs_dir: Path) -> str | None:
    """The id in a runs directory's host.json, or None (no record, or one without an id)."""
    try:
        record = orjson.loads(read_bounded(runs_dir / HOST_RECORD_FILE, "host record"))
    except (orjson.JSONDecodeError, UserError):
        return None
    found = record.get("runs_id") if isinstance(record, dict) else None
    return found if isinstance(found, str) else None
