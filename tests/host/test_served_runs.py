"""A run in the runs directory of a host that is serving it is written by that host only.

Before, `workbench finish RUN` (or `run --out RUN`) succeeded on a hosted run whenever the
host had no session open for it (right after a restart, or once the session went idle),
behind the back of the host that keeps the runs' state; readers are still free."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tests.placed import one_error_line
from workbench.cli import main
from workbench.play.wire import API_PREFIX

from .conftest import ALPHA, BRAVO, Live


def cli(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result.exit_code, result.output


def test_a_served_run_takes_commands_through_its_host_only(live: Live, tmp_path: Path) -> None:
    with live.client(ALPHA) as client:
        run_id = client.post(f"{API_PREFIX}/runs", json={"command_id": "s"}).json()["run"]["run_id"]
    root = live.hosted.runs / run_id
    control = ("--control", live.hosted.control_path)
    refused = CliRunner().invoke(main, ["finish", str(root), *control])
    assert "which a host is serving (pid" in one_error_line(refused)
    link = tmp_path / "elsewhere"
    link.symlink_to(root)
    through_a_link = CliRunner().invoke(main, ["finish", str(link), *control])
    assert "which a host is serving (pid" in one_error_line(through_a_link)
    new = live.hosted.runs / "mine"
    created = CliRunner().invoke(
        main,
        ["run", str(live.hosted.campaign), "--out", str(new), *map(str, control), "--agent", BRAVO],
    )
    assert "which a host is serving" in one_error_line(created) and not new.exists()
    code, _ = cli("verify", root, *control)
    assert code == 0  # a reader is free
    live.runtime.close()
    code, output = cli("finish", root, *control)
    assert code == 0, output


def test_a_linked_run_directory_is_never_one_of_the_hosts(tmp_path: Path) -> None:
    """A `run-<hex>` link in a runs directory would serve a run that lives, and is written,
    elsewhere: the host's runs are the directories it created."""
    from workbench.host.recovery import run_dirs

    runs = tmp_path / "runs"
    (runs / ("run-" + "a" * 32)).mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (runs / ("run-" + "b" * 32)).symlink_to(tmp_path / "elsewhere")
    assert [p.name for p in run_dirs(runs)] == ["run-" + "a" * 32]
