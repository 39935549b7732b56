"""Counterfactual questions: each contract and its cautions, the form with the shared check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Static

from workbench.play.traps import question_cautions, sprung_traps
from workbench.play.view_rules import ViewRules
from workbench.runs.assessment import assessment_from_form, conclusion_needed, parse_assessment
from workbench.tui.errors import shown_as_notice
from workbench.tui.screens.base import PlayerScreen
from workbench.tui.widgets.questions import (
    AssessmentForm,
    QuestionTable,
    SubmissionHistory,
    contract_text,
)

if TYPE_CHECKING:
    from workbench.play.models import QuestionView


class QuestionsScreen(PlayerScreen):
    """Pick a question, type a prediction (and conclusion or pick), submit, see the history."""

    DEFAULT_CSS = """
    QuestionsScreen #questions-top {
        height: auto;
    }
    QuestionsScreen QuestionTable {
        width: auto;
    }
    QuestionsScreen #question-side {
        width: 1fr;
        min-width: 40;
        height: auto;
        padding: 0 1;
    }
    QuestionsScreen.-narrow #questions-top {
        layout: vertical;
    }
    QuestionsScreen.-narrow QuestionTable, QuestionsScreen.-narrow #question-side {
        width: 1fr;
    }
    """
    HOME = "QuestionTable"
    BINDINGS = [Binding("ctrl+s", "submit", "Submit")]

    def compose_body(self) -> ComposeResult:
        """Question table beside (or above) the contract and form, then the history."""
        self.table = QuestionTable()
        self.contract = Static(id="contract")
        self.form = AssessmentForm()
        self.history = SubmissionHistory()
        with VerticalScroll():
            with Horizontal(id="questions-top"):
                yield self.table
                with Vertical(id="question-side"):
                    yield self.contract
                    yield self.form
            yield Static("[b]Your submissions[/b]", classes="title")
            yield self.history

    def current(self) -> QuestionView | None:
        """The highlighted question's public contract."""
        wanted = self.table.selected
        return None if wanted is None else self.session.view().question(wanted)

    def refresh_view(self) -> None:
        """Repaint the tables, the contract and the check from the session."""
        view = self.session.view()
        self.table.show(view.questions)
        self.history.show(view.submissions)
        self._show_question()

    def _show_question(self) -> None:
        q = self.current()
        if q is None:
            return
        view = self.session.view()
        sprung = tuple(t for t in sprung_traps(view) if t.question_id == q.id)
        cautions = () if sprung else question_cautions(view, q)
        needs = conclusion_needed(q.conclusion) if q.conclusion is not None else None
        self.contract.update(contract_text(q, cautions, sprung, needs))
        self.form.load(q, needs)
        self._check()

    @shown_as_notice
    def on_question_table_highlighted(self, message: QuestionTable.Highlighted) -> None:
        """Show the highlighted question's contract and its own draft."""
        self._show_question()

    @shown_as_notice
    def on_assessment_form_edited(self, message: AssessmentForm.Edited) -> None:
        """Check the form as the player types (the same check submit runs), and keep the
        app's list of answers typed but not sent up to date (first: the check reads the
        session, which a hosted run's host gone away refuses)."""
        question = self.form.question
        if question is not None:
            typed = self.form.draft().value.strip()
            if typed:
                self.workbench.unsent[question] = typed
            else:
                self.workbench.unsent.pop(question, None)
        self._check()

    def on_assessment_form_submit_asked(self, message: AssessmentForm.SubmitAsked) -> None:
        """Enter in a field or the button submits."""
        self.action_submit()

    def assessment(self) -> dict[str, Any] | None:
        """The form as a submission, or None when no question is highlighted."""
        q = self.current() if self.form.question is not None else None
        if q is None or q.id != self.form.question:
            return None
        draft = self.form.draft()
        return assessment_from_form(
            q.id,
            q.conclusion,
            q.intervention.select_from,
            (draft.value, draft.conclusion, draft.choice),
        )

    def _check(self) -> None:
        data = self.assessment()
        if data is None:
            return
        checked = parse_assessment(ViewRules(self.session.view()), data)
        q = self.current()
        notes = list(checked.notes)
        if self.session.finished:
            self.form.show_check(checked.errors, "the run is finished: it takes no submission")
            return
        if q is not None and not q.open:
            notes.append("the deadline has passed: it will not count")
        note = f"ready, but {'; '.join(notes)}" if notes else "ready to submit"
        self.form.show_check(checked.errors, note)

    @shown_as_notice
    def action_submit(self) -> None:
        """Submit the form through the session; a refusal shows in the check line."""
        data = self.assessment()
        if data is None:
            return
        result = self.workbench.submit(data)
        if result is not None and not result.accepted:
            self.form.show_check(result.errors, "")
        elif result is not None and self.form.question is not None:
            self.workbench.unsent.pop(self.form.question, None)
