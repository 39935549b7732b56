"""Exact money: parsing refuses floats and sub-cent values; formatting and arithmetic."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ledger.money import MoneyError, format_money, scale_of, to_major, to_minor


@pytest.mark.parametrize(
    ("value", "minor"),
    [
        ("12.34", 1234),
        (12, 1200),
        (Decimal("0.1"), 10),
        ("1,234.50", 123450),
        ("-0.01", -1),
        ("  7 ", 700),
        ("1e3", 100000),
        ("1.000", 100),
        (0, 0),
    ],
)
def test_to_minor_parses_exactly(value: str | int | Decimal, minor: int) -> None:
    assert to_minor(value) == minor


@pytest.mark.parametrize("value", [0.1, 1.0, 12.34, float("nan")])
def test_to_minor_refuses_floats(value: float) -> None:
    with pytest.raises(MoneyError, match="not float"):
        to_minor(value)


def test_to_minor_refuses_bools() -> None:
    with pytest.raises(MoneyError, match="not bool"):
        to_minor(True)


@pytest.mark.parametrize("value", ["0.001", "12.345", Decimal("1.005"), "-0.009"])
def test_to_minor_refuses_sub_cent_values(value: str | Decimal) -> None:
    with pytest.raises(MoneyError, match="more precise than one cent"):
        to_minor(value)


@pytest.mark.parametrize("value", ["abc", "", "NaN", "Infinity", "1.2.3"])
def test_to_minor_refuses_non_amounts(value: str) -> None:
    with pytest.raises(MoneyError):
        to_minor(value)


def test_to_minor_is_exact_beyond_default_decimal_precision() -> None:
    assert to_minor("99999999999999999999999999999") == 9999999999999999999999999999900
    with pytest.raises(MoneyError, match="more precise than one cent"):
        to_minor("1234567890123456789012345678.001")


def test_scale_of_currency_and_physical_units() -> None:
    assert scale_of("USD") == 100
    assert scale_of("UNITS") == 1


def test_to_major_is_exact() -> None:
    assert to_major(12345) == Decimal("123.45")
    assert str(to_major(-5)) == "-0.05"


@pytest.mark.parametrize(
    ("minor", "unit", "text"),
    [
        (123456, "USD", "$1,234.56"),
        (-123456, "USD", "-$1,234.56"),
        (0, "USD", "$0.00"),
        (-5, "USD", "-$0.05"),
        (5, "UNITS", "5 UNITS"),
        (-12345, "UNITS", "-12,345 UNITS"),
    ],
)
def test_format_money(minor: int, unit: str, text: str) -> None:
    assert format_money(minor, unit) == text
