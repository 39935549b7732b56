"""Canonical JSON: one byte encoding per value, round-tripping exactly."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.canonical import digest, dumps, loads

text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | text
json_like = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(text, children, max_size=5),
    max_leaves=30,
)


def _same(a: Any, b: Any) -> bool:
    """Equal and of identical types all the way down (so True is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


@settings(max_examples=200, deadline=None)
@given(json_like)
def test_canonical_encoding_round_trips_byte_for_byte(value: Any) -> None:
    encoded = dumps(value)
    decoded = loads(encoded)
    assert dumps(decoded) == encoded
    assert _same(decoded, _sorted(value))
    assert loads(encoded.decode("utf-8")) == decoded


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(text, scalars, min_size=2, max_size=8))
def test_key_order_does_not_change_the_encoding(value: dict[str, Any]) -> None:
    reversed_order = dict(reversed(list(value.items())))
    assert dumps(reversed_order) == dumps(value)
    assert digest(reversed_order) == digest(value)


def test_encoding_is_compact_sorted_utf8() -> None:
    assert dumps({"b": [1, True, None], "a": "é☃"}) == '{"a":"é☃","b":[1,true,null]}'.encode()
    assert digest({}) == "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
