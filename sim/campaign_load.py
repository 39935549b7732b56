"""Load a campaign folder: parse its TOML, validate with pydantic, cross-check references.

Every problem is reported with the file, the field path and what is wrong, all at once.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import re
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ledger.bounded_read import read_at_most
from ledger.canonical import digest
from ledger.file_kinds import kind_of, not_a_directory
from sim.campaign_checks import cross_check
from sim.campaign_errors import CampaignError, Problem
from sim.campaign_messages import problem_lines
from sim.campaign_model import (
    Action,
    ActionCatalog,
    Campaign,
    Metric,
    MetricsFile,
    Question,
    QuestionsFile,
    Task,
)

CAMPAIGN_FILE = "campaign.toml"
ACTIONS_FILE = "actions.toml"
METRICS_FILE = "metrics.toml"
QUESTIONS_FILE = "questions.toml"
REFERENCE_SCRIPT = "reference.jsonl"
DIGESTED_FILES = (CAMPAIGN_FILE, ACTIONS_FILE, METRICS_FILE, QUESTIONS_FILE)
MAX_FILE_BYTES = 1024 * 1024
"""The largest campaign TOML file read (1 MiB)."""
BYTE_ORDER_MARK = b"\xef\xbb\xbf"
"""UTF-8's byte-order mark: some editors start a file with it; the loader reads past it."""
SCHEMA_DIRECTIVE = b"#:schema "
"""A first line `#:schema PATH` tells TOML editors which JSON Schema applies; it is editor
metadata, so it is left out of the campaign digest."""


@dataclass(frozen=True)
class CampaignBundle:
    """A validated campaign: its models, indexes and digest."""

    path: Path
    campaign: Campaign
    actions: dict[str, Action]
    metrics: dict[str, Metric]
    tasks: tuple[Task, ...]
    questions: dict[str, Question]
    digest: str
    terms_digests: dict[str, str]
    """`Action.terms_digest` of every action, by id: computed once per parse."""
    reference_script: Path | None = None
    file_digests: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        """The campaign id."""
        return self.campaign.id

    @property
    def horizon(self) -> int:
        """The last day of the campaign."""
        return self.campaign.horizon_days

    def replace_horizon(self, horizon_days: int) -> CampaignBundle:
        """A copy with another horizon (benchmarks extend the default campaign)."""
        campaign = self.campaign.model_copy(update={"horizon_days": horizon_days})
        new_digest = digest({"base": self.digest, "horizon_days": horizon_days})
        return CampaignBundle(
            path=self.path,
            campaign=campaign,
            actions=self.actions,
            metrics=self.metrics,
            tasks=self.tasks,
            questions=self.questions,
            digest=new_digest,
            terms_digests=self.terms_digests,
            reference_script=self.reference_script,
            file_digests=self.file_digests,
        )


def digested_bytes(data: bytes) -> bytes:
    """A campaign file's bytes as digested: without a leading byte-order mark (some editors
    write one; it is encoding metadata, not content) or `#:schema` directive line."""
    data = data.removeprefix(BYTE_ORDER_MARK)
    if data.startswith(SCHEMA_DIRECTIVE):
        _, _, rest = data.partition(b"\n")
        return rest
    return data


def _read_bytes(folder: Path, name: str, problems: list[Problem], required: bool) -> bytes | None:
    path = folder / name
    if not path.exists() and not path.is_symlink():
        if required:
            problems.append(Problem(name, "", "file is missing"))
        return None
    try:
        # Never waits: a named pipe put there after a look would block a plain open.
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError as exc:
        problems.append(Problem(name, "", _unopened(path, exc)))
        return None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        problems.append(Problem(name, "", f"is {kind_of(mode)}, not a regular file"))
        return None
    with open(fd, "rb") as handle:
        try:
            data = read_at_most(handle, MAX_FILE_BYTES)
        except OSError as exc:
            problems.append(Problem(name, "", f"cannot be read ({exc.strerror or exc})"))
            return None
    if len(data) > MAX_FILE_BYTES:
        problems.append(Problem(name, "", "is larger than the limit of 1 MiB"))
        return None
    return data


def _unopened(path: Path, exc: OSError) -> str:
    """Why `path`, which exists (or is a link), could not be opened."""
    if isinstance(exc, FileNotFoundError):
        return "is a symbolic link to nothing (a broken link), not a regular file"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a regular file"
    if exc.errno == errno.ENXIO:  # a socket, or a device with no driver behind it
        try:
            return f"is {kind_of(os.stat(path).st_mode)}, not a regular file"
        except OSError:
            return "is not a regular file"
    return f"cannot be read ({exc.strerror or exc})"


def _reference_problem(folder: Path) -> Problem | None:
    """What is wrong with the folder's reference script, if it is there but is not a
    regular file (a named pipe would hang every command that plays it, waiting for a
    writer; a broken link would silently drop the reference play)."""
    path = folder / REFERENCE_SCRIPT
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if path.is_symlink():
            return Problem(REFERENCE_SCRIPT, "", _unopened(path, FileNotFoundError()))
        return None
    except OSError as exc:
        return Problem(REFERENCE_SCRIPT, "", f"cannot be read ({exc.strerror or exc})")
    if not stat.S_ISREG(mode):
        return Problem(REFERENCE_SCRIPT, "", f"is {kind_of(mode)}, not a regular file")
    return None


_TOML_PLACE = re.compile(r" \(at line (\d+), column (\d+)\)$")


def _toml_problem(exc: tomllib.TOMLDecodeError, text: str) -> str:
    """tomllib's error with the text of the line it names (what the author wrote there)."""
    message = str(exc)
    place = _TOML_PLACE.search(message)
    if place is None:
        return f"is not valid TOML: {message}"
    number, column = int(place.group(1)), int(place.group(2))
    lines = text.splitlines()
    line = lines[number - 1].strip() if 0 < number <= len(lines) else ""
    shown = repr(line) if len(line) <= 80 else repr(line[:77]) + "..."
    where = f"line {number}, column {column}"
    return f"is not valid TOML at {where}: {message[: place.start()]}" + (
        f" in {shown}" if line else ""
    )


def _parse_toml(data: bytes | None, name: str, problems: list[Problem]) -> dict | None:
    if data is None:
        return None
    text = ""
    try:
        text = data.removeprefix(BYTE_ORDER_MARK).decode("utf-8")
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        problems.append(Problem(name, "", _toml_problem(exc, text)))
    except UnicodeDecodeError:
        problems.append(Problem(name, "", "is not UTF-8 text"))
    except ValueError:  # an integer beyond Python's digit limit for text (4,300)
        problems.append(Problem(name, "", "holds a number with too many digits to read"))
    except RecursionError:
        problems.append(Problem(name, "", "is nested too deeply"))
    return None


def _validate(model: type[BaseModel], data: dict | None, name: str, problems: list[Problem]) -> Any:
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for path, message in problem_lines(model, exc.errors()):
            problems.append(Problem(name, path, message))
    except RecursionError:
        problems.append(Problem(name, "", "is nested too deeply"))
    return None


@dataclass(frozen=True)
class _Parsed:
    """The models of a campaign's four files, or every problem found in them."""

    campaign: Campaign | None
    catalog: ActionCatalog | None
    metrics: MetricsFile | None
    questions: QuestionsFile | None
    problems: tuple[Problem, ...]
    cross_problems: tuple[Problem, ...]
    terms_digests: dict[str, str]


@functools.lru_cache(maxsize=8)
def _parse(raw: tuple[bytes | None, ...]) -> _Parsed:
    """Parse, validate and cross-check the files' bytes (in `DIGESTED_FILES` order).

    A pure function of the bytes over frozen models, so a process that loads the same
    campaign again (batch validation, the host, the author screens) parses it once; the
    files are still read and digested on every load.
    """
    problems: list[Problem] = []
    data = dict(zip(DIGESTED_FILES, raw, strict=True))
    campaign = _validate(
        Campaign, _parse_toml(data[CAMPAIGN_FILE], CAMPAIGN_FILE, problems), CAMPAIGN_FILE, problems
    )
    catalog = _validate(
        ActionCatalog,
        _parse_toml(data[ACTIONS_FILE], ACTIONS_FILE, problems),
        ACTIONS_FILE,
        problems,
    )
    metrics = _validate(
        MetricsFile, _parse_toml(data[METRICS_FILE], METRICS_FILE, problems), METRICS_FILE, problems
    )
    questions_data = (
        _parse_toml(data[QUESTIONS_FILE], QUESTIONS_FILE, problems)
        if data[QUESTIONS_FILE] is not None
        else {}
    )
    questions = _validate(QuestionsFile, questions_data, QUESTIONS_FILE, problems)
    cross: list[Problem] = []
    if (
        campaign is not None
        and catalog is not None
        and metrics is not None
        and questions is not None
    ):
        cross = cross_check(campaign, catalog, metrics, questions)
    terms = {} if catalog is None else {a.id: a.terms_digest() for a in catalog.actions}
    return _Parsed(campaign, catalog, metrics, questions, tuple(problems), tuple(cross), terms)


def load_campaign(folder: str | Path) -> CampaignBundle:
    """Load and validate a campaign folder, or raise `CampaignError` listing every problem."""
    folder = Path(folder)
    why = not_a_directory(folder)
    if why is not None:
        raise CampaignError([Problem(str(folder), "", why)])
    problems: list[Problem] = []
    raw = {
        name: _read_bytes(folder, name, problems, name != QUESTIONS_FILE) for name in DIGESTED_FILES
    }
    parsed = _parse(tuple(raw.values()))
    problems.extend(parsed.problems)
    if (reference_problem := _reference_problem(folder)) is not None:
        problems.append(reference_problem)
    campaign, catalog, metrics, questions = (
        parsed.campaign,
        parsed.catalog,
        parsed.metrics,
        parsed.questions,
    )
    if problems or campaign is None or catalog is None or metrics is None or questions is None:
        raise CampaignError(problems or [Problem(str(folder), "", "could not be read")], folder)
    if parsed.cross_problems:
        raise CampaignError(list(parsed.cross_problems), folder)
    file_digests = {
        name: hashlib.sha256(digested_bytes(data)).hexdigest()
        for name, data in raw.items()
        if data is not None
    }
    reference = folder / REFERENCE_SCRIPT
    return CampaignBundle(
        path=folder.resolve(),
        campaign=campaign,
        actions={a.id: a for a in catalog.actions},
        metrics={m.id: m for m in metrics.metrics},
        tasks=metrics.tasks,
        questions={q.id: q for q in questions.questions},
        digest=digest(file_digests),
        terms_digests=parsed.terms_digests,
        reference_script=reference if reference.is_file() else None,
        file_digests=file_digests,
    )


__all__ = ["CampaignBundle", "CampaignError", "Problem", "load_campaign"]
