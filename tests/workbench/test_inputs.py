"""Bounded reads: limits hold for regular files, devices, directories and missing paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.errors import UserError
from workbench.inputs import read_bounded


def test_reads_a_file_within_its_limit(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 100)
    assert read_bounded(path, "submission", limit=100) == b"x" * 100


def test_one_byte_over_the_limit_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(b"x" * 101)
    with pytest.raises(UserError, match="larger than its limit of 100 bytes"):
        read_bounded(path, "submission", limit=100)


def test_an_unbounded_device_is_refused_without_reading_it_all() -> None:
    with pytest.raises(UserError, match="control file is larger than its limit of 64 KiB"):
        read_bounded("/dev/zero", "control file")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_missing_and_directory_paths_name_the_input(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "nope" if kind == "missing" else tmp_path
    with pytest.raises(UserError, match=f"{path}: script"):
        read_bounded(path, "script")
