"""Shaping what a line shows of other people's text: printable, one line, bounded."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from workbench.messages import bound_line, single_line


@given(st.text(max_size=200))
def test_any_text_shows_on_one_printable_line(text: str) -> None:
    shown = single_line(text)
    assert shown.isprintable() and "\n" not in shown and "\x1b" not in shown


@given(st.text(st.characters(blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))))
def test_printable_text_is_shown_as_it_is(text: str) -> None:
    if text.isprintable():
        assert single_line(text) == text


def test_a_name_that_would_drive_the_terminal_is_shown_escaped() -> None:
    assert single_line("run\x1b[31mRED\nnext\tcol") == "run\\x1b[31mRED\\nnext\\tcol"


@given(st.text(max_size=2_000))
def test_a_bounded_line_is_printable_and_short(text: str) -> None:
    shown = bound_line(single_line(text), 100)
    assert shown.isprintable() and len(shown) <= 100 + len("… (00000 chars)")


@given(
    keys=st.lists(st.text(max_size=120), min_size=1, max_size=4),
    value=st.text(max_size=50),
)
def test_every_problem_of_a_hostile_document_is_one_line(keys: list[str], value: str) -> None:
    """Keys and values are anyone's text: a key "\\n" once split a tool's error over two
    lines. Each problem `problems` gives is one printable line, however the keys read."""
    from pydantic import BaseModel, ConfigDict, ValidationError

    from workbench.messages import problems

    class Strict(BaseModel):
        model_config = ConfigDict(extra="forbid")
        days: int = 1

    document: dict[str, object] = {key: value for key in keys}
    document["days"] = value
    try:
        Strict.model_validate(document)
    except ValidationError as exc:
        for line in problems(exc, "arguments"):
            assert "\n" not in line and line.isprintable(), line


@given(st.text(min_size=1, max_size=300), st.integers(500, 5_000))
def test_a_cut_line_keeps_its_reason(reason: str, length: int) -> None:
    """A message cut for length kept only its start: `PATH: cannot access (…)` of a long
    path lost the reason. Its start and its end are both shown."""
    line = single_line("p" * length + ": cannot access (" + reason + ")")
    shown = bound_line(line, 400)
    assert shown.startswith("p" * 100) and shown.endswith(line[-100:])
    assert f"({len(line)} chars)" in shown and len(shown) <= 400 + len("… (00000 chars)")


@given(st.text(max_size=3_000), st.integers(40, 1_000))
def test_a_bounded_line_is_at_most_its_limit(text: str, limit: int) -> None:
    """The README says a line is cut at 400 and an API message is at most 400 characters:
    the `… (N chars) …` marker came on top of the limit (a cut line was 415 long)."""
    line = single_line(text)
    shown = bound_line(line, limit)
    assert len(shown) <= limit
    if shown != line:
        assert shown.endswith(line[-(limit // 4) :]) and f"({len(line)} chars)" in shown


def test_a_long_path_names_what_failed(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tests.placed import one_error_line
    from workbench.cli import main

    long = str(tmp_path / ("d" * 5_000))
    for args in (["show", long], ["run", "--out", long], ["serve", long, "--port", "1"]):
        line = one_error_line(CliRunner().invoke(main, args))
        assert line.endswith("(File name too long)") and "chars)" in line, args
