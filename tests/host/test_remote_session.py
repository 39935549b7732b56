"""The remote session is the local session's interface over HTTP: same reads, same results.

A run played through `RemoteSession` against a real host is compared with the same run
resumed locally from the host's runs directory: the public view, the journal, metrics,
ledger (trial balance, totals, history, exports) and previews are identical.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.errors import UserError
from workbench.play.protocol import JournalRecord, LedgerReader, SessionProtocol
from workbench.play.remote import RemoteSession, _checks_certificates, read_token
from workbench.play.session import PlayerSession

from .conftest import ALPHA, BRAVO, Live


def remote(live: Live, agent: str = ALPHA, run_id: str | None = None) -> RemoteSession:
    """A remote session on the live host as `agent`."""
    return RemoteSession.connect(live.url, agent, live.hosted.tokens[agent], run_id)


def local(live: Live, session: RemoteSession) -> PlayerSession:
    """The same run resumed from the host's runs directory (nothing written)."""
    return PlayerSession.resume(
        live.hosted.runs / session.run_id, control=live.hosted.control, read_only=True
    )


def test_both_sessions_satisfy_the_protocol(live: Live) -> None:
    session = remote(live)
    mirror = local(live, session)
    for candidate in (session, mirror):
        assert isinstance(candidate, SessionProtocol)
        assert isinstance(candidate.ledger(), LedgerReader)
    session.advance(1)
    assert all(isinstance(e, JournalRecord) for e in session.journal_entries)
    assert all(isinstance(e, JournalRecord) for e in local(live, session).journal_entries)


def test_a_hosted_run_reads_like_the_local_one(live: Live) -> None:
    session = remote(live)
    assert session.preview("spring_campaign") == local(live, session).preview("spring_campaign")
    outcome = session.schedule("spring_campaign")
    assert outcome.accepted and outcome.start_day == 1
    rejected = session.schedule("spring_campaign")
    assert not rejected.accepted and rejected.reason
    assert session.advance(12) == 12
    result = session.submit({"question": "q_bank_loan", "value": "-250", "conclusion": "-300.00"})
    assert result.accepted and result.eligible and result.seq == 4
    assert session.advance(30) == 42
    mirror = local(live, session)
    assert session.view().to_data() == mirror.view().to_data()
    assert (session.day, session.horizon, session.finished) == (42, 180, False)
    assert session.metric_series() == mirror.metric_series()
    assert session.journal_head == mirror.journal_head
    assert [
        (e.seq, e.day, e.kind, e.id, dict(e.payload), e.hash) for e in session.journal_entries
    ] == [(e.seq, e.day, e.kind, e.id, dict(e.payload), e.hash) for e in mirror.journal_entries[1:]]
    theirs, ours = session.ledger(), mirror.ledger()
    assert theirs.last_day == ours.last_day == 42
    for day in (None, 0, 1, 20, 42):
        assert theirs.trial_balance(day) == ours.trial_balance(day)
        assert theirs.totals(day) == ours.totals(day)
    for account, _, _ in ours.trial_balance():
        assert theirs.account_history(account) == ours.account_history(account)
    for fmt in ("beancount", "csv"):
        assert theirs.export(fmt) == ours.export(fmt)
    assert session.finish() == 180 and session.finished
    session.close()


def test_refusals_come_back_as_one_line_errors(live: Live) -> None:
    session = remote(live)
    bad = session.submit({"question": "q_nope", "value": "1"})
    assert not bad.accepted and "unknown question" in bad.errors[0]
    schema = session.submit({"question": "q_bank_loan", "value": "1e999"})
    assert not schema.accepted
    with pytest.raises(UserError, match="unknown action"):
        session.schedule("no_such_action")
    with pytest.raises(UserError, match="campaign ends on day 180"):
        session.advance(500)
    session.finish()
    with pytest.raises(UserError, match="accepts no further command"):
        session.advance(1)
    assert session.journal_entries[-1].kind == "finish" and len(session.journal_entries) == 1


def test_connect_starts_the_episode_then_opens_it_finished_or_not(live: Live) -> None:
    first = remote(live)
    first.advance(2)
    assert remote(live).run_id == first.run_id
    first.finish()
    again = remote(live)
    assert again.run_id == first.run_id and again.finished and again.day == 180
    assert remote(live, run_id=first.run_id).finished
    assert remote(live, BRAVO).run_id != first.run_id
    with pytest.raises(UserError, match="no run run-0+ among"):
        remote(live, run_id="run-" + "0" * 32)
    with pytest.raises(UserError, match=f"belongs to agent {BRAVO}, not {ALPHA}"):
        RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[BRAVO])
    with pytest.raises(UserError, match="refused the token"):
        RemoteSession.connect(live.url, ALPHA, "cfwb-agent-wrong")


def test_a_token_file_holds_the_token_or_the_control_new_line(tmp_path: Path) -> None:
    alone, line, junk = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    alone.write_text("cfwb-agent-abc\n")
    line.write_text(f"{ALPHA} cfwb-agent-abc\n")
    junk.write_text("one two three\n")
    assert read_token(alone, ALPHA) == read_token(line, ALPHA) == "cfwb-agent-abc"
    with pytest.raises(UserError, match="holds the token alone"):
        read_token(junk, ALPHA)
    with pytest.raises(UserError, match="does not exist"):
        read_token(tmp_path / "missing", ALPHA)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", ALPHA], "--agent, --token-file and --run-id go with --connect URL"),
        (["--connect", "http://127.0.0.1:9"], "--connect needs --agent ID and --token-file FILE"),
        (
            ["--connect", "http://127.0.0.1:9", "--run", "somewhere"],
            "--connect plays a hosted run: it takes no CAMPAIGN or --run",
        ),
    ],
)
def test_play_connect_options_are_checked(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", *args])
    assert result.exit_code == 2
    assert result.output == f"Error: {message}\n"


def test_play_connect_names_an_unreachable_host(tmp_path: Path, a_terminal: None) -> None:
    token = tmp_path / "token"
    token.write_text("cfwb-agent-abc")
    result = CliRunner().invoke(
        main,
        ["play", "--connect", "http://127.0.0.1:9", "--agent", ALPHA, "--token-file", str(token)],
    )
    assert result.exit_code == 2
    assert result.output.startswith("Error: cannot reach the host at http://127.0.0.1:9")
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("url", "checks"),
    [
        ("http://127.0.0.1:8700", False),
        ("HTTP://127.0.0.1:8700/", False),
        ("https://host.example", True),
        ("HTTPS://host.example", True),
        ("ftp://host.example", True),
        ("host.example:8700", True),
        ("http//host.example", True),
        ("http://[::1", True),
    ],
)
def test_certificates_are_checked_for_every_url_but_plain_http(url: str, checks: bool) -> None:
    assert _checks_certificates(url) is checks
