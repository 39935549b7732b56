"""The shared frame of every screen: header, footer and access to the app's session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.screen import Screen
from textual.widgets import Footer, Header

if TYPE_CHECKING:
    from workbench.play.protocol import SessionProtocol
    from workbench.tui.app import WorkbenchApp


class WorkbenchScreen(Screen[None]):
    """A screen with the app's header and footer that repaints from the session on show."""

    def compose_frame(self) -> ComposeResult:
        """The header; subclasses yield their body after it and the footer last."""
        yield Header(icon="≡")

    def footer(self) -> Footer:
        """The key footer."""
        return Footer(compact=True)

    @property
    def workbench(self) -> WorkbenchApp:
        """The app, typed."""
        return self.app  # type: ignore[return-value]

    @property
    def session(self) -> SessionProtocol:
        """The session being played."""
        return self.workbench.session

    def on_screen_resume(self) -> None:
        """Repaint whenever the screen is shown again."""
        self.refresh_view()

    def refresh_view(self) -> None:
        """Repaint from the session (screens that show run state override this)."""
