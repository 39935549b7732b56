"""The Host names MCP accepts (workbench/host/mcp_hosts.py): the loopback names with or
without a port, the operator's `--allowed-host` names, 421 for anything else."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.host.mcp_hosts import allowed_host, host_names
from workbench.host.server import ServeOptions

from .conftest import ALPHA, Hosted, HostProcess, http_client
from .test_mcp_sessions import initialize, serving


def test_the_host_header_is_checked_on_loopback_with_or_without_a_port(hosted: Hosted) -> None:
    """DNS-rebinding protection stays on for a loopback host (a browser on this machine),
    and takes the loopback names with or without a port; `--allowed-host` adds a name."""
    alpha = hosted.tokens[ALPHA]
    assert host_names("0.0.0.0", ()) is None
    with serving(hosted, ServeOptions()) as url, http_client(base_url=url, timeout=30) as client:
        port = url.rsplit(":", 1)[1]
        for host in ("127.0.0.1", f"127.0.0.1:{port}", "localhost", f"localhost:{port}"):
            assert initialize(client, alpha, host).status_code == 200, host
        for host in ("evil.example", f"evil.example:{port}", "mcp.example.org", "127.0.0.2"):
            refused = initialize(client, alpha, host)
            assert refused.status_code == 421, host
    options = ServeOptions(allowed_hosts=("mcp.example.org", "other.example:8443"))
    with serving(hosted, options) as url, http_client(base_url=url, timeout=30) as client:
        for host in ("mcp.example.org", "mcp.example.org:443", "other.example:8443", "127.0.0.1"):
            assert initialize(client, alpha, host).status_code == 200, host
        for host in ("evil.example", "other.example", "other.example:443"):
            assert initialize(client, alpha, host).status_code == 421, host
        assert client.get("/health", headers={"Host": "evil.example"}).status_code == 200


def test_workbench_host_takes_allowed_host_names(hosted: Hosted, tmp_path: Path) -> None:
    extra = ("--allowed-host", "MCP.example.org", "--max-connections-per-address", "16")
    host = HostProcess(hosted, tmp_path / "host.log", extra).start()
    try:
        alpha = hosted.tokens[ALPHA]
        with http_client(base_url=host.url, timeout=30) as client:
            assert initialize(client, alpha, "mcp.example.org").status_code == 200
            assert initialize(client, alpha, "evil.example").status_code == 421
    finally:
        assert host.stop() == 0
    assert "Traceback" not in (tmp_path / "host.log").read_text()
    result = CliRunner().invoke(
        main,
        [
            "host",
            str(hosted.campaign),
            "--control",
            str(hosted.control_path),
            "--runs",
            str(tmp_path / "other-runs"),
            "--allowed-host",
            "https://mcp.example.org/",
        ],
    )
    assert result.exit_code == 2
    assert "--allowed-host" in result.output and "is a URL" in result.output
    assert not (tmp_path / "other-runs").exists()


@pytest.mark.parametrize(
    ("given", "spelled"),
    [
        ("MCP.Example.org", "mcp.example.org"),
        ("mcp.example.org:8443", "mcp.example.org:8443"),
        ("192.0.2.7", "192.0.2.7"),
        ("2001:DB8::7", "[2001:db8::7]"),
        ("[2001:db8::7]:8443", "[2001:db8::7]:8443"),
    ],
)
def test_an_allowed_host_is_spelled_as_a_host_header_spells_it(given: str, spelled: str) -> None:
    assert allowed_host(given) == spelled


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        ("https://mcp.example.org/", "is a URL"),
        ("*", "is not a host name"),
        ("a b", "is not a host name"),
        ("-a.example", "is not a host name"),
        ("[::1", "is not a host name"),
        ("mcp.example.org:", "has a port that is not 1 to 65535"),
        ("mcp.example.org:70000", "has a port that is not 1 to 65535"),
        ("x" * 5000, "is not a host name"),
    ],
)
def test_a_name_that_no_host_header_could_be_is_refused(given: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem) as refused:
        allowed_host(given)
    assert len(str(refused.value)) < 300


def test_off_loopback_names_turn_the_check_on() -> None:
    """Off loopback the SDK checks nothing; a name given turns the check on, with the
    loopback names and the listening address (a wildcard address is no name)."""
    assert host_names("0.0.0.0", ()) is None
    assert host_names("192.0.2.2", ()) is None
    names = host_names("192.0.2.2", ("mcp.example.org", "other.example:8443"))
    assert names is not None
    assert {"192.0.2.2", "192.0.2.2:*", "mcp.example.org", "mcp.example.org:*"} <= set(names)
    assert "other.example:8443" in names and "other.example:*" not in names
    assert {"127.0.0.1", "127.0.0.1:*", "[::1]", "localhost:*"} <= set(names)
    wildcard = host_names("0.0.0.0", ("mcp.example.org",))
    assert wildcard is not None and "0.0.0.0" not in wildcard
