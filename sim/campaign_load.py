"""Load a campaign folder: parse its TOML, validate with pydantic, cross-check references.

Every problem is reported with the file, the field path and what is wrong, all at once.
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ledger.canonical import digest
from sim.campaign_checks import cross_check
from sim.campaign_errors import CampaignError, Problem
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
            self.path,
            campaign,
            self.actions,
            self.metrics,
            self.tasks,
            self.questions,
            new_digest,
            self.reference_script,
            self.file_digests,
        )


def _loc(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _read_toml(folder: Path, name: str, problems: list[Problem], required: bool) -> dict | None:
    path = folder / name
    if not path.exists():
        if required:
            problems.append(Problem(name, "", "file is missing"))
        return None
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        problems.append(Problem(name, "", f"is not valid TOML: {exc}"))
    except UnicodeDecodeError:
        problems.append(Problem(name, "", "is not UTF-8 text"))
    return None


def _validate(model: type[BaseModel], data: dict | None, name: str, problems: list[Problem]) -> Any:
    if data is None:
        return None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and "[" in p))
            problems.append(Problem(name, _loc(loc), err["msg"]))
    return None


def load_campaign(folder: str | Path) -> CampaignBundle:
    """Load and validate a campaign folder, or raise `CampaignError` listing every problem."""
    folder = Path(folder)
    if not folder.is_dir():
        raise CampaignError([Problem(str(folder), "", "is not a campaign folder")])
    problems: list[Problem] = []
    campaign = _validate(
        Campaign, _read_toml(folder, CAMPAIGN_FILE, problems, True), CAMPAIGN_FILE, problems
    )
    catalog = _validate(
        ActionCatalog, _read_toml(folder, ACTIONS_FILE, problems, True), ACTIONS_FILE, problems
    )
    metrics = _validate(
        MetricsFile, _read_toml(folder, METRICS_FILE, problems, True), METRICS_FILE, problems
    )
    questions_data = _read_toml(folder, QUESTIONS_FILE, problems, False)
    questions = _validate(
        QuestionsFile,
        questions_data if questions_data is not None else {},
        QUESTIONS_FILE,
        problems,
    )
    if problems or campaign is None or catalog is None or metrics is None or questions is None:
        raise CampaignError(problems or [Problem(str(folder), "", "could not be read")])
    problems.extend(cross_check(campaign, catalog, metrics, questions))
    if problems:
        raise CampaignError(problems)
    file_digests = {
        name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
        for name in DIGESTED_FILES
        if (folder / name).exists()
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
        reference_script=reference if reference.exists() else None,
        file_digests=file_digests,
    )


__all__ = ["CampaignBundle", "CampaignError", "Problem", "load_campaign"]
