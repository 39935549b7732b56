"""The presenter's demo: play the default campaign with a scripted player, validate it."""

from __future__ import annotations

from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from workbench.errors import UserError
from workbench.play.script import play_script
from workbench.play.session import PlayerSession

DEMO_SCRIPT = DEFAULT_CAMPAIGN / "demo.jsonl"


def play_demo(run_dir: str | Path) -> Path:
    """Play the default campaign with the demo script into a new `run_dir`; return it."""
    run_dir = Path(run_dir)
    if run_dir.exists() and any(run_dir.iterdir()):
        raise UserError(f"{run_dir} exists and is not empty: the demo plays into a new folder")
    session = PlayerSession.create(run_dir, DEFAULT_CAMPAIGN, autoseal=False)
    play_script(session, DEMO_SCRIPT)
    session.run_to_horizon()
    session.seal()
    session.write_store()
    return run_dir


def next_free(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`, … whichever does not exist yet."""
    if not path.exists():
        return path
    n = 2
    while path.with_name(f"{path.name}-{n}").exists():
        n += 1
    return path.with_name(f"{path.name}-{n}")
