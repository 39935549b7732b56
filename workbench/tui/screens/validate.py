"""Author mode: run the offline evaluator on a run and `check` on a campaign, in workers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Input, ProgressBar, Static

from workbench.errors import WorkbenchError
from workbench.tui.screens.base import WorkbenchScreen

if TYPE_CHECKING:
    from workbench.authoring.check import Finding


def branch_text(name: str, record: dict[str, Any] | None) -> str:
    """One branch record's status, outcome and reason."""
    if record is None:
        return f"{name}: not run"
    reason = f" — {record['reason']}" if record.get("reason") else ""
    return (
        f"{name} [i]{record.get('name', '')}[/i]: {record['status']}, "
        f"outcome {record.get('outcome')}{reason}"
    )


def question_detail(entry: dict[str, Any]) -> str:
    """A report entry: status, both branches, effect, prediction, score, conclusion."""
    branches = entry.get("branches") or {}
    submission = entry.get("submission") or {}
    conclusion = entry.get("conclusion")
    lines = [
        f"[b]{entry['id']}[/b]: {entry['status']}"
        + (f" ({entry['reason']})" if entry.get("reason") else ""),
        branch_text("baseline", branches.get("baseline")),
        branch_text("intervention", branches.get("intervention")),
        f"effect {entry.get('effect')}  prediction {submission.get('value')}  "
        f"loss {entry.get('loss')}  score {entry.get('score')}",
    ]
    if conclusion:
        lines.append(f"conclusion: {conclusion}")
    return "\n".join(lines)


class ValidateScreen(WorkbenchScreen):
    """Validate a run (ctrl+v) or check a campaign (ctrl+k); browse the results."""

    AUTO_FOCUS = "#validate-go"
    BINDINGS = [
        Binding("ctrl+v", "validate", "Validate run", priority=True),
        Binding("ctrl+k", "check", "Check campaign", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.report: dict[str, Any] | None = None
        self.findings: tuple[Finding, ...] = ()

    def compose(self) -> ComposeResult:
        """Run form, progress, report table and detail; campaign form and findings."""
        yield from self.compose_frame()
        with VerticalScroll(id="validate-body"):
            with Horizontal(classes="form-row"):
                yield Input(placeholder="run directory", id="validate-run")
                yield Input(placeholder="control file (private)", id="validate-control")
                yield Input(placeholder="agent id", id="validate-agent")
                yield Button("Validate (ctrl+v)", id="validate-go", variant="primary")
            yield ProgressBar(id="validate-progress", show_eta=False)
            yield Static(id="validate-summary")
            yield DataTable(id="report", cursor_type="row", zebra_stripes=True)
            yield Static(id="report-detail")
            with Horizontal(classes="form-row"):
                yield Input(placeholder="campaign directory", id="check-campaign")
                yield Button("Check (ctrl+k)", id="check-go")
            yield Static(id="check-summary")
            yield DataTable(id="findings", cursor_type="row")
        yield self.footer()

    def on_mount(self) -> None:
        """Columns and default paths (the current run and its campaign)."""
        self.query_one("#report", DataTable).add_columns(
            "Question", "Status", "Baseline", "Intervention", "Score"
        )
        self.query_one("#findings", DataTable).add_columns("Question", "Branch", "Level", "Message")
        self.query_one("#validate-run", Input).value = str(self.workbench.run_dir)
        self.query_one("#check-campaign", Input).value = str(self.session.bundle.path)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The two buttons."""
        if event.button.id == "validate-go":
            self.action_validate()
        elif event.button.id == "check-go":
            self.action_check()

    def _control(self) -> Any:
        from workbench.runs.registration import load_control

        path = self.query_one("#validate-control", Input).value.strip()
        return load_control(path) if path else None

    def _path_and_control(self, field: str, missing: str) -> tuple[Path, Any] | None:
        """The typed path and control file, or None after notifying what is wrong."""
        value = self.query_one(field, Input).value.strip()
        if not value:
            self.notify(missing, severity="error")
            return None
        try:
            return Path(value), self._control()
        except WorkbenchError as exc:
            self.notify(exc.message, severity="error")
            return None

    def action_validate(self) -> None:
        """Start the evaluator in a worker, into a new sibling output directory."""
        inputs = self._path_and_control("#validate-run", "Type a run directory.")
        if inputs is None:
            return
        run, control = inputs
        agent = self.query_one("#validate-agent", Input).value.strip() or None
        self.query_one("#validate-progress", ProgressBar).update(total=None, progress=0)
        self.query_one("#validate-summary", Static).update("validating…")
        self.evaluate(run, control, agent)

    def _progress(self, bar_id: str) -> Callable[[int, int, str], None]:
        bar = self.query_one(bar_id, ProgressBar)

        def progress(done: int, total: int, label: str) -> None:
            self.app.call_from_thread(bar.update, total=total, progress=done)

        return progress

    @work(thread=True, exclusive=True, group="validate")
    def evaluate(self, run: Path, control: Any, agent: str | None) -> None:
        """Run the offline evaluator off the UI thread."""
        from workbench.evaluation.evaluator import run_evaluation
        from workbench.play.demo import next_free

        out = next_free(run.parent / f"{run.name}-validation")
        try:
            outcome = run_evaluation(
                run,
                out,
                control=control,
                agent=agent,
                progress=self._progress("#validate-progress"),
            )
        except WorkbenchError as exc:
            self.app.call_from_thread(self._failed, "#validate-summary", exc.message)
            return
        self.app.call_from_thread(
            self._show_report, outcome.report.to_json(), outcome.report_path, outcome.message
        )

    def _failed(self, where: str, message: str) -> None:
        self.query_one(where, Static).update(f"[b]failed:[/b] {message}")
        self.notify(message, severity="error", timeout=8)

    def _show_report(self, report: dict[str, Any], path: Path | None, message: str) -> None:
        self.report = report
        summary = report.get("summary") or {}
        text = ", ".join(f"{k} {v}" for k, v in summary.items()) or message
        where = f"\nreport: {path}" if path else ""
        self.query_one("#validate-summary", Static).update(f"{text}{where}")
        table = self.query_one("#report", DataTable)
        table.clear()
        for entry in report.get("questions", []):
            branches = entry.get("branches") or {}
            table.add_row(
                entry["id"],
                entry["status"],
                *((branches.get(b) or {}).get("status", "-") for b in ("baseline", "intervention")),
                str(entry.get("score")),
                key=entry["id"],
            )
        if table.row_count:
            table.focus()
            self._detail(str(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value))
        self.notify(f"Validation finished: {message or 'report written'}")

    def _detail(self, question_id: str) -> None:
        entries = (self.report or {}).get("questions", [])
        entry = next((e for e in entries if e["id"] == question_id), None)
        if entry is not None:
            self.query_one("#report-detail", Static).update(question_detail(entry))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Browse the report question by question."""
        if event.data_table.id == "report" and event.row_key.value is not None:
            self._detail(str(event.row_key.value))

    def action_check(self) -> None:
        """Run the author checks on a campaign in a worker."""
        inputs = self._path_and_control("#check-campaign", "Type a campaign directory.")
        if inputs is None:
            return
        campaign, control = inputs
        self.query_one("#validate-progress", ProgressBar).update(total=None, progress=0)
        self.query_one("#check-summary", Static).update("checking…")
        self.check(campaign, control)

    @work(thread=True, exclusive=True, group="check")
    def check(self, campaign: Path, control: Any) -> None:
        """Run `check` off the UI thread."""
        from workbench.authoring.check import check_campaign

        try:
            report = check_campaign(
                campaign, control, progress=self._progress("#validate-progress")
            )
        except WorkbenchError as exc:
            self.app.call_from_thread(self._failed, "#check-summary", exc.message)
            return
        self.app.call_from_thread(self._show_findings, report.ok, report.findings)

    def _show_findings(self, ok: bool, findings: tuple[Finding, ...]) -> None:
        self.findings = findings
        verdict = "OK" if ok else "errors found"
        self.query_one("#check-summary", Static).update(
            f"Check {verdict}: {len(findings)} finding(s)"
        )
        table = self.query_one("#findings", DataTable)
        table.clear()
        for f in findings:
            table.add_row(f.question, f.branch, f.severity, f.message)
        self.notify(f"Check finished: {verdict}")
