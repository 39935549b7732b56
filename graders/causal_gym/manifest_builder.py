"""Regenerate the eval-v2 manifest: planned sizes, materialised under the public key."""

from __future__ import annotations

from collections.abc import Callable

from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.manifest import EVAL_COUNTS, EVAL_NAMESPACE, Entry, planned_size, render
from graders.causal_gym.tasks import materialise


def build_entries(tick: Callable[[], None] | None = None) -> list[Entry]:
    """Every eval task in family order, each materialised once to record its data.csv rows."""
    key = bytes.fromhex(DEFAULT_KEY_HEX)
    entries: list[Entry] = []
    for family_name, count in EVAL_COUNTS.items():
        for task_id in range(count):
            size = planned_size(family_name, task_id)
            task = materialise(key, EVAL_NAMESPACE, family_name, task_id, size)
            entries.append(
                Entry(family_name, task_id, size.tier, size.n_units, len(task.staged.frame))
            )
            if tick is not None:
                tick()
    return entries


def build_manifest_text(tick: Callable[[], None] | None = None) -> str:
    """The canonical manifest text; byte-identical to the committed file when nothing changed."""
    return render(build_entries(tick))
