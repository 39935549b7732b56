"""A control file serves one runs directory.

Every run of a control file plays the same world (its seed), so a host started on a
second runs directory would give each agent a second episode: play the intervention in
one, the baseline in the other, subtract. The first host to serve a control file records
its runs directory beside it (`CONTROL.runs`); a host on any other directory with that
control file is refused. Moving the runs is the operator's to record (edit or remove the
file); the runs already played stay their agents' episodes.
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
from ledger.durable import fsync_dir, write_all
from workbench.errors import UserError
from workbench.inputs import read_bounded

BINDING_SUFFIX: Final = ".runs"
BINDING_SCHEMA: Final = "cfwb.control-runs/1"


class RunsBinding(BaseModel):
    """Which runs directory a control file serves (its absolute, resolved path)."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    schema_: Literal["cfwb.control-runs/1"] = Field(default=BINDING_SCHEMA, alias="schema")
    runs_dir: str = Field(min_length=1, max_length=4096)


def binding_path(control: Path) -> Path:
    """Where the control file's runs directory is recorded: `CONTROL.runs` beside it."""
    return control.with_name(control.name + BINDING_SUFFIX)


def check_binding(control: Path, runs_dir: Path) -> bool:
    """Refuse a runs directory other than the one `control` serves (UserError, exit 2);
    True when one is recorded (it is this one), False when none is yet."""
    record = binding_path(control)
    if not os.path.lexists(record):
        return False
    try:
        found = RunsBinding.model_validate(orjson.loads(read_bounded(record, "host record")))
    except (orjson.JSONDecodeError, ValidationError):
        raise UserError(f"{record} is not a runs-directory record ({BINDING_SCHEMA})") from None
    if Path(found.runs_dir) != runs_dir.resolve():
        raise UserError(
            f"control file {control} serves the runs directory {found.runs_dir} "
            f"(recorded in {record.name}): a host on another would give every agent a "
            "second episode of the same world; if you moved the runs, edit that record"
        )
    return True


def bind(control: Path, runs_dir: Path) -> None:
    """Record that `control` serves `runs_dir`, unless recorded already (then check it).

    Exclusive: of two hosts starting at once on different directories, one records its
    own and the other is refused. Written whole (a temporary file linked into place).
    """
    if check_binding(control, runs_dir):
        return
    record = binding_path(control)
    data = dumps(RunsBinding(runs_dir=str(runs_dir.resolve())).model_dump(by_alias=True)) + b"\n"
    temp = record.with_name(f".{record.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(temp, record)
        except FileExistsError:
            check_binding(control, runs_dir)
            return
        fsync_dir(record.parent)
    except OSError as exc:
        raise UserError(
            f"{record}: cannot record the runs directory this control file serves "
            f"({exc.strerror or exc})"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            temp.unlink()
