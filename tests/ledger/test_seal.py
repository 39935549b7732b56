"""Seal encodings: a seal's file line and its digest agree however the digest is taken."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ledger.seal import seal_bytes, seal_digest, seal_line_digest
from tests.ledger.test_canonical import json_like, text


@given(st.dictionaries(text, json_like, max_size=8))
def test_a_seal_lines_digest_is_the_seals_digest(seal: dict[str, Any]) -> None:
    """The evaluator names each seal by the digest of the line it wrote, not a re-encoding."""
    line = seal_bytes(seal)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert seal_line_digest(line) == seal_digest(seal)
