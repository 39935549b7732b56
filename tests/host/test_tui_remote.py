"""The player's app on a hosted run: the same screens over `RemoteSession` and a real host.

The briefing, the objective's progress, the question traps and the as-you-type check
read the public view, so they show as on a local run; only the journal file's
re-verification stays with the host, and the app says so.
"""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from ledger.journal import Journal
from tests.tui.conftest import SIZE, go, notified, wait_for
from tests.tui.text import screen_text
from workbench.play.remote import RemoteSession
from workbench.play.wire import API_PREFIX, Briefing
from workbench.tui.app import PlayerApp
from workbench.tui.screens.actions import ActionsScreen
from workbench.tui.screens.briefing import SummaryScreen
from workbench.tui.screens.confirm import ConfirmFinish, ConfirmSchedule
from workbench.tui.screens.dashboard import DashboardScreen
from workbench.tui.screens.questions import QuestionsScreen

from .conftest import ALPHA, TLS, Hosted, Live


async def test_the_app_plays_a_hosted_run(live: Live) -> None:
    def connect() -> RemoteSession:
        return RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA])

    app = PlayerApp(opener=connect, opening=live.url)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: app.ready, "connected")
        await wait_for(pilot, lambda: "How to play" in screen_text(app.screen), "briefing")
        assert "Net assets ≥ $105,000.00 on day 180" in screen_text(app.screen)
        assert app.local is None
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        assert "✗ Net assets ≥ $105,000.00 on day 180: now" in screen_text(app.screen)
        await pilot.press("w")
        await wait_for(pilot, lambda: "Day 7" in screen_text(app.screen), "day 7")
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.form.value.value = "1500"
        await wait_for(pilot, lambda: "ready" in screen_text(screen), "checked as you type")
        screen.form.value.value = "1e1000000"
        await wait_for(pilot, lambda: "value is larger than" in screen_text(screen), "refused")
        screen.form.value.value = "1500"
        await wait_for(pilot, lambda: "ready" in screen_text(screen), "ready again")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.history.row_count == 1, "submitted to the host")
        await go(pilot, "4")
        await pilot.press("v")
        await notified(pilot, "verified by the host")
        await go(pilot, "1")
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmFinish), "finish asked")
        await pilot.press("y")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "summary")
        summary = screen_text(app.screen)
        assert "hosted run is finished and sealed by its host" in summary
        assert "--results" not in summary and "the hosted run --out" not in summary
    app.close_session()


async def test_hosted_commands_land_in_the_hosts_journal_and_every_screen_opens(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    session = RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA])
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        assert app.sub_title == live.runtime.bundle.campaign.title
        await pilot.press("n")
        await wait_for(pilot, lambda: session.day == 1, "day 1")
        await go(pilot, "2")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
        assert "Would be accepted" in screen_text(app.screen)
        await pilot.press("y")
        await notified(pilot, "Scheduled hire_roaster")
        assert "hire_roaster" in [c.action for c in session.view().commitments]
        for spec in app.screen_table:
            await go(pilot, spec.key)
            assert app.current_mode == spec.mode
        assert app.export_ledger("csv") == tmp_path / "ledger.csv"
    assert (tmp_path / "ledger.csv").read_text() == session.ledger().export("csv")
    app.close_session()
    journal = Journal.open(live.hosted.runs / session.run_id / "journal.jsonl")
    assert [e.kind for e in journal.entries[1:]] == ["advance", "schedule"]


async def test_a_hosted_run_warns_of_question_traps_as_a_local_one_does(live: Live) -> None:
    session = RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA])
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
        await go(pilot, "2")
        actions = app.screen
        assert isinstance(actions, ActionsScreen)
        row = [a.id for a in session.view().actions].index("spring_campaign")
        actions.catalog.move_cursor(row=row)
        await wait_for(pilot, lambda: "becomes unresolvable" in screen_text(actions), "trap")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmSchedule), "confirm")
        assert "q_spring_campaign becomes unresolvable" in screen_text(app.screen)
        await pilot.press("y")
        await wait_for(pilot, lambda: "spring_campaign" in session.view().scheduled, "scheduled")
        await go(pilot, "3")
        questions = app.screen
        assert isinstance(questions, QuestionsScreen)
        row = [q.id for q in session.view().questions].index("q_spring_campaign")
        questions.table.move_cursor(row=row)
        await wait_for(pilot, lambda: "cannot run" in screen_text(questions), "sprung trap")
    app.close_session()


def test_the_briefing_an_agent_reads_states_every_goal(live: Live) -> None:
    headers = {"Authorization": f"Bearer {live.hosted.tokens[ALPHA]}"}
    reply = httpx2.get(f"{live.url}{API_PREFIX}/briefing", headers=headers, timeout=30, verify=TLS)
    assert reply.status_code == 200
    briefing = Briefing.model_validate_json(reply.content)
    [task] = briefing.tasks
    assert [(g.metric, g.bound, g.threshold, g.day) for g in task.goals] == [
        ("net_assets", "at_least", "105000.00", 180),
        ("missed_payrolls", "at_most", "0", 180),
    ]


async def test_a_host_that_goes_away_is_a_notice_not_a_crash(hosted: Hosted) -> None:
    """The host stops under a playing dashboard: every screen switch and key that needs it
    says it cannot reach the host, once each, and the app goes on (a traceback and exit 1
    before); the player can quit normally."""
    from workbench.host.server import ServerThread

    runtime = hosted.runtime()
    server = ServerThread(runtime)
    url = server.__enter__().url
    session = RemoteSession.connect(url, ALPHA, hosted.tokens[ALPHA])
    app = PlayerApp(session, briefing_at_start=False)
    try:
        async with app.run_test(size=SIZE, notifications=True) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, DashboardScreen), "dashboard")
            server.__exit__(None, None, None)
            runtime.close()
            for key in ("3", "5", "1", "4"):
                await go(pilot, key)
                assert app.is_running
            await notified(pilot, "cannot reach the host")
            await pilot.press("n")
            assert app.is_running
            await pilot.press("ctrl+q")
        assert app.return_code in (None, 0)
    finally:
        session.close()
