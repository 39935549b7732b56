"""The three families: submissions, reward weights and keyed null-detection quotas."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from graders.causal_gym.generator import EffectKind
from graders.causal_gym.keys import derive_block_seed, generator
from graders.causal_gym.submission import (
    AdjustmentSubmission,
    AteSubmission,
    IntervalSubmission,
    NullDetectSubmission,
)

BLOCK_SIZE: Final[int] = 20
BLOCK_KINDS: Final[tuple[EffectKind, ...]] = (
    ("structural_null",) * 7 + ("hard",) * 7 + ("wide",) * 6
)


@dataclass(frozen=True)
class Family:
    """A task family: its name, submission model, reward weights and one-line estimand note.

    `traps` adds the optional M-bias or proxy column (adjustment family), so that adjusting
    for every pre-treatment column is not always valid.
    """

    name: str
    model: type[IntervalSubmission]
    weights: dict[str, float]
    summary: str
    traps: bool = False


FAMILIES: Final[dict[str, Family]] = {
    "ate": Family("ate", AteSubmission, {"estimand": 1.0}, "estimate the ATE with a 90% interval"),
    "adjustment": Family(
        "adjustment",
        AdjustmentSubmission,
        {"estimand": 0.7, "adjustment_validity": 0.3},
        "estimate the ATE and name a valid backdoor adjustment set",
        traps=True,
    ),
    "null_detect": Family(
        "null_detect",
        NullDetectSubmission,
        {"estimand": 0.9, "brier_skill": 0.1},
        "estimate the ATE and the probability that any effect exists",
    ),
}


def family(name: str) -> Family:
    """Look a family up by name; raises KeyError naming the known families."""
    try:
        return FAMILIES[name]
    except KeyError:
        raise KeyError(f"unknown family {name!r}; expected one of {sorted(FAMILIES)}") from None


def effect_kind(key: bytes, namespace: str, family_name: str, task_id: int) -> EffectKind:
    """The effect kind a task must have: null_detect draws from keyed blocks of 20 (7/7/6)."""
    if family_name != "null_detect":
        return "free"
    block, slot = divmod(task_id, BLOCK_SIZE)
    order = generator(derive_block_seed(key, namespace, family_name, block)).permutation(BLOCK_SIZE)
    return BLOCK_KINDS[int(order[slot])]
