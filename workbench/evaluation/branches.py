"""Running one choice of a question from a branch point, offline, to its outcome day.

Each branch schedules its actions in lexicographic action-id order at the decisions
of the intervene day, accepts no later decisions, and reconstructs the outcome from
its own ledger. Its status is `ok`, `rejected` (a failed precondition: a participant
outcome) or `failed` (infrastructure or integrity). The branch verifier
(`schedule_problem`) re-checks what a branch scheduled against the registered contract:
the lexicographic order and each action's registered terms digest.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ledger.book import Book
from ledger.journal import HEADER_KIND, Journal
from ledger.seal import Seal
from sim.campaign_load import CampaignBundle
from sim.campaign_model import Action, Metric
from sim.effects import gauge_of
from sim.engine import Engine, Snapshot
from sim.metrics import metric_value, to_display
from sim.version import ENGINE_VERSION
from workbench.errors import not_interrupted
from workbench.evaluation.report import BranchRecord, BranchStatus, ScheduleStep


@dataclass
class BranchRun:
    """What one branch did: status, outcome (display units) and the evidence it leaves."""

    name: str
    choice_name: str
    actions: tuple[str, ...]
    episode_id: str
    status: BranchStatus
    reason: str | None = None
    outcome: str | None = None
    schedule: list[ScheduleStep] = field(default_factory=list)
    seal: Seal | None = None
    book: Book | None = None

    def record(self) -> BranchRecord:
        """The typed branch record (the seal file is added when it is written)."""
        return BranchRecord(
            name=self.name,
            choice=self.choice_name,
            actions=list(self.actions),
            episode_id=self.episode_id,
            status=self.status,
            reason=self.reason,
            outcome=self.outcome,
            schedule=list(self.schedule),
        )

    def fail(self, reason: str) -> None:
        """Mark the branch failed (infrastructure or integrity): no outcome, no evidence."""
        self.status = "failed"
        self.reason = reason
        self.outcome = None
        self.book = None


def episode_id(run_head: str, question_id: str, branch: str) -> str:
    """A branch's episode id: distinct per branch, never part of any draw address."""
    material = f"{run_head}\x00{question_id}\x00{branch}".encode()
    return "ep-" + hashlib.sha256(material).hexdigest()[:16]


def registered_terms(bundle: CampaignBundle, actions: Iterable[str]) -> dict[str, str]:
    """Terms digests of the registered actions, by id (unknown ids are left out)."""
    return {a: bundle.terms_digests[a] for a in actions if a in bundle.terms_digests}


def schedule_problem(run: BranchRun, terms: Mapping[str, str]) -> str | None:
    """The branch verifier: what is wrong with a branch's schedule, or None.

    An `ok` branch, or one that ran on past a rejection (it has an outcome), scheduled
    exactly its choice's actions in lexicographic order; a rejected one that stopped, a
    prefix of them. Every scheduled action's terms digest must equal the registered one
    in `terms`.
    """
    expected = sorted(run.actions)
    scheduled = [step.action for step in run.schedule]
    complete = run.status == "ok" or run.outcome is not None
    if scheduled != expected[: len(scheduled)] or (complete and scheduled != expected):
        return (
            f"branch scheduled {', '.join(scheduled) or 'nothing'}, not "
            f"{', '.join(expected) or 'nothing'} in lexicographic order"
        )
    for step in run.schedule:
        registered = terms.get(step.action)
        if registered is None or step.terms_digest != registered:
            return (
                f"terms digest of {step.action} ({step.terms_digest[:12]}) differs "
                f"from the registered terms ({(registered or 'none')[:12]})"
            )
    return None


def run_branch(
    snapshot: Snapshot,
    name: str,
    choice_name: str,
    actions: tuple[str, ...],
    outcome_day: int,
    metric: Metric,
    episode: str,
    *,
    seed_commitment: str,
    past_rejection: bool = False,
) -> BranchRun:
    """Execute one choice from `snapshot` to `outcome_day`; never raises.

    The branch seal carries the run's `seed_commitment` (it ran on the same seed). A
    rejected action ends the branch (`rejected`, no outcome) unless `past_rejection`: then
    the rest is scheduled and the branch runs on, as play would after a refused action,
    keeping `rejected` and its reason with the outcome (a question whose intervention is
    rejected by design asks what trying does).
    """
    ordered = tuple(sorted(actions))
    run = BranchRun(name, choice_name, ordered, episode, status="failed")
    try:
        engine = Engine.from_snapshot(snapshot)
        journal = Journal.in_memory()
        journal.append(
            engine.day,
            HEADER_KIND,
            "header",
            {
                "engine_version": ENGINE_VERSION,
                "episode_id": episode,
                "branch": name,
                "branch_point_day": engine.day,
            },
        )
        for action_id in ordered:
            terms = snapshot.bundle.terms_digests[action_id]
            outcome = engine.schedule(action_id)
            journal.append(engine.day, "schedule", f"{episode}-{action_id}", {"action": action_id})
            run.schedule.append(
                ScheduleStep(
                    action=action_id,
                    accepted=outcome.accepted,
                    reason=outcome.reason,
                    start_day=outcome.start_day,
                    terms_digest=terms,
                )
            )
            if not outcome.accepted and run.reason is None:
                run.reason = outcome.reason
            if not outcome.accepted and not past_rejection:
                run.status = "rejected"
                return run
        days = outcome_day - engine.day
        if days > 0:
            journal.append(engine.day, "advance", f"{episode}-advance", {"days": days})
            engine.run_to(outcome_day)
        run.book = engine.book
        run.outcome = str(to_display(metric, metric_value(engine.book, metric, outcome_day)))
        run.seal = Seal(
            campaign_id=snapshot.bundle.id,
            campaign_digest=snapshot.bundle.digest,
            identities={"episode_id": episode, "branch": name},
            seed_commitment=seed_commitment,
            journal_head=journal.head,
            journal_entries=len(journal),
            ledger_digest=engine.book.digest(),
            final_day=engine.day,
            engine_version=ENGINE_VERSION,
        )
        run.status = "rejected" if run.reason is not None else "ok"
    except Exception as exc:  # an infrastructure failure is recorded, never raised
        not_interrupted(exc)  # a Ctrl+C a library wrapped is no branch failure
        run.status = "failed"
        run.reason = f"{type(exc).__name__}: {exc}"
    return run


def flow_net_assets(book: Book, action_id: str, flow: str, day: int) -> int:
    """Net-asset change (cents) of postings tagged with an action and flow, up to `day`."""
    total = 0
    units = book.accounts
    for txn in book.transactions:
        if txn.day > day or txn.tag("action") != action_id or txn.tag("flow") != flow:
            continue
        for account, amount in txn.postings:
            if units[account] == "USD" and account.startswith(("Assets", "Liabilities")):
                total += amount
    return total


def effect_gauges(book: Book, action: Action, day: int) -> dict[str, int]:
    """Each declared effect's gauge balance at the close of `day`."""
    return {effect.kind: book.balance(gauge_of(effect), day) for effect in action.effects}


def component_evidence(book: Book, action: Action, component: str, day: int) -> int:
    """A contract component as the ledger shows it (cents): financing flows' net-asset
    change, or the net-asset decrease of irreversible work, by `day`."""
    if component == "financing_net_assets":
        return flow_net_assets(book, action.id, "financing", day)
    return -flow_net_assets(book, action.id, "irreversible", day)


def supported_effects(baseline: Book, intervention: Book, action: Action, day: int) -> list[str]:
    """Declared effects whose gauges differ between the two branches at the close of `day`."""
    base = effect_gauges(baseline, action, day)
    inter = effect_gauges(intervention, action, day)
    return sorted(kind for kind in base if base[kind] != inter[kind])
