"""`workbench new DIR [--from CAMPAIGN]`: a campaign folder that passes `check --strict`.

Without `--from` the folder holds the starter (a small bakery, commented with what to
change); with it, a copy of another campaign under a new id. Each TOML file starts with a
`#:schema` line naming its JSON Schema, so TOML editors complete and check fields. The
folder appears whole or not at all: it is written beside DIR and renamed into place.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import shutil
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from campaigns import resolve_campaign
from ledger.durable import append_durably, fsync_dir, make_dirs
from ledger.file_modes import new_directory_mode
from sim.campaign_load import (
    BYTE_ORDER_MARK,
    DIGESTED_FILES,
    MAX_FILE_BYTES,
    REFERENCE_SCRIPT,
    SCHEMA_DIRECTIVE,
    CampaignError,
    Problem,
    load_campaign,
)
from workbench.authoring.reference import directive
from workbench.authoring.scratch import renamed
from workbench.errors import UserError
from workbench.inputs import read_bounded, refuse_over_limit
from workbench.messages import single_line
from workbench.outputs import refuse_run_directory
from workbench.runs.bundle import campaign_problems, load_bundle

TEMPLATES = Path(__file__).resolve().parent / "templates"
_ID_LINE = re.compile(
    r"""^[ \t]*(?:id|"id"|'id')[ \t]*=[ \t]*(?:"[^"\\\r\n]*"|'[^'\r\n]*')[ \t]*"""
    r"""(?P<comment>#[^\r\n]*)?(?=\r?$)""",
    re.MULTILINE,
)
"""A top-level `id = "..."` line, however its key and string are quoted and its line ends
(`\n`, or `\r\n` as Windows editors write it: TOML takes both)."""
_TABLE_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
"""The first table header: top-level keys (the campaign's id) all come before it."""
_COPY_HEADER = re.compile(
    r"\A# Copied from .* by `workbench new`\. CHANGE: .*\n# and development_seed first; .*\n"
)
"""The two lines `new --from` puts at the top of a copy's campaign.toml."""


@dataclass(frozen=True)
class Created:
    """What `new` wrote: the campaign id and the files, relative to the folder."""

    campaign_id: str
    files: tuple[str, ...]
    folder_name: str = ""
    """The folder's name, which the id was made from (they differ when it is no id)."""
    from_private: bool = False
    """True when the source was private: the copy is a development one (`_as_development`)."""

    @property
    def id_note(self) -> str | None:
        """One line saying how the id was made when it is not the folder's name as written."""
        if self.campaign_id == self.folder_name:
            return None
        return (
            f"the campaign id is {self.campaign_id!r}, made from the folder name "
            f"{single_line(repr(self.folder_name))} (an id holds a-z, 0-9, _ and -); "
            "set id in campaign.toml to choose another"
        )


def campaign_id_for(directory: Path) -> str:
    """A campaign id from a folder name: lowercase `[a-z0-9_-]`, starting with a letter/digit.

    Letters with accents keep their base letter (`café` → `cafe`, `Straße` → `strasse`);
    every other run of characters outside the id's alphabet becomes one `-`."""
    name = unicodedata.normalize("NFKD", directory.resolve().name.casefold())
    name = "".join(c for c in name if not unicodedata.combining(c))
    slug = re.sub(r"[^a-z0-9_-]+", "-", name).strip("-_")
    return slug[:64].rstrip("-_") or "my-campaign"


def _with_directive(text: str, file: str, folder: Path) -> str:
    """`text` with its first line a `#:schema` directive for `folder`."""
    if text.encode().startswith(SCHEMA_DIRECTIVE):
        text = text.partition("\n")[2]
    return f"{directive(file, folder)}\n{text}"


def _starter(campaign_id: str) -> dict[str, str]:
    texts = {name: (TEMPLATES / name).read_text(encoding="utf-8") for name in DIGESTED_FILES}
    texts["campaign.toml"] = texts["campaign.toml"].replace("@ID@", campaign_id)
    return texts


def _read_text(path: Path) -> str:
    """A campaign file's text through the bounded reader (the campaign loader's limit)."""
    what = "reference script" if path.name == REFERENCE_SCRIPT else "campaign file"
    data = read_bounded(path, what, None if path.name == REFERENCE_SCRIPT else MAX_FILE_BYTES)
    try:
        return data.removeprefix(BYTE_ORDER_MARK).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _copy_of(source: str, campaign_id: str) -> tuple[dict[str, str], bool]:
    """The files of a copy of `source` under `campaign_id`; True when the source is private
    (the copy is then a development one)."""
    bundle = load_bundle(source)
    folder = bundle.path
    texts = {
        name: _read_text(folder / name)
        for name in (*DIGESTED_FILES, REFERENCE_SCRIPT)
        if (folder / name).is_file()
    }
    campaign = texts["campaign.toml"]
    table = _TABLE_HEADER.search(campaign)
    top = campaign[: table.start()] if table else campaign
    line = _ID_LINE.search(top)
    if line is None:
        raise UserError(f'{folder / "campaign.toml"}: no top-level `id = "..."` line to rename')
    comment = f" {line.group('comment')}" if line.group("comment") else ""
    campaign = f'{campaign[: line.start()]}id = "{campaign_id}"{comment}{campaign[line.end() :]}'
    if campaign.encode().startswith(SCHEMA_DIRECTIVE):
        campaign = campaign.partition("\n")[2]
    while (earlier := _COPY_HEADER.match(campaign)) is not None:
        campaign = campaign[earlier.end() :]
    if bundle.campaign.visibility == "private":
        campaign = _as_development(campaign, folder)
    header = (
        f"# Copied from {bundle.id} by `workbench new`. CHANGE: the id, title, description\n"
        "# and development_seed first; docs/authoring.md explains every field and range.\n"
    )
    texts["campaign.toml"] = header + campaign
    return texts, bundle.campaign.visibility == "private"


_PRIVATE_LINE = re.compile(
    r"""^[ \t]*visibility[ \t]*=[ \t]*(?:"private"|'private')[ \t]*(?:#[^\r\n]*)?(?=\r?$)""",
    re.MULTILINE,
)
DEVELOPMENT_SEED = 1
"""The public seed a development copy of a private campaign plays (the starter's)."""


def _as_development(campaign: str, folder: Path) -> str:
    """A private campaign's campaign.toml made a development copy's: a private campaign's
    seed lives in its control file, so a copy could be neither checked nor played without
    one; authors develop on a public seed and switch to private when done."""
    table = _TABLE_HEADER.search(campaign)
    top = campaign[: table.start()] if table else campaign
    line = _PRIVATE_LINE.search(top)
    if line is None:
        raise UserError(f'{folder / "campaign.toml"}: no top-level `visibility = "private"` line')
    development = (
        'visibility = "development"  # a development copy of a private campaign: set it '
        "private again, without development_seed, when it is done\n"
        f"development_seed = {DEVELOPMENT_SEED}"
    )
    return f"{campaign[: line.start()]}{development}{campaign[line.end() :]}"


STAGING_MARK = ".workbench-new-"
"""In the name of the hidden folder `new` writes a campaign into beside its target,
`.NAME.workbench-new-XXXXXXXX`: a killed `new` leaves it, and the next `new` in that
folder removes it."""
_STAGING = re.compile(r"\..*" + re.escape(STAGING_MARK) + r"[a-z0-9_]{8}", re.DOTALL)
STAGING_NAME_CHARS = 100
"""Characters of the target's name kept in its staging folder's name (a name has at most
255 bytes, and the staging name adds to it)."""
LOCK_WAIT_SECONDS = 10.0
"""How long `new` waits for another `new` creating a campaign in the same folder."""


def create_campaign(directory: str | Path, source: str | None = None) -> Created:
    """Write a new campaign folder at `directory` (which must not exist, or be empty),
    durably: its files and name are fsynced before it is reported made.

    It is written into a hidden staging folder beside it and renamed into place, under a
    lock on the folder that holds it: two `new` into one place at once make one campaign
    (the other is refused as for any folder with content), and a staging folder a killed
    `new` left is removed by the next. A refusal leaves nothing: no staging folder, and
    no parent folder made for it.
    """
    target = Path(directory)
    if target.is_symlink():
        raise UserError(
            f"{target} is a symbolic link; a new campaign is made at a path of its own "
            "(name the folder itself, not a link to it)"
        )
    _refuse_content(target)
    refuse_run_directory(
        target,
        "campaign folder",
        "a campaign is never created inside a run (choose a folder outside it)",
    )
    campaign_id = campaign_id_for(target)
    texts, from_private = (
        _copy_of(str(resolve_campaign(source)), campaign_id)
        if source is not None
        else (_starter(campaign_id), False)
    )
    files = _encoded(texts, target)
    parent = target.resolve().parent
    made = _missing_folders(parent)
    try:
        try:
            make_dirs(parent)
        except OSError as exc:
            raise UserError(f"{parent}: cannot create the folder ({exc.strerror or exc})") from None
        with _locked(parent, target):
            _refuse_content(target)  # another `new` may have made it while this one waited
            _write_staged(target, parent, files)
    except BaseException:
        _remove_made(made)
        raise
    return Created(campaign_id, tuple(sorted(texts)), target.resolve().name, from_private)


def _refuse_content(target: Path) -> None:
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserError(f"{target} exists and is not an empty folder")


def _write_staged(target: Path, parent: Path, files: dict[str, bytes]) -> None:
    """`files` written into a new staging folder in `parent`, checked by the campaign
    loader, and renamed to `target`; the staging folder is removed if anything fails."""
    prefix = f".{target.name[:STAGING_NAME_CHARS]}{STAGING_MARK}"
    try:
        staging = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except OSError as exc:
        raise UserError(f"{target}: cannot create the campaign ({exc.strerror or exc})") from None
    try:
        for name, data in files.items():
            append_durably(staging / name, data)
        load_campaign(staging)
        os.chmod(staging, new_directory_mode())  # mkdtemp made it the owner's alone
        fsync_dir(staging)
        os.replace(staging, target)
        fsync_dir(parent)
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        if exc.errno == errno.EBUSY:
            raise UserError(
                f"{target}: cannot create the campaign there: the empty folder is in use (the "
                "current folder of this or another process), so it cannot be replaced by "
                "the new one; remove it, or name it from the folder above"
            ) from None
        raise UserError(f"{target}: cannot create the campaign ({exc.strerror or exc})") from None
    except CampaignError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        problems = [
            Problem(
                renamed(p.file, staging, str(target), keep_under=True),
                p.path,
                renamed(p.message, staging, str(target), keep_under=True),
            )
            for p in exc.problems
        ]
        raise campaign_problems(CampaignError(problems, target)) from exc
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _missing_folders(folder: Path) -> list[Path]:
    """`folder` and its parents that do not exist yet, innermost first."""
    missing: list[Path] = []
    current = folder
    while not os.path.lexists(current) and current != current.parent:
        missing.append(current)
        current = current.parent
    return missing


def _remove_made(made: list[Path]) -> None:
    """Remove the folders `new` made for a campaign it did not create, innermost first
    (only while empty: anything another process put there stays)."""
    for folder in made:
        try:
            os.rmdir(folder)
        except OSError:
            return
        with contextlib.suppress(OSError):
            fsync_dir(folder.parent)


@contextlib.contextmanager
def _locked(parent: Path, target: Path) -> Iterator[None]:
    """Hold an exclusive lock on the folder `parent` while a campaign is made in it, and
    remove the staging folders of killed `new` commands found there (a live one holds
    this lock, so none found under it is being written). A folder that cannot be opened or
    locked (no read permission, a file system without locks) is used unlocked, unswept."""
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        yield
        return
    try:
        locked = _lock(fd, parent, target)
        if locked:
            _remove_dead_staging(parent)
        yield
    finally:
        os.close(fd)


def _lock(fd: int, parent: Path, target: Path) -> bool:
    """Take the lock on `fd`, waiting up to LOCK_WAIT_SECONDS for another holder; True
    when taken, False when the file system has no locks."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise UserError(
                    f"{target}: another command has been creating a campaign in {parent} "
                    f"for {LOCK_WAIT_SECONDS:.0f} s; try again when it has finished"
                ) from None
            time.sleep(0.05)
        except OSError:
            return False


def _remove_dead_staging(parent: Path) -> None:
    """Remove the staging folders (`.NAME.workbench-new-XXXXXXXX`, real folders, not
    links) a killed `new` left in `parent`; the caller holds `parent`'s lock."""
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        dead = [
            e.path
            for e in entries
            if _STAGING.fullmatch(e.name) and e.is_dir(follow_symlinks=False)
        ]
    for path in dead:
        shutil.rmtree(path, ignore_errors=True)
    if dead:
        with contextlib.suppress(OSError):
            fsync_dir(parent)


def _encoded(texts: dict[str, str], target: Path) -> dict[str, bytes]:
    """Each file's bytes as written into `target` (TOML files with their `#:schema` line),
    refused before anything is written when one would be larger than its loader reads."""
    files: dict[str, bytes] = {}
    for name, text in texts.items():
        if name.endswith(".toml"):
            text = _with_directive(text, name, target.resolve())
        data = text.encode("utf-8")
        if name == REFERENCE_SCRIPT:
            refuse_over_limit(target / name, "reference script", len(data))
        else:
            refuse_over_limit(target / name, "campaign file", len(data), MAX_FILE_BYTES)
        files[name] = data
    return files
