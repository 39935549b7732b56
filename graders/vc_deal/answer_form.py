"""Whether a completion ends the way the prompt asks: a hint for people, never a verdict.

The prompt asks to "finish with "The answer is X", where X is the percentage rounded to
two decimal places". The study's format verdict is looser (any number counts, after a cue
or as the last number), and the graders keep its reading; the dashboard shows this
stricter check beside it so a reader sees when a text passed without following the prompt.
"""

from __future__ import annotations

import re

ANSWER_FORM = re.compile(r"(?i:the answer is)\s+-?\d+\.\d{2}\s*%?\s*\.?\Z")
"""The last words of a text that follows the prompt: `The answer is 19.35%.` and the like."""


def follows_answer_form(text: str) -> bool:
    """True when `text` ends with "The answer is X", X with two decimals (then % and . allowed)."""
    return ANSWER_FORM.search(text.strip()) is not None
