"""The public view: typed models whose JSON is what `workbench snapshot` prints."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from workbench.cli import main
from workbench.play.models import PublicView, QuestionContract
from workbench.play.public_view import question_contract
from workbench.play.session import PlayerSession


def test_snapshot_json_parses_back_into_the_same_view(demo_run: Path) -> None:
    result = CliRunner().invoke(main, ["snapshot", str(demo_run)])
    assert result.exit_code == 0, result.output
    view = PublicView.model_validate(json.loads(result.output))
    assert json.dumps(view.to_data(), indent=2) + "\n" == result.output
    assert view == PlayerSession.resume(demo_run, autoseal=False).view()


def test_contract_omits_an_absent_component_and_keeps_a_present_one(bundle) -> None:
    for question in bundle.questions.values():
        data = question_contract(bundle, question).to_data()
        assert QuestionContract.model_validate(data).to_data() == data
        if question.conclusion is None:
            assert data["conclusion"] is None
        elif question.conclusion.component is None:
            assert data["conclusion"] == {
                "kind": question.conclusion.kind,
                "action": question.conclusion.action,
            }
        else:
            assert data["conclusion"]["component"] == question.conclusion.component
