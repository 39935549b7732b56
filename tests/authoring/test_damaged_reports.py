"""A report.json under the runs folder may have been written by anyone: the report browser
shows a score, a loss or a mean score that is not a finite number as written (before,
`abc`, `Infinity`, `sNaN` or `1e999999999` there raised in the table and closed the app)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from tests.tui.conftest import SIZE, edited_validation, shown_report
from tests.tui.text import screen_text
from workbench.display import short_number
from workbench.tui.app import AuthorApp

DAMAGED = ["abc", "Infinity", "sNaN", "1e999999999", "-1e-999999999"]


@given(st.text(max_size=60))
def test_a_measured_number_is_shown_whatever_the_text(text: str) -> None:
    assert isinstance(short_number(text), str)


@given(st.decimals(allow_nan=True, allow_infinity=True) | st.floats())
def test_a_measured_number_is_shown_whatever_the_number(value: Decimal | float) -> None:
    assert isinstance(short_number(value), str)


def test_a_number_that_is_not_finite_or_too_wide_reads_as_written() -> None:
    assert [short_number(v) for v in DAMAGED] == DAMAGED
    assert short_number("12345.678") == "12,346" and short_number("-0.00012345") == "-0.0001234"


@pytest.mark.parametrize("value", DAMAGED)
async def test_a_damaged_report_is_shown_not_a_crash(
    demo_run: Path, tmp_path: Path, value: str
) -> None:
    root = tmp_path / "runs"
    root.mkdir()

    def damage(report: dict[str, Any]) -> None:
        report["summary"]["mean_score"] = value
        first = report["questions"][0]
        first["score"], first["loss"] = value, value

    edited_validation(demo_run, root, damage)
    app = AuthorApp(DEFAULT_CAMPAIGN, root)
    async with app.run_test(size=SIZE) as pilot:
        reports = await shown_report(pilot, app)
        assert reports.reports.row_text(0)[3] == value
        assert reports.questions.row_text(0)[4] == value
        assert f"mean score {value}" in screen_text(reports)
        assert app.is_running
    assert app.return_code in (None, 0)
