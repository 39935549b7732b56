"""Fuzzing the graders' inputs: `vc grade` JSONL files and `causal score` submissions."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz import strategies as S
from tests.fuzz.harness import fuzz_settings, invoke

ANSWERS = st.sampled_from([16.13, 8.9, 0.0, 100.0]) | S.numbers | S.text


@st.composite
def vc_lines(draw: st.DrawFn) -> bytes:
    """JSONL grading input: rows with hostile completions and answers, damaged or junk lines."""
    lines = []
    for _ in range(draw(st.integers(0, 5))):
        row: object = {
            "completion": draw(
                st.sampled_from(["The answer is 16.13", "Ownership: 8.9%", "5,.5", "9" * 400])
                | S.text
                | st.none()
            ),
            "answer": draw(ANSWERS),
        }
        if draw(st.booleans()):
            row["info"] = draw(S.json_values)  # type: ignore[index]
        if draw(st.integers(0, 5)) == 0:
            row = draw(S.json_values)
        lines.append(draw(S.damaged(S.encode(row))).replace(b"\n", b" "))
    return b"\n".join(lines) + b"\n"


@fuzz_settings("vc grade")
@given(content=vc_lines(), loose=st.booleans())
def test_fuzz_vc_grade(content: bytes, loose: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "completions.jsonl"
        path.write_bytes(content)
        invoke("vc grade", ["vc", "grade", str(path), *(["--loose"] if loose else [])], [path])


@st.composite
def causal_submissions(draw: st.DrawFn) -> bytes:
    """A submission document: well-formed numbers, hostile values, extra or missing keys."""
    document = {
        "estimate": 1.5,
        "interval": [-1.0, 2.0],
        "adjustment_set": ["x1"],
        "null_effect": False,
    }
    how = draw(st.sampled_from(["mutated", "numbers", "junk"]))
    if how == "mutated":
        return draw(S.mutated(document))
    if how == "numbers":
        low, high = draw(S.numbers), draw(S.numbers)
        return S.encode({"estimate": draw(S.numbers), "interval": [low, high]})
    return draw(st.binary(max_size=64) | st.builds(S.encode, S.json_values))


@fuzz_settings("causal score")
@given(
    content=causal_submissions(),
    family=st.sampled_from(["ate", "adjustment", "null_detect"]),
    task_id=st.integers(0, 3),
)
def test_fuzz_causal_score(content: bytes, family: str, task_id: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "submission.json"
        path.write_bytes(content)
        args = ["causal", "score", "--family", family, "--task-id", str(task_id), str(path)]
        invoke("causal score", args, [path])
