"""Command ids: a retry is never applied twice; a reused id with other content is refused.

Over real HTTP: retries of every command kind (also after the run finished and after a
host restart), the same command sent by many threads at once, starts, and a random
sequence of commands with duplicates.
"""

from __future__ import annotations

import random
import threading
from typing import Any

import httpx2
import pytest

from ledger.journal import Journal
from workbench.host.server import ServerThread
from workbench.play.wire import API_PREFIX

from .agent import HttpAgent
from .conftest import ALPHA, BRAVO, TLS, Hosted, Live


def entries(live: Live, run_id: str) -> list[tuple[str, str]]:
    """(kind, id) of every command in the run's journal on disk."""
    journal = Journal.open(live.hosted.runs / run_id / "journal.jsonl")
    return [(e.kind, e.id) for e in journal.entries[1:]]


COMMANDS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("/schedule", {"action": "spring_campaign"}, {"action": "bank_loan"}),
    ("/advance", {"days": 2}, {"days": 3}),
    (
        "/assessments",
        {"assessment": {"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"}},
        {"assessment": {"question": "q_bank_loan", "value": "-501", "conclusion": "-300.00"}},
    ),
    ("/finish", {}, {"days": 1}),
]


def test_a_retry_returns_the_first_reply_and_applies_nothing(live: Live) -> None:
    agent = HttpAgent(live.client(ALPHA))
    agent.start()
    for tail, body, other in COMMANDS:
        first = agent.command(tail, {"command_id": f"id-{tail[1:]}", **body})
        journal = entries(live, agent.run_id)
        again = agent.command(tail, {"command_id": f"id-{tail[1:]}", **body})
        assert again == {**first, "retry": True} and first["retry"] is False
        assert entries(live, agent.run_id) == journal
        target = "/advance" if tail == "/finish" else tail
        conflict = agent.command(target, {"command_id": f"id-{tail[1:]}", **other}, 409)
        kind = "submit_assessment" if tail == "/assessments" else tail[1:]
        assert conflict["error"]["message"] == (
            f"command id id-{tail[1:]} was already used by the {kind} at seq {first['seq']} "
            "with other content: choose a new id"
        )
        assert entries(live, agent.run_id) == journal
    assert [kind for kind, _ in entries(live, agent.run_id)] == [
        "schedule",
        "advance",
        "submit_assessment",
        "finish",
    ]


def test_a_retry_after_a_restart_returns_the_first_reply(hosted: Hosted) -> None:
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        agent = HttpAgent(Live(hosted, runtime, server.url).client(ALPHA))
        agent.start("start")
        first = agent.command("/advance", {"command_id": "adv", "days": 4})
        done = agent.command("/finish", {"command_id": "fin"})
    runtime.close()
    runtime = hosted.runtime()
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        agent = HttpAgent(live.client(ALPHA))
        again = agent.call("POST", f"{API_PREFIX}/runs", 200, json={"command_id": "start"})
        agent.run_id = again["run"]["run_id"]
        assert again["created"] is False
        assert agent.command("/advance", {"command_id": "adv", "days": 4}) == {
            **first,
            "retry": True,
        }
        assert agent.command("/finish", {"command_id": "fin"}) == {**done, "retry": True}
        assert len(entries(live, agent.run_id)) == 2
    runtime.close()


def test_the_same_command_sent_at_once_is_applied_once(live: Live) -> None:
    agent = HttpAgent(live.client(ALPHA))
    agent.start()
    replies: list[dict[str, Any]] = []
    barrier = threading.Barrier(8)

    def send(body: dict[str, Any], tail: str) -> None:
        with live.client(ALPHA) as client:
            barrier.wait()
            response = client.post(agent.run(tail), json=body)
            assert response.status_code == 200, response.text
            replies.append(response.json())

    for tail, body in (("/advance", {"days": 1}), ("/schedule", {"action": "bank_loan"})):
        replies.clear()
        command = {"command_id": f"race-{tail[1:]}", **body}
        threads = [threading.Thread(target=send, args=(command, tail)) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert len(replies) == 8
        assert len({reply["seq"] for reply in replies}) == 1
        assert sorted(reply["retry"] for reply in replies) == [False] + [True] * 7
    assert [i for _, i in entries(live, agent.run_id)] == ["race-advance", "race-schedule"]


def test_a_start_is_idempotent_per_agent(live: Live) -> None:
    alpha = HttpAgent(live.client(ALPHA))
    first = alpha.call("POST", f"{API_PREFIX}/runs", 201, json={"command_id": "go"})
    again = alpha.call("POST", f"{API_PREFIX}/runs", 200, json={"command_id": "go"})
    assert again == {**first, "created": False}
    bravo = HttpAgent(live.client(BRAVO))
    theirs = bravo.call("POST", f"{API_PREFIX}/runs", 201, json={"command_id": "go"})
    assert theirs["run"]["run_id"] != first["run"]["run_id"]
    assert len(alpha.call("GET", f"{API_PREFIX}/runs")["runs"]) == 1


@pytest.mark.parametrize("seed", [1, 2])
def test_random_commands_with_duplicates_are_journaled_once_each(live: Live, seed: int) -> None:
    """Random legal commands, each sent one to three times: one journal entry per id."""
    rng = random.Random(seed)
    agent = HttpAgent(live.client(ALPHA), prefix=f"r{seed}")
    agent.start()
    actions = [a["id"] for a in agent.call("GET", f"{API_PREFIX}/actions")["actions"]]
    sent: list[str] = []
    day = 0
    for step in range(40):
        if day >= 170:
            break
        choice = rng.random()
        if choice < 0.3:
            tail, body = "/schedule", {"action": rng.choice(actions)}
        elif choice < 0.4:
            tail, body = (
                "/assessments",
                {"assessment": {"question": "q_spring_campaign", "value": str(rng.randint(-9, 9))}},
            )
        else:
            tail, body = "/advance", {"days": rng.randint(1, 3)}
        command = {"command_id": f"r{seed}-{step}", **body}
        replies = [agent.command(tail, command) for _ in range(rng.randint(1, 3))]
        assert len({r["seq"] for r in replies}) == 1
        day = replies[0]["day"]
        sent.append(command["command_id"])
    assert [i for _, i in entries(live, agent.run_id)] == sent


def test_a_lost_reply_is_retried_by_the_remote_session(live: Live) -> None:
    """The remote session retries a command whose connection failed, with the same id."""
    from workbench.play.remote import RemoteSession

    failures = {"left": 1}
    real = httpx2.HTTPTransport(verify=TLS)

    class Flaky(httpx2.BaseTransport):
        def handle_request(self, request: httpx2.Request) -> httpx2.Response:
            response = real.handle_request(request)
            if request.method == "POST" and request.url.path.endswith("/advance"):
                response.read()
                if failures["left"]:
                    failures["left"] -= 1
                    raise httpx2.ReadError("reply lost", request=request)
            return response

    session = RemoteSession.connect(live.url, ALPHA, live.hosted.tokens[ALPHA], transport=Flaky())
    assert session.advance(5) == 5
    assert [kind for kind, _ in entries(live, session.run_id)] == ["advance"]
    session.close()


def test_an_evicted_session_resumes_with_its_command_ids(hosted: Hosted) -> None:
    """With room for one open session, runs are dropped and resumed; retries still replay."""
    from workbench.host.runtime import Limits

    runtime = hosted.runtime(Limits(open_sessions=1))
    with ServerThread(runtime) as server:
        live = Live(hosted, runtime, server.url)
        first, second = HttpAgent(live.client(ALPHA), "f"), HttpAgent(live.client(BRAVO), "s")
        first.start("first")
        second.start("second")
        replies = {}
        for step in range(3):
            for agent in (first, second):
                body = {"command_id": f"{agent.prefix}{step}", "days": 1}
                replies[body["command_id"]] = agent.command("/advance", body)
        for agent in (first, second):
            body = {"command_id": f"{agent.prefix}0", "days": 1}
            assert agent.command("/advance", body) == {**replies[f"{agent.prefix}0"], "retry": True}
            assert agent.call("GET", agent.run(""))["day"] == 3
        assert runtime.sessions_open == 1
    runtime.close()
