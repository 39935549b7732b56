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
from dataclasses import MISSING, dataclass, fields, replace
from typing import Any

from ledger.canonical import digest, dumps, sha256_hex

SEAL_SCHEMA = "cfwb.seal/1"
SIGNATURE_FIELD = "signature"
SIGNATURE_PREFIX = "hmac-sha256:"


def hmac_signature(key: bytes, data: bytes) -> str:
    """`hmac-sha256:` and the hex HMAC-SHA256 of `data` under `key`."""
    return SIGNATURE_PREFIX + hmac.new(key, data, hashlib.sha256).hexdigest()


def signature_matches(signature: str | None, key: bytes, data: bytes) -> bool:
    """True when `signature` is the one `key` makes over `data` (compared in constant time)."""
    if signature is None:
        return False
    return hmac.compare_digest(signature.encode(), hmac_signature(key, data).encode())


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


class SealFormatError(ValueError):
    """Data that is not a seal: the message names the field and what is wrong with it."""


_TEXT_FIELDS = (
    "campaign_id",
    "campaign_digest",
    "seed_commitment",
    "journal_head",
    "ledger_digest",
    "engine_version",
)
_COUNT_FIELDS = ("journal_entries", "final_day")


@dataclass(frozen=True)
class Seal:
    """A seal: what a run (or an evaluation's branch) ran on and what it reached.

    Encoded as canonical JSON (`to_bytes`); `signature` appears only when signed.
    `identities` names who or what ran (a run: company, agent, tasks; a branch: episode
    and branch name).
    """

    campaign_id: str
    campaign_digest: str
    identities: Mapping[str, Any]
    seed_commitment: str
    journal_head: str
    journal_entries: int
    ledger_digest: str
    final_day: int
    engine_version: str
    signature: str | None = None

    @classmethod
    def from_data(cls, data: object) -> Seal:
        """The seal a decoded JSON document holds; SealFormatError names what is not."""
        if not isinstance(data, dict):
            raise SealFormatError("a JSON object is expected")
        unknown = sorted(set(data) - _FIELDS)
        if unknown:
            raise SealFormatError(f"unknown field {unknown[0]!r}")
        missing = [name for name in _REQUIRED if name not in data]
        if missing:
            raise SealFormatError(f"field {missing[0]!r} is missing")
        if data["schema"] != SEAL_SCHEMA:
            raise SealFormatError(f"schema is not {SEAL_SCHEMA}")
        for name in _TEXT_FIELDS:
            if not isinstance(data[name], str):
                raise SealFormatError(f"field {name!r} is not a string")
        for name in _COUNT_FIELDS:
            if type(data[name]) is not int or data[name] < 0:
                raise SealFormatError(f"field {name!r} is not a count")
        if not isinstance(data["identities"], dict):
            raise SealFormatError("field 'identities' is not an object")
        if not isinstance(data.get(SIGNATURE_FIELD, ""), str):
            raise SealFormatError(f"field {SIGNATURE_FIELD!r} is not a string")
        return cls(**{name: value for name, value in data.items() if name != "schema"})

    def to_data(self) -> dict[str, Any]:
        """The seal as the JSON object its encoding holds (no `signature` when unsigned)."""
        data: dict[str, Any] = {"schema": SEAL_SCHEMA}
        for item in fields(self):
            value = getattr(self, item.name)
            if value is not None:
                data[item.name] = dict(value) if item.name == "identities" else value
        return data

    def to_bytes(self) -> bytes:
        """Canonical bytes of the seal, newline-terminated for files."""
        return dumps(self.to_data()) + b"\n"

    def digest(self) -> str:
        """SHA-256 of the seal's canonical encoding."""
        return digest(self.to_data())

    def signed(self, key: bytes) -> Seal:
        """The seal with its signature: HMAC-SHA256 over the canonical unsigned seal."""
        unsigned = replace(self, signature=None)
        return replace(self, signature=hmac_signature(key, dumps(unsigned.to_data())))

    def signature_ok(self, key: bytes) -> bool:
        """True when the seal carries a signature that `key` made over its other fields."""
        unsigned = replace(self, signature=None)
        return signature_matches(self.signature, key, dumps(unsigned.to_data()))

    def differences(self, other: Seal) -> list[str]:
        """Field names whose values differ between this seal and `other`, in a stable order."""
        mine, theirs = self.to_data(), other.to_data()
        return [k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)]


_REQUIRED = ("schema", *(item.name for item in fields(Seal) if item.default is MISSING))
"""Every field a seal must have, in the order a missing one is named."""
_FIELDS = frozenset({"schema", *(item.name for item in fields(Seal))})


def seal_line_digest(line: bytes) -> str:
    """`Seal.digest` of the seal whose `to_bytes` are `line`, without encoding it again."""
    return sha256_hex(line.removesuffix(b"\n"))
