"""Properties: loose >= strict, grading never raises, generated items obey bands and never leak."""

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.vc_deal import (
    VCPanel,
    extract_answer,
    extract_value,
    generate,
    gold_ownership,
    leak_reason,
    metrics,
    normalise,
    round_cents,
)

GOLDS = st.decimals(min_value=-1000, max_value=1000, places=3, allow_nan=False).map(
    str
) | st.floats(min_value=-1e6, max_value=1e6, allow_nan=False)
NUMBERS = st.from_regex(r"[-+]?(\d{1,4}([,.]\d{1,3}){0,2}|\.\d{1,3})", fullmatch=True)
PIECES = st.sampled_from(
    [
        "answer", "Final Answer", "final answer", "ownership", "Ownership percentage", "result",
        "equals", "equal", "=", "answ", "er", " is ", ":", "~", "about ", " ", "\n", "\t",
        "\u2003", "%", "$", ",", ".", "-", "+", "percent", "٣", "9" * 320,
    ]
)  # fmt: skip
TEXTS = st.text() | st.lists(PIECES | NUMBERS | st.text(max_size=3), max_size=12).map("".join)


@given(TEXTS, GOLDS)
def test_loose_is_never_below_strict(text: str, gold: object) -> None:
    found = metrics(text, gold)  # type: ignore[arg-type]
    assert found["loose_correct"] >= found["strict_correct"]
    assert found["format_valid_number"] >= found["loose_correct"]


@given(st.one_of(st.none(), st.text(), TEXTS, st.binary(), st.integers()), GOLDS)
def test_grading_never_raises_on_arbitrary_completions(completion: object, gold: object) -> None:
    grade = VCPanel().grade_text(completion, gold)  # type: ignore[arg-type]
    assert grade.format_valid_number == (0.0 if grade.extracted is None else 1.0)


@given(TEXTS)
def test_fast_and_detailed_extraction_agree(text: str) -> None:
    found = extract_answer(text)
    assert extract_value(text) == found.value
    if found.number_span is not None:
        assert text[slice(*found.number_span)] == found.token
    if found.cue_span is not None:
        assert text[slice(*found.cue_span)] == found.cue


WELL_FORMED = st.from_regex(r"[-+]?\d{1,3}(,\d{1,3}){0,2}(\.\d{1,3})?", fullmatch=True)


@given(WELL_FORMED, st.decimals(min_value=0, max_value=100, places=2, allow_nan=False))
def test_a_cued_number_is_read_whole_and_judged_at_cents(number: str, gold: Decimal) -> None:
    value = normalise(number)
    assert value is not None
    assert extract_value(f"Working: 1, 2, 3. The answer is {number}, done.") == value
    found = metrics(f"The answer is {number}", str(gold))
    assert found["strict_correct"] == float(round_cents(value) == gold)
    assert found["loose_correct"] == float(abs(round_cents(value) - gold) <= Decimal("0.5"))


@given(st.integers(1, 10**9), st.integers(0, 10**10))
def test_gold_is_the_half_up_rounding_of_the_exact_ratio(raise_amount: int, pre: int) -> None:
    exact = Decimal(raise_amount * 100) / Decimal(raise_amount + pre)
    gold = gold_ownership(raise_amount, pre)
    assert abs(gold - exact) <= Decimal("0.005")
    assert gold == gold.quantize(Decimal("0.01"))


@settings(max_examples=40, deadline=None)
@given(st.integers(-(10**6), 10**6))
def test_generated_items_obey_their_bands_and_never_leak(seed: int) -> None:
    for item in generate(6, seed):
        answer = Decimal(repr(item.answer))
        assert leak_reason(item.scenario, answer) is None
        assert answer == gold_ownership(item.raise_amount, item.pre_money)
        if item.difficulty == "easy":
            assert Decimal(5) <= answer <= Decimal(55)
            assert answer == answer.quantize(Decimal("0.1")) and answer % 1 != 0
            assert Decimal(item.raise_amount * 100) / item.post_money == answer
        else:
            assert Decimal(8) <= answer <= Decimal(55)
            assert answer % Decimal("0.5") != 0
