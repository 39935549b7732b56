"""The journal table (rows appended from the session's entries) and an entry's full view."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from workbench.tui.markup import styled
from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from workbench.play.protocol import JournalRecord

PAYLOAD_WIDTH = 60


def payload_line(payload: Mapping[str, Any]) -> str:
    """A payload on one line, cut to fit the table."""
    text = json.dumps(dict(payload), sort_keys=True, separators=(",", ":"))
    return text if len(text) <= PAYLOAD_WIDTH else text[: PAYLOAD_WIDTH - 1] + "…"


class JournalTable(Table):
    """Every journal entry in order; enter opens one with its whole payload."""

    COLUMNS = ("Seq", "Day", "Kind", "Payload", "Hash")

    HELP_NAME = "the journal table"
    DEFAULT_CSS = """
    JournalTable {
        height: 1fr;
    }
    """
    BINDINGS = [Binding("enter", "select_cursor", "Expand entry")]

    class Expand(Message):
        """Show one entry in full."""

        def __init__(self, seq: int) -> None:
            super().__init__()
            self.seq = seq

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, **kwargs)

    def show(self, entries: Sequence[JournalRecord]) -> None:
        """Append entries not shown yet (the journal only grows); follow the newest."""
        follow = self.row_count == 0 or self.cursor_row == self.row_count - 1
        for entry in entries[self.row_count :]:
            self.add_row(
                str(entry.seq),
                str(entry.day),
                entry.kind,
                payload_line(entry.payload),
                entry.hash[:16],
                key=str(entry.seq),
            )
        if follow and self.row_count:
            self.move_cursor(row=self.row_count - 1)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row expands it."""
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Expand(int(event.row_key.value)))


def entry_text(entry: JournalRecord) -> Content:
    """Every field of an entry, the payload pretty-printed."""
    payload = json.dumps(dict(entry.payload), sort_keys=True, indent=2)
    return styled(
        "[b]Entry $seq[/b] $rest",
        seq=entry.seq,
        rest=f"· day {entry.day} · {entry.kind}\ncommand id {entry.id}\nhash {entry.hash}\n\n"
        f"{payload}",
    )


class EntryScreen(ModalScreen[None]):
    """One journal entry in full; escape or enter closes."""

    DEFAULT_CSS = """
    EntryScreen {
        align: center middle;
    }
    EntryScreen > VerticalScroll {
        width: 90;
        max-width: 100%;
        height: auto;
        max-height: 90%;
        border: thick $primary;
        background: $surface;
        padding: 0 1;
    }
    """
    BINDINGS = [Binding("escape,enter,q", "dismiss", "Close")]

    def __init__(self, entry: JournalRecord) -> None:
        super().__init__()
        self.entry = entry

    def compose(self) -> ComposeResult:
        """The entry's text."""
        with VerticalScroll():
            yield Static(entry_text(self.entry), id="entry")
