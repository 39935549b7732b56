"""The fuzzing harness: run the real `workbench` CLI and hold every case to the same rules.

For every case: the exit code is one of the documented ones (0, 1, 2, 3), nothing escapes
as a traceback, and every watched directory (results, run directories) is byte-for-byte
unchanged unless the command succeeded. A tally of cases, exit codes and tracebacks is
kept for the end-of-session summary (`make fuzz`).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from click.testing import CliRunner, Result
from hypothesis import HealthCheck, settings

from workbench.cli import main

DOCUMENTED_EXIT_CODES = frozenset({0, 1, 2, 3})

QUICK_CASES = 300
FULL_CASES = 10_000
SHARES: dict[str, float] = {
    "scripts": 0.16,
    "submissions": 0.14,
    "control files": 0.10,
    "seals": 0.14,
    "run files": 0.08,
    "vc grade": 0.12,
    "causal score": 0.08,
    "campaigns": 0.12,
    "reports": 0.06,
}
"""Each target's share of the cases (they sum to 1)."""

TALLY: Counter[str] = Counter()
EXIT_CODES: Counter[int] = Counter()
TARGETS: Counter[str] = Counter()


FULL = os.environ.get("CFWB_FUZZ") == "full"
"""`make fuzz`: the full profile (10,000 CLI cases; the host's mutation tests scaled up)."""


def total_cases() -> int:
    """Cases this session: CFWB_FUZZ_CASES, or the profile's (CFWB_FUZZ=full: 10,000)."""
    if "CFWB_FUZZ_CASES" in os.environ:
        return int(os.environ["CFWB_FUZZ_CASES"])
    return FULL_CASES if FULL else QUICK_CASES


def cases(target: str) -> int:
    """How many cases `target` gets this session (at least one)."""
    return max(1, round(total_cases() * SHARES[target]))


def fuzz_settings(target: str) -> settings:
    """Hypothesis settings for `target`: its share of the cases, no deadline (whole runs are
    slow on a busy machine); the quick profile is derandomized so `make test` is repeatable,
    while `make fuzz` explores afresh each time."""
    return settings(
        max_examples=cases(target),
        deadline=None,
        derandomize=not FULL,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@dataclass(frozen=True)
class Outcome:
    """One CLI invocation: its exit code, its output, and any exception that escaped."""

    args: tuple[str, ...]
    exit_code: int
    output: str
    escaped: BaseException | None

    @property
    def traceback(self) -> bool:
        """True when something other than a clean exit escaped, or a traceback was printed."""
        return self.escaped is not None or "Traceback (most recent call last)" in self.output


def snapshot(roots: Iterable[Path]) -> dict[str, bytes | None]:
    """Every file under the given roots with its bytes (None for a directory or link)."""
    state: dict[str, bytes | None] = {}
    for root in roots:
        if not os.path.lexists(root):
            state[str(root)] = b"<absent>"
            continue
        if root.is_file() and not root.is_symlink():
            state[str(root)] = root.read_bytes()
            continue
        state[str(root)] = None
        for path in sorted(root.rglob("*")):
            regular = path.is_file() and not path.is_symlink()
            state[str(path)] = path.read_bytes() if regular else None
    return state


def invoke(target: str, args: Sequence[str], watched: Sequence[Path] = ()) -> Outcome:
    """Run `workbench ARGS` in-process and check the rules; returns the outcome."""
    before = snapshot(watched)
    result: Result = CliRunner().invoke(main, list(args))
    escaped = result.exception
    if isinstance(escaped, SystemExit):
        escaped = None
    outcome = Outcome(tuple(args), result.exit_code, result.output, escaped)
    TALLY["tried"] += 1
    TARGETS[target] += 1
    EXIT_CODES[outcome.exit_code] += 1
    if outcome.traceback:
        TALLY["tracebacks"] += 1
    assert not outcome.traceback, _describe(outcome, "escaped as a traceback")
    assert outcome.exit_code in DOCUMENTED_EXIT_CODES, _describe(outcome, "undocumented code")
    if outcome.exit_code != 0:
        assert snapshot(watched) == before, _describe(outcome, "changed a watched directory")
    return outcome


def _describe(outcome: Outcome, problem: str) -> str:
    """A failure message naming the command, its code, output and exception."""
    shown = outcome.output if len(outcome.output) < 2000 else outcome.output[:2000] + "…"
    return (
        f"workbench {' '.join(a[:80] for a in outcome.args)} {problem}: exit "
        f"{outcome.exit_code}, exception {outcome.escaped!r}\n{shown}"
    )


def summary_lines() -> list[str]:
    """The end-of-session figures: cases tried, per target, by exit code, tracebacks."""
    if not TALLY["tried"]:
        return []
    codes = ", ".join(f"{code}: {EXIT_CODES[code]}" for code in sorted(EXIT_CODES))
    targets = ", ".join(f"{name} {TARGETS[name]}" for name in SHARES if TARGETS[name])
    return [
        f"fuzz: tried {TALLY['tried']} cases; exit codes {{{codes}}}; "
        f"tracebacks {TALLY['tracebacks']}",
        f"fuzz: by target: {targets}",
    ]
