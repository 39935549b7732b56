"""The dashboard's entry point: a plain object that makes items and grades texts and files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graders.vc_deal.answer_form import follows_answer_form
from graders.vc_deal.batch import BatchReport, Progress, grade_file
from graders.vc_deal.extract import Completion, Source, completion_text, extract_answer
from graders.vc_deal.generator import (
    DEFAULT_NUM_EXAMPLES,
    DEFAULT_SEED,
    Difficulty,
    Item,
    generate,
    item_at,
)
from graders.vc_deal.gold import Amount
from graders.vc_deal.templates import TemplateBank, load_templates
from graders.vc_deal.verdicts import gold_window, judge

MAX_COMPLETION = 1024 * 1024
"""Longest completion graded one at a time (the dashboard's text box); files have their own."""


@dataclass(frozen=True, slots=True)
class TextGrade:
    """One graded text: what was extracted, from where (spans into `text`), and the verdicts.

    `gold` is the gold answer at cents; `source` says whether the number followed a cue,
    was the fallback last number, or there was none. `answer_form` is the prompt's own
    form, which the study's (looser) format verdict does not require.
    """

    text: str
    gold: float
    extracted: float | None
    token: str | None
    source: Source
    number_span: tuple[int, int] | None
    cue: str | None
    cue_span: tuple[int, int] | None
    strict_correct: float
    loose_correct: float
    format_valid_number: float
    reward: float
    answer_form: bool
    """The text ends as the prompt asks ("The answer is X"): shown to people, never scored."""


class VCPanel:
    """Generate items, grade one text with its cue highlighted, grade a JSONL file."""

    def __init__(self, templates: str | Path | TemplateBank | None = None) -> None:
        """Use the bundled templates, a template file, or an already loaded bank."""
        if templates is None or isinstance(templates, TemplateBank):
            self._bank = templates
        else:
            self._bank = load_templates(templates)

    def generate_item(
        self, difficulty: Difficulty = "easy", seed: int = DEFAULT_SEED, index: int = 0
    ) -> Item:
        """The `index`-th item of a difficulty in the dataset for `seed`."""
        return item_at(difficulty, seed, index, self._bank)

    def generate(
        self, num_examples: int = DEFAULT_NUM_EXAMPLES, seed: int = DEFAULT_SEED
    ) -> tuple[Item, ...]:
        """A whole dataset, interleaved easy, hard, easy, ..."""
        return generate(num_examples, seed, self._bank)

    def grade_text(self, text: Completion, answer: Amount, loose: bool = False) -> TextGrade:
        """Grade one completion, reporting the matched cue and number with their spans.

        Raises ValueError for a gold answer that is not a finite number and for a
        completion longer than MAX_COMPLETION characters.
        """
        if len(completion_text(text)) > MAX_COMPLETION:
            raise ValueError(f"the completion is longer than {MAX_COMPLETION:,} characters")
        found = extract_answer(text)
        verdicts = judge(found.value, answer)
        return TextGrade(
            completion_text(text),
            float(gold_window(answer).gold),
            None if found.value is None else float(found.value),
            found.token,
            found.source,
            found.number_span,
            found.cue,
            found.cue_span,
            verdicts.strict_correct,
            verdicts.loose_correct,
            verdicts.format_valid_number,
            verdicts.reward(loose),
            follows_answer_form(completion_text(text)),
        )

    def grade_batch(
        self, path: str | Path, loose: bool = False, progress: Progress | None = None
    ) -> BatchReport:
        """Grade a JSONL file; raises GradeInputError naming the file and line on bad input."""
        return grade_file(path, loose, progress)
