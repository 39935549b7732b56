"""Materialisation: keyed streams to a certified, solvable, staged host-side task."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Final

from graders.causal_gym.families import effect_kind, family
from graders.causal_gym.generator import EffectKind, generate_scm
from graders.causal_gym.identification import Certificate, certify
from graders.causal_gym.keys import DerivationError, derive_streams
from graders.causal_gym.manifest import EVAL_NAMESPACE, lookup
from graders.causal_gym.naming import pick_naming
from graders.causal_gym.reference import Estimate, Unsolvable, honest_reference
from graders.causal_gym.reward import outcome_scale
from graders.causal_gym.scm import SCM, simulate, true_ate
from graders.causal_gym.sizes import Size, train_size
from graders.causal_gym.staging import Staged, stage

MAX_ATTEMPTS: Final[int] = 64
TRUTH_PART: Final[int] = 1


class CausalGenerationError(ValueError):
    """No attempt within the budget produced a certified, solvable causal-gym task."""


@dataclass(frozen=True, eq=False)
class HostTask:
    """Everything the host knows about a task; only `staged.files()` ever reaches the agent."""

    namespace: str
    family: str
    task_id: int
    kind: EffectKind
    size: Size
    attempt: int
    rejections: tuple[str, ...]
    scm: SCM
    certificate: Certificate
    truth: float
    staged: Staged
    reference: Estimate
    scale: float

    @property
    def effect_present(self) -> bool:
        """False only for structural nulls (no directed path from treatment to outcome)."""
        return self.kind != "structural_null"


def task_size(key: bytes, namespace: str, family_name: str, task_id: int) -> Size:
    """Training sizes are jittered on the data stream root; eval sizes come from the manifest."""
    if namespace == EVAL_NAMESPACE:
        entry = lookup(family_name, task_id)
        if entry is None:
            raise DerivationError(
                f"{family_name} task {task_id} is not in the {EVAL_NAMESPACE} manifest"
            )
        return Size(entry.tier, entry.n_units)
    return train_size(derive_streams(key, namespace, family_name, task_id).root("data"))


def materialise(
    key: bytes, namespace: str, family_name: str, task_id: int, size: Size | None = None
) -> HostTask:
    """Derive a task; a rejected attempt k is regenerated as attempt k + 1 of the same streams."""
    spec = family(family_name)
    streams = derive_streams(key, namespace, family_name, task_id)
    size = size or task_size(key, namespace, family_name, task_id)
    kind = effect_kind(key, namespace, family_name, task_id)
    rejections: list[str] = []
    for attempt in range(MAX_ATTEMPTS):
        truth_rng = partial(streams.rng, "scm", attempt, TRUTH_PART)
        scm = generate_scm(streams.rng("scm", attempt), kind, truth_rng, spec.traps)
        certificate = certify(scm)
        if not certificate.identified:
            rejections.append(f"attempt {attempt}: certificate: {certificate.reason}")
            continue
        sample = simulate(scm, size.n_units, streams.rng("data", attempt))
        naming = pick_naming(streams.rng("naming", attempt))
        staged = stage(
            scm,
            sample,
            naming,
            family_name,
            streams.rng("messiness", attempt),
            streams.rng("prompt", attempt),
        )
        names = staged.dictionary
        try:
            reference = honest_reference(
                staged.frame, names.treatment, names.outcome, names.adjustable
            )
        except Unsolvable as exc:
            rejections.append(f"attempt {attempt}: solvability: {exc}")
            continue
        return HostTask(
            namespace=namespace,
            family=family_name,
            task_id=task_id,
            kind=kind,
            size=size,
            attempt=attempt,
            rejections=tuple(rejections),
            scm=scm,
            certificate=certificate,
            truth=true_ate(scm, truth_rng()),
            staged=staged,
            reference=reference,
            scale=outcome_scale(staged.frame[names.outcome].to_numpy(dtype=float)),
        )
    raise CausalGenerationError(
        f"{family_name} task {task_id}: no valid task in {MAX_ATTEMPTS} attempts"
    )
