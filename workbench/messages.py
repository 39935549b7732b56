"""Shaping user-facing messages: bounded, printable, one line per problem.

Every value a user supplies may be huge or hold control characters; messages quote it
through `clip`. Pydantic errors become one line per problem through `validation_lines`,
the one formatter every input model's errors pass through; an error keeps its lines apart
(`WorkbenchError.lines`) and the CLI shows each on one line (`bound_message`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from pydantic import ValidationError
from pydantic_core import ErrorDetails

CLIP: Final = 80
"""Characters of a user-supplied value echoed in a message before it is cut."""
LINE: Final = 400
"""Characters of one message line shown before it is cut."""
LINES: Final = 100
"""Lines of one message shown before the rest are counted instead (a problem per line)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """`text` with control characters (other than tab and newline) shown as escapes."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def single_line(text: str) -> str:
    """`text` printable on one line: every control character escaped, newlines and tabs too,
    for what a line shows of other people's names (a run directory, a campaign id)."""
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


def printed(name: object) -> str:
    """A path or another name a user chose, as an informational line shows it (`wrote OUT`):
    `single_line`, so a newline or a terminal escape in it neither splits nor drives the
    line (`Error:` lines get the same through `bound_message`)."""
    return single_line(str(name))


def clip(value: object, limit: int = CLIP) -> str:
    """A user value as a quoted, printable string of at most about `limit` characters.

    A longer value keeps its start and says how long it was: `'xxxx…' (12345 chars)`.
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text)} chars)"


def bound_line(line: str, limit: int = LINE) -> str:
    """One message line made printable and cut to at most `limit` characters (for a limit of
    40 or more) with its length: the README promises "at most 400", and the marker once
    came on top of the limit (a cut line was 415 characters).

    A cut line keeps its end as well as its start: the reason usually comes last
    (`PATH: cannot access (Permission denied)`), and a long path took it away.
    """
    line = printable(line)
    if len(line) <= limit:
        return line
    tail = limit // 4
    marker = f"… ({len(line)} chars) …"
    return f"{line[: max(limit - tail - len(marker), 1)]}{marker}{line[-tail:]}"


def bound_lines(lines: list[str], what: str = "lines", limit: int = LINES) -> list[str]:
    """At most `limit` of `lines`: when there are more, the first `limit - 1` and a last line
    saying how many `what` were left out."""
    if len(lines) <= limit:
        return lines
    shown = limit - 1
    return [*lines[:shown], f"… and {len(lines) - shown:,} more {what}"]


def bound_message(lines: Sequence[str], limit: int = LINE) -> str:
    """At most `LINES` of a message's lines, each on one line whatever it holds (a newline,
    a carriage return or another control character in it escaped: `single_line`) and
    bounded by `bound_line`: the CLI's last guard."""
    shown = bound_lines(list(lines) or [""])
    return "\n".join(bound_line(single_line(line), limit) for line in shown)


def location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error location as a dotted path with list indexes: `a.b[2].c`, on one
    line whatever the keys hold (a key may be anyone's text: a newline is shown as `\\n`)."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
            continue
        name = single_line(part) if len(part) <= CLIP else f"{single_line(part[:CLIP])}…"
        out += f".{name}" if out else name
    return out


def problems(exc: ValidationError, root: str = "") -> list[str]:
    """One `field: problem` line per pydantic error, never echoing the input."""
    lines = []
    for error in exc.errors(include_input=False, include_url=False):
        field = location(tuple(error["loc"])) or root
        message = bound_line(single_line(_wording(error).removeprefix("Value error, ")))
        lines.append(f"{field}: {message}" if field else message)
    return lines or ["invalid"]


def _wording(error: ErrorDetails) -> str:
    """Pydantic's message, except where it names its own machinery (a tagged union's
    discriminator) instead of what the user wrote, or echoes the user's value."""
    context = error.get("ctx") or {}
    if error["type"] == "union_tag_not_found":
        return "Field required"
    if error["type"] in ("model_type", "dict_type", "model_attributes_type"):
        return "Input should be an object (a JSON object with named fields)"
    if error["type"] == "union_tag_invalid":
        expected = str(context.get("expected_tags", "")).replace("'", "")
        return f"Input should be one of: {expected}" if expected else "Input is not a known kind"
    return str(error["msg"])


def first_of(lines: list[str]) -> str:
    """The first of several problem lines, and how many more: one line."""
    more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
    return f"{lines[0]}{more}"


def first_problem(exc: ValidationError, where: str) -> str:
    """`where: field: problem`, the first of `problems`, and how many more: one line."""
    return f"{where}: {first_of(problems(exc))}"


def validation_lines(exc: ValidationError, where: str, root: str = "") -> list[str]:
    """One `where: field: problem` line per pydantic error, never echoing the input."""
    return [f"{where}: {line}" for line in problems(exc, root)]
