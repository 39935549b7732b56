"""VC deal-math grading speed: strict+loose gradings per second over 100,000 completions.

Run as `.venv/bin/python benchmarks/vc_speed.py`. Each grading extracts once and judges
both ways; the figure is the best and median of several timed passes on one core. The
reference, timed in the same run and interleaved pass by pass, is a plain transcription of
the study grader's observed behaviour (regex scans, `float()`, default-context `Decimal`);
its verdicts must equal ours on every completion, and the ratio to it is robust to load.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

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


_STUDY_NUMBER = r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
_STUDY_CUED = re.compile(
    r"(?:final answer|answer|ownership(?:\s+percentage)?|result|equal|equals|=)"
    r"\s*(?:(?:is|are|was|of|to|:|=)\s*)?"
    r"(?:(?:about|approximately|roughly|around|nearly|~)\s*)?"
    rf"({_STUDY_NUMBER})",
    re.IGNORECASE,
)


def _study_normalise(token: str) -> str | None:
    """The study's token normaliser, step by step."""
    text = token.strip().rstrip(".,")
    if text.startswith("+"):
        text = text[1:]
    if "," in text and "." in text:
        text = text.replace(",", "")
    elif "," in text:
        head, _, tail = text.partition(",")
        one = text.count(",") == 1 and head.isdigit() and tail.isdigit()
        text = f"{head}.{tail}" if one and len(tail) in (1, 2) else text.replace(",", "")
    try:
        float(text)
    except ValueError:
        return None
    return text


def _study_cents(text: str) -> Decimal | None:
    """Cents half-up at the default precision, or None where quantize fails."""
    try:
        return Decimal(text).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None


def study_grade(text: str, answer: float) -> tuple[float, float, float]:
    """(strict, loose, format) by the plain transcription: the reference being timed."""
    cued = _STUDY_CUED.findall(text)
    chosen = _study_normalise(cued[-1]) if cued else None
    if chosen is None:
        for token in reversed(re.findall(_STUDY_NUMBER, text)):
            if (chosen := _study_normalise(token)) is not None:
                break
    if chosen is None:
        return 0.0, 0.0, 0.0
    gold = _study_cents(repr(answer))
    strict = _study_cents(chosen)
    loose = _study_cents(repr(float(chosen)))
    return (
        float(strict is not None and strict == gold),
        float(loose is not None and gold is not None and abs(loose - gold) <= Decimal("0.50")),
        1.0,
    )


def _seconds(run: object) -> float:
    """Wall time of one timed pass."""
    start = time.perf_counter()
    run()  # type: ignore[operator]
    return time.perf_counter() - start


def main() -> None:
    """Time the reward path, the batch path and the reference, interleaved; print rates."""
    pairs = _completions(COMPLETIONS)
    inputs = [GradingInput(n, text, answer) for n, (text, answer) in enumerate(pairs, start=1)]
    ours = [grade_completion(text, answer) for text, answer in pairs]
    differ = sum(
        (found.strict_correct, found.loose_correct, found.format_valid_number)
        != study_grade(text, answer)
        for found, (text, answer) in zip(ours, pairs, strict=True)
    )

    def reward_path() -> None:
        for text, answer in pairs:
            grade_completion(text, answer)

    def batch_path() -> None:
        grade_inputs(inputs)

    def reference() -> None:
        for text, answer in pairs:
            study_grade(text, answer)

    mean_length = statistics.fmean(len(text) for text, _ in pairs)
    print(f"{COMPLETIONS:,} completions, mean {mean_length:.0f} characters, {PASSES} passes")
    print(f"verdicts differing from the plain study transcription: {differ}")
    runs = {"grade_completion (reward)": reward_path, "grade_inputs (batch)": batch_path}
    times: dict[str, list[float]] = {name: [] for name in (*runs, "reference")}
    for _ in range(PASSES):
        times["reference"].append(_seconds(reference))
        for name, run in runs.items():
            times[name].append(_seconds(run))
    reference_median = statistics.median(times["reference"])
    print(f"{'plain transcription':<26} median {COMPLETIONS / reference_median:>9,.0f}/s")
    for name in runs:
        best, median = COMPLETIONS / min(times[name]), COMPLETIONS / statistics.median(times[name])
        ratios = [ref / mine for ref, mine in zip(times["reference"], times[name], strict=True)]
        verdict = "meets" if best >= TARGET else "BELOW"
        print(
            f"{name:<26} best {best:>9,.0f}/s  median {median:>9,.0f}/s  "
            f"{statistics.median(ratios):.2f}x the transcription  "
            f"({verdict} the {TARGET:,}/s target)"
        )


if __name__ == "__main__":
    main()
