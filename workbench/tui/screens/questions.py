"""Counterfactual questions: each contract, an assessment form with inline checks, history."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Button, DataTable, Input, Select, Static

from sim.campaign_model import Conclusion
from workbench.play.models import QuestionView
from workbench.tui.format import parse_decimal, unit_label
from workbench.tui.screens.base import WorkbenchScreen


def countdown(question: QuestionView) -> str:
    """Days left before the deadline, or closed."""
    return f"{question.days_to_deadline} d left" if question.open else "closed"


def contract_text(q: QuestionView) -> str:
    """A question's public contract as Rich markup."""
    base, arm = q.baseline, q.intervention
    arm_actions = ", ".join(arm.actions) or "none"
    if arm.select_from:
        arm_actions = f"your choice of {', '.join(arm.select_from)}"
    conclusion = q.conclusion
    need = "none"
    if conclusion is not None:
        need = f"{conclusion.kind} of {conclusion.action}"
        if conclusion.component is not None:
            need += f" ({conclusion.component}, dollars to the cent)"
    return (
        f"[b]{q.title}[/b]\n"
        f"Baseline [i]{base.name}[/i]: {', '.join(base.actions) or 'no actions'}\n"
        f"Intervention [i]{arm.name}[/i]: {arm_actions}\n"
        f"Intervene day {q.intervene_on_day}, outcome day {q.outcome_day}, "
        f"deadline day {q.deadline_day} ({countdown(q)})\n"
        f"Predict {q.predict} of {q.metric_title} in {q.units} "
        f"(scale {q.scale})\nConclusion required: {need}"
    )


def conclusion_value(conclusion: Conclusion, text: str) -> str | list[str]:
    """The typed conclusion: a list of effect names, or a money string."""
    if conclusion.kind == "supported_effects":
        return [part.strip() for part in text.split(",") if part.strip()]
    return text.strip()


def conclusion_placeholder(conclusion: Conclusion) -> str:
    """What the conclusion input asks for."""
    if conclusion.kind == "supported_effects":
        return "effect names, comma separated"
    return f"{conclusion.component} in dollars, e.g. -300.00"


class QuestionsScreen(WorkbenchScreen):
    """Pick a question, type a prediction (and conclusion/choice), submit, see the history."""

    AUTO_FOCUS = "#questions"
    BINDINGS = [Binding("ctrl+s", "submit", "Submit", priority=True)]

    def compose(self) -> ComposeResult:
        """Question table, contract and form, then the history."""
        yield from self.compose_frame()
        with VerticalScroll(id="questions-body"):
            with Horizontal(id="questions-top"):
                yield DataTable(id="questions", cursor_type="row", zebra_stripes=True)
                with Vertical(id="question-side"):
                    yield Static(id="contract")
                    yield Input(placeholder="predicted difference", id="value")
                    yield Input(placeholder="conclusion", id="conclusion")
                    yield Select[str]([], prompt="choice", id="choice")
                    with Horizontal(id="form-row"):
                        yield Button("Submit (ctrl+s)", id="submit", variant="primary")
                        yield Static(id="form-errors")
            yield Static("[b]Submission history[/b]", classes="title")
            yield DataTable(id="history", cursor_type="row")
        yield self.footer()

    def on_mount(self) -> None:
        """Columns of both tables."""
        self.query_one("#questions", DataTable).add_columns(
            "Question", "Metric", "Units", "Deadline", "Countdown"
        )
        self.query_one("#history", DataTable).add_columns(
            "Seq", "Day", "Question", "Value", "Conclusion", "Choice", "Eligible", "Counts"
        )
        self.refresh_view()
        self.query_one("#questions", DataTable).focus()

    @property
    def current(self) -> QuestionView | None:
        """The highlighted question's contract."""
        table = self.query_one("#questions", DataTable)
        if table.row_count == 0:
            return None
        key = table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value
        return None if key is None else self.session.view().question(key)

    def refresh_view(self) -> None:
        """Repaint both tables and the form from the session."""
        view = self.session.view()
        table = self.query_one("#questions", DataTable)
        row = table.cursor_row
        table.clear()
        for q in view.questions:
            table.add_row(
                q.id,
                q.metric,
                unit_label(q.units),
                str(q.deadline_day),
                countdown(q),
                key=q.id,
            )
        if table.row_count:
            table.move_cursor(row=min(row, table.row_count - 1))
        history = self.query_one("#history", DataTable)
        history.clear()
        for s in view.submissions:
            conclusion = s.conclusion
            if isinstance(conclusion, list):
                conclusion = ", ".join(str(c) for c in conclusion)
            history.add_row(
                str(s.seq),
                str(s.day),
                s.question,
                s.value,
                "" if conclusion is None else str(conclusion),
                s.choice or "",
                "yes" if s.eligible else "no",
                "✓" if s.counts else "",
            )
        self._show_form()

    def _show_form(self) -> None:
        q = self.current
        if q is None:
            return
        self.query_one("#contract", Static).update(contract_text(q))
        self.query_one("#value", Input).placeholder = f"predicted {q.metric} difference ({q.units})"
        conclusion = self.query_one("#conclusion", Input)
        conclusion.display = q.conclusion is not None
        if q.conclusion is not None:
            conclusion.placeholder = conclusion_placeholder(q.conclusion)
        choice = self.query_one("#choice", Select)
        choice.display = bool(q.intervention.select_from)
        choice.set_options([(a, a) for a in q.intervention.select_from])
        self._validate()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        """Show the highlighted question's contract and form."""
        if event.data_table.id == "questions":
            self._show_form()

    def on_input_changed(self, event: Input.Changed) -> None:
        """Check the form as the player types."""
        self._validate()

    def _problems(self) -> list[str]:
        q = self.current
        if q is None:
            return ["no question"]
        problems = []
        if parse_decimal(self.query_one("#value", Input).value) is None:
            problems.append("value: type a number")
        if q.conclusion is not None and not self.query_one("#conclusion", Input).value.strip():
            problems.append("conclusion: required")
        if q.intervention.select_from and self.query_one("#choice", Select).is_blank():
            problems.append("choice: pick an action")
        if not q.open:
            problems.append("deadline passed: it will not be eligible")
        return problems

    def _validate(self) -> None:
        problems = self._problems()
        errors = self.query_one("#form-errors", Static)
        errors.update("; ".join(problems) if problems else "ready to submit")
        errors.set_class(bool(problems), "rejected")

    def assessment(self) -> dict[str, Any] | None:
        """The form as an assessment dict, or None when no question is selected."""
        q = self.current
        if q is None:
            return None
        data: dict[str, Any] = {
            "question": q.id,
            "value": self.query_one("#value", Input).value.strip(),
        }
        if q.conclusion is not None:
            data["conclusion"] = conclusion_value(
                q.conclusion, self.query_one("#conclusion", Input).value
            )
        choice = self.query_one("#choice", Select)
        if q.intervention.select_from and not choice.is_blank():
            data["choice"] = str(choice.value)
        return data

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """The submit button."""
        if event.button.id == "submit":
            self.action_submit()

    def action_submit(self) -> None:
        """Submit the form through the session; errors show inline and as a notification."""
        data = self.assessment()
        if data is None:
            return
        result = self.workbench.submit(data)
        if result is not None and not result.accepted:
            errors = self.query_one("#form-errors", Static)
            errors.update("; ".join(result.errors))
            errors.add_class("rejected")
