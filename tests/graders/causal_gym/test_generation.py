"""Materialisation: byte-identical staging, key sensitivity, disjoint splits, frozen manifest."""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.causal_gym.families import BLOCK_SIZE, effect_kind
from graders.causal_gym.keys import DEFAULT_KEY_HEX
from graders.causal_gym.manifest import (
    EVAL_NAMESPACE,
    MANIFEST_FILE,
    ManifestError,
    load_manifest,
    parse_manifest,
    planned_size,
    render,
)
from graders.causal_gym.sizes import JITTER, TIERS
from graders.causal_gym.staging import pandas_csv, to_csv
from graders.causal_gym.tasks import materialise, task_size
from graders.causal_gym.version import GENERATOR_VERSION

KEY = bytes.fromhex(DEFAULT_KEY_HEX)
OTHER = bytes.fromhex("5a" * 32)


@pytest.mark.parametrize("family", ["ate", "adjustment", "null_detect"])
def test_same_inputs_give_identical_files(family: str) -> None:
    a = materialise(KEY, "train", family, 42)
    b = materialise(KEY, "train", family, 42)
    assert a.staged.files() == b.staged.files()
    assert a.truth == b.truth


@pytest.mark.parametrize("family", ["ate", "adjustment", "null_detect"])
def test_a_different_key_gives_different_data(family: str) -> None:
    mine = materialise(KEY, "train", family, 42)
    theirs = materialise(OTHER, "train", family, 42)
    assert mine.staged.csv_text != theirs.staged.csv_text


def test_train_and_eval_ids_yield_different_tasks() -> None:
    for family, task_id in [("ate", 0), ("adjustment", 1), ("null_detect", 2)]:
        train = materialise(KEY, "train", family, task_id)
        frozen = materialise(KEY, "eval-v2", family, task_id)
        assert train.staged.csv_text != frozen.staged.csv_text


def test_null_blocks_hold_seven_seven_six() -> None:
    for namespace in ("train", "eval-v2"):
        for block in range(5):
            kinds = [
                effect_kind(KEY, namespace, "null_detect", block * BLOCK_SIZE + slot)
                for slot in range(BLOCK_SIZE)
            ]
            assert kinds.count("structural_null") == 7
            assert kinds.count("hard") == 7
            assert kinds.count("wide") == 6
    assert effect_kind(KEY, "train", "ate", 3) == "free"


def test_training_sizes_are_jittered_within_tiers() -> None:
    low = min(bounds[0] for bounds in TIERS.values()) * (1 - JITTER)
    high = max(bounds[1] for bounds in TIERS.values()) * (1 + JITTER)
    sizes = [task_size(KEY, "train", "ate", i) for i in range(300)]
    assert all(low - 1 <= s.n_units <= high + 1 for s in sizes)
    assert {s.tier for s in sizes} == set(TIERS)
    unjittered = sum(1 for s in sizes if TIERS[s.tier][0] <= s.n_units <= TIERS[s.tier][1])
    assert unjittered < len(sizes)


def test_tier_ranges_overlap() -> None:
    ordered = sorted(TIERS.values())
    assert all(a[1] > b[0] for a, b in zip(ordered, ordered[1:], strict=False))


def test_committed_manifest_is_canonical_and_current() -> None:
    text = resources.files("graders.causal_gym").joinpath(MANIFEST_FILE).read_text("utf-8")
    entries = list(load_manifest().values())
    assert len(entries) == 500
    assert render(entries) == text
    header = json.loads(text)
    assert (header["namespace"], header["generator_version"]) == (EVAL_NAMESPACE, GENERATOR_VERSION)


@pytest.mark.parametrize(
    ("namespace", "version"), [("eval-v1", 1), (EVAL_NAMESPACE, GENERATOR_VERSION - 1), ("x", None)]
)
def test_a_manifest_of_another_split_or_version_is_refused(
    namespace: str, version: int | None
) -> None:
    text = render(list(load_manifest().values())[:2])
    data = json.loads(text)
    data["namespace"], data["generator_version"] = namespace, version
    with pytest.raises(ManifestError, match="regenerate"):
        parse_manifest(json.dumps(data))


@pytest.mark.parametrize(
    ("family", "task_id"), [("ate", 0), ("adjustment", 77), ("null_detect", 159)]
)
def test_manifest_rows_are_exact(family: str, task_id: int) -> None:
    entry = load_manifest()[(family, task_id)]
    planned = planned_size(family, task_id)
    assert (planned.tier, planned.n_units) == (entry.tier, entry.n_units)
    task = materialise(KEY, "eval-v2", family, task_id)
    assert task.size.n_units == entry.n_units
    assert len(task.staged.frame) == entry.rows
    assert task.staged.csv_text.count("\n") == entry.rows + 1


column_values = st.one_of(
    st.floats(-9.9e10, 9.9e10, allow_nan=False),
    st.floats(-50, 50),
    st.sampled_from([0.0, -0.0, -0.00004, 0.00005, 1e-9, 123456.78905, float("nan")]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(column_values, min_size=3, max_size=3), min_size=0, max_size=30),
    st.lists(st.integers(-5, 5), min_size=30, max_size=30),
)
def test_the_fast_csv_writer_gives_pandas_bytes(rows: list[list[float]], ints: list[int]) -> None:
    frame = pd.DataFrame(rows, columns=["a", "b_c", "d"], dtype=float)
    frame["t"] = np.array(ints[: len(rows)], dtype=np.int64)
    assert to_csv(frame) == pandas_csv(frame)


@pytest.mark.parametrize("value", [1e11, -3e15, 1e300])
def test_the_csv_writer_hands_huge_values_to_pandas(value: float) -> None:
    frame = pd.DataFrame({"a": [value, 1.5, np.nan], "t": np.array([0, 1, 1])})
    assert to_csv(frame) == pandas_csv(frame)
