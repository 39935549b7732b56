"""An agent list file for `control new --agents-file`: one agent id per line.

Evaluations with hundreds or thousands of agents do not fit a command line of `--agent`
options; a file lists them, blank lines and `#` comments skipped, each bad id named by
its line.
"""

from __future__ import annotations

from pathlib import Path

from workbench.errors import UserError
from workbench.inputs import read_bounded
from workbench.messages import bound_lines, clip
from workbench.runs.registration import AGENT_ID, AGENT_ID_RULE


def read_agent_list(path: Path) -> tuple[str, ...]:
    """The agent ids `path` lists, in order; a UserError naming each bad line."""
    data = read_bounded(path, "agent list")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: agent list is not UTF-8 text (byte {exc.start})") from None
    return parse_agent_list(text.removeprefix("\ufeff"), str(path))  # a BOM, as editors write


def parse_agent_list(text: str, source: str) -> tuple[str, ...]:
    """The agent ids of an agent list's `text` (`source` names it in messages)."""
    agents: list[str] = []
    problems: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        agent = line.strip()
        if not agent or agent.startswith("#"):
            continue
        if AGENT_ID.fullmatch(agent):
            agents.append(agent)
        else:
            problems.append(
                f"{source} line {number}: {clip(agent)} is not an agent id ({AGENT_ID_RULE})"
            )
    if problems:
        raise UserError(bound_lines(problems, "bad lines"))
    if not agents:
        raise UserError(f"{source}: agent list names no agent")
    return tuple(agents)
