"""The VC deal-math panel: generate an item or paste a transcript, grade it, grade a file."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Select, Static, TextArea

from graders.vc_deal.batch import BatchReport
from graders.vc_deal.generator import DEFAULT_SEED, MAX_NUM_EXAMPLES
from graders.vc_deal.panel import TextGrade, VCPanel
from workbench.tui.messages import BatchGraded, JobFailed, JobProgress
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.inputs import FormInput, NumberInput
from workbench.tui.widgets.progress import JobProgress as JobBar
from workbench.tui.widgets.tables import Table

GRADER_ERRORS = (ValueError,)
"""What the VC panel raises for bad input (GenerationError, TemplateError, GradeInputError)."""


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
        f"format {'✓' if grade.format_valid_number else '✗'}  reward {grade.reward:g}\n"
        + (
            'Ends with "The answer is X" as the prompt asks.'
            if grade.answer_form
            else 'Does not end with "The answer is X" as the prompt asks '
            "(the study's format verdict does not require it; not scored)."
        )
    )


class GradeSummary(Table):
    """Accuracy by difficulty of a graded file."""

    COLUMNS = ("Difficulty", "Count", "Strict", "Loose", "Format", "Gap")


class VCScreen(PlayerScreen):
    """Generate an item, grade the text (ctrl+g), batch-grade a JSONL file (ctrl+b)."""

    DEFAULT_CSS = """
    VCScreen .form-row {
        height: auto;
    }
    VCScreen Select {
        width: 16;
    }
    VCScreen Button {
        margin: 0 1 0 0;
    }
    VCScreen TextArea {
        height: 6;
    }
    VCScreen Static {
        padding: 0 1;
    }
    VCScreen #vc-summary {
        height: auto;
    }
    """
    HOME = "#vc-generate"
    BINDINGS = [
        Binding("ctrl+g", "grade", "Grade text"),
        Binding("ctrl+b", "batch", "Grade file"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.panel = VCPanel()
        self.last_grade: TextGrade | None = None
        self.last_report: BatchReport | None = None

    def compose_body(self) -> ComposeResult:
        """Generator row, item, transcript and verdicts, then batch grading."""
        self.difficulty: Select[str] = Select(
            [("easy", "easy"), ("hard", "hard")], value="easy", allow_blank=False
        )
        self.seed = NumberInput(str(DEFAULT_SEED), placeholder="seed", field="Seed", max_length=12)
        self.index = NumberInput("0", placeholder="index", field="Index", max_length=9)
        self.item = Static(
            "Generate an item, or paste a transcript and type the gold answer.", id="vc-item"
        )
        self.text = TextArea(id="vc-text")
        self.gold = FormInput(placeholder="gold answer", id="vc-gold", max_length=64)
        self.highlight = Static(id="vc-highlight")
        self.verdict = Static(id="vc-verdict")
        self.file = FormInput(placeholder="JSONL file to grade", id="vc-file", max_length=4096)
        self.progress = JobBar(id="vc-progress")
        self.summary = GradeSummary(id="vc-summary")
        with VerticalScroll():
            with Horizontal(classes="form-row"):
                yield self.difficulty
                yield self.seed
                yield self.index
                yield Button("Generate", id="vc-generate")
            yield self.item
            yield self.text
            with Horizontal(classes="form-row"):
                yield self.gold
                yield Button("Grade (ctrl+g)", id="vc-grade", variant="primary")
            yield self.highlight
            yield self.verdict
            with Horizontal(classes="form-row"):
                yield self.file
                yield Button("Grade file (ctrl+b)", id="vc-batch")
            yield self.progress
            yield self.summary

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Route the three buttons."""
        {
            "vc-generate": self.action_generate,
            "vc-grade": self.action_grade,
            "vc-batch": self.action_batch,
        }[event.button.id or ""]()

    def action_generate(self) -> None:
        """Generate the chosen item and put its question and gold answer in the form."""
        seed = self.seed.number()
        index = None if seed is None else self.index.number(0, MAX_NUM_EXAMPLES // 2 - 1)
        if seed is None or index is None:
            return
        try:
            item = self.panel.generate_item(str(self.difficulty.value), seed, index)  # type: ignore[arg-type]
        except GRADER_ERRORS as exc:
            self.notify(str(exc), severity="error")
            return
        self.item.update(Text(item.question))
        self.gold.value = f"{item.answer}"
        self.text.text = ""

    def action_grade(self) -> None:
        """Grade the transcript against the gold answer."""
        try:
            grade = self.panel.grade_text(self.text.text, self.gold.value.strip())
        except GRADER_ERRORS as exc:
            self.notify(f"Cannot grade: {exc}", severity="error")
            return
        self.last_grade = grade
        self.highlight.update(highlighted(grade))
        self.verdict.update(verdict_text(grade))

    def action_batch(self) -> None:
        """Grade a JSONL file in a worker."""
        path = self.file.value.strip()
        if not path:
            self.notify("Type the path of a JSONL file to grade.", severity="error")
            return
        self.progress.start()
        self.grade_file(Path(path))

    @work(thread=True, exclusive=True, group="vc-batch")
    def grade_file(self, path: Path) -> None:
        """Grade the file off the UI thread, reporting progress with messages."""

        def progress(done: int, total: int) -> None:
            self.post_message(JobProgress("vc-batch", done, total))

        try:
            report = self.panel.grade_batch(path, progress=progress)
        except GRADER_ERRORS as exc:
            self.post_message(JobFailed("vc-batch", str(exc)))
            return
        self.post_message(BatchGraded(report))

    def on_job_progress(self, message: JobProgress) -> None:
        """Move the bar."""
        self.progress.step(message.done, message.total)

    def on_job_failed(self, message: JobFailed) -> None:
        """Stop the bar and say why."""
        self.progress.finish()
        self.notify(message.message, severity="error")

    def on_batch_graded(self, message: BatchGraded) -> None:
        """The summary by difficulty."""
        self.progress.finish()
        report = message.report
        self.last_report = report
        self.summary.clear()
        groups = [*sorted(report.summary.by_difficulty.items()), ("all", report.summary.overall)]
        for name, acc in groups:
            self.summary.add_row(
                name,
                str(acc.count),
                f"{acc.strict:.3f}",
                f"{acc.loose:.3f}",
                f"{acc.format_valid:.3f}",
                f"{acc.gap:.3f}",
            )
        self.notify(f"Graded {report.summary.overall.count} line(s)")
