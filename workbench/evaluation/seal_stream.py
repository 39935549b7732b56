"""The seals file of one evaluation: every branch seal, one canonical line each, gzip.

Each pair's seals go into one gzip stream as the pair comes (compressed in memory,
written through a buffered file as the compressor fills, finished at the end), so the
evaluator creates one file per report, not one per branch, and makes no system call
per pair. The bytes are a pure function of the seals, so the file is the same for any
executor or worker count; it is made durable with the files that name it.
"""

from __future__ import annotations

import contextlib
import hashlib
import zlib
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from ledger.durable import start_writeback
from workbench.errors import UserError


class SealStream:
    """Append-only writer of the seals file; `finish` returns its SHA-256 (None if empty)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._handle: BinaryIO | None = None
        self._packer = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        self._sha256 = hashlib.sha256()

    def append(self, lines: bytes) -> None:
        """Compress and write one pair's seal lines; a failure is a UserError naming the file."""
        self._write(self._packer.compress(lines))

    def finish(self) -> str | None:
        """End the gzip stream and close the file; its SHA-256 (None: no seal was appended).

        Written and its writeback started (the disk works while the report is built), not
        yet durable: the caller fsyncs it with the files that name it
        (`atomic_write_all(..., written=[path])`), before any of them is renamed into place.
        """
        if self._handle is None:
            return None
        self._write(self._packer.flush(zlib.Z_FINISH))
        handle, self._handle = self._handle, None
        try:
            handle.flush()
            start_writeback(handle.fileno())
            handle.close()
        except OSError as exc:
            raise self._error(exc) from None
        return self._sha256.hexdigest()

    def close(self) -> None:
        """Abandon the file as it is (after a failure: no report will name it)."""
        if self._handle is not None:
            handle, self._handle = self._handle, None
            with contextlib.suppress(OSError):
                handle.close()

    def _write(self, chunk: bytes) -> None:
        try:
            if self._handle is None:
                self._handle = open(self.path, "xb")  # noqa: SIM115 - closed by finish/close
            self._handle.write(chunk)
        except OSError as exc:
            raise self._error(exc) from None
        self._sha256.update(chunk)

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
