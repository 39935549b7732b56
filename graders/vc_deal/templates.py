"""The template bank: prose templates and name pools, loaded from a swappable TOML file."""

from __future__ import annotations

import codecs
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Formatter

from graders.vc_deal.gold import shown
from ledger.bounded_read import read_at_most

MAX_TEMPLATE_BYTES = 1024 * 1024
"""Largest template file read (1 MiB; the bundled one is a few KiB)."""
BASE_FIELDS = frozenset({"company", "investor", "round", "sector", "raise", "pre"})
"""Placeholders any template may use; {raise} and {pre} are required in every one."""

DISTRACTOR_FIELDS = frozenset({"year", "headcount", "arr", "firms"})
"""Distractor placeholders: hard templates use one or two, easy templates none."""

GIVEAWAY = re.compile(r"%|percent|\b(?:ownership|owns|stake|equity|holds)\b", re.IGNORECASE)
"""Text that would hint at or state the answer; no scenario may contain it."""

_NAME_POOLS = ("companies", "investors", "rounds", "sectors")


class TemplateError(ValueError):
    """A template file is malformed or would leak the answer."""


@dataclass(frozen=True, slots=True)
class TemplateBank:
    """Everything the generator draws prose from: instruction, templates, name pools."""

    instruction: str
    easy: tuple[str, ...]
    hard: tuple[str, ...]
    companies: tuple[str, ...]
    investors: tuple[str, ...]
    rounds: tuple[str, ...]
    sectors: tuple[str, ...]


def _fields(template: str, where: str) -> set[str]:
    """The placeholder names of a template; TemplateError on broken braces or format specs."""
    try:
        parsed = list(Formatter().parse(template))
    except ValueError as exc:
        raise TemplateError(f"{where}: {exc}") from exc
    fields = set()
    for _, name, spec, conversion in parsed:
        if name is None:
            continue
        if name not in BASE_FIELDS | DISTRACTOR_FIELDS:
            raise TemplateError(f"{where}: unknown placeholder {shown('{' + name + '}')}")
        if spec or conversion:
            written = (
                "{" + name + (f"!{conversion}" if conversion else "") + f":{spec}" * bool(spec)
            )
            raise TemplateError(
                f"{where}: placeholder {shown(written + '}')} takes no conversion or format; "
                f"write {{{name}}}"
            )
        fields.add(name)
    return fields


def _check_template(template: str, hard: bool, where: str) -> None:
    """Reject a template missing a figure, with the wrong distractors, or with a giveaway."""
    fields = _fields(template, where)
    if not {"raise", "pre"} <= fields:
        raise TemplateError(f"{where}: needs both {{raise}} and {{pre}}")
    distractors = len(fields & DISTRACTOR_FIELDS)
    if hard and not 1 <= distractors <= 2:
        raise TemplateError(f"{where}: a hard template needs one or two distractors")
    if not hard and distractors:
        raise TemplateError(f"{where}: an easy template takes no distractors")
    found = GIVEAWAY.search(template)
    if found:
        raise TemplateError(f"{where}: contains the giveaway {found[0]!r}")


def _strings(value: object, where: str) -> tuple[str, ...]:
    """A non-empty list of non-empty strings, as a tuple."""
    if not isinstance(value, list) or not value:
        raise TemplateError(f"{where}: expected a non-empty list of strings")
    if not all(isinstance(item, str) and item.strip() for item in value):
        raise TemplateError(f"{where}: every entry must be a non-empty string")
    return tuple(value)


def parse_templates(data: dict[str, object], source: str = "templates") -> TemplateBank:
    """Validate decoded TOML into a bank; TemplateError names the offending entry."""
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise TemplateError(f"{source}: 'instruction' must be a non-empty string")
    easy = _strings(data.get("easy"), f"{source}: easy")
    hard = _strings(data.get("hard"), f"{source}: hard")
    for kind, templates in (("easy", easy), ("hard", hard)):
        for index, template in enumerate(templates):
            _check_template(template, kind == "hard", f"{source}: {kind}[{index}]")
    names = data.get("names")
    if not isinstance(names, dict):
        raise TemplateError(f"{source}: missing the [names] table")
    pools = {pool: _strings(names.get(pool), f"{source}: names.{pool}") for pool in _NAME_POOLS}
    for pool, entries in pools.items():
        for entry in entries:
            if GIVEAWAY.search(entry) or "{" in entry or "}" in entry:
                raise TemplateError(f"{source}: names.{pool} entry {shown(entry)} is not allowed")
    return TemplateBank(instruction.strip(), easy, hard, **pools)


def load_templates(path: str | Path | None = None) -> TemplateBank:
    """Load a template file, or the bundled `templates.toml` when no path is given.

    A UTF-8 byte order mark at the start, as some editors write one, is read past.
    """
    if path is None:
        raw = resources.files(__package__).joinpath("templates.toml").read_bytes()
        source = "templates.toml"
    else:
        try:
            with open(path, "rb") as handle:
                raw = read_at_most(handle, MAX_TEMPLATE_BYTES)
        except OSError as exc:
            raise TemplateError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        if len(raw) > MAX_TEMPLATE_BYTES:
            raise TemplateError(f"{path}: larger than the template file limit of 1 MiB")
        source = str(path)
    try:
        data = tomllib.loads(raw.removeprefix(codecs.BOM_UTF8).decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise TemplateError(f"{source}: not valid TOML ({exc})") from exc
    except ValueError as exc:  # an integer beyond Python's digit limit for text (4,300)
        raise TemplateError(f"{source}: holds a number with too many digits to read") from exc
    return parse_templates(data, source)
