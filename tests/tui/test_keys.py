"""The key scheme: typing never switches screens, Escape leaves a field, tab keeps a value."""

from __future__ import annotations

from textual.containers import Vertical
from textual.widgets import Input, OptionList

from tests.tui.conftest import SIZE, go, wait_for
from tests.tui.text import screen_text
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.screens.dashboard import DashboardScreen
from workbench.tui.screens.goto import GoToScreen
from workbench.tui.screens.help import HelpScreen
from workbench.tui.screens.ledger import LedgerScreen
from workbench.tui.screens.questions import QuestionsScreen
from workbench.tui.widgets.bar import ScreenBar


async def test_digits_typed_anywhere_never_switch_screens(app: PlayerApp) -> None:
    """Typing -400 on Questions with no field focused stays on Questions (it used to jump)."""
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        assert not isinstance(app.focused, Input)
        await pilot.press("-", "4", "0", "0", *"1234567")
        await pilot.pause()
        assert app.screen is screen and app.current_mode == "questions"


async def test_digits_go_into_the_focused_field(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.form.value.focus()
        await pilot.press("-", "4", "0", "0")
        await pilot.pause()
        assert screen.form.value.value == "-400" and app.screen is screen


async def test_go_to_switches_from_inside_a_field(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3")
        app.screen.form.value.focus()  # type: ignore[attr-defined]
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, GoToScreen), "go-to list")
        await pilot.press("4")
        await wait_for(pilot, lambda: app.current_mode == "journal", "journal")


async def test_go_to_reaches_every_screen_and_escape_stays(app: PlayerApp) -> None:
    """Each screen shows with its home widget focused and no untouched field marked wrong
    (the ledger's day field was focused first, then left, and showed as invalid)."""
    async with app.run_test(size=SIZE) as pilot:
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            assert app.current_mode == spec.mode
            assert f"{spec.key} {spec.label}" in screen_text(app.screen)
            assert app.focused is app.screen.home(), spec.mode  # type: ignore[attr-defined]
            assert not [f for f in app.screen.query(Input) if f.has_class("-invalid")], spec.mode
        await pilot.press("ctrl+o", "escape")
        await pilot.pause()
        assert app.current_mode == PLAYER_SCREENS[-1].mode


async def test_escape_always_leaves_a_field(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a")
        assert isinstance(app.focused, Input)
        await pilot.press("escape")
        assert not isinstance(app.focused, Input)
        assert app.focused is app.screen.query_one("MetricsTable")
        await pilot.press("n")
        await wait_for(pilot, lambda: app.session.day == 1, "n works after escape")
        await go(pilot, "3")
        app.screen.form.value.focus()  # type: ignore[attr-defined]
        await pilot.press("escape")
        assert app.focused is app.screen.query_one("QuestionTable")
        await go(pilot, "7")
        app.screen.text.focus()  # type: ignore[attr-defined]
        await pilot.press("escape")
        assert app.focused is not app.screen.text  # type: ignore[attr-defined]


async def test_tab_into_a_filled_field_keeps_its_value(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await go(pilot, "3")
        screen = app.screen
        assert isinstance(screen, QuestionsScreen)
        screen.form.value.value = "1500"
        await pilot.pause()
        await pilot.press("tab")
        assert app.focused is screen.form.value
        await pilot.press("0")
        assert screen.form.value.value == "15000"


async def test_help_explains_the_scheme(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help")
        text = screen_text(app.screen)
        assert "never switch screens" in text and "ctrl+o" in text
        assert "escape leaves a text field" in text and "keeps its text" in text
        for spec in PLAYER_SCREENS:
            assert f"{spec.key} {spec.label}" in text
        await pilot.press("escape")
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.theme == "textual-light", "light theme")
        assert isinstance(app.screen, DashboardScreen)


async def test_a_screen_first_shown_after_a_theme_change_has_the_new_theme(
    app: PlayerApp,
) -> None:
    """New screens skip Textual's restyle of the whole app; they must still mount themed."""
    async with app.run_test(size=SIZE) as pilot:
        dark = app.screen.query_one(ScreenBar).styles.background
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.theme == "textual-light", "light theme")
        await pilot.pause()
        light = app.screen.query_one(ScreenBar).styles.background
        assert light != dark
        for spec in PLAYER_SCREENS[1:]:
            await go(pilot, spec.key)
            assert app.screen.query_one(ScreenBar).styles.background == light, spec.mode
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.theme == "textual-dark", "dark theme")
        await go(pilot, "1")
        assert app.screen.query_one(ScreenBar).styles.background == dark


async def test_the_go_to_list_is_one_screen_that_follows_the_player(app: PlayerApp) -> None:
    """Built once: each time it opens on the current screen, in the current theme, and any
    switch closes it, so no screen is left with a stale list on top."""
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, GoToScreen), "go-to list")
        first = app.screen
        dark = first.query_one(Vertical).styles.background
        await pilot.press("5")
        await wait_for(pilot, lambda: app.current_mode == "ledger", "ledger")
        await pilot.press("f2")
        await wait_for(pilot, lambda: app.theme == "textual-light", "light theme")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, GoToScreen), "go-to again")
        assert app.screen is first
        assert first.query_one(OptionList).highlighted == 4
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, LedgerScreen), "closed by ctrl+o")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen is first, "open again")
        assert first.query_one(Vertical).styles.background != dark
        app.action_view("questions")
        await wait_for(pilot, lambda: app.current_mode == "questions", "questions")
        assert isinstance(app.screen, QuestionsScreen)
        await go(pilot, "5")
        assert isinstance(app.screen, LedgerScreen)
        await go(pilot, "5")
        assert isinstance(app.screen, LedgerScreen)
        await pilot.press("ctrl+o", "f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "help over go-to")
        app.action_view("journal")
        await wait_for(pilot, lambda: app.current_mode == "journal", "journal")
        await go(pilot, "5")
        assert [type(s) for s in app.screen_stack] == [LedgerScreen]
