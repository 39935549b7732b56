"""Creating and resuming a run are two operations, each refusing the other's directory."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.errors import UserError
from workbench.play.session import PlayerSession


def test_create_then_resume_gives_the_same_run(tmp_path: Path) -> None:
    created = PlayerSession.create(tmp_path / "run")
    created.advance(3)
    created.close()
    resumed = PlayerSession.resume(tmp_path / "run")
    assert resumed.day == 3
    assert resumed.journal_head == created.journal_head
    assert resumed.registration == created.registration


def test_create_refuses_a_directory_holding_a_run(tmp_path: Path) -> None:
    PlayerSession.create(tmp_path / "run")
    with pytest.raises(UserError, match="already holds a run"):
        PlayerSession.create(tmp_path / "run")


def test_create_refuses_a_non_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not an empty run directory"):
        PlayerSession.create(tmp_path / "run")
    assert (tmp_path / "run" / "notes.txt").read_text() == "mine"


def test_resume_refuses_a_directory_without_a_run(tmp_path: Path) -> None:
    with pytest.raises(UserError, match=r"is not a run directory \(no run.json\)"):
        PlayerSession.resume(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["show", "ledger", "snapshot"])
def test_read_only_commands_name_a_directory_without_a_run(command: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, [command, str(tmp_path)])
    assert result.exit_code == 2
    assert result.output == f"Error: {tmp_path} is not a run directory (no run.json)\n"


def test_run_creates_then_resumes_the_same_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = CliRunner().invoke(main, ["run", "--out", str(out)])
    assert first.exit_code == 0, first.output
    head = PlayerSession.resume(out).journal_head
    again = CliRunner().invoke(main, ["run", "--out", str(out)])
    assert again.exit_code == 0, again.output
    assert PlayerSession.resume(out).journal_head == head


def test_a_rejection_keeps_its_term_live_on_retry_and_after_resume(tmp_path: Path) -> None:
    session = PlayerSession.create(tmp_path / "run")
    assert session.schedule("hire_sales_rep", "first").accepted
    rejected = session.schedule("hire_sales_rep", "again")
    assert not rejected.accepted and rejected.term == "not_repeatable"
    assert session.schedule("hire_sales_rep", "again") == rejected
    session.close()
    assert PlayerSession.resume(tmp_path / "run").schedule("hire_sales_rep", "again") == rejected


def test_a_seal_syncs_a_deferred_journal_before_it_names_its_head(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With deferred fsyncs, no seal.json names an entry a crash could still lose."""
    from ledger import journal as journal_module
    from workbench.play import session as session_module

    events: list[str] = []
    real_sync, real_write_seal = journal_module.fsync_file, session_module.write_seal
    monkeypatch.setattr(
        journal_module, "fsync_file", lambda path: (events.append("sync"), real_sync(path))
    )
    monkeypatch.setattr(
        session_module,
        "write_seal",
        lambda paths, seal: (events.append("seal"), real_write_seal(paths, seal)),
    )
    session = PlayerSession.create(tmp_path / "run", autoseal=False, write_ahead=True)
    session.seal()
    session.defer_fsync()
    events.clear()
    session.advance(2)
    assert events == []
    session.seal()
    assert events == ["sync", "seal"]
    session.close()
