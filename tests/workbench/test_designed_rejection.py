"""A question whose intervention is rejected by design (`expect_intervention = "rejected"`)
asks what trying does: the rejected action changes nothing and the branch runs on, so the
effect is measured (0 when every action of the intervention is refused) and a player who
read the prerequisites scores. Before, it stayed `unresolved` for everyone, so no run of
the bundled gelato campaign could ever validate every question it answered.

A question that expects its intervention to execute still gets no score when it is
rejected: its effect is not what the author asked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from campaigns import resolve_campaign
from workbench.cli import main

KIOSK = "q_kiosk_on_day_3"


def cli(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args])


def evaluated(campaign: str | Path, value: str, tmp_path: Path) -> dict[str, object]:
    """The kiosk question's report entry after a run that submitted `value` on day 0."""
    script = tmp_path / "s.jsonl"
    script.write_text(
        json.dumps(
            {
                "kind": "submit_assessment",
                "assessment": {"kind": "counterfactual", "question": KIOSK, "value": value},
            }
        )
        + "\n"
    )
    run, out = tmp_path / "run", tmp_path / "out"
    assert cli("run", campaign, "--script", script, "--out", run).exit_code == 0
    assert cli("validate", "counterfactual", "--results", run, "--out", out).exit_code == 1
    checked = cli("verify-report", out, "--results", run)
    assert checked.exit_code == 0, checked.output
    report = json.loads((out / "report.json").read_text())
    (entry,) = [q for q in report["questions"] if q["id"] == KIOSK]
    return dict(entry)


@pytest.mark.parametrize(("value", "loss"), [("0", "0"), ("500", "0.2500"), ("-1000", "1.0000")])
def test_a_designed_rejection_is_scored_as_what_trying_does(
    tmp_path: Path, value: str, loss: str
) -> None:
    entry = evaluated("gelato", value, tmp_path)
    assert entry["status"] == "scored" and entry["effect"] == "0.00"
    assert entry["loss"] == loss
    branches = entry["branches"]
    assert isinstance(branches, dict)
    intervention, baseline = branches["intervention"], branches["baseline"]
    assert intervention["status"] == "rejected" and "hire_counter_staff" in intervention["reason"]
    assert intervention["outcome"] == baseline["outcome"] and intervention["seal_file"]


def test_a_rejection_the_author_did_not_design_still_scores_nothing(tmp_path: Path) -> None:
    campaign = tmp_path / "gelato"
    shutil.copytree(resolve_campaign("gelato"), campaign)
    questions = campaign / "questions.toml"
    text = questions.read_text()
    assert text.count('expect_intervention = "rejected"\n') == 1
    questions.write_text(text.replace('expect_intervention = "rejected"\n', ""))
    entry = evaluated(campaign, "0", tmp_path)
    assert entry["status"] == "unresolved" and entry["effect"] is None
    assert "intervention rejected" in str(entry["reason"])


def test_the_rest_of_an_intervention_refused_in_part_still_takes_place(tmp_path: Path) -> None:
    """The kiosk refused, the price change made: trying both is the price's effect alone, and the
    branch verifier takes the whole schedule of a branch that ran on."""
    campaign = tmp_path / "gelato"
    shutil.copytree(resolve_campaign("gelato"), campaign)
    questions = campaign / "questions.toml"
    text = questions.read_text()
    kiosk = 'actions = ["beach_kiosk"] }\nexpect_intervention = "rejected"'
    assert text.count(kiosk) == 1
    questions.write_text(
        text.replace(
            kiosk, 'actions = ["beach_kiosk", "summer_price"] }\nexpect_intervention = "rejected"'
        )  # fmt: skip
    )
    entry = evaluated(campaign, "0", tmp_path)
    assert entry["status"] == "scored" and entry["effect"] not in (None, "0.00")
    branches = entry["branches"]
    assert isinstance(branches, dict)
    steps = branches["intervention"]["schedule"]
    assert [(s["action"], s["accepted"]) for s in steps] == [
        ("beach_kiosk", False),
        ("summer_price", True),
    ]
