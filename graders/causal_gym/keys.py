"""Keyed derivation: one HMAC-SHA256 seed per (namespace, family, task, stream)."""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import orjson

from graders.causal_gym.version import GENERATOR_VERSION, RETIRED_SPLITS

Namespace = Literal["train", "eval-v2"]
NAMESPACES: Final[tuple[str, ...]] = ("train", "eval-v2")
STREAMS: Final[tuple[str, ...]] = ("scm", "data", "messiness", "naming", "prompt")
KEY_ENV: Final[str] = "CAUSAL_GYM_KEY"
DEFAULT_KEY_HEX: Final[str] = "c0ffee5eed0fca05a1c0de9e70a11ab1e5ca1ab1ec0ffee5eed0fca05a1c0de9"
MAX_TASK_ID: Final[int] = 2**64 - 1


class DerivationError(ValueError):
    """A malformed key, namespace, stream or task id: the caller turns it into a user error."""


_HEX_DIGITS = frozenset("0123456789abcdef")
_ASCII_SPACE = frozenset(" \t\n\r\x0b\x0c")


def _not_hex(cleaned: str, source: str) -> str:
    """Why `bytes.fromhex` refused a key, without showing it. A key of hex digits alone
    whose count is odd (a digit missing or extra) was called "not hexadecimal"."""
    if not all(char in _HEX_DIGITS or char in _ASCII_SPACE for char in cleaned):
        return f"{source} is not hexadecimal (its value is not shown)"
    digits = sum(char in _HEX_DIGITS for char in cleaned)
    if digits % 2:
        return (
            f"{source} has an odd number of hex digits ({digits}); a key is whole bytes, "
            "two hex digits each (its value is not shown)"
        )
    return f"{source} has whitespace between the two hex digits of a byte (its value is not shown)"


def parse_key(text: str, source: str = "the key") -> bytes:
    """Decode a hex key of at least 16 bytes; errors name `source` and never show the key."""
    cleaned = text.strip().lower().removeprefix("0x")
    if not cleaned:
        raise DerivationError(f"{source} is blank; give a hex key of at least 32 hex digits")
    try:
        raw = bytes.fromhex(cleaned)
    except ValueError:
        raise DerivationError(_not_hex(cleaned, source)) from None
    if len(raw) < 16:
        raise DerivationError(
            f"{source} must hold at least 16 bytes (32 hex digits); it holds {len(raw)}"
        )
    return raw


def resolve_key(
    option: str | None = None, environ: Mapping[str, str] | None = None, option_name: str = "--key"
) -> bytes:
    """Pick the key: CAUSAL_GYM_KEY, then the --key option, then the public default key.

    A variable or option that is set but blank is an error, never a silent fallback to the
    public key: a secret evaluation must not quietly run on published tasks.
    """
    env = os.environ if environ is None else environ
    if KEY_ENV in env:
        return parse_key(env[KEY_ENV], KEY_ENV)
    if option is not None:
        return parse_key(option, option_name)
    return bytes.fromhex(DEFAULT_KEY_HEX)


def _check_ref(namespace: str, family: str, task_id: int) -> None:
    """Reject an unknown namespace or an out-of-domain task id before any derivation."""
    if namespace in RETIRED_SPLITS:
        raise DerivationError(
            f"split {namespace} belongs to causal-gym generator version "
            f"{RETIRED_SPLITS[namespace]}, which this version ({GENERATOR_VERSION}) cannot "
            f"reproduce; use {NAMESPACES[-1]}"
        )
    if namespace not in NAMESPACES:
        raise DerivationError(f"unknown namespace {namespace!r}; expected one of {NAMESPACES}")
    if not family:
        raise DerivationError("family must be a non-empty name")
    if isinstance(task_id, bool) or not 0 <= task_id <= MAX_TASK_ID:
        raise DerivationError(f"task id must be an integer in [0, 2**64 - 1], got {task_id!r}")


def derive_seed(key: bytes, namespace: str, family: str, task_id: int, stream: str) -> bytes:
    """HMAC-SHA256 of the key over a canonical JSON array: injective, so inputs never collide."""
    _check_ref(namespace, family, task_id)
    if stream not in STREAMS:
        raise DerivationError(f"unknown stream {stream!r}; expected one of {STREAMS}")
    message = orjson.dumps(["task", namespace, family, task_id, stream])
    return hmac.new(key, message, hashlib.sha256).digest()


def derive_block_seed(key: bytes, namespace: str, family: str, block: int) -> bytes:
    """Seed of a keyed block of tasks (null quotas); its message shape differs from a task's."""
    _check_ref(namespace, family, block)
    message = orjson.dumps(["block", namespace, family, block])
    return hmac.new(key, message, hashlib.sha256).digest()


def generator(seed: bytes, *path: int) -> np.random.Generator:
    """A numpy generator for a seed; `path` selects an independent child (e.g. an attempt index)."""
    sequence = np.random.SeedSequence(int.from_bytes(seed, "big"), spawn_key=tuple(path))
    return np.random.Generator(np.random.PCG64(sequence))


@dataclass(frozen=True)
class Streams:
    """The five per-task seeds; attempt k of a stream is its k-th child, the root draws sizes."""

    seeds: Mapping[str, bytes]

    def rng(self, stream: str, attempt: int, *part: int) -> np.random.Generator:
        """The generator of one stream for one attempt; `part` splits off sub-streams."""
        return generator(self.seeds[stream], attempt, *part)

    def root(self, stream: str) -> np.random.Generator:
        """The attempt-independent generator of a stream (used for task sizes)."""
        return generator(self.seeds[stream])


def derive_streams(key: bytes, namespace: str, family: str, task_id: int) -> Streams:
    """Derive every stream of one task; changing how one is used never shifts another."""
    return Streams({name: derive_seed(key, namespace, family, task_id, name) for name in STREAMS})
