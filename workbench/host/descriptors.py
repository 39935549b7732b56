"""The host's open-file limit: enough descriptors for every connection it admits.

The host admits up to `ConnectionLimits.max_connections` connections (1,024), each a
descriptor, beside its runs' files, the MCP sessions' streams and its logs. Under the
common soft limit of 1,024 open files, the connections alone used them up: a run opened
then failed with "Too many open files" (answered `storage_failed`, but every agent was
refused until connections closed). The soft limit is the process's to raise up to the
hard limit, as servers do at start.
"""

from __future__ import annotations

import resource
from typing import Final

SPARE: Final = 1024
"""Descriptors wanted beyond one per admitted connection: runs' journals and locks,
SQLite, MCP streams, logs, the listening socket."""


def raise_descriptor_limit(connections: int) -> str | None:
    """Raise the soft open-file limit to what `connections` connections and `SPARE` need
    (never past the hard limit, never lowered); a one-line warning when the hard limit
    keeps it short, else None."""
    wanted = connections + SPARE
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return None
    reachable = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if reachable > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (reachable, hard))
    if reachable >= wanted:
        return None
    return (
        f"warning: this process may open {reachable} files (its hard limit), fewer than the "
        f"{wanted} that {connections} connections and the runs' files may need: when they "
        "run out, requests are refused with storage_failed until connections close (raise "
        "the hard limit: `ulimit -Hn`)"
    )
