"""The anti-hack audit: the honest reference on n materialised tasks per family, plus two checks."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist, fmean
from typing import Any, Final, TypeVar

import orjson
from pydantic import TypeAdapter

from graders.blas import VARIABLE, kernels
from graders.causal_gym.families import FAMILIES
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.reference import honest_reference
from graders.causal_gym.reward import estimand_score
from graders.causal_gym.scoring import score
from graders.causal_gym.submission import parse_submission
from graders.causal_gym.tasks import CausalGenerationError, HostTask, materialise
from graders.causal_gym.version import GENERATOR_VERSION

T = TypeVar("T")
R = TypeVar("R")
Mapper = Callable[[Callable[[T], R], Sequence[T]], Iterable[R]]
"""Maps a pure function over items, results in item order (builtin `map`, or a pool's)."""
TaskAddress = tuple[bytes, str, str, int, str]
"""(key, namespace, family, task id, BLAS kernels): everything that determines one task's
figures; the last is the client's `graders.blas.kernels()`, which a worker must share."""

SWEEP_LEVELS: Final[tuple[float, ...]] = (0.50, 0.60, 0.70, 0.80, 0.90, 0.95, 0.99)
NULL_TINY_SHARE: Final[float] = 0.01
P_ZERO_IN_INTERVAL: Final[float] = 0.25
P_ZERO_EXCLUDED: Final[float] = 0.95


@dataclass(frozen=True)
class TaskAudit:
    """One task's honest reward, coverage, width sweep and (structural nulls) the null check.

    For the adjustment family, `all_pre_*` score the naive answer that adjusts for every
    pre-treatment column: it is invalid exactly when the task has an M-bias column.
    """

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
    all_pre_valid: bool | None
    all_pre_reward: float | None


@dataclass(frozen=True)
class SweepPoint:
    """The mean estimand reward and empirical coverage at one nominal coverage."""

    reward: float
    coverage: float


@dataclass(frozen=True)
class NullCheck:
    """Structural nulls: mean reward of a 1%-scale interval against the reference width."""

    n: int
    tiny_width_reward: float
    reference_width_reward: float


@dataclass(frozen=True)
class AllPreCheck:
    """Adjusting for every pre-treatment column: how often that is valid, and its reward."""

    valid_share: float
    reward: float


@dataclass(frozen=True)
class FamilyAudit:
    """Aggregates for one family; `sweep` is keyed by nominal coverage (`"0.90"`)."""

    family: str
    n: int
    honest_reward: float
    clipped_reward: float
    coverage: float
    regenerated: int
    sweep: dict[str, SweepPoint]
    null_check: NullCheck | None
    all_pre: AllPreCheck | None

    @property
    def sweep_peak(self) -> float:
        """The nominal coverage whose mean reward is highest."""
        return float(max(self.sweep, key=lambda level: self.sweep[level].reward))


@dataclass(frozen=True)
class AuditReport:
    """The audit over all requested families, with every task's entry; JSON via `render_report`.

    `public_key` says whether the public default key was used; the key itself is never kept.
    """

    generator_version: int
    public_key: bool
    namespace: str
    n_per_family: int
    families: tuple[FamilyAudit, ...]
    honest_reward: float
    coverage: float
    tasks: tuple[TaskAudit, ...]

    def to_dict(self) -> dict[str, Any]:
        """Plain data for `--json`; each family also states its sweep peak."""
        data = asdict(self)
        for item, fam in zip(data["families"], self.families, strict=True):
            item["sweep_peak"] = fam.sweep_peak
        return data


def render_report(report: AuditReport) -> str:
    """Canonical report text: indented aggregates, then one task per line for readable diffs."""
    data = report.to_dict()
    tasks = data.pop("tasks")
    head = orjson.dumps(data, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS).decode()
    body = ",\n".join("    " + orjson.dumps(t, option=orjson.OPT_SORT_KEYS).decode() for t in tasks)
    return f'{head.removesuffix("}").rstrip()},\n  "tasks": [\n{body}\n  ]\n}}\n'


def load_report(text: str | bytes) -> AuditReport:
    """Parse a rendered report back into typed data (the sweep peak is recomputed, not read)."""
    return TypeAdapter(AuditReport).validate_json(text)


def honest_submission(task: HostTask) -> dict[str, Any]:
    """The reference answer: adjusted OLS on the certified set, p = 0.25 or 0.95.

    The certified set is every pre-treatment column except one whose description says it is
    driven by separate unrecorded causes of the treatment and the outcome (M-bias).
    """
    ref = task.reference
    answer: dict[str, Any] = {"estimate": ref.estimate, "interval": [ref.lo, ref.hi]}
    if task.family == "adjustment":
        answer["adjustment_set"] = list(task.staged.dictionary.adjustable)
    if task.family == "null_detect":
        contains_zero = ref.lo <= 0.0 <= ref.hi
        answer["effect_probability"] = P_ZERO_IN_INTERVAL if contains_zero else P_ZERO_EXCLUDED
    return answer


def all_pre_submission(task: HostTask) -> dict[str, Any]:
    """The naive adjustment answer: OLS on every pre-treatment column, all of them listed."""
    names = task.staged.dictionary
    fit = honest_reference(task.staged.frame, names.treatment, names.outcome, names.pre_treatment)
    return {
        "estimate": fit.estimate,
        "interval": [fit.lo, fit.hi],
        "adjustment_set": list(names.pre_treatment),
    }


def audit_task(task: HostTask) -> TaskAudit:
    """Score the honest answer, sweep the interval's nominal coverage, and probe nulls."""
    result = score(task, parse_submission(task.family, honest_submission(task)))
    all_pre_valid = all_pre_reward = None
    if task.family == "adjustment":
        naive = score(task, parse_submission(task.family, all_pre_submission(task)))
        all_pre_valid = naive.components["adjustment_validity"] == 1.0
        all_pre_reward = naive.reward
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
        all_pre_valid=all_pre_valid,
        all_pre_reward=all_pre_reward,
    )


def audit_address(address: TaskAddress) -> TaskAudit:
    """Materialise and audit one task: a pure function of its address (for parallel maps).

    A worker whose BLAS runs other kernels than the client's would give figures that
    differ in their last bits, so it refuses the task instead.
    """
    key, namespace, family_name, task_id, expected = address
    found = kernels()
    if found != expected:
        raise CausalGenerationError(
            f"this worker's OpenBLAS runs {found} kernels, the client's {expected}: its "
            f"figures would differ in the last bits; start the worker with {VARIABLE}={expected}"
        )
    return audit_task(materialise(key, namespace, family_name, task_id))


def summarise(family_name: str, audits: Sequence[TaskAudit]) -> FamilyAudit:
    """Means over one family's task audits."""
    sweep = {
        f"{level:.2f}": SweepPoint(
            reward=fmean(a.sweep[i] for a in audits),
            coverage=fmean(float(a.sweep_covered[i]) for a in audits),
        )
        for i, level in enumerate(SWEEP_LEVELS)
    }
    nulls = [a for a in audits if a.null_tiny is not None and a.null_reference is not None]
    null_check = None
    if nulls:
        null_check = NullCheck(
            n=len(nulls),
            tiny_width_reward=fmean(a.null_tiny for a in nulls if a.null_tiny is not None),
            reference_width_reward=fmean(
                a.null_reference for a in nulls if a.null_reference is not None
            ),
        )
    naive = [a for a in audits if a.all_pre_valid is not None and a.all_pre_reward is not None]
    all_pre = None
    if naive:
        all_pre = AllPreCheck(
            valid_share=fmean(float(bool(a.all_pre_valid)) for a in naive),
            reward=fmean(a.all_pre_reward for a in naive if a.all_pre_reward is not None),
        )
    return FamilyAudit(
        family=family_name,
        n=len(audits),
        honest_reward=fmean(a.reward for a in audits),
        clipped_reward=fmean(a.clipped_reward for a in audits),
        coverage=fmean(float(a.covered) for a in audits),
        regenerated=sum(1 for a in audits if a.attempt > 0),
        sweep=sweep,
        null_check=null_check,
        all_pre=all_pre,
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
    blas = kernels()
    addresses = [
        (key, namespace, family, task_id, blas) for family in families for task_id in range(n)
    ]
    audits: dict[str, list[TaskAudit]] = {family: [] for family in families}
    for audit in (mapper or map)(audit_address, addresses):
        audits[audit.family].append(audit)
        if tick is not None:
            tick()
    return assemble(key, namespace, n, audits)


def assemble(
    key: bytes, namespace: str, n: int, audits: Mapping[str, Sequence[TaskAudit]]
) -> AuditReport:
    """The report over per-family task audits (in family order), with its aggregates."""
    everything = [a for family_audits in audits.values() for a in family_audits]
    return AuditReport(
        generator_version=GENERATOR_VERSION,
        public_key=key == bytes.fromhex(DEFAULT_KEY_HEX),
        namespace=namespace,
        n_per_family=n,
        families=tuple(summarise(name, entries) for name, entries in audits.items()),
        honest_reward=fmean(a.reward for a in everything),
        coverage=fmean(float(a.covered) for a in everything),
        tasks=tuple(everything),
    )
