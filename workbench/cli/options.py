"""Option declarations and run-directory helpers shared by every CLI command.

`--control` and `--agent` are declared once here; every command that opens a run goes
through `open_run` (read-only) or `play_session` (create or resume), so the run-dir guard
lives in `PlayerSession.resume` and nowhere else.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ledger.file_kinds import any_kind
from workbench.errors import UserError, framed
from workbench.messages import clip

if TYPE_CHECKING:
    from workbench.evaluation.executors import ExecutorSpec
    from workbench.play.session import PlayerSession
    from workbench.runs.registration import ControlFile

F = TypeVar("F", bound=Callable[..., object])


class PathText(click.Path):
    """A path argument or option, refused in one `Error:` line like every other input.

    An empty value is refused: `Path("")` is the current folder, so `workbench check
    "$DIR"` with DIR unset would have checked (and `new --from` copied, `run --out`
    written) whatever folder the shell stood in. So is a directory given where a file is
    wanted, and anything but a directory where a directory is wanted: click's own checks
    printed its three-line usage error for these, though the value was a good option and
    the file was at fault (`Error: PATH: is a directory, not a file (--script)`, exit 2,
    as the commands' own readers say it). Whether the path exists, can be read or is a
    pipe is left to the command's reader, which names it the same way.
    """

    def __init__(self, *, file_okay: bool = True, dir_okay: bool = True) -> None:
        super().__init__(file_okay=file_okay, dir_okay=dir_okay, readable=False, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """Refuse an empty value or a path of the wrong kind; otherwise the path."""
        if value in ("", b""):
            raise refused_path("an empty path names nothing", param)
        if isinstance(value, str | bytes | os.PathLike):
            problem = self._wrong_kind(value)
            if problem is not None:
                raise refused_path(f"{os.fsdecode(value)}: {problem}", param)
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            raise refused_path(exc.format_message(), param) from None

    def _wrong_kind(self, value: str | bytes | os.PathLike[str] | os.PathLike[bytes]) -> str | None:
        """Why `value` (followed through links) is not the kind of path asked for, or None
        (also when it cannot be looked at: the command's reader says why), or a loop of
        symbolic links, which no command can follow."""
        try:
            mode = os.stat(value).st_mode
        except OSError as exc:
            if exc.errno == errno.ELOOP:  # no command could follow it (pathlib's resolve raised)
                return f"cannot access ({exc.strerror})"
            return None
        except ValueError:
            return None
        if stat.S_ISDIR(mode) and not self.dir_okay:
            return "is a directory, not a file"
        if not stat.S_ISDIR(mode) and not self.file_okay:
            return f"is {any_kind(mode)}, not a directory"
        return None


def parameter_words(param: click.Parameter | None) -> str:
    """The parameter as a user typed it: `--script`, or `the RUN_DIR argument`."""
    if isinstance(param, click.Option) and param.opts:
        return max(param.opts, key=len)
    if param is not None and param.name:
        return f"the {param.human_readable_name.strip('[]').upper()} argument"
    return "an argument"


def refused_path(problem: str, param: click.Parameter | None) -> UserError:
    """A path parameter's value refused in one line that names the parameter."""
    return UserError(f"{problem} ({parameter_words(param)})")


DIR = PathText(file_okay=False)
"""A directory argument (it need not exist yet)."""
FILE = PathText(dir_okay=False)
"""A file argument (it need not exist yet)."""
ANY_PATH = PathText()
"""A file or directory argument (it need not exist yet)."""

WHOLE_TEXT = re.compile(r"[+-]?[0-9]+")
"""A whole number as typed on a command line: ASCII digits only, as the host, scripts and
the dashboard take it (`int` also took `1_0` for ten and other scripts' digits, `٣`)."""

MAX_DIGITS = 40
"""Characters of a whole number read before it is refused unread (int() of a long string
costs time, and click's own int type quotes a refused value in full)."""


class Whole(click.ParamType[int]):
    """A whole number in ASCII digits, within [low, high] when they are given; a bad value
    is quoted clipped, never in full, and one of more than MAX_DIGITS characters is never
    parsed."""

    name = "integer"

    def __init__(
        self,
        low: int | None = None,
        high: int | None = None,
        high_text: str | None = None,
        *,
        low_text: str | None = None,
    ) -> None:
        """Bounds `low` and `high` (None: none), shown in messages as `low_text`/`high_text`."""
        self.low, self.high = low, high
        self.low_text = low_text or str(low)
        self.high_text = high_text or str(high)

    def _out_of_range(self, text: str) -> str:
        """Why `text`, a whole number outside the range (or too long to read), is refused."""
        if self.low is None or self.high is None:
            return f"{clip(text)} has too many digits"
        return f"{clip(text)} is not in the range {self.low_text} to {self.high_text}"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """Parse and range-check without echoing a huge value."""
        if isinstance(value, int) and not isinstance(value, bool):
            number, text = value, str(value)
        else:
            text = str(value).strip()
            if not WHOLE_TEXT.fullmatch(text):
                self.fail(f"{clip(text)} is not a whole number", param, ctx)
            if len(text) > MAX_DIGITS:
                self.fail(self._out_of_range(text), param, ctx)
            number = int(text)
        if (self.low is not None and number < self.low) or (
            self.high is not None and number > self.high
        ):
            self.fail(self._out_of_range(text), param, ctx)
        return number


campaign_arg = click.argument("campaign", required=False, type=DIR)
"""An optional campaign directory (the default campaign when omitted)."""
run_dir_arg = click.argument("run_dir", type=DIR)
"""A run directory."""
moved_campaign_opt = click.option(
    "--campaign",
    "campaign",
    type=DIR,
    help="The run's campaign folder, when it is no longer where run.json says (it moved).",
)
"""`--campaign DIR`: where a run's campaign is now (its digest is checked as always)."""
json_opt = click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
"""`--json`: machine-readable output."""
control_opt = click.option("--control", type=FILE, help="Control file of a private campaign.")
"""`--control FILE`: a private campaign's control file."""
agent_opt = click.option(
    "--agent", "agent_id", help="Registered agent id (private campaigns, with --control)."
)
"""`--agent ID`: the registered agent of a private campaign."""


def private_options(command: F) -> F:
    """`--control FILE` and `--agent ID`, the pair every private-campaign command takes."""
    return control_opt(agent_opt(command))


def run_reader_options(command: F) -> F:
    """`--control`, `--agent` and `--campaign DIR`: what a command reading a run takes."""
    return private_options(moved_campaign_opt(command))


def executor_options(command: F) -> F:
    """`--executor local|dask`, `--scheduler ADDRESS` and `--workers N`: where tasks run."""
    command = click.option(
        "--workers",
        type=Whole(),
        default=None,
        help="Local processes, or workers of a new local Dask cluster "
        "(default: 1 locally, the CPU count for Dask).",
    )(command)
    command = click.option(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="A running Dask scheduler, e.g. tcp://10.0.0.5:8786 (with --executor dask; "
        "default: a new local cluster).",
    )(command)
    return click.option(
        "--executor",
        type=click.Choice(["local", "dask"]),
        default="local",
        show_default=True,
        help="Where tasks run: a local process pool, or Dask (distributed).",
    )(command)


def executor_spec(executor: str, scheduler: str | None, workers: int | None) -> ExecutorSpec:
    """The checked executor choice of `executor_options`."""
    from workbench.evaluation.executors import ExecutorSpec

    if executor == "dask":
        return ExecutorSpec("dask", scheduler, workers)
    return ExecutorSpec("local", scheduler, workers)


def control_file(path: Path | None) -> ControlFile | None:
    """The control file at `path`, validated, or None when the option was not given."""
    from workbench.runs.registration import load_control

    return load_control(path) if path is not None else None


def open_run(
    run_dir: Path, control: Path | None, agent_id: str | None, campaign: Path | None = None
) -> PlayerSession:
    """The run in `run_dir` resumed read-only: no lock taken, nothing sealed or written
    (`campaign`: where its campaign is, when it moved)."""
    from workbench.play.session import PlayerSession

    return PlayerSession.resume(
        run_dir,
        campaign,
        control=control_file(control),
        agent_id=agent_id,
        autoseal=False,
        read_only=True,
    )


def play_session(
    run_dir: Path,
    campaign: Path | None,
    control: Path | None = None,
    agent_id: str | None = None,
    *,
    autoseal: bool = True,
) -> PlayerSession:
    """Resume the run `run_dir` holds, or create one there when it holds none.

    The session holds the run's writer lock: close it (or use it as a context manager).
    """
    from workbench.play.session import PlayerSession
    from workbench.runs.files import RunPaths

    opener = PlayerSession.resume if RunPaths(run_dir).exists() else PlayerSession.create
    try:
        return opener(
            run_dir, campaign, control=control_file(control), agent_id=agent_id, autoseal=autoseal
        )
    except UserError as exc:
        if exc.subject != "campaign":
            raise
        raise UserError(framed(exc, after=" (the CAMPAIGN argument)")) from None
