"""Submissions: strict schemas, errors only for invalid input, the first valid one is final."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.causal_gym import session as session_module
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.session import TaskSession
from graders.causal_gym.submission import (
    MODELS,
    InvalidSubmission,
    parse_submission,
    schema,
)
from graders.causal_gym.tasks import HostTask, materialise

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
FIELDS = ("estimate", "interval", "adjustment_set", "effect_probability", "note")
REQUIRED = {
    "ate": {"estimate", "interval"},
    "adjustment": {"estimate", "interval", "adjustment_set"},
    "null_detect": {"estimate", "interval", "effect_probability"},
}

numbers = st.one_of(
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
)
values = st.one_of(
    numbers,
    st.booleans(),
    st.none(),
    st.text(max_size=4),
    st.lists(numbers, max_size=3),
    st.lists(st.text(min_size=0, max_size=3), max_size=3),
)
payloads = st.dictionaries(st.sampled_from(FIELDS), values, max_size=5)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _valid(family: str, data: dict[str, Any]) -> bool:
    """An independent reading of the schema."""
    if set(data) != REQUIRED[family]:
        return False
    interval = data["interval"]
    if not _is_number(data["estimate"]) or not isinstance(interval, list) or len(interval) != 2:
        return False
    if not all(_is_number(v) for v in interval) or interval[0] > interval[1]:
        return False
    if family == "adjustment":
        items = data["adjustment_set"]
        if not isinstance(items, list) or not all(isinstance(i, str) and i for i in items):
            return False
        return len(set(items)) == len(items)
    if family == "null_detect":
        p = data["effect_probability"]
        return _is_number(p) and 0 <= p <= 1
    return True


@pytest.fixture(scope="module")
def tasks() -> dict[str, HostTask]:
    return {family: materialise(KEY, "train", family, 11) for family in MODELS}


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(st.sampled_from(sorted(MODELS)), payloads)
def test_submissions_outside_the_schema_never_reach_scoring(
    tasks: dict[str, HostTask], family: str, data: dict[str, Any]
) -> None:
    if _valid(family, data):
        parse_submission(family, data)
        return
    session = TaskSession(tasks[family])
    original = session_module.score

    def spy(*args: Any) -> Any:
        raise AssertionError("an invalid submission reached scoring")

    session_module.score = spy  # type: ignore[assignment]
    try:
        result = session.submit(data)
    finally:
        session_module.score = original
    assert not result.accepted
    assert result.errors
    assert result.score is None
    assert session.final is None
    assert set(result.to_dict()) == {"accepted", "message", "errors"}


@pytest.mark.parametrize(
    "text",
    [
        '{"estimate": NaN, "interval": [0, 1]}',
        '{"estimate": "1.0", "interval": [0, 1]}',
        '{"estimate": true, "interval": [0, 1]}',
        '{"estimate": 1, "interval": [2, 1]}',
        '{"estimate": 1, "interval": [0, 1, 2]}',
        '{"estimate": 1, "interval": [0, 1], "adjustment_set": []}',
        '{"estimate": 1}',
        "[1, 2]",
        "not json",
    ],
)
def test_ate_rejects(text: str) -> None:
    with pytest.raises(InvalidSubmission) as info:
        parse_submission("ate", text)
    assert info.value.errors


def test_family_fields() -> None:
    assert parse_submission("ate", '{"estimate": 1, "interval": [0, 2]}').lo == 0.0
    adj = parse_submission(
        "adjustment", {"estimate": 1, "interval": [0, 2], "adjustment_set": ["a", "b"]}
    )
    assert adj.adjustment_set == ["a", "b"]  # type: ignore[attr-defined]
    with pytest.raises(InvalidSubmission):
        parse_submission(
            "adjustment", {"estimate": 1, "interval": [0, 2], "adjustment_set": ["a", "a"]}
        )
    with pytest.raises(InvalidSubmission):
        parse_submission(
            "null_detect", {"estimate": 1, "interval": [0, 2], "effect_probability": 1.01}
        )


def test_schemas_are_printable_and_strict() -> None:
    for family in MODELS:
        printed = orjson.loads(orjson.dumps(schema(family)))
        assert printed["additionalProperties"] is False
        assert set(printed["required"]) == REQUIRED[family]


def test_first_valid_submission_is_final(tasks: dict[str, HostTask]) -> None:
    task = tasks["ate"]
    session = TaskSession(task)
    assert session.submit('{"estimate": 1}').errors
    first = session.submit({"estimate": 0.1, "interval": [0.0, 0.2]})
    assert first.accepted and first.score is not None
    truth = task.truth
    second = session.submit({"estimate": truth, "interval": [truth, truth]})
    assert not second.accepted
    assert second.score == first.score
    assert session.final == first.score
    assert session.attempts == 3
