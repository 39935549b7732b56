"""The one interface a player, the dashboard or an agent plays a run through.

`PlayerSession` (local, in-process) and `RemoteSession` (a run on a `workbench host`)
both satisfy `SessionProtocol`, so a reader typed against it does not know which it has.
It holds public reads and the four player commands only: no seed, no branch, no fork,
rewind or evaluate operation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from sim.scheduling import ScheduleOutcome
from workbench.play.models import PublicView
from workbench.runs.commands import CounterfactualAssessment

if TYPE_CHECKING:
    from workbench.play.session import SubmitResult


@runtime_checkable
class JournalRecord(Protocol):
    """One journal entry as a player may read it."""

    @property
    def seq(self) -> int: ...
    @property
    def day(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def id(self) -> str: ...
    @property
    def payload(self) -> Mapping[str, Any]: ...
    @property
    def hash(self) -> str: ...


@runtime_checkable
class LedgerReader(Protocol):
    """Read-only ledger access: balances, trial balance, account history, exports."""

    @property
    def last_day(self) -> int: ...

    def trial_balance(self, day: int | None = None) -> list[tuple[str, str, str]]:
        """(account, unit, balance text) for every account at a day's close."""
        ...

    def totals(self, day: int | None = None) -> dict[str, int]:
        """Sum of balances per unit at a day's close: all zero in a balanced book."""
        ...

    def account_history(self, account: str) -> list[tuple[int, Decimal]]:
        """(day, balance in major units) for every closed day."""
        ...

    def export(self, fmt: str) -> str:
        """The ledger as beancount or CSV text."""
        ...


@runtime_checkable
class SessionProtocol(Protocol):
    """Play one run: public reads and the player's commands, local or hosted alike."""

    @property
    def day(self) -> int:
        """The last closed day (decisions now belong to it)."""
        ...

    @property
    def horizon(self) -> int:
        """The campaign's last day."""
        ...

    @property
    def finished(self) -> bool:
        """True once the run is finished (horizon reached or `finish`)."""
        ...

    @property
    def journal_head(self) -> str:
        """Hash of the journal's last entry."""
        ...

    @property
    def journal_entries(self) -> Sequence[JournalRecord]:
        """The run's journal in order (as much as the reader may see)."""
        ...

    def view(self) -> PublicView:
        """The public view of the run today."""
        ...

    def preview(self, action_id: str) -> ScheduleOutcome:
        """Would this action be accepted now, and if not, why? Changes nothing."""
        ...

    def schedule(self, action_id: str, command_id: str | None = None) -> ScheduleOutcome:
        """Schedule an action at today's decisions (journaled even when rejected)."""
        ...

    def advance(self, days: int = 1, command_id: str | None = None) -> int:
        """Run `days` days with no further decisions; returns the new day."""
        ...

    def submit(
        self, assessment: dict[str, Any] | CounterfactualAssessment, command_id: str | None = None
    ) -> SubmitResult:
        """Submit an assessment: schema and contract errors change nothing."""
        ...

    def finish(self, command_id: str | None = None) -> int:
        """End the run; returns the final day."""
        ...

    def metric_series(self) -> dict[str, list[Decimal]]:
        """Every metric at every closed day, in display units."""
        ...

    def ledger(self) -> LedgerReader:
        """Read-only access to the run's own ledger."""
        ...
