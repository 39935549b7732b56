"""The null-detection probe from issue 15: flag a task when a post-treatment column looks inert.

For each post-treatment column P, regress the outcome on the treatment, the pre-treatment
columns and P (after the honest cleaning); when any P has |t| < 2 the strategy answers
"no effect" (estimate 0, interval +-r/2, p = 0.05), otherwise it answers honestly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import pandas as pd

from graders.causal_gym.audit import honest_submission
from graders.causal_gym.dictionary import Dictionary
from graders.causal_gym.reference import clean
from graders.causal_gym.scoring import score
from graders.causal_gym.submission import parse_submission
from graders.causal_gym.tasks import HostTask

T_CUTOFF: Final[float] = 2.0
FLAGGED_PROBABILITY: Final[float] = 0.05


def t_statistic(y: np.ndarray, design: np.ndarray) -> float:
    """Classical OLS t statistic of the last column in y ~ 1 + design (complete rows only).

    Centring replaces the intercept, and the normal equations of the centred design are
    small and well conditioned, so no SVD is needed (the probe runs 500 tasks).
    """
    complete = ~(np.isnan(y) | np.isnan(design).any(axis=1))
    x, target = design[complete], y[complete]
    x = x - x.mean(axis=0)
    target = target - target.mean()
    gram = x.T @ x
    beta = np.linalg.solve(gram, x.T @ target)
    resid = target - x @ beta
    sigma2 = float(resid @ resid) / (len(target) - x.shape[1] - 1)
    last = np.linalg.solve(gram, np.eye(len(gram))[:, -1])[-1]
    return float(beta[-1] / np.sqrt(sigma2 * last))


def flags(frame: pd.DataFrame, names: Dictionary) -> bool:
    """True when some post-treatment column has |t| < 2 given the treatment and pre-treatment."""
    cleaned = clean(frame, names.outcome)
    y = cleaned[names.outcome].to_numpy(dtype=float)
    base = cleaned[[names.treatment, *names.pre_treatment]].to_numpy(dtype=float)
    return any(
        abs(t_statistic(y, np.column_stack([base, cleaned[post].to_numpy(dtype=float)]))) < T_CUTOFF
        for post in names.post_treatment
    )


def probe_submission(task: HostTask, flagged: bool) -> dict[str, Any]:
    """The probe's answer: "no effect" when flagged, the honest reference otherwise."""
    if not flagged:
        return honest_submission(task)
    half = task.reference.width / 2
    return {"estimate": 0.0, "interval": [-half, half], "effect_probability": FLAGGED_PROBABILITY}


@dataclass(frozen=True)
class ProbeResult:
    """One task's flag and the rewards of the probe strategy and the honest reference."""

    null: bool
    flagged: bool
    probe_reward: float
    honest_reward: float


def run_probe(task: HostTask) -> ProbeResult:
    """Flag, answer and score one null_detect task both ways."""
    flagged = flags(task.staged.frame, task.staged.dictionary)
    probe = score(task, parse_submission(task.family, probe_submission(task, flagged)))
    honest = score(task, parse_submission(task.family, honest_submission(task)))
    return ProbeResult(not task.effect_present, flagged, probe.reward, honest.reward)
