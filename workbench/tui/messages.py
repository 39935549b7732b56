"""Typed messages: what workers report back to the UI thread, and what the run did."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from pandas import DataFrame

    from graders.causal_gym.panel import CausalPanel, TaskInfo
    from graders.vc_deal.batch import BatchReport
    from workbench.authoring.check import CheckReport
    from workbench.authoring.runs import ReportEntry, RunStatus
    from workbench.errors import WorkbenchError
    from workbench.evaluation.evaluator import EvaluationOutcome
    from workbench.play.protocol import SessionProtocol


class SessionOpened(Message):
    """The player's session is open (its journal replayed): the app can show the run."""

    def __init__(self, session: SessionProtocol) -> None:
        super().__init__()
        self.session = session


class SessionFailed(Message):
    """The run could not be opened; the app exits with the error's code."""

    def __init__(self, error: WorkbenchError) -> None:
        super().__init__()
        self.error = error


class SessionChanged(Message):
    """The run changed (a day closed, a command was journaled): repaint from the session."""


class JobProgress(Message):
    """A worker's progress: `done` of `total` steps, the last one named `label`; `token`
    tells which of a screen's jobs it is (a thread worker superseded by a newer one runs
    on to its end, so its messages still come: the screen drops a stale token's)."""

    def __init__(self, job: str, done: int, total: int, label: str = "", token: int = 0) -> None:
        super().__init__()
        self.job = job
        self.done = done
        self.total = total
        self.label = label
        self.token = token


class JobFailed(Message):
    """A worker stopped on an expected error; `message` is its one line (`token`: as
    JobProgress's)."""

    def __init__(self, job: str, message: str, token: int = 0) -> None:
        super().__init__()
        self.job = job
        self.message = message
        self.token = token


class JournalVerified(Message):
    """The journal file was re-read and its hash chain checked, off the UI thread."""

    def __init__(self, ok: bool, entries: int, head: str, detail: str) -> None:
        super().__init__()
        self.ok = ok
        self.entries = entries
        self.head = head
        self.detail = detail


class CheckFinished(Message):
    """The author checks of a campaign finished."""

    def __init__(self, campaign: Path, report: CheckReport, token: int = 0) -> None:
        super().__init__()
        self.campaign = campaign
        self.report = report
        self.token = token


class ValidationFinished(Message):
    """The offline evaluator finished a run into `out`; `outcome` holds report and exit code."""

    def __init__(self, out: Path, outcome: EvaluationOutcome) -> None:
        super().__init__()
        self.out = out
        self.outcome = outcome


class RunsListed(Message):
    """The author's run directories were read (status of each)."""

    def __init__(self, runs: list[RunStatus], reports: list[ReportEntry], token: int = 0) -> None:
        super().__init__()
        self.runs = runs
        self.reports = reports
        self.token = token


class TaskLoaded(Message):
    """A causal-gym task was generated in a worker."""

    def __init__(self, panel: CausalPanel, info: TaskInfo, frame: DataFrame, readme: str) -> None:
        super().__init__()
        self.panel = panel
        self.info = info
        self.frame = frame
        self.readme = readme


class BatchGraded(Message):
    """A VC JSONL file was graded in a worker."""

    def __init__(self, report: BatchReport) -> None:
        super().__init__()
        self.report = report
