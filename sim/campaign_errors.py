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
        where = f"{self.file}: {_printable(self.path, 120)}" if self.path else self.file
        return " ".join(f"{where}: {_printable(self.message, 1000)}".split())


def _printable(text: str, limit: int) -> str:
    """`text` with every non-printable character escaped and cut to `limit` characters, so a
    key or value from a campaign file can never act on a terminal or flood it."""
    shown = "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


class CampaignError(ValueError):
    """A campaign that cannot be used; holds every problem found, one line each.

    Its text is one `campaign FOLDER: FILE: field: problem` line per problem, the form
    every other malformed file's problems take.
    """

    def __init__(self, problems: list[Problem], folder: str | Path | None = None) -> None:
        self.problems = problems
        self.folder = folder
        super().__init__("\n".join(self.lines))

    @property
    def lines(self) -> list[str]:
        """One `campaign FOLDER: FILE: field: problem` line per problem, in the order found."""
        where = f"campaign {self.folder}" if self.folder is not None else "campaign"
        return [f"{where}: {problem}" for problem in self.problems]
