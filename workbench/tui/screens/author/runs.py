"""Validation of finished runs: the runs under a folder, how far each got, validate one."""

from __future__ import annotations

from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static

from workbench.tui.errors import EXPECTED, expected_message
from workbench.tui.markup import styled
from workbench.tui.messages import JobFailed, JobProgress, RunsListed, ValidationFinished
from workbench.tui.screens.base import AuthorScreen
from workbench.tui.widgets.author import KeyedTable, RunsTable
from workbench.tui.widgets.inputs import FormInput
from workbench.tui.widgets.progress import JobProgress as JobBar


class RunsScreen(AuthorScreen):
    """Runs under a folder; `v` or enter validates a finished one (an unfinished one is refused)."""

    DEFAULT_CSS = """
    RunsScreen .form-row {
        height: auto;
    }
    RunsScreen #runs-summary {
        height: auto;
        padding: 0 1;
    }
    """
    HOME = "RunsTable"
    PARTS = (RunsTable,)
    BINDINGS = [Binding("r", "rescan", "Rescan")]

    def compose_body(self) -> ComposeResult:
        """Folder field, runs table, progress and the last validation's summary."""
        self.root = FormInput(placeholder="folder of run directories", id="runs-root")
        self.table = RunsTable()
        self.progress = JobBar()
        self.summary = Static(
            "v or enter on a finished run validates it into a new sibling folder.",
            id="runs-summary",
        )
        with Horizontal(classes="form-row"):
            yield Static("Runs under", classes="label")
            yield self.root
        yield self.table
        yield self.progress
        yield self.summary

    def on_mount(self) -> None:
        """List the app's runs folder."""
        self.root.value = str(self.author.runs_root)
        self.action_rescan()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the folder field lists it."""
        self.action_rescan()
        self.table.focus()

    latest = 0
    """The token of the last listing asked for: an earlier one's result is dropped."""

    def action_rescan(self) -> None:
        """Read every run's state in a worker (each journal is replayed)."""
        self.latest += 1
        self.scan(Path(self.root.value.strip() or "."), self.latest)

    @work(thread=True, exclusive=True, group="scan")
    def scan(self, root: Path, token: int) -> None:
        """List runs and their state off the UI thread (messages carry `token`)."""
        from workbench.authoring.runs import find_runs, run_status

        runs = []
        try:
            found = find_runs(root)
        except EXPECTED as exc:
            self.post_message(JobFailed("scan", expected_message(exc), token))
            return
        for path in found:
            try:
                runs.append(run_status(path, self.author.control))
            except EXPECTED:
                continue
        self.post_message(RunsListed(runs, [], token))

    def on_runs_listed(self, message: RunsListed) -> None:
        """Fill the table (from the last listing asked for: one it replaced may end later)."""
        if message.token != self.latest:
            return
        self.table.show(message.runs)
        if not message.runs:
            self.summary.update(Content(f"No run directories under {self.root.value}."))

    def on_keyed_table_chosen(self, message: KeyedTable.Chosen) -> None:
        """Validate the chosen run (the worker refuses an unfinished one) if it is still
        listed: a listing of another folder since would have had a run the table no longer
        shows validated, its report written beside it."""
        if message.key not in self.table.rows:
            self.notify("That run is no longer listed: choose it again.", severity="warning")
            return
        if self.progress.running:
            self.notify("A validation is already running.", severity="warning")
            return
        self.summary.update(Content(f"Validating {message.key} …"))
        self.progress.start()
        self.validate(Path(message.key))

    @work(thread=True, exclusive=True, group="validate")
    def validate(self, run: Path) -> None:
        """Run the offline evaluator off the UI thread, reporting progress per question."""
        from workbench.authoring.runs import validate_finished

        def progress(done: int, total: int, label: str) -> None:
            self.post_message(JobProgress("validate", done, total, label))

        try:
            out, outcome = validate_finished(run, self.author.control, progress)
        except EXPECTED as exc:
            self.post_message(JobFailed("validate", expected_message(exc)))
            return
        self.post_message(ValidationFinished(out, outcome))

    def on_job_progress(self, message: JobProgress) -> None:
        """Move the bar and name the question being evaluated."""
        self.progress.step(message.done, message.total)
        self.summary.update(Content(f"Validating … {message.done}/{message.total} {message.label}"))

    def on_job_failed(self, message: JobFailed) -> None:
        """Say why the runs could not be listed, or the run was not validated."""
        if message.job == "scan":
            if message.token != self.latest:
                return
            self.table.show([])
            self.summary.update(
                styled("[b]Cannot list the runs:[/b] $message", message=message.message)
            )
            self.notify(message.message, severity="error", timeout=8)
            return
        self.progress.finish()
        self.summary.update(styled("[b]Not validated:[/b] $message", message=message.message))
        self.notify(message.message, severity="error", timeout=8)

    def on_validation_finished(self, message: ValidationFinished) -> None:
        """Summarise the report and offer the report browser."""
        self.progress.finish()
        outcome = message.outcome
        summary = outcome.report.summary
        counts = (
            f"scored {summary.scored}/{summary.questions}, conclusions met "
            f"{summary.conclusions_met}/{summary.conclusions_required}"
            if summary is not None
            else outcome.message
        )
        where = outcome.report_path or message.out
        self.author.last_report = message.out
        self.summary.update(
            Content(
                f"Validated: exit {outcome.exit_code} · {counts}\nreport: {where}"
                " · ctrl+o 3 browses it"
            )
        )
        self.notify(f"Validation finished: report in {message.out}")
