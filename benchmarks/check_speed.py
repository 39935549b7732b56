"""Author check speed: `workbench check --seeds 20` on the default campaign (target < 30 s).

The reference measured in the same run is `check --seeds 0` (the campaign's own seed
only): the ratio shows what each extra seed costs. Also times the 364-day second campaign.
"""

from __future__ import annotations

import time

from campaigns import DEFAULT_CAMPAIGN
from workbench.authoring.check import check_campaign

TARGET_SECONDS = 30.0


def timed(campaign: str, seeds: int) -> tuple[float, int]:
    """Seconds for one check, and how many branch pairs it ran."""
    start = time.perf_counter()
    report = check_campaign(campaign, seeds=seeds)
    seconds = time.perf_counter() - start
    return seconds, len(report.spreads) * (seeds + 1)


def main() -> None:
    timed(str(DEFAULT_CAMPAIGN), 0)
    base, base_pairs = timed(str(DEFAULT_CAMPAIGN), 0)
    full, pairs = timed(str(DEFAULT_CAMPAIGN), 20)
    gelato, gelato_pairs = timed("gelato", 20)
    print(f"check default --seeds 0:  {base:6.2f} s ({base_pairs} branch pairs)")
    print(
        f"check default --seeds 20: {full:6.2f} s ({pairs} branch pairs, "
        f"{pairs / full:,.0f} pairs/s, {full / base:.1f}x the single-seed check) "
        f"target < {TARGET_SECONDS:.0f} s: {'met' if full < TARGET_SECONDS else 'MISSED'}"
    )
    print(f"check gelato  --seeds 20: {gelato:6.2f} s ({gelato_pairs} branch pairs, 364 days)")


if __name__ == "__main__":
    main()
