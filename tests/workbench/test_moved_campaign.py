"""A run records where its campaign folder was; readers find it when it is not there.

A campaign folder that moved is named with `--campaign DIR` (verify, validate, a batch);
a run of a bundled campaign made in another checkout finds the bundled one (same id and
digest); anything else is one line saying where the run expects its campaign. Before,
every reader stopped at `campaign: PATH: is not a campaign folder` and no command took
another folder. An edited campaign says it changed since the run started.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner, Result

from campaigns import resolve_campaign
from tests.placed import one_error_line
from workbench.cli import main


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def played(campaign: Path, runs: Path) -> Path:
    """A finished run of `campaign` under `runs`."""
    run = runs / "run"
    assert cli("run", campaign, "--out", run).exit_code == 0
    return run


def own(campaign: Path) -> Path:
    """`campaign` made an author's own (its digest no longer the bundled one's)."""
    questions = campaign / "questions.toml"
    questions.write_text(questions.read_text() + "\n# an author's note\n")
    return campaign


def test_a_moved_campaign_is_named_with_campaign_dir(campaign_copy: Path, tmp_path: Path) -> None:
    run = played(own(campaign_copy), tmp_path / "runs")
    moved = tmp_path / "moved"
    campaign_copy.rename(moved)
    refused = cli("verify", run)
    assert one_error_line(refused) == (
        f"Error: {run}: its campaign harbor-roasters was at {campaign_copy}, which is not a "
        "campaign folder now; name the folder it moved to (--campaign)"
    )
    for command in ("show", "snapshot", "ledger", "finish"):
        assert "(--campaign)" in one_error_line(cli(command, run)), command
    for command in ("show", "snapshot", "ledger"):
        assert cli(command, run, "--campaign", moved).exit_code == 0, command
    finished = one_error_line(cli("finish", run, "--campaign", moved))
    assert finished.endswith("is finished (day 180 of 180): it accepts no further command")
    played_again = cli("run", "--out", run)
    assert played_again.exit_code == 2
    assert one_error_line(played_again).endswith("moved to (the CAMPAIGN argument)")
    assert cli("verify", run, "--campaign", moved).exit_code == 0
    single = cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "v")
    assert single.exit_code == 2 and "(--campaign)" in single.output
    args = ("--campaign", moved)
    single = cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "v", *args)
    assert single.exit_code == 1 and "report:" in single.output  # unscored: no submission
    again = cli("verify-report", tmp_path / "v", "--results", run, *args)
    assert again.exit_code == 0, again.output  # evaluated again where the campaign is now
    batch = cli(
        "validate", "counterfactual", run.parent, "--all-agents", "--out", tmp_path / "b", *args
    )
    assert batch.exit_code == 1 and (tmp_path / "b" / "reports" / "run" / "report.json").exists()
    for out in (tmp_path / "v", tmp_path / "b"):  # a report, a batch: nothing is evaluated
        alone = one_error_line(cli("verify-report", out, "--campaign", tmp_path / "nowhere"))
        assert alone.endswith(
            "used only when runs are evaluated again: give --results too (--campaign)"
        )


def test_another_campaign_given_as_its_campaign_is_refused(
    campaign_copy: Path, tmp_path: Path
) -> None:
    run = played(campaign_copy, tmp_path / "runs")
    refused = cli("verify", run, "--campaign", "gelato")
    assert "was played on campaign 'harbor-roasters', not 'marina-gelato'" in one_error_line(
        refused
    )


def test_a_bundled_campaigns_run_from_another_checkout_finds_the_bundled_one(
    campaign_copy: Path, tmp_path: Path
) -> None:
    """The copy has the bundled campaign's id and digest, as another checkout's has."""
    run = played(campaign_copy, tmp_path / "runs")
    shutil.rmtree(campaign_copy)
    assert cli("verify", run).exit_code == 0
    assert cli("show", run).exit_code == 0
    assert (
        cli("validate", "counterfactual", "--results", run, "--out", tmp_path / "v").exit_code == 1
    )


def test_an_edited_campaign_says_it_changed_since_the_run_started(
    campaign_copy: Path, tmp_path: Path
) -> None:
    run = played(campaign_copy, tmp_path / "runs")
    own(campaign_copy)
    refused = cli("verify", run)
    assert (
        f"its campaign harbor-roasters at {campaign_copy} has changed since the run started"
        in one_error_line(refused, 3)
    )


def test_a_campaign_named_as_it_is_now_not_as_played_is_bad_input(
    campaign_copy: Path, tmp_path: Path
) -> None:
    """The same id, edited since: the user named the wrong folder (exit 2), not damage
    to the run (before, exit 3 `integrity failure`); a batch's --campaign serves only the
    runs that played it as it is (before, every run of its id failed integrity)."""
    run = played(own(campaign_copy), tmp_path / "runs")
    edited = tmp_path / "edited"
    shutil.copytree(campaign_copy, edited)
    own(edited)
    for args in (("verify", run), ("show", run)):
        line = one_error_line(cli(*args, "--campaign", edited))
        assert f"{edited} is campaign 'harbor-roasters' as it is now" in line
        assert line.endswith("(--campaign)")
    batch = cli(
        "validate", "counterfactual", run.parent, "--all-agents", "--out", tmp_path / "b",
        "--campaign", edited,
    )  # fmt: skip
    assert batch.exit_code == 1, batch.output  # served by its own folder: unscored, no answers
    assert (tmp_path / "b" / "reports" / "run" / "report.json").exists()


def test_a_recorded_folder_holding_another_campaign_says_so(
    campaign_copy: Path, tmp_path: Path
) -> None:
    run = played(own(campaign_copy), tmp_path / "runs")
    shutil.rmtree(campaign_copy)
    shutil.copytree(Path(resolve_campaign("gelato")), campaign_copy)
    line = one_error_line(cli("verify", run), 3)
    assert f"{campaign_copy} holds campaign 'marina-gelato', not 'harbor-roasters'" in line


def test_an_emptied_recorded_folder_still_finds_the_bundled_campaign(
    campaign_copy: Path, tmp_path: Path
) -> None:
    run = played(campaign_copy, tmp_path / "runs")
    shutil.rmtree(campaign_copy)
    campaign_copy.mkdir()
    assert cli("verify", run).exit_code == 0
