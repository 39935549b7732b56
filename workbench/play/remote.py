"""A session on a run that a `workbench host` keeps: the local session's interface over HTTP.

`RemoteSession` satisfies `SessionProtocol` (workbench/play/protocol.py), so the dashboard
plays a hosted run the way it plays a local one. It holds a bearer token and a run id,
never a seed or a run directory. Every command carries a command id (generated when the
caller gives none), so a command whose reply was lost is retried with the same id and the
host applies it once. Reads are cached until the next command.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any, Final, TypeVar

import httpx2
from pydantic import BaseModel, ValidationError

from ledger.book import LedgerError
from ledger.money import format_money, scale_of
from sim.scheduling import ScheduleOutcome
from workbench.errors import IntegrityError, UserError
from workbench.inputs import read_bounded
from workbench.messages import clip, single_line
from workbench.play.models import PublicView
from workbench.play.session import SubmitResult
from workbench.play.wire import (
    API_PREFIX,
    AdvanceRequest,
    CommandReply,
    ErrorBody,
    FinishRequest,
    JournalPage,
    JournalRow,
    LedgerData,
    LedgerExport,
    LedgerFormat,
    MetricSeries,
    Preview,
    RunInfo,
    RunList,
    ScheduleReply,
    ScheduleRequest,
    StartReply,
    StartRequest,
    SubmitReply,
    SubmitRequest,
    UnavailableRun,
)
from workbench.runs.commands import CounterfactualAssessment

M = TypeVar("M", bound=BaseModel)

ATTEMPTS: Final = 3
"""Tries of one command when the connection fails (same command id each time)."""
TIMEOUT_SECONDS: Final = 30.0
TOKEN_FILE_LIMIT: Final = 4096
DAMAGED: Final = "run_damaged"
"""The host's code for a run that failed its integrity check (the only 503 that is one)."""


def _checks_certificates(url: str) -> bool:
    """False only for plain `http://`, which has no certificate to check: building the TLS
    context loads the CA bundle (50-110 ms), and a client on loopback never used it."""
    try:
        return httpx2.URL(url).scheme != "http"
    except httpx2.InvalidURL:
        return True


def read_token(path: Path, agent: str) -> str:
    """The bearer token in `path`: the token alone, or the `AGENT TOKEN` line of `control new`."""
    text = read_bounded(path, "token file", TOKEN_FILE_LIMIT).decode("utf-8", "replace").strip()
    fields = text.split()
    if len(fields) == 2 and fields[0] == agent:
        return fields[1]
    if len(fields) != 1:
        raise UserError(f"{path}: a token file holds the token alone, or the line `{agent} TOKEN`")
    return fields[0]


class RemoteLedger:
    """The run's own ledger from the host's balances by day (what `LedgerView` reads)."""

    def __init__(self, data: LedgerData, export: Callable[[LedgerFormat], str]) -> None:
        self._data = data
        self._export = export

    @property
    def last_day(self) -> int:
        """The latest closed day."""
        return self._data.last_day

    def _index(self, day: int | None) -> int:
        if day is None:
            day = self._data.last_day
        if not self._data.first_day <= day <= self._data.last_day:
            raise LedgerError(
                f"day {day} is not closed (closed days: {self._data.first_day}.."
                f"{self._data.last_day})"
            )
        return day - self._data.first_day

    def trial_balance(self, day: int | None = None) -> list[tuple[str, str, str]]:
        """(account, unit, balance text) for every account at a day's close."""
        i = self._index(day)
        return [
            (a.name, a.unit, format_money(a.balances[i]) if a.unit == "USD" else str(a.balances[i]))
            for a in self._data.accounts
        ]

    def totals(self, day: int | None = None) -> dict[str, int]:
        """Sum of balances per unit: all zero in a balanced book."""
        i = self._index(day)
        totals = dict.fromkeys(sorted({a.unit for a in self._data.accounts}), 0)
        for account in self._data.accounts:
            totals[account.unit] += account.balances[i]
        return totals

    def account_history(self, account: str) -> list[tuple[int, Decimal]]:
        """(day, balance in major units) for every closed day."""
        for row in self._data.accounts:
            if row.name == account:
                scale = scale_of(row.unit)
                return [
                    (self._data.first_day + i, Decimal(b) / scale)
                    for i, b in enumerate(row.balances)
                ]
        raise LedgerError(f"unknown account {account!r}")

    def export(self, fmt: str) -> str:
        """The ledger as beancount or CSV text."""
        if fmt == "beancount":
            return self._export("beancount")
        if fmt == "csv":
            return self._export("csv")
        raise ValueError(f"unknown export format {fmt!r} (beancount or csv)")


class RemoteSession:
    """Play a hosted run over the host's JSON API (see `SessionProtocol`)."""

    def __init__(self, client: httpx2.Client, run_id: str, url: str) -> None:
        self._client = client
        self.run_id = run_id
        self.url = url
        self._view: PublicView | None = None
        self._journal: list[JournalRow] = []
        self._head: str | None = None
        self._journal_total = 0
        self._stale_journal = True

    # -- opening --------------------------------------------------------------------
    @classmethod
    def connect(
        cls,
        url: str,
        agent: str,
        token: str,
        run_id: str | None = None,
        *,
        transport: httpx2.BaseTransport | None = None,
    ) -> RemoteSession:
        """Open `run_id`, or the agent's episode (its latest unfinished run, else its latest
        run, which may be finished), or start the episode when the agent has none."""
        url = url.rstrip("/")
        try:
            client = httpx2.Client(
                base_url=url,
                headers={"Authorization": f"Bearer {token}"},
                timeout=TIMEOUT_SECONDS,
                transport=transport,
                verify=_checks_certificates(url),
            )
        except httpx2.InvalidURL as exc:
            raise UserError(
                f"{clip(url)} is not a URL: {single_line(str(exc))}", subject="connect"
            ) from None
        probe = cls(client, "", url)
        runs = probe._get(f"{API_PREFIX}/runs", RunList)
        if runs.agent != agent:
            client.close()
            raise UserError(f"the token given belongs to agent {runs.agent}, not {agent}")
        chosen = _choose(runs, run_id)
        if chosen is None:
            reply = probe._send(
                f"{API_PREFIX}/runs", StartRequest(command_id=_new_id("start")), StartReply
            )
            chosen = reply.run
        return cls(client, chosen.run_id, url)

    def close(self) -> None:
        """Close the connection (the run stays on the host)."""
        self._client.close()

    # -- transport ------------------------------------------------------------------
    def _request(self, method: str, path: str, body: BaseModel | None = None, **params: Any) -> Any:
        """One request, retried on a lost connection (commands carry their id). A reply
        that is not JSON (a proxy's page, another server) is one line, never a traceback."""
        content = None if body is None else body.model_dump_json().encode()
        headers = {"Content-Type": "application/json"} if content is not None else None
        last: Exception | None = None
        for _ in range(ATTEMPTS):
            try:
                response = self._client.request(
                    method, path, content=content, headers=headers, params=params or None
                )
                break
            except httpx2.TransportError as exc:
                last = exc
            except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
                raise UserError(
                    f"cannot ask the host at {clip(self.url)}: {single_line(str(exc))}"
                ) from None
        else:
            raise UserError(f"cannot reach the host at {self.url}: {last}")
        if response.status_code >= 400:
            raise _error(response, f"the server at {clip(self.url)}", f"{method} {path}")
        try:
            return response.json()
        except ValueError:
            raise UserError(
                f"the server at {clip(self.url)} is not a workbench host: its HTTP "
                f"{response.status_code} reply to {method} {path} is not JSON"
            ) from None

    def _get(self, path: str, model: type[M], **params: Any) -> M:
        return _parse(model, self._request("GET", path, **params))

    def _send(self, path: str, body: BaseModel, model: type[M]) -> M:
        return _parse(model, self._request("POST", path, body))

    def _run_path(self, tail: str = "") -> str:
        return f"{API_PREFIX}/runs/{self.run_id}{tail}"

    def _command(self, tail: str, body: BaseModel, model: type[M]) -> M:
        """Send a command; every cached read is stale afterwards."""
        self._view = None
        self._stale_journal = True
        return self._send(self._run_path(tail), body, model)

    # -- commands -------------------------------------------------------------------
    def preview(self, action_id: str) -> ScheduleOutcome:
        """Would this action be accepted now, and if not, why? Changes nothing."""
        preview = self._get(self._run_path("/preview"), Preview, action=action_id)
        return ScheduleOutcome(
            preview.action,
            preview.day,
            preview.accepted,
            preview.reason,
            preview.term,
            preview.start_day,
        )

    def schedule(self, action_id: str, command_id: str | None = None) -> ScheduleOutcome:
        """Schedule an action at today's decisions (journaled even when rejected)."""
        request = ScheduleRequest(command_id=command_id or _new_id("schedule"), action=action_id)
        reply = self._command("/schedule", request, ScheduleReply)
        return ScheduleOutcome(
            reply.action, reply.decision_day, reply.accepted, reply.reason, None, reply.start_day
        )

    def advance(self, days: int = 1, command_id: str | None = None) -> int:
        """Run `days` days with no further decisions; returns the new day."""
        try:
            request = AdvanceRequest(command_id=command_id or _new_id("advance"), days=days)
        except ValidationError as exc:
            raise UserError(f"advance: {exc.errors()[0]['msg']}") from None
        return self._command("/advance", request, CommandReply).day

    def submit(
        self, assessment: dict[str, Any] | CounterfactualAssessment, command_id: str | None = None
    ) -> SubmitResult:
        """Submit an assessment: schema and contract errors change nothing."""
        try:
            parsed = (
                assessment
                if isinstance(assessment, CounterfactualAssessment)
                else CounterfactualAssessment.model_validate(assessment)
            )
        except ValidationError as exc:
            return SubmitResult(
                tuple(
                    f"{'.'.join(str(p) for p in e['loc']) or 'assessment'}: {e['msg']}"
                    for e in exc.errors()
                )
            )
        request = SubmitRequest(command_id=command_id or _new_id("submit"), assessment=parsed)
        try:
            reply = self._command("/assessments", request, SubmitReply)
        except _Refused as exc:
            if exc.status != 422:
                raise
            return SubmitResult((exc.message,))
        return SubmitResult((), reply.seq, reply.eligible, reply.notes)

    def finish(self, command_id: str | None = None) -> int:
        """End the run; returns the final day."""
        request = FinishRequest(command_id=command_id or _new_id("finish"))
        return self._command("/finish", request, CommandReply).day

    # -- public reads ---------------------------------------------------------------
    @property
    def run_dir(self) -> None:
        """None: the run lives on the host, not in a local directory."""
        return None

    def info(self) -> RunInfo:
        """Day, horizon and state of the run on the host."""
        return self._get(self._run_path(), RunInfo)

    def view(self) -> PublicView:
        """The public view of the run today (cached until the next command)."""
        if self._view is None:
            self._view = self._get(self._run_path("/snapshot"), PublicView)
        return self._view

    @property
    def day(self) -> int:
        """The last closed day."""
        return self.view().day

    @property
    def horizon(self) -> int:
        """The campaign's last day."""
        return self.view().horizon

    @property
    def finished(self) -> bool:
        """True once the run is finished."""
        return self.view().finished

    def _sync_journal(self) -> None:
        """Fetch the journal entries this session has not seen yet."""
        if not self._stale_journal:
            return
        pages = 0
        while True:
            since = len(self._journal) + 1
            page = self._get(self._run_path("/journal"), JournalPage, since=since, limit=1000)
            self._journal.extend(page.entries)
            self._head = page.head
            self._journal_total = page.total
            pages += 1
            if not page.entries or len(self._journal) + 1 >= page.total or pages > 100:
                break
        self._stale_journal = False

    @property
    def journal_entries(self) -> tuple[JournalRow, ...]:
        """The run's commands in order (the host does not show the header)."""
        self._sync_journal()
        return tuple(self._journal)

    @property
    def journal_head(self) -> str:
        """Hash of the journal's last entry."""
        self._sync_journal()
        assert self._head is not None
        return self._head

    def metric_series(self) -> dict[str, list[Decimal]]:
        """Every metric at every closed day, in display units."""
        data = self._get(self._run_path("/metrics"), MetricSeries)
        return {k: [Decimal(v) for v in values] for k, values in data.series.items()}

    def ledger(self) -> RemoteLedger:
        """The run's own ledger."""
        data = self._get(self._run_path("/ledger"), LedgerData)

        def export(fmt: LedgerFormat) -> str:
            return self._get(self._run_path("/ledger/export"), LedgerExport, format=fmt).text

        return RemoteLedger(data, export)


class _Refused(UserError):
    """The host refused a request (its HTTP status kept for the caller)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _error(response: httpx2.Response, server: str, request: str) -> Exception:
    """The host's one-line error as a workbench error: a damaged run is an integrity
    failure (exit 3); a busy run, a refused write or a host at its limits is not (exit 2,
    as a local run another process writes, or a full disk, is). A reply without the host's
    error shape names the request and says the server may be no workbench host (a proxy's
    or another server's page said only `HTTP 404`)."""
    try:
        error = ErrorBody.model_validate(response.json()).error
        message, code = error.message, error.code
    except (ValueError, ValidationError):
        message = (
            f"{server} answered HTTP {response.status_code} to {request} without a "
            "workbench host's error (is it one?)"
        )
        code = None
    if response.status_code == 401:
        return UserError(f"the host refused the token: {message}")
    return _unavailable(code, message) or _Refused(response.status_code, message)


def _unavailable(code: str | None, message: str) -> IntegrityError | None:
    """The error of a run the host reports damaged, or None for any other error."""
    return IntegrityError(message) if code == DAMAGED else None


def _parse(model: type[M], data: Any) -> M:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise UserError(
            f"the host sent a malformed {model.__name__}: {exc.errors()[0]['msg']}"
        ) from None


def _choose(runs: RunList, run_id: str | None) -> RunInfo | None:
    """The run to open: the named one, else the latest unfinished one, else the latest one
    (a finished episode opens to be read), else None (start the episode). A run the host
    cannot serve is passed over; named, or the agent's only run, its error is the reply."""
    if run_id is not None:
        for run in runs.runs:
            if run.run_id == run_id:
                return _servable(run)
        raise UserError(f"no run {run_id} among agent {runs.agent}'s runs on this host")
    served = [run for run in runs.runs if isinstance(run, RunInfo)]
    unfinished = [run for run in served if not run.finished]
    if unfinished:
        return unfinished[-1]
    if served:
        return served[-1]
    return _servable(runs.runs[-1]) if runs.runs else None


def _servable(run: RunInfo | UnavailableRun) -> RunInfo:
    """`run`, or the error the host answers for it (as `_error` makes of a 503 reply)."""
    if isinstance(run, UnavailableRun):
        raise _unavailable(run.error.code, run.error.message) or UserError(run.error.message)
    return run


def _new_id(kind: str) -> str:
    """A fresh command id."""
    return f"{kind}-{uuid.uuid4().hex}"
