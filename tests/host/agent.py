"""A minimal agent over the host's JSON API, for tests: every call checked and recorded."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import httpx2

from workbench.play.wire import API_PREFIX


@dataclass
class HttpAgent:
    """Plays one run through a real HTTP client; keeps every response's bytes."""

    client: httpx2.Client
    prefix: str = "cmd"
    run_id: str = ""
    seen: list[bytes] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=itertools.count)

    def next_id(self) -> str:
        """A fresh command id."""
        return f"{self.prefix}-{next(self._ids)}"

    def call(self, method: str, path: str, expect: int | None = 200, **kwargs: Any) -> Any:
        """One request; asserts the status (when given) and returns the JSON body."""
        response = self.client.request(method, path, **kwargs)
        self.seen.append(response.content)
        if expect is not None:
            assert response.status_code == expect, (path, response.status_code, response.text)
        return response.json()

    def run(self, tail: str = "") -> str:
        """The path of this agent's run (and a tail)."""
        return f"{API_PREFIX}/runs/{self.run_id}{tail}"

    def start(self, command_id: str | None = None) -> dict[str, Any]:
        """Start an episode; remembers the run."""
        reply = self.call(
            "POST", f"{API_PREFIX}/runs", 201, json={"command_id": command_id or self.next_id()}
        )
        self.run_id = reply["run"]["run_id"]
        return reply

    def command(self, tail: str, body: dict[str, Any], expect: int = 200) -> dict[str, Any]:
        """Send a command with a fresh id unless the body names one."""
        body = {"command_id": self.next_id(), **body}
        return self.call("POST", self.run(tail), expect, json=body)

    def schedule(self, action: str) -> dict[str, Any]:
        return self.command("/schedule", {"action": action})

    def advance(self, days: int = 1) -> dict[str, Any]:
        return self.command("/advance", {"days": days})

    def submit(self, assessment: dict[str, Any]) -> dict[str, Any]:
        return self.command("/assessments", {"assessment": assessment})

    def finish(self) -> dict[str, Any]:
        return self.command("/finish", {})


SHORT_EPISODE_SUBMISSIONS = (
    {"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"},
    {"question": "q_spring_campaign", "value": "1500"},
)


def play_short_episode(agent: HttpAgent) -> None:
    """Start, schedule, advance, submit, finish: one of each command."""
    agent.start()
    agent.schedule("spring_campaign")
    agent.advance(3)
    for assessment in SHORT_EPISODE_SUBMISSIONS:
        agent.submit(assessment)
    agent.advance(2)
    agent.finish()
