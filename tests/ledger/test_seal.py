"""Seals: one typed record, one canonical encoding, signatures only the key can make.

A seal read back from its bytes is the seal that was written; its line's digest is its
digest however taken; anything that is not a seal is refused naming the field.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.canonical import dumps
from ledger.seal import SEAL_SCHEMA, Seal, SealFormatError, seal_line_digest
from tests.ledger.test_canonical import json_like, text

counts = st.integers(min_value=0, max_value=2**40)
seals = st.builds(
    Seal,
    campaign_id=text,
    campaign_digest=text,
    identities=st.dictionaries(text, json_like, max_size=4),
    seed_commitment=text,
    journal_head=text,
    journal_entries=counts,
    ledger_digest=text,
    final_day=counts,
    engine_version=text,
    signature=st.none() | text,
)


@given(seals)
def test_a_seal_read_back_from_its_bytes_is_the_same_seal(seal: Seal) -> None:
    line = seal.to_bytes()
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    again = Seal.from_data(orjson.loads(line))
    assert again == seal and again.to_bytes() == line


@given(seals)
def test_a_seal_lines_digest_is_the_seals_digest(seal: Seal) -> None:
    """The evaluator names each seal by the digest of the line it wrote, not a re-encoding."""
    assert seal_line_digest(seal.to_bytes()) == seal.digest()


@given(seals, st.binary(min_size=1, max_size=32), st.binary(min_size=1, max_size=32))
def test_only_the_key_makes_a_signature_that_checks(seal: Seal, key: bytes, other: bytes) -> None:
    signed = seal.signed(key)
    assert signed.signature is not None and signed.signature.startswith("hmac-sha256:")
    assert signed.signature_ok(key)
    assert signed.signature_ok(other) == (signed.signed(other) == signed)
    assert not replace(signed, signature=None).signature_ok(key)
    assert not replace(signed, final_day=signed.final_day + 1).signature_ok(key)
    assert signed.signed(key) == signed, "signing ignores an earlier signature"


@given(seals, seals)
def test_differences_name_exactly_the_fields_that_differ(first: Seal, second: Seal) -> None:
    named = first.differences(second)
    a, b = first.to_data(), second.to_data()
    assert named == sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    assert (named == []) == (first == second)


def _good() -> dict[str, Any]:
    return Seal("c", "d", {"agent_id": "a"}, "s", "h", 3, "l", 2, "e").to_data()


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("journal_head"), "field 'journal_head' is missing"),
        (lambda d: d.update(extra={}), "unknown field 'extra'"),
        (lambda d: d.update(schema="cfwb.seal/0"), f"schema is not {SEAL_SCHEMA}"),
        (lambda d: d.update(campaign_id=7), "field 'campaign_id' is not a string"),
        (lambda d: d.update(final_day=True), "field 'final_day' is not a count"),
        (lambda d: d.update(journal_entries=-1), "field 'journal_entries' is not a count"),
        (lambda d: d.update(journal_entries="3"), "field 'journal_entries' is not a count"),
        (lambda d: d.update(identities=["a"]), "field 'identities' is not an object"),
        (lambda d: d.update(signature=None), "field 'signature' is not a string"),
    ],
)
def test_what_is_not_a_seal_is_refused_naming_the_field(change: Any, says: str) -> None:
    data = _good()
    change(data)
    with pytest.raises(SealFormatError, match=f"^{says}$"):
        Seal.from_data(data)


@given(json_like)
def test_any_json_is_a_seal_or_refused_as_one(value: Any) -> None:
    try:
        seal = Seal.from_data(value)
    except SealFormatError:
        return
    assert dumps(seal.to_data()) == dumps(value)
