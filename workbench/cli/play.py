"""`workbench play` and `workbench serve`: the only commands that import Textual."""

from __future__ import annotations

import shlex
import sys
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
@click.argument("campaign", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory: created when missing, resumed when it holds a run.",
)
def play(campaign: Path | None, run_dir: Path | None) -> None:
    """Open the Textual dashboard on a campaign run."""
    from workbench.cli.options import play_session
    from workbench.tui.app import WorkbenchApp

    session = play_session(run_dir or next_run_dir(), campaign)
    WorkbenchApp(session).run()


@click.command()
@click.argument("campaign", required=False, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory each browser session plays.",
)
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=int)
def serve(campaign: Path | None, run_dir: Path | None, host: str, port: int) -> None:
    """Serve the dashboard in a browser (demonstrations)."""
    from textual_serve.server import Server

    command = [sys.executable, "-c", "from workbench.cli import main; main()", "play"]
    if campaign is not None:
        command.append(str(campaign))
    if run_dir is not None:
        command += ["--run", str(run_dir)]
    Server(shlex.join(command), host=host, port=port).serve()
