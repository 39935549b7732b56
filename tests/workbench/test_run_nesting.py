"""A new run is never made inside another run's directory, at any depth or through a link.

`workbench run --out RUN/sub` played a whole second run inside RUN (and `play --run`,
`serve --run` would have too), though a run directory holds only its own files: every
export and the demo already refused to write there.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.placed import one_error_line
from workbench.cli import main
from workbench.errors import UserError
from workbench.play.session import PlayerSession


@pytest.fixture(scope="module")
def outer(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the default campaign."""
    run = tmp_path_factory.mktemp("nest") / "outer"
    result = CliRunner().invoke(main, ["run", "--out", str(run)])
    assert result.exit_code == 0, result.output
    return run


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture(params=["child", "grandchild", "through a link", "absolute"])
def inside(request: pytest.FixtureRequest, outer: Path) -> Iterator[Path]:
    """A path inside the run `outer`, spelled one of several ways; nothing made there."""
    link = outer.parent / "link-to-outer"
    spelled = {
        "child": outer / "sub",
        "grandchild": outer / "a" / "b",
        "through a link": link / "sub",
        "absolute": Path(os.path.abspath(outer)) / "sub",
    }[request.param]
    if request.param == "through a link":
        link.symlink_to(outer)
    before = _tree(outer)
    yield spelled
    assert _tree(outer) == before
    if link.is_symlink():
        link.unlink()


def test_run_out_inside_a_run_is_refused(inside: Path, outer: Path) -> None:
    line = one_error_line(CliRunner().invoke(main, ["run", "--out", str(inside)]))
    assert str(inside) in line and "is a run directory" in line


def test_serve_run_inside_a_run_is_refused(inside: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = str(busy.getsockname()[1])
        result = CliRunner().invoke(main, ["serve", "--run", str(inside), "--port", port])
    line = one_error_line(result)
    assert "is a run directory" in line and "cannot listen" not in line


def test_a_session_is_not_created_inside_a_run(inside: Path) -> None:
    with pytest.raises(UserError, match="is a run directory"):
        PlayerSession.create(inside, autoseal=True)


def test_a_run_beside_a_run_is_made(outer: Path) -> None:
    beside = outer.parent / "beside"
    result = CliRunner().invoke(main, ["run", "--out", str(beside)])
    assert result.exit_code == 0, result.output


def test_new_runs_are_not_claimed_inside_a_run(
    outer: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`play` or `serve` started inside a run directory left an empty `runs/play-N` in it
    (each browser session one) before the run's creation was refused."""
    from workbench.cli.play import next_run_dir

    before = _tree(outer)
    monkeypatch.chdir(outer)
    with pytest.raises(UserError, match="is a run directory"):
        next_run_dir()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = str(busy.getsockname()[1])
        line = one_error_line(CliRunner().invoke(main, ["serve", "--port", port]))
    assert "is a run directory" in line and "cannot listen" not in line
    assert _tree(outer) == before
