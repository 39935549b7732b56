"""The questions table, a question's contract with its cautions, the form, the history."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Button, DataTable, Input, Select, Static

from workbench.display import plain_number, unit_label
from workbench.tui.format import submission_numbers
from workbench.tui.markup import joined, styled
from workbench.tui.widgets.inputs import FormInput
from workbench.tui.widgets.tables import Table

if TYPE_CHECKING:
    from collections.abc import Sequence

    from workbench.play.models import QuestionView, SubmissionRow
    from workbench.play.traps import Trap


def countdown(question: QuestionView) -> str:
    """Days left before the deadline, or closed."""
    return f"{question.days_to_deadline}d left" if question.open else "closed"


def contract_text(
    q: QuestionView, cautions: tuple[str, ...], sprung: tuple[Trap, ...], needs: str | None
) -> Content:
    """A question's public contract, what not to schedule early, and what already broke it."""
    base, arm = q.baseline, q.intervention
    arm_actions = ", ".join(arm.actions) or "none"
    if arm.select_from:
        arm_actions = f"your pick of {', '.join(arm.select_from)}"
    lines: list[Content | str] = [
        styled("[b]$title[/b]", title=q.title),
        styled(
            "Baseline [i]$name[/i]: $actions",
            name=base.name,
            actions=", ".join(base.actions) or "no actions",
        ),
        styled("Intervention [i]$name[/i]: $actions", name=arm.name, actions=arm_actions),
        f"Branches from day {q.intervene_on_day} to day {q.outcome_day}; submit before "
        f"day {q.deadline_day} ({countdown(q)})",
        f"Predict {q.predict} of {q.metric_title} in {unit_label(q.units)} (scale {q.scale})",
        f"Conclusion: {needs}" if needs else "No conclusion required.",
    ]
    lines += [styled("[b red]Unresolvable:[/b red] $text.", text=t.sprung_text) for t in sprung]
    lines += [styled("[yellow]Caution:[/yellow] $text", text=line) for line in cautions]
    return joined(lines)


class QuestionTable(Table):
    """Every question: metric, units, deadline and countdown."""

    COLUMNS = ("Question", "Metric", "Units", "Deadline", "Left")

    DEFAULT_CSS = """
    QuestionTable {
        height: auto;
        max-height: 12;
    }
    """

    class Highlighted(Message):
        """The highlighted question changed."""

        def __init__(self, question_id: str) -> None:
            super().__init__()
            self.question_id = question_id

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(zebra_stripes=True, **kwargs)

    def show(self, questions: Sequence[QuestionView]) -> None:
        """Rows by question id (countdowns updated in place)."""
        for q in questions:
            cells = (q.id, q.metric, unit_label(q.units), str(q.deadline_day))
            if q.id in self.rows:
                self.update_cell(q.id, self.ordered_columns[4].key, countdown(q))
            else:
                self.add_row(*cells, countdown(q), key=q.id)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Tell the screen which question to show."""
        if event.row_key.value is not None:
            self.post_message(self.Highlighted(str(event.row_key.value)))


@dataclass
class Draft:
    """What the player typed for one question."""

    value: str = ""
    conclusion: str = ""
    choice: str | None = None


class AssessmentForm(Vertical):
    """Value, conclusion and choice for one question; each question keeps its own draft."""

    DEFAULT_CSS = """
    AssessmentForm {
        height: auto;
    }
    AssessmentForm Horizontal {
        height: auto;
    }
    AssessmentForm #form-check {
        width: 1fr;
        padding: 1 1 0 1;
    }
    AssessmentForm #form-check.-problem {
        color: $error;
    }
    AssessmentForm #form-check.-ready {
        color: $success;
    }
    AssessmentForm #form-check.-note {
        color: $warning;
    }
    """

    class Edited(Message):
        """The typed text changed: check it."""

    class SubmitAsked(Message):
        """The player asked to submit."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.drafts: dict[str, Draft] = {}
        self.question: str | None = None
        self.value = FormInput(placeholder="predicted difference", id="value", max_length=64)
        self.conclusion = FormInput(placeholder="conclusion", id="conclusion", max_length=512)
        self.choice: Select[str] = Select([], prompt="your pick", id="choice")
        self.check = Static(id="form-check")

    def compose(self) -> ComposeResult:
        """The three fields, the submit button and the check line."""
        yield self.value
        yield self.conclusion
        yield self.choice
        with Horizontal():
            yield Button("Submit (ctrl+s)", id="submit", variant="primary")
            yield self.check

    def load(self, question: QuestionView, needs: str | None) -> None:
        """Show `question`'s own draft (empty for a question not typed into yet)."""
        if question.id == self.question:
            return
        self._save()
        self.question = question.id
        draft = self.drafts.get(question.id, Draft())
        with self.prevent(Input.Changed, Select.Changed):
            self.value.value = draft.value
            self.value.placeholder = (
                f"predicted {question.metric} difference ({unit_label(question.units)})"
            )
            self.conclusion.display = needs is not None
            self.conclusion.value = draft.conclusion
            self.conclusion.placeholder = needs or ""
            picks = question.intervention.select_from
            self.choice.display = bool(picks)
            self.choice.set_options([(a, a) for a in picks])
            if draft.choice in picks:
                self.choice.value = draft.choice
        self.post_message(self.Edited())

    def _save(self) -> None:
        if self.question is not None:
            self.drafts[self.question] = self.draft()

    def draft(self) -> Draft:
        """The text in the fields now."""
        choice = None if self.choice.is_blank() else str(self.choice.value)
        return Draft(self.value.value, self.conclusion.value, choice)

    def show_check(self, problems: tuple[str, ...], note: str) -> None:
        """The shared check's verdict: its errors, or ready (with a note such as ineligible)."""
        self.check.update(Content("; ".join(problems) if problems else note))
        self.check.set_class(bool(problems), "-problem")
        self.check.set_class(not problems and note == "ready to submit", "-ready")
        self.check.set_class(not problems and note != "ready to submit", "-note")

    def on_input_changed(self, event: Input.Changed) -> None:
        """Check as the player types."""
        event.stop()
        self.post_message(self.Edited())

    def on_select_changed(self, event: Select.Changed) -> None:
        """Check when the pick changes."""
        event.stop()
        self.post_message(self.Edited())

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a field submits."""
        event.stop()
        self.post_message(self.SubmitAsked())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The submit button."""
        event.stop()
        self.post_message(self.SubmitAsked())


class SubmissionHistory(Table):
    """Own submissions, numbered per question: eligibility, and which one counts for its
    question; the journal seq last, to find the entry on the Journal screen."""

    COLUMNS = (
        "Question",
        "Submission",
        "Day",
        "Value",
        "Conclusion",
        "Pick",
        "Eligible",
        "Counts",
        "Journal seq",
    )

    DEFAULT_CSS = """
    SubmissionHistory {
        height: auto;
        max-height: 10;
    }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)

    def show(self, submissions: Sequence[SubmissionRow]) -> None:
        """Rows for every submission (appended; eligibility and counting updated in place)."""
        numbers = submission_numbers(submissions)
        for s in submissions:
            conclusion = s.conclusion
            if isinstance(conclusion, list):
                conclusion = ", ".join(str(c) for c in conclusion) or "none"
            key = str(s.seq)
            counts = "✓" if s.counts else ""
            if key in self.rows:
                self.update_cell(key, self.ordered_columns[7].key, counts)
                continue
            self.add_row(
                s.question,
                str(numbers[s.seq]),
                str(s.day),
                plain_number(s.value),
                "" if conclusion is None else str(conclusion),
                s.choice or "",
                "yes" if s.eligible else "no",
                counts,
                key,
                key=key,
            )
