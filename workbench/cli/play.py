"""`workbench play` and `workbench serve`: the player's Textual app, in a terminal or a browser."""

from __future__ import annotations

import shlex
import sys
from functools import partial
from pathlib import Path

import click

RUNS_DIR = Path("runs")


def next_run_dir(root: Path = RUNS_DIR) -> Path:
    """`runs/play-<n>` with n the next free number."""
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
    while n in taken:
        n += 1
    return root / f"play-{n}"


@click.command()
@click.argument("campaign", required=False, type=click.Path(path_type=Path))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory: created when missing, resumed when it holds a run.",
)
def play(campaign: Path | None, run_dir: Path | None) -> None:
    """Open the Textual dashboard on a campaign run (the run opens while the app starts)."""
    from workbench.cli.options import play_session
    from workbench.tui.app import PlayerApp

    target = run_dir or next_run_dir()
    app = PlayerApp(opener=partial(play_session, target, campaign), opening=str(target))
    app.run()
    if app.open_error is not None:
        raise app.open_error


@click.command()
@click.argument("campaign", required=False, type=click.Path(path_type=Path))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory each browser session plays.",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
def serve(campaign: Path | None, run_dir: Path | None, host: str, port: int) -> None:
    """Serve the dashboard in a browser (demonstrations)."""
    from textual_serve.server import Server

    command = [sys.executable, "-m", "workbench", "play"]
    if campaign is not None:
        command.append(str(campaign))
    if run_dir is not None:
        command += ["--run", str(run_dir)]
    Server(shlex.join(command), host=host, port=port).serve()
