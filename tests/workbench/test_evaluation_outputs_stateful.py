"""Evaluation outputs as a state machine (hypothesis' stateful testing): single evaluations
and batches written into a few output directories that start new, empty, another's, a
file, a link into a run, or the partial output of an evaluation killed outright; written
while the disk refuses a write or an fsync, interrupted by ctrl+c, killed by SIGKILL at
any system call in a real (forked) process, raced by a second evaluation of the same
directory, and tampered with a byte afterwards, in any order, over a few finished runs
built once (development and private).

A model holds what each directory should be. After every step: the runs' bytes are as
they were; every report.json there passes `verify-report` (against its run, with its
control file when private), and one the model tampered with fails it (exit 3); a whole
output of a run is the one every other evaluation of that run wrote, byte for byte; a
private run's output is its owner's alone (0700); a directory holding a killed
evaluation's leftovers may be claimed again. Each rule checks its own promise: a refusal
or a failure is one line (exit 2 from the CLI), changes nothing it was refused (and
leaves a failed directory as it was, or empty), and the next evaluation into it succeeds.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import os
import shutil
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner, Result
from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    rule,
    run_state_machine_as_test,
)

from tests.machines import machine_settings
from tests.placed import one_error_line
from tests.workbench.batch_runs import play_short
from tests.workbench.conftest import control_new, make_private
from tests.workbench.faults import files_may_not_grow_beyond, fsync_then_cut_fail
from workbench.cli import main
from workbench.errors import UserError
from workbench.evaluation.batch import BATCH_LAYOUT, validate_runs
from workbench.evaluation.evaluator import EVALUATION_LAYOUT, run_evaluation
from workbench.evaluation.executors import ExecutorSpec
from workbench.evaluation.report_check import _comparable
from workbench.outputs import check_output_dir, claim_output_dir
from workbench.runs.registration import ControlFile, load_control


@dataclass(frozen=True)
class World:
    """The finished runs every machine evaluates (never written), and their control file."""

    root: Path
    dev_runs: Path
    """Two development runs (run-0 of ada, run-1 of bob): a batch's RUNS_DIR."""
    private_runs: Path
    """One private run of agent-7 (the control file also registers agent-8)."""
    control_path: Path

    @property
    def control(self) -> ControlFile:
        return load_control(self.control_path)

    @property
    def runs(self) -> tuple[str, ...]:
        """What an evaluation evaluates: a development run by name, or `private`."""
        return ("run-0", "run-1", "private")


def build_world(root: Path) -> World:
    campaign = root / "campaign"
    from campaigns import DEFAULT_CAMPAIGN

    dev_runs = root / "dev-runs"
    play_short(dev_runs / "run-0", "ada", seed=0)
    play_short(dev_runs / "run-1", "bob", seed=1)
    shutil.copytree(DEFAULT_CAMPAIGN, campaign)
    make_private(campaign)
    control_path = root / "control" / "control.json"
    control_path.parent.mkdir()
    control_new(campaign, control_path, "agent-7", "agent-8")
    private_runs = root / "private-runs"
    play_short(
        private_runs / "agent-7",
        "agent-7",
        seed=7,
        campaign=campaign,
        control=load_control(control_path),
    )
    return World(root, dev_runs, private_runs, control_path)


Tree = dict[str, tuple[str, bytes]]


def tree_of(path: Path) -> Tree | None:
    """Every entry under `path` (itself as ""): its kind and bytes (a link's target); None
    when nothing is there."""
    if not os.path.lexists(path):
        return None
    found: Tree = {}

    def visit(p: Path, rel: str) -> None:
        info = os.lstat(p)
        if stat.S_ISLNK(info.st_mode):
            found[rel] = ("link", os.readlink(p).encode())
        elif stat.S_ISDIR(info.st_mode):
            found[rel] = ("dir", b"")
            for child in sorted(os.listdir(p)):
                visit(p / child, f"{rel}/{child}" if rel else child)
        else:
            found[rel] = ("file", p.read_bytes())

    visit(path, "")
    return found


def digest_of(tree: Tree | None) -> str:
    return hashlib.sha256(repr(sorted((tree or {}).items())).encode()).hexdigest()


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@dataclass
class Slot:
    """One output directory and what the model says it holds.

    `kind`: absent, empty, partial (a killed evaluation's leftovers), foreign (another's
    files), file, link (a symbolic link), whole (a single evaluation's output), batch (a
    batch's output).
    """

    path: Path
    kind: str = "absent"
    run: str | None = None
    """The run a whole output evaluated (`private` for the private run), or the batch's
    runs (`dev` or `private`)."""
    partial: str | None = None
    """Whose partial output a `partial` directory holds: a `single` evaluation's or a
    `batch`'s (each layout takes over only its own)."""
    tampered: bool = False
    verified: str | None = None
    """The digest of the tree last checked by `verify-report` (checked again when changed)."""
    after_tamper: list[str] = field(default_factory=list)
    found_alone: bool = False
    """A tampering `verify-report` must find without the runs too: a checksum, a seal or a
    table (each checked against what names it), or any byte of a signed private report."""


def claimable(slot: Slot, *, batch: bool = False) -> bool:
    """What an evaluation may be written into: nothing, an empty directory, or the partial
    output of one of its kind (single or batch) killed outright (its lock gone with it)."""
    if slot.kind == "partial":
        return slot.partial == ("batch" if batch else "single")
    return slot.kind in ("absent", "empty")


TAMPERED_FILES = ("report.json", "SHA256SUMS", "seals/branches.jsonl.gz")
BATCH_TAMPERED_FILES = (
    "runs.csv",
    "leaderboard.csv",
    "reports/{run}/report.json",
    "reports/{run}/SHA256SUMS",
    "reports/{run}/seals/branches.jsonl.gz",
)

KILL_EVENTS = ("open", "os.mkdir", "os.rename", "os.remove", "os.rmdir", "os.chmod")
"""The audit events (with a path under the machine's directory) a killed child counts,
with every os.write and os.fsync: the points at which it may be killed."""


class EvaluationOutputs(RuleBasedStateMachine):
    """Output directories written by evaluations in any order; see the module doc."""

    world: World
    references: dict[str, Tree]
    """The output each run (and each batch: `batch:dev`, `batch:private`) gives: the first
    one written, which every later one must equal."""
    runs_before: dict[str, Tree | None]

    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="cfwb-eval-dst-"))
        self.slots = [
            Slot(self.tmp / "o0"),
            Slot(self.tmp / "o1"),
            Slot(self.tmp / "o2"),
            Slot(self.tmp / "deep" / "er" / "o3"),
        ]
        self.monkeypatch = pytest.MonkeyPatch()

    def teardown(self) -> None:
        self.monkeypatch.undo()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers ----------------------------------------------------------------------
    def run_args(self, run: str) -> list[str]:
        """The CLI arguments naming a run to evaluate."""
        w = self.world
        if run == "private":
            return [str(w.private_runs), "--control", str(w.control_path), "--agent", "agent-7"]
        return ["--results", str(w.dev_runs / run)]

    def evaluate_in_process(self, run: str, out: Path, **kwargs: object) -> None:
        w = self.world
        if run == "private":
            run_evaluation(w.private_runs, out, control=w.control, agent="agent-7", **kwargs)
        else:
            run_evaluation(w.dev_runs / run, out, **kwargs)

    def batch_in_process(self, which: str, out: Path, workers: int = 1) -> None:
        w = self.world
        spec = ExecutorSpec("local", workers=workers)
        if which == "private":
            validate_runs(w.private_runs, out, control=w.control, executor=spec)
        else:
            validate_runs(w.dev_runs, out, executor=spec)

    def written(self, slot: Slot, run: str, *, batch: bool = False) -> None:
        """The model after a successful evaluation of `run` (or batch) into `slot`: the same
        output every evaluation of it gives, byte for byte."""
        key = f"batch:{run}" if batch else run
        got = tree_of(slot.path)
        assert got is not None
        got = {k: v for k, v in got.items() if k}
        self.same_as_before(key, got)
        if batch:  # each run's report is its single evaluation's, byte for byte
            for folder in {name.split("/")[1] for name in got if name.startswith("reports/")}:
                inner = f"reports/{folder}/"
                report = {k[len(inner) :]: v for k, v in got.items() if k.startswith(inner)}
                self.same_as_before("private" if run == "private" else folder, report)
        slot.kind, slot.run, slot.tampered = ("batch" if batch else "whole"), run, False
        slot.partial, slot.found_alone = None, False
        slot.after_tamper = []

    def same_as_before(self, key: str, got: Tree) -> None:
        """`got` is the output `key` gave before (the first one becomes the reference)."""
        reference = self.references.setdefault(key, got)
        assert got.keys() == reference.keys(), (key, sorted(got), sorted(reference))
        for name in got:
            assert got[name] == reference[name], (key, name)

    def claimable(self, batch: bool) -> list[Slot | None]:
        """The output directories an evaluation (or batch) may claim; [None] when none."""
        return [s for s in self.slots if claimable(s, batch=batch)] or [None]

    def refused_unchanged(self, slot: Slot, before: Tree | None) -> None:
        assert tree_of(slot.path) == before, f"a refused evaluation changed {slot.path}"

    def around(self, slot: Slot) -> tuple[int | None, tuple[str, ...]]:
        """The slot's mode (None when absent) and which of its parents under the machine's
        directory exist."""
        mode = stat.S_IMODE(os.lstat(slot.path).st_mode) if os.path.lexists(slot.path) else None
        inside = [p for p in slot.path.parents if self.tmp in p.parents]
        return mode, tuple(str(p) for p in inside if os.path.lexists(p))

    def failed_as_it_was_or_empty(
        self, slot: Slot, before: Tree | None, was: str, around: tuple[int | None, tuple[str, ...]]
    ) -> None:
        """A failed or interrupted evaluation leaves its directory as it was, or (a partial
        output it took over) empty; the model follows. Its mode is as it was (a private
        evaluation made a given directory its owner's alone, and left it so), and no folder
        it made for it is left (its missing parents stayed)."""
        assert self.around(slot) == around, (slot.path, around, self.around(slot))
        after = tree_of(slot.path)
        if after == before:
            return
        assert was == "partial", (was, before and sorted(before), after and sorted(after))
        assert after == {"": ("dir", b"")}, sorted(after or {})
        slot.kind, slot.partial = "empty", None

    def reusable(self, slot: Slot) -> None:
        """The next evaluation may claim this directory (checked, not written)."""
        layout = BATCH_LAYOUT if slot.partial == "batch" else EVALUATION_LAYOUT
        check_output_dir(slot.path, layout)

    # -- rules: what an output directory starts as ------------------------------------
    @rule(data=st.data())
    def prepare(self, data: st.DataObject) -> None:
        """Give an absent output directory something: empty, another's files, a file, a
        link into a run, a link to an empty directory elsewhere."""
        absent = [s for s in self.slots if s.kind == "absent"]
        if not absent:
            return
        slot = data.draw(st.sampled_from(absent))
        how = data.draw(
            st.sampled_from(["empty", "foreign", "file", "link-into-run", "link-elsewhere"])
        )
        slot.path.parent.mkdir(parents=True, exist_ok=True)
        if how == "empty":
            slot.path.mkdir()
            slot.path.chmod(data.draw(st.sampled_from([0o755, 0o777, 0o700, 0o1777])))
            slot.kind = "empty"
        elif how == "foreign":
            (slot.path / "seals").mkdir(parents=True)
            (slot.path / "seals" / "notes.txt").write_text("mine")
            slot.kind = "foreign"
        elif how == "file":
            slot.path.write_text("mine")
            slot.kind = "file"
        elif how == "link-into-run":
            slot.path.symlink_to(self.world.dev_runs / "run-0")
            slot.kind = "link"
        else:
            elsewhere = self.tmp / f"elsewhere-{slot.path.name}"
            elsewhere.mkdir(exist_ok=True)
            slot.path.symlink_to(elsewhere)
            slot.kind = "link"

    @rule(data=st.data())
    def clear(self, data: st.DataObject) -> None:
        """Remove an output directory (whatever it is) so it can start again."""
        slot = data.draw(st.sampled_from(self.slots))
        if slot.path.is_symlink() or slot.path.is_file():
            slot.path.unlink()
        elif slot.path.exists():
            shutil.rmtree(slot.path)
        slot.kind, slot.run, slot.tampered, slot.verified = "absent", None, False, None
        slot.partial, slot.found_alone = None, False

    # -- rules: evaluations -----------------------------------------------------------
    @rule(data=st.data(), workers=st.sampled_from([1, 1, 2]))
    def evaluate(self, data: st.DataObject, workers: int) -> None:
        """`validate counterfactual` of a run into an output directory (the CLI), its pairs
        in this process or on a pool of two."""
        slot = data.draw(st.sampled_from(self.slots))
        run = data.draw(st.sampled_from(self.world.runs))
        before = tree_of(slot.path)
        args = [*self.run_args(run), "--out", str(slot.path), "--workers", str(workers)]
        result = cli("validate", "counterfactual", *args)
        event(f"evaluate into {slot.kind}")
        if claimable(slot):
            assert result.exit_code in (0, 1), result.output
            self.written(slot, run)
        else:
            one_error_line(result)
            assert result.exit_code == 2, result.output
            self.refused_unchanged(slot, before)

    @rule(
        where=st.sampled_from(
            [
                ("run-0", "run-0/out"),
                ("run-0", "run-0/deeper/out"),
                ("run-0", "link/out"),
                ("private", "private/out"),
                ("private", "private/agent-7/out"),
                ("batch:dev", "dev/out"),
                ("batch:dev", "dev/run-1/out"),
                ("batch:private", "private/out"),
            ]
        )
    )
    def evaluate_inside_the_results(self, where: tuple[str, str]) -> None:
        """An output directory inside the results directory given (a run, or the RUNS_DIR
        of a private run or a batch), or inside a run reached through a link: refused in
        one line; the runs are checked unchanged after every step."""
        what, out = where
        w = self.world
        top, _, rest = out.partition("/")
        if top == "link":
            base = self.tmp / "link"
            if not base.is_symlink():
                base.symlink_to(w.dev_runs / "run-0")
        else:
            base = {"run-0": w.dev_runs / "run-0", "dev": w.dev_runs}.get(top, w.private_runs)
        if what == "batch:dev":
            args = [str(w.dev_runs), "--all-agents"]
        elif what == "batch:private":
            args = [str(w.private_runs), "--all-agents", "--control", str(w.control_path)]
        else:
            args = self.run_args(what)
        result = cli("validate", "counterfactual", *args, "--out", str(base / rest))
        assert "directory" in one_error_line(result), result.output

    @rule(data=st.data(), workers=st.sampled_from([1, 2]))
    def batch(self, data: st.DataObject, workers: int) -> None:
        """A batch of the development runs (or, with the control file, the private ones)."""
        slot = data.draw(st.sampled_from(self.slots))
        which = data.draw(st.sampled_from(["dev", "private"]))
        before = tree_of(slot.path)
        try:
            self.batch_in_process(which, slot.path, workers)
        except UserError as exc:
            assert not claimable(slot, batch=True), exc.message
            assert "\n" not in exc.message
            self.refused_unchanged(slot, before)
            return
        assert claimable(slot, batch=True), slot.kind
        self.written(slot, which, batch=True)

    @rule(
        data=st.data(),
        fault=st.one_of(
            st.tuples(st.just("fsize"), st.sampled_from([0, 1, 200, 1_000, 5_000, 20_000])),
            st.tuples(st.just("fsync"), st.integers(0, 12)),
        ),
        batch=st.booleans(),
    )
    def evaluate_on_a_refusing_disk(
        self, data: st.DataObject, fault: tuple[str, int], batch: bool
    ) -> None:
        """An evaluation (or batch) while files may not grow past a size, or while one fsync
        (after `n` that succeed) fails: whole, or one line and the directory as it was."""
        slot = data.draw(st.sampled_from(self.claimable(batch)))
        if slot is None:
            return
        run = data.draw(st.sampled_from(["dev", "private"] if batch else self.world.runs))
        before, was, around = tree_of(slot.path), slot.kind, self.around(slot)
        kind, n = fault
        faulty = (
            files_may_not_grow_beyond(n)
            if kind == "fsize"
            else fsync_then_cut_fail(self.monkeypatch, 1, after=n, cuts_fail=False)
        )
        try:
            with faulty:
                if batch:
                    self.batch_in_process(run, slot.path)
                else:
                    self.evaluate_in_process(run, slot.path)
        except UserError as exc:
            event(f"refusing disk: failed ({kind})")
            assert "\n" not in exc.message, exc.message
            assert "cannot write" in exc.message or "cannot create" in exc.message, exc.message
            self.failed_as_it_was_or_empty(slot, before, was, around)
            return
        event(f"refusing disk: written ({kind})")
        self.written(slot, run, batch=batch)

    @rule(data=st.data(), after=st.integers(0, 6), batch=st.booleans())
    def interrupted(self, data: st.DataObject, after: int, batch: bool) -> None:
        """ctrl+c (KeyboardInterrupt) after `after` pairs (a batch: runs): what was written
        is removed; the directory is as it was (or empty)."""
        slot = data.draw(st.sampled_from(self.claimable(batch)))
        if slot is None:
            return
        run = data.draw(st.sampled_from(["dev", "private"] if batch else self.world.runs))
        before, was, around = tree_of(slot.path), slot.kind, self.around(slot)

        def stop(done: int, total: int, *_: object) -> None:
            if done > after:
                raise KeyboardInterrupt

        w = self.world
        try:
            if batch:
                control = w.control if run == "private" else None
                runs = w.private_runs if run == "private" else w.dev_runs
                validate_runs(runs, slot.path, control=control, progress=stop)
            else:
                self.evaluate_in_process(run, slot.path, progress=stop)
        except KeyboardInterrupt:
            self.failed_as_it_was_or_empty(slot, before, was, around)
            return
        self.written(slot, run, batch=batch)

    @rule(data=st.data(), when=st.integers(1, 64), batch=st.booleans())
    def killed(self, data: st.DataObject, when: int, batch: bool) -> None:
        """A real process evaluating into the directory, killed outright (SIGKILL, no
        cleanup) at its `when`th write, fsync, open, mkdir, rename, removal or chmod under
        the machine's directory. What it leaves is claimable, or a whole output."""
        slot = data.draw(st.sampled_from(self.slots))
        run = data.draw(st.sampled_from(["dev", "private"] if batch else self.world.runs))
        before = tree_of(slot.path)
        status = self.in_a_killed_child(run, slot.path, when, batch=batch)
        if not claimable(slot, batch=batch):
            assert status == ("exit", 2), status
            self.refused_unchanged(slot, before)
            return
        if status == ("exit", 0):
            self.written(slot, run, batch=batch)
            return
        assert status == ("signal", signal.SIGKILL), status
        event(f"killed {'batch' if batch else 'single'}")
        finished = "leaderboard.csv" if batch else "report.json"
        if (slot.path / finished).exists():
            self.written(slot, run, batch=batch)
            return
        after = tree_of(slot.path)
        if after is None:
            slot.kind = "absent"
        elif after == {"": ("dir", b"")}:
            slot.kind = "empty"
        else:
            slot.kind = "partial"
        slot.run, slot.partial = None, ("batch" if batch else "single")
        if slot.kind != "partial":
            slot.partial = None
        self.reusable(slot)

    def in_a_killed_child(self, run: str, out: Path, when: int, *, batch: bool) -> tuple[str, int]:
        """Evaluate in a forked child that SIGKILLs itself at its `when`th counted call;
        how it ended: ("exit", code) or ("signal", number)."""
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child never returns
            code = 3
            try:
                self.arm_the_kill(when)
                if batch:
                    self.batch_in_process(run, out)
                else:
                    self.evaluate_in_process(run, out)
                code = 0
            except UserError:
                code = 2
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            return ("signal", os.WTERMSIG(status))
        return ("exit", os.WEXITSTATUS(status))

    def arm_the_kill(self, when: int) -> None:
        """In the child: SIGKILL this process at the `when`th counted call (before it)."""
        prefix = str(self.tmp)
        count = [0]

        def tick() -> None:
            count[0] += 1
            if count[0] == when:
                os.kill(os.getpid(), signal.SIGKILL)

        def hook(name: str, args: tuple[object, ...]) -> None:
            path = args[0] if args else None
            ours = isinstance(path, str | bytes | os.PathLike) and os.fsdecode(path).startswith(
                prefix
            )
            if name in KILL_EVENTS and ours:
                tick()

        real_write, real_fsync = os.write, os.fsync

        def write(fd: int, data: bytes) -> int:
            tick()
            return real_write(fd, data)

        def fsync(fd: int) -> None:
            tick()
            real_fsync(fd)

        os.write, os.fsync = write, fsync  # type: ignore[assignment]
        sys.addaudithook(hook)

    @rule(data=st.data())
    def second_claimer(self, data: st.DataObject) -> None:
        """While one evaluation holds a directory (its claim), another into it is refused
        in one line and changes nothing; the first then leaves a partial output."""
        slot = data.draw(st.sampled_from(self.claimable(False)))
        if slot is None:
            return
        run = data.draw(st.sampled_from(self.world.runs))
        held = claim_output_dir(slot.path, EVALUATION_LAYOUT)
        try:
            before = tree_of(slot.path)
            result = cli("validate", "counterfactual", *self.run_args(run), "--out", str(slot.path))
            assert "is being written by another evaluation" in one_error_line(result)
            assert result.exit_code == 2
            self.refused_unchanged(slot, before)
        finally:
            held.release()
        slot.kind, slot.run, slot.partial = "partial", None, "single"
        self.reusable(slot)

    @rule(data=st.data())
    def two_at_once(self, data: st.DataObject) -> None:
        """Two evaluations into one directory at once (threads): exactly one writes it."""
        slot = data.draw(st.sampled_from(self.claimable(False)))
        if slot is None:
            return
        run = data.draw(st.sampled_from(self.world.runs))
        outcomes: list[BaseException | None] = [None, None]
        start = threading.Barrier(2)

        def one(i: int) -> None:
            start.wait()
            try:
                self.evaluate_in_process(run, slot.path)
            except BaseException as exc:  # noqa: BLE001 - judged below
                outcomes[i] = exc

        threads = [threading.Thread(target=one, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        errors = [e for e in outcomes if e is not None]
        assert len(errors) == 1, outcomes
        (error,) = errors
        assert isinstance(error, UserError), repr(error)
        assert (
            "is being written by another evaluation" in error.message
            or "exists and is not empty" in error.message
        ), error.message
        self.written(slot, run)

    @rule(data=st.data(), xor=st.integers(1, 255))
    def tamper(self, data: st.DataObject, xor: int) -> None:
        """Flip one byte of a written output's file."""
        whole = [s for s in self.slots if s.kind in ("whole", "batch")]
        if not whole:
            return
        slot = data.draw(st.sampled_from(whole))
        if slot.kind == "whole":
            names = list(TAMPERED_FILES)
        else:
            runs = sorted(os.listdir(slot.path / "reports"))
            run = data.draw(st.sampled_from(runs))
            names = [name.format(run=run) for name in BATCH_TAMPERED_FILES]
        there = [n for n in names if (slot.path / n).is_file() and (slot.path / n).stat().st_size]
        if not there:
            return
        name = data.draw(st.sampled_from(there))
        path = slot.path / name
        content = bytearray(path.read_bytes())
        at = data.draw(st.integers(0, len(content) - 1))
        content[at] ^= xor
        path.write_bytes(bytes(content))
        slot.after_tamper.append(f"{name}@{at}^{xor}")
        self.judge_tampering(slot)

    @rule(data=st.data())
    def remove_or_add(self, data: st.DataObject) -> None:
        """Remove one file of a written output, or add one it never wrote. Without its last
        file (report.json, leaderboard.csv) it is a partial output again, which the next
        evaluation of its kind takes over."""
        whole = [s for s in self.slots if s.kind in ("whole", "batch")]
        if not whole:
            return
        slot = data.draw(st.sampled_from(whole))
        if slot.kind == "whole":
            names = [*TAMPERED_FILES, "+stray.txt", "+seals/stray.gz"]
        else:
            run = data.draw(st.sampled_from(sorted(os.listdir(slot.path / "reports"))))
            names = [
                name.format(run=run)
                for name in (
                    *BATCH_TAMPERED_FILES,
                    "+stray.txt",
                    "+reports/{run}/stray.txt",
                    "+reports/stray/report.json",
                )
            ]
        there = [n for n in names if n.startswith("+") or (slot.path / n).is_file()]
        name = data.draw(st.sampled_from(there))
        slot.after_tamper.append(name if name.startswith("+") else f"-{name}")
        if name.startswith("+"):
            path = slot.path / name[1:]
            path.parent.mkdir(exist_ok=True)
            path.write_text("{}")
        else:
            (slot.path / name).unlink()
            if name in ("report.json", "leaderboard.csv"):
                if any(done.startswith("+") for done in slot.after_tamper):
                    slot.kind = "foreign"  # a file it never wrote: another's directory
                else:
                    slot.partial = "single" if slot.kind == "whole" else "batch"
                    slot.kind = "partial"
                    self.reusable(slot)
                slot.run, slot.tampered = None, False
                return
        self.judge_tampering(slot)

    def judge_tampering(self, slot: Slot) -> None:
        """Whether `slot` now differs from the output its evaluation wrote in what
        `verify-report` must find: with the runs, any byte but a development report's
        environment facts (execution, the run's name); without them, any byte of a
        checksum, seal or table, or of a signed (private) report."""
        key = f"batch:{slot.run}" if slot.kind == "batch" else str(slot.run)
        now = {k: v for k, v in (tree_of(slot.path) or {}).items() if k}
        reference = self.references[key]
        slot.tampered = slot.found_alone = False
        for name in sorted(set(now) | set(reference)):
            if now.get(name) == reference.get(name):
                continue
            if name not in now or name not in reference:  # removed, or added
                slot.tampered = slot.found_alone = True
                continue
            if name == "runs.csv" and _only_a_reason(reference[name][1], now[name][1]):
                continue
            if not name.endswith("report.json") or slot.run == "private":
                slot.tampered = slot.found_alone = True
            elif not _only_environment(reference[name][1], now[name][1]):
                slot.tampered = True
        if slot.tampered:
            event(f"tampered {slot.after_tamper[-1].split('@')[0].rsplit('/', 1)[-1]}")

    # -- invariants -------------------------------------------------------------------
    @invariant()
    def runs_are_never_written(self) -> None:
        assert tree_of(self.world.root / "dev-runs") == self.runs_before["dev"]
        assert tree_of(self.world.root / "private-runs") == self.runs_before["private"]

    @invariant()
    def every_output_verifies_unless_tampered(self) -> None:
        for slot in self.slots:
            if slot.kind not in ("whole", "batch"):
                assert not (os.path.isdir(slot.path) and (slot.path / "report.json").exists()), (
                    f"{slot.path}: a report.json the model did not expect ({slot.kind})"
                )
                continue
            now = digest_of(tree_of(slot.path))
            if slot.verified == now:
                continue
            assert slot.run is not None
            runs = {
                "private": str(self.world.private_runs),
                "dev": str(self.world.dev_runs),
            }.get(slot.run, str(self.world.dev_runs / slot.run))
            args = ["verify-report", str(slot.path), "--results", runs]
            if slot.run == "private":
                args += ["--control", str(self.world.control_path)]
                if slot.kind == "whole":
                    args += ["--agent", "agent-7"]
            result = cli(*args)
            assert "Traceback" not in result.output
            if slot.tampered:
                assert result.exit_code == 3, (
                    slot.after_tamper,
                    result.output,
                )
            else:
                assert result.exit_code == 0, result.output
            signed = ["--control", str(self.world.control_path)] if slot.run == "private" else []
            result = cli(*args[:2], *signed)
            assert "Traceback" not in result.output
            if slot.found_alone:
                assert result.exit_code == 3, (
                    slot.after_tamper,
                    result.output,
                )
            elif not slot.tampered:
                assert result.exit_code == 0, result.output
            slot.verified = now

    @invariant()
    def private_outputs_are_their_owners_alone(self) -> None:
        for slot in self.slots:
            if slot.kind in ("whole", "batch") and slot.run == "private":
                mode = stat.S_IMODE(os.lstat(slot.path).st_mode)
                assert mode == 0o700, f"{slot.path}: mode {mode:o}"


def _only_a_reason(original: bytes, changed: bytes) -> bool:
    """True when runs.csv changed only in the reason of a run that has no report (missing,
    refused, excluded): free text naming paths of the batch's machine, which
    `verify-report` neither derives again nor compares."""
    try:
        before = list(csv.DictReader(io.StringIO(original.decode())))
        after = list(csv.DictReader(io.StringIO(changed.decode())))
    except (UnicodeDecodeError, csv.Error):
        return False
    if len(before) != len(after):
        return False

    def facts(row: dict[str, str]) -> dict[str, str]:
        return {k: v for k, v in row.items() if k != "reason"}

    return all(
        b.keys() == a.keys() and facts(b) == facts(a) and (b == a or b.get("status") != "evaluated")
        for b, a in zip(before, after, strict=True)
    )


def _only_environment(original: bytes, changed: bytes) -> bool:
    """True when a report's change lies only in what honest evaluations of one run may
    differ in (report_check._comparable: the machine's execution facts, the run's name)."""
    try:
        before, after = orjson.loads(original), orjson.loads(changed)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(after, dict):
        return False
    return _comparable(before) == _comparable(after)


@contextlib.contextmanager
def _umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return build_world(tmp_path_factory.mktemp("eval-world"))


SETTINGS = machine_settings(30, 20)


def test_evaluation_outputs(world: World) -> None:
    class Machine(EvaluationOutputs):
        pass

    Machine.world = world
    Machine.references = {}
    Machine.runs_before = {
        "dev": tree_of(world.dev_runs),
        "private": tree_of(world.private_runs),
    }
    with _umask(0o022):
        run_state_machine_as_test(Machine, settings=SETTINGS)
