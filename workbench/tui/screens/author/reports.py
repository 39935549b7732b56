"""The report browser: validation reports, question by question with both branches."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widgets import Static

from workbench.display import score_counts
from workbench.tui.errors import EXPECTED, expected_message
from workbench.tui.markup import styled
from workbench.tui.messages import JobFailed, RunsListed
from workbench.tui.screens.base import AuthorScreen
from workbench.tui.widgets.author import KeyedTable, ReportQuestions, ReportsTable, question_detail

if TYPE_CHECKING:
    from workbench.evaluation.report import CounterfactualReport


class ReportsScreen(AuthorScreen):
    """Reports under the runs folder; the highlighted one's questions and their detail."""

    DEFAULT_CSS = """
    ReportsScreen #report-summary, ReportsScreen #question-detail {
        height: auto;
        padding: 0 1;
    }
    """
    HOME = "ReportsTable"
    BINDINGS = [Binding("r", "rescan", "Rescan")]

    def __init__(self) -> None:
        super().__init__()
        self.report: CounterfactualReport | None = None

    def compose_body(self) -> ComposeResult:
        """Reports table, the chosen report's summary, its questions and one's detail."""
        self.reports = ReportsTable()
        self.summary = Static("Reading reports …", id="report-summary")
        self.questions = ReportQuestions()
        self.detail = Static(id="question-detail")
        yield self.reports
        yield self.summary
        yield self.questions
        yield self.detail

    def refresh_view(self) -> None:
        """Rescan whenever the screen shows (a validation may have added a report)."""
        self.action_rescan()

    def action_rescan(self) -> None:
        """Read the report headlines in a worker."""
        self.scan(self.author.runs_root)

    @work(thread=True, exclusive=True, group="reports")
    def scan(self, root: Path) -> None:
        """List the reports off the UI thread."""
        from workbench.authoring.runs import find_reports

        try:
            reports = find_reports(root)
        except EXPECTED as exc:
            self.post_message(JobFailed("report", expected_message(exc)))
            return
        self.post_message(RunsListed([], reports))

    def on_runs_listed(self, message: RunsListed) -> None:
        """Fill the reports table; open the newest validation, or the first report."""
        self.reports.show(message.reports)
        if not message.reports:
            self.summary.update(
                Content(
                    f"No validation reports under {self.author.runs_root}: "
                    "validate a finished run on the Runs screen."
                )
            )
            return
        keys = [str(r.path) for r in message.reports]
        wanted = str(self.author.last_report) if self.author.last_report else None
        index = keys.index(wanted) if wanted in keys else 0
        self.reports.move_cursor(row=index)
        self._open(Path(keys[index]))

    def on_keyed_table_highlighted(self, message: KeyedTable.Highlighted) -> None:
        """Follow the cursor in either table (a message for a row it has left since, or one
        a rescan removed, is dropped: it opened that report under the cursor's row)."""
        if message.key != message.table.selected:
            return
        if message.table is self.reports:
            self._open(Path(message.key))
        elif self.report is not None:
            entry = next((e for e in self.report.questions if e.id == message.key), None)
            if entry is not None:
                self.detail.update(question_detail(entry))

    def _open(self, path: Path) -> None:
        from workbench.authoring.runs import read_report

        try:
            report = read_report(path)
        except EXPECTED as exc:
            self.post_message(JobFailed("report", expected_message(exc)))
            return
        self.report = report
        summary = report.summary
        counts = (
            score_counts(summary) if summary is not None else "no summary (the evaluation stopped)"
        )
        objective = ", ".join(
            f"{t.task} {'met' if t.met else 'not met'}" for t in report.business_objective
        )
        apart = f"\nbusiness objective (not scored): {objective}" if objective else ""
        self.summary.update(styled("[b]$name[/b] · $rest", name=path.name, rest=counts + apart))
        self.questions.show(report.questions)
        if report.questions:
            self.detail.update(question_detail(report.questions[0]))

    def on_job_failed(self, message: JobFailed) -> None:
        """Say why a report could not be read."""
        self.summary.update(
            styled("[b]Cannot read the report:[/b] $message", message=message.message)
        )
