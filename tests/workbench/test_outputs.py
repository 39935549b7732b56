"""Outputs are claimed or written whole, never over something that is not ours.

`validate --out` claims its directory atomically and lists only its own seals;
`ledger --out` never clobbers, never replaces a link, device or directory, never writes
into a run directory; a bad output path is one line with exit 2, never a traceback.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.placed import one_error_line as _one_line_error
from tests.workbench.batch_runs import play_short, tree
from tests.workbench.conftest import Private, make_private
from workbench import outputs
from workbench.cli import main
from workbench.errors import UserError
from workbench.evaluation.evaluator import EVALUATION_LAYOUT, run_evaluation
from workbench.outputs import atomic_write, claim_output_dir


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


# -- validate --out -------------------------------------------------------------------


def test_only_one_of_two_claims_on_one_directory_wins(tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = claim_output_dir(out, EVALUATION_LAYOUT)
    with pytest.raises(UserError, match="is being written by another evaluation"):
        claim_output_dir(out, EVALUATION_LAYOUT)
    first.discard()
    assert not out.exists()


def test_a_discarded_claim_removes_the_folders_it_made_and_only_those(tmp_path: Path) -> None:
    """`validate --out new/deeper/out` that failed or was interrupted left new/deeper
    behind; the folders a claim made go with it, innermost first, while they are empty."""
    out = tmp_path / "new" / "deeper" / "out"
    claim_output_dir(out, EVALUATION_LAYOUT).discard()
    assert os.listdir(tmp_path) == []
    claim = claim_output_dir(out, EVALUATION_LAYOUT)
    (tmp_path / "new" / "notes.txt").write_text("put there meanwhile")
    claim.discard()
    assert sorted(os.listdir(tmp_path / "new")) == ["notes.txt"]


def test_a_discarded_private_claim_gives_a_given_directory_its_mode_back(tmp_path: Path) -> None:
    """A private evaluation makes the directory it was given its owner's alone; one that
    failed left the user's empty directory at 0700."""
    out = tmp_path / "given"
    out.mkdir()
    out.chmod(0o755)
    claim = claim_output_dir(out, EVALUATION_LAYOUT, private=True)
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    claim.discard()
    assert stat.S_IMODE(out.stat().st_mode) == 0o755 and os.listdir(out) == []


def test_a_claim_that_loses_the_lock_leaves_the_winners_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two validations on one new `--out`: this one makes the directory, the other locks
    it first (between this one's mkdir and flock) and has not yet made its claim. The
    loser is refused and must leave the directory to the winner; it removed it, so the
    winner failed too and neither ran (seen under load: both exited 2)."""
    out = tmp_path / "out"
    held: list[int] = []
    real_lock = outputs._lock

    def the_other_locks_first(fd: int) -> bool | None:
        if not held:
            held.append(os.open(out, os.O_RDONLY | os.O_DIRECTORY))
            assert real_lock(held[0]) is True
        return real_lock(fd)

    monkeypatch.setattr(outputs, "_lock", the_other_locks_first)
    with pytest.raises(UserError, match="is being written by another evaluation"):
        claim_output_dir(out, EVALUATION_LAYOUT)
    assert out.is_dir() and os.fstat(held[0]).st_ino == os.lstat(out).st_ino
    os.close(held[0])


KILLED_MIDWAY = """
import os, signal, sys, time
from pathlib import Path
from workbench.evaluation.{module} import {function}

def progress(*args):
    Path(sys.argv[3]).touch()
    time.sleep(600)

{function}(Path(sys.argv[1]), Path(sys.argv[2]), progress=progress)
"""


def _killed_midway(source: Path, out: Path, tmp_path: Path, *, batch: bool) -> None:
    """A real evaluation (or batch) killed outright (SIGKILL) once its first part is done."""
    module, function = ("batch", "validate_runs") if batch else ("evaluator", "run_evaluation")
    marker = tmp_path / f"reached-{out.name}"
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            KILLED_MIDWAY.format(module=module, function=function),
            str(source),
            str(out),
            str(marker),
        ]
    )
    try:
        for _ in range(1200):
            if marker.exists() or child.poll() is not None:
                break
            time.sleep(0.05)
        assert marker.exists(), "the evaluation never reached its first part"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()


def test_the_partial_output_of_a_killed_evaluation_is_cleared_by_the_next(
    demo_run: Path, tmp_path: Path
) -> None:
    """kill -9 leaves seals and no report.json; the same --out then works, and the report
    it gets is the one a fresh directory gets."""
    out = tmp_path / "out"
    _killed_midway(demo_run, out, tmp_path, batch=False)
    assert (out / "seals").is_dir() and not (out / "report.json").exists()
    again = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert again.exit_code in (0, 1), again.output
    fresh = tmp_path / "fresh"
    _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(fresh))
    assert (out / "report.json").read_bytes() == (fresh / "report.json").read_bytes()
    assert sorted(p.name for p in out.iterdir()) == ["SHA256SUMS", "report.json", "seals"]
    assert _cli("verify-report", str(out)).exit_code == 0


def test_the_partial_output_of_a_killed_batch_is_cleared_by_the_next(
    demo_run: Path, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("a", "b"):
        shutil.copytree(demo_run, runs / name)
    out = tmp_path / "batch"
    _killed_midway(runs, out, tmp_path, batch=True)
    assert (out / "reports").is_dir() and not (out / "leaderboard.csv").exists()
    again = _cli("validate", "counterfactual", str(runs), "--all-agents", "--out", str(out))
    assert again.exit_code in (0, 1), again.output
    assert sorted(p.name for p in out.iterdir()) == ["leaderboard.csv", "reports", "runs.csv"]
    assert sorted(p.name for p in (out / "reports").iterdir()) == ["a", "b"]


def test_a_live_evaluations_directory_is_refused_and_left_alone(
    demo_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    live = claim_output_dir(out, EVALUATION_LAYOUT)
    (out / "seals" / "branches.jsonl.gz").write_bytes(b"partial")
    again = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert "is being written by another evaluation" in _one_line_error(again)
    assert (out / "seals" / "branches.jsonl.gz").read_bytes() == b"partial"
    live.discard()
    assert not out.exists()


@pytest.mark.parametrize(
    "plant",
    [
        lambda out: (out / "seals" / "notes.txt").write_text("mine"),
        lambda out: (out / "notes.txt").write_text("mine"),
        lambda out: (out / "seals" / "branches.jsonl.gz").mkdir(),
        lambda out: (out / "SHA256SUMS").symlink_to(out / "elsewhere"),
        lambda out: (out / "report.json").write_text("{}"),
    ],
    ids=["a file in seals", "a file beside", "a directory for a file", "a link", "a report"],
)
def test_only_a_partial_output_exactly_as_written_is_ever_removed(
    demo_run: Path, tmp_path: Path, plant: Callable[[Path], object]
) -> None:
    """Anything the evaluator would not have written (or a whole output) makes the
    directory another's: refused, nothing removed."""
    out = tmp_path / "out"
    (out / "seals").mkdir(parents=True)
    plant(out)
    before = sorted(str(p.relative_to(out)) for p in out.rglob("*"))
    again = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert "exists and is not empty" in _one_line_error(again)
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*")) == before


def test_a_finished_output_is_never_reused(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert (
        _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out)).exit_code
        == 0
    )
    report = (out / "report.json").read_bytes()
    again = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert "is not empty" in _one_line_error(again)
    assert (out / "report.json").read_bytes() == report


def _bad_destination(kind: str, tmp_path: Path, name: str, *, otherwise: Path) -> Path:
    """An output path that cannot be written: a dangling link, a file, a path under a
    file, or `otherwise` (a kind of the test's own)."""
    if kind == "dangling link":
        out = tmp_path / "link"
        out.symlink_to(tmp_path / "nowhere" / "x")
        return out
    if kind == "file":
        out = tmp_path / "file"
        out.write_text("mine")
        return out
    if kind == "under a file":
        (tmp_path / "file").write_text("mine")
        return tmp_path / "file" / name
    return otherwise


@pytest.mark.parametrize("kind", ["dangling link", "file", "under a file", "inside results"])
def test_a_bad_validate_out_is_one_line(kind: str, demo_run: Path, tmp_path: Path) -> None:
    out = _bad_destination(kind, tmp_path, "out", otherwise=demo_run / "out")
    before = sorted(p.name for p in tmp_path.iterdir())
    result = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    _one_line_error(result)
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert not (demo_run / "out").exists()


def test_a_private_validation_never_writes_into_the_runs_directory_it_was_given(
    private: Private, tmp_path: Path
) -> None:
    """A private run is validated as RUNS_DIR --control --agent: an --out inside RUNS_DIR
    (beside the runs, not in one) was written there, while a batch of the same RUNS_DIR
    refuses it: the results directory is never written."""
    runs = tmp_path / "runs"
    play_short(runs / "agent-7", "agent-7", 7, campaign=private.campaign, control=private.control)
    before = tree(runs)
    result = _cli(
        "validate",
        "counterfactual",
        str(runs),
        "--control",
        str(private.control_path),
        "--agent",
        "agent-7",
        "--out",
        str(runs / "out"),
    )
    assert "is inside the results directory" in _one_line_error(result)
    assert tree(runs) == before


def test_an_unknown_question_leaves_no_output_behind(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = _cli(
        "validate",
        "counterfactual",
        "--results",
        str(demo_run),
        "--out",
        str(out),
        "--question",
        "nope",
    )
    assert "unknown question(s): 'nope'" in _one_line_error(result)
    assert not out.exists()
    retry = _cli("validate", "counterfactual", "--results", str(demo_run), "--out", str(out))
    assert retry.exit_code == 0, retry.output


def test_checksums_cover_only_the_seals_this_evaluation_wrote(
    demo_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    stray = out / "seals" / "q_other.seals.jsonl.gz"

    def intruder(done: int, total: int, item: str) -> None:
        if done == 1:
            stray.write_bytes(b"someone else's seal")

    run_evaluation(demo_run, out, progress=intruder)
    sums = (out / "SHA256SUMS").read_text()
    assert "q_other" not in sums and sums.count("\n") == 1
    check = _cli("verify-report", str(out))
    assert check.exit_code == 3 and "q_other.seals.jsonl.gz: not listed" in check.output
    stray.unlink()
    assert _cli("verify-report", str(out)).exit_code == 0
    assert subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=out, check=False).returncode == 0


def test_temporary_files_have_unique_names(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    (tmp_path / ".report.json.tmp").mkdir()  # the old fixed temporary name, taken
    atomic_write(target, b"{}\n")
    atomic_write(target, b"[]\n")
    assert target.read_bytes() == b"[]\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [".report.json.tmp", "report.json"]


@pytest.mark.parametrize("failing", ["write", "fsync"])
def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    import errno

    from workbench import outputs

    target = tmp_path / "report.json"
    atomic_write(target, b"old\n")

    def full(*_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    if failing == "write":
        monkeypatch.setattr(outputs, "write_all", full)
    else:
        monkeypatch.setattr(outputs.os, "fsync", full)
    with pytest.raises(UserError, match=r"^file .*report.json: cannot write \(No space left"):
        atomic_write(target, b"new\n")
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.parametrize(
    ("failing", "call", "left"),
    [
        ("write_all", 2, []),
        ("fsync_file", 1, []),
        ("fsync", 2, []),
        ("replace", 1, []),
        ("replace", 2, ["SHA256SUMS"]),
    ],
)
def test_several_files_written_together_appear_in_order_or_not_at_all(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, call: int, left: list[str]
) -> None:
    """A failure at any step of `atomic_write_all` names the file, leaves no temporary
    file, and never shows a later file without the earlier ones (report after its sums)."""
    import errno

    from workbench import outputs

    seals = tmp_path / "seals.gz"
    seals.write_bytes(b"seals")
    sums, report = tmp_path / "SHA256SUMS", tmp_path / "report.json"
    owner = outputs if failing in ("write_all", "fsync_file") else outputs.os
    real = getattr(owner, failing)
    calls = []

    def fails_at_call(*args: object) -> object:
        calls.append(args)
        if len(calls) == call:
            raise OSError(errno.EIO, "Input/output error")
        return real(*args)

    monkeypatch.setattr(owner, failing, fails_at_call)
    with pytest.raises(
        UserError, match=r"^file .*(SHA256SUMS|report.json|seals.gz): cannot write \(Input/output"
    ):
        outputs.atomic_write_all([(sums, b"sums\n"), (report, b"{}\n")], written=[seals])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*left, "seals.gz"])
    monkeypatch.setattr(owner, failing, real)
    outputs.atomic_write_all([(sums, b"sums\n"), (report, b"{}\n")], written=[seals])
    assert (sums.read_bytes(), report.read_bytes()) == (b"sums\n", b"{}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SHA256SUMS", "report.json", "seals.gz"]


def test_a_forked_child_draws_other_temporary_names() -> None:
    """Parent and child of a fork (the evaluator's workers) never race for the same names."""
    from workbench import outputs

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, str(outputs._names.getrandbits(48)).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    assert int(os.read(read, 64)) != outputs._names.getrandbits(48)
    os.close(read)
    os.close(write)


def test_an_atomic_write_under_a_file_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    with pytest.raises(UserError, match="plain is not a directory"):
        atomic_write(tmp_path / "plain" / "report.json", b"{}")
    with pytest.raises(UserError, match="missing does not exist"):
        atomic_write(tmp_path / "missing" / "report.json", b"{}")


# -- ledger --out ---------------------------------------------------------------------


def test_ledger_out_refuses_to_overwrite_unless_forced(demo_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "ledger.csv"
    out.write_text("mine")
    result = _cli("ledger", str(demo_run), "--format", "csv", "--out", str(out))
    assert "refusing to overwrite" in _one_line_error(result)
    assert out.read_text() == "mine"
    forced = _cli("ledger", str(demo_run), "--format", "csv", "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert out.read_text().startswith("seq,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.csv"]


def test_ledger_force_without_out_is_refused(demo_run: Path) -> None:
    """`--force` without `--out` was accepted and did nothing: a typo'd `--out` went unseen."""
    result = _cli("ledger", str(demo_run), "--force")
    assert "--force goes with --out FILE" in _one_line_error(result)
    assert result.stdout.count("\n") <= 1


@pytest.mark.parametrize("kind", ["symlink", "device", "directory"])
def test_ledger_out_never_replaces_what_is_not_a_regular_file(
    kind: str, demo_run: Path, tmp_path: Path
) -> None:
    target = tmp_path / "mine.txt"
    target.write_text("mine")
    if kind == "symlink":
        out = tmp_path / "link.csv"
        out.symlink_to(target)
    elif kind == "device":
        out = Path("/dev/full")
    else:
        out = tmp_path / "folder"
        out.mkdir()
    for force in ([], ["--force"]):
        result = _cli("ledger", str(demo_run), "--format", "csv", "--out", str(out), *force)
        message = _one_line_error(result)
        assert "refusing to replace it" in message or "is a directory" in message
    assert target.read_text() == "mine"
    assert out.is_symlink() if kind == "symlink" else True
    if kind == "device":
        assert Path("/dev/full").is_char_device()


@pytest.mark.parametrize("name", ["journal.jsonl", "seal.json", "new.csv"])
def test_ledger_out_never_writes_into_a_run_directory(
    name: str, demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    for force in ([], ["--force"]):
        result = _cli("ledger", str(run), "--format", "csv", "--out", str(run / name), *force)
        assert "is a run directory" in _one_line_error(result)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_ledger_out_under_a_missing_directory_is_one_line(demo_run: Path, tmp_path: Path) -> None:
    result = _cli("ledger", str(demo_run), "--out", str(tmp_path / "missing" / "l.beancount"))
    assert "does not exist" in _one_line_error(result)
    assert not (tmp_path / "missing").exists()


def test_ledger_out_into_an_unwritable_place_is_one_line(demo_run: Path) -> None:
    result = _cli("ledger", str(demo_run), "--out", "/proc/cfwb-ledger.csv")
    assert "cannot write" in _one_line_error(result)
    assert not os.path.lexists("/proc/cfwb-ledger.csv")


# -- control new --out ----------------------------------------------------------------


def test_control_new_never_writes_into_a_run_directory(
    campaign_copy: Path, demo_run: Path, tmp_path: Path
) -> None:
    """The control file holds the seed and salt a run must never carry; it could be
    written straight into a run directory."""
    campaign = make_private(campaign_copy)
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = {p.name: p.read_bytes() for p in run.iterdir()}
    result = _cli("control", "new", str(campaign), "--agent", "a", "--out", str(run / "c.json"))
    assert "is a run directory" in _one_line_error(result)
    assert {p.name: p.read_bytes() for p in run.iterdir()} == before


def test_control_new_writes_an_owner_only_file_whole_and_no_temporary(
    campaign_copy: Path, tmp_path: Path
) -> None:
    campaign = make_private(campaign_copy)
    out = tmp_path / "control.json"
    result = _cli("control", "new", str(campaign), "--agent", "a", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert out.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["campaign", "control.json"]
    for target in (out, Path("/dev/full")):
        again = _cli("control", "new", str(campaign), "--agent", "b", "--out", str(target))
        _one_line_error(again)
    assert Path("/dev/full").is_char_device()


@pytest.mark.parametrize("kind", ["dangling link", "file", "under a file", "unwritable"])
def test_a_bad_run_out_is_one_line_and_creates_nothing(kind: str, tmp_path: Path) -> None:
    out = _bad_destination(kind, tmp_path, "run", otherwise=Path("/proc/cfwb-run"))
    before = sorted(p.name for p in tmp_path.iterdir())
    _one_line_error(_cli("run", "--out", str(out)))
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert (tmp_path / "file").read_text() == "mine" if kind in ("file", "under a file") else True


def test_every_file_starts_its_writeback_before_the_first_wait_for_the_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One journal commit can carry every file only if each file's writeback has started
    before the first fsync; the evaluation's seals file starts its own as it is finished."""
    from workbench import outputs
    from workbench.evaluation import seal_stream

    events: list[str] = []
    real_fsync, real_fsync_file = outputs.os.fsync, outputs.fsync_file
    monkeypatch.setattr(outputs, "start_writeback", lambda fd: events.append("start"))
    monkeypatch.setattr(seal_stream, "start_writeback", lambda fd: events.append("start seals"))
    monkeypatch.setattr(outputs.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd)))
    monkeypatch.setattr(
        outputs, "fsync_file", lambda p: (events.append("fsync seals"), real_fsync_file(p))
    )
    with seal_stream.SealStream(tmp_path / "seals.gz") as stream:
        stream.append(b"{}\n")
        stream.finish()
    sums, report = tmp_path / "SHA256SUMS", tmp_path / "report.json"
    outputs.atomic_write_all(
        [(sums, b"sums\n"), (report, b"{}\n")], written=[tmp_path / "seals.gz"]
    )
    starts = [i for i, e in enumerate(events) if e.startswith("start")]
    waits = [i for i, e in enumerate(events) if e.startswith("fsync")]
    assert events[:3] == ["start seals", "start", "start"]
    assert len(starts) == 3 and "fsync seals" in events and max(starts) < min(waits)
    assert (sums.read_bytes(), report.read_bytes()) == (b"sums\n", b"{}\n")


_NAMES = ["seals", "SHA256SUMS", "report.json", ".report.json.ab12.tmp", "notes.txt", "reports"]
_INNER = ["branches.jsonl.gz", "other.gz", "seals"]
_KINDS = ["file", "dir", "link"]


def _make(path: Path, kind: str, elsewhere: Path) -> None:
    """A file (holding its name), a link to `elsewhere`, or an empty directory at `path`."""
    if kind == "file":
        path.write_text(path.name)
    elif kind == "link":
        path.symlink_to(elsewhere)
    else:
        path.mkdir()


def _plant(root: Path, entries: list[tuple[str, str, list[tuple[str, str]]]]) -> None:
    """Make `entries` under root: (name, kind, children) with children only under a dir."""
    root.mkdir()
    for name, kind, children in entries:
        _make(root / name, kind, root.parent / "elsewhere")
        if kind == "dir":
            for child, child_kind in children:
                _make(root / name / child, child_kind, root.parent / "elsewhere")


def _tree(root: Path) -> list[str]:
    return sorted(
        f"{p.relative_to(root)}:{'link' if p.is_symlink() else 'dir' if p.is_dir() else 'file'}"
        for p in root.rglob("*")
    )


@settings(max_examples=150, deadline=None)
@given(
    entries=st.lists(
        st.tuples(
            st.sampled_from(_NAMES),
            st.sampled_from(_KINDS),
            st.lists(st.tuples(st.sampled_from(_INNER), st.sampled_from(_KINDS)), max_size=3),
        ),
        max_size=4,
        unique_by=lambda e: e[0],
    )
)
def test_a_claim_removes_only_an_abandoned_output_exactly_as_written(
    tmp_path_factory: pytest.TempPathFactory, entries: list[tuple[str, str, list[tuple[str, str]]]]
) -> None:
    """Whatever a directory holds, claiming it either leaves it untouched (refused) or
    finds only what an unfinished evaluation writes, removes that and claims it."""
    out = tmp_path_factory.mktemp("claim") / "out"
    unique = [(n, k, list(dict(c).items())) for n, k, c in entries]
    _plant(out, unique)
    before = _tree(out)
    try:
        claim = claim_output_dir(out, EVALUATION_LAYOUT)
    except UserError as exc:
        assert "exists and is not empty" in exc.message
        assert _tree(out) == before
        return
    try:
        assert _tree(out) == ["seals:dir"]
        expected_ours = all(
            (
                name == "seals"
                and kind == "dir"
                and all(
                    child == "branches.jsonl.gz" and child_kind == "file"
                    for child, child_kind in children
                )
            )
            or (name in ("SHA256SUMS", ".report.json.ab12.tmp") and kind == "file")
            for name, kind, children in unique
        )
        assert expected_ours, before
    finally:
        claim.discard()


def test_without_file_locks_a_partial_output_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a file system that takes no locks (some network mounts), a directory is still
    claimed once (creating its claim directory is atomic), but a partial output is never
    taken for an abandoned one: nothing is removed."""
    import errno

    from workbench import outputs

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(outputs.fcntl, "flock", no_locks)
    out = tmp_path / "out"
    first = claim_output_dir(out, EVALUATION_LAYOUT)
    with pytest.raises(UserError, match="exists and is not empty"):
        claim_output_dir(out, EVALUATION_LAYOUT)
    (out / "seals" / "branches.jsonl.gz").write_bytes(b"partial")
    first.release()
    with pytest.raises(UserError, match="exists and is not empty"):
        claim_output_dir(out, EVALUATION_LAYOUT)
    assert (out / "seals" / "branches.jsonl.gz").read_bytes() == b"partial"


HOLD_A_TEMPORARY = """
import os, sys, time
from pathlib import Path
from workbench.outputs import _create_temp
fd, temp = _create_temp(Path(sys.argv[1]), sys.argv[2], 0o644)
os.write(fd, b"half of a large export")
print(temp, flush=True)
time.sleep(600)
"""


def _writer_holding_a_temporary(folder: Path, name: str) -> tuple[subprocess.Popen[str], Path]:
    """A real process in the middle of writing `folder/name`: its temporary sibling exists."""
    writer = subprocess.Popen(
        [sys.executable, "-c", HOLD_A_TEMPORARY, str(folder), name],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    return writer, Path(writer.stdout.readline().strip())


def test_a_killed_writers_temporary_is_removed_by_the_next_write_and_a_live_ones_never(
    tmp_path: Path,
) -> None:
    """A writer killed mid-write left `.NAME.RANDOM.tmp` for good (50 MB for `vc generate`).
    The next write of the same name removes it; a live writer's temporary, another name's,
    and anything that is not a regular file are left alone."""
    live, live_temp = _writer_holding_a_temporary(tmp_path, "export.csv")
    killed, dead_temp = _writer_holding_a_temporary(tmp_path, "export.csv")
    other, other_temp = _writer_holding_a_temporary(tmp_path, "other.csv")
    try:
        killed.kill()
        killed.wait(30)
        other.kill()
        other.wait(30)
        (tmp_path / ".export.csv.0123456789ab.tmp").mkdir()
        (tmp_path / ".export.csv.ba9876543210.tmp").symlink_to(other_temp)
        outputs.write_new_file(tmp_path / "export.csv", b"a,b\n")
        assert (tmp_path / "export.csv").read_bytes() == b"a,b\n"
        assert not dead_temp.exists()
        assert live_temp.read_bytes() == b"half of a large export"
        assert other_temp.exists()
        assert (tmp_path / ".export.csv.0123456789ab.tmp").is_dir()
        assert (tmp_path / ".export.csv.ba9876543210.tmp").is_symlink()
    finally:
        for process in (live, killed, other):
            process.kill()
            process.wait(30)
    outputs.write_new_file(tmp_path / "export.csv", b"c,d\n", force=True)
    assert not live_temp.exists()


def test_every_temporary_is_held_until_it_is_put_in_place(tmp_path: Path) -> None:
    """No cleaner can take a temporary between its write and its rename: a cleaner running
    against every write of a batch removes none of them, and each file lands whole."""
    files = [(tmp_path / f"f{i}.json", f"{i}".encode() * 1000) for i in range(20)]
    real_replace = os.replace

    def cleaning_first(source: str | Path, target: str | Path) -> None:
        outputs.remove_dead_temporaries(tmp_path, [Path(target).name])
        real_replace(source, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(outputs.os, "replace", cleaning_first)
        outputs.atomic_write_all(files)
    for path, data in files:
        assert path.read_bytes() == data
