"""The campaign briefing (at the start and on `b`) and the end-of-campaign summary."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from workbench.tui.format import briefing_text, summary_text

if TYPE_CHECKING:
    from collections.abc import Mapping

    from workbench.play.objective import Briefing, CampaignSummary

MODAL_CSS = """
{name} {{
    align: center middle;
}}
{name} > VerticalScroll {{
    width: 96;
    max-width: 100%;
    height: auto;
    max-height: 100%;
    border: thick $primary;
    background: $surface;
    padding: 0 1;
}}
"""


class BriefingScreen(ModalScreen[None]):
    """The campaign briefing; enter or escape starts (or resumes) play."""

    DEFAULT_CSS = MODAL_CSS.format(name="BriefingScreen")
    BINDINGS = [Binding("escape,enter,b,q", "dismiss", "Play")]

    def __init__(self, brief: Briefing) -> None:
        super().__init__()
        self.brief = brief

    def compose(self) -> ComposeResult:
        """The briefing text in a scrolling box."""
        with VerticalScroll():
            yield Static(briefing_text(self.brief), id="briefing")
            yield Static("[dim]enter or escape: play[/dim]")


class SummaryScreen(ModalScreen[None]):
    """The end-of-campaign summary: objective met or not, submissions, what happens next."""

    DEFAULT_CSS = MODAL_CSS.format(name="SummaryScreen")
    BINDINGS = [Binding("escape,enter,e,q", "dismiss", "Close")]

    def __init__(self, summary: CampaignSummary, numbers: Mapping[int, int]) -> None:
        super().__init__()
        self.summary = summary
        self.numbers = numbers
        """Each submission's number among its question's, by journal seq."""

    def compose(self) -> ComposeResult:
        """The summary text in a scrolling box."""
        with VerticalScroll():
            yield Static(summary_text(self.summary, self.numbers), id="summary")
            yield Static("[dim]enter or escape: close[/dim]")
