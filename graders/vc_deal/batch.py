"""Batch grading of a JSONL file: validate every line first, then grade, then summarise."""

from __future__ import annotations

import codecs
import math
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, NamedTuple

import orjson

from graders.vc_deal.extract import extract_value
from graders.vc_deal.gold import Amount, shown
from graders.vc_deal.verdicts import gold_window, judge
from ledger.bounded_read import read_at_most
from ledger.json_keys import repeated_key

Progress = Callable[[int, int], None]
"""Called as progress(done, total) every `PROGRESS_EVERY` lines and once at the end."""

PROGRESS_EVERY = 1024
GRADE_CHUNK: Final = 20_000
"""Lines per task when a file is graded through a mapper (parallel or distributed)."""

MAX_INPUT_BYTES: Final = 256 * 1024 * 1024
"""Largest grading input read, the workbench's documented "grader input" limit (256 MiB)."""


class GradeInputError(ValueError):
    """A grading input is unreadable or malformed; names the file and the 1-based line."""

    def __init__(self, path: str, line: int | None, message: str) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line


def json_number(value: float | None) -> float | None:
    """`value` as JSON can carry it: an infinite extraction becomes null, like no number."""
    return value if value is not None and math.isfinite(value) else None


@dataclass(frozen=True, slots=True)
class GradingInput:
    """One validated input line: the completion, its gold answer and its difficulty if known."""

    line: int
    completion: str | None
    answer: Amount
    difficulty: str | None = None


class LineResult(NamedTuple):
    """The verdicts on one input line, in input order (a named tuple: cheap to build in bulk)."""

    line: int
    extracted: float | None
    strict_correct: float
    loose_correct: float
    format_valid_number: float
    reward: float
    difficulty: str | None

    def to_row(self) -> dict[str, object]:
        """The output JSON object: extracted number, three verdicts and the reward.

        `extracted` is null when there is no number, and also when the number is too large
        for a float (JSON has no infinity); `format_valid_number` tells the two apart.
        """
        return {
            "extracted": json_number(self.extracted),
            "strict_correct": self.strict_correct,
            "loose_correct": self.loose_correct,
            "format_valid_number": self.format_valid_number,
            "reward": self.reward,
        }


Part = tuple[tuple[GradingInput, ...], bool]
"""A chunk of validated inputs and whether the reward is loose: one parallel task."""
Graded = tuple[LineResult, ...]
Mapper = Callable[[Callable[[Part], Graded], Sequence[Part]], Iterable[Graded]]
"""Maps `grade_part` over parts, results in part order (a pool's or a cluster's map)."""


@dataclass(frozen=True, slots=True)
class Accuracy:
    """Mean verdicts over a group of lines; `gap` is loose minus strict, the hacking margin."""

    count: int
    strict: float
    loose: float
    format_valid: float

    @property
    def gap(self) -> float:
        """Loose accuracy minus strict accuracy, never negative."""
        return self.loose - self.strict


@dataclass(frozen=True, slots=True)
class Summary:
    """Accuracy over all lines and per difficulty (for lines whose `info` names one)."""

    overall: Accuracy
    by_difficulty: Mapping[str, Accuracy] = field(default_factory=dict)
    loose: bool = False


@dataclass(frozen=True, slots=True)
class BatchReport:
    """Per-line results in input order and their summary."""

    results: tuple[LineResult, ...]
    summary: Summary


def _json_problem(raw: bytes | str, exc: orjson.JSONDecodeError) -> str:
    """Why a line is not JSON, placed by its column in that line (the parser's own "line 1"
    would contradict the file's line number before it), or by byte when it is not UTF-8."""
    if isinstance(raw, bytes):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as bad:
            return f"not valid JSON: byte {bad.start + 1} (0x{raw[bad.start]:02x}) is not UTF-8"
    return f"not valid JSON at column {exc.colno}: {exc.msg}"


def parse_line(raw: bytes | str, line: int, path: str = "<input>") -> GradingInput:
    """Validate one JSONL line: an object with `completion`, `answer` and optional `info`.

    A key named twice in one object, at any depth, is refused: a JSON parser keeps the
    last, so `{"answer": 16.13, "answer": 17}` would be graded against a gold nobody sees
    first when reading the line.
    """
    try:
        row = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise GradeInputError(path, line, _json_problem(raw, exc)) from exc
    if not isinstance(row, dict):
        raise GradeInputError(path, line, "expected a JSON object")
    key = repeated_key(raw, row)
    if key is not None:
        raise GradeInputError(path, line, f"key {shown(key)} is given twice; give it once")
    for key in ("completion", "answer"):
        if key not in row:
            raise GradeInputError(path, line, f"missing field {key!r}")
    completion = row["completion"]
    if completion is not None and not isinstance(completion, str):
        raise GradeInputError(path, line, "'completion' must be a string or null")
    answer = row["answer"]
    try:
        gold_window(answer)
    except ValueError as exc:
        raise GradeInputError(path, line, f"'answer' is {exc}") from exc
    info = row.get("info")
    if info is not None and not isinstance(info, dict):
        raise GradeInputError(path, line, "'info' must be an object")
    difficulty = info.get("difficulty") if info else None
    if not isinstance(difficulty, str):
        difficulty = None
    return GradingInput(line, completion, answer, difficulty)


_FILLED_LINE = re.compile(rb"^[^\S\n]*+\S[^\n]*", re.MULTILINE)
"""A line holding more than whitespace, matched whole from its start (the leading blanks
possessively, so a long line of blanks is passed over in one step, not quadratically)."""


def filled_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, text) of every line that is not blank, in order.

    Blank stretches are skipped by one regex scan and the lines are never all split out
    at once: a 256 MiB input of newlines took 5 GB as a list of empty lines. A UTF-8 byte
    order mark at the start, as some editors write one, is read past.
    """
    number, counted = 1, 0
    for found in _FILLED_LINE.finditer(data):
        start = found.start()
        number += data.count(b"\n", counted, start)
        counted = start
        raw = found[0]
        if start == 0 and raw.startswith(codecs.BOM_UTF8):
            raw = raw[len(codecs.BOM_UTF8) :]
            if not raw.strip():
                continue
        yield number, raw


def parse_inputs(data: bytes, path: str = "<input>") -> tuple[GradingInput, ...]:
    """Validate every JSONL line (blank lines skipped); an input with no lines is an error.

    A UTF-8 byte order mark at the start, as some editors write one, is read past.
    """
    inputs = tuple(parse_line(raw, number, path) for number, raw in filled_lines(data))
    if not inputs:
        raise GradeInputError(path, None, "nothing to grade (no non-blank lines)")
    return inputs


def read_bounded_input(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of a grading input, reading at most `limit` + 1 so no stream exhausts memory
    (and no buffer the size of the limit is allocated for a small file)."""
    name = str(path)
    try:
        with open(path, "rb") as handle:
            if stat.S_ISDIR(os.fstat(handle.fileno()).st_mode):
                raise GradeInputError(name, None, "is a directory, not a file")
            data = read_at_most(handle, limit)
    except FileNotFoundError as exc:
        raise GradeInputError(name, None, "no such file") from exc
    except IsADirectoryError as exc:
        raise GradeInputError(name, None, "is a directory, not a file") from exc
    except OSError as exc:
        raise GradeInputError(name, None, f"cannot read ({exc.strerror or exc})") from exc
    if len(data) > limit:
        raise GradeInputError(name, None, f"larger than the grading input limit of {limit:,} bytes")
    return data


def read_inputs(path: str | Path) -> tuple[GradingInput, ...]:
    """Read (bounded) and validate a whole JSONL file before anything is graded."""
    return parse_inputs(read_bounded_input(path), str(path))


def grade_inputs(
    inputs: Sequence[GradingInput], loose: bool = False, progress: Progress | None = None
) -> tuple[LineResult, ...]:
    """Grade validated inputs in order: one extraction per line serves every verdict."""
    total = len(inputs)
    results: list[LineResult] = []
    append = results.append
    for done, item in enumerate(inputs, start=1):
        value = extract_value(item.completion)
        found = judge(value, item.answer)
        append(
            LineResult(
                item.line,
                None if value is None else float(value),
                found.strict_correct,
                found.loose_correct,
                found.format_valid_number,
                found.loose_correct if loose else found.strict_correct,
                item.difficulty,
            )
        )
        if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
            progress(done, total)
    return tuple(results)


def grade_part(part: Part) -> tuple[LineResult, ...]:
    """Grade one chunk of validated inputs: a pure function, for parallel maps."""
    inputs, loose = part
    return grade_inputs(inputs, loose)


def _accuracy(results: Sequence[LineResult]) -> Accuracy:
    """Mean verdicts of a group; all zeros for an empty group."""
    count = len(results)
    if not count:
        return Accuracy(0, 0.0, 0.0, 0.0)
    return Accuracy(
        count,
        sum(r.strict_correct for r in results) / count,
        sum(r.loose_correct for r in results) / count,
        sum(r.format_valid_number for r in results) / count,
    )


def summarise(results: Iterable[LineResult], loose: bool = False) -> Summary:
    """Overall accuracy plus one group per difficulty named in the inputs, sorted by name."""
    every = tuple(results)
    groups: dict[str, list[LineResult]] = {}
    for result in every:
        if result.difficulty is not None:
            groups.setdefault(result.difficulty, []).append(result)
    by_difficulty = {name: _accuracy(groups[name]) for name in sorted(groups)}
    return Summary(_accuracy(every), by_difficulty, loose)


def grade_data(
    data: bytes,
    path: str = "<input>",
    loose: bool = False,
    progress: Progress | None = None,
    mapper: Mapper | None = None,
) -> BatchReport:
    """Validate, grade and summarise JSONL bytes already read (by the caller, bounded).

    Every line is validated here first; with `mapper` the grading runs in chunks of
    GRADE_CHUNK lines wherever the mapper sends them, taken back in order (same results).
    """
    return grade_parsed(parse_inputs(data, path), loose, progress, mapper)


def grade_parsed(
    inputs: tuple[GradingInput, ...],
    loose: bool = False,
    progress: Progress | None = None,
    mapper: Mapper | None = None,
) -> BatchReport:
    """Grade and summarise inputs `parse_inputs` validated, serially or through `mapper`
    in chunks of GRADE_CHUNK lines (the same results either way)."""
    if mapper is None:
        results = grade_inputs(inputs, loose, progress)
    else:
        parts = [(inputs[i : i + GRADE_CHUNK], loose) for i in range(0, len(inputs), GRADE_CHUNK)]
        graded: list[LineResult] = []
        for chunk in mapper(grade_part, parts):
            graded.extend(chunk)
            if progress is not None:
                progress(len(graded), len(inputs))
        results = tuple(graded)
    return BatchReport(results, summarise(results, loose))


def grade_file(
    path: str | Path, loose: bool = False, progress: Progress | None = None
) -> BatchReport:
    """Read (bounded), validate, grade and summarise a JSONL file of {completion, answer, info?}."""
    return grade_data(read_bounded_input(path), str(path), loose, progress)
