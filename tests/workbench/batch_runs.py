"""Short runs for batch-validation tests: random submissions on day 0, then finish."""

from __future__ import annotations

import random
from pathlib import Path

from workbench.play.session import PlayerSession
from workbench.runs.registration import ControlFile


def play_short(
    run_dir: Path,
    agent: str,
    seed: int,
    *,
    finish: bool = True,
    campaign: Path | None = None,
    control: ControlFile | None = None,
) -> Path:
    """A run of `agent` with a seeded random submission for every question."""
    session = PlayerSession.create(
        run_dir, campaign, control=control, agent_id=agent, autoseal=False
    )
    rng = random.Random(seed)
    for question in session.bundle.questions.values():
        if rng.random() < 0.15:
            continue
        assessment: dict[str, object] = {
            "kind": "counterfactual",
            "question": question.id,
            "value": str(rng.randint(-20_000, 20_000)),
        }
        if question.intervention.participant_selected:
            assessment["choice"] = rng.choice(sorted(question.intervention.select_from))
        result = session.submit(assessment)
        assert result.accepted, result
    if finish:
        session.finish()
    session.seal()
    return run_dir


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` by relative path, with its bytes."""
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }
