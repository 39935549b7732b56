"""Hypothesis strategies for hostile input: JSON values, numbers, text, mutated documents."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from ledger.canonical import dumps

SPECIAL_NUMBERS = st.sampled_from(
    [
        0,
        -1,
        1,
        2**31,
        2**63 - 1,
        -(2**63),
        2**64,
        10**400,
        1e308,
        -1e308,
        5e-324,
        0.5,
        1.0,
        True,
        False,
    ]
)
SPECIAL_STRINGS = st.sampled_from(
    [
        "",
        " ",
        "0",
        "-0",
        "1e308",
        "1e-999999",
        "1E+999999999",
        "nan",
        "NaN",
        "inf",
        "-Infinity",
        "0x10",
        "1_000",
        "١٢٣",
        "\x00",
        "\x1b[2J",
        "\u202e",
        "x" * 5000,
        "9" * 400,
        "../../etc/passwd",
        "null",
        "[]",
    ]
)
text = st.text(max_size=30) | SPECIAL_STRINGS
numbers = (
    SPECIAL_NUMBERS
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.decimals(allow_nan=False, allow_infinity=False).map(str)
)
scalars = st.none() | st.booleans() | numbers | text
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(text, children, max_size=4),
    max_leaves=12,
)


def encode(value: Any) -> bytes:
    """JSON bytes for any generated value (big integers included), as a careless tool writes."""
    return json.dumps(value, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass")


@st.composite
def mutated(draw: st.DrawFn, document: dict[str, Any], keys: list[str] | None = None) -> bytes:
    """`document` with one to three mutations, encoded: a changed, dropped or added field,
    a field of the wrong type, or damaged bytes."""
    doc = json.loads(json.dumps(document))
    for _ in range(draw(st.integers(1, 3))):
        fields = keys or sorted(doc)
        move = draw(st.sampled_from(["change", "drop", "add", "retype", "nest"]))
        if move == "add" or not fields:
            doc[draw(text)] = draw(json_values)
            continue
        key = draw(st.sampled_from(fields))
        if move == "drop":
            doc.pop(key, None)
        elif move == "change":
            doc[key] = draw(json_values)
        elif move == "retype":
            doc[key] = draw(st.sampled_from([None, [], {}, "", 0, True, [doc.get(key)]]))
        else:
            doc[key] = {"value": doc.get(key)}
    data = encode(doc)
    return draw(damaged(data))


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` as is, or truncated, with bytes flipped or inserted, or with junk appended."""
    how = draw(st.sampled_from(["same", "same", "same", "truncate", "flip", "insert", "append"]))
    if how == "same" or not data:
        return data
    at = draw(st.integers(0, len(data) - 1))
    if how == "truncate":
        return data[:at]
    if how == "flip":
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
    if how == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=8)) + data[at:]
    return data + draw(st.binary(min_size=1, max_size=16))


def canonical(value: Any) -> bytes:
    """The workbench's canonical encoding, newline-terminated (as it writes files); values
    it cannot encode (integers beyond 64 bits) in the closest JSON a careless tool writes."""
    try:
        return dumps(value) + b"\n"
    except TypeError:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode("utf-8", "surrogatepass") + b"\n"


Path_ = tuple[str | int, ...]


def _paths(value: Any, prefix: Path_ = ()) -> list[Path_]:
    """Every place in a JSON document: each key of each object, each item of each list."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _parent(document: Any, path: Path_) -> Any:
    for step in path[:-1]:
        document = document[step]
    return document


@st.composite
def changed_anywhere(draw: st.DrawFn, original: dict[str, Any]) -> bytes:
    """The document with one to three of its places (at any depth) changed, dropped,
    retyped or swapped, encoded canonically (most cases, so checks past the encoding run)
    or loosely and perhaps damaged."""
    document = json.loads(json.dumps(original))
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(document)
        if not paths:
            document[draw(text)] = draw(json_values)
            continue
        path = draw(st.sampled_from(paths))
        parent, last = _parent(document, path), path[-1]
        move = draw(st.sampled_from(["change", "change", "retype", "drop", "swap"]))
        if move == "drop":
            del parent[last]
        elif move == "retype":
            parent[last] = draw(st.sampled_from([None, [], {}, "", 0, -1, True, "x"]))
        elif move == "swap":
            other = draw(st.sampled_from(paths))
            if other[: len(path)] != path and path[: len(other)] != other:
                parent[last], _parent(document, other)[other[-1]] = (
                    _parent(document, other)[other[-1]],
                    parent[last],
                )
        else:
            parent[last] = draw(json_values)
    if draw(st.integers(0, 4)):
        return canonical(document)
    return draw(damaged(encode(document)))
