"""Play scripts: JSONL commands parsed whole, then applied to a session in order."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
from pydantic import ValidationError

from ledger.json_keys import repeated_key
from workbench.errors import UserError, framed
from workbench.inputs import read_bounded
from workbench.messages import clip, validation_lines
from workbench.play.session import PlayerSession
from workbench.runs.commands import COMMAND_ADAPTER, Advance, Finish, PlayerCommand, Schedule


def script_commands(script: Path, what: str = "script") -> list[tuple[int, PlayerCommand]]:
    """(line number, command) for every line, all parsed before any is applied.

    A bad line raises a UserError naming it (one line per problem), so a malformed script
    changes nothing. A command without an id gets one derived from its line number and
    content, so re-running a script into the same run resumes it without duplicates.
    `what` is the kind of input it is read as (a campaign's "reference script" must be a
    regular file).
    """
    data = read_bounded(script, what)
    commands = []
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith(b"#"):
            continue
        where = f"{script}:{number}"
        try:
            document = orjson.loads(raw)
            if (key := repeated_key(raw, document)) is not None:
                raise UserError(f"{where}: key {clip(key)} is given twice; give it once")
            command = COMMAND_ADAPTER.validate_python(document)
        except orjson.JSONDecodeError as exc:
            raise UserError(f"{where}: not valid JSON: {exc}") from None
        except ValidationError as exc:
            raise UserError(validation_lines(exc, where, root="kind")) from None
        if command.id is None:
            digest = hashlib.sha256(raw.strip()).hexdigest()[:16]
            command = command.model_copy(update={"id": f"script-{number}-{digest}"})
        commands.append((number, command))
    return commands


def play_script(session: PlayerSession, script: Path, what: str = "script") -> list[str]:
    """Parse a script (a `what`, as `script_commands` reads it) whole, then apply its
    commands; return notes (rejected actions, missing conclusions)."""
    return apply_commands(session, script, script_commands(script, what))


def apply_commands(
    session: PlayerSession, script: Path, commands: list[tuple[int, PlayerCommand]]
) -> list[str]:
    """Apply parsed script commands in order; a failing one raises naming its line."""
    notes: list[str] = []
    for number, command in commands:
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
            raise UserError(framed(exc, f"{script}:{number}: ")) from None
    return notes
