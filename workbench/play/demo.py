"""The presenter's demo: play the default campaign with a scripted player, validate it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from ledger.durable import make_dirs, make_new_dir
from ledger.file_kinds import kind_of
from workbench.errors import UserError
from workbench.outputs import run_directory_holding
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


def demo_run_dir(out: Path) -> Path:
    """The run directory the demo plays into for `--out`, made here (empty): `out` when
    nothing is there, or the first free `out-2`, `out-3`, … beside an existing directory
    `out`. Choosing it makes it, so two demos started together never pick the same one
    (the second was refused by the first's run lock).

    Anything else at `out` (a file, a device, a symbolic link) is refused: a numbered
    sibling of it lands where nobody asked (`--out /dev/null` made /dev/null-2/ in /dev).
    So is a place inside a run directory, which holds one run only.
    """
    out = Path(out)
    try:
        info = os.lstat(out)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise UserError(
            f"output directory {out}: cannot inspect ({exc.strerror or exc})", subject="out"
        ) from None
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise UserError(
            f"output directory {out}: is {kind_of(info.st_mode)}, not a directory", subject="out"
        )
    run = run_directory_holding(out)
    if run is not None:
        raise UserError(
            f"output directory {out}: {run} is a run directory; the demo never plays inside a run",
            subject="out",
        )
    return claim_free(out)


def claim_free(path: Path) -> Path:
    """Make and return `path`, or the first of `path-2`, `path-3`, … that could be made
    (nothing was there, not even a dangling link); its parents are made as needed. Every
    directory made is made durably (its parent fsynced)."""
    try:
        make_dirs(path.parent)
    except OSError as exc:
        raise UserError(
            f"output directory {path}: cannot make {path.parent} ({exc.strerror or exc})",
            subject="out",
        ) from None
    candidate, n = path, 1
    while True:
        try:
            make_new_dir(candidate)
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.name}-{n}")
            continue
        except OSError as exc:
            raise UserError(
                f"output directory {candidate}: cannot make it ({exc.strerror or exc})",
                subject="out",
            ) from None
        return candidate


def next_free(path: Path) -> Path:
    """`path`, or `path-2`, `path-3`, … whichever has nothing there yet (not even a
    dangling symbolic link)."""
    if not os.path.lexists(path):
        return path
    n = 2
    while os.path.lexists(path.with_name(f"{path.name}-{n}")):
        n += 1
    return path.with_name(f"{path.name}-{n}")
