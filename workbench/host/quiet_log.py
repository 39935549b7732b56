"""Warnings a client can cause, at most one line a minute per message.

uvicorn warns once per unparsable request or refused upgrade, and the MCP SDK once per
refused Host header or session: anyone could fill the host's log with them. A
`RepeatFilter` on those loggers passes each message once a minute and says, on the next
one it passes, how many it held back. Errors, tracebacks included, always pass.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Final

INTERVAL: Final = 60.0
"""Seconds between two lines of one message."""
MAX_KEYS: Final = 64
"""Messages told apart; any more share one count (a message that names its value, such
as the SDK's `Invalid Host header: NAME`, is a new message for each value)."""


class RepeatFilter(logging.Filter):
    """Pass a WARNING at most once an `interval` per message; the next one passed says
    how many were held back. Errors and everything else pass."""

    def __init__(self, interval: float = INTERVAL) -> None:
        super().__init__()
        self.interval = interval
        self.seen: dict[str, tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.WARNING:
            return True
        key = str(record.msg)
        if key not in self.seen and len(self.seen) >= MAX_KEYS:
            key = "*"
        now = time.monotonic()
        last, held = self.seen.get(key, (-math.inf, 0))
        if now - last < self.interval:
            self.seen[key] = (last, held + 1)
            return False
        self.seen[key] = (now, 0)
        if held:
            record.msg = f"{record.msg} ({held} more like it in the last {self.interval:g} s)"
        return True


def thin(*names: str) -> None:
    """Put one `RepeatFilter` on each named logger (once per process)."""
    for name in names:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RepeatFilter) for f in logger.filters):
            logger.addFilter(RepeatFilter())
