"""`start_date` is a date as written: a TOML date or "YYYY-MM-DD". A date-time is refused
whatever its time; before, pydantic cut one at midnight (with an offset too, or as a
string) to its day and refused any other time with "write it as YYYY-MM-DD"."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import CampaignError, load_campaign


def _load_with(start: str) -> str | None:
    """The problem lines of the default campaign with `start_date = START` (None if it loads)."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "campaign"
        shutil.copytree(DEFAULT_CAMPAIGN, folder)
        path = folder / "campaign.toml"
        text = path.read_text()
        assert 'start_date = "2027-03-01"' in text
        path.write_text(text.replace('start_date = "2027-03-01"', f"start_date = {start}", 1))
        try:
            load_campaign(folder)
        except CampaignError as exc:
            return str(exc)
        return None


@pytest.mark.parametrize(
    "start",
    [
        "2027-03-01T00:00:00",
        "2027-03-01T00:00:00+05:00",
        "2027-03-01 00:00:00Z",
        '"2027-03-01T00:00:00"',
        '"2027-03-01T00:00:00Z"',
    ],
)
def test_a_midnight_date_time_is_not_a_date(start: str) -> None:
    problem = _load_with(start)
    assert problem is not None and len(problem.splitlines()) == 1
    assert "campaign.toml: start_date: " in problem and "is not a date" in problem


OFFSETS = st.integers(-23 * 60, 23 * 60).map(lambda m: dt.timedelta(minutes=m))
"""UTC offsets TOML can write (whole minutes)."""


@settings(max_examples=40, deadline=None)
@given(st.datetimes(timezones=st.none() | st.builds(dt.timezone, OFFSETS)))
def test_every_date_time_is_refused_on_one_line(moment: dt.datetime) -> None:
    problem = _load_with(moment.isoformat())
    assert problem is not None and len(problem.splitlines()) == 1
    assert "start_date: " in problem


@pytest.mark.parametrize("start", ["2027-03-01", '"2027-03-01"'])
def test_a_date_loads(start: str) -> None:
    assert _load_with(start) is None
