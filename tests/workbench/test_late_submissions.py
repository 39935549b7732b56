"""A submission made on or after its question's deadline day is journaled but never counts:
every way of submitting says so (before, `run --script` and the host said nothing, and a
play-tester's exact late answer was silently passed over for an earlier guess)."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from workbench.cli import main
from workbench.play.session import PlayerSession

LATE = (
    "submitted on day 30, not before q_spring_campaign's deadline day 30: "
    "recorded, but it will not count"
)


def test_the_session_tells_a_late_submission_and_only_a_late_one(tmp_path: Path) -> None:
    with PlayerSession.create(tmp_path / "run") as session:
        session.advance(29)
        on_time = session.submit({"question": "q_spring_campaign", "value": "1"})
        assert on_time.eligible and on_time.notes == ()
        session.advance(1)
        late = session.submit({"question": "q_spring_campaign", "value": "2"})
        assert not late.eligible and late.notes == (LATE,)


def test_run_names_the_late_script_line(tmp_path: Path) -> None:
    script = tmp_path / "late.jsonl"
    script.write_text(
        '{"kind":"advance","days":30}\n'
        '{"kind":"submit_assessment","assessment":{"kind":"counterfactual",'
        '"question":"q_spring_campaign","value":"1"}}\n'
    )
    result = CliRunner().invoke(
        main, ["run", "--script", str(script), "--out", str(tmp_path / "run")]
    )
    assert result.exit_code == 0, result.output
    assert f"{script}:2: {LATE}" in result.output
