"""Campaign problems in the house style: one line naming the field, the value given and what
is allowed.

Every pydantic error of a campaign file passes through `problem_lines`, the one place that
words them: the field's rule (`sim.campaign_model.field_rules`, the same rule the docs and
schemas print) says what is allowed, the error says what was given. An unknown key close
to a known one gets a "did you mean"; a misspelt required key is one problem, not a
missing key and an unknown one.
"""

from __future__ import annotations

import calendar
import datetime as dt
import difflib
import functools
import re
from dataclasses import dataclass, replace
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from sim.campaign_model import FieldRule, field_rules, shown

_INTERNAL = re.compile(r"^[a-z-]+\[")
"""pydantic's own location parts (`function-after[_range()]`), not a field of the file."""

PATTERN_WORDS = {
    r"^[a-z0-9_]+$": "lowercase letters a-z, digits and _",
    r"^[a-z][a-z0-9_]*$": "a lowercase letter a-z, then lowercase letters, digits and _",
    r"^[a-z0-9][a-z0-9_-]*$": "a lowercase letter a-z or a digit, then lowercase letters, "
    "digits, _ and -",
    r"^[A-Za-z0-9:-]+$": "letters, digits, : and -",
}
"""Each identifier pattern of the models in words (a regular expression is not a rule an
author reads)."""

SUGGEST_CHARS = 64
"""The longest unknown key or choice a "did you mean" is looked for (no known name is longer)."""
SUGGESTIONS = 100
"""The most unknown keys of one file a "did you mean" is looked for (the CLI shows 99 lines)."""

_CUSTOM = frozenset(
    {
        "number_type",
        "number_finite",
        "number_range",
        "money_type",
        "money_range",
        "decimal_type",
        "decimal_range",
        "text_type",
        "text_length",
        "text_control",
        "items_count",
    }
)
"""The models' own errors (`Bounds`, `MoneyBounds`, …): already worded in the house style."""


@dataclass(frozen=True)
class _Place:
    """Where an error sits in a file's model: the field's rule, and the models a table there
    may be (one, or each member of a tagged union such as an action's effects)."""

    rule: FieldRule | None
    models: tuple[type[BaseModel], ...]

    @property
    def fields(self) -> list[str]:
        """The keys a table here may hold."""
        return sorted({f for m in self.models for f in m.model_fields})

    @property
    def tags(self) -> list[str]:
        """The `kind` tags of a tagged union here (empty elsewhere)."""
        if len(self.models) < 2:
            return []
        return [t for m in self.models if (t := _tag(m)) is not None]


def _bare(annotation: Any) -> Any:
    """An annotation without `Annotated` and `| None`."""
    while True:
        origin = get_origin(annotation)
        if origin is Annotated:
            annotation = get_args(annotation)[0]
        elif origin in (Union, UnionType) and type(None) in get_args(annotation):
            members = [a for a in get_args(annotation) if a is not type(None)]
            if len(members) != 1:
                return Union[tuple(members)]  # noqa: UP007
            annotation = members[0]
        else:
            return annotation


def _models_of(annotation: Any) -> tuple[type[BaseModel], ...]:
    members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else ()
    members = members or (annotation,)
    return tuple(m for m in members if isinstance(m, type) and issubclass(m, BaseModel))


def _tag(model: type[BaseModel]) -> str | None:
    field = model.model_fields.get("kind")
    return str(field.default) if field is not None and isinstance(field.default, str) else None


@functools.cache
def _rules(model: type[BaseModel]) -> dict[str, FieldRule]:
    return {rule.path: rule for rule in field_rules(model)}


def _place(model: type[BaseModel], loc: tuple[Any, ...]) -> _Place:
    """The rule of the field at `loc` and the models a table there may be."""
    nowhere = _Place(None, ())
    current: Any = model
    generic = ""
    for part in loc:
        members = _models_of(current)
        if isinstance(part, int):
            if get_origin(current) is not tuple:
                return nowhere
            current = _bare(get_args(current)[0])
            generic += "[]"
        elif len(members) > 1:
            chosen = [m for m in members if _tag(m) == part]
            if not chosen:
                return nowhere
            current = chosen[0]
            generic += f" (kind = `{part}`)"
        elif get_origin(current) is dict:
            current = _bare(get_args(current)[1])
        elif len(members) == 1 and part in members[0].model_fields:
            current = _bare(members[0].model_fields[part].annotation)
            generic += f".{part}" if generic else part
        else:
            return nowhere
    rules = _rules(model)
    rule = rules.get(generic)
    listed = rules.get(generic.removesuffix("[]")) if generic.endswith("[]") else None
    if rule is None and listed is not None and "; each " in listed.allowed:
        rule = replace(listed, allowed=listed.allowed.partition("; each ")[2])
    return _Place(rule, _models_of(current))


def _allowed(place: _Place) -> str:
    """What the field allows, in the docs' words (empty when unknown)."""
    rule = place.rule
    if rule is None or not rule.allowed:
        return ""
    allowed = rule.allowed
    for pattern, words in PATTERN_WORDS.items():
        allowed = allowed.replace(f"matches `{pattern}`", words)
        allowed = allowed.replace(f"keys match `{pattern}`", f"keys of {words}")
    return allowed.replace("`", "'")


def _with_allowed(text: str, place: _Place) -> str:
    allowed = _allowed(place)
    return f"{text}: allowed {allowed}" if allowed else text


def _edits(a: str, b: str) -> int:
    """Edits from `a` to `b`: insertions, deletions, substitutions and swaps of neighbours."""
    previous, row = list(range(len(b) + 1)), [0] * (len(b) + 1)
    before: list[int] = []
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], before[j - 2] + 1)
        before, previous = previous, row
    return previous[len(b)]


def _suggestion(given: str, known: list[str]) -> str | None:
    """The known name `given` most likely misspells, if any is close: the same but for case,
    one edit away (two for longer names), or much alike."""
    if len(given) > SUGGEST_CHARS:
        return None
    folded = {k.casefold(): k for k in known}
    if given.casefold() in folded:
        return folded[given.casefold()]
    for k in known:
        edits = 1 if len(k) < 8 else 2
        if abs(len(k) - len(given)) <= edits and _edits(given.casefold(), k.casefold()) <= edits:
            return k
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.75)
    return close[0] if close else None


def _date_reason(value: Any) -> str:
    """Why a date-like text is not a date, in calendar words when it names a day."""
    match = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", value) if isinstance(value, str) else None
    if match is None:
        return "write it as YYYY-MM-DD"
    year, month, day = (int(g) for g in match.groups())
    if not 1 <= month <= 12:
        return f"there is no month {month}"
    last = calendar.monthrange(year, month)[1]
    if not 1 <= day <= last:
        name = dt.date(year, month, 1).strftime("%B")
        return f"{name} {year} has days 1 to {last}"
    return "write it as YYYY-MM-DD"


def _unmatched(value: Any, pattern: str) -> str:
    """What in `value` breaks an identifier pattern: its first character not allowed there.

    Every pattern of the models allows each prefix of a text it allows, so the first prefix
    it refuses ends at the character at fault."""
    text = str(value)
    for index in range(len(text)):
        if not re.fullmatch(pattern, text[: index + 1]):
            return f"{shown(value)} has {text[index]!r} at position {index + 1}"
    return f"{shown(value)} is not allowed"


def _choices(expected: str) -> list[str]:
    """The choices of pydantic's `expected` text (`'a', 'b' or 'c'`, `1 or -1`)."""
    return [a or b for a, b in re.findall(r"'([^']*)'|(-?\d+)", expected)]


def _wording(err: ErrorDetails, place: _Place) -> str:
    """One error as a house-style message (the location is printed apart)."""
    kind = err["type"]
    value = err.get("input")
    context = err.get("ctx") or {}
    text = " ".join(str(err["msg"]).split())
    if kind in _CUSTOM:
        return text
    if kind == "value_error":
        return text.removeprefix("Value error, ")
    if kind == "missing":
        return _with_allowed("is missing (it is required)", place)
    if kind == "string_pattern_mismatch":
        return _with_allowed(_unmatched(value, str(context.get("pattern", ""))), place)
    if kind in ("string_too_long", "string_too_short"):
        size = f"has {len(value)} characters" if value else "is empty"
        return _with_allowed(f"{shown(value)} {size}", place)
    if kind == "string_type":
        return _with_allowed(f"expected text, got {shown(value)}", place)
    if kind == "literal_error":
        choices = _choices(str(context.get("expected", "")))
        hint = _suggestion(str(value), choices) if isinstance(value, str) else None
        mean = f" (did you mean {hint!r}?)" if hint is not None and hint != value else ""
        return _with_allowed(f"{shown(value)} is not allowed", place) + mean
    if kind.startswith("date"):
        return _with_allowed(f"{shown(value)} is not a date ({_date_reason(value)})", place)
    if kind in ("tuple_type", "list_type"):
        return _with_allowed(f"expected a list, got {shown(value)}", place)
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return f"expected a table, got {shown(value)}"
    if kind == "union_tag_not_found":
        keys = [str(k) for k in value] if isinstance(value, dict) else []
        typo = next((k for k in keys if _suggestion(k, ["kind"])), None)
        text = "kind is missing" + (
            f" (unknown field {shown(typo)}: did you mean 'kind'?)" if typo else ""
        )
        listed = ", ".join(repr(t) for t in place.tags)
        return f"{text}: allowed {listed}" if listed else text
    if kind == "union_tag_invalid":
        tag = str(context.get("tag", ""))
        hint = _suggestion(tag, place.tags)
        mean = f" (did you mean {hint!r}?)" if hint else ""
        listed = ", ".join(repr(t) for t in place.tags)
        return f"kind {shown(tag)} is not allowed: allowed {listed}{mean}"
    if kind == "int_parsing_size":
        return _with_allowed(f"{shown(value)} is too large a number", place)
    if kind == "too_long":
        return f"{context.get('actual_length', '?')} entries: allowed at most " + str(
            context.get("max_length", "?")
        )
    return f"{text} (got {shown(value)})"


def problem_lines(model: type[BaseModel], errors: list[ErrorDetails]) -> list[tuple[str, str]]:
    """(field path, message) for each of a file's validation errors, in the house style.

    An unknown key close to a missing required one at the same place is one problem (the
    misspelling), worded on the unknown key with the name it should have.
    """
    located = [
        (tuple(p for p in err["loc"] if not (isinstance(p, str) and _INTERNAL.match(p))), err)
        for err in errors
    ]
    missing = {loc for loc, err in located if err["type"] == "missing" and loc}
    hints: dict[tuple[Any, ...], str] = {}
    unknown = [
        loc
        for loc, err in located
        if err["type"] == "extra_forbidden" and loc and isinstance(loc[-1], str)
    ]
    for loc in unknown[:SUGGESTIONS]:
        unfilled = [str(m[-1]) for m in missing if m[:-1] == loc[:-1]]
        key = str(loc[-1])
        hint = _suggestion(key, unfilled) or _suggestion(key, _place(model, loc[:-1]).fields)
        if hint is not None:
            hints[loc] = hint
    typos = {(*loc[:-1], hint) for loc, hint in hints.items()}
    lines = []
    for loc, err in located:
        if err["type"] == "missing" and loc in typos:
            continue
        if loc and loc[-1] == "[key]":
            loc = loc[:-2]
            text = _wording(err, _place(model, loc)).replace(" has ", " (a key) has ", 1)
        elif err["type"] == "extra_forbidden" and loc and isinstance(loc[-1], str):
            text = "unknown field"
            hint = hints.get(loc)
            if hint is not None:
                text += f": did you mean {hint!r}?"
                text += f" ({hint} is required)" if (*loc[:-1], hint) in missing else ""
            else:
                known = _place(model, loc[:-1]).fields
                text += f": allowed {', '.join(known)}" if known else ""
        else:
            text = _wording(err, _place(model, loc))
        lines.append((_location(loc), text))
    return lines


def _location(loc: tuple[Any, ...]) -> str:
    """A pydantic location as a field path; an effect's union tag (`effects[0].loan`) is dropped."""
    out = ""
    for index, part in enumerate(loc):
        if isinstance(part, int):
            out += f"[{part}]"
        elif index >= 2 and loc[index - 2] == "effects" and isinstance(loc[index - 1], int):
            continue
        else:
            out += f".{part}" if out else str(part)
    return out
