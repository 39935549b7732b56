"""The frozen eval-v2 manifest: 500 (family, task id) entries with exact sizes."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from typing import Final

from graders.causal_gym.keys import DEFAULT_KEY_HEX, DerivationError, derive_streams
from graders.causal_gym.sizes import TIERS, Size, tier_size
from graders.causal_gym.version import GENERATOR_VERSION

EVAL_NAMESPACE: Final[str] = "eval-v2"
MANIFEST_FILE: Final[str] = "eval_v2_manifest.json"
EVAL_COUNTS: Final[dict[str, int]] = {"ate": 170, "adjustment": 170, "null_detect": 160}


@dataclass(frozen=True)
class Entry:
    """One eval task: its family, id, tier, units drawn and data.csv rows under the public key."""

    family: str
    task_id: int
    tier: str
    n_units: int
    rows: int


def planned_size(family_name: str, task_id: int) -> Size:
    """An eval task's tier and unjittered size, drawn on the public key's data stream root."""
    rng = derive_streams(bytes.fromhex(DEFAULT_KEY_HEX), EVAL_NAMESPACE, family_name, task_id).root(
        "data"
    )
    tier = tuple(TIERS)[int(rng.integers(len(TIERS)))]
    return Size(tier, tier_size(rng, tier))


def render(entries: list[Entry]) -> str:
    """Canonical manifest text: a header and one task per line, so diffs stay readable."""
    header = {
        "namespace": EVAL_NAMESPACE,
        "generator_version": GENERATOR_VERSION,
        "key": "public default key (graders.causal_gym.keys.DEFAULT_KEY_HEX)",
        "counts": EVAL_COUNTS,
        "tiers": {name: list(bounds) for name, bounds in TIERS.items()},
    }
    body = ",\n".join("    " + json.dumps(asdict(entry), sort_keys=True) for entry in entries)
    head = json.dumps(header, sort_keys=True)[:-1]
    return f'{head}, "tasks": [\n{body}\n]}}\n'


class ManifestError(DerivationError):
    """The packaged manifest belongs to another generator version or split: never mix them."""


@cache
def load_manifest() -> dict[tuple[str, int], Entry]:
    """The committed manifest, indexed by (family, task id)."""
    return parse_manifest(
        resources.files("graders.causal_gym").joinpath(MANIFEST_FILE).read_text("utf-8")
    )


def parse_manifest(text: str) -> dict[tuple[str, int], Entry]:
    """Manifest entries by (family, task id); refused unless split and version are current."""
    data = json.loads(text)
    found = (data.get("namespace"), data.get("generator_version"))
    if found != (EVAL_NAMESPACE, GENERATOR_VERSION):
        raise ManifestError(
            f"{MANIFEST_FILE} is for split {found[0]} of generator version {found[1]}, "
            f"not {EVAL_NAMESPACE} of version {GENERATOR_VERSION}; regenerate it"
        )
    return {(e["family"], e["task_id"]): Entry(**e) for e in data["tasks"]}


def lookup(family_name: str, task_id: int) -> Entry | None:
    """The manifest entry of an eval task, or None when the id is not in the frozen split."""
    return load_manifest().get((family_name, task_id))
