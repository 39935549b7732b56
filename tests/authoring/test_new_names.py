"""`workbench new` says how it made the campaign id from a folder name it had to change:
the name is quoted once (a newline in it read `'a\\\\nb'`, escaped twice, a name with a
backslash that the folder does not have)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main


@pytest.mark.parametrize(
    ("name", "shown"),
    [("a\nb", r"'a\nb'"), ("Tab\there", r"'Tab\there'"), ("My Shop", "'My Shop'")],
)
def test_the_id_note_quotes_the_folder_name_once(tmp_path: Path, name: str, shown: str) -> None:
    result = CliRunner().invoke(main, ["new", str(tmp_path / name)])
    assert result.exit_code == 0, result.output
    note = next(line for line in result.output.splitlines() if "made from the folder" in line)
    assert f"made from the folder name {shown} (" in note
