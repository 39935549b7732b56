"""The dashboard's VCPanel and batch grading: results in order, summaries by difficulty."""

import contextlib
import os
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.vc_deal import (
    GradeInputError,
    VCPanel,
    generate,
    load_templates,
    parse_inputs,
    parse_line,
)
from graders.vc_deal.answer_form import follows_answer_form
from graders.vc_deal.batch import MAX_INPUT_BYTES, read_bounded_input
from workbench.inputs import LIMITS

ROWS = [
    {"completion": "The answer is 8.90", "answer": 8.9, "info": {"difficulty": "easy"}},
    {"completion": "answer = 38.3", "answer": 38.55, "info": {"difficulty": "hard"}},
    {"completion": "I think 12", "answer": 8.8, "info": {"difficulty": "easy"}},
    {"completion": None, "answer": "38.36", "info": {"difficulty": "hard"}},
    {"completion": "Result: 16,13", "answer": 16.13},
]


def _jsonl(tmp_path: Path, rows: list[object], name: str = "in.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


def test_generate_item_matches_the_dataset() -> None:
    panel = VCPanel()
    dataset = generate(6, 9)
    assert panel.generate_item("easy", 9, 2) == dataset[4]
    assert panel.generate_item("hard", 9, 0) == dataset[1]
    assert panel.generate(6, 9) == dataset


def test_panel_accepts_a_template_path_or_bank(tmp_path: Path) -> None:
    bundled = Path(__file__).parents[2] / "graders" / "vc_deal" / "templates.toml"
    copy = tmp_path / "mine.toml"
    copy.write_bytes(bundled.read_bytes().replace(b"Work it out briefly", b"Be brief"))
    assert VCPanel(load_templates()).generate(4, 1) == generate(4, 1)
    mine = VCPanel(copy).generate(4, 1)
    assert [item.scenario for item in mine] == [item.scenario for item in generate(4, 1)]
    assert all("? Be brief, then finish" in item.question for item in mine)


def test_grade_text_reports_cue_number_and_spans() -> None:
    text = "Post-money is 62M, 12/62 = 0.1935.\nThe answer is about 19.35%."
    grade = VCPanel().grade_text(text, 19.35)
    assert (grade.cue, grade.token, grade.source) == ("answer", "19.35", "cue")
    assert grade.cue_span is not None and grade.number_span is not None
    assert text[slice(*grade.cue_span)] == "answer"
    assert text[slice(*grade.number_span)] == "19.35"
    assert (grade.extracted, grade.gold) == (19.35, 19.35)
    assert (grade.strict_correct, grade.loose_correct, grade.format_valid_number) == (1, 1, 1)


def test_grade_text_fallback_and_loose_reward() -> None:
    grade = VCPanel().grade_text("roughly 19.1 I guess", "19.35", loose=True)
    assert (grade.source, grade.cue, grade.cue_span) == ("last_number", None, None)
    assert (grade.strict_correct, grade.loose_correct, grade.reward) == (0.0, 1.0, 1.0)


def test_grade_text_with_no_number() -> None:
    grade = VCPanel().grade_text(None, 19.35)
    assert (grade.text, grade.extracted, grade.source, grade.reward) == ("", None, "none", 0.0)


def test_grade_batch_keeps_order_and_summarises_by_difficulty(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    report = VCPanel().grade_batch(
        _jsonl(tmp_path, ROWS), progress=lambda d, t: seen.append((d, t))
    )
    assert [r.extracted for r in report.results] == [8.9, 38.3, 12.0, None, 16.13]
    assert [r.strict_correct for r in report.results] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert [r.loose_correct for r in report.results] == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert [r.reward for r in report.results] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert seen == [(5, 5)]
    summary = report.summary
    assert (summary.overall.count, summary.overall.strict, summary.overall.loose) == (5, 0.4, 0.6)
    assert summary.overall.gap == pytest.approx(0.2)
    assert summary.overall.format_valid == 0.8
    assert list(summary.by_difficulty) == ["easy", "hard"]
    easy, hard = summary.by_difficulty["easy"], summary.by_difficulty["hard"]
    assert (easy.count, easy.strict, easy.loose, easy.format_valid) == (2, 0.5, 0.5, 1.0)
    assert (hard.count, hard.strict, hard.loose, hard.format_valid) == (2, 0.0, 0.5, 0.5)


def test_grade_batch_loose_reward_and_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "gaps.jsonl"
    path.write_bytes(b"\n" + orjson.dumps(ROWS[1]) + b"\n   \n")
    report = VCPanel().grade_batch(path, loose=True)
    assert [(r.line, r.reward) for r in report.results] == [(2, 1.0)]
    assert report.summary.loose


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"{not json", "in.jsonl:2: not valid JSON"),
        (b"[1, 2]", "in.jsonl:2: expected a JSON object"),
        (b'{"answer": 1}', "in.jsonl:2: missing field 'completion'"),
        (b'{"completion": "x"}', "in.jsonl:2: missing field 'answer'"),
        (b'{"completion": 5, "answer": 1}', "in.jsonl:2: 'completion' must be a string or null"),
        (b'{"completion": "x", "answer": "soon"}', "in.jsonl:2: 'answer' is not a number"),
        (b'{"completion": "x", "answer": null}', "in.jsonl:2: 'answer' is not a number"),
        (b'{"completion": "x", "answer": 1, "info": 3}', "in.jsonl:2: 'info' must be an object"),
    ],
)
def test_bad_lines_name_the_file_and_line(tmp_path: Path, raw: bytes, message: str) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(orjson.dumps(ROWS[0]) + b"\n" + raw + b"\n")
    with pytest.raises(GradeInputError) as caught:
        VCPanel().grade_batch(path)
    assert str(caught.value).startswith(str(tmp_path / message))
    assert caught.value.line == 2


def test_a_missing_file_is_a_grade_input_error(tmp_path: Path) -> None:
    with pytest.raises(GradeInputError, match="no such file"):
        VCPanel().grade_batch(tmp_path / "absent.jsonl")


def test_parse_line_reads_difficulty_only_when_it_is_text() -> None:
    assert (
        parse_line(b'{"completion":"a","answer":1,"info":{"difficulty":"hard"}}', 1).difficulty
        == "hard"
    )
    assert (
        parse_line(b'{"completion":"a","answer":1,"info":{"difficulty":3}}', 1).difficulty is None
    )
    assert parse_line(b'{"completion":"a","answer":1,"info":null}', 1).difficulty is None


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"completion": "\xff", "answer": 1}', "in.jsonl:2: not valid JSON"),
        (b"[" * 5000, "in.jsonl:2: not valid JSON"),
        (b'{"completion": "x", "answer": ' + b"9" * 400 + b"}", "in.jsonl:2: not valid JSON"),
        (b'{"completion": "x", "answer": "1e30"}', "in.jsonl:2: 'answer' is too large to round"),
        (b'{"completion": "x", "answer": "1e999999999"}', "in.jsonl:2: 'answer' is too large"),
        (b'{"completion": "x", "answer": true}', "in.jsonl:2: 'answer' is not a number"),
        (b'{"completion": "x", "answer": "' + b"7" * 5000 + b'x"}', "in.jsonl:2: 'answer' is not"),
    ],
)
def test_malformed_lines_are_grade_input_errors(tmp_path: Path, raw: bytes, message: str) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(orjson.dumps(ROWS[0]) + b"\n" + raw + b"\n")
    with pytest.raises(GradeInputError) as caught:
        VCPanel().grade_batch(path)
    assert str(caught.value).startswith(str(tmp_path / message))
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 300


@given(st.binary(max_size=200))
def test_any_line_is_an_input_or_an_error_naming_file_and_line(raw: bytes) -> None:
    try:
        parsed = parse_line(raw, 7, "g.jsonl")
    except GradeInputError as exc:
        assert str(exc).startswith("g.jsonl:7: ") and exc.line == 7
        assert "\n" not in str(exc)
    else:
        assert parsed.line == 7


@pytest.mark.parametrize("content", [b"", b"\n", b"  \n\t\n\r\n"])
def test_an_input_with_nothing_to_grade_is_an_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    with pytest.raises(GradeInputError, match="empty.jsonl: nothing to grade"):
        VCPanel().grade_batch(path)
    with pytest.raises(GradeInputError, match="nothing to grade"):
        parse_inputs(content, "x")


def test_reads_are_bounded(tmp_path: Path) -> None:
    assert LIMITS["grader input"] == MAX_INPUT_BYTES
    with pytest.raises(GradeInputError, match="/dev/zero: larger than the grading input limit"):
        read_bounded_input("/dev/zero", limit=1024)
    path = _jsonl(tmp_path, ROWS)
    assert read_bounded_input(path, limit=path.stat().st_size) == path.read_bytes()
    with pytest.raises(GradeInputError, match="larger than"):
        read_bounded_input(path, limit=path.stat().st_size - 1)
    with pytest.raises(GradeInputError, match="is a directory"):
        VCPanel().grade_batch(tmp_path)


def test_an_infinite_extraction_is_format_valid_and_null_in_json(tmp_path: Path) -> None:
    rows = [{"completion": "Answer: " + "9" * 400, "answer": 16.13}]
    (result,) = VCPanel().grade_batch(_jsonl(tmp_path, rows)).results
    assert (result.extracted, result.strict_correct, result.format_valid_number) == (
        float("inf"),
        0.0,
        1.0,
    )
    assert result.to_row()["extracted"] is None


@pytest.mark.parametrize(
    ("text", "follows"),
    [
        ("The investor ends up with roughly 9 percent.", False),
        ("Post-money is 62M.\nThe answer is about 19.35%.", False),
        ("The answer is 19.35", True),
        ("12/62 = 0.1935.\nThe answer is 19.35%.", True),
        ("the answer is 9.09 %", True),
        ("The answer is 19.3", False),
        ("The answer is 19.35. Hope that helps!", False),
    ],
)
def test_the_prompts_form_is_shown_apart_from_the_studys_format_verdict(
    text: str, follows: bool
) -> None:
    grade = VCPanel().grade_text(text, "9.09")
    assert grade.answer_form is follows
    assert follows_answer_form(text) is follows
    assert (grade.format_valid_number, grade.extracted is not None) == (1.0, True)


@pytest.mark.parametrize(
    ("size", "limit", "whole"), [(200_000, 300_000, True), (200_000, 100_000, False)]
)
def test_a_piped_grading_input_is_read_whole_or_refused_at_its_limit(
    size: int, limit: int, whole: bool
) -> None:
    """A pipe says nothing of its size: it is read in chunks until its end or past the limit."""
    import threading

    read, write = os.pipe()
    data = bytes(range(256)) * (size // 256)

    def feed() -> None:
        with contextlib.suppress(BrokenPipeError), os.fdopen(write, "wb") as out:
            out.write(data)

    feeder = threading.Thread(target=feed)
    feeder.start()
    try:
        if whole:
            assert read_bounded_input(f"/proc/self/fd/{read}", limit=limit) == data
        else:
            with pytest.raises(GradeInputError, match="larger than the grading input limit"):
                read_bounded_input(f"/proc/self/fd/{read}", limit=limit)
    finally:
        os.close(read)
        feeder.join()


def test_one_completion_is_graded_up_to_its_limit() -> None:
    from graders.vc_deal.panel import MAX_COMPLETION

    text = " " * (MAX_COMPLETION - len("The answer is 8.9")) + "The answer is 8.9"
    assert VCPanel().grade_text(text, 8.9).strict_correct == 1.0
    with pytest.raises(ValueError, match="longer than 1,048,576 characters"):
        VCPanel().grade_text(text + " ", 8.9)
