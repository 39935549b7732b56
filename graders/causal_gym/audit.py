"""The anti-hack audit: the honest reference on n materialised tasks per family, plus two checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist, fmean
from typing import Any, Final, TypeVar

from graders.causal_gym.families import FAMILIES
from graders.causal_gym.reward import estimand_score
from graders.causal_gym.scoring import score
from graders.causal_gym.submission import parse_submission
from graders.causal_gym.tasks import HostTask, materialise

T = TypeVar("T")
R = TypeVar("R")
Mapper = Callable[[Callable[[T], R], Sequence[T]], Iterable[R]]
"""Maps a pure function over items, results in item order (builtin `map`, or a pool's)."""
TaskAddress = tuple[bytes, str, str, int]
"""(key, namespace, family, task id): everything that determines one task."""

SWEEP_LEVELS: Final[tuple[float, ...]] = (0.50, 0.60, 0.70, 0.80, 0.90, 0.95, 0.99)
NULL_TINY_SHARE: Final[float] = 0.01
P_ZERO_IN_INTERVAL: Final[float] = 0.25
P_ZERO_EXCLUDED: Final[float] = 0.95


@dataclass(frozen=True)
class TaskAudit:
    """One task's honest reward, coverage, width sweep and (structural nulls) the null check."""

    family: str
    task_id: int
    kind: str
    attempt: int
    reward: float
    clipped_reward: float
    covered: bool
    sweep: tuple[float, ...]
    sweep_covered: tuple[bool, ...]
    null_tiny: float | None
    null_reference: float | None


@dataclass(frozen=True)
class FamilyAudit:
    """Aggregates for one family."""

    family: str
    n: int
    honest_reward: float
    clipped_reward: float
    coverage: float
    regenerated: int
    sweep: dict[str, dict[str, float]]
    null_check: dict[str, float] | None

    @property
    def sweep_peak(self) -> float:
        """The nominal coverage whose mean reward is highest."""
        return float(max(self.sweep, key=lambda level: self.sweep[level]["reward"]))


@dataclass(frozen=True)
class AuditReport:
    """The audit over all requested families, JSON-ready via `to_dict`."""

    namespace: str
    n_per_family: int
    families: tuple[FamilyAudit, ...]
    honest_reward: float
    coverage: float

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json`."""
        data = asdict(self)
        for item, fam in zip(data["families"], self.families, strict=True):
            item["sweep_peak"] = fam.sweep_peak
        return data


def honest_submission(task: HostTask) -> dict[str, Any]:
    """The reference answer: adjusted OLS, all pre-treatment columns, p = 0.25 or 0.95."""
    ref = task.reference
    answer: dict[str, Any] = {"estimate": ref.estimate, "interval": [ref.lo, ref.hi]}
    if task.family == "adjustment":
        answer["adjustment_set"] = list(task.staged.dictionary.pre_treatment)
    if task.family == "null_detect":
        contains_zero = ref.lo <= 0.0 <= ref.hi
        answer["effect_probability"] = P_ZERO_IN_INTERVAL if contains_zero else P_ZERO_EXCLUDED
    return answer


def audit_task(task: HostTask) -> TaskAudit:
    """Score the honest answer, sweep the interval's nominal coverage, and probe nulls."""
    result = score(task, parse_submission(task.family, honest_submission(task)))
    ref, r, s = task.reference, task.reference.width, task.scale
    sweep: list[float] = []
    sweep_covered: list[bool] = []
    for level in SWEEP_LEVELS:
        half = NormalDist().inv_cdf(0.5 + level / 2) * ref.se
        swept = estimand_score(
            ref.estimate, ref.estimate - half, ref.estimate + half, task.truth, r, s
        )
        sweep.append(swept.reward)
        sweep_covered.append(swept.covered)
    tiny = reference = None
    if task.kind == "structural_null":
        half = NULL_TINY_SHARE * s / 2
        tiny = estimand_score(0.0, -half, half, task.truth, r, s).reward
        reference = estimand_score(0.0, -r / 2, r / 2, task.truth, r, s).reward
    return TaskAudit(
        family=task.family,
        task_id=task.task_id,
        kind=task.kind,
        attempt=task.attempt,
        reward=result.reward,
        clipped_reward=result.clipped_reward,
        covered=result.estimand.covered,
        sweep=tuple(sweep),
        sweep_covered=tuple(sweep_covered),
        null_tiny=tiny,
        null_reference=reference,
    )


def audit_address(address: TaskAddress) -> TaskAudit:
    """Materialise and audit one task: a pure function of its address (for parallel maps)."""
    key, namespace, family_name, task_id = address
    return audit_task(materialise(key, namespace, family_name, task_id))


def summarise(family_name: str, audits: Sequence[TaskAudit]) -> FamilyAudit:
    """Means over one family's task audits."""
    sweep = {
        f"{level:.2f}": {
            "reward": fmean(a.sweep[i] for a in audits),
            "coverage": fmean(float(a.sweep_covered[i]) for a in audits),
        }
        for i, level in enumerate(SWEEP_LEVELS)
    }
    nulls = [a for a in audits if a.null_tiny is not None and a.null_reference is not None]
    null_check = None
    if nulls:
        null_check = {
            "n": float(len(nulls)),
            "tiny_width_reward": fmean(a.null_tiny for a in nulls if a.null_tiny is not None),
            "reference_width_reward": fmean(
                a.null_reference for a in nulls if a.null_reference is not None
            ),
        }
    return FamilyAudit(
        family=family_name,
        n=len(audits),
        honest_reward=fmean(a.reward for a in audits),
        clipped_reward=fmean(a.clipped_reward for a in audits),
        coverage=fmean(float(a.covered) for a in audits),
        regenerated=sum(1 for a in audits if a.attempt > 0),
        sweep=sweep,
        null_check=null_check,
    )


def run_audit(
    key: bytes,
    families: Sequence[str] = tuple(FAMILIES),
    n: int = 300,
    namespace: str = "train",
    tick: Callable[[], None] | None = None,
    mapper: Mapper[TaskAddress, TaskAudit] | None = None,
) -> AuditReport:
    """Materialise task ids 0..n-1 of each family and audit them; `tick` reports progress.

    `mapper` may run the tasks elsewhere (in parallel); results are taken in address
    order, so the report is the same as the serial one.
    """
    families = tuple(dict.fromkeys(families))
    addresses = [(key, namespace, family, task_id) for family in families for task_id in range(n)]
    audits: dict[str, list[TaskAudit]] = {family: [] for family in families}
    for audit in (mapper or map)(audit_address, addresses):
        audits[audit.family].append(audit)
        if tick is not None:
            tick()
    summaries = [summarise(family, audits[family]) for family in families]
    everything = [a for family in families for a in audits[family]]
    return AuditReport(
        namespace=namespace,
        n_per_family=n,
        families=tuple(summaries),
        honest_reward=fmean(a.reward for a in everything),
        coverage=fmean(float(a.covered) for a in everything),
    )
