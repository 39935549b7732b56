"""The action catalog: every term of every action, a preview with warnings, and scheduling."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content

from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.actions import ActionCatalog, ActionDetail


class ActionsScreen(PlayerScreen):
    """Browse the catalog; `s` or enter asks to schedule the highlighted action."""

    DEFAULT_CSS = """
    ActionsScreen #actions-body {
        height: 1fr;
    }
    ActionsScreen ActionCatalog {
        width: auto;
        max-width: 70%;
    }
    ActionsScreen #action-side {
        width: 1fr;
        border-left: solid $primary;
    }
    ActionsScreen.-narrow #actions-body {
        layout: vertical;
    }
    ActionsScreen.-narrow ActionCatalog {
        width: 1fr;
        max-width: 100%;
        max-height: 50%;
    }
    ActionsScreen.-narrow #action-side {
        width: 1fr;
        border-left: none;
        border-top: solid $primary;
    }
    """
    HOME = "ActionCatalog"
    PARTS = (ActionCatalog,)

    def compose_body(self) -> ComposeResult:
        """Catalog table beside (or, when narrow, above) the detail pane."""
        self.catalog = ActionCatalog()
        self.detail = ActionDetail()
        with Horizontal(id="actions-body"):
            yield self.catalog
            with VerticalScroll(id="action-side"):
                yield self.detail

    def refresh_view(self) -> None:
        """Fill the catalog once (it never changes during a run; a hosted run's host may be
        away at the first showing), then show the highlighted action's terms and today's
        preview."""
        if self.catalog.row_count == 0:
            self.catalog.fill(self.session.view().actions)
        action_id = self.catalog.selected
        if action_id is None:
            return
        terms = self.session.view().action(action_id)
        if terms is None:
            return
        if self.session.finished:
            preview = Content("the campaign has ended: nothing more can be scheduled.")
        else:
            preview = self.workbench.schedule_preview(action_id)
        self.detail.show(self.session.day, preview, terms)

    def on_action_catalog_highlighted(self, message: ActionCatalog.Highlighted) -> None:
        """Follow the cursor."""
        self.repaint()

    def on_action_catalog_schedule_asked(self, message: ActionCatalog.ScheduleAsked) -> None:
        """Confirm in a modal that repeats the preview and its warnings."""
        self.workbench.ask_schedule(message.action_id)
