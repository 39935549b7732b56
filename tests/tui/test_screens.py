"""Pilot tests of the player's screens: advance, schedule, questions, journal, ledger, layout."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from tests.tui.conftest import SIZE, SMALL, go, notices, notified, wait_for
from tests.tui.text import screen_text
from workbench.play.session import PlayerSession
from workbench.tui.app import AUTHOR_SCREENS, PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.actions import ActionsScreen
from workbench.tui.screens.confirm import ConfirmSchedule
from workbench.tui.screens.dashboard import DashboardScreen
from workbench.tui.screens.journal import JournalScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.screens.questions import QuestionsScreen
from workbench.tui.widgets.charts import CommitmentTimeline, MetricChart
from workbench.tui.widgets.journal import EntryScreen
from workbench.tui.widgets.keybar import KeyBar


async def test_dashboard_shows_day_money_and_objective(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, DashboardScreen)
        text = screen_text(app.screen)
        assert "Day 0" in text and "/ 180" in text
        assert "$14,000.00" in text and "$14000.00" not in text
        assert "Net assets ≥ $105,000.00 on day 180" in text and "behind" in text


async def test_advance_by_keys_and_by_input(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: app.session.day == 1, "day 1")
        await pilot.press("w")
        await wait_for(pilot, lambda: "Day 8" in screen_text(app.screen), "day 8 shown")
        await pilot.press("a", "1", "2", "enter")
        await wait_for(pilot, lambda: "Day 20" in screen_text(app.screen), "day 20 shown")
        assert app.session.day == 20
        assert not isinstance(app.focused, Input)


async def test_advance_past_horizon_notifies(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("a", "9", "9", "9", "enter")
        await notified(pilot, "Days to advance: 999 is out of range")
        assert app.session.day == 0


async def test_schedule_shows_on_timeline_and_journal(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "2")
        assert isinstance(app.screen, ActionsScreen)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
        assert "Would be accepted" in screen_text(app.screen)
        await pilot.press("y")
        await notified(pilot, "Scheduled hire_roaster")
        assert "hire_roaster" in [c.action for c in app.session.view().commitments]
        await go(pilot, "1")
        timeline = app.screen.query_one(CommitmentTimeline)
        await wait_for(pilot, lambda: "hire_roaster" in str(timeline.render()), "timeline row")
        assert "day" in str(timeline.render())
        await go(pilot, "4")
        text = screen_text(app.screen)
        assert "schedule" in text and "hire_roaster" in text


async def test_rejection_shows_before_and_names_the_action_once(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "2")
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("second_roaster_machine"))
        await pilot.pause()
        assert "insufficient cash" in screen_text(app.screen)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
        assert "Would be rejected" in screen_text(app.screen)
        await pilot.press("y")
        await notified(pilot, "insufficient cash")
        [notice] = [n for n in notices(app) if "insufficient cash" in n]
        assert notice.count("second_roaster_machine") == 1
        assert len(app.session.journal_entries) == 2


async def test_actions_and_questions_warn_before_a_trap(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        assert "Caution: Scheduling spring_campaign before day 30" in screen_text(app.screen)
        await go(pilot, "2")
        table = app.screen.query_one(DataTable)
        table.move_cursor(row=table.get_row_index("spring_campaign"))
        await pilot.pause()
        assert "Warning: q_spring_campaign becomes unresolvable" in screen_text(app.screen)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
        assert "q_spring_campaign becomes unresolvable" in screen_text(app.screen)
        await pilot.press("y")
        await notified(pilot, "Scheduled spring_campaign")
        await go(pilot, "3")
        assert isinstance(app.screen, QuestionsScreen)
        text = screen_text(app.screen)
        assert "Unresolvable: its intervention cannot run" in text
        assert "Caution: Scheduling spring_campaign" not in text


async def test_submit_appears_in_history_with_money_check(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        await pilot.press("tab")
        assert app.focused is screen.form.value
        await pilot.press(*"abc")
        await wait_for(pilot, lambda: "is not a decimal number" in screen_text(screen), "check")
        screen.form.value.value = "1500"
        await wait_for(pilot, lambda: "ready to submit" in screen_text(screen), "ready")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.history.row_count == 1, "history row")
        row = screen.history.row_text(0)
        assert row[0] == "q_spring_campaign" and row[1] == "1"
        assert row[3] == "1,500" and row[6] == "yes"


async def test_submissions_are_numbered_per_question_on_every_screen(run_dir: Path) -> None:
    """The notice, the history and the summary said "#7" for a second submission: the
    journal's seq, which counts every command. They number a question's submissions."""
    from workbench.tui.screens.briefing import SummaryScreen

    session = PlayerSession.create(run_dir)
    session.schedule("hire_sales_rep")
    session.advance(2)
    session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
    session.advance(2)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        for value, number in (("1500", 1), ("1600", 2)):
            screen.form.value.value = value
            await wait_for(pilot, lambda: "ready to submit" in screen_text(screen), "ready")
            await pilot.press("ctrl+s")
            await notified(pilot, f"Submission {number} of q_spring_campaign recorded (eligible)")
        assert not [n for n in notices(app) if "#" in n]
        seqs = [s.seq for s in app.session.view().submissions]
        assert seqs[-1] > 2
        rows = [screen.history.row_text(i) for i in range(screen.history.row_count)]
        assert [row[:2] for row in rows] == [
            ["q_bank_loan", "1"],
            ["q_spring_campaign", "1"],
            ["q_spring_campaign", "2"],
        ]
        assert [row[-1] for row in rows] == [str(seq) for seq in seqs]
        labels = [str(column.label) for column in screen.history.ordered_columns]
        assert labels[1] == "Submission" and labels[-1] == "Journal seq"
        app.show_summary()
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "summary")
        await wait_for(pilot, lambda: "counts:" in screen_text(app.screen), "summary text")
        text = screen_text(app.screen)
        assert "q_spring_campaign (deadline day 30): counts: submission 2 of 2" in text
        assert "q_bank_loan (deadline day 20): counts: submission 1 of 1" in text
        assert "#" not in text


async def test_check_agrees_with_submission_on_conclusions(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.table.move_cursor(row=screen.table.get_row_index("q_bank_loan"))
        await pilot.pause()
        screen.form.value.value = "-500"
        await wait_for(pilot, lambda: "verdict is `missing`" in screen_text(screen), "left out")
        assert "not a money amount" not in screen_text(screen)
        screen.form.conclusion.value = "-300.005"
        await wait_for(pilot, lambda: "exact to the cent" in screen_text(screen), "cents")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert screen.history.row_count == 0
        screen.form.conclusion.value = "-300.00"
        await wait_for(pilot, lambda: "ready to submit" in screen_text(screen), "ready")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.history.row_count == 1, "submitted")


async def test_values_stay_with_their_question(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.form.value.value = "1234"
        await pilot.pause()
        screen.table.move_cursor(row=1)
        await pilot.pause()
        assert screen.form.value.value == ""
        screen.table.move_cursor(row=0)
        await pilot.pause()
        assert screen.form.value.value == "1234"


async def test_journal_verify_gives_feedback_and_entries_expand(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.advance(3)
        await go(pilot, "4")
        assert isinstance(app.screen, JournalScreen)
        await pilot.press("v")
        await notified(pilot, "Chain OK: 2 entries verified")
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EntryScreen), "entry modal")
        text = screen_text(app.screen)
        assert '"engine_version"' in text and "hash" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, JournalScreen), "back")


async def test_journal_screen_never_reads_the_file_to_repaint(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "4")
        app.session.paths.journal.rename(app.session.paths.journal.with_suffix(".moved"))
        app.session_changed()
        await pilot.pause()
        assert "Chain BROKEN" not in screen_text(app.screen)
        await pilot.press("v")
        await notified(pilot, "Chain BROKEN")


async def test_journal_verify_names_a_pipe_planted_in_place_of_the_journal(
    tmp_path: Path,
) -> None:
    """The re-read is the bounded run reader: a named pipe is refused, not waited on; the
    message quotes the run's path, shown as text however its folders are named."""
    app = PlayerApp(PlayerSession.create(tmp_path / "run[" / "x]"), briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "4")
        journal = app.session.paths.journal
        journal.rename(journal.with_suffix(".moved"))
        os.mkfifo(journal)
        await pilot.press("v")
        await notified(pilot, "journal is a named pipe, not a regular file")
        assert "Chain BROKEN" in screen_text(app.screen)


async def test_ledger_balances_follows_days_and_exports_atomically(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        app.advance(1)
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        line = str(screen.balance_line.render())
        assert "balanced" in line and "total 0" not in line and "BP" not in line
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.history.row_count == 2, "account by day")
        app.advance(2)
        await wait_for(pilot, lambda: screen.history.row_count == 4, "history after advance")
        await pilot.press("b", "c")
        await notified(pilot, "ledger.csv")
        assert (app.export_dir / "ledger.beancount").read_text()
        assert (app.export_dir / "ledger.csv").read_text()
        assert not list(app.export_dir.glob(".*.tmp"))
        rows = [screen.balances.row_text(i) for i in range(screen.balances.row_count)]
        money = [str(row[1]) for row in rows if row[2] == "USD"]
        assert any(m.startswith("-$") for m in money)
        assert all(re.fullmatch(r"-?\$\d{1,3}(,\d{3})*\.\d\d", m) for m in money)


async def test_player_app_has_no_author_screens(app: PlayerApp) -> None:
    from workbench.tui.commands import player_commands

    modes = {spec.mode for spec in PLAYER_SCREENS}
    assert not modes & {spec.mode for spec in AUTHOR_SCREENS}
    assert not {"validate", "check"} & modes
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.pause()
        names = [name for name, _, _ in player_commands(app)]
        assert not [n for n in names if n.startswith("author") or "alidat" in n]
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert "Validate" not in screen_text(app.screen)
        assert "Check" not in screen_text(app.screen)


async def test_palette_command_advances(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"sim: Advance 7")
        await wait_for(pilot, lambda: _first_command(app) == "sim: Advance 7 days", "match")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session.day == 7, "advanced by the palette")


async def test_every_advance_to_the_last_day_confirms_as_finish_does(run_dir: Path) -> None:
    """The palette's "Advance to horizon" ended play at once, while `f` asked first; so did
    a typed count or `n` that reached the last day. All are one path: the finish question."""
    from workbench.tui.screens.briefing import SummaryScreen
    from workbench.tui.screens.confirm import ConfirmFinish

    session = PlayerSession.create(run_dir)
    session.advance(170)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("ctrl+p")
        await pilot.press(*"sim: Advance to horizon")
        await wait_for(pilot, lambda: _first_command(app) == "sim: Advance to horizon", "match")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), "asked")
        assert "Days 171 to 180 run with no further decisions" in screen_text(app.screen)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "cancelled")
        for keys in (("f",), ("a", "1", "0", "enter")):
            await pilot.press(*keys)
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), str(keys))
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "back")
        assert session.day == 170 and not session.finished
        await pilot.press("a", "9", "enter")
        await wait_for(pilot, lambda: session.day == 179, "day 179 without asking")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), "the last day")
        assert session.day == 179
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "summary")
        assert session.finished and session.journal_entries[-1].kind == "finish"


async def test_key_bar_fits_at_120_columns(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            await pilot.pause()
            bar = app.screen.query_one(KeyBar)
            keys, palette = bar.labels()
            line = str(bar.render())
            assert len(line) <= SIZE[0], spec.mode
            for label in [*keys, palette]:
                assert label is not None
                assert f"{label.display} {label.description}" in line, (spec.mode, label)
            descriptions = {label.description for label in keys}
            assert {"Help", "Theme", "Go to"} <= descriptions, spec.mode


async def test_small_terminal_keeps_every_column(app: PlayerApp) -> None:
    async with app.run_test(size=SMALL, notifications=True) as pilot:
        await pilot.press("n")
        await wait_for(pilot, lambda: "Day 1" in screen_text(app.screen), "day 1")
        for key in ("2", "3"):
            await go(pilot, key)
            table = app.screen.query(DataTable).first()
            assert table.virtual_size.width <= table.size.width, key
        await go(pilot, "1")
        metrics = app.screen.query(DataTable).first()
        assert metrics.virtual_size.width <= metrics.size.width
        assert app.screen.query_one("#money-chart", MetricChart).size.height >= 8


def _first_command(app: PlayerApp) -> str:
    """The palette's highlighted command, once its search has answered."""
    from textual.widgets import OptionList

    options = app.screen.query(OptionList)
    if not options or options.first().option_count == 0:
        return ""
    found = options.first()
    index = found.highlighted if found.highlighted is not None else 0
    return str(found.get_option_at_index(index).prompt).split("\n")[0]


def test_chart_ticks_always_cover_the_values() -> None:
    from hypothesis import given
    from hypothesis import strategies as st

    from workbench.tui.widgets.charts import ticks

    @given(st.floats(-1e9, 1e9), st.floats(0.01, 1e9))
    def covers(low: float, span: float) -> None:
        marks = ticks(low, low + span)
        assert marks[0] <= low and marks[-1] >= low + span and len(marks) <= 12

    covers()


async def test_a_screen_repaints_when_shown_out_of_date_and_only_then(
    app: PlayerApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not when left at once (the go-to list pops back onto it first), not when the run is
    unchanged since it painted; at once when the run moved while it was hidden."""
    async with app.run_test(size=SIZE) as pilot:
        dashboard = app.screen
        assert isinstance(dashboard, DashboardScreen)
        repaints: list[int] = []
        repaint = dashboard.refresh_view
        monkeypatch.setattr(dashboard, "refresh_view", lambda: (repaints.append(1), repaint()))
        await go(pilot, "2")
        assert repaints == [] and isinstance(app.screen, ActionsScreen)
        await go(pilot, "1")
        assert repaints == [] and app.screen is dashboard
        await go(pilot, "2")
        app.advance(1)
        await wait_for(pilot, lambda: app.session.day == 1, "day 1")
        await go(pilot, "1")
        assert repaints == [1] and "Day 1 " in screen_text(dashboard)
        await pilot.press("f1")
        await wait_for(pilot, lambda: app.screen is not dashboard, "help")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dashboard, "back from help")
        assert repaints == [1]
        await pilot.press("n")
        await wait_for(pilot, lambda: "Day 2 " in screen_text(dashboard), "day 2 shown")
        assert repaints == [1, 1]
        assert "[b reverse] 1 Dashboard" in dashboard.bar.content.markup


BREAKPOINTS = frozenset({"-narrow", "-wide", "-short", "-tall"})


def textual_breakpoint_classes(app: PlayerApp, width: int, height: int) -> frozenset[str]:
    """The breakpoint classes Textual's own rule gives a screen of the app at this size."""
    rule = app.screen._get_breakpoint_classes
    return frozenset(
        rule(width, app.HORIZONTAL_BREAKPOINTS) | rule(height, app.VERTICAL_BREAKPOINTS)
    )


async def test_a_new_screen_starts_with_the_breakpoint_classes_textual_gives_it(
    app: PlayerApp,
) -> None:
    """Set before mounting, so Textual's first resize changes nothing and does not restyle
    the whole new screen; they must be exactly Textual's, at every size (edges too).

    Textual gives the shown screen its classes when the screen handles the resize, after
    the app's size changed (under load, one pause was not enough): the test waits for them.
    """
    async with app.run_test(size=SIZE) as pilot:
        for size in ((80, 24), (99, 31), (100, 32), (120, 40), (60, 50)):
            await pilot.resize_terminal(*size)
            textuals = textual_breakpoint_classes(app, *size)
            await wait_for(
                pilot,
                lambda want=textuals: app.screen.classes & BREAKPOINTS == want,
                f"the shown screen restyled for {size}",
            )
            fresh = LedgerScreen()
            assert fresh.classes & BREAKPOINTS == textuals, size
            assert len(textuals) == 2, size


async def test_a_write_the_disk_refuses_is_one_notice_and_the_dashboard_goes_on(
    app: PlayerApp,
) -> None:
    """A seal the disk refuses: the day still advances (the command is journaled) and a
    warning says the seal is behind. A journal line it refuses: an error says nothing was
    applied, the day stays, and the next key press works once there is room."""
    import resource
    import signal

    session = app.session
    assert isinstance(session, PlayerSession)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        seal = session.paths.seal
        seal.unlink()
        seal.mkdir()
        await pilot.press("n")
        await wait_for(pilot, lambda: session.day == 1, "day 1")
        await notified(pilot, "the seal is behind")
        seal.rmdir()
        journal = session.paths.journal
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (journal.stat().st_size + 40, hard))
        try:
            await pilot.press("n")
            await notified(pilot, "it was not applied")
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
            signal.signal(signal.SIGXFSZ, handler)
        assert session.day == 1 and app.is_running
        await pilot.press("n")
        await wait_for(pilot, lambda: session.day == 2, "day 2")


async def test_a_typed_answer_is_never_lost_without_asking(run_dir: Path) -> None:
    """An answer typed but not submitted lives only in the form: an advance past its
    deadline, finishing or quitting would lose it, so each asks first; escape keeps it,
    and once submitted nothing asks."""
    from workbench.tui.screens.confirm import ConfirmAdvance, ConfirmFinish, ConfirmQuit

    session = PlayerSession.create(run_dir)
    session.advance(29)
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.table.move_cursor(row=screen.table.get_row_index("q_spring_campaign"))
        await wait_for(pilot, lambda: screen.form.question == "q_spring_campaign", "selected")
        screen.form.value.value = "15000"
        await wait_for(pilot, lambda: "q_spring_campaign" in app.unsent, "typed")
        await go(pilot, "1")
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmAdvance), "asked")
        assert "q_spring_campaign" in screen_text(app.screen)
        await pilot.press("escape")
        assert session.day == 29
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), "finish asked")
        assert "q_spring_campaign are not submitted" in screen_text(app.screen)
        await pilot.press("escape")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmQuit), "quit asked")
        await pilot.press("escape")
        assert app.is_running and session.day == 29
        await go(pilot, "3")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.unsent, "submitted")
        await go(pilot, "1")
        await pilot.press("n")
        await wait_for(pilot, lambda: session.day == 30, "advanced without asking")


@pytest.mark.parametrize("size", [(60, 20), SMALL])
async def test_every_balance_shows_whole_on_a_narrow_ledger(
    app: PlayerApp, size: tuple[int, int]
) -> None:
    """At 60 columns the trial balance was cut at 60% of the width, so `$16,208.00` read
    `$16`: when narrow, the table takes the full width above the account's history."""
    async with app.run_test(size=size, notifications=True) as pilot:
        await pilot.press("w")
        await wait_for(pilot, lambda: app.session.day == 7, "day 7")
        await go(pilot, "5")
        screen = app.screen
        assert isinstance(screen, LedgerScreen)
        await wait_for(pilot, lambda: screen.balances.row_count > 0, "balances")
        table = screen.balances
        widths = sum(column.get_render_width(table) for column in table.ordered_columns)
        assert widths <= table.content_region.width, (widths, table.content_region.width)


async def test_a_refused_day_count_is_cleared_and_a_finished_run_says_so(
    app: PlayerApp,
) -> None:
    """`0` in the days field was refused but stayed, so `99999` typed next read `0999`;
    on a finished run the answer form said 'the deadline has passed', not that the run
    takes no submission."""
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await pilot.press("a", "0", "enter")
        await notified(pilot, "Days to advance: 0 is out of range")
        screen = app.screen
        assert isinstance(screen, DashboardScreen) and screen.days.value == ""
        app.session.finish()
        app.session_changed()
        await go(pilot, "3")
        questions = app.screen
        assert isinstance(questions, QuestionsScreen)
        questions.form.value.value = "100"
        await wait_for(
            pilot, lambda: "the run is finished" in screen_text(questions), "finished note"
        )
