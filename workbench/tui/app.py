"""The workbench Textual shell: one app frame, a player mode and an author mode.

Each mode has one table of screens (go-to key, name, label, loader). Screens import
on first use and the player's session opens in a worker, so the first screen paints
before the simulator is imported. Only this package and `workbench.cli.play` import
Textual; every change to a run goes through the session's methods called from here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widget import AwaitMount
from textual.widgets import LoadingIndicator, Static

from ledger.collector import settle_for_serving
from workbench.tui.errors import guarded, shown_as_notice
from workbench.tui.markup import styled
from workbench.tui.messages import SessionChanged, SessionFailed, SessionOpened

if TYPE_CHECKING:
    from textual.command import Provider
    from textual.content import Content

    from workbench.errors import WorkbenchError
    from workbench.play.protocol import SessionProtocol
    from workbench.play.session import PlayerSession, SubmitResult
    from workbench.runs.registration import ControlFile

DARK, LIGHT = "textual-dark", "textual-light"


@dataclass(frozen=True)
class ScreenSpec:
    """One screen of a mode: its go-to key, mode name, label and a lazy loader."""

    key: str
    mode: str
    label: str
    load: Callable[[], type[Screen[Any]]]


def _dashboard() -> type[Screen[Any]]:
    from workbench.tui.screens.dashboard import DashboardScreen

    return DashboardScreen


def _actions() -> type[Screen[Any]]:
    from workbench.tui.screens.actions import ActionsScreen

    return ActionsScreen


def _questions() -> type[Screen[Any]]:
    from workbench.tui.screens.questions import QuestionsScreen

    return QuestionsScreen


def _journal() -> type[Screen[Any]]:
    from workbench.tui.screens.journal import JournalScreen

    return JournalScreen


def _ledger() -> type[Screen[Any]]:
    from workbench.tui.screens.ledger import LedgerScreen

    return LedgerScreen


def _causal() -> type[Screen[Any]]:
    from workbench.tui.screens.causal import CausalScreen

    return CausalScreen


def _vc() -> type[Screen[Any]]:
    from workbench.tui.screens.vc import VCScreen

    return VCScreen


def _check() -> type[Screen[Any]]:
    from workbench.tui.screens.author.check import CheckScreen

    return CheckScreen


def _runs() -> type[Screen[Any]]:
    from workbench.tui.screens.author.runs import RunsScreen

    return RunsScreen


def _reports() -> type[Screen[Any]]:
    from workbench.tui.screens.author.reports import ReportsScreen

    return ReportsScreen


PLAYER_SCREENS: tuple[ScreenSpec, ...] = (
    ScreenSpec("1", "dashboard", "Dashboard", _dashboard),
    ScreenSpec("2", "actions", "Actions", _actions),
    ScreenSpec("3", "questions", "Questions", _questions),
    ScreenSpec("4", "journal", "Journal", _journal),
    ScreenSpec("5", "ledger", "Ledger", _ledger),
    ScreenSpec("6", "causal", "Causal", _causal),
    ScreenSpec("7", "vc", "VC", _vc),
)
"""The player's screens: the run, its catalog and questions, journal, ledger, two graders."""

AUTHOR_SCREENS: tuple[ScreenSpec, ...] = (
    ScreenSpec("1", "check", "Check", _check),
    ScreenSpec("2", "runs", "Runs", _runs),
    ScreenSpec("3", "reports", "Reports", _reports),
)
"""The author's screens: campaign findings, validation of finished runs, reports."""

GO_TO = "go-to"
"""The name the go-to list is installed under: built once per app, shown on each `ctrl+o`."""


def _player_commands() -> type[Provider]:
    from workbench.tui.commands import PlayerCommands

    return PlayerCommands


def _author_commands() -> type[Provider]:
    from workbench.tui.commands import AuthorCommands

    return AuthorCommands


Modes = dict[str, str | Callable[[], Screen[Any]]]


def _maker(spec: ScreenSpec) -> Callable[[], Screen[Any]]:
    """A factory that imports the spec's screen on first use and builds it."""

    def make() -> Screen[Any]:
        return spec.load()()

    return make


def _modes(table: tuple[ScreenSpec, ...]) -> Modes:
    return {spec.mode: _maker(spec) for spec in table}


class WorkbenchShell(App[None]):
    """The frame both modes share: screen table, go-to, help, theme, Escape out of inputs."""

    CSS_PATH = Path(__file__).with_name("workbench.tcss")
    """Absolute, so subclasses defined elsewhere (benchmarks, tests) find it too."""
    TITLE = "Counterfactual Workbench"
    ENABLE_COMMAND_PALETTE = True
    SCREEN_TABLE: ClassVar[tuple[ScreenSpec, ...]] = ()
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+o", "go_to", "Go to", priority=True),
        Binding("f1", "help", "Help", priority=True),
        Binding("f2", "toggle_theme", "Theme", priority=True),
        Binding("escape", "leave_input", "Leave input", show=False),
    ]

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.theme = DARK

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = False,
    ) -> None:
        """A notification, always shown as text (`markup` is ignored) and bounded as the
        CLI bounds its `Error:` lines (`bound_message`).

        Messages quote what people typed or named (a path, a value, a run): read as
        markup, `[/]` in one raised MarkupError and closed the app. A widget's `notify`
        asks for markup by default, so the app does not take the request. Unbounded, a
        4,096-character path typed on VC made a toast of 75 rows, taller than the screen.
        """
        from workbench.messages import bound_message

        text = bound_message(message.splitlines())
        super().notify(text, title=title, severity=severity, timeout=timeout, markup=False)

    @property
    def screen_table(self) -> tuple[ScreenSpec, ...]:
        """The screens of this mode, in go-to order."""
        return self.SCREEN_TABLE

    def action_view(self, mode: str) -> None:
        """Show one screen of the table."""
        self.switch_mode(mode)

    def switch_mode(self, mode: str) -> AwaitMount:
        """Close the go-to list first, whatever asked for the switch (the palette too).

        It is one shared screen, so it may only ever be in the current mode's stack;
        screens opened over it (help) close with it.
        """
        self._close_go_to()
        return super().switch_mode(mode)

    def _close_go_to(self) -> bool:
        """Pop the go-to list and whatever is above it; False when it is not open."""
        from workbench.tui.screens.goto import GoToScreen

        stack = self.screen_stack
        for depth, screen in enumerate(reversed(stack), start=1):
            if isinstance(screen, GoToScreen):
                for _ in range(depth):
                    self.pop_screen()
                return True
        return False

    def action_go_to(self) -> None:
        """Ask which screen to show (a digit picks it): typing never switches screens.

        Pressed again while the list is open, it closes the list (the list's own `ctrl+o`
        binding never fires: this one has priority).
        """
        from workbench.tui.screens.goto import GoToScreen

        if self._close_go_to():
            return
        if not self.is_screen_installed(GO_TO):
            self.install_screen(GoToScreen(self.screen_table), GO_TO)
        self.push_screen(GO_TO)

    def action_help(self) -> None:
        """List the key scheme and every key of this mode."""
        from workbench.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen_table, type(self).BINDINGS))

    def action_toggle_theme(self) -> None:
        """Switch between the light and dark themes."""
        self.theme = LIGHT if self.theme == DARK else DARK

    def action_leave_input(self) -> None:
        """Escape: move focus out of a text field to the screen's main widget."""
        from workbench.tui.widgets.inputs import takes_text

        if takes_text(self.focused):
            home = getattr(self.screen, "home", None)
            target = home() if callable(home) else None
            if target is not None and target.focusable:
                target.focus()
            else:
                self.screen.set_focus(None)


@runtime_checkable
class Closable(Protocol):
    """A session that holds something until closed (a run's writer lock, a connection)."""

    def close(self) -> None:
        """Release it."""


class OpeningScreen(Screen[None]):
    """Shown while the run opens in a worker (its journal is replayed)."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def compose(self) -> ComposeResult:
        """A title, what is being opened, and a busy indicator."""
        yield Static(
            styled("[b]Counterfactual Workbench[/b]\n\nOpening $what …", what=self.what),
            id="opening",
        )
        yield LoadingIndicator()

    def failed(self, error: WorkbenchError) -> None:
        """Say why the run cannot be opened, in place of the busy indicator."""
        from workbench.messages import bound_message

        self.query_one("#opening", Static).update(
            styled(
                "[b]Counterfactual Workbench[/b]\n\nCannot open $what:\n\n[b]Error:[/b] $why"
                "\n\nClose this page, and open it again once that is put right.",
                what=self.what,
                why=bound_message(error.lines),
            )
        )
        for indicator in self.query(LoadingIndicator):
            indicator.remove()


class PlayerApp(WorkbenchShell):
    """Play a run: every screen reads the session; only the session changes the run."""

    SCREEN_TABLE = PLAYER_SCREENS
    MODES: ClassVar[Modes] = _modes(PLAYER_SCREENS)
    COMMANDS = App.COMMANDS | {_player_commands}

    def __init__(
        self,
        session: SessionProtocol | None = None,
        *,
        opener: Callable[[], SessionProtocol] | None = None,
        opening: str = "the run",
        briefing_at_start: bool = True,
        settle_collector: bool = False,
        **kwargs: Any,
    ) -> None:
        """Play `session`, or the one `opener` opens in a worker behind an opening screen.

        With `settle_collector` (`workbench play`), once the run shows, what is alive is
        hidden from Python's collector (`settle_for_serving`). Textual allocates so much
        per frame that the collector otherwise made a full collection every few commands,
        each walking every object of the process: 12 in 40 advances and 40 screen
        switches, up to 189 ms each, a dashboard frozen that long; settled, that play made
        one. Off by default, for an app sharing its process (the tests).
        """
        super().__init__(**kwargs)
        if (session is None) == (opener is None):
            raise ValueError("give either an open session or an opener")
        self._session = session
        self._opener = opener
        self.opening = opening
        self.briefing_at_start = briefing_at_start
        self.settle_collector = settle_collector
        self.open_error: WorkbenchError | None = None
        self.open_error_told = False
        """True when `open_error` was shown on the page and written to standard error
        already (served in a browser): the command need not print it again."""
        self.unsent: dict[str, str] = {}
        """Answers typed on Questions and not submitted, by question (kept by that screen)."""

    @property
    def session(self) -> SessionProtocol:
        """The session being played, local or hosted (open once the first screen is up)."""
        if self._session is None:
            raise RuntimeError("the session is still opening")
        return self._session

    @property
    def local(self) -> PlayerSession | None:
        """The session when it plays a run here (it has the campaign), else None.

        A local run adds the journal file's re-verification; everything else the
        screens show reads the public view, so every run has it.
        """
        from workbench.play.session import PlayerSession

        return self._session if isinstance(self._session, PlayerSession) else None

    def close_session(self) -> None:
        """Release the session (a local run's writer lock, a hosted run's connection)."""
        if isinstance(self._session, Closable):
            self._session.close()

    @property
    def ready(self) -> bool:
        """True once the session is open."""
        return self._session is not None

    @property
    def export_dir(self) -> Path:
        """Where ledger exports go: the run directory, or the working one for a hosted run."""
        local = self.local
        return local.paths.root if local is not None else Path.cwd()

    def on_mount(self) -> None:
        """Show the run (or an opening screen while the session opens in a worker)."""
        if self._session is not None:
            self._start()
            return
        self.push_screen(OpeningScreen(self.opening))
        self.call_after_refresh(self._open)

    @work(thread=True, exclusive=True, group="open")
    def _open(self) -> None:
        """Open the session off the UI thread (importing and replaying takes a while)."""
        from workbench.errors import UserError, WorkbenchError, os_error_message

        assert self._opener is not None
        try:
            session = self._opener()
        except WorkbenchError as exc:
            self.post_message(SessionFailed(exc))
            return
        except OSError as exc:  # a path the system refuses: the CLI's one line, exit 2
            self.post_message(SessionFailed(UserError(os_error_message(exc))))
            return
        self.post_message(SessionOpened(session))

    @shown_as_notice
    def on_session_opened(self, message: SessionOpened) -> None:
        """The run is open: show the dashboard (and the briefing on a new run)."""
        self._session = message.session
        self._start()

    def on_session_failed(self, message: SessionFailed) -> None:
        """The run cannot be opened: leave with the error's exit code (the CLI prints it).

        Served in a browser (`workbench serve`), an app that leaves shows its page only
        textual-serve's "Session ended.": there the error stays on the page until the page
        goes, and goes at once to standard error, which the server logs.
        """
        self.open_error = message.error
        if not self.is_web:
            self.exit(return_code=message.error.exit_code)
            return
        from workbench.messages import bound_message

        print(f"Error: {bound_message(message.error.lines)}", file=sys.__stderr__, flush=True)
        self.open_error_told = True
        if isinstance(self.screen, OpeningScreen):
            self.screen.failed(message.error)

    def _start(self) -> None:
        self.sub_title = self.session.view().campaign.title
        self.switch_mode("dashboard")
        if self.settle_collector:
            self.call_after_refresh(settle_for_serving)
        if self.briefing_at_start and self.session.day == 0:
            self.show_briefing()
        elif self.session.finished:
            self.show_summary()

    @shown_as_notice
    def show_briefing(self) -> None:
        """The campaign briefing: situation, objective, questions, how to play."""
        from workbench.play.objective import briefing
        from workbench.tui.screens.briefing import BriefingScreen

        self.push_screen(BriefingScreen(briefing(self.session.view())))

    @shown_as_notice
    def show_summary(self) -> None:
        """The end-of-campaign summary (a preview while the run is still in play)."""
        from workbench.play.objective import campaign_summary, progress_in
        from workbench.tui.format import submission_numbers
        from workbench.tui.screens.briefing import SummaryScreen

        view = self.session.view()
        progress = progress_in(view, self.session.metric_series())
        run_dir = self.session.run_dir
        summary = campaign_summary(view, progress, None if run_dir is None else str(run_dir))
        self.push_screen(SummaryScreen(summary, submission_numbers(view.submissions)))

    # -- the only places the run changes -------------------------------------------
    @shown_as_notice
    def advance(self, days: int, *, confirmed: bool = False) -> int | None:
        """Advance the run `days` days; notify errors; repaint; summarise at the end.

        Unless `confirmed`, two advances ask first. One to the campaign's last day ends
        play for good: it is finishing the run, so it asks what `f` asks (`ask_finish`),
        however it was asked for (a key, a typed count, the palette). One that would close
        questions whose typed answers were never submitted: they would be lost for good."""
        from workbench.play.unsent import lost_by_advancing
        from workbench.tui.screens.confirm import ConfirmAdvance

        if not confirmed and self.session.day + days == self.session.horizon:
            self.ask_finish()
            return None
        if not confirmed and self.unsent:
            to_day = self.session.day + days
            lost = guarded(
                self, lambda: lost_by_advancing(self.session.view(), self.unsent, to_day)
            )
            if lost:
                self.push_screen(ConfirmAdvance(days, to_day, lost))
                return None
        was_finished = self.session.finished
        day = guarded(self, lambda: self.session.advance(days))
        if day is not None:
            self.session_changed()
            if self.session.finished and not was_finished:
                self.show_summary()
        return day

    @shown_as_notice
    def ask_finish(self) -> None:
        """Confirm, then end the run: the remaining days run with no decisions."""
        from workbench.tui.screens.confirm import ConfirmFinish

        if self.session.finished:
            self.notify("The run is already finished.", severity="warning")
            return
        from workbench.play.unsent import lost_by_leaving

        lost = guarded(self, lambda: lost_by_leaving(self.session.view(), self.unsent)) or []
        self.push_screen(ConfirmFinish(self.session.day, self.session.horizon, lost))

    async def action_quit(self) -> None:
        """Quit; with typed answers never submitted for open questions, ask first."""
        from workbench.play.unsent import lost_by_leaving
        from workbench.tui.screens.confirm import ConfirmQuit

        lost = []
        if self.unsent and self._session is not None:
            lost = guarded(self, lambda: lost_by_leaving(self.session.view(), self.unsent)) or []
        if lost and not isinstance(self.screen, ConfirmQuit):
            self.push_screen(ConfirmQuit(lost))
            return
        self.exit()

    @shown_as_notice
    def finish_run(self) -> None:
        """End the run (journaled), repaint, and show the end-of-campaign summary."""
        day = guarded(self, lambda: self.session.finish())
        if day is not None:
            self.notify(f"The run is finished on day {day}.")
            self.session_changed()
            self.show_summary()

    def schedule_preview(self, action_id: str) -> Content:
        """What scheduling `action_id` now would do, with the questions it would break."""
        from workbench.play.traps import traps_if_scheduled
        from workbench.tui.widgets.actions import preview_text

        outcome = self.session.preview(action_id)
        traps = traps_if_scheduled(self.session.view(), action_id) if outcome.accepted else ()
        return preview_text(outcome, traps)

    @shown_as_notice
    def ask_schedule(self, action_id: str) -> None:
        """Confirm scheduling `action_id` in a modal repeating its preview (the Actions
        screen's `s` and the palette alike); a finished run schedules nothing."""
        from workbench.tui.screens.confirm import ConfirmSchedule

        if self.session.finished:
            self.notify(
                "The campaign has ended: nothing more can be scheduled.", severity="warning"
            )
            return
        self.push_screen(ConfirmSchedule(action_id, self.schedule_preview(action_id)))

    @shown_as_notice
    def schedule(self, action_id: str) -> None:
        """Schedule an action now (a rejection is journaled and shown as an alert)."""
        outcome = guarded(self, lambda: self.session.schedule(action_id))
        if outcome is None:
            return
        if outcome.accepted:
            self.notify(f"Scheduled {action_id}: starts on day {outcome.start_day}")
        else:
            self.notify(f"Rejected {outcome.reason}", severity="warning")
        self.session_changed()

    @shown_as_notice
    def submit(self, assessment: dict[str, Any]) -> SubmitResult | None:
        """Submit an assessment; schema errors come back in the result."""
        result = guarded(self, lambda: self.session.submit(assessment))
        if result is None:
            return None
        if result.accepted:
            from workbench.tui.format import submission_name

            note = "eligible" if result.eligible else "past the deadline: not eligible"
            view = guarded(self, lambda: self.session.view())
            name = submission_name(view.submissions if view is not None else (), result.seq)
            self.notify(f"{name} recorded ({note})")
            self.session_changed()
        else:
            self.notify("; ".join(result.errors), severity="error", timeout=8)
        return result

    def session_changed(self) -> None:
        """Tell the visible screen to repaint from the session; warn when the command went
        through but its seal could not be written (the run is then sealed later)."""
        self.screen.post_message(SessionChanged())
        local = self.local
        if local is not None and local.seal_problem is not None:
            self.notify(
                f"Done, but the seal is behind: {local.seal_problem}.",
                severity="warning",
                timeout=8,
            )

    def export_ledger(self, fmt: str) -> Path | None:
        """Write the ledger as beancount or CSV into the run directory (atomically)."""
        from workbench.play.public_view import write_export

        replace = self.local is not None  # a run directory's own export, else the user's cwd
        path = guarded(
            self,
            lambda: write_export(self.session.ledger(), fmt, self.export_dir, replace=replace),
        )
        if path is not None:
            self.notify(f"Ledger written to {path}")
        return path


class AuthorApp(WorkbenchShell):
    """Author mode: campaign check findings, validation of finished runs, report browser."""

    SCREEN_TABLE = AUTHOR_SCREENS
    MODES: ClassVar[Modes] = _modes(AUTHOR_SCREENS)
    COMMANDS = App.COMMANDS | {_author_commands}
    TITLE = "Counterfactual Workbench: author"

    def __init__(
        self,
        campaign: Path,
        runs_root: Path,
        control: ControlFile | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.campaign = campaign
        self.runs_root = runs_root
        self.control = control
        self.last_report: Path | None = None

    def on_mount(self) -> None:
        """Open on the campaign's check findings."""
        self.sub_title = str(self.campaign)
        self.switch_mode("check")
