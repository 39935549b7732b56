"""Long adversarial completions: extraction stays linear in C, bounded in memory, same numbers.

`vc grade` takes one completion of up to 256 MiB. 40 MB of "=" took 24 s: every "=" is a
cue, and each was tried in Python, one by one, from the right. The fallback split the text
into words, holding every word of the line at once. Both now leave long work to one scan in
C; the number read is the same, which the tiny-window properties below check on texts where
those scans are reached at once.
"""

from __future__ import annotations

import re
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.vc_deal import extract
from graders.vc_deal.extract import extract_answer, extract_value

SIZE = 2_000_000
"""Characters of each long text."""


class _Counted:
    """A compiled pattern whose calls from Python are counted (the work done per cue)."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.calls: Counter[str] = Counter()

    def match(self, *args: Any) -> re.Match[str] | None:
        self.calls["match"] += 1
        return self.pattern.match(*args)

    def finditer(self, *args: Any) -> Iterator[re.Match[str]]:
        self.calls["finditer"] += 1
        return self.pattern.finditer(*args)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        pytest.param("=" * SIZE, None, id="every character a cue"),
        pytest.param("answer " * (SIZE // 7), None, id="cue words without numbers"),
        pytest.param("1" + "= " * (SIZE // 2), Decimal(1), id="cues after the only digit"),
        pytest.param("answer is 7 " + "= " * (SIZE // 2), Decimal(7), id="a cued number first"),
    ],
)
def test_a_text_full_of_cues_is_tried_cue_by_cue_only_so_often(
    text: str, value: Decimal | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each cue tried from Python cost a call: 40 MB of "=" made 40 million (24 s). After
    `CUE_TRIES` misses the rest is one scan in C, whatever the length; the number is the
    one the detailed extraction reads."""
    counted = _Counted(extract._CUED_NUMBER_LOWER)
    monkeypatch.setattr(extract, "_CUED_NUMBER_LOWER", counted)
    assert extract_value(text) == value
    assert counted.calls["match"] <= extract.CUE_TRIES
    assert counted.calls["finditer"] <= 1
    monkeypatch.undo()
    assert extract_answer(text).value == value


def test_the_fallback_holds_no_list_of_the_words() -> None:
    text = "ab " * (SIZE // 3)
    tracemalloc.start()
    try:
        assert extract_value(text) is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2 * len(text), f"peak {peak:,} bytes for a {len(text):,}-character text"


@pytest.mark.parametrize("window", [1, 2, 4096])
@pytest.mark.parametrize(
    "text", ["1" * 5000 + "x", "x" + "1" * 5000 + "x", "ab", "x", "1x", "1" * 9000, " ", ""]
)
def test_the_fallback_reads_every_stretch_once(text: str, window: int) -> None:
    """A stretch ending just after its only cut was empty and read again for ever."""
    saved = extract.NUMBER_WINDOW
    extract.NUMBER_WINDOW = window
    try:
        assert extract_value(text) == extract_answer(text).value
    finally:
        extract.NUMBER_WINDOW = saved


PIECES = st.sampled_from(
    ["answer", "Final Answer", "ownership", "Ownership  percentage", "Ownershippercentage",
     "result", "equals", "=", "answered", " is ", " of ", ":", "~", "about ", " ", "\n\t ",
     "\u2003", "%", "$", ",", ",.", ".", "-", "+", "٣", "é", "x", "9" * 30]
)  # fmt: skip
NUMBERS = st.from_regex(
    r"[-+]?(\d{1,4}(,{0,2}\d{0,3}){0,2}(,*\.\d{1,4})?|\.\d{1,3})", fullmatch=True
)
TEXTS = st.lists(PIECES | NUMBERS | st.text(max_size=3), max_size=30).map("".join)


@given(TEXTS, st.integers(0, 3), st.integers(1, 8))
def test_the_scans_in_c_read_the_number_a_full_scan_reads(
    text: str, tries: int, window: int
) -> None:
    """With no cue tried in Python and a window of a few characters, the C scans are the
    whole of the work: they must agree with the detailed left-to-right extraction."""
    saved = extract.CUE_TRIES, extract.NUMBER_WINDOW
    extract.CUE_TRIES, extract.NUMBER_WINDOW = tries, window
    try:
        fast = extract_value(text)
    finally:
        extract.CUE_TRIES, extract.NUMBER_WINDOW = saved
    assert fast == extract_answer(text).value
    assert str(fast) == str(extract_answer(text).value)
