"""Play latency: one autosealed 1-day advance late in a long run vs early in it.

Two runs of the default campaign stretched to a 3,200-day horizon: one at day 10, one
advanced to day 3,000. They then take turns doing 1-day advances (journal append, day,
seal written), so machine noise hits both alike. Prints the median latency of each
and their ratio; a flat cost per command gives a ratio near 1.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from campaigns import DEFAULT_CAMPAIGN
from workbench.play.session import PlayerSession

HORIZON = 3200
EARLY, LATE = 10, 3000
ADVANCES = 150


def long_campaign(folder: Path) -> Path:
    """A copy of the default campaign with a 3,200-day horizon."""
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    toml = folder / "campaign.toml"
    text, count = re.subn(
        r"(?m)^horizon_days = \d+$", f"horizon_days = {HORIZON}", toml.read_text()
    )
    if count != 1:
        raise SystemExit("the default campaign has no horizon_days line to stretch")
    toml.write_text(text)
    return folder


def session_at(root: Path, campaign: Path, day: int) -> PlayerSession:
    """An autosealing session advanced to `day`."""
    session = PlayerSession.create(root, campaign, autoseal=True)
    session.schedule("bank_loan")
    session.advance(day - session.day)
    return session


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        campaign = long_campaign(root / "campaign")
        early = session_at(root / "early", campaign, EARLY)
        late = session_at(root / "late", campaign, LATE)
        timings: dict[str, list[float]] = {"early": [], "late": []}
        for _ in range(ADVANCES):
            for name, session in (("early", early), ("late", late)):
                start = time.perf_counter()
                session.advance(1)
                timings[name].append(time.perf_counter() - start)
        early_ms = statistics.median(timings["early"]) * 1000
        late_ms = statistics.median(timings["late"]) * 1000
        print(
            f"autosealed 1-day advance, median of {ADVANCES}: day {EARLY} {early_ms:.2f} ms, "
            f"day {LATE} {late_ms:.2f} ms, ratio {late_ms / early_ms:.2f}x (target <= 1.2x)"
        )


if __name__ == "__main__":
    main()
