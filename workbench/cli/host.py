"""`workbench host`: serve a private campaign to registered agents over HTTP and MCP."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from workbench.cli.options import DIR, FILE, Whole, control_file
from workbench.messages import printed


@click.command()
@click.argument("campaign", type=DIR)
@click.option("--control", required=True, type=FILE, help="The campaign's control file.")
@click.option(
    "--runs",
    "runs_dir",
    required=True,
    type=DIR,
    help="Runs directory the host owns (created when missing).",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--port", default=8700, show_default=True, type=click.IntRange(0, 65535), help="0: any free."
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME[:PORT]",
    help="A Host name MCP accepts besides the loopback ones (the name a TLS proxy passes "
    "on); repeatable.",
)
@click.option(
    "--max-connections-per-address",
    "per_address",
    type=Whole(0, 1_000_000),
    default=64,
    show_default=True,
    help="Connections one client address may hold (0: no cap). Loopback clients (this "
    "machine's agents, or a TLS proxy on it) are not capped.",
)
@click.option("--stdio", is_flag=True, help="Serve MCP over stdin/stdout for one local agent.")
@click.option("--agent", "agent_id", help="With --stdio: the registered agent served.")
def host(
    campaign: Path,
    control: Path,
    runs_dir: Path,
    host: str,
    port: int,
    allowed_hosts: tuple[str, ...],
    per_address: int,
    stdio: bool,
    agent_id: str | None,
) -> None:
    """Serve the private CAMPAIGN: each agent plays its own runs with its bearer token.

    HTTP: a JSON API under /v1 and MCP (streamable HTTP) at /mcp, both taking
    `Authorization: Bearer TOKEN` (tokens come from `workbench control new`). The host
    keeps the control file and every run directory; agents see only the public view of
    their own runs. Validate finished runs offline with `workbench validate
    counterfactual RUNS --control FILE --agent ID --out OUT`.
    """
    from workbench.errors import UserError
    from workbench.host.binding import bind as bind_runs
    from workbench.host.binding import check_binding
    from workbench.host.connections import ConnectionLimits
    from workbench.host.descriptors import raise_descriptor_limit
    from workbench.host.errors import HostError
    from workbench.host.listen import bind, listen_refused, loopback_only
    from workbench.host.mcp_hosts import allowed_host
    from workbench.host.runtime import HostRuntime
    from workbench.host.server import ServeOptions, serve_http, serve_stdio
    from workbench.messages import clip

    configure_logging()
    try:
        names = tuple(allowed_host(name) for name in allowed_hosts)
    except ValueError as exc:
        raise UserError(f"--allowed-host: {exc}") from None
    options = ServeOptions(
        connections=ConnectionLimits(per_address=per_address), allowed_hosts=names
    )
    if stdio and agent_id is None:
        raise UserError("--stdio serves one local agent: name it with --agent ID")
    if agent_id is not None and not stdio:
        raise UserError("--agent goes with --stdio; over HTTP each agent brings its token")
    document = control_file(control)
    assert document is not None
    if stdio and agent_id not in document.agents:
        raise UserError(
            f"agent {clip(agent_id)} is not registered in the control file", subject="agent"
        )
    if not stdio:
        short = raise_descriptor_limit(options.connections.max_connections)
        if short is not None:
            click.echo(short, err=True)
    check_binding(document.commitment(), runs_dir)
    runtime = HostRuntime(campaign, document, runs_dir)
    runtime.check_runs_dir()
    sock = None
    if not stdio:
        try:
            sock = bind(host, port)
        except OSError as exc:
            raise UserError(listen_refused(host, port, exc), subject="port") from None
    try:
        recovery = runtime.open()
    except BaseException:
        if sock is not None:
            sock.close()
        raise
    try:
        bind_runs(document.commitment(), runs_dir)
    except BaseException:
        runtime.close_refused()
        if sock is not None:
            sock.close()
        raise
    say = f"{printed(runs_dir)}: {recovery.summary()}"
    click.echo(say, err=True)
    try:
        if stdio:
            assert agent_id is not None
            try:
                serve_stdio(runtime, agent_id)
            except HostError as exc:
                raise UserError(exc.message) from None
            return

        def ready(url: str) -> None:
            if not loopback_only(host):
                click.echo(
                    f"warning: listening on {host} over plain HTTP: bearer tokens cross the "
                    "network in clear; put a TLS proxy in front",
                    err=True,
                )
            click.echo(
                f"hosting {runtime.bundle.id} for {len(document.agents)} agent(s) at {url} "
                f"(JSON API {url}/v1, MCP {url}/mcp); Ctrl-C stops",
                err=True,
            )
            sys.stderr.flush()

        assert sock is not None
        serve_http(runtime, host, sock, ready, options)
        runtime.close()
        click.echo("host stopped; every run is sealed", err=True)
    finally:
        runtime.close()


def configure_logging() -> None:
    """The host's log on standard error, one plain line per record, set before anything
    else: the MCP SDK installs a Rich handler on the root logger when its app is first
    built, unless one is already there (the log changed format at the first MCP request,
    boxing each record in 80 columns). Episodes starting and finishing are logged (INFO);
    the SDK's own per-request INFO lines are not."""
    import logging

    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    logging.getLogger("workbench.host").setLevel(logging.INFO)
