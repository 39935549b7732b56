"""The dashboard panel: preview, dictionary, quick estimates, submit, truth only after scoring."""

from __future__ import annotations

import math

import pytest

from graders.causal_gym.keys import DEFAULT_KEY_HEX, KEY_ENV
from graders.causal_gym.panel import CausalPanel, PanelError
from graders.causal_gym.reference import Z90

KEY = bytes.fromhex(DEFAULT_KEY_HEX)


@pytest.fixture()
def panel() -> CausalPanel:
    panel = CausalPanel(KEY)
    panel.load("adjustment", "train", 4)
    return panel


def test_nothing_loaded_is_an_error() -> None:
    with pytest.raises(PanelError):
        CausalPanel(KEY).preview()


def test_a_bad_environment_key_is_a_panel_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, "not-hex")
    with pytest.raises(PanelError, match="hexadecimal"):
        CausalPanel()


def test_bad_references_are_panel_errors() -> None:
    with pytest.raises(PanelError, match="manifest"):
        CausalPanel(KEY).load("ate", "eval-v2", 10_000)
    with pytest.raises(PanelError, match="unknown family"):
        CausalPanel(KEY).load("cate", "train", 0)


def test_info_preview_and_dictionary(panel: CausalPanel) -> None:
    info = panel.info
    frame = panel.preview(5)
    assert len(frame) == 5
    assert set(frame.columns) == {
        info.treatment,
        info.outcome,
        *info.pre_treatment,
        *info.post_treatment,
    }
    text = panel.data_dictionary()
    for column in frame.columns:
        assert f"`{column}`" in text
    assert panel.submission_schema()["title"] == "AdjustmentSubmission"


def test_adjusted_ols_on_the_certified_columns_is_the_reference(panel: CausalPanel) -> None:
    info = panel.info
    task = panel._task
    assert task is not None
    certified = task.staged.dictionary.adjustable
    assert set(certified) < set(info.pre_treatment), "task 4 carries an M-bias column"
    estimate = panel.adjusted_ols(certified)
    assert math.isclose(estimate.estimate, task.reference.estimate)
    assert not math.isclose(panel.adjusted_ols(info.pre_treatment).estimate, estimate.estimate)
    assert math.isclose(estimate.hi - estimate.lo, 2 * Z90 * estimate.se)
    naive = panel.difference_in_means()
    assert naive.se > 0 and naive.estimate != estimate.estimate
    raw = panel.adjusted_ols(certified, cleaned=False)
    assert raw.n_used > estimate.n_used


def test_unknown_or_forbidden_columns(panel: CausalPanel) -> None:
    with pytest.raises(PanelError):
        panel.adjusted_ols(["no_such_column"])
    with pytest.raises(PanelError):
        panel.adjusted_ols([panel.info.outcome])


def test_truth_only_after_a_scored_submission(panel: CausalPanel) -> None:
    with pytest.raises(PanelError):
        panel.truth()
    invalid = panel.submit({"estimate": 1.0})
    assert invalid.errors and not invalid.accepted
    with pytest.raises(PanelError):
        panel.truth()
    assert panel._task is not None
    certified = list(panel._task.staged.dictionary.adjustable)
    ref = panel.adjusted_ols(certified)
    result = panel.submit(
        {"estimate": ref.estimate, "interval": [ref.lo, ref.hi], "adjustment_set": certified}
    )
    assert result.accepted and result.score is not None
    assert result.score.components["adjustment_validity"] == 1.0
    assert panel.truth() == result.score.estimand.truth
    again = panel.submit({"estimate": 0.0, "interval": [0.0, 0.0], "adjustment_set": []})
    assert not again.accepted and again.score == result.score


def test_loading_a_new_task_opens_a_new_session(panel: CausalPanel) -> None:
    panel.submit({"estimate": 0.0, "interval": [-1.0, 1.0], "adjustment_set": []})
    panel.load("ate", "eval-v2", 0)
    with pytest.raises(PanelError):
        panel.truth()
    assert panel.info.split == "eval-v2"
