"""The seals file of one evaluation: every branch seal, one canonical line each, gzip.

Each pair's seal lines are kept as the pair comes and compressed in one pass when the
evaluation finishes, so the evaluator creates one file per report, not one per branch,
and makes no system call per pair. Compressing pair by pair cost 50-100 µs a pair
(about 3% of an evaluation): between pairs the branch simulation evicts the compressor's
few hundred kilobytes of tables from the processor's caches, where one pass over every
line takes about 2 µs a pair. The lines are bounded by the campaign's questions (two
seals of under 1 KB each a question). The bytes are a pure function of the seals (gzip of
their concatenation, the same in one pass as in many), so the file is the same for any
executor or worker count; it is made durable with the files that name it.
"""

from __future__ import annotations

import hashlib
import zlib
from pathlib import Path
from types import TracebackType

from ledger.durable import start_writeback
from workbench.errors import UserError

LEVEL = 6
"""zlib's compression level of the seals file (its bytes are named in every report)."""


class SealStream:
    """Append-only writer of the seals file; `finish` returns its SHA-256 (None if empty)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lines: list[bytes] = []

    def append(self, lines: bytes) -> None:
        """Keep one pair's seal lines for the file (written by `finish`)."""
        self._lines.append(lines)

    def finish(self) -> str | None:
        """Write the file (gzip of every appended line, in order) and its SHA-256.

        None, and no file, when no seal was appended. Written and its writeback started
        (the disk works while the report is built), not yet durable: the caller fsyncs it
        with the files that name it (`atomic_write_all(..., written=[path])`), before any
        of them is renamed into place. A failure is a UserError naming the file.
        """
        if not self._lines:
            return None
        packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        data = packer.compress(b"".join(self._lines)) + packer.flush(zlib.Z_FINISH)
        self._lines = []
        try:
            with open(self.path, "xb") as handle:
                handle.write(data)
                handle.flush()
                start_writeback(handle.fileno())
        except OSError as exc:
            raise self._error(exc) from None
        return hashlib.sha256(data).hexdigest()

    def close(self) -> None:
        """Drop what was kept (after a failure: no report will name a seals file)."""
        self._lines = []

    def _error(self, exc: OSError) -> UserError:
        return UserError(
            f"seals file {self.path}: cannot write ({exc.strerror or exc}); no report was written"
        )

    def __enter__(self) -> SealStream:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
