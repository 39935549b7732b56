"""Play scripts: JSONL commands applied to a session, stopping at the first bad line."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import orjson
from pydantic import ValidationError

from workbench.errors import UserError
from workbench.play.session import PlayerSession
from workbench.runs.commands import COMMAND_ADAPTER, Advance, Finish, PlayerCommand, Schedule


def script_commands(script: Path) -> Iterator[tuple[int, PlayerCommand]]:
    """(line number, command) for each line; a bad line raises a UserError naming it.

    A command without an id gets one derived from its line number and content, so
    re-running a script into the same run resumes it without duplicates.
    """
    try:
        lines = script.read_bytes().splitlines()
    except OSError as exc:
        raise UserError(f"cannot read script {script}: {exc.strerror}") from None
    for number, raw in enumerate(lines, start=1):
        if not raw.strip() or raw.lstrip().startswith(b"#"):
            continue
        try:
            command = COMMAND_ADAPTER.validate_python(orjson.loads(raw))
        except orjson.JSONDecodeError as exc:
            raise UserError(f"{script}:{number}: not valid JSON: {exc}") from None
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "kind"
            raise UserError(f"{script}:{number}: {where}: {first['msg']}") from None
        if command.id is None:
            digest = hashlib.sha256(raw.strip()).hexdigest()[:16]
            command = command.model_copy(update={"id": f"script-{number}-{digest}"})
        yield number, command


def play_script(session: PlayerSession, script: Path) -> list[str]:
    """Apply a script's commands to a session; return notes (rejected actions, missing
    conclusions)."""
    notes: list[str] = []
    for number, command in script_commands(script):
        try:
            if isinstance(command, Schedule):
                outcome = session.schedule(command.action, command.id)
                if not outcome.accepted:
                    notes.append(f"{script}:{number}: rejected: {outcome.reason}")
            elif isinstance(command, Advance):
                session.advance(command.days, command.id)
            elif isinstance(command, Finish):
                session.finish(command.id)
            else:
                result = session.submit(command.assessment, command.id)
                if result.errors:
                    raise UserError("invalid submission: " + "; ".join(result.errors))
                notes.extend(f"{script}:{number}: {note}" for note in result.notes)
        except UserError as exc:
            raise UserError(f"{script}:{number}: {exc.message}") from None
    return notes
