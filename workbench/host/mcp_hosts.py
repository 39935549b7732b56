"""The Host names MCP accepts: the SDK's DNS-rebinding protection, and the operator's names.

The SDK turns the protection on for a server on a loopback address, taking the loopback
names with a port only (`Host: 127.0.0.1` was refused), and a TLS proxy that passes the
client's `Host` on (Caddy's default, nginx's `proxy_set_header Host $host`) got 421 for
every MCP request while the JSON API served it. Here the loopback names are taken with
or without a port, and the operator adds the public name (`workbench host
--allowed-host NAME`). Nothing here imports the SDK at import time.
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Final

from workbench.messages import clip

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

LOOPBACK_HOSTS: Final = ("127.0.0.1", "localhost", "::1")
"""Listening addresses the protection is on for without being asked."""
LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "[::1]")
WILDCARDS: Final = ("0.0.0.0", "::", "")
LABEL: Final = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
HOST_NAME: Final = re.compile(rf"(?=.{{1,253}}$){LABEL}(?:\.{LABEL})*")
"""A DNS name (letters, digits and hyphens; labels of 1-63, 253 in all)."""


def host_names(listen_host: str, allowed: tuple[str, ...]) -> tuple[str, ...] | None:
    """The Host header values MCP accepts, or None for any (no DNS-rebinding check).

    On a loopback address the check is on, as the SDK does it, for the loopback names with
    or without a port; `allowed` (the operator's `--allowed-host`, the name a TLS proxy
    passes on) adds names, and turns the check on off loopback too, where the listening
    address is accepted as well. A name without a port is accepted with any port.
    """
    if listen_host not in LOOPBACK_HOSTS and not allowed:
        return None
    names = list(LOOPBACK_NAMES)
    if listen_host not in LOOPBACK_HOSTS and listen_host not in WILDCARDS:
        names.append(bracketed(listen_host))
    names += [bracketed(name) for name in allowed]
    accepted: list[str] = []
    for name in dict.fromkeys(names):
        accepted.append(name)
        if not has_port(name):
            accepted.append(f"{name}:*")
    return tuple(accepted)


def allowed_host(text: str) -> str:
    """An operator's `--allowed-host` value as a Host header spells it, or ValueError.

    A DNS name or an IP address, with an optional port: `mcp.example.org`,
    `mcp.example.org:8443`, `192.0.2.7`, `[2001:db8::7]:8443` (an IPv6 address may be
    given bare).
    """
    name = text.strip().lower()
    port: str | None = None
    if "/" in name:
        raise ValueError(f"{clip(text)} is a URL: give the host name alone (with :PORT)")
    if name.startswith("["):
        inside, close, rest = name[1:].partition("]")
        if close and (not rest or rest.startswith(":")):
            name, port = inside, rest[1:] if rest else None
    elif name.count(":") == 1:
        name, port = name.split(":")
    try:
        spelled = bracketed(str(ipaddress.ip_address(name)))
    except ValueError:
        if not HOST_NAME.fullmatch(name):
            raise ValueError(
                f"{clip(text)} is not a host name: give a DNS name or an IP address, with an "
                "optional :PORT, as a client's Host header names the host"
            ) from None
        spelled = name
    if port is not None:
        if not (port.isdigit() and len(port) <= 5 and 0 < int(port) < 65536):
            raise ValueError(f"{clip(text)} has a port that is not 1 to 65535")
        spelled = f"{spelled}:{int(port)}"
    return spelled


def bracketed(name: str) -> str:
    """An IPv6 literal as a Host header spells it (`[::1]`); anything else as it is."""
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        return name.lower()
    return f"[{ip}]" if ip.version == 6 else str(ip)


def has_port(name: str) -> bool:
    """True when a Host value names a port (`name:8443`, `[::1]:8443`)."""
    return name.rpartition("]")[2].count(":") == 1


def transport_security(listen_host: str, allowed: tuple[str, ...]) -> TransportSecuritySettings:
    """The SDK's Host/Origin check for `host_names` (off when that is None)."""
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = host_names(listen_host, allowed)
    if hosts is None:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    origins = [f"{scheme}://{host}" for scheme in ("http", "https") for host in hosts]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=list(hosts),
        allowed_origins=origins,
    )
