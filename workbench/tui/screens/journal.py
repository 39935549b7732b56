"""The journal: entries from the session's memory; `v` re-verifies the file in a worker."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from workbench.tui.errors import shown_as_notice
from workbench.tui.messages import JournalVerified
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.journal import EntryScreen, JournalTable

if TYPE_CHECKING:
    from workbench.runs.files import RunPaths


class JournalScreen(PlayerScreen):
    """Entries in order (enter expands one); `v` re-reads and re-verifies the journal file."""

    DEFAULT_CSS = """
    JournalScreen #integrity {
        height: auto;
        padding: 0 1;
    }
    JournalScreen #integrity.-ok {
        color: $success;
    }
    JournalScreen #integrity.-broken {
        color: $error;
        text-style: bold;
    }
    """
    HOME = "JournalTable"
    BINDINGS = [Binding("v", "verify", "Verify file")]
    PARTS = (JournalTable,)

    def compose_body(self) -> ComposeResult:
        """Integrity line above the entries table."""
        self.integrity = Static(id="integrity")
        self.table = JournalTable()
        yield self.integrity
        yield self.table

    def refresh_view(self) -> None:
        """Append new entries from memory (no file read on the UI thread)."""
        self.table.show(self.session.journal_entries)
        if not self.integrity.has_class("-ok", "-broken"):
            self.integrity.update(
                f"{len(self.session.journal_entries)} entries, head "
                f"{self.session.journal_head[:16]} · v re-verifies the file"
            )

    @shown_as_notice
    def on_journal_table_expand(self, message: JournalTable.Expand) -> None:
        """Open the entry with its whole payload."""
        entry = next((e for e in self.session.journal_entries if e.seq == message.seq), None)
        if entry is not None:
            self.app.push_screen(EntryScreen(entry))

    @shown_as_notice
    def action_verify(self) -> None:
        """Re-open the journal file in a worker; say so at once."""
        local = self.local
        if local is None:
            text = (
                f"Chain held and verified by the host: {len(self.session.journal_entries)} "
                f"entries, head {self.session.journal_head[:16]}"
            )
            self.integrity.update(text)
            self.notify(text)
            return
        self.integrity.set_classes("")
        self.integrity.update("Verifying the journal file …")
        self.verify(local.paths, local.journal_head)

    @work(thread=True, exclusive=True, group="journal-verify")
    def verify(self, paths: RunPaths, head: str) -> None:
        """Re-read the file (bounded; which checks every hash link) and compare its head."""
        from ledger.journal import JournalError
        from workbench.runs.files import read_journal

        try:
            journal = read_journal(paths)
        except JournalError as exc:
            self.post_message(JournalVerified(False, 0, "", str(exc)))
            return
        same = journal.head == head
        detail = "" if same else "the file's head differs from the session's"
        self.post_message(JournalVerified(same, len(journal.entries), journal.head, detail))

    def on_journal_verified(self, message: JournalVerified) -> None:
        """Show and announce the verdict."""
        if message.ok:
            text = f"Chain OK: {message.entries} entries verified, head {message.head[:16]}"
            self.notify(text)
        else:
            text = f"Chain BROKEN: {message.detail}"
            self.notify(text, severity="error", timeout=8)
        self.integrity.update(Text(text))  # it quotes the file's path: text, not markup
        self.integrity.set_classes("-ok" if message.ok else "-broken")
