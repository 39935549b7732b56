"""The causal-gym generator version: bump it whenever a (key, split, family, id) makes a new task.

Version 2 (issue 15): structural nulls keep their mediators' link to the outcome through an
unobserved source, mediators are linear, and adjustment tasks may carry an M-bias or proxy
column. The frozen split, the manifest and the audit report all record this number, so
tasks of different versions are never mixed.
"""

from __future__ import annotations

from typing import Final

GENERATOR_VERSION: Final[int] = 2
RETIRED_SPLITS: Final[dict[str, int]] = {"eval-v1": 1}
"""Frozen splits of earlier generator versions, which this version cannot reproduce."""
