"""The public view: typed models whose JSON is what `workbench snapshot` prints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ledger.money import dollars
from workbench.cli import main
from workbench.errors import UserError
from workbench.play.models import PublicView, QuestionContract
from workbench.play.public_view import action_terms, question_contract, question_view
from workbench.play.session import PlayerSession
from workbench.runs.assessment import eligible


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


def test_action_terms_spell_every_amount_as_exact_dollars(bundle) -> None:
    for action in bundle.actions.values():
        terms = action_terms(action)
        assert terms.upfront_cost == dollars(action.upfront_cost)
        assert terms.financing_net_assets == dollars(action.financing_net_assets)
        assert terms.irreversible_work == dollars(action.irreversible_work)
        assert terms.prerequisites.min_cash_after == dollars(action.prerequisites.min_cash_after)
        assert terms.effect_set == action.effect_names
        for effect, data in zip(action.effects, terms.effects, strict=True):
            assert data["kind"] == effect.kind
            for key in ("principal", "new_price", "per_day"):
                if key in data:
                    assert data[key] == dollars(getattr(effect, key))


def test_a_question_is_open_exactly_while_a_submission_would_count(bundle) -> None:
    for day in range(bundle.horizon + 1):
        for question in bundle.questions.values():
            view = question_view(bundle, question, day)
            assert view.open == eligible(question, day) == (view.days_to_deadline > 0)


def test_only_the_latest_eligible_submission_counts(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    for value in ("100", "200"):
        assert session.submit({"question": "q_spring_campaign", "value": value}).accepted
    session.advance(40)
    assert session.submit({"question": "q_spring_campaign", "value": "300"}).accepted
    rows = session.view().submissions
    assert [(r.value, r.eligible, r.counts) for r in rows] == [
        ("100", True, False),
        ("200", True, True),
        ("300", False, False),
    ]


def test_the_view_follows_the_run_and_holds_no_seed(tmp_path: Path, bundle) -> None:
    session = PlayerSession.create(tmp_path / "run")
    session.schedule("bank_loan")
    session.advance(3)
    view = session.view()
    assert view.day == 3 and view.horizon == bundle.horizon and not view.finished
    assert [c.action for c in view.commitments] == ["bank_loan"]
    assert [m.id for m in view.metrics] == list(bundle.metrics)
    assert view.action("bank_loan") == action_terms(bundle.actions["bank_loan"])
    assert view.action("nope") is None and view.question("nope") is None
    text = json.dumps(view.to_data())
    assert str(bundle.campaign.development_seed) not in text and "seed" not in text
    series = session.metric_series()
    assert all(len(values) == 4 for values in series.values())


def test_an_unknown_export_format_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="unknown export format 'xml'"):
        PlayerSession.create(tmp_path / "run").ledger().export("xml")
