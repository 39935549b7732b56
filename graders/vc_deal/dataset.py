"""Canonical dataset bytes: one sorted-key orjson line per item, the encoding golden hashes pin."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import orjson

from graders.vc_deal.generator import Item


def to_jsonl(items: Iterable[Item]) -> bytes:
    """The canonical JSONL of a dataset: sorted keys, no spaces, UTF-8, newline-terminated."""
    return b"".join(_line(item) for item in items)


def _line(item: Item) -> bytes:
    """One canonical JSONL line."""
    return orjson.dumps(item.to_row(), option=orjson.OPT_SORT_KEYS) + b"\n"


def dataset_sha256(items: Iterable[Item]) -> str:
    """Hex SHA-256 of the canonical JSONL: byte-identical datasets, identical hashes."""
    return hashlib.sha256(to_jsonl(items)).hexdigest()
