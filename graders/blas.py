"""One OpenBLAS kernel family on every x86-64 machine, so fitted floats agree to the last bit.

OpenBLAS picks its kernels by CPU when it loads: on a CPU with AVX-512 it runs its
SkylakeX kernels, whose sums round differently from the Haswell kernels an AVX2-only CPU
runs. The causal-gym reference fits then differ by about 1e-14, and the committed audit
report is no longer reproduced byte for byte. `pin_kernels` asks for the Haswell kernels
(any CPU with AVX2 and FMA runs them) through `OPENBLAS_CORETYPE`, which OpenBLAS reads
once, when numpy first loads it: it must run before numpy is imported, so the `graders`
and `workbench` packages call it on import, and child processes inherit it. A process
that loaded numpy first (a `dask worker` does) keeps what it chose; `kernels()` says what
that is, so a worker that differs from its client can refuse rather than differ.
"""

from __future__ import annotations

import functools
import os
import sys
from pathlib import Path
from typing import Final

PINNED: Final = "Haswell"
"""The kernel family asked for: OpenBLAS's AVX2 kernels, which the committed figures use."""

_NEEDS: Final = frozenset({"avx2", "fma"})
"""CPU flags the pinned kernels execute (they would fault on a CPU without them)."""

VARIABLE: Final = "OPENBLAS_CORETYPE"


def _cpu_flags() -> frozenset[str]:
    """An x86 CPU's feature flags as Linux lists them (empty elsewhere: no pin is asked)."""
    try:
        with open("/proc/cpuinfo", "rb") as cpuinfo:
            for line in cpuinfo:
                if line.startswith(b"flags"):
                    return frozenset(line.partition(b":")[2].decode("ascii", "replace").split())
    except OSError:
        pass
    return frozenset()


def pin_kernels() -> None:
    """Ask OpenBLAS for the pinned kernels, if it is not loaded yet and the CPU runs them.

    A choice already in the environment is the user's and is kept.
    """
    if VARIABLE in os.environ or "numpy" in sys.modules:
        return
    if not _cpu_flags() >= _NEEDS:
        return
    os.environ[VARIABLE] = PINNED


def kernels() -> str:
    """The kernel family of numpy's OpenBLAS in this process (`none` before numpy loads it).

    numpy's is the library the reference fits use (statsmodels' OLS solves through
    `numpy.linalg`); scipy's, when loaded, reads the same variable and CPU.
    """
    if "numpy" not in sys.modules:
        return "none"
    return _numpy_kernels()


@functools.cache
def _numpy_kernels() -> str:
    from threadpoolctl import threadpool_info

    libraries = [lib for lib in threadpool_info() if lib["user_api"] == "blas"]
    own = [lib for lib in libraries if Path(lib["filepath"]).parent.name.startswith("numpy")]
    found = sorted(
        {str(lib.get("architecture") or lib["internal_api"]) for lib in own or libraries}
    )
    return "+".join(found) or "unknown"
