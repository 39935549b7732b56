"""A task session: invalid submissions return their errors, the first valid one is final."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from graders.causal_gym.reward import Score
from graders.causal_gym.scoring import score
from graders.causal_gym.submission import InvalidSubmission, parse_submission
from graders.causal_gym.tasks import HostTask


@dataclass(frozen=True)
class SubmissionResult:
    """What one submission got: validation errors, a fresh final score, or the earlier one."""

    accepted: bool
    errors: tuple[dict[str, Any], ...] = ()
    score: Score | None = None
    message: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: only errors when invalid, the breakdown once scored."""
        data: dict[str, Any] = {"accepted": self.accepted, "message": self.message}
        if self.errors:
            data["errors"] = list(self.errors)
        if self.score is not None:
            data["score"] = self.score.to_dict()
        return data


@dataclass
class TaskSession:
    """One agent's attempt at one task; retries are allowed until a valid submission lands."""

    task: HostTask
    attempts: int = 0
    _final: Score | None = field(default=None, repr=False)

    @property
    def final(self) -> Score | None:
        """The final score, once a valid submission has been made."""
        return self._final

    def submit(self, raw: str | bytes | Mapping[str, Any]) -> SubmissionResult:
        """Validate and, if this is the first valid submission, score it and lock the session."""
        self.attempts += 1
        if self._final is not None:
            return SubmissionResult(False, (), self._final, "a valid submission was already final")
        try:
            submission = parse_submission(self.task.family, raw)
        except InvalidSubmission as exc:
            return SubmissionResult(False, tuple(exc.errors), None, "invalid submission")
        self._final = score(self.task, submission)
        return SubmissionResult(True, (), self._final, "scored; this submission is final")
