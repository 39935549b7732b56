"""Every refusal an agent gets is one printable, bounded line, whatever its values hold.

A supported-effects conclusion naming effects the question does not declare was refused
with the names as sent: a newline, a carriage return or a NUL in one came back raw in the
message (two lines for one problem), and 32 names of 128 characters made a 4 KiB line.
Over HTTP and MCP alike; a real host on loopback.
"""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import TextContent

from workbench.messages import LINE
from workbench.play.wire import API_PREFIX

from .agent import HttpAgent
from .conftest import ALPHA, Live, journal_of, mcp_session, one_error

QUESTION = "q_expansion_effects"
"""The default campaign's question whose conclusion is a list of declared effects."""
LONGEST = LINE + 80
"""A message at most this long: a bounded line (`LINE`) and a code's prefix."""


def submission(names: list[str], command_id: str = "eff-1") -> dict[str, Any]:
    """A submission concluding that the effects `names` show."""
    assessment = {"question": QUESTION, "value": "1", "conclusion": names}
    return {"command_id": command_id, "assessment": assessment}


def shown_whole(message: str) -> None:
    """Assert the message is one printable line of bounded length."""
    assert message.isprintable(), repr(message)
    assert len(message) <= LONGEST, len(message)


NAMES = (
    ["over\nhead", "capa\rcity", "nul\x00", "sep\u2028arator", "esc\x1b[31m"],
    [chr(0x41 + i % 26) * 128 for i in range(32)],
)


def test_effect_names_with_control_characters_come_back_on_one_line(live: Live) -> None:
    agent = HttpAgent(live.client(ALPHA))
    agent.start()
    before = journal_of(live, agent.run_id)
    for names in NAMES:
        reply = agent.client.post(agent.run("/assessments"), json=submission(names))
        shown_whole(one_error(reply, 422, "invalid"))

    async def over_mcp() -> list[str]:
        texts = []
        async with mcp_session(live.url, live.hosted.tokens[ALPHA]) as mcp:
            for names in NAMES:
                arguments = {"run_id": agent.run_id, **submission(names)}
                result = await mcp.call_tool("submit_assessment", arguments)
                assert result.is_error and isinstance(result.content[0], TextContent)
                texts.append(result.content[0].text)
        return texts

    for text in anyio.run(over_mcp):
        assert "invalid" in text
        shown_whole(text)
    assert journal_of(live, agent.run_id) == before


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(names=st.lists(st.text(min_size=1, max_size=128), min_size=1, max_size=32))
def test_any_refused_names_come_back_on_one_line(
    shared_live: Live, alpha_run: str, names: list[str]
) -> None:
    with shared_live.client(ALPHA) as client:
        path = f"{API_PREFIX}/runs/{alpha_run}/assessments"
        reply = client.post(path, json=submission(names, "eff-any"))
    if reply.status_code != 200:
        shown_whole(reply.json()["error"]["message"])
