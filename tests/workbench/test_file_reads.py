"""Evaluating or resuming a run reads each of its files once (an audit hook counts opens)."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import load_campaign
from workbench.evaluation.evaluator import run_evaluation

_counting: list[Counter[str]] = []
CAMPAIGN_FILES = ("campaign.toml", "actions.toml", "metrics.toml", "questions.toml")


def _count_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _counting and isinstance(args[0], str | Path):
        _counting[-1][Path(args[0]).name] += 1


sys.addaudithook(_count_opens)


def _opens(call: Callable[[], object]) -> Counter[str]:
    opened: Counter[str] = Counter()
    _counting.append(opened)
    try:
        call()
    finally:
        _counting.pop()
    return opened


def test_one_evaluation_loads_the_campaign_once_and_reads_each_run_file_once(
    demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    one_load = _opens(lambda: load_campaign(DEFAULT_CAMPAIGN))
    opened = _opens(lambda: run_evaluation(run, tmp_path / "out", questions=["q_bank_loan"]))
    assert (tmp_path / "out" / "report.json").exists()
    for name in CAMPAIGN_FILES:
        assert opened[name] == one_load[name] >= 1, (name, opened)
    for name in ("run.json", "journal.jsonl", "seal.json"):
        assert opened[name] == 1, (name, opened)


def test_resuming_a_run_reads_run_json_and_the_journal_once(demo_run: Path) -> None:
    from workbench.play.session import PlayerSession

    opened = _opens(lambda: PlayerSession.resume(demo_run, autoseal=False))
    assert opened["run.json"] == opened["journal.jsonl"] == 1, opened
