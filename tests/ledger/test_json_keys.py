"""`repeated_key`: a key named twice in any object of a JSON text is found, at any depth."""

from __future__ import annotations

import re
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from ledger.json_keys import _STRING, repeated_key

KEYS = st.text(
    alphabet=st.sampled_from(["a", "b", '"', "\\", ":", " ", "é"]), min_size=1, max_size=6
)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | KEYS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=12,
)


@given(VALUES)
def test_json_a_parser_wrote_repeats_no_key(value: Any) -> None:
    text = orjson.dumps(value)
    assert repeated_key(text) is None
    assert repeated_key(text, orjson.loads(text)) is None


@given(st.dictionaries(KEYS, VALUES, min_size=1, max_size=4), st.data())
def test_a_key_written_twice_is_found_at_any_depth(
    obj: dict[str, Any], data: st.DataObject
) -> None:
    key = data.draw(st.sampled_from(sorted(obj)))
    twice = orjson.dumps(obj)[:-1] + b"," + orjson.dumps(key) + b":0}"
    depth = data.draw(st.integers(0, 3))
    for _ in range(depth):
        twice = b'{"outer":[' + twice + b"]}"
    assert repeated_key(twice) == key
    assert repeated_key(twice, orjson.loads(twice)) == key  # the cheap count sees it too
    assert repeated_key(b"not json") is None


def test_text_as_deep_as_orjson_takes_is_answered() -> None:
    """orjson parses 1024 levels, more than Python's stack takes: the count of members
    recursed through them (RecursionError: a 500 from the host, a traceback from `run`)."""
    for depth in (100, 1000):
        inside = b"[" * depth + b'{"k": 1, "j": [2]}' + b"]" * depth
        plain = b'{"k": 0, "deep": ' + inside + b"}"
        assert repeated_key(plain, orjson.loads(plain)) is None
        twice = b'{"k": 0, "deep": ' + inside.replace(b'"j"', b'"k"') + b"}"
        assert repeated_key(twice, orjson.loads(twice)) == "k"


def test_a_repeat_is_named_whatever_its_spelling_and_brackets_in_strings() -> None:
    text = b'{"x": "{[\\"}]", "y": {"a\\u00e9": 1, "a\xc3\xa9": 2}, "y": 3}'
    assert repeated_key(text, orjson.loads(text)) == repeated_key(text) == "a\u00e9"
    escaped = b'{"a": 1, "\\u0061": 2}'
    assert repeated_key(escaped, orjson.loads(escaped)) == "a"


_PLAIN_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"(\s*:)?')
"""The string pattern as first written, one character at a time: the reference the unrolled
(faster) pattern must match exactly."""


@given(st.binary(max_size=40) | st.text(alphabet='"\\:{}[] ab\n', max_size=40).map(str.encode))
def test_the_unrolled_string_pattern_finds_the_same_strings(text: bytes) -> None:
    expected = [(m.span(), m.group(1)) for m in _PLAIN_STRING.finditer(text)]
    assert [(m.span(), m.group(1)) for m in _STRING.finditer(text)] == expected
