"""The causal-gym panel: load a task, read its dictionary and data, estimate, submit, score."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Select, Static, TextArea

from graders.causal_gym.panel import PanelError
from graders.causal_gym.tasks import CausalGenerationError
from workbench.tui.markup import joined, styled
from workbench.tui.messages import JobFailed, TaskLoaded
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.inputs import FormInput, NumberInput
from workbench.tui.widgets.tables import Table

PANEL_ERRORS: tuple[type[Exception], ...] = (PanelError, CausalGenerationError)
"""What CausalPanel raises for a request it cannot serve (shown, never a traceback)."""

TASK_ID_DIGITS = 9
"""The task id field's width: ids 0 to 999,999,999 (the generator takes up to 2**64 - 1)."""


def breakdown_lines(data: dict[str, Any], indent: str = "") -> list[str]:
    """A nested score breakdown as indented "key: value" lines."""
    lines = []
    for key, value in data.items():
        if isinstance(value, dict):
            lines.append(f"{indent}{key}:")
            lines += breakdown_lines(value, indent + "  ")
        elif isinstance(value, float):
            lines.append(f"{indent}{key}: {value:.4f}")
        else:
            lines.append(f"{indent}{key}: {value}")
    return lines


class CausalScreen(PlayerScreen):
    """Load (ctrl+l), estimate, compose the answer, submit (ctrl+s); truth after scoring."""

    DEFAULT_CSS = """
    CausalScreen .form-row {
        height: auto;
    }
    CausalScreen Select {
        width: 18;
    }
    CausalScreen Button {
        margin: 0 1 0 0;
    }
    CausalScreen TextArea {
        height: 7;
    }
    CausalScreen #causal-preview {
        height: auto;
        max-height: 11;
    }
    CausalScreen Static {
        padding: 0 1;
    }
    """
    HOME = "#causal-load"
    BINDINGS = [
        Binding("ctrl+l", "load", "Load task"),
        Binding("ctrl+s", "submit", "Submit"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.panel: Any = None
        self.last_estimate: Any = None
        self.result: Any = None

    def compose_body(self) -> ComposeResult:
        """Task picker, dictionary, preview, helpers, answer and result."""
        from graders.causal_gym.families import FAMILIES
        from graders.causal_gym.keys import NAMESPACES

        self.family: Select[str] = Select(
            [(f, f) for f in FAMILIES], value=next(iter(FAMILIES)), allow_blank=False
        )
        self.split: Select[str] = Select(
            [(s, s) for s in NAMESPACES], value="train", allow_blank=False
        )
        self.task_id = NumberInput(
            "0", placeholder="task id", field="Task id", max_length=TASK_ID_DIGITS
        )
        self.info = Static("Pick a family, split and task id, then load.", id="causal-info")
        self.preview = Table(id="causal-preview")
        self.dictionary = Static(id="causal-dictionary")
        self.columns = FormInput(
            placeholder="adjust for: pre-treatment columns, comma separated (enter runs OLS)",
            id="causal-columns",
        )
        self.estimate = Static(id="causal-estimate")
        self.answer = TextArea(id="causal-answer", language="json")
        self.outcome = Static(id="causal-result")
        with VerticalScroll():
            with Horizontal(classes="form-row"):
                yield self.family
                yield self.split
                yield self.task_id
                yield Button("Load (ctrl+l)", id="causal-load", variant="primary")
            yield self.info
            yield self.preview
            yield self.dictionary
            with Horizontal(classes="form-row"):
                yield self.columns
                yield Button("Diff in means", id="causal-dim")
                yield Button("Adjusted OLS", id="causal-ols")
            yield self.estimate
            yield self.answer
            with Horizontal(classes="form-row"):
                yield Button("Use estimate", id="causal-use")
                yield Button("Submit (ctrl+s)", id="causal-submit", variant="primary")
            yield self.outcome

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Route the buttons."""
        actions = {
            "causal-load": self.action_load,
            "causal-dim": self.action_diff_in_means,
            "causal-ols": self.action_adjusted,
            "causal-use": self.action_use_estimate,
            "causal-submit": self.action_submit,
        }
        actions[event.button.id or ""]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in "adjust for" runs the adjusted OLS; in the task id, loads."""
        if event.input is self.columns:
            self.action_adjusted()
        elif event.input is self.task_id:
            self.action_load()

    def action_load(self) -> None:
        """Materialise the chosen task in a worker."""
        task_id = self.task_id.number(0, 10**TASK_ID_DIGITS - 1)
        if task_id is None:
            return
        self.info.update("loading …")
        self.load_task(str(self.family.value), str(self.split.value), task_id)

    @work(thread=True, exclusive=True, group="causal-load")
    def load_task(self, family: str, split: str, task_id: int) -> None:
        """Generate the task, and load the estimator, off the UI thread; report back with a
        message."""
        from graders.causal_gym.panel import CausalPanel
        from graders.causal_gym.reference import load_fitting

        try:
            panel = CausalPanel()
            info = panel.load(family, split, task_id)
            load_fitting()
            frame = panel.preview(8)
            readme = panel.data_dictionary()
        except PANEL_ERRORS as exc:
            self.post_message(JobFailed("causal-load", str(exc)))
            return
        self.post_message(TaskLoaded(panel, info, frame, readme))

    def on_job_failed(self, message: JobFailed) -> None:
        """Show a worker's error where its result would go."""
        self._error(self.info, message.message)

    def _error(self, where: Static, message: str) -> None:
        where.update(styled("[b]error:[/b] $message", message=message))
        self.notify(message, severity="error", timeout=8)

    def on_task_loaded(self, message: TaskLoaded) -> None:
        """Show the loaded task: description, preview rows, data dictionary."""
        info, frame = message.info, message.frame
        self.panel, self.result, self.last_estimate = message.panel, None, None
        self.info.update(
            styled(
                "[b]$family[/b] $task",
                family=info.family,
                task=f"{info.split} #{info.task_id}: effect of {info.treatment} "
                f"on {info.outcome}, {info.rows} rows\npre-treatment: "
                f"{', '.join(info.pre_treatment)}\npost-treatment: "
                f"{', '.join(info.post_treatment) or 'none'}",
            )
        )
        self.preview.clear(columns=True)
        self.preview.add_columns(*(str(c) for c in frame.columns))
        for row in frame.itertuples(index=False):
            self.preview.add_row(*(str(v) for v in row))
        self.dictionary.update(Text(message.readme))
        self.answer.text = ""
        self.estimate.update("")
        self.outcome.update("")

    def _estimate(self, columns: list[str]) -> None:
        if self.panel is None:
            self.notify("Load a task first.", severity="error")
            return
        try:
            if columns:
                estimate = self.panel.adjusted_ols(columns)
            else:
                estimate = self.panel.difference_in_means()
        except PANEL_ERRORS as exc:
            self._error(self.estimate, str(exc))
            return
        self.last_estimate = (estimate, columns)
        how = f"OLS adjusted for {', '.join(columns)}" if columns else "difference in means"
        self.estimate.update(
            Content(
                f"{how}: {estimate.estimate:.4f} (SE {estimate.se:.4f}), 90% interval "
                f"[{estimate.lo:.4f}, {estimate.hi:.4f}], {estimate.n_used} rows used"
            )
        )

    def action_diff_in_means(self) -> None:
        """Treated minus control mean."""
        self._estimate([])

    def action_adjusted(self) -> None:
        """OLS adjusted for the typed columns."""
        columns = [c.strip() for c in self.columns.value.split(",") if c.strip()]
        if not columns:
            self.notify("Type the columns to adjust for.", severity="error")
            return
        self._estimate(columns)

    def action_use_estimate(self) -> None:
        """Fill the answer with the last estimate and the family's other required fields."""
        if self.panel is None or self.last_estimate is None:
            self.notify("Compute an estimate first.", severity="error")
            return
        estimate, columns = self.last_estimate
        answer: dict[str, Any] = {
            "estimate": round(estimate.estimate, 6),
            "interval": [round(estimate.lo, 6), round(estimate.hi, 6)],
        }
        required = self.panel.submission_schema().get("required", [])
        if "adjustment_set" in required:
            answer["adjustment_set"] = columns
        if "effect_probability" in required:
            answer["effect_probability"] = 0.5
        self.answer.text = json.dumps(answer, indent=1)

    def action_submit(self) -> None:
        """Validate and score the typed answer; reveal the truth once scored."""
        if self.panel is None:
            self.notify("Load a task first.", severity="error")
            return
        try:
            result = self.panel.submit(self.answer.text)
        except PANEL_ERRORS as exc:
            self._error(self.outcome, str(exc))
            return
        self.result = result
        if not result.accepted:
            errors = "; ".join(str(e.get("msg", e)) for e in result.errors) or result.message
            self.outcome.update(styled("[b]not accepted:[/b] $errors", errors=errors))
            self.notify(errors or "submission rejected", severity="error")
            return
        lines: list[Content | str] = [result.message] if result.message else []
        if result.score is not None:
            lines += breakdown_lines(result.score.to_dict())
        try:
            truth = f"{self.panel.truth():.4f}"
            lines.append(styled("[b]truth (revealed after scoring): $truth[/b]", truth=truth))
        except PANEL_ERRORS as exc:
            lines.append(str(exc))
        self.outcome.update(joined(lines))
        self.notify("Causal answer scored")
