"""Author mode: campaign check findings, validation of finished runs only, the report browser."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner
from textual.content import Content
from textual.geometry import Region
from textual.message import Message

from campaigns import CAMPAIGNS_DIR, DEFAULT_CAMPAIGN
from ledger.canonical import dumps
from sim.campaign_load import load_campaign
from tests.tui.conftest import SIZE, edited_validation, go, shown_report, wait_for
from tests.tui.text import screen_text
from workbench.authoring.seeds import DEFAULT_SEEDS
from workbench.cli import main
from workbench.evaluation.evaluator import run_evaluation
from workbench.play.session import PlayerSession
from workbench.tui.app import AuthorApp
from workbench.tui.messages import JobProgress
from workbench.tui.screens.author.check import CheckScreen
from workbench.tui.screens.author.reports import ReportsScreen
from workbench.tui.screens.author.runs import RunsScreen
from workbench.tui.widgets.progress import JobProgress as JobBar


@pytest.fixture
def runs_root(demo_run: Path, tmp_path: Path) -> Path:
    """A folder with a finished run (a demo copy) and one still on day 3."""
    root = tmp_path / "runs"
    root.mkdir()
    shutil.copytree(demo_run, root / "finished")
    with PlayerSession.create(root / "live") as live:
        live.advance(3)
    return root


async def test_check_findings_show_at_once(tmp_path: Path) -> None:
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: screen.ok is not None, "check finished")
        assert screen.table.row_count == len(screen.findings) > 0
        assert "Check of" in screen_text(screen) and not screen.query_one(JobBar).display
        counts = f"0 error(s), 0 warning(s), {len(screen.findings)} info"
        assert counts in screen_text(screen)
        screen.table.move_cursor(row=1)
        await pilot.pause()
        assert screen.findings[1].message in screen_text(screen)


async def test_the_check_screen_finds_what_the_cli_finds(tmp_path: Path) -> None:
    """A warning that only the other seeds reveal (the winter social campaign judged on cash
    at day 50 is mostly weather): `workbench check` and the screen report the same findings,
    and the screen says the admission gate, `check --strict`, fails."""
    campaign = tmp_path / "noisy"
    shutil.copytree(CAMPAIGNS_DIR / "gelato", campaign)
    questions = campaign / "questions.toml"
    text = questions.read_text()
    assert text.count("outcome_day = 70\n") == 1
    questions.write_text(text.replace("outcome_day = 70\n", "outcome_day = 50\n"))
    cli = CliRunner().invoke(main, ["check", str(campaign), "--json"])
    assert cli.exit_code == 0, cli.output[-3000:]
    document = orjson.loads(cli.stdout)
    assert document["passed"] and document["seeds"] == DEFAULT_SEEDS
    strict = CliRunner().invoke(main, ["check", str(campaign), "--strict"])
    assert strict.exit_code == 1
    app = AuthorApp(campaign, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: screen.ok is not None, "check finished")
        assert [f.model_dump(mode="json") for f in screen.findings] == document["findings"]
        (warning,) = [i for i, f in enumerate(screen.findings) if f.severity == "warning"]
        assert screen.findings[warning].kind == "spread"
        shown = screen_text(screen)
        assert "warnings: fails check --strict · 0 error(s), 1 warning(s)" in shown
        assert f"{document['seeds']} other seed(s)" in shown
        screen.table.move_cursor(row=warning)
        await pilot.pause()
        assert "measures noise" in screen_text(screen)


async def test_check_of_a_missing_campaign_says_why(tmp_path: Path) -> None:
    app = AuthorApp(tmp_path / "nope", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: "Check failed" in screen_text(app.screen), "failure")


async def test_a_failed_check_leaves_no_other_campaigns_findings(tmp_path: Path) -> None:
    """Before: checking a broken campaign after the default one said `Check failed` above
    the default campaign's findings, as if they were the broken one's."""
    broken = tmp_path / "broken"
    shutil.copytree(DEFAULT_CAMPAIGN, broken)
    questions = broken / "questions.toml"
    questions.write_text(
        questions.read_text().replace('["spring_campaign"]', '["spring_campaing"]')
    )
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: screen.ok is not None, "check finished")
        assert screen.table.row_count > 0
        screen.campaign.value = str(broken)
        screen.action_check()
        await wait_for(pilot, lambda: "Check failed" in screen_text(screen), "failure")
        assert screen.table.row_count == 0 and screen.findings == ()
        assert "spring_campaing" in screen_text(screen)


async def test_unfinished_run_is_refused_and_finished_run_validates(runs_root: Path) -> None:
    progress: list[JobProgress] = []

    def hook(message: Message) -> None:
        seen = any(p is message for p in progress)
        if isinstance(message, JobProgress) and message.job == "validate" and not seen:
            progress.append(message)

    app = AuthorApp(DEFAULT_CAMPAIGN, runs_root)
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await go(pilot, "2")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: screen.table.row_count == 2, "runs listed")
        text = screen_text(screen)
        assert "finished" in text and "day 3 of 180" in text
        screen.table.move_cursor(row=screen.table.get_row_index(str(runs_root / "live")))
        await pilot.press("v")
        await wait_for(pilot, lambda: "Not validated" in screen_text(screen), "refusal")
        assert "is on day 3 of 180: it is not finished" in screen_text(screen)
        assert not (runs_root / "live-validation").exists()
        screen.table.move_cursor(row=screen.table.get_row_index(str(runs_root / "finished")))
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Validated: exit" in screen_text(screen), "validated")
        assert (runs_root / "finished-validation" / "report.json").is_file()
        questions = len(
            PlayerSession.resume(runs_root / "finished", read_only=True).bundle.questions
        )
        assert [p.done for p in progress] == list(range(1, questions + 1))
        assert not screen.progress.display

        await go(pilot, "3")
        reports = app.screen
        assert isinstance(reports, ReportsScreen)
        await wait_for(pilot, lambda: reports.questions.row_count == questions, "report")
        text = screen_text(reports)
        assert "finished-validation" in text and "baseline" in text and "intervention" in text
        reports.questions.move_cursor(row=1)
        await pilot.pause()
        second = reports.questions.row_text(1)[0]
        assert second in str(reports.detail.render())


async def test_author_screens_are_author_only(tmp_path: Path) -> None:
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await pilot.pause()
        text = screen_text(app.screen)
        assert "Check" in text and "Runs" in text and "Reports" in text
        assert "Dashboard" not in text


def test_author_command_is_listed() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert "author" in result.output
    result = CliRunner().invoke(main, ["author", "--help"])
    assert result.exit_code == 0 and "--control" in result.output and "--runs" in result.output


async def test_other_peoples_names_show_as_they_are(demo_run: Path, tmp_path: Path) -> None:
    """Run directories and run.json fields come from whoever made the runs: markup in them
    is text (a campaign id `[/]` closed the app; `[@click=…]` would have been a link)."""
    root = tmp_path / "runs"
    root.mkdir()
    forged = root / "forged"
    shutil.copytree(demo_run, forged)
    registration = orjson.loads((forged / "run.json").read_bytes())
    registration["campaign_id"] = "[/]"
    (forged / "run.json").write_bytes(dumps(registration) + b"\n")
    shutil.copytree(demo_run, root / "[@click=app.quit]run")
    app = AuthorApp(DEFAULT_CAMPAIGN, root)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "2")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: screen.table.row_count == 2, "runs listed")
        rows = [screen.table.row_text(i) for i in range(2)]
        assert rows[0][:2] == ["[@click=app.quit]run", "harbor-roasters"]
        assert rows[1][:2] == ["forged", "[/]"]
        await pilot.click(type(screen.table), offset=(2, 1))  # the first row's name
        await pilot.pause()
        assert app.is_running
        shown = screen.table.render_lines(Region(0, 0, *screen.table.size))
        lines = [strip.text for strip in shown]
        assert any("[@click=app.quit]run" in line for line in lines)
        assert any("[/]" in line for line in lines)


async def test_a_report_written_by_anyone_shows_as_text(demo_run: Path, tmp_path: Path) -> None:
    """The report browser reads every report.json under the runs folder: markup in an id,
    a reason or an outcome is shown as text, never read as markup (`[/]` closed the app; an
    id ending in a backslash turned the template's closing tag into text)."""
    root = tmp_path / "runs"
    root.mkdir()

    def markup(report: dict[str, Any]) -> None:
        first = report["questions"][0]
        first["id"], first["reason"] = "[/]q\\", "[@click=app.quit]why"
        first["branches"]["baseline"]["outcome"] = "[/x]"
        first["branches"]["baseline"]["choice"] = "[b"

    edited_validation(demo_run, root, markup)
    app = AuthorApp(DEFAULT_CAMPAIGN, root)
    async with app.run_test(size=SIZE) as pilot:
        reports = await shown_report(pilot, app)
        detail = reports.detail.render()
        assert isinstance(detail, Content)
        text = detail.plain
        assert "[/]q\\: " in text and "[@click=app.quit]why" in text and "[/x]" in text
        assert "baseline [b: " in text
        bold = [text[s.start : s.end] for s in detail.spans if str(s.style) == "b"]
        assert bold == ["[/]q\\"]
        assert reports.questions.row_text(0)[0] == "[/]q\\"
        assert app.is_running


def test_a_report_question_reads_as_money_and_short_scores(demo_run: Path, tmp_path: Path) -> None:
    """Outcomes and effects in the metric's units ($ with separators), losses and scores
    to four significant digits, `-` for none: not `178402.00`, 28 digits or `None`."""
    from workbench.tui.widgets.author import question_detail

    report = run_evaluation(demo_run, tmp_path / "out").report
    assert report is not None
    for entry in report.questions:
        text = str(question_detail(entry))
        assert "None" not in text, text
        if entry.contract.units == "USD" and entry.effect is not None:
            assert re.search(r"outcome -?\$\d{1,3}(,\d{3})*\.\d\d", text), text
        if entry.score is not None:
            shown = re.search(r"score (\S+)", text)
            assert shown is not None and len(shown.group(1).lstrip("-").replace(".", "")) <= 5


TOO_LONG = "n" * 300
"""A folder name longer than a file system takes (255 bytes): every look at it is refused."""


async def test_a_check_of_a_path_the_system_refuses_is_a_message_not_a_crash(
    tmp_path: Path,
) -> None:
    """The check screen's worker caught only the workbench's own errors: a campaign path the
    operating system refuses (a name too long, a folder it may not read) raised an OSError
    in the worker, and the app ended with a traceback. The CLI says `PATH: cannot access
    (reason)`; the screen now says the same, bounded, and the app stays."""
    app = AuthorApp(tmp_path / TOO_LONG, tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        await wait_for(pilot, lambda: "Check failed" in screen_text(screen), "the failure")
        text = screen_text(screen)
        assert "cannot access (File name too long)" in text
        assert screen.findings == () and app.is_running
    assert app.return_code in (None, 0)


async def test_runs_and_reports_under_a_path_the_system_refuses_are_a_message(
    tmp_path: Path,
) -> None:
    """The runs and reports screens listed a folder in a worker that caught nothing: a
    folder the system refuses (here a name too long) ended the app with a traceback."""
    app = AuthorApp(DEFAULT_CAMPAIGN, tmp_path / TOO_LONG)
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "2")
        screen = app.screen
        assert isinstance(screen, RunsScreen)
        await wait_for(pilot, lambda: "Cannot list the runs" in screen_text(screen), "runs")
        assert "cannot access (File name too long)" in screen_text(screen)
        await go(pilot, "3")
        reports = app.screen
        assert isinstance(reports, ReportsScreen)
        await wait_for(pilot, lambda: "Cannot read the report" in screen_text(reports), "reports")
        assert "File name too long" in screen_text(reports) and app.is_running
    assert app.return_code in (None, 0)


def test_no_author_screen_catches_only_the_workbenchs_own_errors() -> None:
    """The rule behind the two tests above: an author screen's worker catches what the CLI
    turns into one line (`EXPECTED`: a WorkbenchError or an OSError), never less."""
    folder = Path(__file__).resolve().parents[2] / "workbench" / "tui" / "screens" / "author"
    for source in folder.glob("*.py"):
        assert "except WorkbenchError" not in source.read_text(), source.name


async def test_a_check_replaced_by_a_newer_one_never_shows_its_findings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A thread worker cannot be stopped: a check replaced by a newer one (another campaign
    typed, enter) ran on, and when it ended last its findings replaced the newer check's,
    with the field naming the other campaign. Only the last check asked for is shown."""
    import threading

    import workbench.authoring.check as check_module

    real = check_module.check_campaign
    release = threading.Event()

    def slow_first(campaign: Path, *args: object, **kwargs: object) -> object:
        if Path(campaign).name == "gelato":
            release.wait(60)
        return real(campaign, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(check_module, "check_campaign", slow_first)
    app = AuthorApp(CAMPAIGNS_DIR / "gelato", tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, CheckScreen)
        screen.campaign.value = str(DEFAULT_CAMPAIGN)
        screen.action_check()
        await wait_for(pilot, lambda: screen.ok is not None, "the newer check")
        newer = screen.findings
        release.set()
        await app.workers.wait_for_complete()
        for _ in range(5):
            await pilot.pause()
        assert screen.findings == newer
        assert f"Check of {DEFAULT_CAMPAIGN}" in screen_text(screen)
        assert {f.question for f in newer} <= set(load_campaign(DEFAULT_CAMPAIGN).questions)
