"""The offline counterfactual evaluator (`workbench validate counterfactual`), DESIGN §9.

1. Verify the factual run (journal chain, re-execution, seal): a failure is an
   integrity failure and nothing is scored.
2. For each question, one pair at a time: rebuild the branch point after the close of
   the intervene day, run baseline and intervention offline, keep both statuses, and
   write the pair's compressed seals before the next pair.
3. Score the latest eligible submission; check a required conclusion against evidence.
4. Write SHA256SUMS, then report.json last and atomically, into a new directory.
"""

from __future__ import annotations

import gzip
import hashlib
import platform
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np

from graders import counterfactual as cf
from ledger.canonical import dumps
from ledger.money import to_major
from ledger.seal import seal_bytes, seal_digest, seed_commitment
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question
from sim.engine import Snapshot
from sim.version import BIT_GENERATOR, ENGINE_VERSION
from workbench import exit_codes
from workbench.errors import UserError
from workbench.evaluation.branches import (
    BranchRun,
    component_evidence,
    effect_gauges,
    episode_id,
    run_branch,
    supported_effects,
)
from workbench.play.public_view import question_contract
from workbench.runs.assessment import (
    SubmissionRecord,
    intervention_actions,
    latest_eligible,
    validate_assessment,
)
from workbench.runs.files import RunPaths, atomic_write, read_registration
from workbench.runs.registration import ControlFile
from workbench.runs.replay import reach_branch_points
from workbench.runs.verify import Verification, verify_run

REPORT_SCHEMA = "cfwb.counterfactual-report/1"
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class EvaluationOutcome:
    """What an evaluation produced: its exit code, the report and where it was written."""

    exit_code: int
    report: dict[str, Any]
    report_path: Path | None
    message: str = ""


@dataclass(frozen=True)
class PairTask:
    """Everything one worker needs to run and judge one question's pair of branches."""

    snapshot: Snapshot
    question: Question
    intervention: tuple[str, ...]
    run_head: str
    submission: SubmissionRecord | None


def _conclusion(task: PairTask, base: BranchRun, inter: BranchRun) -> dict[str, Any] | None:
    required = task.question.conclusion
    if required is None:
        return None
    bundle = task.snapshot.bundle
    action = bundle.actions[required.action]
    day = task.question.outcome_day
    submitted = task.submission.assessment.conclusion if task.submission else None
    result: dict[str, Any] = {
        "kind": required.kind,
        "action": required.action,
        "component": required.component,
        "submitted": submitted,
        "expected": None,
        "correct": None,
        "decidable": False,
        "evidence": None,
    }
    if required.kind == "contract_component":
        if inter.status != "ok" or inter.book is None:
            result["evidence"] = {"reason": "intervention branch has no ledger"}
            return result
        value = component_evidence(inter.book, action, required.component, day)
        expected = to_major(value)
        declared = getattr(action, required.component)
        result.update(
            decidable=True,
            expected=str(expected),
            evidence={
                "ledger_cents": value,
                "declared": str(Decimal(declared) / 100),
                "matches_declared": value == declared,
            },
        )
        if submitted is not None:
            result["correct"] = cf.contract_component_correct(Decimal(str(submitted)), expected)
        return result
    if base.status != "ok" or inter.status != "ok" or not base.book or not inter.book:
        result["evidence"] = {"reason": "both branches must be ok to compare effects"}
        return result
    supported = supported_effects(base.book, inter.book, action, day)
    result.update(
        decidable=True,
        expected=supported,
        evidence={
            "baseline_gauges": effect_gauges(base.book, action, day),
            "intervention_gauges": effect_gauges(inter.book, action, day),
        },
    )
    if submitted is not None:
        result["correct"] = cf.supported_effects_correct(submitted, supported)
    return result


def evaluate_pair(task: PairTask) -> dict[str, Any]:
    """Run both branches of one question and judge its submission (runs in a worker)."""
    q = task.question
    bundle = task.snapshot.bundle
    metric = bundle.metrics[q.metric]
    entry: dict[str, Any] = {"id": q.id, "contract": question_contract(bundle, q).to_data()}
    entry["contract_digest"] = hashlib.sha256(dumps(entry["contract"])).hexdigest()
    sub = task.submission
    entry["submission"] = (
        None
        if sub is None
        else {
            "seq": sub.seq,
            "day": sub.day,
            "value": sub.assessment.value,
            "conclusion": sub.assessment.conclusion,
            "choice": sub.assessment.choice,
        }
    )
    runs: dict[str, BranchRun | None] = {"baseline": None, "intervention": None}
    if q.intervention.participant_selected and not task.intervention:
        entry["reason"] = "no eligible submission selects the intervention"
    else:
        runs["baseline"] = run_branch(
            task.snapshot,
            "baseline",
            q.baseline.name,
            q.baseline.actions,
            q.outcome_day,
            metric,
            episode_id(task.run_head, q.id, "baseline"),
        )
        runs["intervention"] = run_branch(
            task.snapshot,
            "intervention",
            q.intervention.name,
            task.intervention,
            q.outcome_day,
            metric,
            episode_id(task.run_head, q.id, "intervention"),
        )
    base, inter = runs["baseline"], runs["intervention"]
    entry["branches"] = {k: (None if r is None else r.record()) for k, r in runs.items()}
    entry["seals"] = {k: r.seal for k, r in runs.items() if r is not None and r.seal}
    effect = None
    if base is not None and inter is not None and base.status == inter.status == "ok":
        effect = cf.effect(Decimal(base.outcome or "0"), Decimal(inter.outcome or "0"))
    entry["effect"] = None if effect is None else str(effect)
    entry["conclusion"] = _conclusion(task, base, inter) if base and inter else None
    entry["loss"] = entry["score"] = None
    if sub is None:
        entry["status"] = "unsubmitted"
        entry.setdefault("reason", "no eligible submission")
    elif errors := validate_assessment(bundle, sub.assessment):
        entry["status"] = "invalid"
        entry["reason"] = "; ".join(errors)
    elif effect is None:
        entry["status"] = "unresolved"
        failed = [r for r in (base, inter) if r is not None and r.status != "ok"]
        entry["reason"] = "; ".join(
            f"{r.name} {r.status}: {r.reason}" for r in failed
        ) or entry.get("reason", "no outcome")
    else:
        scale = Decimal(q.scale)
        loss = cf.loss(Decimal(sub.assessment.value), effect, scale)
        entry["status"] = "scored"
        entry["loss"] = str(loss)
        entry["score"] = str(-loss)
    return entry


def _find_private_run(runs_dir: Path, agent: str, control: ControlFile) -> Path:
    if RunPaths(runs_dir).exists():
        return runs_dir
    matches = []
    for child in sorted(p for p in runs_dir.iterdir() if p.is_dir()):
        if RunPaths(child).exists():
            reg = read_registration(RunPaths(child))
            if reg.agent_id == agent and reg.campaign_id == control.campaign_id:
                matches.append(child)
    if not matches:
        raise UserError(
            f"no run for agent {agent!r} of campaign {control.campaign_id} under {runs_dir}"
        )
    if len(matches) > 1:
        raise UserError(
            f"several runs for agent {agent!r} under {runs_dir}: "
            + ", ".join(str(m) for m in matches)
        )
    return matches[0]


def _prepare_out(out: Path, results: Path) -> None:
    out_r, res_r = out.resolve(), results.resolve()
    if out_r == res_r or res_r in out_r.parents:
        raise UserError(
            f"--out {out} is inside the results directory; the results directory is never written"
        )
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UserError(f"--out {out} exists and is not empty: evaluate into a new directory")
    (out / "seals").mkdir(parents=True, exist_ok=True)


def _write_gz(path: Path, data: bytes) -> str:
    compressed = gzip.compress(data, mtime=0)
    atomic_write(path, compressed)
    return hashlib.sha256(compressed).hexdigest()


def run_evaluation(
    results_dir: str | Path,
    out_dir: str | Path,
    *,
    control: ControlFile | None = None,
    agent: str | None = None,
    questions: list[str] | None = None,
    workers: int = 1,
    progress: Progress | None = None,
) -> EvaluationOutcome:
    """Evaluate a run's counterfactual questions into a new output directory."""
    results = Path(results_dir)
    out = Path(out_dir)
    if not results.is_dir():
        raise UserError(f"{results} is not a directory")
    if control is not None:
        if agent is None:
            raise UserError("--agent is required with --control")
        results = _find_private_run(results, agent, control)
    registration = read_registration(RunPaths(results))
    if registration.visibility == "private":
        if control is None:
            raise UserError(
                f"{results} is a private campaign run: validate it with its "
                "control file (--control) and --agent; no seed override exists"
            )
        if registration.seed_commitment != seed_commitment(control.seed, control.salt):
            raise UserError(f"{results}: seed commitment does not match the control file")
        if registration.agent_id != agent:
            raise UserError(f"{results} was played by {registration.agent_id!r}, not {agent!r}")
    if workers < 1:
        raise UserError("--workers must be at least 1")
    _prepare_out(out, results)
    days = {q.intervene_on_day for q in _campaign_questions(results, questions)}
    verification = verify_run(results, control, agent, snapshot_days=days)
    report = _report_head(verification)
    if not verification.ok:
        report["factual"]["verification"] = {"ok": False, "divergence": verification.divergence}
        return EvaluationOutcome(
            exit_codes.INTEGRITY, report, None, f"integrity failure: {verification.divergence}"
        )
    bundle = verification.bundle
    chosen = _select_questions(bundle, questions)
    replayed = verification.replayed
    assert replayed is not None and verification.journal is not None
    snapshots = reach_branch_points(replayed, {q.intervene_on_day for q in chosen})
    tasks = []
    for q in chosen:
        sub = latest_eligible(q, replayed.submissions)
        choice = sub.assessment.choice if sub else None
        tasks.append(
            PairTask(
                snapshots[q.intervene_on_day],
                q,
                intervention_actions(q, choice),
                verification.journal.head,
                sub,
            )
        )
    entries = _run_pairs(tasks, out, workers, progress)
    report["questions"] = entries
    report["summary"] = _summary(entries)
    sums = sorted(
        (p.relative_to(out).as_posix(), hashlib.sha256(p.read_bytes()).hexdigest())
        for p in (out / "seals").glob("*.gz")
    )
    sums_text = "".join(f"{digest}  {name}\n" for name, digest in sums).encode()
    atomic_write(out / "SHA256SUMS", sums_text)
    report["artifacts"] = {"SHA256SUMS": hashlib.sha256(sums_text).hexdigest()}
    report_path = out / "report.json"
    atomic_write(report_path, dumps(report) + b"\n")
    code = (
        exit_codes.OK
        if entries and all(e["status"] == "scored" for e in entries)
        else exit_codes.UNSCORED
    )
    return EvaluationOutcome(code, report, report_path)


def _campaign_questions(results: Path, wanted: list[str] | None) -> list[Question]:
    from workbench.runs.bundle import load_bundle

    registration = read_registration(RunPaths(results))
    return _select_questions(load_bundle(registration.campaign_path), wanted)


def _select_questions(bundle: CampaignBundle, wanted: list[str] | None) -> list[Question]:
    if not wanted:
        return list(bundle.questions.values())
    unknown = [q for q in wanted if q not in bundle.questions]
    if unknown:
        raise UserError(
            f"unknown question(s): {', '.join(unknown)} (known: {', '.join(bundle.questions)})"
        )
    return [bundle.questions[q] for q in dict.fromkeys(wanted)]


def _run_pairs(
    tasks: list[PairTask], out: Path, workers: int, progress: Progress | None
) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []

    def finish(entry: dict[str, Any]) -> None:
        seals = entry.pop("seals")
        for name, record in (entry["branches"] or {}).items():
            if record is None:
                continue
            seal = seals.get(name)
            if seal is None:
                record["seal_file"] = record["seal_sha256"] = record["seal_digest"] = None
                continue
            rel = f"seals/{entry['id']}.{name}.seal.json.gz"
            record["seal_file"] = rel
            record["seal_sha256"] = _write_gz(out / rel, seal_bytes(seal))
            record["seal_digest"] = seal_digest(seal)
        entries.append(entry)
        if progress is not None:
            progress(len(entries), len(tasks), entry["id"])

    if workers == 1 or len(tasks) < 2:
        for task in tasks:
            finish(evaluate_pair(task))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunk = max(1, len(tasks) // (4 * workers))
            for entry in pool.map(evaluate_pair, tasks, chunksize=chunk):
                finish(entry)
    return entries


def _report_head(v: Verification) -> dict[str, Any]:
    reg = v.registration
    seal = v.seal or {}
    return {
        "schema": REPORT_SCHEMA,
        "registration": {
            "campaign_id": reg.campaign_id,
            "campaign_digest": reg.campaign_digest,
            "visibility": reg.visibility,
            "agent_id": reg.agent_id,
            "seed_commitment": reg.seed_commitment,
        },
        "factual": {
            "run": v.run_dir.name,
            "company": v.bundle.campaign.company.name,
            "journal_head": seal.get("journal_head"),
            "seal_digest": seal_digest(seal) if seal else None,
            "final_day": seal.get("final_day"),
            "verification": {"ok": v.ok, "divergence": v.divergence},
        },
        "execution": {
            "engine_version": ENGINE_VERSION,
            "python": platform.python_version(),
            "numpy": np.__version__,
            "bit_generator": BIT_GENERATOR,
            "platform": sys.platform,
        },
        "business_objective": [
            {"task": t.task_id, "title": t.title, "met": t.met} for t in v.tasks
        ],
        "questions": [],
        "summary": {},
    }


def _summary(entries: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {s: 0 for s in ("scored", "unsubmitted", "unresolved", "invalid")}
    for e in entries:
        counts[e["status"]] += 1
    scores = [Decimal(e["score"]) for e in entries if e["score"] is not None]
    conclusions = [
        e["conclusion"]["correct"]
        for e in entries
        if e.get("conclusion") and e["conclusion"]["correct"] is not None
    ]
    return {
        "questions": len(entries),
        **counts,
        "mean_score": str(sum(scores) / len(scores)) if scores else None,
        "conclusions_correct": sum(1 for c in conclusions if c),
        "conclusions_checked": len(conclusions),
        "all_scored": bool(entries) and counts["scored"] == len(entries),
    }
