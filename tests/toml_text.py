"""A small TOML writer for tests: every value inline, so any parsed campaign round-trips."""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _key(key: str) -> str:
    return key if _BARE.match(key) else json.dumps(key, ensure_ascii=False)


def value_text(value: Any) -> str:
    """One TOML value, inline (tables as inline tables, arrays on one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "nan"
        if value in (float("inf"), float("-inf")):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, dict):
        inner = ", ".join(f"{_key(k)} = {value_text(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def dumps(document: dict[str, Any]) -> str:
    """A TOML document with one `key = value` line per top-level key."""
    return "".join(f"{_key(k)} = {value_text(v)}\n" for k, v in document.items())
