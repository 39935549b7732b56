"""Gold rounding and the three verdicts, against the study's own examples and boundaries."""

from decimal import Decimal

import pytest

from graders.vc_deal import (
    format_valid_number,
    gold_ownership,
    grade_completion,
    loose_correct,
    loose_reward,
    metrics,
    ownership_exact,
    reward,
    round_cents,
    rubric,
    strict_correct,
    strict_reward,
)


@pytest.mark.parametrize(
    ("raise_amount", "pre_money", "gold"),
    [
        (5, 27, "15.63"),
        (29, 131, "18.13"),
        (1, 3, "25.00"),
        (12, 50, "19.35"),
        (1, 2, "33.33"),
        (2, 1, "66.67"),
        ("1200000", "4400000", "21.43"),
        (Decimal("2.5"), Decimal("7.5"), "25.00"),
    ],
)
def test_gold_rounds_half_up_in_decimal(raise_amount: object, pre_money: object, gold: str) -> None:
    assert gold_ownership(raise_amount, pre_money) == Decimal(gold)  # type: ignore[arg-type]


def test_float_round_would_get_the_ties_wrong() -> None:
    assert round(15.625, 2) == 15.62 and round(18.125, 2) == 18.12
    assert gold_ownership(5, 27) == Decimal("15.63")
    assert gold_ownership(29, 131) == Decimal("18.13")


def test_exact_ownership_is_unrounded() -> None:
    assert ownership_exact(5, 27) == Decimal("15.625")


@pytest.mark.parametrize(("raise_amount", "pre_money"), [(0, 10), (-1, 10), (1, -1), ("x", 1)])
def test_gold_refuses_impossible_rounds(raise_amount: object, pre_money: object) -> None:
    with pytest.raises(ValueError):
        gold_ownership(raise_amount, pre_money)  # type: ignore[arg-type]


def test_round_cents_is_exact_at_any_magnitude() -> None:
    big = Decimal("1" * 60 + ".125")
    assert round_cents(big) == Decimal("1" * 60 + ".13")
    assert round_cents(Decimal("-0.005")) == Decimal("-0.01")


STRICT_LOOSE = [
    ("16.13", 1.0, 1.0),
    ("16.130", 1.0, 1.0),
    ("16.1349", 1.0, 1.0),
    ("16.125", 1.0, 1.0),
    ("16.1", 0.0, 1.0),
    ("16.14", 0.0, 1.0),
    ("15.63", 0.0, 1.0),
    ("16.63", 0.0, 1.0),
    ("15.625", 0.0, 1.0),
    ("16.634", 0.0, 1.0),
    ("15.62", 0.0, 0.0),
    ("16.64", 0.0, 0.0),
    ("16.635", 0.0, 0.0),
    ("0.1613", 0.0, 0.0),
    ("-16.13", 0.0, 0.0),
]


@pytest.mark.parametrize(("extracted", "strict", "loose"), STRICT_LOOSE)
def test_strict_and_loose_against_gold_16_13(extracted: str, strict: float, loose: float) -> None:
    found = grade_completion(f"The answer is {extracted}", 16.13)
    assert (found.strict_correct, found.loose_correct, found.format_valid_number) == (
        strict,
        loose,
        1.0,
    )


def test_loose_boundary_is_inclusive_where_floats_are_not() -> None:
    assert abs(8.13 - 7.63) > 0.5
    assert loose_correct("The answer is 8.13", 7.63) == 1.0
    assert loose_correct("The answer is 16.63", 16.13) == 1.0
    assert loose_correct("The answer is 15.63", 16.13) == 1.0


@pytest.mark.parametrize("answer", [16.13, "16.13", Decimal("16.13"), "16.130", 16.1300001])
def test_gold_may_be_float_string_or_decimal(answer: object) -> None:
    assert strict_correct("The answer is 16.13", answer) == 1.0  # type: ignore[arg-type]


@pytest.mark.parametrize("answer", [None, "sixteen", float("nan"), float("inf"), True, [16.13]])
def test_a_gold_that_is_not_a_number_is_a_value_error(answer: object) -> None:
    with pytest.raises(ValueError):
        grade_completion("The answer is 16.13", answer)  # type: ignore[arg-type]


def test_no_answer_scores_zero_everywhere() -> None:
    for completion in (None, "", "no number"):
        assert metrics(completion, 16.13) == {
            "reward": 0.0,
            "strict_correct": 0.0,
            "loose_correct": 0.0,
            "format_valid_number": 0.0,
        }


def test_reward_is_strict_by_default_and_loose_when_asked() -> None:
    text = "The answer is 16.1"
    assert reward(text, 16.13) == 0.0
    assert reward(text, 16.13, loose=True) == 1.0
    assert metrics(text, 16.13, loose=True)["reward"] == 1.0
    assert format_valid_number(text, 16.13) == 1.0


def test_reward_functions_ignore_extra_keyword_arguments() -> None:
    extra = {"prompt": "q", "state": {}, "info": {"difficulty": "easy"}}
    assert strict_correct(completion="The answer is 16.13", answer="16.13", **extra) == 1.0
    assert loose_reward("The answer is 16.5", 16.13, **extra) == 1.0
    assert strict_reward("The answer is 16.5", 16.13, **extra) == 0.0


def test_rubric_weights_the_chosen_grader_and_reports_all_verdicts() -> None:
    strict = rubric()
    loose = rubric(loose=True)
    assert [weight for _, weight in strict] == [1.0, 0.0, 0.0, 0.0]
    assert strict[0][0] is strict_reward and loose[0][0] is loose_reward
    names = {function.__name__ for function, _ in strict[1:]}
    assert names == {"strict_correct", "loose_correct", "format_valid_number"}
    text = "The answer is 16.4"
    assert [f(text, 16.13) for f, _ in loose] == [1.0, 0.0, 1.0, 1.0]
