"""`workbench new` scaffolds that pass the gate; schemas and the field reference match the
models; bundled campaigns play by name."""

from __future__ import annotations

import functools
import json
import os
import re
import shlex
import shutil
import string
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from campaigns import BUNDLED_CAMPAIGNS, SCHEMA_DIR, BundledCampaign, resolve_campaign
from sim.campaign_load import CampaignError, Problem, load_campaign
from workbench.authoring import reference
from workbench.authoring.scaffold import campaign_id_for
from workbench.cli import main


@pytest.mark.parametrize("source", [None, "default", "gelato"])
def test_a_new_campaign_passes_the_strict_gate(tmp_path: Path, source: str | None) -> None:
    target = tmp_path / "shops" / "My Shop"
    args = ["new", str(target)] + (["--from", source] if source else [])
    created = CliRunner().invoke(main, args)
    assert created.exit_code == 0, created.output
    bundle = load_campaign(target)
    assert bundle.id == "my-shop"
    for name in ("campaign.toml", "actions.toml", "metrics.toml", "questions.toml"):
        first = (target / name).read_text().splitlines()[0]
        assert first.startswith("#:schema ") and first.endswith(name.replace(".toml", ".json"))
        schema = (target / first.removeprefix("#:schema ")).resolve()
        assert schema == (SCHEMA_DIR / name.replace(".toml", ".json")).resolve()
    assert "CHANGE" in (target / "campaign.toml").read_text()
    gate = CliRunner().invoke(main, ["check", str(target), "--strict"])
    assert gate.exit_code == 0, gate.output[-3000:]


FOLDER_NAMES = st.text(
    alphabet=string.ascii_letters + string.digits + " ._-éß", min_size=1, max_size=40
).filter(lambda name: name.strip(". ") != "")
"""Folder names `new` makes a campaign id from (any id, or the fallback `my-campaign`)."""


def _strict_check(campaign: str) -> dict[str, Any]:
    """`check CAMPAIGN --strict --json` as a document; the exit code must be 0."""
    result = CliRunner().invoke(main, ["check", campaign, "--strict", "--json"])
    assert result.exit_code == 0, result.output[-3000:]
    document: dict[str, Any] = json.loads(result.stdout)
    return document


@functools.cache
def _bundled_strict_check(name: str) -> dict[str, Any]:
    """`_strict_check` of a bundled campaign, run once per test process."""
    return _strict_check(name)


@pytest.mark.parametrize("bundled", BUNDLED_CAMPAIGNS, ids=lambda b: b.name)
@settings(max_examples=4, deadline=None)
@given(name=FOLDER_NAMES)
def test_new_from_a_bundled_campaign_passes_the_strict_gate_under_any_name(
    bundled: BundledCampaign, name: str
) -> None:
    """`new --from` renames the copy after its folder; the gate's verdict and every finding
    stay the original's, whatever the name."""
    original = _bundled_strict_check(bundled.name)
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / name
        created = CliRunner().invoke(main, ["new", str(target), "--from", bundled.name])
        assert created.exit_code == 0, created.output
        copy = _strict_check(str(target))
        assert copy["campaign"] == campaign_id_for(target)
    assert copy["passed"]
    assert copy["findings"] == original["findings"]
    assert copy["spreads"] == original["spreads"]


def test_new_from_a_private_campaign_makes_a_development_copy_that_checks(
    tmp_path: Path,
) -> None:
    """Before: the copy was private too, so `check` refused it (exit 2) without a control
    file, and the source's names the source's digest. Now it is checked on a public seed,
    whose findings may differ from the secret one's."""
    from tests.workbench.conftest import make_private

    private = tmp_path / "private"
    private.mkdir()
    for name in os.listdir(resolve_campaign("default")):
        source = Path(resolve_campaign("default")) / name
        if source.is_file():
            (private / name).write_bytes(source.read_bytes())
    make_private(private)
    target = tmp_path / "copy"
    created = CliRunner().invoke(main, ["new", str(target), "--from", str(private)])
    assert created.exit_code == 0, created.output
    assert "is private: this is a development copy" in created.output
    bundle = load_campaign(target)
    assert bundle.campaign.visibility == "development"
    assert bundle.campaign.development_seed == 1
    checked = CliRunner().invoke(main, ["check", str(target)])  # judged on seed 1 now
    assert checked.exit_code in (0, 1), checked.output[-2000:]
    assert "control" not in checked.output


def test_new_refuses_a_folder_with_content_and_leaves_it_alone(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    result = CliRunner().invoke(main, ["new", str(target)])
    assert result.exit_code == 2 and "not an empty folder" in result.output
    assert [p.name for p in target.iterdir()] == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_new_from_a_broken_campaign_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    result = CliRunner().invoke(main, ["new", str(tmp_path / "copy"), "--from", str(broken)])
    assert result.exit_code == 2
    assert not (tmp_path / "copy").exists()


def test_regenerating_the_reference_changes_nothing() -> None:
    assert reference.outdated() == []


def test_schemas_carry_the_models_ranges() -> None:
    campaign = json.loads((SCHEMA_DIR / "campaign.json").read_text())
    horizon = campaign["properties"]["horizon_days"]
    assert (horizon["minimum"], horizon["maximum"]) == (7, 36_500)
    questions = json.loads((SCHEMA_DIR / "questions.json").read_text())
    deadline = questions["$defs"]["Question"]["properties"]["deadline_day"]
    assert deadline["minimum"] == 1


def test_the_field_tables_name_every_range() -> None:
    tables = reference.field_tables()
    assert "| `horizon_days` | integer | 7 to 36,500 days |" in tables
    assert "| `company.price` |" in tables and "$0.01 to $1,000,000.00" in tables
    assert "`questions[].expect_intervention`" in tables


def test_bundled_campaigns_are_listed_and_play_by_name(tmp_path: Path) -> None:
    assert [b.name for b in BUNDLED_CAMPAIGNS][:2] == ["default", "gelato"]
    for bundled in BUNDLED_CAMPAIGNS:
        assert resolve_campaign(bundled.name) == bundled.path
        assert load_campaign(bundled.path).horizon >= 180
    result = CliRunner().invoke(main, ["run", "gelato", "--out", str(tmp_path / "run")])
    assert result.exit_code == 0, result.output
    assert "marina-gelato: played to day 364 of 364" in result.output


# -- messages name the user's files, never a scratch folder ---------------------------------
SCRATCH = "cfwb-scratch-mark"
"""The name of the temporary folder the tests give the author tools: no message may show it."""

REFERENCE_COMMANDS = st.one_of(
    st.builds(lambda d: {"kind": "advance", "days": d}, st.integers(1, 200)),
    st.builds(
        lambda a: {"kind": "schedule", "action": a},
        st.sampled_from(["spring_campaign", "bank_loan", "hire_second_roaster", "nope"]),
    ),
    st.just({"kind": "finish"}),
)


@settings(max_examples=25, deadline=None)
@given(commands=st.lists(REFERENCE_COMMANDS, min_size=1, max_size=6))
def test_a_failing_reference_script_is_named_by_its_file_and_line(
    commands: list[dict[str, Any]],
) -> None:
    """`check` plays reference.jsonl into a temporary run: a command after `finish` said
    `/tmp/tmp…/ref is finished`. Any failing line is named by the user's file and line,
    and no message shows the temporary folder."""
    from workbench.authoring.check import _reference_entries
    from workbench.errors import WorkbenchError

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "shop"
        assert CliRunner().invoke(main, ["new", str(folder), "--from", "default"]).exit_code == 0
        script = folder / "reference.jsonl"
        script.write_text("".join(json.dumps(c) + "\n" for c in commands))
        bundle = load_campaign(folder)
        scratch = Path(tmp) / SCRATCH
        scratch.mkdir()
        saved, tempfile.tempdir = tempfile.tempdir, str(scratch)
        try:
            _reference_entries(bundle, None)
        except WorkbenchError as exc:
            assert re.match(rf"{re.escape(str(script))}:[1-6]: ", exc.message), exc.message
            assert SCRATCH not in exc.message and SCRATCH not in str(exc)
            assert "\n" not in exc.message
        finally:
            tempfile.tempdir = saved


def test_check_names_a_command_after_finish_by_its_line(tmp_path: Path) -> None:
    """The audit's repro, through the CLI: exit 2 and the user's file and line."""
    folder = tmp_path / "r11"
    assert CliRunner().invoke(main, ["new", str(folder), "--from", "default"]).exit_code == 0
    (folder / "reference.jsonl").write_text('{"kind":"finish"}\n{"kind":"advance","days":1}\n')
    result = CliRunner().invoke(main, ["check", str(folder), "--strict"])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"Error: {folder}/reference.jsonl:2: the reference play is finished (day 180 of 180): "
        "it accepts no further command"
    )


def test_new_never_names_its_staging_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`new` writes the campaign beside its target, then renames it into place: a problem
    found in the staging folder names the target."""
    from sim.campaign_load import load_campaign as real_load
    from workbench.authoring import scaffold

    def refusing(folder: Path) -> Any:
        real_load(folder)
        raise CampaignError([Problem(str(folder), "", f"{folder}/campaign.toml could not be read")])

    monkeypatch.setattr(scaffold, "load_campaign", refusing)
    target = tmp_path / "shop"
    result = CliRunner().invoke(main, ["new", str(target)])
    assert result.exit_code == 2
    assert f"{target}: {target}/campaign.toml could not be read" in result.output
    assert ".shop-" not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == []


# -- `new`: the id it makes, where it writes, what it prints --------------------------------
@pytest.mark.parametrize(
    ("name", "campaign_id"),
    [("café", "cafe"), ("Straße 9", "strasse-9"), ("Ünïcödé", "unicode"), ("日本", "my-campaign")],
)
def test_new_makes_the_id_from_the_folder_name_and_says_so(
    tmp_path: Path, name: str, campaign_id: str
) -> None:
    """`new café` made the id `caf` without a word: accented letters keep their base letter,
    and a folder name that is not an id as written is followed by a line naming the id."""
    result = CliRunner().invoke(main, ["new", str(tmp_path / name)])
    assert result.exit_code == 0, result.output
    assert load_campaign(tmp_path / name).id == campaign_id
    assert f"the campaign id is {campaign_id!r}, made from the folder name {name!r}" in (
        result.output
    )
    plain = CliRunner().invoke(main, ["new", str(tmp_path / "plain")])
    assert "the campaign id is" not in plain.output


@pytest.mark.parametrize("inside", ["sub", "deeper/sub"])
def test_new_refuses_a_folder_inside_a_run(tmp_path: Path, inside: str) -> None:
    """A campaign written into a run directory would travel with the run (every other
    output refuses run directories): one line, exit 2, nothing written."""
    run = tmp_path / "run1"
    assert CliRunner().invoke(main, ["run", "default", "--out", str(run)]).exit_code == 0
    before = sorted(p.name for p in run.iterdir())
    result = CliRunner().invoke(main, ["new", str(run / inside)])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: campaign folder {run / inside}: {run} is a run directory; a campaign is never "
        "created inside a run (choose a folder outside it)"
    ]
    assert sorted(p.name for p in run.iterdir()) == before


HINT_NAMES = st.text(
    alphabet=string.ascii_letters + string.digits + " -_.'\"$*é", min_size=1, max_size=20
).filter(lambda name: name.strip(". ") != "" and "/" not in name)


@settings(max_examples=6, deadline=None)
@given(name=HINT_NAMES)
@example(name="-dash").via("the audit's example")
@example(name="my shop's 'best'")
def test_the_next_step_can_be_pasted(name: str) -> None:
    """`new -- -dash` printed `workbench check -dash --strict`, which reads `-dash` as an
    option: the printed commands name the folder as a shell word that is the folder."""
    with tempfile.TemporaryDirectory() as tmp:
        here = os.getcwd()
        os.chdir(tmp)
        try:
            created = CliRunner().invoke(main, ["new", "--", name])
            assert created.exit_code == 0, created.output
            hint = created.output.strip().splitlines()[-1]
            check, play = re.findall(r"`([^`]*)`", hint)
            argv = shlex.split(check)
            assert argv[:2] == ["workbench", "check"] and argv[-1] == "--strict"
            assert shlex.split(play)[2:] == argv[2:-1]
            result = CliRunner().invoke(main, ["check", *argv[2:-1], "--seeds", "0"])
            assert result.exit_code == 0, result.output
        finally:
            os.chdir(here)


def test_a_copy_of_a_copy_keeps_one_header(tmp_path: Path) -> None:
    """Each `new --from` put its two header lines above the last copy's."""
    source = "default"
    for name in ("first", "second", "third"):
        result = CliRunner().invoke(main, ["new", str(tmp_path / name), "--from", source])
        assert result.exit_code == 0, result.output
        source = str(tmp_path / name)
    text = (tmp_path / "third" / "campaign.toml").read_text()
    assert text.count("# Copied from") == 1 and "# Copied from second by" in text
    assert text.count("CHANGE: the id, title, description") == 1


@pytest.mark.parametrize(
    "spelling",
    ["id = 'harbor-roasters'", 'id="harbor-roasters"', '"id" = "harbor-roasters"  # mine'],
)
def test_new_renames_the_campaign_id_however_it_is_written(
    campaign_copy: Path, tmp_path: Path, spelling: str
) -> None:
    """With `id = '…'` the first `id = "…"` line was a role's: the copy renamed a role and
    kept the original id. Only the top-level id is renamed, however it is quoted."""
    path = campaign_copy / "campaign.toml"
    path.write_text(path.read_text().replace('id = "harbor-roasters"', spelling, 1))
    result = CliRunner().invoke(main, ["new", str(tmp_path / "copy"), "--from", str(campaign_copy)])
    assert result.exit_code == 0, result.output
    copy_ = load_campaign(tmp_path / "copy")
    assert copy_.id == "copy"
    original = load_campaign(campaign_copy)
    assert copy_.campaign.company.roles == original.campaign.company.roles


def _refused_new(*args: str | Path) -> str:
    """The one line of a `new` refused with exit 2 (no traceback)."""
    result = CliRunner().invoke(main, ["new", *map(str, args)])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.mark.parametrize("points_to", ["an empty folder", "nothing"])
def test_new_refuses_a_symbolic_link_as_its_folder_in_one_line(
    tmp_path: Path, points_to: str
) -> None:
    """`new LINK` (to an empty folder, or dangling) failed with `LINK: cannot create the
    campaign (Not a directory)`: the folder was staged beside the link's target and
    renamed onto the link. A new campaign is made at a path of its own, so a link is
    refused, saying so, and nothing is made on either side of it."""
    real = tmp_path / "real"
    if points_to == "an empty folder":
        real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    line = _refused_new(link)
    assert line == (
        f"Error: {link} is a symbolic link; a new campaign is made at a path of its own "
        "(name the folder itself, not a link to it)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["link", *(["real"] if real.exists() else [])]
    )
    assert not real.exists() or not any(real.iterdir())


def test_a_refused_new_removes_the_parent_folders_it_made(tmp_path: Path) -> None:
    """`new a/b/NAME` made a/ and a/b/ before it found it could not make NAME (a name too
    long for the file system, a full disk): a refused command leaves nothing behind."""
    target = tmp_path / "a" / "b" / ("n" * 300)
    line = _refused_new(target)
    assert "File name too long" in line
    assert list(tmp_path.iterdir()) == []


def test_new_makes_a_campaign_whose_name_is_as_long_as_a_name_can_be(tmp_path: Path) -> None:
    """Its staging folder, `.NAME-XXXXXXXX` beside it, was longer than the file system takes
    for a name of 247 bytes or more: `new` refused a name that `mkdir` takes."""
    target = tmp_path / ("n" * 255)
    result = CliRunner().invoke(main, ["new", str(target)])
    assert result.exit_code == 0, result.output
    assert load_campaign(target).id == "n" * 64
    assert [p.name for p in tmp_path.iterdir()] == [target.name]


def test_two_new_into_one_folder_at_once_make_one_campaign(tmp_path: Path) -> None:
    """Four `new` racing for one folder: one makes it, each other is refused as for any
    folder with content (before: `cannot create the campaign (Directory not empty)`, its
    staging folder having been written for nothing), and no staging folder is left."""
    target = tmp_path / "shop"
    command = [sys.executable, "-m", "workbench", "new", str(target)]
    racers = [
        subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]
    results = [(p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in racers]
    assert sorted(code for code, _ in results) == [0, 2, 2, 2], results
    refusals = {err for code, err in results if code == 2}
    assert refusals == {f"Error: {target} exists and is not an empty folder\n"}, refusals
    assert [p.name for p in tmp_path.iterdir()] == ["shop"]
    assert load_campaign(target).id == "shop"


def test_a_new_waits_for_another_in_the_same_folder_and_removes_a_dead_ones_staging(
    tmp_path: Path,
) -> None:
    """A staging folder no live `new` holds (its writer was killed) is removed by the next
    `new` there; one written while the folder's lock is held is not touched until then."""
    import fcntl

    dead = tmp_path / ".shop.workbench-new-abcd1234"
    dead.mkdir()
    (dead / "campaign.toml").write_text('id = "half"\n')
    mine = tmp_path / ".mine-abcd1234"  # not a staging folder's name: the user's own
    mine.mkdir()
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        waiting = subprocess.Popen(
            [sys.executable, "-m", "workbench", "new", str(tmp_path / "shop")],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        with pytest.raises(subprocess.TimeoutExpired):
            waiting.wait(timeout=2)
        assert dead.exists()
    finally:
        os.close(fd)
    assert waiting.wait(timeout=120) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == [".mine-abcd1234", "shop"]


@settings(max_examples=25, deadline=None)
@given(
    spelling=st.sampled_from(
        ['id = "{}"', "id = '{}'", 'id="{}"', '"id" = "{}"', "'id' = '{}'  # mine", 'id = "{}"#x']
    ),
    ending=st.sampled_from(["\n", "\r\n"]),
    bom=st.booleans(),
    private=st.booleans(),
)
def test_new_copies_a_campaign_however_its_lines_end(
    spelling: str, ending: str, bom: bool, private: bool
) -> None:
    """`new --from` a campaign saved with Windows line endings (`\\r\\n`, which TOML and
    `check` take) was refused: 'no top-level `id = "..."` line to rename' (the line
    patterns ended at `$`, before `\\n` only), and so was a private one's visibility
    line. Every spelling of the id, either line ending, with or without a byte-order
    mark, private or not: the copy is made, under its own id."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "source"
        shutil.copytree(resolve_campaign("default"), source)
        for path in source.glob("*.toml"):
            text = path.read_text(encoding="utf-8")
            if path.name == "campaign.toml":
                text = text.replace('id = "harbor-roasters"', spelling.format("harbor-roasters"))
                if private:
                    text = text.replace('visibility = "development"', 'visibility = "private"')
                    text = re.sub(r"(?m)^development_seed = .*\n", "", text)
            data = text.replace("\n", ending).encode()
            path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
        result = CliRunner().invoke(main, ["new", str(Path(tmp) / "copy"), "--from", str(source)])
        assert result.exit_code == 0, result.output
        copied = load_campaign(Path(tmp) / "copy")
        assert copied.id == "copy"
        assert copied.campaign.visibility == "development"


def test_new_into_the_current_folder_says_why_it_cannot(tmp_path: Path) -> None:
    """`new .` in an empty folder: the campaign is renamed onto the folder, which the
    kernel refuses for a process's current folder: `.: cannot create the campaign (Device
    or resource busy)`. The line now says what is in the way and what to do instead."""
    here = Path.cwd()
    os.chdir(tmp_path)
    try:
        line = _refused_new(".")
    finally:
        os.chdir(here)
    assert line.startswith("Error: .: cannot create the campaign there: the empty folder is in")
    assert "name it from the folder above" in line
    assert list(tmp_path.iterdir()) == []
