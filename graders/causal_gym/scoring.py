"""Score a validated submission against a host-side task, with the full breakdown."""

from __future__ import annotations

from graders.causal_gym.families import family
from graders.causal_gym.identification import satisfies_backdoor
from graders.causal_gym.reward import Score, brier_skill, combine, estimand_score
from graders.causal_gym.submission import (
    AdjustmentSubmission,
    IntervalSubmission,
    NullDetectSubmission,
)
from graders.causal_gym.tasks import HostTask


def adjustment_validity(task: HostTask, columns: list[str]) -> float:
    """1 when every column is a declared pre-treatment column and the set is a backdoor set."""
    names = task.staged.dictionary
    if not set(columns) <= set(names.pre_treatment):
        return 0.0
    nodes = {names.node_of(column) for column in columns}
    return 1.0 if satisfies_backdoor(task.scm.graph(), nodes) else 0.0


def score(task: HostTask, submission: IntervalSubmission) -> Score:
    """The family's reward for one valid submission; components say where it came from."""
    spec = family(task.family)
    if not isinstance(submission, spec.model):
        raise TypeError(f"a {task.family} task needs a {spec.model.__name__}")
    estimand = estimand_score(
        submission.estimate,
        submission.lo,
        submission.hi,
        task.truth,
        task.reference.width,
        task.scale,
    )
    components: dict[str, float] = {}
    if isinstance(submission, AdjustmentSubmission):
        components["adjustment_validity"] = adjustment_validity(task, submission.adjustment_set)
    if isinstance(submission, NullDetectSubmission):
        components["brier_skill"] = brier_skill(submission.effect_probability, task.effect_present)
    return combine(task.family, estimand, components, spec.weights)
