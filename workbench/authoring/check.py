"""Author checks (`workbench check`): does every question's pair of branches execute?

From the branch point reached by the campaign's reference play (its reference.jsonl,
or no decisions), run baseline and intervention (every allowed pick for a
participant-selected one) and report each precondition, the effect against its scale,
and whether a required conclusion is decidable from the evidence.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from sim.campaign_load import CampaignBundle
from workbench.evaluation.branches import (
    component_evidence,
    episode_id,
    run_branch,
    supported_effects,
)
from workbench.play.session import PlayerSession
from workbench.runs.bundle import load_bundle
from workbench.runs.registration import ControlFile, resolve_seed
from workbench.runs.replay import reach_branch_points, replay

SMALL_EFFECT = Decimal("0.05")
"""An effect smaller than this share of the scale is reported as a warning."""


@dataclass
class CheckReport:
    """Findings per question and branch; `ok` when no finding is an error."""

    campaign: str
    findings: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when nothing is an error."""
        return not any(f["level"] == "error" for f in self.findings)

    def add(self, question: str, branch: str, level: str, message: str, where: str) -> None:
        """Record one finding with its location in questions.toml."""
        self.findings.append(
            {
                "question": question,
                "branch": branch,
                "level": level,
                "message": message,
                "where": where,
            }
        )


def _reference_entries(bundle: CampaignBundle, seed: int, control: ControlFile | None):
    if bundle.reference_script is None:
        return []
    from workbench.play.script import play_script

    with tempfile.TemporaryDirectory() as tmp:
        session = PlayerSession.create(
            Path(tmp) / "ref",
            bundle.path,
            control=control,
            agent_id=(control.agents[0] if control else None),
            autoseal=False,
        )
        play_script(session, bundle.reference_script)
        return list(session.journal_entries)


def check_campaign(
    campaign: str | Path,
    control: ControlFile | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> CheckReport:
    """Run every question's branches from the reference play and collect findings."""
    bundle = load_bundle(campaign)
    seed, _, _ = resolve_seed(bundle, control, control.agents[0] if control else None)
    report = CheckReport(bundle.id)
    questions = list(bundle.questions.values())
    if not questions:
        report.add(
            "-", "-", "error", "the campaign has no counterfactual question", "questions.toml"
        )
        return report
    days = {q.intervene_on_day for q in questions}
    result = replay(bundle, seed, _reference_entries(bundle, seed, control), days)
    snapshots = reach_branch_points(result, days)
    for index, q in enumerate(questions):
        where = f"questions.toml: questions[{index}] ({q.id})"
        metric = bundle.metrics[q.metric]
        snap = snapshots[q.intervene_on_day]
        picks = (
            [(a,) for a in q.intervention.select_from]
            if q.intervention.participant_selected
            else [q.intervention.actions]
        )
        base = run_branch(
            snap,
            "baseline",
            q.baseline.name,
            q.baseline.actions,
            q.outcome_day,
            metric,
            episode_id("check", q.id, "baseline"),
        )
        _branch_findings(report, q.id, base, where)
        for pick in picks:
            label = "intervention" + (f"[{pick[0]}]" if q.intervention.participant_selected else "")
            inter = run_branch(
                snap,
                label,
                q.intervention.name,
                pick,
                q.outcome_day,
                metric,
                episode_id("check", q.id, label),
            )
            _branch_findings(report, q.id, inter, where)
            if base.status == inter.status == "ok":
                effect = Decimal(inter.outcome or "0") - Decimal(base.outcome or "0")
                ratio = abs(effect) / Decimal(q.scale)
                level = "warning" if ratio < SMALL_EFFECT else "info"
                report.add(
                    q.id,
                    label,
                    level,
                    f"effect {effect} {metric.units} = {ratio:.2f} x scale {q.scale}",
                    where,
                )
            if q.conclusion is not None and q.conclusion.action in pick:
                _conclusion_findings(report, bundle, q, base, inter, label, where)
        if progress is not None:
            progress(index + 1, len(questions), q.id)
    return report


def _branch_findings(report: CheckReport, qid: str, run, where: str) -> None:
    for step in run.schedule:
        level = "info" if step["accepted"] else "error"
        text = (
            f"precondition of {step['action']} met (starts day {step['start_day']})"
            if step["accepted"]
            else f"precondition failed: {step['reason']}"
        )
        report.add(qid, run.name, level, text, where)
    if run.status == "failed":
        report.add(qid, run.name, "error", f"branch failed: {run.reason}", where)
    elif run.status == "ok":
        report.add(qid, run.name, "info", f"outcome {run.outcome}", where)


def _conclusion_findings(
    report: CheckReport, bundle: CampaignBundle, q, base, inter, label: str, where: str
) -> None:
    required = q.conclusion
    action = bundle.actions[required.action]
    if inter.status != "ok" or (required.kind == "supported_effects" and base.status != "ok"):
        report.add(
            q.id,
            label,
            "error",
            "required conclusion is not decidable: a branch did not run to the outcome day",
            where,
        )
        return
    if required.kind == "contract_component":
        value = component_evidence(inter.book, action, required.component, q.outcome_day)
        declared = getattr(action, required.component)
        if value != declared:
            report.add(
                q.id,
                label,
                "error",
                f"{required.component} of {action.id} is declared "
                f"{Decimal(declared) / 100} but the ledger shows {Decimal(value) / 100} "
                f"by day {q.outcome_day}",
                where,
            )
        else:
            report.add(
                q.id,
                label,
                "info",
                f"conclusion decidable: {required.component} = {Decimal(value) / 100}",
                where,
            )
        return
    supported = supported_effects(base.book, inter.book, action, q.outcome_day)
    report.add(
        q.id,
        label,
        "info",
        f"conclusion decidable: supported effects by day "
        f"{q.outcome_day} = {supported or 'none'} of {list(action.effect_names)}",
        where,
    )
