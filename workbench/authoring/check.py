"""Author checks (`workbench check`): what an author needs to know about each question.

From the branch point reached by the campaign's reference play (its reference.jsonl, or
no decisions) every question's baseline and intervention (every allowed pick of a
participant-selected one) run to the outcome day, on the campaign's seed and on N other
seeds (`workbench.authoring.seeds`: one fixed sequence for every campaign; N is
`DEFAULT_SEEDS` unless told otherwise). Each finding is typed and has a severity:

- `campaign`: the campaign has no counterfactual question (error).
- `deadline`: the days on which a submission counts (the model refuses a deadline that
  leaves none, so this reports the window).
- `branch`: each scheduled action's precondition, and each branch's status; a rejected
  intervention is an error unless the question declares `expect_intervention = "rejected"`,
  and a designed rejection that executes is an error too.
- `difference`: whether baseline and intervention leave different ledgers by the outcome
  day (identical: error) and whether the question's metric moves (it does not: warning).
- `effect`: the effect on this seed, in metric units and in scales.
- `spread`: the effect over N other seeds (mean, standard deviation, range); a warning
  when it varies more than its mean (the question measures noise as much as the action),
  and when the branches fail to execute on most other seeds (or on this seed only); for
  a designed rejection, a warning when the intervention executes on most other seeds.
- `scale`: whether a typical error costs a loss near 1: a typical error is a quarter of
  the effect combined with its spread over seeds, sqrt((mean / 4)² + stdev²) (root mean
  square over the picks of a participant-selected question); a warning when its loss
  (error / scale)² lies outside [1/25, 25].
- `conclusion`: whether a required conclusion is decidable and matches the declaration.

The check runs branches, so it belongs to authors only: the player's app never reaches it.
"""

from __future__ import annotations

import statistics
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ledger.journal import Entry
from ledger.money import format_money
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Question
from workbench.authoring.scratch import without_scratch
from workbench.authoring.seeds import DEFAULT_SEEDS, MAX_SEEDS, STRICT_SEEDS, other_seeds
from workbench.display import amount, signed_amount
from workbench.errors import UserError, WorkbenchError
from workbench.evaluation.branches import (
    BranchRun,
    component_evidence,
    episode_id,
    run_branch,
    supported_effects,
)
from workbench.messages import first_of
from workbench.play.session import PlayerSession
from workbench.runs.bundle import load_bundle
from workbench.runs.registration import ControlFile, resolve_identity
from workbench.runs.replay import reach_branch_points, replay

Severity = Literal["info", "warning", "error"]
FindingKind = Literal[
    "campaign", "deadline", "branch", "difference", "effect", "spread", "scale", "conclusion"
]
FINDING_KINDS: tuple[FindingKind, ...] = (
    "campaign",
    "deadline",
    "branch",
    "difference",
    "effect",
    "spread",
    "scale",
    "conclusion",
)
SCALE_BAND = (Decimal(1) / 25, Decimal(25))
"""A typical error's loss, (error / scale)², is near 1 when it lies in this band."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Finding(_Frozen):
    """One thing an author should know about a question (or the campaign)."""

    kind: FindingKind
    severity: Severity
    question: str
    branch: str
    message: str
    where: str


class EffectSpread(_Frozen):
    """A question's effect on the campaign's seed and over other seeds (display units)."""

    question: str
    branch: str
    units: str
    scale: str
    effect: str | None
    seeds: int
    executed: int
    mean: str | None
    stdev: str | None
    low: str | None
    high: str | None


class CheckReport(_Frozen):
    """Every finding of one check, with each question's effect spread."""

    campaign: str
    seeds: int
    findings: tuple[Finding, ...]
    spreads: tuple[EffectSpread, ...]

    def count(self, severity: Severity) -> int:
        """How many findings have this severity."""
        return sum(1 for f in self.findings if f.severity == severity)

    @property
    def ok(self) -> bool:
        """True when nothing is an error."""
        return self.count("error") == 0

    def passes(self, strict: bool) -> bool:
        """The admission gate: no error, and with `strict` no warning either, over at least
        `STRICT_SEEDS` other seeds (a report on fewer never passes the strict gate)."""
        if strict and self.seeds < STRICT_SEEDS:
            return False
        return self.ok and not (strict and self.count("warning"))


@dataclass
class _Findings:
    """Collects findings for one question."""

    question: str
    where: str
    items: list[Finding]

    def add(self, kind: FindingKind, severity: Severity, branch: str, message: str) -> None:
        self.items.append(
            Finding(
                kind=kind,
                severity=severity,
                question=self.question,
                branch=branch,
                message=message,
                where=self.where,
            )
        )


def _reference_entries(bundle: CampaignBundle, control: ControlFile | None) -> list[Entry]:
    """The journal of the campaign's reference play (empty without a reference.jsonl)."""
    if bundle.reference_script is None:
        return []
    from workbench.play.script import play_script

    with tempfile.TemporaryDirectory() as tmp:
        try:
            session = PlayerSession.create(
                Path(tmp) / "ref",
                bundle.path,
                control=control,
                agent_id=(control.agents[0] if control else None),
                autoseal=False,
            )
            play_script(session, bundle.reference_script, "reference script")
        except WorkbenchError as exc:
            raise without_scratch(exc, Path(tmp), "the reference play") from None
        return list(session.journal_entries)


def _picks(q: Question) -> list[tuple[str, tuple[str, ...]]]:
    """(branch label, actions) of each intervention the question allows."""
    if q.intervention.participant_selected:
        return [(f"intervention[{a}]", (a,)) for a in q.intervention.select_from]
    return [("intervention", q.intervention.actions)]


@dataclass
class _Pair:
    """Both branches of one pick of one question on one seed."""

    base: BranchRun
    inter: BranchRun

    def effect(self) -> Decimal | None:
        if self.base.status == self.inter.status == "ok":
            return Decimal(self.inter.outcome or "0") - Decimal(self.base.outcome or "0")
        return None


def _run_seed(
    bundle: CampaignBundle, seed: int, entries: Sequence[Entry], commitment: str
) -> dict[str, dict[str, _Pair]]:
    """Every question's branch pairs on one seed, keyed by question id and branch label.

    `commitment` labels the branch seals (which the check never writes out)."""
    questions = list(bundle.questions.values())
    days = {q.intervene_on_day for q in questions}
    snapshots = reach_branch_points(replay(bundle, seed, entries, days), days)
    pairs: dict[str, dict[str, _Pair]] = {}
    for q in questions:
        metric = bundle.metrics[q.metric]
        snap = snapshots[q.intervene_on_day]
        base = run_branch(
            snap,
            "baseline",
            q.baseline.name,
            q.baseline.actions,
            q.outcome_day,
            metric,
            episode_id("check", q.id, "baseline"),
            seed_commitment=commitment,
        )
        pairs[q.id] = {}
        for label, actions in _picks(q):
            inter = run_branch(
                snap,
                label,
                q.intervention.name,
                actions,
                q.outcome_day,
                metric,
                episode_id("check", q.id, label),
                seed_commitment=commitment,
            )
            pairs[q.id][label] = _Pair(base, inter)
    return pairs


def check_campaign(
    campaign: str | Path,
    control: ControlFile | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    seeds: int = DEFAULT_SEEDS,
    strict: bool = False,
) -> CheckReport:
    """Run every question's branches on the campaign's seed and `seeds` others; collect findings.

    The other seeds are the same for every campaign (`workbench.authoring.seeds`), so the
    findings never depend on the campaign's id or any other name. With `strict` (the
    admission gate) fewer than `STRICT_SEEDS` other seeds are refused before anything runs."""
    if not 0 <= seeds <= MAX_SEEDS:
        raise UserError(f"seeds {seeds} is out of range: allowed 0 to {MAX_SEEDS}", subject="seeds")
    if strict and seeds < STRICT_SEEDS:
        raise UserError(
            f"seeds {seeds} is too few for the strict gate: it judges every effect's spread "
            f"over other seeds, so it needs {STRICT_SEEDS} to {MAX_SEEDS} "
            f"(0 to {MAX_SEEDS} without strict)",
            subject="seeds",
        )
    bundle = load_bundle(campaign)
    identity = resolve_identity(bundle, control, control.agents[0] if control else None)
    seed = identity.seed
    questions = list(bundle.questions.values())
    if not questions:
        finding = Finding(
            kind="campaign",
            severity="error",
            question="-",
            branch="-",
            message="the campaign has no counterfactual question",
            where="questions.toml",
        )
        return CheckReport(campaign=bundle.id, seeds=seeds, findings=(finding,), spreads=())
    entries = _reference_entries(bundle, control)
    everyone = [seed, *other_seeds(seeds, seed)]
    runs = []
    for done, each in enumerate(everyone, start=1):
        commitment = identity.seed_commitment if each == seed else ""
        runs.append(_run_seed(bundle, each, entries, commitment))
        if progress is not None:
            progress(done, len(everyone), f"seed {done} of {len(everyone)}")
    findings: list[Finding] = []
    spreads: list[EffectSpread] = []
    for index, q in enumerate(questions):
        found = _Findings(q.id, f"questions.toml: questions[{index}] ({q.id})", findings)
        _question_findings(bundle, q, [run[q.id] for run in runs], found, spreads)
    return CheckReport(
        campaign=bundle.id, seeds=seeds, findings=tuple(findings), spreads=tuple(spreads)
    )


def _question_findings(
    bundle: CampaignBundle,
    q: Question,
    per_seed: list[dict[str, _Pair]],
    found: _Findings,
    spreads: list[EffectSpread],
) -> None:
    units = bundle.metrics[q.metric].units
    found.add(
        "deadline",
        "info",
        "-",
        f"submissions count on days 0 to {q.deadline_day - 1} ({q.deadline_day} day"
        f"{'s' if q.deadline_day != 1 else ''}); branch point after day {q.intervene_on_day}, "
        f"outcome at day {q.outcome_day}",
    )
    base = per_seed[0][next(iter(per_seed[0]))].base
    _branch_findings(found, base, units, expect_rejected=False)
    for label, pair in per_seed[0].items():
        inter = pair.inter
        expect_rejected = q.expect_intervention == "rejected"
        _branch_findings(found, inter, units, expect_rejected)
        effect = pair.effect()
        if effect is not None:
            _difference_findings(found, q, pair, effect, units)
        if q.conclusion is not None and q.conclusion.action in inter.actions:
            _conclusion_findings(found, bundle, q, pair)
        others = [run[label] for run in per_seed[1:]]
        spread = _spread(q, label, units, effect, others)
        spreads.append(spread)
        if expect_rejected:
            _rejection_findings(found, label, others)
        else:
            _spread_findings(found, label, spread, effect, others)
    if q.expect_intervention == "executes":
        _scale_findings(found, q, [s for s in spreads if s.question == q.id])


def _branch_findings(found: _Findings, run: BranchRun, units: str, expect_rejected: bool) -> None:
    for step in run.schedule:
        if step.accepted:
            found.add(
                "branch",
                "info",
                run.name,
                f"precondition of {step.action} met (starts day {step.start_day})",
            )
        elif expect_rejected:
            found.add("branch", "info", run.name, f"rejected as designed: {step.reason}")
        else:
            found.add("branch", "error", run.name, f"precondition failed: {step.reason}")
    if run.status == "failed":
        found.add("branch", "error", run.name, f"branch failed: {run.reason}")
    elif run.status == "ok" and expect_rejected:
        found.add(
            "branch",
            "error",
            run.name,
            "the question expects this intervention to be rejected "
            '(expect_intervention = "rejected"), but it executes',
        )
    elif run.status == "ok":
        outcome = "-" if run.outcome is None else amount(run.outcome, units)
        found.add("branch", "info", run.name, f"outcome {outcome}")


def _difference_findings(
    found: _Findings, q: Question, pair: _Pair, effect: Decimal, units: str
) -> None:
    assert pair.base.book is not None and pair.inter.book is not None
    same = pair.base.book.balances(q.outcome_day) == pair.inter.book.balances(q.outcome_day)
    name = pair.inter.name
    if same:
        found.add(
            "difference",
            "error",
            name,
            f"baseline and intervention leave identical ledgers at day {q.outcome_day}: "
            "the question cannot measure anything (do the actions start or land after "
            "the outcome day?)",
        )
        return
    if effect == 0:
        found.add(
            "difference",
            "warning",
            name,
            f"the ledgers differ by day {q.outcome_day} but {q.metric} does not move: "
            "the effect is exactly 0",
        )
    else:
        found.add("difference", "info", name, f"the branches differ by day {q.outcome_day}")
    ratio = abs(effect) / Decimal(q.scale)
    found.add(
        "effect",
        "info",
        name,
        f"effect on this seed {signed_amount(effect, units)} = {ratio:.2f} x scale {q.scale}",
    )


def _stats(values: list[Decimal]) -> tuple[Decimal, Decimal]:
    mean = statistics.mean(values)
    stdev = statistics.stdev(values) if len(values) > 1 else Decimal(0)
    cents = Decimal("0.01")
    return mean.quantize(cents), stdev.quantize(cents)


def _spread(
    q: Question, label: str, units: str, effect: Decimal | None, others: list[_Pair]
) -> EffectSpread:
    values = [e for e in (p.effect() for p in others) if e is not None]
    every = values + ([effect] if effect is not None else [])
    mean, stdev = _stats(every) if every else (None, None)
    return EffectSpread(
        question=q.id,
        branch=label,
        units=units,
        scale=q.scale,
        effect=None if effect is None else str(effect),
        seeds=len(others),
        executed=len(values),
        mean=None if mean is None else str(mean),
        stdev=None if stdev is None else str(stdev),
        low=str(min(every)) if every else None,
        high=str(max(every)) if every else None,
    )


def _spread_findings(
    found: _Findings, label: str, spread: EffectSpread, effect: Decimal | None, others: list[_Pair]
) -> None:
    if not others:
        found.add(
            "spread",
            "info",
            label,
            "no other seed was run, so the effect's spread over seeds is unknown "
            f"(the strict gate runs {STRICT_SEEDS})",
        )
        return
    failed = len(others) - spread.executed
    if failed:
        reasons = sorted({r for p in others if p.effect() is None for r in [_reason(p)] if r})
        severity: Severity = "warning" if 2 * failed > len(others) or effect is None else "info"
        found.add(
            "spread",
            severity,
            label,
            f"the branches do not both execute on {failed} of {len(others)} other seeds, "
            f"e.g. {first_of(reasons or ['unknown'])}",
        )
    if None in (spread.mean, spread.stdev, spread.low, spread.high):
        return
    mean, stdev = Decimal(spread.mean or 0), Decimal(spread.stdev or 0)
    low, high = Decimal(spread.low or 0), Decimal(spread.high or 0)
    text = (
        f"effect over {spread.executed + (effect is not None)} seeds: mean "
        f"{signed_amount(mean, spread.units)}, standard deviation "
        f"{amount(stdev, spread.units)}, range {signed_amount(low, spread.units)} to "
        f"{signed_amount(high, spread.units)}"
    )
    if stdev > abs(mean):
        found.add(
            "spread",
            "warning",
            label,
            text + ": it varies more than its mean, so the question measures noise as much "
            "as the action",
        )
    else:
        found.add("spread", "info", label, text)


def _rejection_findings(found: _Findings, label: str, others: list[_Pair]) -> None:
    """A designed rejection must hold on the other seeds too: one that holds on this seed
    only is a question whose answer depends on the seed (a warning when it executes on
    most of them, as a designed execution that fails on most of them is)."""
    executes = [p for p in others if p.inter.status == "ok"]
    if not executes:
        return
    severity: Severity = "warning" if 2 * len(executes) > len(others) else "info"
    found.add(
        "spread",
        severity,
        label,
        f"the question expects this intervention to be rejected "
        f'(expect_intervention = "rejected"), but it executes on {len(executes)} of '
        f"{len(others)} other seeds: the rejection depends on the seed",
    )


def _reason(pair: _Pair) -> str | None:
    return pair.inter.reason or pair.base.reason


def typical_error(spread: EffectSpread) -> Decimal | None:
    """A typical forecaster's error on one pick: a quarter of the effect (knowing how the
    action works but not exactly how much) combined with its spread over seeds (what no
    forecaster can know): sqrt((mean / 4)² + stdev²)."""
    if spread.mean is None or spread.stdev is None:
        return None
    quarter = Decimal(spread.mean) / 4
    return (quarter * quarter + Decimal(spread.stdev) ** 2).sqrt()


def _scale_findings(found: _Findings, q: Question, spreads: list[EffectSpread]) -> None:
    errors = [e for e in (typical_error(s) for s in spreads) if e is not None]
    if not errors:
        return
    typical = (
        (sum((e * e for e in errors), Decimal(0)) / len(errors)).sqrt().quantize(Decimal("0.01"))
    )
    loss = (typical / Decimal(q.scale)) ** 2
    picks = " (root mean square over the picks)" if len(spreads) > 1 else ""
    alone = "" if spreads[0].seeds else " (from this seed alone: no spread over other seeds)"
    text = (
        f"a typical error{picks} of {amount(typical, spreads[0].units)}{alone} costs a loss of "
        f"{loss:.3g} at scale {q.scale}"
    )
    low, high = SCALE_BAND
    if low <= loss <= high:
        found.add("scale", "info", "-", text)
        return
    found.add(
        "scale",
        "warning",
        "-",
        text
        + f", outside [{low:.3g}, {high}]: "
        + (
            f"a scale near {typical.normalize():f} would make it about 1"
            if typical
            else f"the effect is 0 {_where_zero(spreads)}"
        ),
    )


def _where_zero(spreads: list[EffectSpread]) -> str:
    """On which seeds the effect was measured (each was 0): true for any number of seeds."""
    run = spreads[0].seeds + 1
    if run == 1:
        return "on this seed, the only one run"
    measured = sorted({s.executed + (s.effect is not None) for s in spreads if s.mean is not None})
    if measured == [run]:
        return f"on every one of the {run} seeds run"
    counts = str(measured[0]) if len(measured) == 1 else f"{measured[0]} to {measured[-1]}"
    return f"on each seed where both branches ran ({counts} of the {run} seeds run)"


def _conclusion_findings(
    found: _Findings, bundle: CampaignBundle, q: Question, pair: _Pair
) -> None:
    required = q.conclusion
    assert required is not None
    action = bundle.actions[required.action]
    base, inter = pair.base, pair.inter
    label = inter.name
    if inter.status != "ok" or (required.kind == "supported_effects" and base.status != "ok"):
        if q.expect_intervention == "rejected":
            return
        found.add(
            "conclusion",
            "error",
            label,
            "required conclusion is not decidable: a branch did not run to the outcome day",
        )
        return
    assert inter.book is not None
    if required.kind == "contract_component":
        assert required.component is not None
        value = component_evidence(inter.book, action, required.component, q.outcome_day)
        declared = getattr(action, required.component)
        if value != declared:
            found.add(
                "conclusion",
                "error",
                label,
                f"{required.component} of {action.id} is declared "
                f"{format_money(declared)} but the ledger shows {format_money(value)} "
                f"by day {q.outcome_day}",
            )
        else:
            found.add(
                "conclusion",
                "info",
                label,
                f"conclusion decidable: {required.component} = {format_money(value)}",
            )
        return
    assert base.book is not None
    supported = supported_effects(base.book, inter.book, action, q.outcome_day)
    found.add(
        "conclusion",
        "info",
        label,
        f"conclusion decidable: supported effects by day "
        f"{q.outcome_day} = {supported or 'none'} of {list(action.effect_names)}",
    )
