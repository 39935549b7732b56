"""What a run's results depend on beyond its journal: the engine, numpy and bit generator.

A journal header records them. A run made under other values cannot be replayed into
the results it recorded here; that is a difference of installations, not a change of the
run, so when the run's own seal vouches for its header it is named as such (install what
made it), and only an unvouched header counts as an integrity finding.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

import numpy as np

from sim.version import BIT_GENERATOR, ENGINE_VERSION
from workbench.messages import clip

_WHAT: Final = {
    "engine_version": "engine",
    "numpy_version": "numpy",
    "bit_generator": "bit generator",
}
"""Each environment field of the header, by the name a message gives it."""

_VERSION: Final = re.compile(r"[0-9]+(\.[0-9]+){1,3}([a-z]+[0-9]+)?")
"""A release version as numpy numbers them (2.4.6, 2.5.0rc1): safe to print in a command."""


def environment_payload() -> dict[str, str]:
    """The environment fields this workbench writes into a journal header."""
    return {
        "engine_version": ENGINE_VERSION,
        "numpy_version": np.__version__,
        "bit_generator": BIT_GENERATOR,
    }


def environment_mismatch(header: Mapping[str, Any]) -> str | None:
    """How the environment recorded in a header payload differs from this one, or None.

    For instance `was made with numpy '2.3.0'; this workbench has numpy '2.4.6'`.
    """
    for key, ours in environment_payload().items():
        theirs = header.get(key)
        if theirs != ours:
            what = _WHAT[key]
            return f"was made with {what} {clip(theirs)}; this workbench has {what} {clip(ours)}"
    return None


def how_to_replay(header: Mapping[str, Any]) -> str:
    """What a user needs to replay a run whose header differs from this environment."""
    theirs = header.get("numpy_version")
    if (
        header.get("engine_version") == ENGINE_VERSION
        and header.get("bit_generator") == BIT_GENERATOR
        and isinstance(theirs, str)
        and _VERSION.fullmatch(theirs)
    ):
        return f"replay it where numpy {theirs} is installed (pip install 'numpy=={theirs}')"
    return "replay it with the workbench release that made it"
