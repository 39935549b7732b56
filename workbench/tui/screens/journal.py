"""The journal: every entry with its hash, and the chain's integrity re-checked from disk."""

from __future__ import annotations

import json

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Static

from ledger.journal import Journal, JournalError
from workbench.runs.files import RunPaths
from workbench.tui.screens.base import WorkbenchScreen


class JournalScreen(WorkbenchScreen):
    """Entries in order; `v` re-verifies the journal file."""

    AUTO_FOCUS = "#journal"
    BINDINGS = [Binding("v", "verify", "Verify chain")]

    def compose(self) -> ComposeResult:
        """Integrity line above the entries table."""
        yield from self.compose_frame()
        with Vertical(id="journal-body"):
            yield Static(id="integrity")
            yield DataTable(id="journal", cursor_type="row", zebra_stripes=True)
        yield self.footer()

    def on_mount(self) -> None:
        """Columns."""
        self.query_one("#journal", DataTable).add_columns("Seq", "Day", "Kind", "Payload", "Hash")
        self.refresh_view()

    def refresh_view(self) -> None:
        """Repaint entries and re-verify the chain."""
        table = self.query_one("#journal", DataTable)
        table.clear()
        for entry in self.session.journal_entries:
            payload = json.dumps(entry.payload, sort_keys=True, separators=(",", ":"))
            if len(payload) > 60:
                payload = payload[:59] + "…"
            table.add_row(
                str(entry.seq),
                str(entry.day),
                entry.kind,
                payload,
                entry.hash[:16],
                key=str(entry.seq),
            )
        table.move_cursor(row=max(table.row_count - 1, 0))
        self.action_verify()

    def action_verify(self) -> None:
        """Re-open the journal file, which verifies every hash link."""
        widget = self.query_one("#integrity", Static)
        run_dir = self.session.run_dir
        if run_dir is None:
            widget.update(
                f"Hosted run: {len(self.session.journal_entries)} commands, head "
                f"{self.session.journal_head[:16]} (the host keeps and verifies the file)"
            )
            widget.set_classes("ok")
            return
        try:
            journal = Journal.open(RunPaths(run_dir).journal)
        except (JournalError, OSError) as exc:
            widget.update(f"Chain BROKEN: {exc}")
            widget.set_classes("rejected")
            return
        same = journal.head == self.session.journal_head
        state = "OK" if same else "differs from the session's head"
        widget.update(
            f"Chain {state}: {len(journal.entries)} entries verified, head {journal.head[:16]}"
        )
        widget.set_classes("ok" if same else "rejected")
