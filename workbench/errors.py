"""User-facing errors: a clear message, a distinct exit code, never a traceback."""

from __future__ import annotations

import click

from workbench import exit_codes


class UserError(click.ClickException):
    """Bad input or usage (a wrong flag, a malformed file): exits with `exit_codes.USAGE`."""

    exit_code = exit_codes.USAGE


class IntegrityError(click.ClickException):
    """A run failed verification: exits with `exit_codes.INTEGRITY`."""

    exit_code = exit_codes.INTEGRITY
