"""Seals: a small canonical JSON document binding a run's inputs and results.

A seal names the campaign digest, identities, a salted commitment to the seed
(never the seed), the journal head and the final ledger digest. Two runs agree
exactly when their seals are byte-identical.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from ledger.canonical import digest, dumps

SEAL_SCHEMA = "cfwb.seal/1"


def seed_commitment(seed: int, salt: str) -> str:
    """A salted SHA-256 commitment to a seed: `sha256("cfwb-seed" ‖ salt ‖ seed)`."""
    material = f"cfwb-seed\x00{salt}\x00{int(seed)}".encode()
    return hashlib.sha256(material).hexdigest()


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


def seal_differences(expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    """Field names whose values differ between two seals, in a stable order."""
    keys = sorted(set(expected) | set(actual))
    return [k for k in keys if expected.get(k) != actual.get(k)]
