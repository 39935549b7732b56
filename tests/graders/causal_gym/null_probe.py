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


def t_statistic(frame: pd.DataFrame, outcome: str, columns: list[str], target: str) -> float:
    """Classical OLS t statistic of `target` in outcome ~ 1 + columns (complete rows)."""
    used = frame[[outcome, *columns]].dropna()
    design = np.column_stack([np.ones(len(used)), used[columns].to_numpy(dtype=float)])
    y = used[outcome].to_numpy(dtype=float)
    beta, _, _, _ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ beta
    dof = len(y) - design.shape[1]
    sigma2 = float(resid @ resid) / dof
    cov = sigma2 * np.linalg.inv(design.T @ design)
    index = 1 + columns.index(target)
    return float(beta[index] / np.sqrt(cov[index, index]))


def flags(frame: pd.DataFrame, names: Dictionary) -> bool:
    """True when some post-treatment column has |t| < 2 given the treatment and pre-treatment."""
    frame = clean(frame, names.outcome)
    base = [names.treatment, *names.pre_treatment]
    return any(
        abs(t_statistic(frame, names.outcome, [*base, post], post)) < T_CUTOFF
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
