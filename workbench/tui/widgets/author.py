"""Author mode's parts: findings, runs and reports tables, and a report question's detail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.markup import escape
from textual.binding import Binding
from textual.message import Message
from textual.widgets import DataTable

from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from workbench.authoring.runs import ReportEntry, RunStatus


class KeyedTable(Table):
    """A row table whose highlighted and chosen rows are reported by key."""

    class Highlighted(Message):
        """The highlighted row changed."""

        def __init__(self, table: KeyedTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

    class Chosen(Message):
        """Enter (or the table's own key) chose a row."""

        def __init__(self, table: KeyedTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, **kwargs)

    @property
    def selected(self) -> str | None:
        """The highlighted row's key."""
        if self.row_count == 0:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Report the highlighted row."""
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Highlighted(self, str(event.row_key.value)))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Report the chosen row."""
        event.stop()
        if event.row_key.value is not None:
            self.post_message(self.Chosen(self, str(event.row_key.value)))


class FindingsTable(KeyedTable):
    """The campaign check's findings: question, branch, level and message."""

    COLUMNS = ("Question", "Branch", "Level", "Message")

    DEFAULT_CSS = """
    FindingsTable {
        height: 1fr;
    }
    """

    def show(self, findings: list[dict[str, Any]]) -> None:
        """One row per finding, keyed by its position."""
        self.clear()
        for index, f in enumerate(findings):
            self.add_row(f["question"], f["branch"], f["level"], f["message"], key=str(index))


class RunsTable(KeyedTable):
    """Run directories: campaign, agent, how far they got; `v` or enter validates one."""

    COLUMNS = ("Run", "Campaign", "Agent", "State")

    HELP_NAME = "the runs table"
    DEFAULT_CSS = """
    RunsTable {
        height: auto;
        max-height: 50%;
    }
    """
    BINDINGS = [Binding("v", "validate", "Validate run")]

    def show(self, runs: list[RunStatus]) -> None:
        """One row per run, keyed by its path."""
        self.clear()
        for run in runs:
            self.add_row(
                run.path.name, run.campaign_id, run.agent_id, escape(run.state), key=str(run.path)
            )

    def action_validate(self) -> None:
        """Ask to validate the highlighted run."""
        if self.selected is not None:
            self.post_message(self.Chosen(self, self.selected))


class ReportsTable(KeyedTable):
    """Validation output directories with their headline."""

    COLUMNS = ("Report", "Run", "Scored", "Mean score")

    DEFAULT_CSS = """
    ReportsTable {
        height: auto;
        max-height: 10;
    }
    """

    def show(self, reports: list[ReportEntry]) -> None:
        """One row per report, keyed by its directory."""
        self.clear()
        for r in reports:
            self.add_row(
                r.path.name,
                r.run,
                f"{r.scored}/{r.questions}",
                r.mean_score or "-",
                key=str(r.path),
            )


class ReportQuestions(KeyedTable):
    """A report's questions with both branch statuses and the score."""

    COLUMNS = ("Question", "Status", "Baseline", "Intervention", "Score")

    DEFAULT_CSS = """
    ReportQuestions {
        height: auto;
        max-height: 12;
    }
    """

    def show(self, entries: list[dict[str, Any]]) -> None:
        """One row per question of the report."""
        self.clear()
        for entry in entries:
            branches = entry.get("branches") or {}
            self.add_row(
                entry["id"],
                entry["status"],
                *((branches.get(b) or {}).get("status", "-") for b in ("baseline", "intervention")),
                str(entry.get("score") if entry.get("score") is not None else "-"),
                key=entry["id"],
            )


def branch_text(name: str, record: dict[str, Any] | None) -> str:
    """One branch record's status, outcome and reason."""
    if record is None:
        return f"{name}: not run"
    reason = f" — {escape(str(record['reason']))}" if record.get("reason") else ""
    return (
        f"{name} [i]{escape(str(record.get('name', '')))}[/i]: {record['status']}, "
        f"outcome {record.get('outcome')}{reason}"
    )


def question_detail(entry: dict[str, Any]) -> str:
    """A report entry: status, both branches, effect, prediction, score, conclusion."""
    branches = entry.get("branches") or {}
    submission = entry.get("submission") or {}
    conclusion = entry.get("conclusion")
    reason = f" ({escape(str(entry['reason']))})" if entry.get("reason") else ""
    lines = [
        f"[b]{entry['id']}[/b]: {entry['status']}{reason}",
        branch_text("baseline", branches.get("baseline")),
        branch_text("intervention", branches.get("intervention")),
        f"effect {entry.get('effect')} · prediction {submission.get('value')} · "
        f"loss {entry.get('loss')} · score {entry.get('score')}",
    ]
    if conclusion:
        lines.append(f"conclusion: {escape(str(conclusion))}")
    return "\n".join(lines)
