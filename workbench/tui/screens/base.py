"""The frame of every screen: the screen bar, a body, the key footer; player and author kinds."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from textual.app import App, ComposeResult
from textual.message_pump import NoActiveAppError
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable

from workbench.errors import WorkbenchError
from workbench.tui.errors import EXPECTED, expected_message
from workbench.tui.messages import SessionChanged
from workbench.tui.widgets.bar import ScreenBar
from workbench.tui.widgets.keybar import KeyBar

if TYPE_CHECKING:
    from workbench.play.protocol import SessionProtocol
    from workbench.play.session import PlayerSession
    from workbench.tui.app import AuthorApp, PlayerApp, WorkbenchShell


def has_nothing_to_act_on(widget: Widget) -> bool:
    """True for a widget that tab passes by: a table without rows."""
    return isinstance(widget, DataTable) and widget.row_count == 0


class WorkbenchScreen(Screen[None]):
    """A screen with the screen bar above its body and the key footer below."""

    HOME: ClassVar[str] = ""
    """CSS selector of the widget that Escape (out of an input) and showing the screen focus."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Let Textual's auto-focus pick the home widget (unless a screen chooses otherwise).

        Auto-focus took the first focusable widget, then `on_mount` moved focus home: each
        move restyles the widget it leaves and the one it reaches (a table restyles every
        part of itself), which was a sixth of a screen's first showing.
        """
        super().__init_subclass__(**kwargs)
        if cls.HOME and "AUTO_FOCUS" not in cls.__dict__:
            cls.AUTO_FOCUS = cls.HOME

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        try:
            app = self.app
        except NoActiveAppError:
            return
        self._styled_as_current(app)
        self._classed_for_size(app)

    def _classed_for_size(self, app: App[Any]) -> None:
        """Start with the breakpoint classes Textual gives the screen at the app's size.

        Textual sets them on the screen's first resize, after its widgets are styled, and
        a changed class restyles the whole screen: a second full styling of every new
        screen. Set before mounting, they are already right then, so nothing changes; a
        terminal resized in between still restyles as before.
        """
        width, height = app.size
        axes = (
            (width, self.HORIZONTAL_BREAKPOINTS, app.HORIZONTAL_BREAKPOINTS),
            (height, self.VERTICAL_BREAKPOINTS, app.VERTICAL_BREAKPOINTS),
        )
        for dimension, own, shared in axes:
            points = (shared if own is None else own) or []
            reached = [(at, name) for at, name in points if dimension >= at]
            if reached:
                self.add_class(max(reached)[1], update=False)

    def _styled_as_current(self, app: App[Any]) -> None:
        """Count a new screen as styled by the current stylesheet, which it is once mounted.

        Textual marks a new screen stale, so the first visit of each mode re-parsed every
        stylesheet and restyled the whole app (60-90 ms of CPU, a third of the switch). A
        screen built after a theme change mounts with the new styles; one built before
        it is restyled as Textual does (tests/tui/test_keys.py checks both). Should a
        Textual release rename the counter, the screen is restyled as before: slower, as
        correct.
        """
        count = getattr(app, "_css_update_count", None)
        if isinstance(count, int):
            self._css_update_count = count

    @property
    def focus_chain(self) -> list[Widget]:
        """Textual's focus chain without the widgets that have nothing to act on yet.

        Tab took the player into an empty table (the ledger's account history before an
        account is followed, the causal preview before a task is loaded), where no key
        did anything. The focused widget stays in the chain, so tab moves on from it; a
        click or the home focus still reach an empty table, and it fills where it is.
        """
        return [
            widget
            for widget in super().focus_chain
            if widget is self.focused or not has_nothing_to_act_on(widget)
        ]

    def compose(self) -> ComposeResult:
        """Bar, body (from `compose_body`), key bar."""
        self.bar = ScreenBar(self.shell.screen_table, self.app.current_mode)
        yield self.bar
        yield from self.compose_body()
        yield KeyBar()

    def compose_body(self) -> ComposeResult:
        """The screen's own widgets (subclasses yield them)."""
        yield from ()

    @property
    def shell(self) -> WorkbenchShell:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    def home(self) -> Widget | None:
        """The widget focused when the screen shows and when Escape leaves an input."""
        if not self.HOME:
            return None
        found = self.query(self.HOME)
        return found.first() if found else None

    def on_mount(self) -> None:
        """Focus the home widget and paint."""
        target = self.home()
        if target is not None:
            target.focus()
        self.repaint()

    def on_screen_resume(self) -> None:
        """Repaint when the screen shows again and what it paints from has changed.

        Not when it resumed only to be left: going to another screen pops the go-to list
        back onto this one first, and its repaint (charts, tables) was a third of the switch.
        """
        if self.app.screen is not self:
            return
        try:
            source = self.paint_source()
        except EXPECTED as exc:
            self._unpainted(exc)
            return
        if source is None or source != self.painted_from:
            self.repaint(source)

    def repaint(self, source: object | None = None) -> None:
        """Repaint from the model and note what it was painted from.

        A model that cannot be read now (a hosted run whose host is gone) is one error
        notice, and the screen keeps what it showed: the player can retry or quit.
        """
        try:
            self.refresh_view()
            self.painted_from = self.paint_source() if source is None else source
        except EXPECTED as exc:
            self._unpainted(exc)

    def _unpainted(self, error: WorkbenchError | OSError) -> None:
        """Say why the screen could not be repainted; paint it again next time."""
        self.painted_from = None
        self.app.notify(expected_message(error), severity="error", timeout=8)

    def refresh_view(self) -> None:
        """Repaint from the model (screens that show changing state override this)."""

    painted_from: object | None = None
    """What the screen was last painted from (see `paint_source`)."""

    def paint_source(self) -> object | None:
        """What the screen shows depends on, to compare; None: unknown, always repaint."""
        return None


class PlayerScreen(WorkbenchScreen):
    """A screen of the player's app: reads the session, repaints when the run changes."""

    @property
    def workbench(self) -> PlayerApp:
        """The player's app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def session(self) -> SessionProtocol:
        """The session being played, local or hosted."""
        return self.workbench.session

    @property
    def local(self) -> PlayerSession | None:
        """The session when the run is played here (with its campaign), else None."""
        return self.workbench.local

    def on_session_changed(self, message: SessionChanged) -> None:
        """The run changed: repaint."""
        self.repaint()

    def paint_source(self) -> object | None:
        """The run's journal head: a player screen shows the run's state and its own
        choices (a day typed in, a row followed), which repaint as they change; revisiting
        a screen with the run unchanged redrew every chart and table for nothing."""
        return self.session.journal_head


class AuthorScreen(WorkbenchScreen):
    """A screen of the author's app."""

    @property
    def author(self) -> AuthorApp:
        """The author's app, typed."""
        return self.app  # type: ignore[return-value]
