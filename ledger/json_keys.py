"""Strict JSON objects: a key named twice in one object is refused, not resolved.

JSON parsers (orjson, the standard library) keep the last of a repeated key, so
`{"days": 1, "days": 2}` silently means 2 days. Inputs that are commands say what they
mean once: `repeated_key` finds the first key an object repeats.
"""

from __future__ import annotations

import json
from typing import Any


class _Repeated(Exception):
    """Raised from the pairs hook at the first repeated key (ends the parse early)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise _Repeated(key)
        seen.add(key)
    return dict(pairs)


def repeated_key(data: bytes | str) -> str | None:
    """The first key some object of the JSON text `data` names twice, or None (also None
    for text that is not JSON: its own parser names that)."""
    try:
        json.loads(data, object_pairs_hook=_unique)
    except _Repeated as found:
        return found.key
    except (ValueError, RecursionError):
        return None
    return None
