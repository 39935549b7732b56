"""Answer extraction: the number after the last answer cue, else the last number in the text.

The rules are the study's grader's, as its observed behaviour is described in
`/work/shared/seeds/vc-study-grader-behaviour.md`; docs/vc_deal.md states each one.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

NUMBER = r"[-+]?(?:\d(?:[\d,]*\d)?(?:,*\.\d+)?|\.\d+)"
"""A number token: sign, digits and commas, optional fraction; or a bare fraction (".5").

Commas right before the fraction belong to the token (`5,.5`), as in the study's
`\\d[\\d,]*(?:\\.\\d+)?`; other trailing commas, which the study strips, are left out.
"""

CUE = r"final answer|answer|ownership(?:\s++percentage)?|result|equals|equal|="
"""Answer cues, matched case-insensitively without word boundaries; "percentage" needs a space.

Whitespace is matched possessively here and below: what follows it never begins with
whitespace, so giving some back could never make a match, and trying to on a long run of
spaces after a cue took seconds.
"""

LINKER = r"is|are|was|of|to|:|="
"""One optional word or sign between a cue and its number."""

HEDGE = r"about|approximately|roughly|around|nearly|~"
"""One optional hedge before the number."""

_CUED_PATTERN = rf"(?P<cue>{CUE})\s*+(?:(?:{LINKER})\s*+)?(?:(?:{HEDGE})\s*+)?(?P<number>{NUMBER})"
_CUED_ANY_CASE = re.compile(_CUED_PATTERN, re.IGNORECASE)
_CUED_LOWER = re.compile(_CUED_PATTERN)
_CUED_NUMBER_ANY_CASE = re.compile(_CUED_PATTERN.replace("(?P<cue>", "(?:"), re.IGNORECASE)
_CUED_NUMBER_LOWER = re.compile(_CUED_PATTERN.replace("(?P<cue>", "(?:"))
_NUMBER = re.compile(NUMBER)
_CUE_STARTS = ("answer", "ownership", "result", "equal", "=")
_DECIMAL_COMMA = re.compile(r"\d+,\d{1,2}")
_NOT_IN_A_TOKEN = re.compile(r"[^\d,.+-]")

CUE_TRIES = 64
"""Cue occurrences tried one by one from the right before the rest is scanned in C."""

NUMBER_WINDOW = 4096
"""Characters of a long text the fallback scans at a time, from the end (a text this short
is read word by word)."""

Source = Literal["cue", "last_number", "none"]
"""Where an extracted number came from: after a cue, the fallback last number, or nowhere."""

Completion = str | Sequence[Mapping[str, object]] | None
"""Model output: plain text, a chat transcript (list of messages), or nothing."""


@dataclass(frozen=True, slots=True)
class Extraction:
    """The number a completion answers with, and where it sits, so a UI can highlight it."""

    value: Decimal | None
    token: str | None
    source: Source
    number_span: tuple[int, int] | None
    cue: str | None
    cue_span: tuple[int, int] | None


NO_ANSWER = Extraction(None, None, "none", None, None, None)


def completion_text(completion: object) -> str:
    """The text to grade: a string as is, a chat's last assistant message, anything else empty."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and not isinstance(completion, bytes | bytearray):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role", "assistant") == "assistant":
                content = message.get("content")
                return content if isinstance(content, str) else ""
    return ""


def normalise(token: str) -> Decimal | None:
    """A token's exact value: strip, drop trailing "." and ",", resolve thousands vs decimal commas.

    None when the text is not a number token. Any token has a value, however long: a
    400-digit number is exact here and infinite as a float, as in the study.
    """
    text = token.strip().rstrip(".,")
    if not _NUMBER.fullmatch(text):
        return None
    return _token_value(text)


def _token_value(text: str) -> Decimal:
    """The exact value of a token as the NUMBER pattern matched it.

    With a period, every comma is a thousands separator (`5,.5` is 5.5). Without one, a
    single comma between unsigned digits and one or two digits is a decimal comma (`16,13`);
    any other comma is a thousands separator (`-16,13` is -1613, as in the study).
    """
    if text[0] == "+":
        text = text[1:]
    if "," in text:
        if "." not in text and _DECIMAL_COMMA.fullmatch(text):
            text = text.replace(",", ".")
        else:
            text = text.replace(",", "")
    return Decimal(text)


def _last_number(text: str) -> Decimal | None:
    """The fallback: the last number token in the text.

    No token spans whitespace, so the words of a short text read right to left yield the
    same tokens as a scan of the whole text, and reading stops at the last word holding a
    number. A longer text is read by `_last_number_in_stretches`: its words were all held
    at once, and tested one by one in Python.
    """
    if len(text) > NUMBER_WINDOW:
        return _last_number_in_stretches(text)
    for word in reversed(text.split()):
        tokens = _NUMBER.findall(word)
        if tokens:
            return _token_value(tokens[-1])
    return None


def _last_number_in_stretches(text: str) -> Decimal | None:
    """The last number token of a long text, read in stretches from the right, each in C.

    A token holds only digits, commas, periods and signs, so a stretch that starts just
    after any other character yields the same tokens as a scan of the whole text. Each
    stretch is not empty, so the reading moves left, and it stops at the last stretch
    holding a number.
    """
    end = len(text)
    width = NUMBER_WINDOW
    while end > 0:
        start = max(0, end - width)
        if start > 0:
            cut = _NOT_IN_A_TOKEN.search(text, start, end - 1)
            if cut is None:
                width *= 2
                continue
            start = cut.end()
        last = deque(_NUMBER.finditer(text, start, end), maxlen=1)
        if last:
            return _token_value(last[0][0])
        end, width = start, NUMBER_WINDOW
    return None


def _last_cued_token(lowered: str) -> str | None:
    """The number token of the right-most cue match in lower-cased ASCII text.

    Every cue begins with one of `_CUE_STARTS` ("final answer" holds an "answer" that
    reads the same number), so trying their occurrences right to left finds the
    right-most match, which reads the same number as the last non-overlapping one,
    without scanning the whole text with the full pattern. After `CUE_TRIES` cues that
    do not match, the rest is left to `_scanned_cued_token`: one try per cue in Python
    took 24 s on 40 MB of "=".
    """
    starts = [lowered.rfind(word) for word in _CUE_STARTS]
    misses = CUE_TRIES
    while True:
        position = max(starts)
        if position < 0:
            return None
        if misses <= 0:
            return _scanned_cued_token(lowered)
        match = _CUED_NUMBER_LOWER.match(lowered, position)
        if match:
            return match[1]
        misses -= 1
        which = starts.index(position)
        word = _CUE_STARTS[which]
        starts[which] = lowered.rfind(word, 0, position + len(word) - 1)


def _scanned_cued_token(lowered: str) -> str | None:
    """The number token of the last cue match in lower-cased ASCII text, by one scan in C.

    Every match ends with a number token, which ends with a digit, so the scan stops at the
    last digit, and a text without one has no match at all.
    """
    last_digit = max(lowered.rfind(digit) for digit in "0123456789")
    if last_digit < 0:
        return None
    last = deque(_CUED_NUMBER_LOWER.finditer(lowered, 0, last_digit + 1), maxlen=1)
    return last[0][1] if last else None


def extract_value(completion: Completion) -> Decimal | None:
    """The extracted number alone: the fast path that batch grading and rewards use.

    ASCII text is lower-cased and searched right to left from the last occurrence of
    each cue, which is equivalent and several times faster than an IGNORECASE scan of
    the whole text; other text keeps the IGNORECASE scan.
    """
    text = completion_text(completion)
    if text.isascii():
        token = _last_cued_token(text.lower())
    else:
        cued = deque(_CUED_NUMBER_ANY_CASE.finditer(text), maxlen=1)
        token = cued[0][1] if cued else None
    if token is not None:
        return _token_value(token)
    return _last_number(text)


def extract_answer(completion: Completion) -> Extraction:
    """The extracted number with its token, its source and the spans of number and cue."""
    text = completion_text(completion)
    if text.isascii():
        cued = list(_CUED_LOWER.finditer(text.lower()))
    else:
        cued = list(_CUED_ANY_CASE.finditer(text))
    if cued:
        number_span, cue_span = cued[-1].span("number"), cued[-1].span("cue")
        token = text[slice(*number_span)]
        cue = text[slice(*cue_span)]
        return Extraction(_token_value(token), token, "cue", number_span, cue, cue_span)
    tail = deque(_NUMBER.finditer(text), maxlen=1)
    if not tail:
        return NO_ANSWER
    last = tail[0]
    return Extraction(_token_value(last[0]), last[0], "last_number", last.span(), None, None)
