"""Campaign validation: every problem names its file and field, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.campaign_load import CampaignError, load_campaign
from workbench.cli import main


def test_default_campaign_meets_the_brief(bundle) -> None:
    assert bundle.horizon >= 120
    assert len(bundle.actions) >= 8
    assert len(bundle.metrics) >= 3 and len(bundle.tasks) >= 1
    kinds = {e.kind for a in bundle.actions.values() for e in a.effects}
    assert {"hire", "capacity", "loan", "marketing", "price", "supplier"} <= kinds
    assert len(bundle.questions) >= 5


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


@pytest.mark.parametrize(
    ("file", "old", "new", "expect"),
    [
        ("campaign.toml", "horizon_days = 180\n", "", ("campaign.toml", "horizon_days")),
        (
            "campaign.toml",
            "horizon_days = 180",
            'horizon_days = "long"',
            ("campaign.toml", "horizon_days"),
        ),
        (
            "actions.toml",
            'prerequisites = { not_scheduled = ["lower_price"] }',
            'prerequisites = { completed = ["no_such_action"] }',
            ("actions.toml", "prerequisites.completed", "no_such_action"),
        ),
        (
            "questions.toml",
            "deadline_day = 30\n",
            "deadline_day = 31\n",
            ("questions.toml", "deadline_day"),
        ),
        (
            "questions.toml",
            'actions = ["spring_campaign"] }',
            'actions = ["nope"] }',
            ("questions.toml", "intervention.actions", "nope"),
        ),
    ],
)
def test_malformed_campaign_names_file_and_field(
    campaign_copy: Path, file: str, old: str, new: str, expect: tuple[str, ...]
) -> None:
    _edit(campaign_copy / file, old, new)
    with pytest.raises(CampaignError) as info:
        load_campaign(campaign_copy)
    text = str(info.value)
    for fragment in expect:
        assert fragment in text


def test_prerequisite_cycle_is_named(campaign_copy: Path) -> None:
    actions = campaign_copy / "actions.toml"
    _edit(
        actions,
        'prerequisites = { not_scheduled = ["lower_price"] }',
        'prerequisites = { completed = ["lower_price"] }',
    )
    _edit(
        actions,
        'prerequisites = { not_scheduled = ["raise_price"] }',
        'prerequisites = { completed = ["raise_price"] }',
    )
    with pytest.raises(CampaignError, match="prerequisite cycle"):
        load_campaign(campaign_copy)


def test_cli_reports_bad_campaign_without_traceback(campaign_copy: Path, tmp_path: Path) -> None:
    _edit(campaign_copy / "campaign.toml", "horizon_days = 180", 'horizon_days = "long"')
    result = CliRunner().invoke(main, ["run", str(campaign_copy), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "campaign.toml: horizon_days" in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "r").exists()


def test_schema_command_prints_json_schema() -> None:
    result = CliRunner().invoke(main, ["schema", "campaign"])
    assert result.exit_code == 0
    assert '"horizon_days"' in result.output


def test_a_reload_sees_every_edit_and_every_problem_again(campaign_copy: Path) -> None:
    """Parsing is cached by the files' bytes: an edit is seen, a broken file always refused."""
    first = load_campaign(campaign_copy)
    assert load_campaign(campaign_copy) == first
    _edit(campaign_copy / "campaign.toml", "horizon_days = 180", "horizon_days = 170")
    edited = load_campaign(campaign_copy)
    assert edited.horizon == 170 and edited.digest != first.digest
    _edit(campaign_copy / "campaign.toml", "horizon_days = 170", 'horizon_days = "x"')
    for _ in range(2):
        with pytest.raises(CampaignError) as refused:
            load_campaign(campaign_copy)
        assert any(p.file == "campaign.toml" for p in refused.value.problems)
    _edit(campaign_copy / "campaign.toml", 'horizon_days = "x"', "horizon_days = 180")
    assert load_campaign(campaign_copy).digest == first.digest
