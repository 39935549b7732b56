"""`workbench vc` through click: generate, grade a file, grade one text, and every user error."""

import hashlib
import os
import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from graders.vc_deal import MAX_NUM_EXAMPLES, GenerationError, dataset_sha256, generate, to_jsonl
from tests.placed import place
from workbench.cli import main


def _run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def _one_line_error(code: int, err: str) -> str:
    """The one `Error:` line of a refused command (exit 2, no traceback)."""
    assert code == 2, err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, err
    assert len(errors[0]) < 300, err
    return errors[0]


def test_generate_to_stdout_is_the_canonical_dataset() -> None:
    code, out, err = _run("vc", "generate", "--seed", "7", "-n", "5")
    assert code == 0
    assert out.encode() == to_jsonl(generate(5, 7))
    assert dataset_sha256(generate(5, 7)) in err


def test_generate_defaults_match_the_golden_hash(tmp_path: Path) -> None:
    out = tmp_path / "vc.jsonl"
    code, stdout, err = _run("vc", "generate", "--out", str(out))
    assert code == 0 and stdout == ""
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert digest == "6d8c92e93d2770ddda7e259c31e380936d54802abf023c081ed2ddd19b835ee2"
    assert f"256 items (seed 42) to {out}" in err


@pytest.mark.parametrize("n", ["0", "-4"])
def test_generate_refuses_fewer_than_one_item(tmp_path: Path, n: str) -> None:
    out = tmp_path / "vc.jsonl"
    code, stdout, err = _run("vc", "generate", "-n", n, "--out", str(out))
    assert f"is not in the range 1 to {MAX_NUM_EXAMPLES}" in _one_line_error(code, err)
    assert not out.exists() and stdout == ""


@pytest.mark.parametrize(
    "n", [str(MAX_NUM_EXAMPLES + 1), str(2**63), "100000000000000000000", "9" * 5000]
)
def test_generate_refuses_more_items_than_the_limit_before_any_work(tmp_path: Path, n: str) -> None:
    """-n 10**20 was a traceback (islice); -n 10**10 ran until memory gave out."""
    out = tmp_path / "vc.jsonl"
    code, stdout, err = _run("vc", "generate", "-n", n, "--out", str(out))
    message = _one_line_error(code, err)
    assert "--num-examples" in message and f"range 1 to {MAX_NUM_EXAMPLES}" in message
    assert not out.exists() and stdout == ""


@pytest.mark.parametrize("size", [MAX_NUM_EXAMPLES + 1, 10**20])
def test_the_generator_itself_refuses_more_items_than_the_limit(size: int) -> None:
    with pytest.raises(GenerationError, match=f"from 1 to {MAX_NUM_EXAMPLES}"):
        generate(size, 42)


@pytest.mark.parametrize("seed", ["9" * 5000, str(2**63), str(-(2**63) - 1), "seven", "1" * 41])
def test_generate_refuses_a_seed_out_of_range_quoting_it_clipped(seed: str) -> None:
    code, stdout, err = _run("vc", "generate", "-n", "1", "--seed", seed)
    assert "--seed" in _one_line_error(code, err) and stdout == ""


@pytest.mark.parametrize("seed", [str(-(2**63)), "-5", "0", str(2**63 - 1)])
def test_generate_takes_every_signed_64_bit_seed(seed: str) -> None:
    code, stdout, err = _run("vc", "generate", "-n", "2", "--seed", seed)
    assert code == 0, err
    assert stdout.encode() == to_jsonl(generate(2, int(seed)))


@pytest.mark.parametrize("command", [["vc", "grade", "x.jsonl"], ["causal", "audit", "-n", "1"]])
def test_a_huge_worker_count_is_quoted_clipped(command: list[str]) -> None:
    code, _, err = _run(*command, "--workers", "9" * 5000)
    assert "--workers" in _one_line_error(code, err)


def _not_a_regular_file(kind: str, tmp_path: Path) -> Path:
    """Something at `tmp_path/out.jsonl` that is not a regular file (a link's target is)."""
    out = tmp_path / "out.jsonl"
    place(kind, out, tmp_path)
    return out


@pytest.mark.parametrize(
    "kind", ["symlink", "dangling symlink", "device", "named pipe", "directory"]
)
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_generate_out_never_replaces_what_is_not_a_regular_file(
    tmp_path: Path, kind: str, force: list[str]
) -> None:
    """A character device at --out became a regular 0600 file (as root, /dev/null once)."""
    out = _not_a_regular_file(kind, tmp_path)
    before = os.lstat(out)
    code, stdout, err = _run("vc", "generate", "-n", "1", "--out", str(out), *force)
    _one_line_error(code, err)
    after = os.lstat(out)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (
        before.st_mode,
        before.st_ino,
        before.st_rdev,
    )
    assert not (tmp_path / "out.jsonl.nowhere").exists()
    if kind == "symlink":
        assert (tmp_path / "out.jsonl.target").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_generate_out_refuses_an_existing_file_unless_forced(tmp_path: Path) -> None:
    out = tmp_path / "vc.jsonl"
    out.write_text("mine")
    out.chmod(0o640)
    code, stdout, err = _run("vc", "generate", "-n", "3", "--out", str(out))
    assert "refusing to overwrite it unless forced (--force)" in _one_line_error(code, err)
    assert out.read_text() == "mine"
    code, stdout, err = _run("vc", "generate", "-n", "3", "--out", str(out), "--force")
    assert code == 0, err
    assert out.read_bytes() == to_jsonl(generate(3, 42))
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vc.jsonl"]


@pytest.mark.parametrize("name", ["journal.jsonl", "seal.json", "vc.jsonl"])
def test_generate_out_never_writes_into_a_run_directory(
    demo_run: Path, tmp_path: Path, name: str
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    for force in ([], ["--force"]):
        code, _, err = _run("vc", "generate", "-n", "1", "--out", str(run / name), *force)
        assert "is a run directory" in _one_line_error(code, err)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_generate_into_a_missing_directory_is_a_user_error(tmp_path: Path) -> None:
    code, _, err = _run("vc", "generate", "-n", "2", "--out", str(tmp_path / "no" / "vc.jsonl"))
    assert code == 2 and "does not exist" in err


def test_generate_with_bad_templates_is_a_user_error(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text('instruction = "x"\neasy = []\n', encoding="utf-8")
    code, _, err = _run("vc", "generate", "-n", "2", "--templates", str(bad))
    assert code == 2 and "t.toml: easy" in err


def _write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


ROWS: list[dict[str, object]] = [
    {"completion": "The answer is 8.9", "answer": 8.9, "info": {"difficulty": "easy"}},
    {"completion": "answer = 38.3", "answer": 38.55, "info": {"difficulty": "hard"}},
    {"completion": "", "answer": 12.5, "info": {"difficulty": "easy"}},
]


def test_grade_writes_one_line_per_input_in_order(tmp_path: Path) -> None:
    code, out, err = _run("vc", "grade", str(_write_rows(tmp_path / "c.jsonl", ROWS)))
    assert code == 0
    lines = [orjson.loads(line) for line in out.splitlines()]
    assert lines == [
        {
            "extracted": 8.9,
            "strict_correct": 1.0,
            "loose_correct": 1.0,
            "format_valid_number": 1.0,
            "reward": 1.0,
        },
        {
            "extracted": 38.3,
            "strict_correct": 0.0,
            "loose_correct": 1.0,
            "format_valid_number": 1.0,
            "reward": 0.0,
        },
        {
            "extracted": None,
            "strict_correct": 0.0,
            "loose_correct": 0.0,
            "format_valid_number": 0.0,
            "reward": 0.0,
        },
    ]
    assert "graded 3 lines, reward = strict" in err
    table = {line.split()[0]: line.split()[1:] for line in err.splitlines()[2:]}
    assert table["all"] == ["3", "0.3333", "0.6667", "0.3333", "0.6667"]
    assert table["easy"] == ["2", "0.5000", "0.5000", "0.0000", "0.5000"]
    assert table["hard"] == ["1", "0.0000", "1.0000", "1.0000", "1.0000"]


def test_grade_loose_changes_only_the_reward(tmp_path: Path) -> None:
    code, out, err = _run("vc", "grade", "--loose", str(_write_rows(tmp_path / "c.jsonl", ROWS)))
    assert code == 0 and "reward = loose" in err
    assert [orjson.loads(line)["reward"] for line in out.splitlines()] == [1.0, 1.0, 0.0]


def test_grade_round_trips_a_generated_dataset(tmp_path: Path) -> None:
    rows = [
        {"completion": f"The answer is {item.answer:.2f}", **item.to_row()}
        for item in generate(6, 3)
    ]
    code, out, _ = _run("vc", "grade", str(_write_rows(tmp_path / "d.jsonl", rows)))
    assert code == 0
    assert [orjson.loads(line)["strict_correct"] for line in out.splitlines()] == [1.0] * 6


@pytest.mark.parametrize(
    ("content", "where"),
    [
        (b'{"completion": "a", "answer": 1}\n{"completion": "b"\n', "bad.jsonl:2: not valid JSON"),
        (b'{"completion": "a", "answer": 1}\n\n{"answer": 2}\n', "bad.jsonl:3: missing field"),
        (b'{"completion": "a"}\n', "bad.jsonl:1: missing field 'answer'"),
    ],
)
def test_grade_bad_input_names_file_and_line_and_writes_nothing(
    tmp_path: Path, content: bytes, where: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_bytes(content)
    code, out, err = _run("vc", "grade", str(path))
    assert code == 2 and out == ""
    assert where in err and "Traceback" not in err


def test_grade_missing_file(tmp_path: Path) -> None:
    code, out, err = _run("vc", "grade", str(tmp_path / "nope.jsonl"))
    assert code == 2 and out == "" and "nope.jsonl: grader input does not exist" in err


def test_grade_one_text() -> None:
    code, out, err = _run("vc", "grade", "--answer", "16.13", "The answer is 16.13")
    assert code == 0
    assert orjson.loads(out) == {
        "extracted": 16.13,
        "strict_correct": 1.0,
        "loose_correct": 1.0,
        "format_valid_number": 1.0,
        "reward": 1.0,
    }
    assert "after cue 'answer'" in err


@pytest.mark.parametrize(
    ("text", "flags", "reward", "note"),
    [
        ("I get 16.4", ["--loose"], 1.0, "no cue matched; last number '16.4'"),
        ("I get 16.4", [], 0.0, "no cue matched"),
        ("no idea", [], 0.0, "no number found"),
    ],
)
def test_grade_one_text_fallbacks(text: str, flags: list[str], reward: float, note: str) -> None:
    code, out, err = _run("vc", "grade", "--answer", "16.13", *flags, text)
    assert code == 0 and orjson.loads(out)["reward"] == reward and note in err


def test_grade_one_text_with_a_bad_answer() -> None:
    code, out, err = _run("vc", "grade", "--answer", "lots", "The answer is 5")
    assert code == 2 and out == "" and "--answer is not a number" in err


@pytest.mark.parametrize("content", [b"", b"\n\n", b"   \r\n"])
def test_grade_an_input_with_nothing_to_grade_exits_2(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(content)
    code, out, err = _run("vc", "grade", str(path))
    assert (code, out) == (2, "")
    assert err == f"Error: {path}: nothing to grade (no non-blank lines)\n"


def test_grade_refuses_an_endless_stream_in_one_line() -> None:
    code, out, err = _run("vc", "grade", "/dev/zero")
    assert (code, out) == (2, "")
    assert err == "Error: /dev/zero: grader input is larger than its limit of 256 MiB\n"


def test_grade_a_directory_is_a_user_error(tmp_path: Path) -> None:
    code, out, err = _run("vc", "grade", str(tmp_path))
    assert (code, out) == (2, "") and "is a directory" in err and len(err.splitlines()) == 1


def test_grade_a_huge_literal_is_format_valid_with_a_null_extraction(tmp_path: Path) -> None:
    rows: list[dict[str, object]] = [
        {"completion": "Answer: " + "9" * 400, "answer": 16.13},
        {"completion": "The answer is " + "9" * 400 + ". Earlier I had 16.13", "answer": 16.13},
    ]
    code, out, _ = _run("vc", "grade", "--loose", str(_write_rows(tmp_path / "h.jsonl", rows)))
    assert code == 0
    row = {
        "extracted": None,
        "strict_correct": 0.0,
        "loose_correct": 0.0,
        "format_valid_number": 1.0,
        "reward": 0.0,
    }
    assert [orjson.loads(line) for line in out.splitlines()] == [row, row]


def test_grade_one_text_shortens_a_huge_token() -> None:
    code, out, err = _run("vc", "grade", "--answer", "16.13", "Answer: " + "9" * 400)
    assert code == 0 and orjson.loads(out)["format_valid_number"] == 1.0
    assert "'99999999999999999999'... (400 characters) (infinite as a float" in err
    assert len(err.splitlines()) == 1 and len(err) < 200


def test_grade_one_text_against_a_gold_too_large_to_round() -> None:
    code, out, err = _run("vc", "grade", "--answer", "1" * 30, "The answer is 5")
    assert (code, out) == (2, "")
    assert "--answer is too large to round to cents in 28 digits" in err


def test_a_template_file_over_its_limit_is_refused_unread(tmp_path: Path) -> None:
    """A template file is bounded like every other input (1 MiB), a sparse one included."""
    big = tmp_path / "t.toml"
    with big.open("wb") as handle:
        handle.truncate(64 * 1024 * 1024)
    code, out, err = _run("vc", "generate", "-n", "2", "--templates", str(big))
    assert code == 2 and out == ""
    assert err.strip().endswith("t.toml: larger than the template file limit of 1 MiB")
    assert len(err.strip().splitlines()) == 1


def test_a_template_file_with_a_number_past_the_digit_limit_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "t.toml"
    bad.write_text("easy = " + "9" * 5000 + "\n", encoding="utf-8")
    code, out, err = _run("vc", "generate", "-n", "2", "--templates", str(bad))
    assert code == 2 and out == ""
    assert err.strip().endswith("t.toml: holds a number with too many digits to read")
