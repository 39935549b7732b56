"""`workbench play` and `workbench serve`: the only commands that import Textual."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

RUNS_DIR = Path("runs")


def next_run_dir(root: Path = RUNS_DIR) -> Path:
    """Claim `runs/play-<n>` (n the next free number) by creating it: two players starting
    at once (two `serve` browser sessions) never share a run."""
    from workbench.errors import UserError

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
            candidate.mkdir(parents=True)
        except FileExistsError:
            taken.add(n)
            continue
        except OSError as exc:
            raise UserError(
                f"{candidate}: cannot create a run directory ({exc.strerror})"
            ) from None
        return candidate


@click.command()
@click.argument("campaign", required=False, type=click.Path(path_type=Path))
@click.option(
    "--run",
    "run_dir",
    type=click.Path(path_type=Path),
    help="Run directory: created when missing, resumed when it holds a run.",
)
def play(campaign: Path | None, run_dir: Path | None) -> None:
    """Open the Textual dashboard on a campaign run (holding the run's writer lock)."""
    from campaigns import DEFAULT_CAMPAIGN
    from workbench.cli.options import play_session
    from workbench.runs.bundle import load_bundle
    from workbench.tui.app import WorkbenchApp

    if run_dir is None:
        load_bundle(campaign or DEFAULT_CAMPAIGN)
        run_dir = next_run_dir()
    with play_session(run_dir, campaign) as session:
        WorkbenchApp(session).run()


@click.command()
@click.argument("campaign", required=False, type=click.Path(path_type=Path))
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
