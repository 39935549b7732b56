"""VC deal-math grading speed: strict+loose gradings per second over 100,000 completions.

Run as `.venv/bin/python benchmarks/vc_speed.py`. Each grading extracts once and judges
both ways; the figure is the best and median of several timed passes on one core.
"""

from __future__ import annotations

import random
import statistics
import time
from decimal import Decimal

from graders.vc_deal import generate, grade_completion
from graders.vc_deal.batch import GradingInput, grade_inputs

COMPLETIONS = 100_000
PASSES = 5
TARGET = 150_000

STYLES = (
    "Step 1: post-money = pre-money + raise = {pre} + {raise} = {post} ($M).\n"
    "Step 2: ownership = {raise} / {post} x 100 = {x}%.\nThe answer is {x}",
    "Step 1: the post-money valuation is ${post}M.\nStep 2: {raise}/{post} = {frac}, "
    "which is {x}% of the company after the round.\nThe answer is {x}%.",
    "The new investor contributes {raise} on top of a pre-money of {pre}, so the "
    "post-money is {post}. Dividing, {raise} divided by {post} gives roughly {x} percent.",
    "Post-money: {pre} + {raise} = {post}. Share: {raise}/{post} = {frac}.\nThe answer is {comma}",
    "Pre-money {pre}, new money {raise}, post-money {post}.\nFinal answer: about {x}",
    "The investor puts in {raise} on top of {pre}, so post-money is {post}; "
    "{raise}/{post} = {frac}. Rounded to two decimals, the answer is {off}.",
    "I am not sure how to compute this without the number of shares outstanding.",
    "Let me restate the deal. The company is valued at {pre} (million) before the money comes "
    "in, and the new investor adds {raise}. After the round the company is worth {pre} + "
    "{raise} = {post}. The investor's slice is the new money over the post-money valuation: "
    "{raise} / {post} = {frac}. As a percentage that is {x}.\n\n**Final answer: {x}**",
)


def _completions(count: int) -> list[tuple[str, float]]:
    """Deterministic, varied completions (right, off by rounding, comma, no cue, none)."""
    rng = random.Random(0)
    items = generate(256, 42)
    out = []
    for index in range(count):
        item = items[index % len(items)]
        gold = Decimal(repr(item.answer))
        raise_m = Decimal(item.raise_amount) / 10**6
        post_m = Decimal(item.post_money) / 10**6
        x = f"{gold:.2f}"
        text = rng.choice(STYLES).format(
            pre=Decimal(item.pre_money) / 10**6,
            post=post_m,
            frac=f"{raise_m / post_m:.4f}",
            x=x,
            comma=x.replace(".", ","),
            off=f"{gold + Decimal(rng.randrange(-80, 81)) / 100:.2f}",
            **{"raise": raise_m},
        )
        out.append((text, item.answer))
    return out


def _rate(run: object) -> float:
    """Gradings per second of one timed pass."""
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return COMPLETIONS / (time.perf_counter() - start)


def main() -> None:
    """Time the reward path and the batch path; print best and median rates."""
    pairs = _completions(COMPLETIONS)
    inputs = [GradingInput(n, text, answer) for n, (text, answer) in enumerate(pairs, start=1)]

    def reward_path() -> None:
        for text, answer in pairs:
            grade_completion(text, answer)

    def batch_path() -> None:
        grade_inputs(inputs)

    mean_length = statistics.fmean(len(text) for text, _ in pairs)
    print(f"{COMPLETIONS:,} completions, mean {mean_length:.0f} characters, {PASSES} passes")
    for name, run in (
        ("grade_completion (reward)", reward_path),
        ("grade_inputs (batch)", batch_path),
    ):
        rates = [_rate(run) for _ in range(PASSES)]
        best, median = max(rates), statistics.median(rates)
        verdict = "meets" if best >= TARGET else "BELOW"
        print(
            f"{name:<26} best {best:>9,.0f}/s  median {median:>9,.0f}/s  "
            f"({verdict} the {TARGET:,}/s target)"
        )


if __name__ == "__main__":
    main()
