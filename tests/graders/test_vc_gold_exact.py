"""The gold is the exact ratio rounded to cents half-up at any magnitude, ties included."""

from decimal import Decimal
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from graders.vc_deal import gold_ownership


def _exact_gold(raise_amount: Fraction, pre: Fraction) -> Decimal:
    """floor(100 x ratio x 100 + 1/2) cents, in rationals: the definition, transcribed."""
    cents = (Fraction(10_000) * raise_amount / (raise_amount + pre) + Fraction(1, 2)).__floor__()
    return Decimal(cents).scaleb(-2)


@st.composite
def near_ties(draw: st.DrawFn) -> tuple[int, int]:
    """(raise, pre-money) whose ratio is a cent tie (x.xx5), or one unit either side of it,
    at magnitudes up to 10**90: where a quotient rounded to any fixed precision can err."""
    cents = draw(st.integers(0, 9_999))
    post = 20_000 * draw(st.integers(1, 10**4)) * 10 ** draw(st.integers(0, 86))
    tie = (2 * cents + 1) * post // 20_000
    raise_amount = tie + draw(st.sampled_from([-1, 0, 1]))
    if not 0 < raise_amount <= post:
        raise_amount = tie
    return raise_amount, post - raise_amount


@given(near_ties())
def test_a_near_tie_is_rounded_as_the_exact_ratio_lies(case: tuple[int, int]) -> None:
    raise_amount, pre = case
    assert gold_ownership(raise_amount, pre) == _exact_gold(Fraction(raise_amount), Fraction(pre))


AMOUNTS = st.decimals(min_value=Decimal("1e-30"), max_value=Decimal("1e80"), allow_nan=False)


@given(AMOUNTS, AMOUNTS | st.just(Decimal(0)))
def test_the_gold_is_the_exact_ratio_rounded_half_up(raise_amount: Decimal, pre: Decimal) -> None:
    expected = _exact_gold(Fraction(raise_amount), Fraction(pre))
    assert gold_ownership(raise_amount, pre) == expected
    assert gold_ownership(str(raise_amount), str(pre)) == expected


def test_the_tie_a_rounded_quotient_got_wrong() -> None:
    post = 64 * 10**61
    just_below = post * 5 // 32 - 1  # 100 x ratio = 15.625 - 1.5625e-61
    assert gold_ownership(just_below, post - just_below) == Decimal("15.62")
    assert gold_ownership(post * 5 // 32, post - post * 5 // 32) == Decimal("15.63")
