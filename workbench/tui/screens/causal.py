"""The causal-gym panel: load a task, read its dictionary and data, estimate, submit, score."""

from __future__ import annotations

import json
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Input, Select, Static, TextArea

from workbench.errors import UserError, WorkbenchError, reraised
from workbench.tui.screens.base import WorkbenchScreen


def panel_errors() -> tuple[type[Exception], ...]:
    """What CausalPanel raises for a request it cannot serve (imported when first needed)."""
    from graders.causal_gym.panel import PanelError
    from graders.causal_gym.tasks import CausalGenerationError

    return (PanelError, CausalGenerationError)


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


class CausalScreen(WorkbenchScreen):
    """Load (ctrl+l), estimate, compose the answer, submit (ctrl+s); truth after scoring."""

    AUTO_FOCUS = "#causal-load"
    BINDINGS = [
        Binding("ctrl+l", "load", "Load task", priority=True),
        Binding("ctrl+s", "submit", "Submit", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.panel: Any = None
        self.last_estimate: Any = None
        self.result: Any = None

    def compose(self) -> ComposeResult:
        """Task picker, dictionary, preview, helpers, answer and result."""
        from graders.causal_gym.families import FAMILIES
        from graders.causal_gym.keys import NAMESPACES

        yield from self.compose_frame()
        with VerticalScroll(id="causal-body"):
            with Horizontal(classes="form-row"):
                yield Select(
                    [(f, f) for f in FAMILIES],
                    value=next(iter(FAMILIES)),
                    allow_blank=False,
                    id="causal-family",
                )
                yield Select(
                    [(s, s) for s in NAMESPACES],
                    value="train",
                    allow_blank=False,
                    id="causal-split",
                )
                yield Input("0", placeholder="task id", id="causal-task", type="integer")
                yield Button("Load (ctrl+l)", id="causal-load", variant="primary")
            yield Static("Pick a family, split and task id, then load.", id="causal-info")
            yield DataTable(id="causal-preview")
            yield Static(id="causal-dictionary")
            with Horizontal(classes="form-row"):
                yield Input(
                    placeholder="adjust for (comma separated pre-treatment columns)",
                    id="causal-columns",
                )
                yield Button("Diff in means", id="causal-dim")
                yield Button("Adjusted OLS", id="causal-ols")
            yield Static(id="causal-estimate")
            yield TextArea(id="causal-answer", language="json")
            with Horizontal(classes="form-row"):
                yield Button("Use estimate", id="causal-use")
                yield Button("Submit (ctrl+s)", id="causal-submit", variant="primary")
            yield Static(id="causal-result")
        yield self.footer()

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

    def action_load(self) -> None:
        """Materialise the chosen task in a worker."""
        text = self.query_one("#causal-task", Input).value.strip()
        if not text.isdigit():
            self.notify("The task id is a whole number.", severity="error")
            return
        family = str(self.query_one("#causal-family", Select).value)
        split = str(self.query_one("#causal-split", Select).value)
        self.query_one("#causal-info", Static).update("loading…")
        self.load_task(family, split, int(text))

    @work(thread=True, exclusive=True, group="causal-load")
    def load_task(self, family: str, split: str, task_id: int) -> None:
        """Generate the task off the UI thread."""
        from graders.causal_gym.panel import CausalPanel

        try:
            with reraised(UserError, *panel_errors()):
                panel = CausalPanel()
                info = panel.load(family, split, task_id)
                frame = panel.preview(8)
                readme = panel.data_dictionary()
        except WorkbenchError as exc:
            self.app.call_from_thread(self._error, "#causal-info", exc.message)
            return
        self.app.call_from_thread(self._show_task, panel, info, frame, readme)

    def _error(self, where: str, message: str) -> None:
        self.query_one(where, Static).update(f"[b]error:[/b] {message}")
        self.notify(message, severity="error", timeout=8)

    def _show_task(self, panel: Any, info: Any, frame: Any, readme: str) -> None:
        self.panel, self.result, self.last_estimate = panel, None, None
        self.query_one("#causal-info", Static).update(
            f"[b]{info.family}[/b] {info.split} #{info.task_id}: effect of {info.treatment} "
            f"on {info.outcome}, {info.rows} rows\npre-treatment: "
            f"{', '.join(info.pre_treatment)}\npost-treatment: "
            f"{', '.join(info.post_treatment) or 'none'}"
        )
        table = self.query_one("#causal-preview", DataTable)
        table.clear(columns=True)
        table.add_columns(*(str(c) for c in frame.columns))
        for row in frame.itertuples(index=False):
            table.add_row(*(str(v) for v in row))
        self.query_one("#causal-dictionary", Static).update(Text(readme))
        self.query_one("#causal-answer", TextArea).text = ""
        self.query_one("#causal-estimate", Static).update("")
        self.query_one("#causal-result", Static).update("")

    def _estimate(self, columns: list[str]) -> None:
        if self.panel is None:
            self.notify("Load a task first.", severity="error")
            return
        try:
            with reraised(UserError, *panel_errors()):
                if columns:
                    estimate = self.panel.adjusted_ols(columns)
                else:
                    estimate = self.panel.difference_in_means()
        except WorkbenchError as exc:
            self._error("#causal-estimate", exc.message)
            return
        self.last_estimate = (estimate, columns)
        how = f"OLS adjusted for {', '.join(columns)}" if columns else "difference in means"
        self.query_one("#causal-estimate", Static).update(
            f"{how}: {estimate.estimate:.4f} (SE {estimate.se:.4f}), 90% interval "
            f"[{estimate.lo:.4f}, {estimate.hi:.4f}], {estimate.n_used} rows used"
        )

    def action_diff_in_means(self) -> None:
        """Treated minus control mean."""
        self._estimate([])

    def action_adjusted(self) -> None:
        """OLS adjusted for the typed columns."""
        text = self.query_one("#causal-columns", Input).value
        columns = [c.strip() for c in text.split(",") if c.strip()]
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
        self.query_one("#causal-answer", TextArea).text = json.dumps(answer, indent=1)

    def action_submit(self) -> None:
        """Validate and score the typed answer; reveal the truth once scored."""
        if self.panel is None:
            self.notify("Load a task first.", severity="error")
            return
        raw = self.query_one("#causal-answer", TextArea).text
        try:
            with reraised(UserError, *panel_errors()):
                result = self.panel.submit(raw)
        except WorkbenchError as exc:
            self._error("#causal-result", exc.message)
            return
        self.result = result
        widget = self.query_one("#causal-result", Static)
        if not result.accepted:
            errors = "; ".join(str(e.get("msg", e)) for e in result.errors) or result.message
            widget.update(f"[b]not accepted:[/b] {errors}")
            self.notify(errors or "submission rejected", severity="error")
            return
        lines = [result.message] if result.message else []
        if result.score is not None:
            lines += breakdown_lines(result.score.to_dict())
        try:
            with reraised(UserError, *panel_errors()):
                lines.append(f"[b]truth (revealed after scoring): {self.panel.truth():.4f}[/b]")
        except WorkbenchError as exc:
            lines.append(exc.message)
        widget.update("\n".join(lines))
        self.notify("Causal answer scored")
