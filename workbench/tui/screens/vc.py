"""The VC deal-math panel: generate an item or paste a transcript, grade it, grade a file."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, DataTable, Input, ProgressBar, Select, Static, TextArea

from graders.vc_deal.batch import BatchReport
from graders.vc_deal.generator import DEFAULT_SEED
from graders.vc_deal.panel import TextGrade, VCPanel
from workbench.errors import UserError, WorkbenchError, reraised
from workbench.tui.screens.base import WorkbenchScreen

PANEL_ERRORS: tuple[type[Exception], ...] = (ValueError,)
"""What VCPanel raises for bad input (its documented contract: ValueError and subclasses)."""


def highlighted(grade: TextGrade) -> Text:
    """The graded text with the matched cue and the extracted number highlighted."""
    text = Text(grade.text)
    if grade.cue_span is not None:
        text.stylize("reverse yellow", *grade.cue_span)
    if grade.number_span is not None:
        text.stylize("bold reverse green", *grade.number_span)
    return text


def verdict_text(grade: TextGrade) -> str:
    """Extraction and verdicts as one block."""
    found = "nothing" if grade.extracted is None else f"{grade.extracted:g} ({grade.token})"
    cue = f" after cue {grade.cue!r}" if grade.cue else ""
    return (
        f"Extracted {found} via {grade.source}{cue}; gold {grade.gold:g}\n"
        f"strict {'✓' if grade.strict_correct else '✗'}  "
        f"loose {'✓' if grade.loose_correct else '✗'}  "
        f"format {'✓' if grade.format_valid_number else '✗'}  reward {grade.reward:g}"
    )


class VCScreen(WorkbenchScreen):
    """Generate (`g`), grade the text (ctrl+g), batch-grade a JSONL file (ctrl+b)."""

    AUTO_FOCUS = "#vc-generate"
    BINDINGS = [
        Binding("ctrl+g", "grade", "Grade text", priority=True),
        Binding("ctrl+b", "batch", "Grade file", priority=True),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.panel = VCPanel()
        self.last_grade: TextGrade | None = None
        self.last_report: BatchReport | None = None

    def compose(self) -> ComposeResult:
        """Generator row, item, transcript and verdicts, then batch grading."""
        yield from self.compose_frame()
        with VerticalScroll(id="vc-body"):
            with Horizontal(classes="form-row"):
                yield Select(
                    [("easy", "easy"), ("hard", "hard")],
                    value="easy",
                    allow_blank=False,
                    id="vc-difficulty",
                )
                yield Input(str(DEFAULT_SEED), placeholder="seed", id="vc-seed", type="integer")
                yield Input("0", placeholder="index", id="vc-index", type="integer")
                yield Button("Generate", id="vc-generate")
            yield Static(
                "Generate an item, or paste a transcript and type the gold answer.", id="vc-item"
            )
            yield TextArea(id="vc-text")
            with Horizontal(classes="form-row"):
                yield Input(placeholder="gold answer", id="vc-gold")
                yield Button("Grade (ctrl+g)", id="vc-grade", variant="primary")
            yield Static(id="vc-highlight")
            yield Static(id="vc-verdict")
            with Horizontal(classes="form-row"):
                yield Input(placeholder="JSONL file to grade", id="vc-file")
                yield Button("Grade file (ctrl+b)", id="vc-batch")
            yield ProgressBar(id="vc-progress", show_eta=False)
            yield DataTable(id="vc-summary")
        yield self.footer()

    def on_mount(self) -> None:
        """Summary columns."""
        self.query_one("#vc-summary", DataTable).add_columns(
            "Difficulty", "Count", "Strict", "Loose", "Format", "Gap"
        )

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Route the three buttons."""
        {
            "vc-generate": self.action_generate,
            "vc-grade": self.action_grade,
            "vc-batch": self.action_batch,
        }[event.button.id or ""]()

    def action_generate(self) -> None:
        """Generate the chosen item and put its question and gold answer in the form."""
        seed, index = self.query_one("#vc-seed", Input).value, self.query_one("#vc-index", Input)
        if not seed.strip().lstrip("-").isdigit() or not index.value.strip().isdigit():
            self.notify("Seed and index must be whole numbers.", severity="error")
            return
        difficulty = str(self.query_one("#vc-difficulty", Select).value)
        try:
            with reraised(UserError, *PANEL_ERRORS):
                item = self.panel.generate_item(difficulty, int(seed), int(index.value))  # type: ignore[arg-type]
        except WorkbenchError as exc:
            self.notify(exc.message, severity="error")
            return
        self.query_one("#vc-item", Static).update(Text(item.question))
        self.query_one("#vc-gold", Input).value = f"{item.answer}"
        self.query_one("#vc-text", TextArea).text = ""

    def action_grade(self) -> None:
        """Grade the transcript against the gold answer."""
        text = self.query_one("#vc-text", TextArea).text
        gold = self.query_one("#vc-gold", Input).value.strip()
        try:
            with reraised(UserError, *PANEL_ERRORS):
                grade = self.panel.grade_text(text, gold)
        except WorkbenchError as exc:
            self.notify(f"Cannot grade: {exc.message}", severity="error")
            return
        self.last_grade = grade
        self.query_one("#vc-highlight", Static).update(highlighted(grade))
        self.query_one("#vc-verdict", Static).update(verdict_text(grade))

    def action_batch(self) -> None:
        """Grade a JSONL file in a worker."""
        path = self.query_one("#vc-file", Input).value.strip()
        if not path:
            self.notify("Type the path of a JSONL file to grade.", severity="error")
            return
        self.query_one("#vc-progress", ProgressBar).update(total=None, progress=0)
        self.grade_file(Path(path))

    @work(thread=True, exclusive=True, group="vc-batch")
    def grade_file(self, path: Path) -> None:
        """Grade the file off the UI thread, reporting progress."""
        bar = self.query_one("#vc-progress", ProgressBar)

        def progress(done: int, total: int) -> None:
            self.app.call_from_thread(bar.update, total=total, progress=done)

        try:
            with reraised(UserError, *PANEL_ERRORS):
                report = self.panel.grade_batch(path, progress=progress)
        except WorkbenchError as exc:
            self.app.call_from_thread(self.notify, exc.message, severity="error")
            return
        self.app.call_from_thread(self._show_report, report)

    def _show_report(self, report: BatchReport) -> None:
        self.last_report = report
        table = self.query_one("#vc-summary", DataTable)
        table.clear()
        groups = [*sorted(report.summary.by_difficulty.items()), ("all", report.summary.overall)]
        for name, acc in groups:
            table.add_row(
                name,
                str(acc.count),
                f"{acc.strict:.3f}",
                f"{acc.loose:.3f}",
                f"{acc.format_valid:.3f}",
                f"{acc.gap:.3f}",
            )
        self.notify(f"Graded {report.summary.overall.count} line(s)")
