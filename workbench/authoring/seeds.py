"""Which other seeds `workbench check` runs every question on, and how many by default.

The CLI (`--seeds`), the author app's Check screen and `check_campaign` share these, so
every way of running the check runs the same one. The module imports nothing heavy: the
CLI reads the default and the bound when it declares `--seeds`.

The other seeds are one fixed sequence, the same for every campaign: seed i is the first
63 bits of SHA-256(`cfwb-check-seed/2`, i), skipping the campaign's own seed. They are
keyed by nothing a campaign holds (its id, title, comments or digest), so a copy under a
new name is checked on the same worlds as its original, and an author cannot draw other
worlds by renaming or rewording a campaign: only what is simulated, and the campaign's
own seed, decide what `check` finds.
"""

from __future__ import annotations

import hashlib

DEFAULT_SEEDS = 10
"""Other seeds a check runs unless told otherwise: `--seeds`' default and the screen's."""
MAX_SEEDS = 1000
"""The most other seeds one check runs."""
STRICT_SEEDS = DEFAULT_SEEDS
"""The fewest other seeds the strict gate (`check --strict`, the admission gate) runs on.

The gate's `spread` and `scale` findings judge each effect against its spread over other
seeds: with none they are skipped, with a few they rest on a standard deviation of two or
three draws and a "fails on most seeds" of one failure. Every bundled campaign is admitted
at `DEFAULT_SEEDS`, so the gate is defined there: a check on fewer seeds can be a quick
look, never the gate's verdict (more seeds only add evidence)."""
SEED_DOMAIN = b"cfwb-check-seed/2\x00"
"""Keys the fixed sequence (version 1 also hashed the campaign id, so a renamed copy of a
campaign was checked on other worlds than its original)."""


def other_seeds(count: int, seed: int) -> list[int]:
    """The first `count` seeds of the fixed sequence that differ from the campaign's `seed`."""
    seeds: list[int] = []
    index = 0
    while len(seeds) < count:
        material = SEED_DOMAIN + str(index).encode()
        candidate = int.from_bytes(hashlib.sha256(material).digest()[:8], "big") >> 1
        index += 1
        if candidate != seed:
            seeds.append(candidate)
    return seeds
