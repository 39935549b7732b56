"""Whole-number options of `vc` and `causal` (`options.Whole`) take ASCII digits only, as the
host, scripts and the dashboard do: `1_0` and other scripts' digits are refused, not read."""

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.cli import main

COMMANDS = [
    ["vc", "generate", "-n"],
    ["vc", "generate", "-n", "1", "--seed"],
    ["causal", "audit", "-n"],
    ["vc", "grade", "x.jsonl", "--workers"],
]


def _refusal(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and result.stdout == "", result.output
    assert "Traceback" not in result.output
    return result.stderr


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(COMMANDS),
    st.text(st.characters(categories=["Nd"]), min_size=1, max_size=3).filter(
        lambda text: not text.isascii()
    ),
)
def test_digits_of_other_scripts_are_refused(command: list[str], digits: str) -> None:
    assert "is not a whole number" in _refusal([*command, digits])


@pytest.mark.parametrize("text", ["1_0", "1_000", "+1_0", "٣", "1٣", "３", " 1_2 "])
@pytest.mark.parametrize("command", COMMANDS)
def test_underscored_and_non_ascii_numbers_are_refused(command: list[str], text: str) -> None:
    assert "is not a whole number" in _refusal([*command, text])


def test_a_task_id_in_other_digits_is_refused() -> None:
    args = ["causal", "score", "--family", "ate", "--task-id", "١٢", "answer.json"]
    assert "is not a whole number" in _refusal(args)


@pytest.mark.parametrize("text", ["3", "+3", " 3 ", "003"])
def test_ascii_whole_numbers_still_read(text: str) -> None:
    result = CliRunner().invoke(main, ["vc", "generate", "-n", text, "--seed", "1"])
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 3
