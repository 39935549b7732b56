"""The study's grader, class by class: issue 12's four VC findings and every member of each class.

`_study_*` below is a plain transcription of the study grader's observed behaviour
(/work/shared/seeds/vc-study-grader-behaviour.md): its token pattern with the trailing-comma
run, its normaliser ending in `float()`, the number after the last cue, and cents rounding at
the default Decimal precision. Our single pipeline must agree with it on every input.
"""

import math
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.vc_deal import VCPanel, extract_answer, extract_value, metrics, normalise

_STUDY_NUMBER = r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
_STUDY_CUED = re.compile(
    r"(?:final answer|answer|ownership(?:\s+percentage)?|result|equal|equals|=)"
    r"\s*(?:(?:is|are|was|of|to|:|=)\s*)?"
    r"(?:(?:about|approximately|roughly|around|nearly|~)\s*)?"
    rf"({_STUDY_NUMBER})",
    re.IGNORECASE,
)


def _study_normalise(token: str) -> str | None:
    """Steps 1-5 of "Normalising a token", literally."""
    text = token.strip().rstrip(".,")
    if text.startswith("+"):
        text = text[1:]
    if "," in text and "." in text:
        text = text.replace(",", "")
    elif "," in text:
        head, _, tail = text.partition(",")
        one = text.count(",") == 1 and head.isdigit() and tail.isdigit()
        text = f"{head}.{tail}" if one and len(tail) in (1, 2) else text.replace(",", "")
    try:
        float(text)
    except ValueError:
        return None
    return text


def _study_extract(text: str) -> str | None:
    """The last cue's number if it normalises, else the last number that does."""
    cued = _STUDY_CUED.findall(text)
    if cued and (chosen := _study_normalise(cued[-1])) is not None:
        return chosen
    for token in reversed(re.findall(_STUDY_NUMBER, text)):
        if (chosen := _study_normalise(token)) is not None:
            return chosen
    return None


def _study_cents(text: str) -> Decimal | None:
    """Cents half-up in the default context (28 digits); None where quantize fails."""
    try:
        return Decimal(text).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None


def _study_grade(text: str, gold: str) -> tuple[float | None, float, float, float]:
    """(extracted float, strict, loose, format) as the study's grader gives them."""
    chosen = _study_extract(text)
    if chosen is None:
        return None, 0.0, 0.0, 0.0
    rounded_gold = _study_cents(gold)
    assert rounded_gold is not None
    strict = _study_cents(chosen)
    loose = _study_cents(repr(float(chosen)))
    return (
        float(chosen),
        float(strict is not None and strict == rounded_gold),
        float(loose is not None and abs(loose - rounded_gold) <= Decimal("0.50")),
        1.0,
    )


def _ours(text: str, gold: str) -> tuple[float | None, float, float, float]:
    """The same four figures from our pipeline, through both extraction paths."""
    found = extract_answer(text)
    assert extract_value(text) == found.value
    verdicts = metrics(text, gold)
    grade = VCPanel().grade_text(text, gold)
    assert grade.extracted == (None if found.value is None else float(found.value))
    return (
        grade.extracted,
        verdicts["strict_correct"],
        verdicts["loose_correct"],
        verdicts["format_valid_number"],
    )


def _same(text: str, gold: str) -> None:
    """Our figures equal the study's (inf compares equal to inf)."""
    assert _ours(text, gold) == _study_grade(text, gold), text


HUGE = "9" * 400

ISSUE_12 = [
    ("Ownershippercentage 16.13 (the company was founded in 2015)", "16.13", 2015.0, 0.0, 1.0),
    ("The answer is 5,.5", "5.5", 5.5, 1.0, 1.0),
    ("The answer is 16,.13", "16.13", 16.13, 1.0, 1.0),
    (f"The answer is {HUGE}. Earlier I had 16.13", "16.13", math.inf, 0.0, 1.0),
    (f"Answer: {HUGE}", "16.13", math.inf, 0.0, 1.0),
]


@pytest.mark.parametrize(("text", "gold", "extracted", "strict", "valid"), ISSUE_12)
def test_issue_12_findings_match_the_study(
    text: str, gold: str, extracted: float, strict: float, valid: float
) -> None:
    found = _ours(text, gold)
    assert (found[0], found[1], found[3]) == (extracted, strict, valid)
    _same(text, gold)


def test_the_float_step_only_moves_the_loose_verdict() -> None:
    text = "The answer is 16.634999999999999999"
    assert _ours(text, "16.63")[1:] == (1.0, 1.0, 1.0)
    assert _ours(text, "16.13")[1:] == (0.0, 0.0, 1.0)
    assert metrics("The answer is 16.634999", "16.13")["loose_correct"] == 1.0
    _same(text, "16.13")


def test_both_sides_round_in_28_digits_as_in_the_study() -> None:
    gold = "9" * 26 + ".80"
    text = f"The answer is {gold}"
    assert _ours(text, gold) == (1e26, 1.0, 0.0, 1.0)
    _same(text, gold)
    with pytest.raises(ValueError, match="too large to round to cents in 28 digits"):
        metrics("The answer is 1", "1" * 27)


def test_a_negative_decimal_comma_reads_as_thousands_as_in_the_study() -> None:
    assert normalise("-16,13") == Decimal(-1613)
    assert extract_value("The answer is -16,13") == Decimal(-1613)
    assert extract_value("The answer is 16,13") == Decimal("16.13")


def test_roughly_nine_percent_is_format_valid_as_in_the_study() -> None:
    text = "The investor ends up with roughly 9 percent."
    assert _ours(text, "9.09") == (9.0, 0.0, 1.0, 1.0)
    _same(text, "9.09")


LETTERS = st.text(alphabet="bcdfghjkmpvxyzBCDFGHJKMPVXYZ", min_size=1, max_size=6)
CUES = st.sampled_from(
    ["answer", "Answer", "final answer", "ownership", "Ownership percentage", "result",
     "equal", "equals", "="]
)  # fmt: skip
SMALL = st.decimals(min_value=0, max_value=100, places=2, allow_nan=False).map(str)
YEARS = st.integers(1900, 2100).map(str)


@given(LETTERS, CUES, SMALL, YEARS)
def test_a_cue_glued_to_a_word_before_it_counts(
    prefix: str, cue: str, answer: str, year: str
) -> None:
    text = f"Working. {prefix}{cue} {answer} (founded in {year})"
    assert extract_value(text) == Decimal(answer)
    _same(text, answer)


@given(CUES, LETTERS, SMALL, YEARS)
def test_a_word_glued_after_a_cue_breaks_it(cue: str, suffix: str, answer: str, year: str) -> None:
    text = f"{cue}{suffix} {answer} (the company was founded in {year})"
    assert extract_value(text) == Decimal(year)
    _same(text, answer)


@given(st.sampled_from(["", "Percentage", "percentages", "-percentage"]), SMALL, YEARS)
def test_ownership_percentage_needs_whitespace(glue: str, answer: str, year: str) -> None:
    text = f"Ownership{glue} {answer} (founded {year})"
    _same(text, answer)
    assert extract_value(text) == Decimal(answer if glue == "" else year)


@given(st.sampled_from([" ", "\n", "  \t"]), SMALL, YEARS)
def test_ownership_then_whitespace_then_percentage_is_one_cue(
    space: str, answer: str, year: str
) -> None:
    text = f"Ownership{space}percentage {answer} (founded {year})"
    found = extract_answer(text)
    assert (found.value, found.cue) == (Decimal(answer), f"Ownership{space}percentage")
    _same(text, answer)


DOTTED = st.from_regex(r"[-+]?\d{1,4}(,{1,3}\d{0,3}){0,3},*\.\d{1,4}", fullmatch=True)


@given(DOTTED, YEARS)
def test_with_a_period_every_comma_is_dropped(token: str, year: str) -> None:
    value = Decimal(token.lstrip("+").replace(",", ""))
    assert normalise(token) == value
    text = f"The answer is {token}. Founded {year}."
    assert extract_value(text) == value
    assert extract_value(f"I get {token}") == value
    _same(text, str(round(value, 2)))


COMMAS = st.from_regex(r"[-+]?\d{1,4}(,{1,3}\d{0,3}){1,3},{0,2}", fullmatch=True)


@given(COMMAS)
def test_without_a_period_one_comma_before_one_or_two_digits_is_decimal(token: str) -> None:
    core = token.lstrip("+").rstrip(",")
    head, _, tail = core.partition(",")
    decimal = core.count(",") == 1 and head.isdigit() and len(tail) in (1, 2) and tail.isdigit()
    value = Decimal(f"{head}.{tail}" if decimal else core.replace(",", ""))
    assert normalise(token) == value
    assert extract_value(f"The answer is {token} then") == value
    _same(f"The answer is {token}", "16.13")


def _huge(digits: int, lead: str) -> str:
    """A literal of `digits` digits starting with a non-zero digit."""
    return lead + "9" * (digits - 1)


HUGE_LITERALS = st.builds(_huge, st.integers(310, 1200), st.sampled_from("123456789"))


@given(HUGE_LITERALS, st.sampled_from(["", "-", "+"]), CUES, SMALL)
def test_a_huge_cued_literal_overflows_to_infinity_and_is_kept(
    huge: str, sign: str, cue: str, later: str
) -> None:
    text = f"The {cue} {sign}{huge}. Earlier I had {later}"
    expected = -math.inf if sign == "-" else math.inf
    assert _ours(text, later) == (expected, 0.0, 0.0, 1.0)
    _same(text, later)


@given(HUGE_LITERALS, st.sampled_from(["Answer: ", "answer is ~", "", "I get "]))
def test_a_huge_literal_alone_is_a_valid_format(huge: str, before: str) -> None:
    text = before + huge
    assert _ours(text, "16.13") == (math.inf, 0.0, 0.0, 1.0)
    _same(text, "16.13")


@given(HUGE_LITERALS, SMALL)
def test_a_huge_literal_before_the_last_number_does_not_win(huge: str, later: str) -> None:
    text = f"Total {huge} shares, I get {later}"
    assert extract_value(text) == Decimal(later)
    _same(text, later)


@given(st.integers(27, 309))
def test_a_literal_of_27_or_more_digits_is_never_correct(digits: int) -> None:
    literal = "1" * digits
    text = f"The answer is {literal}"
    assert _ours(text, "16.13")[1:] == (0.0, 0.0, 1.0)
    _same(text, "16.13")


@given(SMALL, st.lists(YEARS | SMALL, min_size=1, max_size=3))
def test_numbers_after_the_answer_do_not_displace_it(answer: str, after: list[str]) -> None:
    text = f"The answer is {answer}. (Founded {', '.join(after)}; {len(after)} firms.)"
    assert extract_value(text) == Decimal(answer)
    _same(text, answer)


PIECES = st.sampled_from(
    ["answer", "Final Answer", "ownership", "Ownership percentage", "Ownershippercentage",
     "co-ownership", "result", "equals", "equal", "=", "answered", " is ", " of ", ":", "~",
     "about ", "roughly ", " ", "\n", "%", "$", ",", ",.", ".", "-", "+", "percent", "٣",
     "founded in 2015", HUGE, "1" * 27, "16.634999999999999999"]
)  # fmt: skip
NUMBERS = st.from_regex(
    r"[-+]?(\d{1,4}(,{0,2}\d{0,3}){0,2}(,*\.\d{1,4})?|\.\d{1,3})", fullmatch=True
)
TEXTS = st.lists(PIECES | NUMBERS | st.text(max_size=3), max_size=12).map("".join)
OFFSETS = st.sampled_from(["0", "0.01", "-0.01", "0.49", "-0.5", "0.5", "0.51", "-0.51", "3"])


@settings(max_examples=400)
@given(TEXTS, OFFSETS)
def test_every_text_grades_as_the_study_grades_it(text: str, offset: str) -> None:
    chosen = _study_extract(text)
    near = None if chosen is None else _study_cents(chosen)
    assume(near is None or abs(near) < 10**20)
    gold = "16.13" if near is None else str(near + Decimal(offset))
    _same(text, gold)


@given(st.text(), st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False))
def test_arbitrary_unicode_grades_as_the_study_grades_it(text: str, gold: Decimal) -> None:
    _same(text, str(gold))


LONG_NUMBERS = st.from_regex(r"-?[1-9]\d{0,24}(\.\d{1,24})?|-?0\.\d{1,24}", fullmatch=True)
EDGES = st.sampled_from(["0", "0.01", "-0.01", "0.49", "-0.49", "0.5", "-0.5", "0.51", "-0.51"])


@settings(max_examples=300)
@given(LONG_NUMBERS, EDGES)
def test_verdicts_at_the_window_edges_match_the_study(number: str, offset: str) -> None:
    cents = _study_cents(number)
    assert cents is not None
    _same(f"The answer is {number}", str(cents + Decimal(offset)))


@given(
    st.sampled_from(["", "-"]),
    st.integers(0, 10**6),
    st.integers(0, 99),
    st.integers(14, 22),
    st.sampled_from(["0.5", "-0.5", "0.49", "-0.49", "0.51", "-0.51", "0"]),
)
def test_just_below_a_half_cent_the_float_rounds_away_from_zero(
    sign: str, whole: int, cents: int, nines: int, offset: str
) -> None:
    number = f"{sign}{whole}.{cents:02d}4{'9' * nines}"
    exact = _study_cents(number)
    assert exact is not None
    _same(f"The answer is {number}", str(exact + Decimal(offset)))


@pytest.mark.parametrize(
    ("number", "gold", "loose"),
    [
        ("16.634999999999999999", "16.13", 0.0),
        ("16.634999999999999999", "17.13", 1.0),
        ("-15.634999999999999999", "-15.13", 0.0),
        ("-15.634999999999999999", "-16.13", 1.0),
    ],
)
def test_the_float_step_at_both_window_edges(number: str, gold: str, loose: float) -> None:
    assert metrics(f"The answer is {number}", gold)["loose_correct"] == loose
    _same(f"The answer is {number}", gold)
