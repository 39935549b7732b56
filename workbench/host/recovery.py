"""Start-up recovery of a host's runs directory after any stop, SIGKILL included.

Every command is journaled (fsynced) before its reply, and a run is created in
`RUNS/.staging/` and renamed into place only once it is whole. So after a kill:

- a run still in `.staging/` was never acknowledged: it is removed;
- a journal whose last line has no newline was cut inside an append that was never
  acknowledged: that partial line (and only it) is cut off, once the rest verifies;
- a seal that lags its journal (the kill fell between the two) is written again by a
  session that resumed the run, which itself checks the old seal's signature and chain;
- a temporary file of an atomic write the kill cut short (`.seal.json.*.tmp`) is removed.

Nothing acknowledged is ever dropped, and afterwards every run verifies. Each run is
repaired under its writer lock (`workbench.runs.repair`, as any writer opening a run
does), so a run another process is writing is left alone and reported busy.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from ledger.durable import fsync_dir
from ledger.journal import JournalError
from sim.campaign_load import CampaignBundle
from workbench.errors import WorkbenchError
from workbench.play.session import PlayerSession
from workbench.play.wire import RUN_ID_RE
from workbench.runs.files import RunPaths, SealError, journal_bytes, read_journal, read_seal
from workbench.runs.lock import RunLock, RunLocked
from workbench.runs.registration import ControlFile
from workbench.runs.repair import cut_torn_tail, remove_leftovers

STAGING: Final = ".staging"
"""Where runs are created before they are renamed into place."""
RECOVERY_COMMAND: Final = "workbench host (start-up recovery)"
"""How the run lock names the recovery while it repairs a run."""


@dataclass
class Recovery:
    """What start-up recovery did: runs found, repaired, resealed, or found damaged."""

    runs: list[str] = field(default_factory=list)
    discarded: list[str] = field(default_factory=list)
    cut_tails: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)
    resealed: list[str] = field(default_factory=list)
    busy: list[str] = field(default_factory=list)
    damaged: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """One line for the operator."""
        parts = [f"{len(self.runs)} run(s)"]
        if self.discarded:
            parts.append(f"{len(self.discarded)} unfinished creation(s) discarded")
        if self.cut_tails:
            parts.append(f"{len(self.cut_tails)} partial journal line(s) cut")
        if self.resealed:
            parts.append(f"{len(self.resealed)} resealed")
        if self.busy:
            parts.append(f"{len(self.busy)} being written by another process (left as they are)")
        if self.damaged:
            parts.append(f"{len(self.damaged)} damaged: " + ", ".join(sorted(self.damaged)))
        return "; ".join(parts)


def run_dirs(runs_dir: Path) -> list[Path]:
    """The run directories the host created, by name (run.json readable or not: a run
    whose run.json is damaged or gone is still some agent's episode). A symbolic link is
    never one: the host creates directories, and a link would serve a run that lives (and
    is written) elsewhere."""
    return sorted(
        p
        for p in runs_dir.iterdir()
        if RUN_ID_RE.fullmatch(p.name) and p.is_dir() and not p.is_symlink()
    )


def recover(runs_dir: Path, campaign: CampaignBundle, control: ControlFile) -> Recovery:
    """Bring every run in `runs_dir` to a sealed, verifiable state (see the module doc)."""
    report = Recovery()
    staging = runs_dir / STAGING
    if staging.exists():
        for leftover in sorted(staging.iterdir()):
            shutil.rmtree(leftover, ignore_errors=True)
            report.discarded.append(leftover.name)
        fsync_dir(staging)
    for run_dir in run_dirs(runs_dir):
        report.runs.append(run_dir.name)
        paths = RunPaths(run_dir)
        try:
            with RunLock.acquire(run_dir, RECOVERY_COMMAND):
                leftovers = remove_leftovers(paths)
                data = journal_bytes(paths)
                cut = cut_torn_tail(paths, data) is not data
            report.leftovers += [f"{run_dir.name}/{name}" for name in leftovers]
            if cut:
                report.cut_tails.append(run_dir.name)
            if _seal_lags(paths):
                with PlayerSession.resume(
                    run_dir, campaign, control=control, hosted=True
                ) as session:
                    session.seal()
                report.resealed.append(run_dir.name)
        except RunLocked:
            report.busy.append(run_dir.name)
        except (WorkbenchError, JournalError, SealError, OSError) as exc:
            report.damaged[run_dir.name] = str(exc)
    return report


def _seal_lags(paths: RunPaths) -> bool:
    """True when the seal does not seal the journal's last entry."""
    seal = read_seal(paths)
    if seal is None:
        return True
    entries = read_journal(paths).entries
    return not entries or seal.journal_head != entries[-1].hash
