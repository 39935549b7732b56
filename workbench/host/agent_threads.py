"""Worker threads per agent: one agent's requests never hold every thread the host has.

A request's blocking work runs in one of the event loop's worker threads (40 in all).
An agent's requests mostly wait on its run's lock, one at a time, so an agent sending
forty at once (a client retrying in a loop, or a hostile one) held every thread while
they queued on that lock, and every other agent's requests waited behind them. Here an
agent's requests queue on the event loop for its own few slots before taking a thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import anyio
import anyio.to_thread

T = TypeVar("T")

THREADS_PER_AGENT = 4
"""Worker threads one agent's requests may hold at once: more than its run's lock lets
work (so one request's hand-over never waits for a thread), a tenth of the whole pool."""


class AgentThreads:
    """Runs an agent's blocking work in a worker thread, at most `per_agent` at once."""

    def __init__(self, per_agent: int = THREADS_PER_AGENT) -> None:
        self.per_agent = per_agent
        self._slots: dict[str, anyio.CapacityLimiter] = {}

    async def run(self, agent: str, work: Callable[[], T]) -> T:
        """`work()` in a worker thread once one of `agent`'s slots is free (the caller is
        an authenticated agent, so there are at most as many slot sets as agents)."""
        slots = self._slots.get(agent)
        if slots is None:
            slots = self._slots.setdefault(agent, anyio.CapacityLimiter(self.per_agent))
        async with slots:
            return await anyio.to_thread.run_sync(work)
