"""`workbench new DIR [--from CAMPAIGN]`: a campaign folder that passes `check --strict`.

Without `--from` the folder holds the starter (a small bakery, commented with what to
change); with it, a copy of another campaign under a new id. Each TOML file starts with a
`#:schema` line naming its JSON Schema, so TOML editors complete and check fields. The
folder appears whole or not at all: it is written beside DIR and renamed into place.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import unicodedata
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
    r"""^[ \t]*(?:id|"id"|'id')[ \t]*=[ \t]*(?:"[^"\\\n]*"|'[^'\n]*')[ \t]*(?P<comment>#.*)?$""",
    re.MULTILINE,
)
"""A top-level `id = "..."` line, however its key and string are quoted."""
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
            f"{single_line(self.folder_name)!r} (an id holds a-z, 0-9, _ and -); "
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
    r"""^[ \t]*visibility[ \t]*=[ \t]*(?:"private"|'private')[ \t]*(?:#.*)?$""", re.MULTILINE
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


def create_campaign(directory: str | Path, source: str | None = None) -> Created:
    """Write a new campaign folder at `directory` (which must not exist, or be empty),
    durably: its files and name are fsynced before it is reported made."""
    target = Path(directory)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserError(f"{target} exists and is not an empty folder")
    refuse_run_directory(
        target,
        "campaign folder",
        "a campaign is never created inside a run (choose a folder outside it)",
    )
    campaign_id = campaign_id_for(target)
    texts, from_private = (
        _copy_of(str(resolve_campaign(source)), campaign_id)
        if source
        else (_starter(campaign_id), False)
    )
    files = _encoded(texts, target)
    parent = target.resolve().parent
    try:
        make_dirs(parent)
    except OSError as exc:
        raise UserError(f"{parent}: cannot create the folder ({exc.strerror or exc})") from None
    try:
        staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=parent))
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
    return Created(campaign_id, tuple(sorted(texts)), target.resolve().name, from_private)


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
