"""`workbench causal`: generate, score, schema, audit and manifest through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from graders.causal_gym import manifest_builder, tasks
from graders.causal_gym.audit import honest_submission, load_report, render_report
from graders.causal_gym.keys import DEFAULT_KEY_HEX, KEY_ENV
from graders.causal_gym.manifest import EVAL_COUNTS, MANIFEST_FILE
from graders.causal_gym.tasks import materialise
from graders.causal_gym.version import GENERATOR_VERSION
from tests.placed import one_error_line as _one_line_error
from tests.placed import place
from workbench.cli import main

KEY = bytes.fromhex(DEFAULT_KEY_HEX)


@pytest.fixture()
def runner(monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.delenv(KEY_ENV, raising=False)
    return CliRunner()


def _default_mode() -> int:
    """What a plain new file gets here: 0o666 less the umask (not mkstemp's 0o600)."""
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def _generate(runner: CliRunner, out: Path, *extra: str) -> str:
    args = ["causal", "generate", "--family", "ate", "--task-id", "3", "--out", str(out), *extra]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_generate_is_byte_identical_and_holds_two_files(runner: CliRunner, tmp_path: Path) -> None:
    _generate(runner, tmp_path / "a")
    output = _generate(runner, tmp_path / "b")
    for name in ("data.csv", "README.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["README.md", "data.csv"]
    assert (tmp_path / "a" / "data.csv").stat().st_mode & 0o777 == _default_mode()
    task = materialise(KEY, "train", "ate", 3)
    assert (tmp_path / "a" / "data.csv").read_text() == task.staged.csv_text
    assert str(round(task.truth, 4)) not in output
    assert DEFAULT_KEY_HEX not in output


def test_key_option_and_env_precedence(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _generate(runner, tmp_path / "default")
    _generate(runner, tmp_path / "option", "--key", "ab" * 32)
    monkeypatch.setenv(KEY_ENV, "cd" * 32)
    _generate(runner, tmp_path / "env", "--key", "ab" * 32)
    data = {
        name: (tmp_path / name / "data.csv").read_bytes() for name in ("default", "option", "env")
    }
    assert len(set(data.values())) == 3
    monkeypatch.setenv(KEY_ENV, "ab" * 32)
    _generate(runner, tmp_path / "env2")
    assert (tmp_path / "env2" / "data.csv").read_bytes() == data["option"]


def test_generate_refuses_a_folder_with_other_files(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    args = ["causal", "generate", "--family", "ate", "--task-id", "1", "--out", str(tmp_path)]
    result = runner.invoke(main, args)
    assert result.exit_code == 2
    assert "notes.txt" in result.output
    assert not (tmp_path / "data.csv").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--family", "ate", "--split", "eval-v2", "--task-id", "999"], "manifest"),
        (["--family", "ate", "--split", "eval-v1", "--task-id", "0"], "generator version 1"),
        (["--family", "ate", "--task-id", "1", "--key", "nothex"], "hexadecimal"),
        (["--family", "ate", "--task-id", "1", "--key", ""], "--key is blank"),
        (["--family", "cate", "--task-id", "1"], "cate"),
        (["--family", "ate", "--task-id", "-1"], "task-id"),
        (["--family", "ate", "--task-id", "9" * 5000], "not in the range"),
        (["--family", "ate", "--task-id", "x" * 5000], "not a whole number"),
        (["--family", "c" * 5000, "--task-id", "1"], "is not one of"),
        (["--family", "ate", "--split", "s" * 5000, "--task-id", "1"], "is not one of"),
    ],
)
def test_generate_user_errors(
    runner: CliRunner, tmp_path: Path, args: list[str], needle: str
) -> None:
    result = runner.invoke(main, ["causal", "generate", *args, "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert needle in result.output
    assert "Traceback" not in result.output
    assert len(result.output) < 500
    assert not (tmp_path / "x").exists()


def test_score_rederives_the_task_and_prints_the_breakdown(
    runner: CliRunner, tmp_path: Path
) -> None:
    task = materialise(KEY, "eval-v2", "null_detect", 5)
    path = tmp_path / "answer.json"
    path.write_text(json.dumps(honest_submission(task)))
    args = ["causal", "score", "--family", "null_detect", "--split", "eval-v2", "--task-id", "5"]
    result = runner.invoke(main, [*args, str(path)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["estimand"]["truth"] == task.truth
    assert set(data["components"]) == {"estimand", "brier_skill"}
    assert data["clipped_reward"] == max(-1.0, data["reward"])
    assert data["weights"] == {"estimand": 0.9, "brier_skill": 0.1}
    assert data["generator_version"] == GENERATOR_VERSION


def test_score_rejects_an_invalid_submission(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "answer.json"
    path.write_text('{"estimate": 1.0, "interval": [2.0, 1.0]}')
    result = runner.invoke(
        main, ["causal", "score", "--family", "ate", "--task-id", "0", str(path)]
    )
    assert result.exit_code == 2
    assert "lo <= hi" in result.output
    assert "reward" not in result.output


def _score(runner: CliRunner, path: Path) -> Result:
    return runner.invoke(main, ["causal", "score", "--family", "ate", "--task-id", "0", str(path)])


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('{"estimate": 0.5, "interval": [-1e308, 1e308]}', "less than or equal to"),
        ('{"estimate": 1e308, "interval": [1e308, 1e308]}', "less than or equal to"),
        ('{"estimate": 0.5, "interval": [0, 1], "estimate": 0.7}', "duplicate key 'estimate'"),
        ('{"estimate": NaN, "interval": [0, 1]}', "not strict JSON"),
        (r'{"estimate": 0.5, "interval": [0, 1], "\u001b[2J": 1}', "\\x1b[2J"),
    ],
)
def test_score_refuses_what_cannot_give_a_finite_reward_or_is_not_strict_json(
    runner: CliRunner, tmp_path: Path, text: str, needle: str
) -> None:
    path = tmp_path / "answer.json"
    path.write_text(text)
    result = _score(runner, path)
    assert result.exit_code == 2, result.output
    assert needle in result.output
    assert "reward" not in result.output and "Traceback" not in result.output
    assert "\x1b" not in result.output
    lines = result.output.strip().splitlines()
    assert all(
        line.startswith(("Error: invalid submission", "invalid submission")) for line in lines
    )


def test_score_reads_the_submission_bounded(runner: CliRunner, tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1024 * 1024 + 1))
    result = _score(runner, big)
    assert result.exit_code == 2 and "limit of 1 MiB" in result.output
    result = _score(runner, Path("/dev/zero"))
    assert result.exit_code == 2 and "limit of 1 MiB" in result.output
    result = _score(runner, tmp_path / "missing.json")
    assert result.exit_code == 2 and "does not exist" in result.output


def test_a_malformed_key_is_named_not_echoed(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "f00d" * 7 + "zz"
    result = runner.invoke(
        main,
        [
            "causal",
            "generate",
            "--family",
            "ate",
            "--task-id",
            "1",
            "--key",
            secret,
            "--out",
            str(tmp_path / "a"),
        ],
    )
    assert result.exit_code == 2 and "--key is not hexadecimal" in result.output
    assert "f00d" not in result.output
    monkeypatch.setenv(KEY_ENV, secret)
    result = runner.invoke(main, ["causal", "audit", "--family", "ate", "-n", "1"])
    assert result.exit_code == 2 and f"{KEY_ENV} is not hexadecimal" in result.output
    assert "f00d" not in result.output
    monkeypatch.setenv(KEY_ENV, "")
    result = runner.invoke(main, ["causal", "schema", "ate"])
    assert result.exit_code == 0
    result = runner.invoke(
        main,
        ["causal", "generate", "--family", "ate", "--task-id", "1", "--out", str(tmp_path / "b")],
    )
    assert result.exit_code == 2 and f"{KEY_ENV} is blank" in result.output
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize(
    "args",
    [["audit", "-n", "9" * 5000], ["audit", "-n", "0"], ["schema", "f" * 5000]],
)
def test_huge_or_bad_values_are_quoted_clipped(runner: CliRunner, args: list[str]) -> None:
    result = runner.invoke(main, ["causal", *args])
    assert result.exit_code == 2
    assert len(result.output) < 500 and "Traceback" not in result.output


def test_schema(runner: CliRunner) -> None:
    result = runner.invoke(main, ["causal", "schema", "adjustment"])
    assert result.exit_code == 0
    assert "adjustment_set" in json.loads(result.output)["required"]


def test_audit_small(runner: CliRunner, tmp_path: Path) -> None:
    report = tmp_path / "audit.json"
    args = ["causal", "audit", "--family", "null_detect", "-n", "20", "--json", str(report)]
    result = runner.invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "honest reward" in result.output and "structural-null check" in result.output
    assert f"generator version {GENERATOR_VERSION}" in result.output
    data = json.loads(report.read_text())
    assert data["n_per_family"] == 20 and data["families"][0]["family"] == "null_detect"
    assert data["families"][0]["null_check"]["n"] == 7
    assert data["generator_version"] == GENERATOR_VERSION and len(data["tasks"]) == 20
    assert render_report(load_report(report.read_bytes())) == report.read_text()
    assert report.stat().st_mode & 0o777 == _default_mode()


def test_audit_and_manifest_never_replace_a_non_file(runner: CliRunner, tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    for args in (
        ["causal", "audit", "--family", "ate", "-n", "1", "--json", str(tmp_path / "folder")],
        ["causal", "manifest", "--out", str(tmp_path / "folder")],
        ["causal", "audit", "--family", "ate", "-n", "1", "--json", str(tmp_path / "no" / "a")],
    ):
        result = runner.invoke(main, args)
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
    assert (tmp_path / "folder").is_dir() and not (tmp_path / "no").exists()


def test_manifest_command_reproduces_the_committed_prefix(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(manifest_builder, "EVAL_COUNTS", {"ate": 2, "null_detect": 2})
    out = tmp_path / "manifest.json"
    result = runner.invoke(main, ["causal", "manifest", "--out", str(out)])
    assert result.exit_code == 0, result.output
    produced = json.loads(out.read_text())["tasks"]
    committed = json.loads((Path(manifest_builder.__file__).parent / MANIFEST_FILE).read_text())[
        "tasks"
    ]
    wanted = [t for t in committed if t["task_id"] < 2 and t["family"] in ("ate", "null_detect")]
    assert produced == wanted
    assert sum(EVAL_COUNTS.values()) == 500


def test_a_task_that_cannot_be_generated_is_a_user_error(
    runner: CliRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tasks, "MAX_ATTEMPTS", 0)
    with pytest.raises(tasks.CausalGenerationError) as info:
        materialise(KEY, "train", "ate", 1)
    assert isinstance(info.value, ValueError)
    args = ["causal", "generate", "--family", "ate", "--task-id", "1", "--out", str(tmp_path / "t")]
    result = runner.invoke(main, args)
    assert result.exit_code == 2 and "no valid task in 0 attempts" in result.output
    assert not (tmp_path / "t").exists()


def _generate_args(out: Path, task_id: int = 1) -> list[str]:
    """`causal generate` of ate task `task_id` into `out`."""
    return ["causal", "generate", "--family", "ate", "--task-id", str(task_id), "--out", str(out)]


def _put(kind: str, path: Path, elsewhere: Path) -> None:
    """Something that is not a regular file at `path` (a link's target, in the folder
    `elsewhere`, is one)."""
    place(kind, path, elsewhere)


def _snapshot(folder: Path) -> dict[str, tuple[int, int, bytes | None]]:
    """Every entry of `folder`: its mode, inode and, for a regular file, its bytes."""
    entries = {}
    for entry in folder.iterdir():
        info = os.lstat(entry)
        data = entry.read_bytes() if stat.S_ISREG(info.st_mode) else None
        entries[entry.name] = (info.st_mode, info.st_ino, data)
    return entries


def test_generate_restages_a_folder_only_with_force(runner: CliRunner, tmp_path: Path) -> None:
    """A second generate into one folder replaced the first task's files without asking."""
    out = tmp_path / "task"
    assert runner.invoke(main, _generate_args(out, 1)).exit_code == 0
    first = _snapshot(out)
    refused = runner.invoke(main, _generate_args(out, 2))
    assert "refusing to overwrite it unless forced (--force)" in _one_line_error(refused)
    assert _snapshot(out) == first
    forced = runner.invoke(main, [*_generate_args(out, 2), "--force"])
    assert forced.exit_code == 0, forced.output
    task = materialise(KEY, "train", "ate", 2)
    assert (out / "data.csv").read_text() == task.staged.csv_text
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "data.csv"]


@pytest.mark.parametrize("kind", ["symlink", "device", "named pipe", "directory"])
@pytest.mark.parametrize("name", ["data.csv", "README.md"])
def test_generate_never_replaces_a_staged_name_that_is_not_a_regular_file(
    runner: CliRunner, tmp_path: Path, kind: str, name: str
) -> None:
    out = tmp_path / "task"
    out.mkdir()
    _put(kind, out / name, tmp_path)
    before = _snapshot(tmp_path), _snapshot(out)
    for force in ([], ["--force"]):
        _one_line_error(runner.invoke(main, [*_generate_args(out), *force]))
        assert (_snapshot(tmp_path), _snapshot(out)) == before
    if kind == "symlink":
        assert (tmp_path / f"{name}.target").read_text() == "mine"


def test_generate_never_stages_into_a_run_directory(
    runner: CliRunner, demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = _snapshot(run)
    for out in (run, run / "task"):
        for force in ([], ["--force"]):
            _one_line_error(runner.invoke(main, [*_generate_args(out), *force]))
    assert _snapshot(run) == before


def _file_commands(path: Path) -> list[list[str]]:
    """The commands that write one user-named file: audit --json and manifest --out."""
    return [
        ["causal", "audit", "--family", "ate", "-n", "1", "--json", str(path)],
        ["causal", "manifest", "--out", str(path)],
    ]


@pytest.fixture()
def small_manifest(monkeypatch: pytest.MonkeyPatch) -> None:
    """A manifest of four tasks, so a manifest the command does write is quick."""
    monkeypatch.setattr(manifest_builder, "EVAL_COUNTS", {"ate": 2, "null_detect": 2})


@pytest.mark.usefixtures("small_manifest")
def test_audit_json_and_manifest_replace_an_existing_file_only_with_force(
    runner: CliRunner, tmp_path: Path
) -> None:
    """Both replaced an existing file without asking."""
    out = tmp_path / "out.json"
    for args in _file_commands(out):
        out.write_text("mine")
        out.chmod(0o640)
        refused = runner.invoke(main, args)
        assert "refusing to overwrite it unless forced (--force)" in _one_line_error(refused)
        assert "auditing" not in refused.output and "materialising" not in refused.output
        assert out.read_text() == "mine"
        forced = runner.invoke(main, [*args, "--force"])
        assert forced.exit_code == 0, forced.output
        assert json.loads(out.read_text()) and out.stat().st_mode & 0o777 == 0o640
        assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]
        out.unlink()


@pytest.mark.parametrize("kind", ["symlink", "device", "named pipe"])
def test_audit_json_and_manifest_never_replace_a_link_device_or_pipe(
    runner: CliRunner, tmp_path: Path, kind: str
) -> None:
    """Refused with and without --force, and before any work: the audit and the manifest
    used to run to the end first, then refuse the path."""
    out = tmp_path / "out.json"
    _put(kind, out, tmp_path)
    before = _snapshot(tmp_path)
    for args in _file_commands(out):
        for force in ([], ["--force"]):
            refused = runner.invoke(main, [*args, *force])
            assert "refusing to replace it" in _one_line_error(refused)
            assert "auditing" not in refused.output and "materialising" not in refused.output
    assert _snapshot(tmp_path) == before


def test_audit_json_and_manifest_never_write_into_a_run_directory(
    runner: CliRunner, demo_run: Path, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(demo_run, run)
    before = _snapshot(run)
    for name in ("seal.json", "report.json"):
        for args in _file_commands(run / name):
            for force in ([], ["--force"]):
                refused = runner.invoke(main, [*args, *force])
                assert "is a run directory" in _one_line_error(refused)
    assert _snapshot(run) == before


def test_score_reads_past_a_leading_byte_order_mark(runner: CliRunner, tmp_path: Path) -> None:
    text = b'{"estimate": 0.8, "interval": [0.6, 1.0]}\r\n'
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    plain.write_bytes(text)
    marked.write_bytes(b"\xef\xbb\xbf" + text)
    scored = [_score(runner, path) for path in (plain, marked)]
    assert scored[0].exit_code == scored[1].exit_code == 0, scored[1].output
    assert scored[0].stdout == scored[1].stdout
