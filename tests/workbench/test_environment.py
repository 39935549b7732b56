"""A run made by another installation (numpy, engine) is named as such, not as tampering.

An honest run made where numpy was 2.3.0 cannot replay into its recorded results here;
before, verify, validate and resume all reported that as an integrity failure (exit 3),
which an evaluator reads as a changed run. Now, when the run's own seal vouches for its
header, each says which installation replays it (exit 2); a header the seal does not
vouch for is still an integrity failure.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.journal import Journal
from ledger.seal import Seal
from workbench.evaluation.batch import validate_runs
from workbench.evaluation.evaluator import RunJob, evaluate_run
from workbench.play.session import PlayerSession
from workbench.runs import environment
from workbench.runs.environment import environment_mismatch, how_to_replay

from .conftest import Private
from .test_integrity import BANK_LOAN, cli, one_line_error, play_private, rewrite_journal

OTHER_NUMPY = "2.3.0"


def _finished_run(run: Path) -> None:
    with PlayerSession.create(run) as session:
        session.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
        session.run_to_horizon()
        session.seal()


@pytest.fixture
def other_numpy_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A finished public run made where numpy was OTHER_NUMPY."""
    run = tmp_path / "runs" / "made-elsewhere"
    with monkeypatch.context() as m:
        m.setattr(np, "__version__", OTHER_NUMPY)
        _finished_run(run)
    header = Journal.open(run / "journal.jsonl").header
    assert header is not None and header.payload["numpy_version"] == OTHER_NUMPY
    return run


def _replay_hint() -> str:
    return f"replay it where numpy {OTHER_NUMPY} is installed (pip install 'numpy=={OTHER_NUMPY}')"


def test_verify_names_the_installation_not_tampering(other_numpy_run: Path) -> None:
    result = cli("verify", other_numpy_run)
    assert result.exit_code == 2
    assert one_line_error(result) == (
        f"Error: {other_numpy_run} was made with numpy '{OTHER_NUMPY}'; this workbench has "
        f"numpy '{np.__version__}': {_replay_hint()}"
    )


def test_validate_refuses_it_as_usage_and_writes_nothing(
    other_numpy_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    result = cli("validate", "counterfactual", "--results", other_numpy_run, "--out", out)
    assert result.exit_code == 2
    assert _replay_hint() in one_line_error(result)
    assert not out.exists()


def test_resuming_it_is_refused_the_same_way(other_numpy_run: Path) -> None:
    before = (other_numpy_run / "journal.jsonl").read_bytes()
    result = cli("finish", other_numpy_run)
    assert result.exit_code == 2
    assert _replay_hint() in one_line_error(result)
    assert (other_numpy_run / "journal.jsonl").read_bytes() == before


def test_a_batch_refuses_that_run_alone(other_numpy_run: Path) -> None:
    evaluation = evaluate_run(RunJob(other_numpy_run, None, None))
    assert evaluation.kind == "refused"
    assert _replay_hint() in evaluation.message


def test_without_a_seal_that_vouches_for_the_header_it_is_an_integrity_failure(
    other_numpy_run: Path,
) -> None:
    """A header changed after sealing (chain rebuilt, seal left) is not excused as another
    installation: its seal does not cover the journal it heads."""
    rewrite_journal(
        other_numpy_run / "journal.jsonl",
        lambda entry: (
            {**entry.payload, "numpy_version": "2.2.0"}
            if entry.kind == "header"
            else dict(entry.payload)
        ),
    )
    result = cli("verify", other_numpy_run)
    assert result.exit_code == 3
    message = one_line_error(result)
    assert "was made with numpy '2.2.0'" in message
    assert message.endswith("and its seal does not vouch for that (it seals another journal)")
    (other_numpy_run / "seal.json").write_text("{}")
    damaged = cli("verify", other_numpy_run)
    assert damaged.exit_code == 3
    assert one_line_error(damaged).endswith("its seal.json is not a seal to vouch for that")
    (other_numpy_run / "seal.json").unlink()
    unsealed = cli("verify", other_numpy_run)
    assert unsealed.exit_code == 3
    assert one_line_error(unsealed).endswith("and it has no seal to vouch for that")


def test_a_private_run_needs_its_signed_seal(
    private: Private, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = tmp_path / "runs" / "a7"
    run.parent.mkdir()
    with monkeypatch.context() as m:
        m.setattr(np, "__version__", OTHER_NUMPY)
        played = play_private(private, run, BANK_LOAN % "-300.00", '{"kind":"finish"}')
    assert played.exit_code == 0, played.output
    args = ("--control", private.control_path, "--agent", "agent-7")
    signed = cli("verify", run, *args)
    assert signed.exit_code == 2
    assert _replay_hint() in one_line_error(signed)
    seal = Seal.from_data(json.loads((run / "seal.json").read_text()))
    (run / "seal.json").write_bytes(seal.signed(b"not the control file's key").to_bytes())
    forged = cli("verify", run, *args)
    assert forged.exit_code == 3
    assert one_line_error(forged).endswith(
        "its seal does not vouch for that (not signed with the control file's key)"
    )


def test_another_engine_names_the_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = tmp_path / "old-engine"
    with monkeypatch.context() as m:
        m.setattr(environment, "ENGINE_VERSION", "cfwb-engine/0.9")
        _finished_run(run)
    result = cli("verify", run)
    assert result.exit_code == 2
    assert one_line_error(result).endswith(
        "was made with engine 'cfwb-engine/0.9'; this workbench has engine "
        f"'{environment.ENGINE_VERSION}': replay it with the workbench release that made it"
    )


def test_a_batch_reports_it_among_the_others(other_numpy_run: Path, tmp_path: Path) -> None:
    _finished_run(other_numpy_run.parent / "made-here")
    outcome = validate_runs(other_numpy_run.parent, tmp_path / "batch")
    rows = {row.run: row for row in outcome.rows}
    assert rows["made-here"].report is not None
    elsewhere = rows["made-elsewhere"]
    assert elsewhere.report is None and _replay_hint() in elsewhere.reason
    assert "made-elsewhere" in outcome.runs_path.read_text()


@given(
    st.dictionaries(
        st.sampled_from(["engine_version", "numpy_version", "bit_generator"]),
        st.one_of(st.none(), st.integers(), st.text(max_size=300)),
    )
)
def test_any_header_gives_a_one_line_message_and_a_safe_command(header: dict[str, object]) -> None:
    """Whatever a header holds, the message is one printable line, and the pip command
    it suggests holds nothing but a version number."""
    payload = {**environment.environment_payload(), **header}
    mismatch = environment_mismatch(payload)
    if mismatch is None:
        assert payload == environment.environment_payload()
        return
    hint = how_to_replay(payload)
    for text in (mismatch, hint):
        assert text.isprintable() and len(text) < 1000
    if "pip install" in hint:
        version = hint.rsplit("numpy==", 1)[1].removesuffix("')")
        assert all(c.isdigit() or c == "." or c.isalpha() for c in version)


def test_numpy_is_pinned_to_what_the_headers_record() -> None:
    """Every install of this release gets the numpy its journal headers name, so runs made
    on two machines replay on each other (pyproject pins it exactly)."""
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    dependencies = tomllib.loads(pyproject.read_text())["project"]["dependencies"]
    pins = [d for d in dependencies if d.startswith("numpy")]
    assert pins == [f"numpy=={np.__version__}"]
