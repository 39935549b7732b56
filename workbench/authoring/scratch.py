"""Scratch folders of the author tools, kept out of their messages.

`check` plays a campaign's reference script into a temporary run and `new` writes a
campaign beside its target before renaming it into place. Neither folder is anything the
user named, so a message never shows it: it names what the user knows instead (the
reference play, the campaign folder being created).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypeVar

from workbench.errors import WorkbenchError

_Error = TypeVar("_Error", bound=WorkbenchError)


def scratch_forms(scratch: Path) -> list[str]:
    """Every spelling of `scratch` a message may hold, longest first (as given, resolved)."""
    return sorted({str(scratch), str(scratch.resolve())}, key=len, reverse=True)


def renamed(text: str, scratch: Path, name: str, keep_under: bool = False) -> str:
    """`text` with every mention of `scratch`, or of a path under it, replaced by `name`;
    with `keep_under` a path under it keeps its tail (`scratch/x.toml` → `name/x.toml`)."""
    for form in scratch_forms(scratch):
        pattern = re.escape(form) + r"([/\\][^\s:'\"]*)?(?![^\s:'\"])"
        text = re.sub(pattern, lambda m: name + ((m.group(1) or "") if keep_under else ""), text)
    return text


def without_scratch(error: _Error, scratch: Path, name: str) -> _Error:
    """`error` with every mention of `scratch` replaced by `name`; same type and exit code."""
    error.lines = tuple(renamed(line, scratch, name) for line in error.lines)
    error.args = (error.message,)
    return error
