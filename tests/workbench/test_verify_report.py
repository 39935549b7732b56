"""`workbench verify-report`: report.json, SHA256SUMS and seals against each other and the run."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result

from ledger.canonical import dumps
from ledger.seal import Seal
from workbench.cli import main


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def evaluated(demo_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evaluated") / "out"
    result = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture()
def out(evaluated: Path, tmp_path: Path) -> Path:
    target = tmp_path / "out"
    shutil.copytree(evaluated, target)
    return target


def _report(out: Path) -> dict:
    return orjson.loads((out / "report.json").read_bytes())


def _write_report(out: Path, report: dict) -> None:
    (out / "report.json").write_bytes(dumps(report) + b"\n")


def _mismatch(result: Result, *says: str) -> None:
    assert result.exit_code == 3, result.output
    assert "Traceback" not in result.output
    for text in says:
        assert text in result.output, result.output


def test_a_fresh_output_is_consistent_alone_and_with_its_run(out: Path, demo_run: Path) -> None:
    alone = _cli("verify-report", str(out))
    assert alone.exit_code == 0 and "consistent (6 question(s), 12 seal(s))" in alone.output
    both = _cli("verify-report", str(out), "--results", str(demo_run))
    assert both.exit_code == 0 and f"matches evaluating {demo_run} again" in both.output


def test_an_edited_score_is_caught(out: Path, demo_run: Path) -> None:
    report = _report(out)
    report["questions"][0]["score"] = "0"
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), "score is not -loss")
    _mismatch(_cli("verify-report", str(out), "--results", str(demo_run)), "score differs")


def test_consistently_edited_numbers_are_caught_against_the_run(out: Path, demo_run: Path) -> None:
    report = _report(out)
    question = report["questions"][0]
    question["submission"]["value"] = question["effect"]
    question["loss"], question["score"] = "0", "0"
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out), "--results", str(demo_run)), "submission.value")


def _rename_first_question(report: dict) -> None:
    report["questions"][0]["id"] = "q_renamed"


def _edit_first_scale(report: dict) -> None:
    report["questions"][0]["contract"]["scale"] = "1"


def _swap_first_branches(report: dict) -> None:
    branches = report["questions"][0]["branches"]
    branches["baseline"], branches["intervention"] = branches["intervention"], branches["baseline"]


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (_rename_first_question, ["its contract is the one of", "episode id is not the one"]),
        (_edit_first_scale, ["contract_digest differs from its contract"]),
        (_swap_first_branches, ["baseline: the record is named 'intervention'"]),
    ],
)
def test_an_edit_of_what_the_report_derives_from_itself_is_caught(
    out: Path, edit: Callable[[dict], None], says: list[str]
) -> None:
    """A question renamed, its terms edited or its branches swapped, alone: each breaks a
    reference the report makes to itself (contract, digest, episode ids)."""
    report = _report(out)
    edit(report)
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), *says)


@pytest.mark.parametrize(
    ("place", "value", "says"),
    [
        (("questions", 0, "submission", "day"), -1, "submission.day: Input should be greater"),
        (("questions", 0, "submission", "seq"), 0, "submission.seq: Input should be greater"),
        (("questions", 0, "contract_digest"), "beef", "contract_digest: String should match"),
        (("questions", 0, "branches", "baseline", "episode_id"), "ep-1", "episode_id: String"),
        (("factual", "final_day"), -5, "factual.final_day: Input should be greater"),
        (("registration", "visibility"), "public", "registration.visibility: Input should be"),
        (("summary", "scored"), -1, "summary.scored: Input should be greater"),
    ],
)
def test_an_impossible_value_in_a_report_is_refused_naming_it(
    out: Path, place: tuple[str | int, ...], value: object, says: str
) -> None:
    """A negative day, a seq before the first command, a digest that is not one: none can be
    in a report the evaluator wrote, so the report model refuses them (a negative
    submission day passed as consistent when the report was checked alone)."""
    report = _report(out)
    parent = report
    for step in place[:-1]:
        parent = parent[step]
    parent[place[-1]] = value
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), says)


def test_an_edited_checksum_file_is_caught(out: Path) -> None:
    sums = out / "SHA256SUMS"
    sums.write_bytes(sums.read_bytes().replace(b"  seals/", b"  seals/x", 1))
    _mismatch(_cli("verify-report", str(out)), "differs from the one report.json names")


def _rewrite_seals(out: Path, edit: Callable[[list[bytes]], list[bytes]]) -> None:
    """Edit the seal lines of the seals file and re-hash it everywhere (a forger's edit).

    SHA256SUMS, every branch record's `seal_sha256` and the report's hash of SHA256SUMS
    are made consistent again, so only the seals themselves can give the edit away.
    """
    report = _report(out)
    path = out / "seals" / "branches.jsonl.gz"
    old = hashlib.sha256(path.read_bytes()).hexdigest()
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    data = gzip.compress(b"".join(edit(lines)), mtime=0)
    path.write_bytes(data)
    new = hashlib.sha256(data).hexdigest()
    sums = (out / "SHA256SUMS").read_text().replace(old, new)
    (out / "SHA256SUMS").write_text(sums)
    for question in report["questions"]:
        for branch in question["branches"].values():
            branch["seal_sha256"] = new
    report["artifacts"]["SHA256SUMS"] = hashlib.sha256(sums.encode()).hexdigest()
    _write_report(out, report)


def _edited(line: bytes, **fields: object) -> bytes:
    return dumps({**orjson.loads(line), **fields}) + b"\n"


def test_the_seals_file_holds_every_branch_seal_in_question_order(out: Path) -> None:
    report = _report(out)
    assert [p.name for p in (out / "seals").iterdir()] == ["branches.jsonl.gz"]
    data = (out / "seals" / "branches.jsonl.gz").read_bytes()
    assert (out / "SHA256SUMS").read_text() == (
        f"{hashlib.sha256(data).hexdigest()}  seals/branches.jsonl.gz\n"
    )
    lines = gzip.decompress(data).splitlines(keepends=True)
    assert all(dumps(orjson.loads(line)) + b"\n" == line for line in lines)
    records = [
        q["branches"][name] for q in report["questions"] for name in ("baseline", "intervention")
    ]
    assert [Seal.from_data(orjson.loads(line)).digest() for line in lines] == [
        r["seal_digest"] for r in records
    ]
    assert {r["seal_file"] for r in records} == {"seals/branches.jsonl.gz"}


def _other_episode(line: bytes) -> bytes:
    seal = orjson.loads(line)
    return _edited(line, identities={**seal["identities"], "episode_id": "0" * 64})


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda ls: [_edited(ls[0], ledger_digest="0" * 64), *ls[1:]], "seal_digest differs"),
        (lambda ls: ls[1:], "holds no seal of this branch's episode"),
        (lambda ls: [ls[0], *ls], "a second seal of one branch"),
        (lambda ls: [ls[0].replace(b"{", b"{ ", 1), *ls[1:]], "does not hold a canonical seal"),
        (lambda ls: [*ls, b"not json\n"], "does not hold JSON"),
        (lambda ls: ls[::-1], "OK"),
        (lambda ls: [*ls, _other_episode(ls[0])], "that no branch record names"),
        (lambda ls: [_edited(ls[0], campaign_digest="0" * 64), *ls[1:]], "another campaign"),
    ],
    ids=[
        "edited",
        "dropped",
        "doubled",
        "not-canonical",
        "not-json",
        "reordered",
        "extra",
        "other",
    ],
)
def test_a_seals_file_rewritten_with_its_checksums_is_caught(
    out: Path, edit: Callable[[list[bytes]], list[bytes]], says: str
) -> None:
    _rewrite_seals(out, edit)
    result = _cli("verify-report", str(out))
    if says == "OK":
        assert result.exit_code == 0, result.output
    else:
        _mismatch(result, says)


def test_a_seal_named_by_two_records_is_caught(out: Path) -> None:
    report = _report(out)
    first, second = report["questions"][0], report["questions"][1]
    second["branches"]["baseline"] = dict(first["branches"]["baseline"])
    _write_report(out, report)
    _mismatch(_cli("verify-report", str(out)), "names a seal another record names")


@pytest.mark.parametrize("cut", [10, -10])
def test_a_torn_seals_file_is_caught(out: Path, cut: int) -> None:
    path = out / "seals" / "branches.jsonl.gz"
    data = path.read_bytes()
    path.write_bytes(data[:cut])
    _mismatch(_cli("verify-report", str(out)), "content differs from its SHA256SUMS line")


def test_an_extra_or_missing_file_is_caught(out: Path) -> None:
    (out / "notes.txt").write_text("x")
    _mismatch(_cli("verify-report", str(out)), "notes.txt: not part of an evaluation output")
    (out / "notes.txt").unlink()
    next(iter((out / "seals").iterdir())).unlink()
    _mismatch(_cli("verify-report", str(out)), "listed in SHA256SUMS but missing")


def test_a_report_of_another_run_is_caught(out: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    assert _cli("run", "--out", str(other)).exit_code == 0
    _mismatch(_cli("verify-report", str(out), "--results", str(other)), "differs from evaluating")


@pytest.mark.parametrize("content", [b"[]\n", b"{", b'{"schema":"x"}\n'])
def test_a_report_that_is_not_a_report_is_a_mismatch(out: Path, content: bytes) -> None:
    (out / "report.json").write_bytes(content)
    _mismatch(_cli("verify-report", str(out)), "report.json")


def test_a_directory_without_a_report_is_a_usage_error(tmp_path: Path) -> None:
    result = _cli("verify-report", str(tmp_path))
    assert result.exit_code == 2
    assert result.output == f"Error: {tmp_path} is not an evaluation output (no report.json)\n"


def test_an_output_in_the_earlier_layout_still_verifies(out: Path) -> None:
    """Outputs written before the seals file (one gzip file per branch seal) stay checkable."""
    report = _report(out)
    stream = out / "seals" / "branches.jsonl.gz"
    seals = [orjson.loads(line) for line in gzip.decompress(stream.read_bytes()).splitlines()]
    stream.unlink()
    by_identity = {(s["identities"]["branch"], s["identities"]["episode_id"]): s for s in seals}
    sums = []
    for question in report["questions"]:
        for name, branch in question["branches"].items():
            seal = by_identity[(name, branch["episode_id"])]
            file = f"seals/{question['id']}.{name}.seal.json.gz"
            data = gzip.compress(dumps(seal) + b"\n", mtime=0)
            (out / file).write_bytes(data)
            branch["seal_file"] = file
            branch["seal_sha256"] = hashlib.sha256(data).hexdigest()
            sums.append(f"{branch['seal_sha256']}  {file}\n")
    text = "".join(sorted(sums, key=lambda line: line.split()[1]))
    (out / "SHA256SUMS").write_text(text)
    report["artifacts"]["SHA256SUMS"] = hashlib.sha256(text.encode()).hexdigest()
    _write_report(out, report)
    result = _cli("verify-report", str(out))
    assert result.exit_code == 0 and "12 seal(s)" in result.output, result.output


def test_without_sha256sums_the_one_problem_is_named_and_the_seals_are_still_checked(
    out: Path,
) -> None:
    """A missing SHA256SUMS was one problem per branch on top of the real one ("seal_sha256
    differs from SHA256SUMS", twelve times) and the seals were not opened at all."""
    (out / "SHA256SUMS").unlink()
    result = _cli("verify-report", str(out))
    assert result.exit_code == 3, result.output
    problems = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert problems == [f"Error: {out / 'SHA256SUMS'}: missing"]
    path = out / "seals" / "branches.jsonl.gz"
    lines = gzip.decompress(path.read_bytes()).splitlines(keepends=True)
    seal = orjson.loads(lines[0])
    seal["final_day"] += 1
    lines[0] = dumps(seal) + b"\n"
    path.write_bytes(gzip.compress(b"".join(lines), mtime=0))
    _mismatch(_cli("verify-report", str(out)), "seal_digest differs from seals/branches.jsonl.gz")
