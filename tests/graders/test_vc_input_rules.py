"""`vc grade` input rules found by adversarial use: every class of bad line is refused in one
line naming the file and the line, and what a file legitimately holds is read as meant."""

import subprocess
import sys
import time
from collections.abc import Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.vc_deal import GradeInputError, parse_inputs
from workbench.cli import main

KEYS = st.text(st.characters(codec="utf-8"), max_size=12)
PLAIN = st.one_of(st.none(), st.booleans(), st.integers(-9, 9), st.text(max_size=8))


def _grade(path: Path, *flags: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["vc", "grade", str(path), *flags])
    return result.exit_code, result.stdout, result.stderr


class Raw(str):
    """JSON text already written (an object that may repeat a key), placed as it is."""


def _object_text(members: Sequence[tuple[str, object]]) -> Raw:
    """A JSON object written member by member, so a key may be given twice."""
    return Raw("{" + ",".join(f"{orjson.dumps(k).decode()}:{_text(v)}" for k, v in members) + "}")


def _text(value: object) -> str:
    """A member's value as JSON text."""
    return value if isinstance(value, Raw) else orjson.dumps(value).decode()


@st.composite
def lines_with_a_repeated_key(draw: st.DrawFn) -> tuple[str, str]:
    """A valid grading line in which one object (the row, `info`, or deeper) names a key twice."""
    key = draw(KEYS)
    members = [(key, draw(PLAIN)), *draw(st.lists(st.tuples(KEYS, PLAIN), max_size=3))]
    members.insert(draw(st.integers(1, len(members))), (key, draw(PLAIN)))
    inner = _object_text(members)
    for _ in range(draw(st.integers(0, 3))):
        inner = _object_text([(draw(KEYS), inner)])
    where = draw(st.sampled_from(["row", "info"]))
    if where == "row" and key not in ("completion", "answer", "info"):
        row = [("completion", "The answer is 5"), ("answer", 5), *members]
        return _object_text(row), key
    info = _object_text([("difficulty", "easy"), ("nested", inner)])
    return _object_text([("completion", "x 5"), ("answer", 5), ("info", info)]), key


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(lines_with_a_repeated_key())
def test_a_key_given_twice_anywhere_in_a_line_is_refused_naming_it(case: tuple[str, str]) -> None:
    line, key = case
    data = b'{"completion": "The answer is 5", "answer": 5}\n' + line.encode() + b"\n"
    with pytest.raises(GradeInputError) as refused:
        parse_inputs(data, "in.jsonl")
    assert refused.value.line == 2
    assert "is given twice" in str(refused.value)


@pytest.mark.parametrize(
    ("line", "key"),
    [
        ('{"completion": "The answer is 16.13", "answer": 16.13, "answer": 17}', "answer"),
        ('{"completion": "The answer is 5", "completion": "no idea", "answer": 5}', "completion"),
        ('{"completion": "x", "answer": 1, "info": {"difficulty": "easy", "difficulty": "hard"}}',
         "difficulty"),
    ],
)  # fmt: skip
def test_grade_refuses_a_repeated_key_in_one_line_and_writes_nothing(
    tmp_path: Path, line: str, key: str
) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_text(line + "\n")
    code, out, err = _grade(path)
    assert (code, out) == (2, "")
    assert err == f"Error: {path}:1: key '{key}' is given twice; give it once\n"


def test_the_same_key_in_different_objects_is_not_a_repeat(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    line = {"completion": "The answer is 5", "answer": 5, "info": {"answer": 4, "x": {"answer": 3}}}
    path.write_bytes(orjson.dumps(line) + b"\n")
    code, out, _ = _grade(path)
    assert code == 0 and orjson.loads(out)["strict_correct"] == 1.0


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.text(max_size=300), min_size=1, max_size=4))
def test_the_summary_shows_any_difficulty_name_as_one_short_printable_cell(
    tmp_path: Path, names: list[str]
) -> None:
    path = tmp_path / "named.jsonl"
    rows = [
        {"completion": "The answer is 5", "answer": 5, "info": {"difficulty": n}} for n in names
    ]
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    code, out, err = _grade(path)
    assert code == 0 and len(out.splitlines()) == len(names)
    table = err.splitlines()
    assert len(table) == 3 + len(set(names))
    assert all(line.isprintable() and len(line) <= 80 for line in table)


BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("ending", [b"\n", b"\r\n"])
def test_a_grader_input_may_start_with_a_byte_order_mark(tmp_path: Path, ending: bytes) -> None:
    lines = [b'{"completion": "The answer is 5", "answer": 5}', b'{"completion": "x", "answer": 2}']
    plain, marked = tmp_path / "plain.jsonl", tmp_path / "marked.jsonl"
    plain.write_bytes(ending.join(lines) + ending)
    marked.write_bytes(BOM + plain.read_bytes())
    assert _grade(marked) == _grade(plain)
    assert _grade(marked)[0] == 0


def test_only_a_leading_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    path = tmp_path / "inner.jsonl"
    path.write_bytes(
        b'{"completion": "x 5", "answer": 5}\n' + BOM + b'{"completion": "x", "answer": 2}\n'
    )
    code, out, err = _grade(path)
    assert (code, out) == (2, "") and f"{path}:2: not valid JSON" in err


def test_a_template_file_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    bundled = Path(__file__).parents[2] / "graders" / "vc_deal" / "templates.toml"
    marked = tmp_path / "marked.toml"
    marked.write_bytes(BOM + bundled.read_bytes())
    runs = [
        CliRunner().invoke(main, ["vc", "generate", "-n", "4", "--templates", str(path)])
        for path in (bundled, marked)
    ]
    assert runs[0].exit_code == runs[1].exit_code == 0, runs[1].output
    assert runs[0].stdout == runs[1].stdout


@settings(max_examples=60)
@given(
    st.decimals(min_value=Decimal("-1e25"), max_value=Decimal("1e25"), places=3, allow_nan=False)
)
def test_one_text_shows_the_gold_exactly_at_cents(gold: Decimal) -> None:
    result = CliRunner().invoke(main, ["vc", "grade", "--answer", str(gold), "no number"])
    cents = gold.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert result.exit_code == 0
    assert result.stderr == f"no number found; gold {cents}\n"


def test_one_text_shows_a_26_digit_gold_as_given() -> None:
    gold = "99999999999999999999999999.80"
    result = CliRunner().invoke(main, ["vc", "grade", "--answer", gold, f"The answer is {gold}"])
    assert result.exit_code == 0 and result.stderr.endswith(f"; gold {gold}\n")


TEMPLATE_TAIL = (
    'hard = ["{raise} {pre} in {year}"]\n'
    '[names]\ncompanies = ["Acme"]\ninvestors = ["Fund"]\nrounds = ["Seed"]\nsectors = ["tea"]\n'
)


@pytest.mark.parametrize(
    ("placeholder", "message"),
    [
        ("{raise!r}", "placeholder '{raise!r}' takes no conversion or format; write {raise}"),
        ("{pre:>10}", "placeholder '{pre:>10}' takes no conversion or format; write {pre}"),
        ("{pre!s:>9}", "placeholder '{pre!s:>9}' takes no conversion or format; write {pre}"),
        ("{bogus}", "unknown placeholder '{bogus}'"),
        ("{a\\nb}", "unknown placeholder '{a\\nb}'"),
    ],
)
def test_a_template_placeholder_is_refused_for_what_is_wrong_with_it(
    tmp_path: Path, placeholder: str, message: str
) -> None:
    path = tmp_path / "t.toml"
    path.write_text(
        f'instruction = "x"\neasy = ["{{raise}} {{pre}} {placeholder}"]\n' + TEMPLATE_TAIL
    )
    result = CliRunner().invoke(main, ["vc", "generate", "-n", "1", "--templates", str(path)])
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"Error: {path}: easy[0]: {message}\n"


def test_a_refused_name_is_quoted_short(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    text = f'instruction = "x"\neasy = ["{{raise}} {{pre}}"]\n{TEMPLATE_TAIL}'
    path.write_text(text.replace('"Acme"', '"' + "equity " * 10_000 + '"'))
    result = CliRunner().invoke(main, ["vc", "generate", "-n", "1", "--templates", str(path)])
    assert result.exit_code == 2 and "names.companies entry 'equity" in result.stderr
    assert len(result.stderr) < 300


@pytest.mark.parametrize(
    "executor",
    [["--executor", "dask", "--scheduler", "tcp://127.0.0.1:1"], ["--executor", "dask"]],
)
def test_a_bad_line_is_named_before_any_executor_starts(
    tmp_path: Path, executor: list[str]
) -> None:
    """It was named only once a local cluster had started, and never when the scheduler
    could not be reached (a 10 s wait, then the scheduler's error instead)."""
    path = tmp_path / "bad.jsonl"
    path.write_bytes(b'{"completion": "x 5", "answer": 5}\n{"completion": "x"}\n')
    started = time.monotonic()
    code, out, err = _grade(path, *executor)
    assert (code, out) == (2, "")
    assert err == f"Error: {path}:2: missing field 'answer'\n"
    assert time.monotonic() - started < 5


BLANKS = st.sampled_from(["", " ", "\t", "\r", "\x0b", "\x0c", "  \t\r"])
GOOD_LINE = '{"completion": "The answer is 5", "answer": 5}'


@given(st.lists(BLANKS | st.just(GOOD_LINE), max_size=12), st.lists(BLANKS, max_size=4), BLANKS)
def test_lines_are_numbered_as_a_plain_split_numbers_them(
    before: list[str], after: list[str], padding: str
) -> None:
    lines = [*before, padding + '{"completion": "x"}' + padding, *after]
    data = "\n".join(lines).encode()
    bad = len(before) + 1
    with pytest.raises(GradeInputError) as refused:
        parse_inputs(data, "in.jsonl")
    assert refused.value.line == bad
    good = parse_inputs("\n".join(before + [GOOD_LINE]).encode())
    expected = [n for n, line in enumerate(before + [GOOD_LINE], start=1) if line.strip()]
    assert [item.line for item in good] == expected


def test_an_input_of_blank_lines_is_refused_without_splitting_it_out(tmp_path: Path) -> None:
    """64 MiB of newlines took 1.3 GB as a list of empty lines (256 MiB would take 5 GB)."""
    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * (64 * 1024 * 1024))
    script = (  # VmHWM is this process's own peak (ru_maxrss keeps the forking parent's)
        "import re, sys\n"
        "from workbench.cli import run\n"
        "try:\n"
        "    run()\n"
        "finally:\n"
        "    status = open('/proc/self/status').read()\n"
        "    print(re.search(r'VmHWM:\\s*(\\d+)', status)[1], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "vc", "grade", str(path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).parents[2],
    )
    message, peak_kib = done.stderr.splitlines()
    assert done.returncode == 2
    assert message == f"Error: {path}: nothing to grade (no non-blank lines)"
    assert int(peak_kib) < 400 * 1024


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            b'{"completion": "a", "answer": NaN}',
            "not valid JSON at column 31: unexpected character",
        ),
        (b'{"completion": "a", "answer": 1} x', "not valid JSON at column 34: unexpected content"),
        (
            b'{"completion": "\xc3\xa9 \xe9", "answer": 1}',
            "not valid JSON: byte 20 (0xe9) is not UTF-8",
        ),
        (b"\xff{}", "not valid JSON: byte 1 (0xff) is not UTF-8"),
    ],
)
def test_a_line_that_is_not_json_is_placed_within_the_line(
    tmp_path: Path, line: bytes, message: str
) -> None:
    """The parser's own "line 1 column 30" contradicted the file's line 3 before it; bytes
    that are not UTF-8 were "str is not valid UTF-8: surrogates not allowed"."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'{"completion": "x 1", "answer": 1}\n\n' + line + b"\n")
    code, out, err = _grade(path)
    assert (code, out) == (2, "")
    assert err.startswith(f"Error: {path}:3: {message}") and "line 1" not in err
    assert len(err.splitlines()) == 1
