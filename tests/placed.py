"""Test inputs: something that is not what a command expects, put where it looks."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from click.testing import Result


def place(kind: str, path: Path, elsewhere: Path) -> None:
    """Put a `kind` at `path`: a file, directory, named pipe, device (skipped unless root),
    symlink (to a file), dangling symlink or link to a directory; a link's target goes in
    the folder `elsewhere`."""
    if kind == "file":
        path.write_text("mine")
    elif kind == "directory":
        path.mkdir()
    elif kind == "named pipe":
        os.mkfifo(path)
    elif kind == "device":
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device needs root")
    elif kind == "symlink":
        target = elsewhere / f"{path.name}.target"
        target.write_text("mine")
        path.symlink_to(target)
    elif kind in ("dangling symlink", "dangling link"):
        path.symlink_to(elsewhere / f"{path.name}.nowhere")
    elif kind == "link to a directory":
        target = elsewhere / f"{path.name}.folder"
        target.mkdir()
        path.symlink_to(target)
    else:
        raise ValueError(f"no such kind to place: {kind}")


def one_error_line(result: Result, code: int = 2) -> str:
    """The one `Error:` line of a refused command: exit `code`, no traceback."""
    assert result.exit_code == code, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, result.output
    return errors[0]
