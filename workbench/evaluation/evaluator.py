"""The offline counterfactual evaluator (`workbench validate counterfactual`), DESIGN §9.

1. Verify the factual run (journal chain, re-execution, seal and, for a private run,
   the seal's signature): a failure is an integrity failure and nothing is scored.
   Only a finished run is evaluated: anything else would reveal answers that still count.
2. For each question, one pair at a time: take the branch point captured after the close
   of the intervene day, run baseline and intervention offline, re-check each branch's
   schedule against the registered terms, keep both statuses, and write the pair's
   (for a private run, signed) seals to the evaluation's one seals file before the next.
3. Score the latest eligible submission; judge a required conclusion apart from the
   forecast. A question whose evaluation fails is `failed` with its reason; the others
   are still scored and the report is still written.
4. Write SHA256SUMS, then report.json last and atomically, into a new directory.

Pairs run on an `Executor` (executors.py): in process, a local process pool or Dask;
results are taken in question order, so the report is the same for any of them.
`evaluate_run` is the whole evaluation of one run as one pure task (verify, then every
pair in order, nothing written), for batches of runs; `write_evaluation` writes either.
"""

from __future__ import annotations

import contextlib
import hashlib
import platform
import shlex
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from graders import counterfactual as cf
from ledger.collector import collector_paused
from ledger.money import dollars, to_major
from ledger.seal import Seal, seal_line_digest
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question
from sim.engine import Snapshot
from sim.version import BIT_GENERATOR, ENGINE_VERSION
from workbench import exit_codes
from workbench.errors import IntegrityError, UserError, not_interrupted, reraised
from workbench.evaluation.branches import (
    BranchRun,
    component_evidence,
    effect_gauges,
    episode_id,
    registered_terms,
    run_branch,
    schedule_problem,
    supported_effects,
)
from workbench.evaluation.executors import Done, Executor, ExecutorSpec, open_executor
from workbench.evaluation.report import (
    QUESTION_STATUSES,
    REPORT_SCHEMA,
    Artifacts,
    Branches,
    BusinessObjective,
    ConclusionCheck,
    ContractEvidence,
    CounterfactualReport,
    EffectsEvidence,
    Execution,
    Factual,
    QuestionEntry,
    QuestionStatus,
    RegistrationInfo,
    SubmissionUsed,
    Summary,
    Verdict,
    VerificationInfo,
    contract_digest,
)
from workbench.evaluation.seal_stream import SealStream
from workbench.inputs import require_directory
from workbench.messages import clip
from workbench.outputs import ClaimedOutput, OutputLayout, atomic_write_all, check_output_dir
from workbench.play.models import QuestionContract
from workbench.play.public_view import question_contract
from workbench.runs.assessment import (
    SubmissionRecord,
    intervention_actions,
    latest_eligible,
    validate_assessment,
)
from workbench.runs.bundle import run_campaign
from workbench.runs.commands import bounded_decimal
from workbench.runs.files import RunPaths, read_registration
from workbench.runs.registration import ControlFile, Registration
from workbench.runs.verify import Verification, verify_loaded

__all__ = [
    "REPORT_SCHEMA",
    "SEALS_DIR",
    "SEALS_FILE",
    "EvaluationOutcome",
    "PairTask",
    "PreparedRun",
    "RunEvaluation",
    "RunJob",
    "evaluate_pair",
    "evaluate_run",
    "prepare_run",
    "run_evaluation",
    "write_evaluation",
]

SEALS_DIR = "seals"
"""The output subdirectory of branch seals; creating it claims the output directory."""
SEALS_NAME = "branches.jsonl.gz"
SEALS_FILE = f"{SEALS_DIR}/{SEALS_NAME}"
"""Every branch seal of one evaluation, one canonical line each (seal_stream.py)."""
SUMS_FILE = "SHA256SUMS"
REPORT_FILE = "report.json"
EVALUATION_LAYOUT = OutputLayout(SEALS_DIR, (SUMS_FILE, REPORT_FILE), claim_files=(SEALS_NAME,))
"""An evaluation's output directory: the seals directory, then SHA256SUMS, report.json last."""

Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class EvaluationOutcome:
    """What an evaluation produced: its exit code, the report and where it was written."""

    exit_code: int
    report: CounterfactualReport
    report_path: Path | None
    message: str = ""


@dataclass(frozen=True)
class PairTask:
    """Everything one worker needs to run and judge one question's pair of branches.

    `terms` holds the registered terms digest of every action either choice may
    schedule, taken from the verified campaign: the branch verifier checks against it.
    """

    bundle: CampaignBundle
    snapshot: Snapshot | None
    question: Question
    intervention: tuple[str, ...]
    run_head: str
    submission: SubmissionRecord | None
    seed_commitment: str
    terms: Mapping[str, str]


@dataclass(frozen=True)
class PairResult:
    """A judged question and the seals of its branches (written by the parent)."""

    entry: QuestionEntry
    seals: dict[str, Seal] = field(default_factory=dict)


def _submission_used(sub: SubmissionRecord | None) -> SubmissionUsed | None:
    if sub is None:
        return None
    return SubmissionUsed(
        seq=sub.seq,
        day=sub.day,
        value=sub.assessment.value,
        conclusion=sub.assessment.conclusion,
        choice=sub.assessment.choice,
    )


def _verdict_of(correct: bool) -> Verdict:
    return "met" if correct else "wrong"


def _contract_met(submitted: Any, expected: Decimal) -> bool:
    """A money conclusion equals the evidence to the cent (a malformed one is wrong)."""
    if isinstance(submitted, list):
        return False
    try:
        value = bounded_decimal(submitted, "conclusion")
    except ValueError:
        return False
    return cf.contract_component_correct(value, expected)


def _conclusion(
    task: PairTask, base: BranchRun | None, inter: BranchRun | None
) -> ConclusionCheck | None:
    """The required conclusion's verdict: met, wrong, missing, or unresolved evidence."""
    required = task.question.conclusion
    if required is None:
        return None
    bundle = task.bundle
    action = bundle.actions[required.action]
    day = task.question.outcome_day
    submitted = task.submission.assessment.conclusion if task.submission else None
    common: dict[str, Any] = {
        "kind": required.kind,
        "action": required.action,
        "component": required.component,
        "submitted": submitted,
    }
    missing = submitted is None
    if required.kind == "contract_component":
        component = required.component
        if component is None or inter is None or inter.status != "ok" or inter.book is None:
            return ConclusionCheck(
                **common,
                expected=None,
                verdict="missing" if missing else "unresolved",
                decidable=False,
                evidence=None,
                reason="the intervention branch has no ledger"
                if component is not None
                else "the conclusion names no contract component",
            )
        value = component_evidence(inter.book, action, component, day)
        declared = getattr(action, component)
        return ConclusionCheck(
            **common,
            expected=dollars(value),
            verdict="missing"
            if missing
            else _verdict_of(_contract_met(submitted, to_major(value))),
            decidable=True,
            evidence=ContractEvidence(
                ledger_cents=value,
                declared=dollars(declared),
                matches_declared=value == declared,
            ),
        )
    if base is None or inter is None or base.book is None or inter.book is None:
        return ConclusionCheck(
            **common,
            expected=None,
            verdict="missing" if missing else "unresolved",
            decidable=False,
            evidence=None,
            reason="both branches must be ok to compare effects",
        )
    supported = supported_effects(base.book, inter.book, action, day)
    met = isinstance(submitted, list) and cf.supported_effects_correct(submitted, supported)
    return ConclusionCheck(
        **common,
        expected=supported,
        verdict="missing" if missing else _verdict_of(met),
        decidable=True,
        evidence=EffectsEvidence(
            baseline_gauges=effect_gauges(base.book, action, day),
            intervention_gauges=effect_gauges(inter.book, action, day),
        ),
    )


def _run(task: PairTask, name: str, actions: tuple[str, ...]) -> BranchRun:
    """Run one branch and put it through the branch verifier."""
    q = task.question
    assert task.snapshot is not None
    choice = q.baseline if name == "baseline" else q.intervention
    run = run_branch(
        task.snapshot,
        name,
        choice.name,
        actions,
        q.outcome_day,
        task.snapshot.bundle.metrics[q.metric],
        episode_id(task.run_head, q.id, name),
        seed_commitment=task.seed_commitment,
        past_rejection=name == "intervention" and q.expect_intervention == "rejected",
    )
    problem = schedule_problem(run, task.terms)
    if problem is not None:
        run.fail(f"branch verifier: {problem}")
    return run


def _measured(branch: BranchRun) -> bool:
    """True when a branch gives an outcome to judge by: it ran (`ok`), or an action was
    rejected by design and it ran on past the rejection (`rejected` with an outcome)."""
    return branch.status == "ok" or (branch.status == "rejected" and branch.outcome is not None)


_CONTRACTS: dict[tuple[str, str], tuple[QuestionContract, str]] = {}
CONTRACTS_KEPT = 4096
"""How many question contracts a process keeps (`_contract_of`): a batch of any number of
runs of a few campaigns builds each once."""


def _contract_of(bundle: CampaignBundle, question: Question) -> tuple[QuestionContract, str]:
    """A question's public contract and its digest, built once per campaign content.

    Both are a pure function of the campaign's files, which its digest covers, so a batch
    of runs of one campaign (or a benchmark's repeated evaluations) reuses them; the
    contract is a frozen model, safe to share between reports.
    """
    key = (bundle.digest, question.id)
    found = _CONTRACTS.get(key)
    if found is None:
        contract = question_contract(bundle, question)
        found = _CONTRACTS[key] = (contract, contract_digest(contract))
        if len(_CONTRACTS) > CONTRACTS_KEPT:
            del _CONTRACTS[next(iter(_CONTRACTS))]
    return found


def _judge(task: PairTask) -> PairResult:
    """Run both branches of one question and judge its submission."""
    q = task.question
    bundle = task.bundle
    contract, digest = _contract_of(bundle, q)
    sub = task.submission
    reason: str | None = None
    base = inter = None
    if task.snapshot is None:
        reason = f"the branch point (day {q.intervene_on_day}) was not captured"
    elif q.intervention.participant_selected and not task.intervention:
        reason = "no eligible submission selects the intervention"
    else:
        base = _run(task, "baseline", q.baseline.actions)
        inter = _run(task, "intervention", task.intervention)
    effect = None
    if base is not None and inter is not None and base.status == "ok" and _measured(inter):
        effect = cf.effect(Decimal(base.outcome or "0"), Decimal(inter.outcome or "0"))
    loss = None
    status: QuestionStatus
    if task.snapshot is None:
        status = "failed"
    elif sub is None:
        status = "unsubmitted"
        reason = reason or "no eligible submission"
    elif errors := validate_assessment(bundle, sub.assessment):
        status = "invalid"
        reason = "; ".join(errors)
    elif effect is None:
        status = "unresolved"
        failed = [r for r in (base, inter) if r is not None and r.status != "ok"]
        reason = "; ".join(f"{r.name} {r.status}: {r.reason}" for r in failed) or (
            reason or "no outcome"
        )
    else:
        status = "scored"
        loss = cf.loss(Decimal(sub.assessment.value), effect, Decimal(q.scale))
    entry = QuestionEntry(
        id=q.id,
        contract=contract,
        contract_digest=digest,
        submission=_submission_used(sub),
        branches=Branches(
            baseline=None if base is None else base.record(),
            intervention=None if inter is None else inter.record(),
        ),
        effect=None if effect is None else str(effect),
        conclusion=_conclusion(task, base, inter),
        loss=None if loss is None else str(loss),
        score=None if loss is None else str(-loss),
        status=status,
        reason=reason,
    )
    seals = {r.name: r.seal for r in (base, inter) if r is not None and r.seal}
    return PairResult(entry, seals)


def _failed_entry(task: PairTask, reason: str) -> QuestionEntry:
    """A question whose evaluation failed: its reason, no score, nothing invented."""
    contract, digest = _contract_of(task.bundle, task.question)
    required = task.question.conclusion
    return QuestionEntry(
        id=task.question.id,
        contract=contract,
        contract_digest=digest,
        submission=_submission_used(task.submission),
        branches=Branches(),
        effect=None,
        conclusion=None
        if required is None
        else ConclusionCheck(
            kind=required.kind,
            action=required.action,
            component=required.component,
            submitted=task.submission.assessment.conclusion if task.submission else None,
            expected=None,
            verdict="unresolved",
            decidable=False,
            evidence=None,
            reason="the question's evaluation failed",
        ),
        loss=None,
        score=None,
        status="failed",
        reason=reason,
    )


def evaluate_pair(task: PairTask) -> PairResult:
    """Run and judge one question (in a worker); any failure becomes a `failed` question."""
    try:
        with collector_paused():
            return _judge(task)
    except Exception as exc:  # one question's failure never loses the others
        not_interrupted(exc)  # but a Ctrl+C a library wrapped stops them all
        return PairResult(_failed_entry(task, f"evaluation failed: {type(exc).__name__}: {exc}"))


def _find_private_run(
    runs_dir: Path, agent: str, control: ControlFile
) -> tuple[Path, Registration]:
    """The one run of `agent` for the control file's campaign under `runs_dir`, and its run.json.

    A sibling whose run.json cannot be read (another agent's damaged run) does not block
    this agent's run; it is named only when no readable run of the agent is found.
    """
    if RunPaths(runs_dir).exists():
        return runs_dir, read_registration(RunPaths(runs_dir))
    matches = []
    unreadable: list[IntegrityError | UserError] = []
    with reraised(UserError, OSError, where=str(runs_dir)):
        children = sorted(p for p in runs_dir.iterdir() if p.is_dir())
    for child in children:
        if RunPaths(child).exists():
            try:
                reg = read_registration(RunPaths(child))
            except (IntegrityError, UserError) as exc:
                unreadable.append(exc)
                continue
            if reg.agent_id == agent and reg.campaign_id == control.campaign_id:
                matches.append((child, reg))
    if not matches and unreadable:
        first = unreadable[0]
        raise type(first)(
            f"no readable run for agent {clip(agent)} under {runs_dir}; "
            f"{len(unreadable)} run(s) could not be read, first: {first.message}",
            subject=first.subject,
        )
    if not matches:
        raise UserError(
            f"no run for agent {clip(agent)} of campaign {control.campaign_id} under {runs_dir}",
            subject="agent",
        )
    if len(matches) > 1:
        raise UserError(
            f"several runs for agent {clip(agent)} under {runs_dir}: "
            + ", ".join(str(m) for m, _ in matches)
        )
    return matches[0]


def _resolve_run(
    results: Path, control: ControlFile | None, agent: str | None
) -> tuple[Path, Registration]:
    """The run directory to evaluate and its run.json (refusals are UserErrors)."""
    require_directory(results)
    if control is not None:
        if agent is None:
            raise UserError(
                "a control file needs the agent id whose run to validate", subject="agent"
            )
        results, registration = _find_private_run(results, agent, control)
    else:
        registration = read_registration(RunPaths(results))
    if registration.visibility == "private":
        if control is None:
            raise UserError(
                f"{results} is a private campaign run: validate it with its "
                "control file and agent id; no seed override exists",
                subject="control",
            )
        if registration.agent_id != agent:
            raise UserError(
                f"{results} was played by {clip(registration.agent_id)}, not {clip(agent)}",
                subject="agent",
            )
    return results, registration


def utf8_name(run_dir: Path) -> bool:
    """True when the run directory's name is text (UTF-8): a report and a batch's runs.csv
    record it, and a name of other bytes was a traceback when the report was encoded."""
    try:
        run_dir.name.encode()
    except UnicodeEncodeError:
        return False
    return True


@dataclass(frozen=True)
class PreparedRun:
    """A verified run ready to evaluate: its report head and one task per question.

    `divergence` is set (and `tasks` empty) when the factual run failed verification.
    """

    head: CounterfactualReport
    tasks: tuple[PairTask, ...]
    divergence: str | None = None


def prepare_run(
    results: Path,
    registration: Registration,
    control: ControlFile | None,
    agent: str | None,
    questions: list[str] | None,
    campaign: str | Path | None = None,
) -> PreparedRun:
    """Verify a finished run and build its pair tasks; an unfinished run is a UserError.

    `campaign` is where its campaign is when not where run.json says (`run_campaign`)."""
    if not utf8_name(results):
        raise UserError(
            f"{results}: its name is not UTF-8: a report names its run in UTF-8, so rename "
            "the directory"
        )
    bundle = run_campaign(results, registration, campaign)
    chosen = _select_questions(bundle, questions)
    days = {q.intervene_on_day for q in chosen}
    verification = verify_loaded(
        RunPaths(results), registration, bundle, control, agent, snapshot_days=days
    )
    head = _report_head(verification)
    if not verification.ok:
        return PreparedRun(head, (), verification.divergence or "verification failed")
    replayed = verification.replayed
    assert replayed is not None and verification.journal is not None
    if not replayed.engine.finished:
        raise UserError(
            f"{results} is not finished (day {replayed.engine.day} of {bundle.horizon}): "
            "only finished runs are evaluated; finish it with "
            f"`workbench finish {shlex.quote(str(results))}`"
            f"{', giving its control file,' if control is not None else ''} "
            "and validate again (the remaining days run with no decisions)"
        )
    by_question: dict[str, list[SubmissionRecord]] = {}
    for record in replayed.submissions:
        by_question.setdefault(record.assessment.question, []).append(record)
    schedulable = {q.id: _schedulable(q) for q in chosen}
    registered = registered_terms(bundle, {a for ids in schedulable.values() for a in ids})
    tasks = []
    for q in chosen:
        sub = latest_eligible(q, by_question.get(q.id, []))
        choice = sub.assessment.choice if sub else None
        tasks.append(
            PairTask(
                bundle,
                replayed.snapshots.get(q.intervene_on_day),
                q,
                intervention_actions(q, choice),
                verification.journal.head,
                sub,
                registration.seed_commitment,
                {a: registered[a] for a in schedulable[q.id] if a in registered},
            )
        )
    return PreparedRun(head, tuple(tasks))


def _schedulable(q: Question) -> tuple[str, ...]:
    """Every action either choice of `q` may schedule."""
    return (*q.baseline.actions, *q.intervention.actions, *q.intervention.select_from)


def pair_results(tasks: tuple[PairTask, ...], executor: Executor) -> Iterator[PairResult]:
    """Each task's judged pair, in question order; a lost worker fails only its questions."""
    outcomes = executor.map(evaluate_pair, tasks)
    for task, outcome in zip(tasks, outcomes, strict=True):
        if isinstance(outcome, Done):
            yield outcome.value
        else:
            yield PairResult(_failed_entry(task, outcome.reason))


def run_evaluation(
    results_dir: str | Path,
    out_dir: str | Path,
    *,
    control: ControlFile | None = None,
    agent: str | None = None,
    questions: list[str] | None = None,
    workers: int = 1,
    executor: ExecutorSpec | None = None,
    progress: Progress | None = None,
    campaign: str | Path | None = None,
) -> EvaluationOutcome:
    """Evaluate a finished run's counterfactual questions into a new output directory.

    Pairs run where `executor` says (a local pool of `workers` processes when None); it
    starts only after every check passed, so a refusal never waits for a cluster, and the
    output directory is claimed only once it runs, so a cluster that fails leaves none. An
    evaluation that fails or is interrupted while writing (a full disk, ctrl+c) removes
    what it wrote, so the same output directory can be used again.
    """
    given = Path(results_dir)
    results, registration = _resolve_run(given, control, agent)
    out = Path(out_dir)
    if workers < 1:
        raise UserError(f"workers must be at least 1, not {workers}", subject="workers")
    # Never inside the directory given, not only the run found there: a private run is
    # given as RUNS_DIR, and an output written beside the runs was written into it.
    check_output_dir(out, EVALUATION_LAYOUT, never_inside=given)
    spec = executor or ExecutorSpec("local", workers=workers)
    with collector_paused() if spec.in_process else contextlib.nullcontext():
        return _evaluate(
            results, out, registration, control, agent, questions, spec, progress, campaign, given
        )


def _evaluate(
    results: Path,
    out: Path,
    registration: Registration,
    control: ControlFile | None,
    agent: str | None,
    questions: list[str] | None,
    spec: ExecutorSpec,
    progress: Progress | None,
    campaign: str | Path | None = None,
    given: Path | None = None,
) -> EvaluationOutcome:
    """`run_evaluation` once its arguments are checked (`given`: the results directory as
    given, which holds the run `results`, or is it).

    When the pairs run in this process the caller keeps the collector paused throughout:
    the snapshots and books made while replaying live until the last pair, and each
    collection between pairs rescanned them (about 3% of a six-question evaluation).
    """
    prepared = prepare_run(results, registration, control, agent, questions, campaign)
    if prepared.divergence is not None:
        return EvaluationOutcome(
            exit_codes.INTEGRITY, prepared.head, None, f"integrity failure: {prepared.divergence}"
        )
    claiming = ClaimedOutput(
        out, EVALUATION_LAYOUT, never_inside=given or results, private=control is not None
    )
    with open_executor(spec) as running, claiming:
        pairs = pair_results(prepared.tasks, running)
        return write_evaluation(out, prepared.head, pairs, len(prepared.tasks), control, progress)


def write_evaluation(
    out: Path,
    head: CounterfactualReport,
    results: Iterable[PairResult],
    total: int,
    control: ControlFile | None,
    progress: Progress | None = None,
) -> EvaluationOutcome:
    """Append each pair's seals as it comes; then SHA256SUMS, then report.json last.

    The seals file, SHA256SUMS and report.json, and the directory entries of the output
    (its own, its seals directory's and the seals file's), are made durable together
    before either of the last two is renamed into place: a report that exists names
    durable files. The renames are made durable before this returns.
    `out/seals` must exist (claimed by the caller). With a control file (a private run)
    every seal and the report are signed with keys derived from it.
    """
    seal_key = control.seal_key() if control is not None else None
    stored: list[tuple[QuestionEntry, dict[str, str]]] = []
    with SealStream(out / SEALS_FILE) as stream:
        for result in results:
            stored.append((result.entry, _store_seals(result, stream, seal_key)))
            if progress is not None:
                progress(len(stored), total, result.entry.id)
        sha256 = stream.finish()
    entries = [_naming_seals(entry, digests, sha256) for entry, digests in stored]
    sums_text = b"" if sha256 is None else f"{sha256}  {SEALS_FILE}\n".encode()
    report = head.model_copy(
        update={
            "questions": entries,
            "summary": _summary(entries),
            "artifacts": Artifacts(sha256sums=hashlib.sha256(sums_text).hexdigest()),
        }
    )
    if control is not None:
        report = report.signed(control.report_key())
    report_path = out / REPORT_FILE
    atomic_write_all(
        [(out / SUMS_FILE, sums_text), (report_path, report.to_bytes())],
        written=[out / SEALS_FILE] if sha256 is not None else [],
        directories=[out / SEALS_DIR, out, out.parent],
        what="evaluation output",
    )
    code = exit_codes.OK if report.passed else exit_codes.UNSCORED
    return EvaluationOutcome(code, report, report_path)


@dataclass(frozen=True)
class RunJob:
    """One run of a batch: where it is, how to verify it, which questions to evaluate."""

    run_dir: Path
    control: ControlFile | None
    questions: tuple[str, ...] | None
    campaign: Path | None = None
    """Where the run's campaign is, when not where its run.json says."""


@dataclass(frozen=True)
class RunEvaluation:
    """What `evaluate_run` found for one run; nothing of it has been written yet.

    `kind` is `evaluated` (with `results` in question order), `integrity` (the factual
    run failed verification: nothing is scored) or `refused` (not evaluable as asked,
    e.g. unfinished: `message` says why).
    """

    run: str
    kind: str
    head: CounterfactualReport | None = None
    results: tuple[PairResult, ...] = ()
    message: str = ""


def evaluate_run(job: RunJob) -> RunEvaluation:
    """The whole evaluation of one run in this process, as one pure task (writes nothing).

    The collector stays paused throughout, as for a single evaluation in this process.
    """
    with collector_paused():
        return _evaluated_run(job)


def _evaluated_run(job: RunJob) -> RunEvaluation:
    """`evaluate_run` with the collector paused: refusals become the run's outcome."""
    name = job.run_dir.name
    try:
        registration = read_registration(RunPaths(job.run_dir))
        prepared = prepare_run(
            job.run_dir,
            registration,
            job.control,
            registration.agent_id,
            list(job.questions) if job.questions else None,
            job.campaign,
        )
    except IntegrityError as exc:
        return RunEvaluation(name, "integrity", message=exc.message)
    except UserError as exc:
        return RunEvaluation(name, "refused", message=exc.message)
    if prepared.divergence is not None:
        return RunEvaluation(name, "integrity", prepared.head, message=prepared.divergence)
    return RunEvaluation(
        name, "evaluated", prepared.head, tuple(evaluate_pair(t) for t in prepared.tasks)
    )


def _select_questions(bundle: CampaignBundle, wanted: list[str] | None) -> list[Question]:
    if not wanted:
        return list(bundle.questions.values())
    unknown = [q for q in wanted if q not in bundle.questions]
    if unknown:
        raise UserError(
            f"unknown question(s): {', '.join(clip(q) for q in unknown[:5])}"
            f"{' …' if len(unknown) > 5 else ''} (known: {', '.join(bundle.questions)})"
        )
    return [bundle.questions[q] for q in dict.fromkeys(wanted)]


def _store_seals(result: PairResult, stream: SealStream, seal_key: bytes | None) -> dict[str, str]:
    """Append a pair's seals (signed for a private run) to the seals file; their digests.

    The digests are by branch name, for the branch records that name them
    (`_naming_seals`, once the file is finished and its SHA-256 known).
    """
    lines = {
        name: (seal if seal_key is None else seal.signed(seal_key)).to_bytes()
        for name, record in result.entry.branches.named()
        if record is not None and (seal := result.seals.get(name)) is not None
    }
    if lines:
        stream.append(b"".join(lines.values()))
    return {name: seal_line_digest(line) for name, line in lines.items()}


def _naming_seals(
    entry: QuestionEntry, digests: dict[str, str], sha256: str | None
) -> QuestionEntry:
    """The entry whose branch records name the seals file, its SHA-256 and their seal's digest."""
    if not digests or sha256 is None:
        return entry
    records = {
        name: record
        if record is None or name not in digests
        else record.model_copy(
            update={"seal_file": SEALS_FILE, "seal_sha256": sha256, "seal_digest": digests[name]}
        )
        for name, record in entry.branches.named()
    }
    return entry.model_copy(update={"branches": Branches(**records)})


def _report_head(v: Verification) -> CounterfactualReport:
    reg = v.registration
    seal = v.seal
    return CounterfactualReport(
        registration=RegistrationInfo(
            campaign_id=reg.campaign_id,
            campaign_digest=reg.campaign_digest,
            visibility=reg.visibility,
            agent_id=reg.agent_id,
            seed_commitment=reg.seed_commitment,
        ),
        factual=Factual(
            run=v.run_dir.name,
            company=v.bundle.campaign.company.name,
            journal_head=None if seal is None else seal.journal_head,
            seal_digest=None if seal is None else seal.digest(),
            final_day=None if seal is None else seal.final_day,
            verification=VerificationInfo(ok=v.ok, divergence=v.divergence),
        ),
        execution=Execution(
            engine_version=ENGINE_VERSION,
            python=platform.python_version(),
            numpy=np.__version__,
            bit_generator=BIT_GENERATOR,
            platform=sys.platform,
        ),
        business_objective=[
            BusinessObjective(task=t.task_id, title=t.title, met=t.met) for t in v.tasks
        ],
    )


def _summary(entries: list[QuestionEntry]) -> Summary:
    counts = {s: 0 for s in QUESTION_STATUSES}
    for e in entries:
        counts[e.status] += 1
    scores = [Decimal(e.score) for e in entries if e.score is not None]
    required = [e.conclusion for e in entries if e.conclusion is not None]
    met = sum(1 for c in required if c.verdict == "met")
    return Summary(
        questions=len(entries),
        **counts,
        mean_score=str(cf.mean(scores)) if scores else None,
        conclusions_required=len(required),
        conclusions_met=met,
        all_scored=bool(entries) and counts["scored"] == len(entries),
        all_conclusions_met=met == len(required),
    )
