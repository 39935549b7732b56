"""Extraction rules, one table row per rule: cues, linkers, hedges, commas, fallback, no answer."""

from decimal import Decimal

import pytest

from graders.vc_deal import completion_text, extract_answer, extract_value, normalise

CUES = [
    ("The final answer is 12.34", "12.34", "final answer"),
    ("The answer is 12.34", "12.34", "answer"),
    ("ANSWER 12.34", "12.34", "ANSWER"),
    ("Ownership 12.34", "12.34", "Ownership"),
    ("ownership percentage: 12.34", "12.34", "ownership percentage"),
    ("co-ownership 44", "44", "ownership"),
    ("Result 12.34", "12.34", "Result"),
    ("it will equal 12.34", "12.34", "equal"),
    ("this equals 12.34", "12.34", "equals"),
    ("x = 12.34", "12.34", "="),
    ("x=12.34", "12.34", "="),
]

LINKERS = [
    ("answer is 7.5", "7.5"),
    ("answer are 7.5", "7.5"),
    ("answer was 7.5", "7.5"),
    ("ownership of 7.5", "7.5"),
    ("equal to 7.5", "7.5"),
    ("answer: 7.5", "7.5"),
    ("answer = 7.5", "7.5"),
    ("answer:7.5", "7.5"),
    ("answer\nis\n7.5", "7.5"),
]

HEDGES = [
    ("answer is about 7.5", "7.5"),
    ("answer is approximately 7.5", "7.5"),
    ("answer is roughly 7.5", "7.5"),
    ("answer is around 7.5", "7.5"),
    ("answer is nearly 7.5", "7.5"),
    ("answer is ~7.5", "7.5"),
    ("answer ~ 7.5", "7.5"),
    ("answer: about\n\n7.5", "7.5"),
]


@pytest.mark.parametrize(("text", "value", "cue"), CUES)
def test_each_cue_picks_its_number(text: str, value: str, cue: str) -> None:
    found = extract_answer(text)
    assert found.value == Decimal(value)
    assert found.source == "cue"
    assert found.cue == cue


@pytest.mark.parametrize(("text", "value"), LINKERS + HEDGES)
def test_each_linker_and_hedge(text: str, value: str) -> None:
    found = extract_answer(f"Working: 3 and 4. {text}")
    assert found.value == Decimal(value)
    assert found.source == "cue"


@pytest.mark.parametrize(
    "text",
    [
        "answer: $7.5 then 3",
        "answer:: 7.5 then 3",
        "answer is: 7.5 then 3",
        "answer is about roughly 7.5 then 3",
        "the answer is probably 7.5 then 3",
        "answered 7.5 then 3",
    ],
)
def test_anything_else_between_cue_and_number_breaks_the_cue(text: str) -> None:
    found = extract_answer(text)
    assert found.source == "last_number"
    assert found.value == Decimal(3)


def test_last_matching_cue_wins() -> None:
    text = "First guess: the answer is 12.00. Rechecking, ownership = 16.13. The end, 99."
    found = extract_answer(text)
    assert found.value == Decimal("16.13")
    assert found.cue == "ownership"


def test_fallback_is_the_last_number() -> None:
    found = extract_answer("4.4 + 1.2 gives 5.6, and 1.2 / 5.6 makes 21.43%.")
    assert (found.value, found.source, found.cue) == (Decimal("21.43"), "last_number", None)


@pytest.mark.parametrize("completion", [None, "", "no digits here", "   \n", 42, b"answer 5", [{}]])
def test_no_number_means_no_answer(completion: object) -> None:
    found = extract_answer(completion)  # type: ignore[arg-type]
    assert found.value is None and found.source == "none"
    assert extract_value(completion) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("16,13", "16.13"),
        ("16,1", "16.1"),
        ("-16,13", "-1613"),
        ("770,000", "770000"),
        ("2,016", "2016"),
        ("16,130", "16130"),
        ("1,234,567", "1234567"),
        ("12,34,5", "12345"),
        ("1,234.56", "1234.56"),
        ("1,2.5", "12.5"),
        ("+7", "7"),
        ("-7", "-7"),
        ("  7.5  ", "7.5"),
        ("7.", "7"),
        ("7,", "7"),
        ("16,13.,", "16.13"),
        (".5", "0.5"),
        ("-.5", "-0.5"),
        ("007.50", "7.50"),
    ],
)
def test_normalise_commas_signs_and_trailing_marks(token: str, value: str) -> None:
    assert normalise(token) == Decimal(value)


@pytest.mark.parametrize("token", ["", ".", ",", "-", "abc", "1e5", "inf", "NaN", "5%", "1 2"])
def test_normalise_rejects_what_is_not_a_number(token: str) -> None:
    assert normalise(token) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The answer is 16,13", "16.13"),
        ("The answer is 16,1", "16.1"),
        ("The answer is 770,000", "770000"),
        ("The answer is 2,016", "2016"),
        ("The answer is 16.13%.", "16.13"),
        ("The answer is 16.13 percent", "16.13"),
        ("The answer is 16.", "16"),
        ("The answer is 16, I think", "16"),
        ("The answer is -3.2", "-3.2"),
        ("The answer is +3.2", "3.2"),
        ("The answer is .5", "0.5"),
        ("The answer is 1e5", "1"),
        ("the years 2015-2020", "-2020"),
    ],
)
def test_tokens_in_context(text: str, value: str) -> None:
    assert extract_value(text) == Decimal(value)


def test_a_number_too_large_for_a_float_still_normalises_and_is_chosen() -> None:
    huge = "9" * 400
    assert normalise(huge) == Decimal(huge)
    assert extract_value(f"3 then the answer = {huge}") == Decimal(huge)
    assert extract_value(f"the answer = {huge}, or 3") == Decimal(huge)
    assert extract_value(f"{huge} then 3") == Decimal(3)


def test_unicode_digits_and_case_are_handled() -> None:
    assert extract_value("ＡＮＳＷＥＲ is 5 but 6") == Decimal(6)
    assert extract_value("Answer is ١٢.٥ — done") == Decimal("12.5")
    assert extract_answer("Ünïcödé: the answer is 16.13").cue == "answer"


def test_spans_point_into_the_text() -> None:
    text = "Step 1: 5/32. So the Final Answer is ~15.63%."
    found = extract_answer(text)
    assert found.cue_span is not None and found.number_span is not None
    assert text[slice(*found.cue_span)] == "Final Answer"
    assert text[slice(*found.number_span)] == "15.63" == found.token


def test_spans_in_non_ascii_text() -> None:
    text = "İİİ résumé: result = 9.5"
    found = extract_answer(text)
    assert found.cue_span is not None and found.number_span is not None
    assert text[slice(*found.cue_span)] == "result"
    assert text[slice(*found.number_span)] == "9.5"


def test_chat_completions_grade_the_last_assistant_message() -> None:
    chat = [
        {"role": "assistant", "content": "The answer is 1"},
        {"role": "user", "content": "again"},
        {"role": "assistant", "content": "The answer is 2"},
        {"role": "tool", "content": "The answer is 3"},
    ]
    assert completion_text(chat) == "The answer is 2"
    assert extract_value(chat) == Decimal(2)


SEED_README = [
    ("16.13", "16.13"),
    ("16.130", "16.130"),
    ("16.1349", "16.1349"),
    ("16.1", "16.1"),
    ("16.14", "16.14"),
    ("The investor ends up with 16,13 percent.", "16.13"),
    ("Post-money is 62, so result = 19.35", "19.35"),
    ("12 / 62 equals 19.35", "19.35"),
]


@pytest.mark.parametrize(("text", "value"), SEED_README)
def test_seed_readme_examples_extract(text: str, value: str) -> None:
    assert extract_value(text) == Decimal(value)
