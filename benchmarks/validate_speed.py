"""Offline evaluator speed: questions per second for a run with 100 questions.

Builds a temporary campaign with 100 generated questions over the default world,
plays a run that answers all of them, then validates it with 1 and 2 workers.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession

QUESTIONS = 100
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


def build_campaign(folder: Path) -> None:
    """Copy the default campaign and replace its questions with 100 generated ones."""
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    (folder / "reference.jsonl").unlink(missing_ok=True)
    blocks = []
    for i in range(QUESTIONS):
        day = 10 + (i * 7) % 120
        blocks.append(
            f'[[questions]]\nid = "q{i:03d}"\ntitle = "Generated question {i}"\n'
            f'metric = "net_assets"\nscale = "1000"\nintervene_on_day = {day}\n'
            f"deadline_day = {day}\noutcome_day = {day + 40}\n"
            'baseline = { name = "Nothing", actions = [] }\n'
            f'intervention = {{ name = "Act", actions = ["{CHOICES[i % len(CHOICES)]}"] }}\n'
        )
    (folder / "questions.toml").write_text("\n".join(blocks))


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        build_campaign(root / "campaign")
        session = PlayerSession.create(root / "run", root / "campaign", autoseal=False)
        for i in range(QUESTIONS):
            session.submit({"question": f"q{i:03d}", "value": "0"})
        session.run_to_horizon()
        session.seal()
        for workers in (1, 2):
            start = time.perf_counter()
            outcome = run_evaluation(root / "run", root / f"out{workers}", workers=workers)
            seconds = time.perf_counter() - start
            summary = outcome.report.summary
            assert summary is not None
            print(
                f"validate {QUESTIONS} questions with {workers} worker(s): {seconds:.2f} s = "
                f"{QUESTIONS / seconds:.1f} questions/s ({summary.scored} scored, "
                f"{summary.unresolved} unresolved: rejected branches)"
            )


if __name__ == "__main__":
    main()
