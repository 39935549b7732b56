"""Offline evaluator speed against the branch simulation it must do, for 6, 60 and 600 questions.

For each size, builds temporary campaigns with that many generated questions over the
default world (at most `MAX_LIST` per campaign, so 600 questions are three runs of 200),
plays a run of each that answers all its questions, validates them with one worker, and
times the pure simulation the evaluation cannot avoid in the same process: replaying each
factual run to its branch points (snapshots) and running both branches of every question
from its snapshot to the outcome day. Each round times the two back to back, so both see
the same machine. Prints the best time of each, the median of the rounds' ratios
(target ≤ 1.5×; small sizes run more rounds), for the largest size the evaluator with two
workers, and last what the evaluator adds to its simulation, split into a cost per
evaluation and a cost per question (fitted over the three sizes). For the smallest size,
where the fixed costs weigh most, each round also times the evaluator writing its output
to a memory file system (/dev/shm, where there is one): the difference is what making the
output durable on this machine's disk costs.

As in batch validation, a process parses a campaign's files once per content (the
evaluator still reads and digests them every time): the rounds run warm, and the cost of
the one cold parse a single `workbench validate` pays is printed apart.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from campaigns import DEFAULT_CAMPAIGN
from sim import campaign_load
from sim.campaign_load import CampaignBundle, load_campaign
from sim.campaign_model import MAX_LIST
from sim.engine import Engine
from sim.metrics import metric_value
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession

SIZES = (6, 60, 600)
REPEATS = 7
ROUNDS_QUESTIONS = 300
"""Small sizes run more rounds (300 questions' worth, at least REPEATS): a 6-question round
lasts 45 ms, so five of them gave a median ratio that moved by ±0.05 from run to run."""
MEMORY_FS = Path("/dev/shm")
"""A memory file system: an evaluation written there waits for no disk."""
CHOICES = [
    "spring_campaign",
    "raise_price",
    "bank_loan",
    "hire_roaster",
    "switch_to_highland",
    "loyalty_program",
    "lower_price",
    "hire_sales_rep",
]


def build_campaign(folder: Path, questions: range) -> None:
    """Copy the default campaign and replace its questions with generated ones."""
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    (folder / "reference.jsonl").unlink(missing_ok=True)
    blocks = []
    for i in questions:
        day = 10 + (i * 7) % 120
        blocks.append(
            f'[[questions]]\nid = "q{i:03d}"\ntitle = "Generated question {i}"\n'
            f'metric = "net_assets"\nscale = "1000"\nintervene_on_day = {day}\n'
            f"deadline_day = {day}\noutcome_day = {day + 40}\n"
            'baseline = { name = "Nothing", actions = [] }\n'
            f'intervention = {{ name = "Act", actions = ["{CHOICES[i % len(CHOICES)]}"] }}\n'
        )
    (folder / "questions.toml").write_text("\n".join(blocks))


def pure_simulation(bundle: CampaignBundle, seed: int) -> None:
    """The factual run with a snapshot at every branch point, then every branch, engine only."""
    questions = list(bundle.questions.values())
    engine = Engine(bundle, seed)
    snapshots = {}
    for day in sorted({q.intervene_on_day for q in questions}):
        engine.run_to(day)
        snapshots[day] = engine.snapshot()
    engine.run_to(bundle.horizon)
    for q in questions:
        metric = bundle.metrics[q.metric]
        for actions in (q.baseline.actions, q.intervention.actions):
            branch = Engine.from_snapshot(snapshots[q.intervene_on_day])
            if all(branch.schedule(a).accepted for a in sorted(actions)):
                branch.run_to(q.outcome_day)
                metric_value(branch.book, metric, q.outcome_day)


def timed(fn: Callable[[], object]) -> float:
    """Wall time of one call of fn(), in seconds."""
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def play(root: Path, questions: range) -> tuple[Path, CampaignBundle]:
    """A finished run that answers every generated question of `questions`, and its campaign."""
    campaign = root / f"campaign-{questions.start}-{questions.stop}"
    build_campaign(campaign, questions)
    run = root / f"run-{questions.start}-{questions.stop}"
    session = PlayerSession.create(run, campaign, autoseal=False)
    for i in questions:
        session.submit({"question": f"q{i:03d}", "value": "0"})
    session.run_to_horizon()
    session.seal()
    return run, load_campaign(campaign)


def memory_scratch() -> Path | None:
    """A new directory on the memory file system, or None where there is none to write."""
    try:
        return Path(tempfile.mkdtemp(prefix="validate-speed-", dir=MEMORY_FS))
    except OSError:
        return None


def measure(root: Path, questions: int, memory: Path | None = None) -> tuple[int, float, float]:
    """Time the evaluator and the pure simulation for one number of questions; with
    `memory`, also the evaluator writing there (same rounds).

    Returns how many runs (evaluations) it took and the best evaluator and simulation times.
    """
    parts = [
        play(root, range(start, min(start + MAX_LIST, questions)))
        for start in range(0, questions, MAX_LIST)
    ]
    outs = iter(range(10_000))

    def evaluate(workers: int = 1, into: Path = root) -> None:
        for run, _ in parts:
            run_evaluation(run, into / f"out-{questions}-{next(outs)}", workers=workers)

    def simulate() -> None:
        for _, bundle in parts:
            pure_simulation(bundle, bundle.campaign.development_seed or 0)

    evaluate()  # warm the per-seed draw cache and imports
    count = max(REPEATS, ROUNDS_QUESTIONS // questions)
    rounds = [
        (
            timed(simulate),
            timed(evaluate),
            timed(lambda: evaluate(into=memory)) if memory is not None else 0.0,
        )
        for _ in range(count)
    ]
    simulation = min(sim for sim, _, _ in rounds)
    evaluator = min(evaluation for _, evaluation, _ in rounds)
    ratio = statistics.median(evaluation / sim for sim, evaluation, _ in rounds)
    runs = f" in {len(parts)} runs" if len(parts) > 1 else ""
    print(
        f"validate {questions} questions{runs}, 1 worker: evaluator {evaluator:.3f} s "
        f"({questions / evaluator:,.0f} questions/s), pure branch simulation "
        f"{simulation:.3f} s, ratio {ratio:.2f}x (target <= 1.5x)"
    )
    if memory is not None:
        in_memory = statistics.median(ev / sim for sim, _, ev in rounds)
        print(
            f"validate {questions} questions{runs}, output on the memory file system "
            f"{MEMORY_FS} (no disk waits): ratio {in_memory:.2f}x, so durable output on "
            f"this disk adds {ratio - in_memory:+.2f}"
        )
    if questions == max(SIZES):
        two = min(timed(lambda: evaluate(2)) for _ in range(REPEATS))
        print(
            f"validate {questions} questions{runs}, 2 workers: {two:.3f} s "
            f"({questions / two:,.0f} questions/s)"
        )
    return len(parts), evaluator, simulation


def cost_fit(sizes: list[tuple[int, int, float]]) -> tuple[float, float]:
    """A time split into a cost per evaluation and a cost per question: the least-squares
    fit over the sizes, each given as (questions, evaluations, seconds), of relative errors
    (each size weighs by its questions, so the small one still pins the cost per evaluation)."""
    weights = np.array([1 / questions for questions, _, _ in sizes])
    design = np.array([[runs, questions] for questions, runs, _ in sizes], dtype=float)
    seconds = np.array([time for _, _, time in sizes])
    (per_run, per_question), *_ = np.linalg.lstsq(
        design * weights[:, None], seconds * weights, rcond=None
    )
    return float(per_run), float(per_question)


def cold_parse() -> None:
    """What parsing the default campaign costs the first time a process loads it."""

    def parse() -> None:
        campaign_load._parse.cache_clear()
        load_campaign(DEFAULT_CAMPAIGN)

    cost = min(timed(parse) for _ in range(REPEATS))
    print(f"campaign parse, once per process and campaign: {cost * 1000:.1f} ms")


def main() -> None:
    cold_parse()
    memory = memory_scratch()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sizes = [
                (questions, *measure(Path(tmp), questions, memory if i == 0 else None))
                for i, questions in enumerate(SIZES)
            ]
    finally:
        if memory is not None:
            shutil.rmtree(memory, ignore_errors=True)
    if memory is None:
        print(f"no writable memory file system at {MEMORY_FS}: durable output not split out")
    sim_run, sim_question = cost_fit([(q, runs, sim) for q, runs, _, sim in sizes])
    add_run, add_question = cost_fit([(q, runs, ev - sim) for q, runs, ev, sim in sizes])
    print(
        f"least squares over the sizes: the simulation costs {sim_run * 1000:.2f} ms per "
        f"evaluation (the factual replay) + {sim_question * 1000:.3f} ms per question; the "
        f"evaluator adds {add_run * 1000:.2f} ms + {add_question * 1000:.3f} ms per question"
    )


if __name__ == "__main__":
    main()
