"""A private run's report is signed, and `verify-report --control` authenticates it.

The consistency checks alone cannot catch a forger who edits the numbers and re-hashes
everything (seals, SHA256SUMS, the report's hash of it): only evaluating the run again
can. The evaluator signs a private report and its branch seals with keys derived from
the control file, so with that file any edit is caught without the run.
"""

from __future__ import annotations

import gzip
import hashlib
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import orjson
import pytest
from click.testing import CliRunner, Result

from campaigns import DEFAULT_CAMPAIGN
from ledger.canonical import dumps
from ledger.seal import seal_line_digest
from tests.workbench.batch_runs import play_short
from tests.workbench.conftest import Private, control_new, make_private
from workbench.cli import main
from workbench.errors import UserError
from workbench.evaluation.report_check import check_report
from workbench.runs.registration import load_control

AGENT = "agent-7"


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Private, Path, Path]:
    """A private campaign, a finished run of AGENT's, and its evaluation."""
    root = tmp_path_factory.mktemp("signed")
    campaign = make_private(Path(shutil.copytree(DEFAULT_CAMPAIGN, root / "campaign")))
    control = root / "control.json"
    private = Private(campaign, control, control_new(campaign, control, AGENT, "agent-8"))
    run = play_short(root / "run", AGENT, seed=3, campaign=campaign, control=private.control)
    out = root / "out"
    result = _cli(
        "validate", "counterfactual", str(run), "--control", str(control), "--agent", AGENT,
        "--out", str(out),
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    return private, run, out


@pytest.fixture()
def out(signed: tuple[Private, Path, Path], tmp_path: Path) -> Path:
    """A copy of the evaluation to change."""
    return Path(shutil.copytree(signed[2], tmp_path / "out"))


def _report(out: Path) -> dict[str, Any]:
    return orjson.loads((out / "report.json").read_bytes())


def _forge(out: Path) -> None:
    """The forger's whole edit: a question's outcome, effect, submission, loss and score
    changed, every seal given a made-up signature and ledger digest, and everything
    re-hashed (seal digests, the seals file, SHA256SUMS, the report's hash of it)."""
    report = _report(out)
    question = next(q for q in report["questions"] if q["status"] == "scored")
    question["effect"] = question["submission"]["value"]
    question["branches"]["intervention"]["outcome"] = str(
        Decimal(question["branches"]["baseline"]["outcome"]) + Decimal(question["effect"])
    )
    question["loss"], question["score"] = "0", "0"
    path = out / "seals" / "branches.jsonl.gz"
    lines = []
    for line in gzip.decompress(path.read_bytes()).splitlines(keepends=True):
        seal = orjson.loads(line)
        seal["signature"] = "hmac-sha256:" + "0" * 64
        seal["ledger_digest"] = "1" * 64
        lines.append(dumps(seal) + b"\n")
    data = gzip.compress(b"".join(lines), mtime=0)
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    digests = iter(seal_line_digest(line) for line in lines)
    for q in report["questions"]:
        for name in ("baseline", "intervention"):
            branch = q["branches"][name]
            if branch is not None and branch.get("seal_file"):
                branch["seal_sha256"], branch["seal_digest"] = sha, next(digests)
    sums = f"{sha}  seals/branches.jsonl.gz\n".encode()
    (out / "SHA256SUMS").write_bytes(sums)
    report["artifacts"]["SHA256SUMS"] = hashlib.sha256(sums).hexdigest()
    scores = [Decimal(q["score"]) for q in report["questions"] if q["score"] is not None]
    report["summary"]["mean_score"] = str(sum(scores) / len(scores))
    (out / "report.json").write_bytes(dumps(report) + b"\n")


def test_a_private_report_is_signed_and_authenticated(
    signed: tuple[Private, Path, Path], out: Path
) -> None:
    private, run, _ = signed
    assert _report(out)["signature"].startswith("hmac-sha256:")
    checked = _cli("verify-report", str(out), "--control", str(private.control_path))
    assert checked.exit_code == 0, checked.output
    assert "signatures checked" in checked.stdout
    alone = _cli("verify-report", str(out))
    assert alone.exit_code == 0 and "signatures checked" not in alone.stdout
    assert "its signatures were not checked: give --control" in alone.stderr
    again = _cli(
        "verify-report", str(out), "--control", str(private.control_path), "--agent", AGENT,
        "--results", str(run),
    )  # fmt: skip
    assert again.exit_code == 0, again.output


def test_a_signed_report_is_checked_against_its_run_without_naming_its_agent(
    signed: tuple[Private, Path, Path],
) -> None:
    """`verify-report OUT --results RUN --control FILE`, as the README writes it, was refused
    for want of `--agent`: the signed report names its agent, and that agent's run is
    evaluated again (a run directory or the runs directory holding it)."""
    private, run, out = signed
    for results in (run, run.parent):
        checked = _cli(
            "verify-report", str(out), "--control", str(private.control_path),
            "--results", str(results),
        )  # fmt: skip
        assert checked.exit_code == 0, checked.output
        assert "signatures checked, and matches evaluating" in checked.stdout


def test_a_forgery_rehashed_throughout_is_caught_with_the_control_file(
    signed: tuple[Private, Path, Path], out: Path
) -> None:
    private = signed[0]
    _forge(out)
    assert check_report(out).ok, "the forgery must pass the unkeyed checks for this test to bite"
    result = _cli("verify-report", str(out), "--control", str(private.control_path))
    assert result.exit_code == 3, result.output
    assert "report.json: its signature is not the control file's" in result.stderr
    assert "the seal's signature in seals/branches.jsonl.gz is not the control file's" in (
        result.stderr
    )


def test_an_unsigned_private_report_is_caught(
    signed: tuple[Private, Path, Path], out: Path
) -> None:
    report = _report(out)
    del report["signature"]
    (out / "report.json").write_bytes(dumps(report) + b"\n")
    result = _cli("verify-report", str(out), "--control", str(signed[0].control_path))
    assert result.exit_code == 3 and "unsigned, but a private report is signed" in result.stderr


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in _leaves(v, (*path, k))]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, (*path, i))]
    return [path]


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return value + "0" if value[-1:].isdigit() else value + "x"
    return "0"


def test_any_change_to_a_signed_report_is_caught(
    out: Path, signed: tuple[Private, Path, Path]
) -> None:
    """Every leaf of report.json (383 here), the signature included, changed in turn: with
    the control file no change passes. A change to the registration the control file is
    checked against makes it the wrong control file (a usage error, as for `validate`)."""
    control = signed[0].control
    original = (out / "report.json").read_bytes()
    leaves = _leaves(orjson.loads(original))
    assert len(leaves) > 100
    for path in leaves:
        report = orjson.loads(original)
        holder = report
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = _changed(holder[path[-1]])
        (out / "report.json").write_bytes(dumps(report) + b"\n")
        try:
            assert not check_report(out, control=control).ok, path
        except UserError as exc:
            assert path[0] == "registration" and "report" in exc.message, (path, exc.message)
    (out / "report.json").write_bytes(original)
    assert check_report(out, control=control).authenticated


def test_a_control_file_of_another_world_or_a_development_report_is_a_usage_error(
    signed: tuple[Private, Path, Path], out: Path, demo_run: Path, tmp_path: Path
) -> None:
    private = signed[0]
    other = tmp_path / "other.json"
    control_new(private.campaign, other, AGENT, pinned=False)
    result = _cli("verify-report", str(out), "--control", str(other))
    assert result.exit_code == 2 and "another seed commitment" in result.stderr
    # The same id and digest on both sides of a "not" read as no difference at all.
    assert "is for another world of campaign" in result.stderr, result.stderr
    assert "not the report's" not in result.stderr, result.stderr
    dev = tmp_path / "dev"
    assert (
        _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(dev)).exit_code
        == 0
    )
    result = _cli("verify-report", str(dev), "--control", str(private.control_path))
    assert result.exit_code == 2 and "development report" in result.stderr
    assert load_control(other).commitment() != private.control.commitment()


def test_a_report_of_another_agents_run_is_a_usage_error(
    signed: tuple[Private, Path, Path], out: Path
) -> None:
    """`--agent` names whose report is expected: another agent's is refused (exit 2), as
    every other command refuses another agent's run, never called consistent."""
    private = signed[0]
    for someone in ("agent-8", "nobody"):
        result = _cli(
            "verify-report", str(out), "--control", str(private.control_path), "--agent", someone
        )
        assert result.exit_code == 2, result.output
        assert f"reports the run of '{AGENT}', not '{someone}'" in result.stderr


def _rewrite(out: Path, change: dict[str, str]) -> None:
    """Change fields of report.json's registration, written back canonically."""
    report = _report(out)
    report["registration"].update(change)
    (out / "report.json").write_bytes(dumps(report) + b"\n")


@pytest.mark.parametrize(
    "field", ["campaign_id", "campaign_digest", "seed_commitment", "agent_id", "visibility"]
)
def test_a_signed_report_whose_registration_was_changed_is_found_altered(
    signed: tuple[Private, Path, Path], out: Path, field: str
) -> None:
    """An edit of the run's identity in a private report was refused as if the control
    file or the agent given were wrong (exit 2): the report was read as the truth before
    it was authenticated. The evaluation's seals are signed with the control file's key,
    for its campaign and world, so the control file given is known to be the right one:
    the report was changed (exit 3), with the run or without."""
    private, run, _ = signed
    value = _report(out)["registration"][field]
    altered = {
        "campaign_id": "someone-elses",
        "campaign_digest": "0" * 64,
        "seed_commitment": "1" * 64,
        "agent_id": "agent-8",
        "visibility": "development",
    }[field]
    assert altered != value
    _rewrite(out, {field: altered})
    control = str(private.control_path)
    for args in (
        ["--control", control],
        ["--control", control, "--agent", AGENT],
        ["--results", str(run), "--control", control, "--agent", AGENT],
    ):
        result = _cli("verify-report", str(out), *args)
        assert result.exit_code == 3, (args, result.output)
        assert "Traceback" not in result.output


def test_another_worlds_control_file_is_still_a_usage_error_for_a_changed_report(
    signed: tuple[Private, Path, Path], out: Path, tmp_path: Path
) -> None:
    """The seals decide only for the control file that signed them: another round's file,
    given for a report whose commitment was changed to that round's, authenticates
    nothing (its signatures are not that file's: exit 3), never called consistent."""
    private = signed[0]
    other = tmp_path / "other.json"
    control_new(private.campaign, other, AGENT, pinned=False)
    _rewrite(out, {"seed_commitment": load_control(other).commitment()})
    result = _cli("verify-report", str(out), "--control", str(other))
    assert result.exit_code == 3 and "signature" in result.output, result.output
