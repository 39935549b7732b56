"""Author mode's parts: findings, runs and reports tables, and a report question's detail."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widgets import DataTable

from workbench.display import amount, short_number
from workbench.tui.markup import joined, styled
from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.authoring.check import Finding
    from workbench.authoring.runs import ReportEntry, RunStatus
    from workbench.evaluation.report import BranchRecord, QuestionEntry

T = TypeVar("T")


def at(items: Sequence[T], key: str | None) -> T | None:
    """The item a row keyed by its position names, or None: no row, or a key that is not
    a position in `items` (a row of an earlier listing)."""
    if key is None or not (key.isascii() and key.isdigit()):
        return None
    index = int(key)
    return items[index] if index < len(items) else None


class KeyedTable(Table):
    """A row table whose highlighted and chosen rows are reported by key."""

    class Highlighted(Message):
        """The highlighted row changed.

        Its key is the row's when it was posted: by the time it is handled the table may
        have been emptied or refilled. A handler shows what the table highlights now
        (`selected`), and nothing for a key no row has.
        """

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

    COLUMNS = ("Question", "Branch", "Severity", "Message")

    DEFAULT_CSS = """
    FindingsTable {
        height: 1fr;
    }
    """

    def show(self, findings: Sequence[Finding]) -> None:
        """One row per finding, keyed by its position."""
        self.clear()
        for index, f in enumerate(findings):
            self.add_row(f.question, f.branch, f.severity, f.message, key=str(index))


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
            self.add_row(run.path.name, run.campaign_id, run.agent_id, run.state, key=str(run.path))

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
                short_number(r.mean_score) if r.mean_score else "-",
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

    def show(self, entries: Sequence[QuestionEntry]) -> None:
        """One row per question of the report."""
        self.clear()
        for entry in entries:
            branches = (entry.branches.baseline, entry.branches.intervention)
            self.add_row(
                entry.id,
                entry.status,
                *(b.status if b is not None else "-" for b in branches),
                short_number(entry.score) if entry.score is not None else "-",
                key=entry.id,
            )


def branch_text(name: str, record: BranchRecord | None, units: str) -> Content:
    """One branch record's status, outcome (in the metric's units) and reason."""
    if record is None:
        return Content(f"{name}: not run")
    reason = f" — {record.reason}" if record.reason else ""
    outcome = "none" if record.outcome is None else _shown(record.outcome, units)
    return styled(
        "$name [i]$choice[/i]: $rest",
        name=name,
        choice=record.choice,
        rest=f"{record.status}, outcome {outcome}{reason}",
    )


def _shown(value: str, units: str) -> str:
    """A report's number in its units as the screens spell them; as written when it is
    not a number (a report under the runs folder may hold anything)."""
    try:
        return amount(value, units)
    except (ValueError, ArithmeticError):
        return value


def _measured(value: str | None) -> str:
    """A loss or a score to four significant digits; `-` when there is none."""
    return "-" if value is None else short_number(value)


def question_detail(entry: QuestionEntry) -> Content:
    """A report entry: status, both branches, effect, prediction, score, conclusion verdict.

    A report.json under the runs folder may have been written by anyone (`[/]` in one, read
    as markup, closed the app): every value goes in as text (`styled`).
    """
    reason = f" ({entry.reason})" if entry.reason else ""
    units = entry.contract.units
    prediction = _shown(entry.submission.value, units) if entry.submission else "none"
    effect = "none" if entry.effect is None else _shown(entry.effect, units)
    lines: list[Content | str] = [
        styled("[b]$id[/b]: $rest", id=entry.id, rest=f"{entry.status}{reason}"),
        branch_text("baseline", entry.branches.baseline, units),
        branch_text("intervention", entry.branches.intervention, units),
        f"effect {effect} · prediction {prediction} · loss {_measured(entry.loss)} · "
        f"score {_measured(entry.score)}",
    ]
    if entry.conclusion is not None:
        c = entry.conclusion
        lines.append(f"conclusion {c.verdict}: submitted {c.submitted}, expected {c.expected}")
    return joined(lines)
