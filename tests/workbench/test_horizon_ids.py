"""`run` plays to the horizon whatever ids a script's commands carry.

Its closing advance once took the id `to-horizon-from-day-D` from the players' own id
space: a script line carrying that id made `run` stop short of the horizon with exit 0
(the same id and content, a no-op retry) or fail on a command the script never wrote.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.play.session import PlayerSession

LINES = [
    '{"kind":"advance","days":90,"id":"to-horizon-from-day-90"}',
    '{"kind":"advance","days":5,"id":"to-horizon-from-day-5"}',
    '{"kind":"schedule","action":"hire_roaster","id":"to-horizon-from-day-0"}',
    '{"kind":"advance","days":3,"id":"to-horizon-from-day-3"}\n'
    '{"kind":"schedule","action":"hire_roaster","id":"to-horizon-from-day-3-2"}',
]


@pytest.mark.parametrize("line", LINES)
def test_a_script_id_never_stops_the_run_short_of_its_horizon(tmp_path: Path, line: str) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(line + "\n")
    run = tmp_path / "run"
    result = CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)])
    assert result.exit_code == 0, result.output
    assert "played to day 180 of 180" in result.stdout
    with PlayerSession.resume(run, read_only=True) as session:
        assert session.finished
    again = CliRunner().invoke(main, ["run", "--script", str(script), "--out", str(run)])
    assert again.exit_code == 0, again.output
    assert CliRunner().invoke(main, ["verify", str(run)]).exit_code == 0


def test_the_same_script_journals_the_same_bytes(tmp_path: Path) -> None:
    script = tmp_path / "script.jsonl"
    script.write_text(LINES[0] + "\n")
    journals = []
    for name in ("a", "b"):
        result = CliRunner().invoke(
            main, ["run", "--script", str(script), "--out", str(tmp_path / name)]
        )
        assert result.exit_code == 0, result.output
        journals.append((tmp_path / name / "journal.jsonl").read_bytes())
    assert journals[0] == journals[1]
