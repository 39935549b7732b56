"""The dashboard needs a terminal: without one it is refused in one line, never left spinning.

Started with standard input at end of file (`</dev/null`, a service, a script's child)
Textual's input reader found input ready for ever and the app took a whole core until
killed; with standard output a file, its screen went there as escape codes. A browser
session of `workbench serve` runs the app with textual-serve's driver (named by
`TEXTUAL_DRIVER`), which needs no terminal.
"""

from __future__ import annotations

import os
import sys

from workbench.errors import UserError


def has_terminal() -> bool:
    """True when the app can run here: standard input and output are terminals, or a
    Textual driver that needs none was chosen (`TEXTUAL_DRIVER`)."""
    if os.environ.get("TEXTUAL_DRIVER"):
        return True
    return sys.stdin.isatty() and sys.stdout.isatty()


def require_terminal(command: str, instead: str) -> None:
    """Refuse `workbench COMMAND` without a terminal, saying what to use `instead`."""
    if not has_terminal():
        raise UserError(
            f"workbench {command} is an app for a terminal, and standard input and output "
            f"are not both one; {instead}"
        )
