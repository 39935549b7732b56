"""Campaign problems: each names the file, the field path and what is wrong, on one line."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a campaign: where (file and field path) and what."""

    file: str
    path: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}: {self.path}" if self.path else self.file
        return " ".join(f"{where}: {self.message}".split())


class CampaignError(ValueError):
    """A campaign that cannot be used; holds every problem found, one line each."""

    def __init__(self, problems: list[Problem], folder: str | Path | None = None) -> None:
        self.problems = problems
        self.folder = folder
        where = f"campaign {folder}" if folder is not None else "campaign"
        if len(problems) == 1:
            text = f"{where}: {problems[0]}"
        else:
            lines = "\n".join(f"  - {p}" for p in problems)
            text = f"{where} has {len(problems)} problems:\n{lines}"
        super().__init__(text)
