"""`workbench play` and `workbench serve`: the player's Textual app, in a terminal or a browser."""

from __future__ import annotations

import errno
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from workbench.cli.options import DIR, FILE

if TYPE_CHECKING:
    from workbench.play.protocol import SessionProtocol

RUNS_DIR = Path("runs")
MAX_SESSIONS = 8
"""Browser sessions `serve` runs at once by default (each is an app process of ~140 MB)."""


def next_run_dir(root: Path = RUNS_DIR) -> Path:
    """Claim `runs/play-<n>` (n the next free number) by creating it: two players starting
    at once (two `serve` browser sessions) never share a run. Refused, with nothing made,
    when `root` lies in a run directory (the command was started inside one)."""
    from ledger.durable import make_dirs, make_new_dir
    from workbench.errors import UserError

    refuse_runs_in_a_run(root)
    try:
        make_dirs(root)
    except OSError as exc:
        raise UserError(f"{root}: cannot create the runs folder ({exc.strerror})") from None

    taken = (
        {
            int(p.name.split("-", 1)[1])
            for p in root.glob("play-*")
            if p.name.split("-", 1)[1].isdigit()
        }
        if root.exists()
        else set()
    )
    n = 1
    while True:
        while n in taken:
            n += 1
        candidate = root / f"play-{n}"
        try:
            make_new_dir(candidate)
        except FileExistsError:
            taken.add(n)
            continue
        except OSError as exc:
            raise UserError(
                f"{candidate}: cannot create a run directory ({exc.strerror})"
            ) from None
        return candidate


def refuse_runs_in_a_run(root: Path) -> None:
    """A one-line UserError when new runs under `root` would lie inside a run directory:
    each left an empty `runs/play-N` there before its creation was refused."""
    from workbench.outputs import refuse_run_directory

    refuse_run_directory(
        root / "play-1",
        "new run directory",
        "a run never holds another: start from a folder outside it, or give --run",
    )


@click.command()
@click.argument("campaign", required=False, type=DIR)
@click.option(
    "--run",
    "run_dir",
    type=DIR,
    help="Run directory: created when missing, resumed when it holds a run.",
)
@click.option("--connect", "url", help="Play a run on a `workbench host` at this URL.")
@click.option("--agent", "agent_id", help="With --connect: your registered agent id.")
@click.option(
    "--token-file",
    type=FILE,
    help="With --connect: file holding your bearer token.",
)
@click.option("--run-id", help="With --connect: the hosted run (default: the agent's own).")
def play(
    campaign: Path | None,
    run_dir: Path | None,
    url: str | None,
    agent_id: str | None,
    token_file: Path | None,
    run_id: str | None,
) -> None:
    """Open the Textual dashboard on a campaign run, local or hosted (--connect).

    The app's first screen shows at once; the run opens (or connects) in its worker.
    """
    from workbench.cli.terminal import require_terminal
    from workbench.errors import UserError
    from workbench.tui.app import PlayerApp

    opener: Callable[[], SessionProtocol]
    if url is None:
        if agent_id or token_file or run_id:
            raise UserError("--agent, --token-file and --run-id go with --connect URL")
        opener = partial(_open_local, campaign, run_dir)
        opening = str(run_dir) if run_dir is not None else f"a new run under {RUNS_DIR}/"
    else:
        if campaign is not None or run_dir is not None:
            raise UserError("--connect plays a hosted run: it takes no CAMPAIGN or --run")
        if agent_id is None or token_file is None:
            raise UserError("--connect needs --agent ID and --token-file FILE")
        opener = partial(_connect, url, agent_id, token_file, run_id)
        opening = f"a hosted run at {url}"
    require_terminal("play", "for play without one, `workbench run --script FILE`")
    app = PlayerApp(opener=opener, opening=opening, settle_collector=True)
    try:
        app.run()
    finally:
        app.close_session()
    if app.open_error is not None:
        if app.open_error_told:  # on the browser's page and in the server's log already
            sys.exit(app.open_error.exit_code)
        raise app.open_error
    if app.return_code:
        sys.exit(app.return_code)


PRIVATE_ELSEWHERE = (
    "; play takes no control file: a private campaign is played on its host "
    "(workbench host, then workbench play --connect URL)"
)
"""What `play` adds to a private campaign's refusal, which names `--control` (play has none)."""


def _open_local(campaign: Path | None, run_dir: Path | None) -> SessionProtocol:
    """Resume `run_dir`, or claim a new run under runs/ once the campaign has loaded and is
    one play can open (a development campaign: a private one left an empty runs/play-N
    behind it each time, and its refusal named a --control play does not take)."""
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.cli.options import play_session
    from workbench.errors import UserError, framed
    from workbench.runs.bundle import load_bundle
    from workbench.runs.registration import resolve_identity

    try:
        if run_dir is None:
            resolve_identity(load_bundle(campaign or DEFAULT_CAMPAIGN), None, None)
            run_dir = next_run_dir()
        return play_session(run_dir, campaign)
    except UserError as exc:
        if exc.subject != "control":
            raise
        raise UserError(framed(exc, after=PRIVATE_ELSEWHERE)) from None


def _connect(url: str, agent_id: str, token_file: Path, run_id: str | None) -> SessionProtocol:
    """A session on a hosted run."""
    from workbench.play.remote import RemoteSession, read_token

    return RemoteSession.connect(url, agent_id, read_token(token_file, agent_id), run_id)


@click.command()
@click.argument("campaign", required=False, type=DIR)
@click.option(
    "--run",
    "run_dir",
    type=DIR,
    help="Run directory each browser session plays.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0: every address; whoever reaches it can play).",
)
@click.option(
    "--port", default=8000, show_default=True, type=click.IntRange(1, 65535), help="Port."
)
@click.option(
    "--max-sessions",
    default=MAX_SESSIONS,
    show_default=True,
    type=click.IntRange(1, 64),
    help="Browser sessions (app processes) running at once; a page over it is refused.",
)
def serve(
    campaign: Path | None, run_dir: Path | None, host: str, port: int, max_sessions: int
) -> None:
    """Serve the dashboard in a browser (demonstrations).

    CAMPAIGN and --run are checked first, as each browser session's `play` would open
    them, writing nothing: a run's run.json against its campaign (its journal is left to
    the session, which repairs what a killed writer left), a new run directory as a run
    is created in it, the campaign of new runs loaded. A bad one is one line here, exit
    2, instead of an error served to every browser session. Only pages of this server
    start sessions (`workbench.cli.serving`).
    """
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.cli.serving import WorkbenchServer
    from workbench.errors import UserError, framed
    from workbench.host.listen import bind, listen_refused, loopback_only
    from workbench.play.session import PlayerSession
    from workbench.runs.bundle import load_bundle, run_campaign
    from workbench.runs.files import RunPaths, read_registration
    from workbench.runs.lock import held_by
    from workbench.runs.registration import check_registration, resolve_identity

    try:
        if run_dir is None:
            resolve_identity(load_bundle(campaign or DEFAULT_CAMPAIGN), None, None)
        elif (paths := RunPaths(run_dir)).exists():
            registration = read_registration(paths)
            bundle = run_campaign(run_dir, registration, campaign)
            identity = resolve_identity(bundle, None, registration.agent_id)
            check_registration(str(run_dir), registration, bundle, identity)
            if (holder := held_by(run_dir)) is not None:
                raise UserError(
                    f"{run_dir} is being written by {holder}: one writer at a time, so every "
                    "browser session would be refused; stop it first"
                )
        else:
            PlayerSession.create(run_dir, campaign, autoseal=False).close()
    except UserError as exc:
        if exc.subject != "control":
            raise
        raise UserError(framed(exc, after="; serve plays development campaigns only")) from None
    if run_dir is None and RUNS_DIR.exists() and not RUNS_DIR.is_dir():
        raise UserError(
            f"{RUNS_DIR} is not a directory: each browser session plays a new run in it"
        )
    if run_dir is None:
        refuse_runs_in_a_run(RUNS_DIR)
    if not host.strip():
        raise UserError("--host is empty: give an address (127.0.0.1, ::1, or 0.0.0.0 for all)")
    try:
        bind(host, port).close()
    except OSError as exc:
        raise UserError(listen_refused(host, port, exc), subject="port") from None
    if not loopback_only(host):
        click.echo(
            f"warning: serving on {host}: anyone who can reach this address can open the "
            "dashboard and play (no sign-in; serve is for demonstrations)",
            err=True,
        )

    command = [sys.executable, "-m", "workbench", "play"]
    if campaign is not None:
        command.append(str(campaign))
    if run_dir is not None:
        command += ["--run", str(run_dir)]
    try:
        run = None if run_dir is None else str(run_dir)
        WorkbenchServer(command, host, port, max_sessions, run).serve()
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EADDRNOTAVAIL, errno.EACCES):
            raise
        raise UserError(listen_refused(host, port, exc), subject="port") from None
