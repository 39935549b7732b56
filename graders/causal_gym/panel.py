"""The dashboard's causal-gym panel as a plain object: load, preview, quick estimates, submit."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from graders.causal_gym.keys import DerivationError, resolve_key
from graders.causal_gym.reference import Estimate, Unsolvable, clean, ols_effect
from graders.causal_gym.session import SubmissionResult, TaskSession
from graders.causal_gym.submission import schema
from graders.causal_gym.tasks import CausalGenerationError, HostTask, materialise


class PanelError(ValueError):
    """A panel request that cannot be served (no task loaded, unknown column, truth withheld)."""


@dataclass(frozen=True)
class TaskInfo:
    """What the panel may show about a loaded task: nothing host-side."""

    family: str
    split: str
    task_id: int
    treatment: str
    outcome: str
    pre_treatment: tuple[str, ...]
    post_treatment: tuple[str, ...]
    rows: int


class CausalPanel:
    """Panel logic for one task at a time; the truth stays hidden until a submission is scored."""

    def __init__(self, key: bytes | None = None) -> None:
        try:
            self._key = key if key is not None else resolve_key()
        except DerivationError as exc:
            raise PanelError(str(exc)) from exc
        self._task: HostTask | None = None
        self._session: TaskSession | None = None

    def load(self, family: str, split: str = "train", task_id: int = 0) -> TaskInfo:
        """Materialise a task and open a fresh session on it."""
        try:
            self._task = materialise(self._key, split, family, task_id)
        except (DerivationError, CausalGenerationError, KeyError) as exc:
            raise PanelError(str(exc).strip("'\"")) from None
        self._session = TaskSession(self._task)
        return self.info

    def _loaded(self) -> tuple[HostTask, TaskSession]:
        if self._task is None or self._session is None:
            raise PanelError("no task is loaded")
        return self._task, self._session

    @property
    def info(self) -> TaskInfo:
        """Names and sizes of the loaded task."""
        task, _ = self._loaded()
        names = task.staged.dictionary
        return TaskInfo(
            family=task.family,
            split=task.namespace,
            task_id=task.task_id,
            treatment=names.treatment,
            outcome=names.outcome,
            pre_treatment=names.pre_treatment,
            post_treatment=names.post_treatment,
            rows=len(task.staged.frame),
        )

    def preview(self, rows: int = 10) -> pd.DataFrame:
        """The first rows of data.csv, as staged."""
        task, _ = self._loaded()
        return task.staged.frame.head(rows).copy()

    def data_dictionary(self) -> str:
        """The agent-visible README.md."""
        task, _ = self._loaded()
        return task.staged.readme_text

    def submission_schema(self) -> dict[str, Any]:
        """The JSON Schema of the loaded family's submission."""
        task, _ = self._loaded()
        return schema(task.family)

    def _estimate(self, columns: Sequence[str], cleaned: bool) -> Estimate:
        task, _ = self._loaded()
        names = task.staged.dictionary
        known = {c.name for c in names.columns} - {names.treatment, names.outcome}
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise PanelError(f"not adjustable columns: {unknown}")
        frame = clean(task.staged.frame, names.outcome) if cleaned else task.staged.frame
        try:
            return ols_effect(frame, names.treatment, names.outcome, list(dict.fromkeys(columns)))
        except Unsolvable as exc:
            raise PanelError(str(exc)) from exc

    def difference_in_means(self, cleaned: bool = True) -> Estimate:
        """Treated minus control mean, with SE and 90% interval (after cleaning by default)."""
        return self._estimate((), cleaned)

    def adjusted_ols(self, columns: Sequence[str], cleaned: bool = True) -> Estimate:
        """OLS of the outcome on the treatment and the chosen columns, with SE and 90% interval."""
        return self._estimate(columns, cleaned)

    def submit(self, raw: str | bytes | Mapping[str, Any]) -> SubmissionResult:
        """Validate and score; only the first valid submission counts."""
        _, session = self._loaded()
        return session.submit(raw)

    def truth(self) -> float:
        """The true ATE, revealed only after a submission was scored."""
        task, session = self._loaded()
        if session.final is None:
            raise PanelError("the truth is revealed only after a valid submission is scored")
        return task.truth
