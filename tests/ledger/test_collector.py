"""The collector settings of a serving process, checked in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = """
import gc, json
from ledger.collector import FULL_COLLECTION_EVERY, settle_for_serving
before = gc.get_threshold()
settle_for_serving()
frozen = gc.get_freeze_count()
cycle = []
cycle.append(cycle)
del cycle
found = gc.collect()
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": frozen,
                  "found": found, "every": FULL_COLLECTION_EVERY}))
"""


def test_serving_freezes_start_up_and_still_collects_later_cycles() -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True
    ).stdout
    probe = json.loads(out)
    assert probe["frozen"] > 1000
    assert probe["after"][:2] == probe["before"][:2]
    assert probe["after"][2] == probe["every"] > probe["before"][2]
    assert probe["found"] >= 1
