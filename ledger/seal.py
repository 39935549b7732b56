"""Seals: a small canonical JSON document binding a run's inputs and results.

A seal names the campaign digest, identities, a commitment to the seed (never the
seed), the journal head and the final ledger digest. Two runs agree exactly when their
seals are byte-identical. A seal may carry an HMAC-SHA256 `signature` over everything
else, keyed by a secret its verifier holds: only the key holder can re-seal an edit.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from ledger.canonical import digest, dumps, sha256_hex

SEAL_SCHEMA = "cfwb.seal/1"
SIGNATURE_FIELD = "signature"
SIGNATURE_PREFIX = "hmac-sha256:"


def seed_commitment(seed: int, salt: str) -> str:
    """A public SHA-256 commitment to a seed: `sha256("cfwb-seed" ‖ salt ‖ seed)`.

    Anyone holding the salt can search small seeds against it: use it only where the
    seed is public anyway (development campaigns); private runs use `keyed_commitment`.
    """
    material = f"cfwb-seed\x00{salt}\x00{int(seed)}".encode()
    return hashlib.sha256(material).hexdigest()


def keyed_commitment(key: bytes, material: bytes) -> str:
    """HMAC-SHA256 of `material` under a secret `key`: unsearchable without the key."""
    return hmac.new(key, material, hashlib.sha256).hexdigest()


def sign_seal(seal: Mapping[str, Any], key: bytes) -> dict[str, Any]:
    """The seal with its `signature`: HMAC-SHA256 over the canonical unsigned seal."""
    unsigned = {k: v for k, v in seal.items() if k != SIGNATURE_FIELD}
    mac = hmac.new(key, dumps(unsigned), hashlib.sha256).hexdigest()
    return {**unsigned, SIGNATURE_FIELD: SIGNATURE_PREFIX + mac}


def seal_signature_ok(seal: Mapping[str, Any], key: bytes) -> bool:
    """True when the seal carries a signature that `key` made over its other fields."""
    stated = seal.get(SIGNATURE_FIELD)
    if not isinstance(stated, str):
        return False
    expected = sign_seal(seal, key)[SIGNATURE_FIELD]
    return hmac.compare_digest(stated.encode(), expected.encode())


def make_seal(
    *,
    campaign_id: str,
    campaign_digest: str,
    identities: Mapping[str, Any],
    seed_commitment: str,
    journal_head: str,
    journal_entries: int,
    ledger_digest: str,
    final_day: int,
    engine_version: str,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build a seal document (a plain dict; encode it with `seal_bytes`)."""
    seal: dict[str, Any] = {
        "schema": SEAL_SCHEMA,
        "campaign_id": campaign_id,
        "campaign_digest": campaign_digest,
        "identities": dict(identities),
        "seed_commitment": seed_commitment,
        "journal_head": journal_head,
        "journal_entries": journal_entries,
        "ledger_digest": ledger_digest,
        "final_day": final_day,
        "engine_version": engine_version,
    }
    if extra:
        seal["extra"] = dict(extra)
    return seal


def seal_bytes(seal: Mapping[str, Any]) -> bytes:
    """Canonical bytes of a seal, newline-terminated for files."""
    return dumps(seal) + b"\n"


def seal_digest(seal: Mapping[str, Any]) -> str:
    """SHA-256 of the seal's canonical encoding."""
    return digest(seal)


def seal_line_digest(line: bytes) -> str:
    """`seal_digest` of the seal whose `seal_bytes` are `line`, without encoding it again."""
    return sha256_hex(line.removesuffix(b"\n"))


def seal_differences(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """Field names whose values differ between two seals, in a stable order."""
    keys = sorted(set(expected) | set(actual))
    return [k for k in keys if expected.get(k) != actual.get(k)]
