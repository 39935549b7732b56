"""End to end: play with submissions, validate offline, check the report and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.play.session import PlayerSession


def _validate(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["validate", "counterfactual", *args])
    return result.exit_code, result.output


def test_demo_run_validates_with_every_field(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "checks"
    code, output = _validate("--results", str(demo_run), "--out", str(out))
    assert code == 0, output
    report = json.loads((out / "report.json").read_text())
    assert report["schema"] == "cfwb.counterfactual-report/2"
    assert "not identified real-world treatment effects" in report["disclaimer"]
    assert report["factual"]["verification"]["ok"] is True
    assert set(report["registration"]) >= {
        "campaign_id",
        "campaign_digest",
        "agent_id",
        "seed_commitment",
    }
    assert report["summary"]["all_scored"] is True
    assert report["summary"]["conclusions_met"] == report["summary"]["conclusions_required"] == 3
    q = next(q for q in report["questions"] if q["id"] == "q_bank_loan")
    base, inter = q["branches"]["baseline"], q["branches"]["intervention"]
    assert base["status"] == inter["status"] == "ok"
    assert base["episode_id"] != inter["episode_id"]
    effect = Decimal(inter["outcome"]) - Decimal(base["outcome"])
    assert Decimal(q["effect"]) == effect
    assert Decimal(q["loss"]) == ((Decimal("-1300") - effect) / Decimal("500")) ** 2
    assert Decimal(q["score"]) == -Decimal(q["loss"])
    assert q["conclusion"]["expected"] == "-300.00" and q["conclusion"]["verdict"] == "met"
    assert (
        subprocess.run(
            ["sha256sum", "-c", "SHA256SUMS"], cwd=out, capture_output=True, check=False
        ).returncode
        == 0
    )
    assert sorted(p.name for p in demo_run.iterdir()) == [
        "journal.jsonl",
        "run.json",
        "run.lock",
        "seal.json",
        "store.sqlite",
    ]


def test_skipped_question_is_unsubmitted_and_unscored(tmp_path: Path) -> None:
    run = tmp_path / "run"
    session = PlayerSession.create(run)
    session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
    session.advance(25)
    session.finish()
    code, _ = _validate(
        "--results",
        str(run),
        "--out",
        str(tmp_path / "o"),
        "--question",
        "q_bank_loan",
        "--question",
        "q_spring_campaign",
    )
    assert code == 1
    report = json.loads((tmp_path / "o" / "report.json").read_text())
    statuses = {q["id"]: q["status"] for q in report["questions"]}
    assert statuses == {"q_bank_loan": "scored", "q_spring_campaign": "unsubmitted"}


def test_rejected_participant_choice_gets_no_invented_score(tmp_path: Path) -> None:
    run = tmp_path / "run"
    session = PlayerSession.create(run)
    session.submit({"question": "q_pick_a_lever", "value": "100", "choice": "switch_to_highland"})
    session.schedule("switch_to_highland")
    session.advance(91)
    session.finish()
    code, _ = _validate(
        "--results", str(run), "--out", str(tmp_path / "o"), "--question", "q_pick_a_lever"
    )
    assert code == 1
    q = json.loads((tmp_path / "o" / "report.json").read_text())["questions"][0]
    assert q["branches"]["intervention"]["status"] == "rejected"
    assert "already scheduled" in q["branches"]["intervention"]["reason"]
    assert q["status"] == "unresolved" and q["score"] is None and q["effect"] is None


def test_tampered_journal_is_an_integrity_failure(demo_run: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    journal = run / "journal.jsonl"
    data = bytearray(journal.read_bytes())
    data[data.index(b'"value":"-1300"') + 10] = ord("9")
    journal.write_bytes(bytes(data))
    code, output = _validate("--results", str(run), "--out", str(tmp_path / "o"))
    assert code == 3
    assert "integrity" in output
    assert not (tmp_path / "o" / "report.json").exists()


def test_existing_output_and_results_are_never_overwritten(demo_run: Path, tmp_path: Path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    code, output = _validate("--results", str(demo_run), "--out", str(out))
    assert code == 2 and "not empty" in output
    code, _ = _validate("--results", str(demo_run), "--out", str(demo_run / "inside"))
    assert code == 2


def test_workers_do_not_change_the_report(demo_run: Path, tmp_path: Path) -> None:
    reports = []
    for workers in ("1", "2"):
        out = tmp_path / f"w{workers}"
        assert (
            _validate("--results", str(demo_run), "--out", str(out), "--workers", workers)[0] == 0
        )
        reports.append((out / "report.json").read_bytes())
    assert reports[0] == reports[1]


def test_private_campaign_needs_its_control_file(campaign_copy: Path, tmp_path: Path) -> None:
    text = (campaign_copy / "campaign.toml").read_text()
    text = text.replace('visibility = "development"', 'visibility = "private"')
    (campaign_copy / "campaign.toml").write_text(text.replace("development_seed = 20261130\n", ""))
    control = tmp_path / "private" / "control.json"
    control.parent.mkdir()
    made = CliRunner().invoke(
        main, ["control", "new", str(campaign_copy), "--agent", "agent-7", "--out", str(control)]
    )
    assert made.exit_code == 0, made.output
    runs = tmp_path / "runs"
    runner = CliRunner()
    played = runner.invoke(
        main,
        [
            "run",
            str(campaign_copy),
            "--out",
            str(runs / "a7"),
            "--control",
            str(control),
            "--agent",
            "agent-7",
        ],
    )
    assert played.exit_code == 0, played.output
    seed = json.loads(control.read_text())["seed"]
    assert all(seed not in p.read_bytes().decode("latin-1") for p in (runs / "a7").iterdir())
    code, output = _validate("--results", str(runs / "a7"), "--out", str(tmp_path / "o1"))
    assert code == 2 and "control file" in output
    code, output = _validate(
        str(runs), "--control", str(control), "--agent", "agent-9", "--out", str(tmp_path / "o2")
    )
    assert code == 2 and "agent-9" in output
    code, output = _validate(
        str(runs), "--control", str(control), "--agent", "agent-7", "--out", str(tmp_path / "o3")
    )
    assert code == 1, output  # valid, but nothing was submitted
    assert (tmp_path / "o3" / "report.json").exists()


def test_snapshot_and_session_expose_no_answers_or_branch_controls(
    demo_run: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(main, ["snapshot", str(demo_run)])
    assert result.exit_code == 0
    out = tmp_path / "o"
    _validate("--results", str(demo_run), "--out", str(out))
    report = json.loads((out / "report.json").read_text())
    text = result.output
    assert "20261130" not in text and "seed" not in text
    for q in report["questions"]:
        for branch in q["branches"].values():
            assert f'"{branch["outcome"]}"' not in text
    public = [name for name in dir(PlayerSession) if not name.startswith("_")]
    for forbidden in ("fork", "rewind", "branch", "snapshot", "oracle", "counterfactual"):
        assert not any(forbidden in name for name in public), forbidden


def test_invalid_submission_changes_nothing(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    before = session.journal_head
    for bad in (
        {"question": "nope", "value": "1"},
        {"question": "q_bank_loan", "value": "x"},
        {"question": "q_bank_loan", "value": "1", "conclusion": ["loan"]},
        {"question": "q_bank_loan", "value": "1", "conclusion": "1e30"},
        {"question": "q_bank_loan", "value": "1e1000000", "conclusion": "-300.00"},
        {"question": "q_pick_a_lever", "value": "1", "choice": "bank_loan"},
    ):
        result = session.submit(bad)
        assert result.errors and not result.accepted
    assert session.journal_head == before


def test_author_check_passes_on_the_default_campaign() -> None:
    result = CliRunner().invoke(main, ["check", "--json"])
    assert result.exit_code == 0, result.output[-2000:]
    assert '"ok": true' in result.output


def test_an_evaluation_in_this_process_leaves_the_collector_as_it_found_it(
    demo_run: Path, tmp_path: Path
) -> None:
    """The collector is paused for an in-process evaluation and restored after it, whether
    the evaluation wrote its report or was refused half way (an unfinished run)."""
    import gc

    from workbench.errors import UserError
    from workbench.evaluation.evaluator import run_evaluation
    from workbench.evaluation.executors import ExecutorSpec

    assert ExecutorSpec().in_process and ExecutorSpec("local", workers=1).in_process
    assert not ExecutorSpec("local", workers=2).in_process
    assert not ExecutorSpec("dask", workers=1).in_process
    seen: list[bool] = []
    outcome = run_evaluation(
        demo_run, tmp_path / "o", progress=lambda *_: seen.append(gc.isenabled())
    )
    assert outcome.exit_code == 0 and seen and not any(seen)
    assert gc.isenabled()
    unfinished = tmp_path / "unfinished"
    PlayerSession.create(unfinished)
    with pytest.raises(UserError, match="only finished runs are evaluated"):
        run_evaluation(unfinished, tmp_path / "refused")
    assert gc.isenabled()
    gc.disable()
    try:
        run_evaluation(demo_run, tmp_path / "o2")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_edited_campaign_gets_its_own_contracts_in_the_same_process(
    campaign_copy: Path, tmp_path: Path
) -> None:
    """Contracts are reused per campaign content: after evaluating a run of one version, a
    run of an edited version (same question id, new title and scale) reports the new terms,
    and the first version's run still reports its own."""
    from workbench.evaluation.evaluator import run_evaluation
    from workbench.evaluation.report import contract_digest

    def evaluate(campaign: Path, name: str) -> dict[str, object]:
        session = PlayerSession.create(tmp_path / f"run-{name}", campaign)
        session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
        session.finish()
        outcome = run_evaluation(tmp_path / f"run-{name}", tmp_path / f"out-{name}")
        entry = next(q for q in outcome.report.questions if q.id == "q_bank_loan")
        assert entry.contract_digest == contract_digest(entry.contract)
        return {"title": entry.contract.title, "scale": entry.contract.scale}

    original = evaluate(campaign_copy, "a")
    edited = tmp_path / "edited"
    shutil.copytree(campaign_copy, edited)
    questions = edited / "questions.toml"
    text = questions.read_text()
    questions.write_text(
        text.replace(
            'title = "How does a $25,000 bank loan', 'title = "Edited: a $25,000 loan', 1
        ).replace('scale = "500"', 'scale = "750"', 1)
    )
    changed = evaluate(edited, "b")
    assert str(changed["title"]).startswith("Edited: a $25,000 loan")
    assert changed["scale"] == "750" and original["scale"] == "500"
    assert evaluate(campaign_copy, "c") == original
