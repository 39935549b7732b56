"""The frozen eval-v1 manifest: 500 (family, task id) entries with exact sizes."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from functools import cache
from importlib import resources
from typing import Final

from graders.causal_gym.keys import DEFAULT_KEY_HEX, derive_streams
from graders.causal_gym.sizes import TIERS, Size, tier_size

EVAL_NAMESPACE: Final[str] = "eval-v1"
MANIFEST_FILE: Final[str] = "eval_v1_manifest.json"
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
        "key": "public default key (graders.causal_gym.keys.DEFAULT_KEY_HEX)",
        "counts": EVAL_COUNTS,
        "tiers": {name: list(bounds) for name, bounds in TIERS.items()},
    }
    body = ",\n".join("    " + json.dumps(asdict(entry), sort_keys=True) for entry in entries)
    head = json.dumps(header, sort_keys=True)[:-1]
    return f'{head}, "tasks": [\n{body}\n]}}\n'


@cache
def load_manifest() -> dict[tuple[str, int], Entry]:
    """The committed manifest, indexed by (family, task id)."""
    text = resources.files("graders.causal_gym").joinpath(MANIFEST_FILE).read_text("utf-8")
    return {(e["family"], e["task_id"]): Entry(**e) for e in json.loads(text)["tasks"]}


def lookup(family_name: str, task_id: int) -> Entry | None:
    """The manifest entry of an eval task, or None when the id is not in the frozen split."""
    return load_manifest().get((family_name, task_id))
