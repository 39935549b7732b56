"""The per-agent summary of a batch validation (leaderboard.csv), built with pandas.

One row per agent: runs found and evaluated, questions, questions scored, the mean score
over every scored question of the agent's runs with a bootstrap 95% interval, and
conclusions met of required. Nothing here depends on which executor ran the batch: rows
come from the written reports, in run-name order.

Agents rank by the share of their questions scored first, then by mean score: a mean over
scored questions alone would rank an agent that answers only what it is sure of above one
that answers everything (`rank_key`).

The interval is a percentile bootstrap of the mean: `BOOTSTRAP_RESAMPLES` resamples (with
replacement) of the agent's scored question scores, drawn in blocks of `BOOTSTRAP_BLOCK`
by numpy's PCG64 seeded with the first 8 bytes of SHA-256("cfwb-bootstrap\\0" + agent),
and the 2.5% and 97.5% quantiles (numpy's linear method) of the resampled means. The same
scores give the same interval on every run of the command; one score gives a zero-width
interval and none gives none. Questions are resampled independently, so the interval
ignores any correlation between the questions of one run.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_EVEN, Context, Decimal, localcontext
from fractions import Fraction
from typing import Final, Literal

import numpy as np
import pandas as pd

from graders import counterfactual as cf
from workbench.evaluation.report import CounterfactualReport

BOOTSTRAP_RESAMPLES: Final = 2000
BOOTSTRAP_BLOCK: Final = 250
CONFIDENCE: Final = 0.95
PLACES: Final = Decimal("0.000001")
"""Scores in the leaderboard are rounded to six decimal places (half to even)."""
WIDE_DIGITS: Final = 200
"""Digits of the context leaderboard figures are added and rounded in: more than any score
holds (a score is at most about 4e42, given to 28 significant digits)."""

RunStatus = Literal["evaluated", "integrity", "refused", "failed", "missing", "excluded"]
"""evaluated (report written) · integrity (failed verification, nothing scored) ·
refused (not evaluable as asked, e.g. unfinished) · failed (its task was lost) ·
missing (a registered agent with no run) · excluded (not part of the batch: another
campaign, or an agent the control file does not register)."""
INCOMPLETE: Final[frozenset[str]] = frozenset({"refused", "failed", "missing"})
"""Statuses of requested runs that got no report: the batch exits 1 (or 3)."""

RUNS_COLUMNS: Final = (
    "run",
    "agent",
    "status",
    "questions",
    "scored",
    "mean_score",
    "conclusions_met",
    "conclusions_required",
    "report",
    "reason",
)
"""runs.csv's header."""

COLUMNS: Final = (
    "rank",
    "agent",
    "runs",
    "runs_evaluated",
    "questions",
    "scored",
    "mean_score",
    "ci95_low",
    "ci95_high",
    "conclusions_met",
    "conclusions_required",
)


@dataclass(frozen=True)
class RunRow:
    """One run of a batch (a line of runs.csv) and its report when one was written."""

    run: str
    agent: str
    status: RunStatus
    report: CounterfactualReport | None = None
    reason: str = ""


def _wide() -> Context:
    """A decimal context in which no score, sum or difference of scores is rounded."""
    return Context(prec=WIDE_DIGITS, Emax=MAX_EMAX, Emin=MIN_EMIN)


def _places(value: Decimal | float) -> str:
    """`value` at six decimal places (half to even), however large: the context keeps every
    digit (a score of -4e24, from an accepted submission, overflowed the default 28)."""
    with localcontext(_wide()):
        return str(Decimal(value).quantize(PLACES, rounding=ROUND_HALF_EVEN))


def bootstrap_interval(scores: Sequence[Decimal], agent: str) -> tuple[str, str] | None:
    """The seeded percentile-bootstrap 95% interval of the mean score (module docstring).

    The resampling runs in floating point on each score's difference from the exact mean,
    which is added back in decimal: scores beyond float's 16 digits (a score of 1e11 to six
    places) lost their last digits, and equal scores gave an interval beside their mean."""
    if not scores:
        return None
    center = cf.mean(scores)
    if all(score == scores[0] for score in scores):  # every resample's mean is the mean
        return _places(center), _places(center)
    with localcontext(_wide()):
        offsets = np.array([float(s - center) for s in scores], dtype=np.float64)
    seed = int.from_bytes(hashlib.sha256(b"cfwb-bootstrap\0" + agent.encode()).digest()[:8])
    rng = np.random.Generator(np.random.PCG64(seed))
    means = np.concatenate(
        [
            offsets[rng.integers(0, len(offsets), size=(BOOTSTRAP_BLOCK, len(offsets)))].mean(
                axis=1
            )
            for _ in range(BOOTSTRAP_RESAMPLES // BOOTSTRAP_BLOCK)
        ]
    )
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    # To the mean's own precision (28 significant digits, as `cf.mean`), then six places.
    means_context = Context(prec=cf.PRECISION, Emax=MAX_EMAX, Emin=MIN_EMIN)
    with localcontext(_wide()):
        # repr: the shortest decimal that is this float, not its binary expansion's tail
        low_mean, high_mean = (center + Decimal(repr(float(q))) for q in (low, high))
    return _places(means_context.plus(low_mean)), _places(means_context.plus(high_mean))


def rank_key(agent: str, questions: int, scored: int, mean: Decimal | None) -> tuple[object, ...]:
    """Where an agent ranks: agents with a score first, a larger share of questions scored
    first, then the higher mean score, then by id (agents without a score are not ranked)."""
    share = Fraction(scored, questions) if questions else Fraction(0)
    return (mean is None, -share, -(mean or Decimal(0)), agent)


def question_scores(rows: Sequence[RunRow]) -> pd.DataFrame:
    """One row per evaluated question: agent, run, question, status, score, conclusion."""
    records = [
        {
            "agent": row.agent,
            "run": row.run,
            "question": q.id,
            "status": q.status,
            "score": q.score,
            "conclusion": None if q.conclusion is None else q.conclusion.verdict,
        }
        for row in rows
        if row.report is not None
        for q in row.report.questions
    ]
    columns = ["agent", "run", "question", "status", "score", "conclusion"]
    return pd.DataFrame.from_records(records, columns=columns)


def leaderboard(rows: Sequence[RunRow]) -> pd.DataFrame:
    """The per-agent table in rank order (`rank_key`; agents without a score last, by id)."""
    rows = [r for r in rows if r.status != "excluded" and r.agent]
    questions = question_scores(rows)
    runs = pd.DataFrame.from_records(
        [{"agent": r.agent, "status": r.status} for r in rows], columns=["agent", "status"]
    )
    table = []
    for agent in sorted(set(runs["agent"])):
        mine = questions[questions["agent"] == agent]
        statuses = runs[runs["agent"] == agent]["status"]
        scores = [Decimal(s) for s in mine["score"] if isinstance(s, str)]
        interval = bootstrap_interval(scores, agent)
        required = mine["conclusion"].notna()
        table.append(
            {
                "agent": agent,
                "runs": int((statuses != "missing").sum()),
                "runs_evaluated": int((statuses == "evaluated").sum()),
                "questions": len(mine),
                "scored": int((mine["status"] == "scored").sum()),
                "mean_score": _places(cf.mean(scores)) if scores else "",
                "ci95_low": interval[0] if interval else "",
                "ci95_high": interval[1] if interval else "",
                "conclusions_met": int((mine["conclusion"] == "met").sum()),
                "conclusions_required": int(required.sum()),
                "_mean": cf.mean(scores) if scores else None,
            }
        )
    ranked = sorted(
        table, key=lambda r: rank_key(r["agent"], r["questions"], r["scored"], r["_mean"])
    )
    for place, row in enumerate(ranked, start=1):
        row["rank"] = place if row["_mean"] is not None else ""
    frame = pd.DataFrame.from_records(ranked, columns=list(COLUMNS))
    return frame


def to_csv(frame: pd.DataFrame) -> bytes:
    """CSV bytes with `\\n` line ends (every cell is already an int or a fixed string).

    A path's bytes that are not UTF-8 (a reason naming RUNS_DIR) are written escaped, as
    `\\udcff`: they made the batch a traceback when its tables were encoded."""
    text: str = frame.to_csv(index=False, lineterminator="\n")
    return text.encode(errors="backslashreplace")


def runs_csv(rows: Sequence[RunRow]) -> bytes:
    """runs.csv: one line per run with its status, counts, report path and reason."""
    records = []
    for row in rows:
        summary = row.report.summary if row.report is not None else None
        records.append(
            {
                "run": row.run,
                "agent": row.agent,
                "status": row.status,
                "questions": "" if summary is None else summary.questions,
                "scored": "" if summary is None else summary.scored,
                "mean_score": ""
                if summary is None or summary.mean_score is None
                else _places(Decimal(summary.mean_score)),
                "conclusions_met": "" if summary is None else summary.conclusions_met,
                "conclusions_required": "" if summary is None else summary.conclusions_required,
                "report": f"reports/{row.run}/report.json" if row.report is not None else "",
                "reason": row.reason,
            }
        )
    return to_csv(pd.DataFrame.from_records(records, columns=list(RUNS_COLUMNS)))
