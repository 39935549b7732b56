"""Campaign check findings: every question's branches run from the reference play."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Button, Input, Static

from workbench.tui.errors import EXPECTED, expected_message
from workbench.tui.markup import styled
from workbench.tui.messages import CheckFinished, JobFailed, JobProgress
from workbench.tui.screens.base import AuthorScreen
from workbench.tui.widgets.author import FindingsTable, KeyedTable, at
from workbench.tui.widgets.inputs import FormInput
from workbench.tui.widgets.progress import JobProgress as JobBar

if TYPE_CHECKING:
    from workbench.authoring.check import CheckReport, Finding


class CheckScreen(AuthorScreen):
    """Run `check` on a campaign in a worker (at once, and on `r`); browse its findings.

    It is the CLI's `workbench check`: `check_campaign` with its defaults, the campaign's
    seed and `DEFAULT_SEEDS` others, so the screen and the command find the same things.
    """

    DEFAULT_CSS = """
    CheckScreen .form-row {
        height: auto;
    }
    CheckScreen #check-summary, CheckScreen #finding-detail {
        height: auto;
        padding: 0 1;
    }
    """
    HOME = "FindingsTable"
    BINDINGS = [Binding("r", "check", "Run check")]

    def __init__(self) -> None:
        super().__init__()
        self.findings: tuple[Finding, ...] = ()
        self.ok: bool | None = None
        self.latest = 0
        """The token of the last check asked for: an earlier one's messages are dropped."""

    def compose_body(self) -> ComposeResult:
        """Campaign field, progress, verdict, findings table and the highlighted finding."""
        self.campaign = FormInput(placeholder="campaign directory", id="check-campaign")
        self.progress = JobBar()
        self.summary = Static("Checking …", id="check-summary")
        self.table = FindingsTable()
        self.detail = Static(id="finding-detail")
        with Horizontal(classes="form-row"):
            yield self.campaign
            yield Button("Check (r)", id="check-go", variant="primary")
        yield self.progress
        yield self.summary
        yield self.table
        yield self.detail

    def on_mount(self) -> None:
        """Check the app's campaign at once."""
        self.campaign.value = str(self.author.campaign)
        self.action_check()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The check button."""
        self.action_check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the campaign field checks it."""
        self.action_check()
        self.table.focus()

    def action_check(self) -> None:
        """Start the check in a worker."""
        text = self.campaign.value.strip()
        if not text:
            self.notify("Type a campaign directory.", severity="error")
            return
        self.summary.update(Content(f"Checking {text} …"))
        self._show_findings(())
        self.progress.start()
        self.latest += 1
        self.check(Path(text), self.latest)

    @work(thread=True, exclusive=True, group="check")
    def check(self, campaign: Path, token: int) -> None:
        """Run the author checks off the UI thread; report with messages carrying `token`."""
        from workbench.authoring.check import check_campaign

        def progress(done: int, total: int, label: str) -> None:
            self.post_message(JobProgress("check", done, total, label, token))

        try:
            report = check_campaign(campaign, self.author.control, progress=progress)
        except EXPECTED as exc:
            self.post_message(JobFailed("check", expected_message(exc), token))
            return
        self.post_message(CheckFinished(campaign, report, token))

    def on_job_progress(self, message: JobProgress) -> None:
        """Move the bar and name the question being checked."""
        if message.token != self.latest:
            return
        self.progress.step(message.done, message.total)
        self.summary.update(Content(f"Checking … {message.done}/{message.total} {message.label}"))

    def on_job_failed(self, message: JobFailed) -> None:
        """Say why the check could not run."""
        if message.token != self.latest:
            return
        self.progress.finish()
        self._show_findings(())
        self.summary.update(styled("[b]Check failed:[/b] $message", message=message.message))
        self.notify(message.message, severity="error", timeout=8)

    def on_check_finished(self, message: CheckFinished) -> None:
        """Show the verdict (the admission gate's, `check --strict`) and the findings
        (of the last check asked for: one it replaced may finish after it)."""
        if message.token != self.latest:
            return
        self.progress.finish()
        report = message.report
        self.findings, self.ok = report.findings, report.ok
        verdict, plain = _verdict(report)
        counts = (
            f"{report.count('error')} error(s), {report.count('warning')} warning(s), "
            f"{report.count('info')} info · {report.seeds} other seed(s)"
        )
        self.summary.update(
            Content(f"Check of {message.campaign}: ") + verdict + Content(f" · {counts}")
        )
        self._show_findings(report.findings)
        self.notify(f"Check finished: {plain}")

    def on_keyed_table_highlighted(self, message: KeyedTable.Highlighted) -> None:
        """Show the highlighted finding in full."""
        self._detail()

    def _show_findings(self, findings: tuple[Finding, ...]) -> None:
        """List `findings` (none while a check runs or after one failed: the table never
        shows one campaign's findings under another's name)."""
        self.findings = findings
        self.table.show(findings)
        self._detail()

    def _detail(self) -> None:
        """The finding the table highlights now, in full; nothing when there is none.

        A highlight message names a row as it was when it was posted: a check started,
        failed or finished since emptied or refilled the table, and its row index read
        past the findings (IndexError closed the app) or named another check's finding.
        """
        f = at(self.findings, self.table.selected)
        if f is None:
            self.detail.update("")
            return
        self.detail.update(
            styled(
                "[b]$question[/b] $rest\n[dim]$where[/dim]",
                question=f.question,
                rest=f"· {f.branch} · {f.severity} · {f.kind}\n{f.message}",
                where=f.where,
            )
        )


def _verdict(report: CheckReport) -> tuple[Content, str]:
    """The report's verdict styled for the summary, and in plain words for a notification:
    errors, warnings only (`check` passes, `check --strict` does not), or nothing."""
    if not report.ok:
        return styled("[red]errors found[/red]"), "errors found"
    if not report.passes(strict=True):
        words = "warnings: fails check --strict"
        return styled("[yellow]$words[/yellow]", words=words), words
    return styled("[green]OK[/green]"), "OK"
