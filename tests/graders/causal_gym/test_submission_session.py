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
from graders.causal_gym.scoring import score
from graders.causal_gym.session import TaskSession
from graders.causal_gym.submission import (
    MAX_ABS,
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
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and abs(value) <= MAX_ABS
    )


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
        '{"estimate": 1, "interval": [0, 1], "estimate": 1}',
        '{"estimate": 1, "interval": [-1e308, 1e308]}',
        '{"estimate": 1e16, "interval": [0, 1]}',
        '{"estimate": Infinity, "interval": [0, 1]}',
        '{"estimate": 1, "interval": [0, 1e999]}',
        "[" * 100_000,
        '{"estimate": 1' + "0" * 5000 + ', "interval": [0, 1]}',
    ],
)
def test_ate_rejects(text: str) -> None:
    with pytest.raises(InvalidSubmission) as info:
        parse_submission("ate", text)
    assert info.value.errors


@pytest.mark.parametrize("kind", [str, bytes])
def test_a_submission_over_its_limit_is_refused_before_it_is_parsed(kind: type) -> None:
    """The dashboard's answer box has no size of its own: the grader bounds what it parses,
    as the CLI bounds the file (1 MiB); one character less is parsed (and found wanting)."""
    from graders.causal_gym.submission import MAX_SUBMISSION

    padded = '{"estimate": 1, "interval": [0, 1]}' + " " * MAX_SUBMISSION
    text = padded if kind is str else padded.encode()
    with pytest.raises(InvalidSubmission) as info:
        parse_submission("ate", text)
    assert [e["type"] for e in info.value.errors] == ["too_large"]
    fits = text[:MAX_SUBMISSION]
    assert parse_submission("ate", fits).estimate == 1


SUBMITTED: dict[str, dict[str, Any]] = {
    "ate": {},
    "adjustment": {"adjustment_set": []},
    "null_detect": {},
}
any_float = st.floats(allow_nan=False, allow_infinity=False)
big_or_small = st.one_of(
    any_float,
    st.sampled_from([MAX_ABS, -MAX_ABS, 1e308, -1e308, 5e-324, 0.0]),
    st.floats(-MAX_ABS, MAX_ABS),
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(sorted(MODELS)),
    big_or_small,
    big_or_small,
    big_or_small,
    st.floats(0.0, 1.0),
)
def test_every_accepted_submission_gets_a_finite_reward(
    tasks: dict[str, HostTask], family: str, estimate: float, a: float, b: float, p: float
) -> None:
    """The class behind `[-1e308, 1e308]` giving `reward: null`: finite reward or refused."""
    data: dict[str, Any] = {"estimate": estimate, "interval": [min(a, b), max(a, b)]}
    data.update(SUBMITTED[family])
    if family == "null_detect":
        data["effect_probability"] = p
    text = orjson.dumps(data)
    if not all(abs(x) <= MAX_ABS for x in (estimate, a, b)):
        with pytest.raises(InvalidSubmission):
            parse_submission(family, text)
        return
    result = score(tasks[family], parse_submission(family, text))
    assert math.isfinite(result.reward) and math.isfinite(result.clipped_reward)
    assert all(math.isfinite(v) for v in result.components.values())
    assert orjson.loads(orjson.dumps(result.to_dict()))["reward"] is not None


json_scalars = st.one_of(st.integers(-5, 5), st.floats(-10, 10), st.text(max_size=3), st.none())


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(MODELS)),
    st.lists(st.sampled_from(FIELDS), min_size=1, max_size=6),
    st.data(),
)
def test_a_repeated_key_is_always_refused(family: str, keys: list[str], data: Any) -> None:
    """Strict JSON names each key once, at any depth; otherwise the last would silently win."""
    members = [
        f"{orjson.dumps(k).decode()}: {orjson.dumps(data.draw(json_scalars)).decode()}"
        for k in keys
    ]
    repeated = len(set(keys)) < len(keys)
    nested = data.draw(st.booleans())
    body = "{" + ", ".join(members) + "}"
    text = f'{{"estimate": 1, "interval": [0, 1], "x": [{body}]}}' if nested else body
    if repeated:
        with pytest.raises(InvalidSubmission) as info:
            parse_submission(family, text)
        assert info.value.errors[0]["type"] == "duplicate_key"
    else:
        try:
            parse_submission(family, text)
        except InvalidSubmission as exc:
            assert all(e["type"] != "duplicate_key" for e in exc.errors)


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
