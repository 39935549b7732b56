"""Canonical JSON: orjson with sorted keys, the one byte encoding every hash is taken over."""

from __future__ import annotations

import hashlib
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS


def dumps(obj: Any) -> bytes:
    """Encode `obj` canonically: sorted keys, no whitespace, UTF-8."""
    return orjson.dumps(obj, option=_OPTIONS)


def loads(data: bytes | str) -> Any:
    """Decode JSON produced by `dumps` (or any JSON)."""
    return orjson.loads(data)


def sha256_hex(data: bytes) -> str:
    """Hex SHA-256 of raw bytes."""
    return hashlib.sha256(data).hexdigest()


def digest(obj: Any) -> str:
    """Hex SHA-256 of the canonical encoding of `obj`."""
    return sha256_hex(dumps(obj))
