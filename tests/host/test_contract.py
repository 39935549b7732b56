"""Contract: no reply of any route or MCP tool holds a secret, a branch outcome or another
agent's data.

Agent ALPHA walks every JSON route and every MCP tool and resource with real clients
(httpx2, and the MCP SDK's own client over streamable HTTP), errors included; agent BRAVO
plays a run of its own beside it. Then ALPHA's run is evaluated offline, and the bytes
of every reply ALPHA received are searched for: the seed (hex and decimal), the salt,
the seal and commitment keys, any agent's token or token verifier, every branch's seal
digests, journal heads, ledger digests and episode ids, every effect the evaluator
found, and BRAVO's id, run id, command ids and journal hashes.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import MCPError

from ledger.journal import Journal
from workbench.evaluation.evaluator import run_evaluation
from workbench.host.api import Api
from workbench.host.mcp_server import TOOL_NAMES
from workbench.play.session import PlayerSession
from workbench.play.wire import API_PREFIX
from workbench.runs.registration import token_verifier

from .agent import HttpAgent, play_short_episode
from .conftest import ALPHA, BRAVO, TLS, Live, mcp_session


@dataclass
class Walk:
    """What ALPHA received, and what must never be in it."""

    replies: list[bytes]
    bravo_replies: list[bytes]
    http_routes: set[tuple[str, str]]
    tools: set[str]
    resources: set[str]
    needles: dict[str, set[str]]


def walk_http(live: Live, agent: HttpAgent) -> set[tuple[str, str]]:
    """Every JSON route (and the error replies) as ALPHA; returns (method, template) walked."""
    run = f"{API_PREFIX}/runs/{{run_id}}"
    walked: set[tuple[str, str]] = set()

    def mark(method: str, template: str) -> None:
        walked.add((method, template))

    health = httpx2.get(f"{live.url}/health", verify=TLS)
    agent.seen.append(health.content)
    for name in ("briefing", "actions", "questions"):
        agent.call("GET", f"{API_PREFIX}/{name}")
        mark("GET", f"{API_PREFIX}/{name}")
    agent.start("alpha-start")
    mark("POST", f"{API_PREFIX}/runs")
    agent.call("POST", f"{API_PREFIX}/runs", json={"command_id": "alpha-start"})
    agent.call("GET", f"{API_PREFIX}/runs")
    mark("GET", f"{API_PREFIX}/runs")
    agent.call("GET", agent.run(""))
    mark("GET", run)
    agent.call("GET", agent.run("/preview"), params={"action": "bank_loan"})
    mark("GET", f"{run}/preview")
    agent.schedule("spring_campaign")
    mark("POST", f"{run}/schedule")
    agent.command("/schedule", {"command_id": "dup", "action": "bank_loan"})
    agent.command("/schedule", {"command_id": "dup", "action": "bank_loan"})
    reused = agent.command("/schedule", {"command_id": "dup", "action": "loyalty_program"}, 409)
    assert reused["error"]["code"] == "conflict"
    agent.command("/schedule", {"action": "no_such_action"}, 422)
    agent.advance(4)
    mark("POST", f"{run}/advance")
    agent.submit({"question": "q_bank_loan", "value": "-500", "conclusion": "-300.00"})
    agent.submit({"question": "q_spring_campaign", "value": "2500.5"})
    agent.command("/assessments", {"assessment": {"question": "q_nope", "value": "1"}}, 422)
    mark("POST", f"{run}/assessments")
    agent.call("GET", agent.run("/snapshot"))
    mark("GET", f"{run}/snapshot")
    agent.call("GET", agent.run("/journal"), params={"since": 1, "limit": 3})
    mark("GET", f"{run}/journal")
    agent.call("GET", agent.run("/metrics"))
    mark("GET", f"{run}/metrics")
    agent.call("GET", agent.run("/ledger"))
    mark("GET", f"{run}/ledger")
    for fmt in ("beancount", "csv"):
        agent.call("GET", agent.run("/ledger/export"), params={"format": fmt})
    mark("GET", f"{run}/ledger/export")
    return walked


def finish_http(agent: HttpAgent, walked: set[tuple[str, str]]) -> None:
    """Finish ALPHA's run over JSON, then every read and a refused command after it."""
    run = f"{API_PREFIX}/runs/{{run_id}}"
    agent.finish()
    walked.add(("POST", f"{run}/finish"))
    after = agent.command("/advance", {"days": 1}, 409)
    assert after["error"]["code"] == "run_finished"  # not `conflict`, a reused id's code
    agent.call("GET", agent.run("/snapshot"))
    agent.call("GET", agent.run("/journal"))
    agent.call("GET", agent.run("/metrics"))
    agent.call("GET", agent.run("/ledger"))
    agent.call("GET", f"{API_PREFIX}/nothing-here", 404)
    agent.call("DELETE", agent.run("/advance"), 405)
    agent.call("POST", agent.run("/advance"), 400, content=b"{not json")


async def walk_mcp(
    live: Live, run_id: str, finish: Callable[[], None]
) -> tuple[list[bytes], set[str], set[str]]:
    """Every MCP tool and resource as ALPHA over streamable HTTP with the SDK's client, on
    ALPHA's one run (started over JSON); `finish` ends it before the last calls."""
    seen: list[bytes] = []
    async with mcp_session(live.url, live.hosted.tokens[ALPHA]) as mcp:
        tools = {tool.name for tool in (await mcp.list_tools()).tools}
        resources = {str(r.uri) for r in (await mcp.list_resources()).resources}
        templates = {
            t.uri_template for t in (await mcp.list_resource_templates()).resource_templates
        }
        uris = [*resources, "cfwb://questions/q_bank_loan", "cfwb://questions/nope"]
        for uri in uris:
            try:
                seen.append((await mcp.read_resource(uri)).model_dump_json().encode())
            except MCPError as exc:  # an unknown question is an MCP error reply
                seen.append(str(exc).encode())
        second = await mcp.call_tool("start_episode", {"command_id": "alpha-mcp-start"})
        assert second.is_error and "episode_exists" in str(second.content)
        started = await mcp.call_tool("start_episode", {"command_id": "alpha-start"})
        assert started.structured_content is not None
        assert started.structured_content["run"]["run_id"] == run_id
        assert started.structured_content["created"] is False
        seen += [second.model_dump_json().encode(), started.model_dump_json().encode()]
        calls: list[tuple[str, dict[str, object]]] = [
            ("briefing", {}),
            ("action_catalog", {}),
            ("question_contracts", {}),
            ("list_runs", {}),
            ("run_info", {"run_id": run_id}),
            ("snapshot", {"run_id": run_id}),
            ("preview", {"run_id": run_id, "action": "bank_loan"}),
            ("schedule", {"run_id": run_id, "action": "loyalty_program", "command_id": "m-1"}),
            ("advance", {"run_id": run_id, "days": 2, "command_id": "m-2"}),
            (
                "submit_assessment",
                {
                    "run_id": run_id,
                    "command_id": "m-3",
                    "assessment": {"question": "q_spring_campaign", "value": "900"},
                },
            ),
            ("journal", {"run_id": run_id}),
            ("metrics", {"run_id": run_id}),
            ("ledger", {"run_id": run_id}),
        ]
        for name, arguments in calls:
            result = await mcp.call_tool(name, arguments)
            assert not result.is_error, (name, result.content)
            seen.append(result.model_dump_json().encode())
        finish()
        after: list[tuple[str, dict[str, object]]] = [
            ("finish", {"run_id": run_id, "command_id": "m-4"}),
            ("snapshot", {"run_id": run_id}),
            ("schedule", {"run_id": run_id, "action": "bank_loan", "command_id": "m-5"}),
        ]
        for name, arguments in after:
            result = await mcp.call_tool(name, arguments)
            seen.append(result.model_dump_json().encode())
        called = {name for name, _ in calls + after} | {"start_episode"}
    return seen, tools & called, resources | templates


def secret_needles(live: Live) -> set[str]:
    """Seed, salt, keys, tokens and verifiers in every spelling a reply could carry."""
    control = live.hosted.control
    key = control.seal_key()
    commitment_key = hmac.new(
        bytes.fromhex(control.salt), b"cfwb/seed-commitment", hashlib.sha256
    ).digest()
    needles = {control.seed, str(control.seed_value), control.salt}
    for raw in (key, control.report_key(), commitment_key):
        needles |= {
            raw.hex(),
            base64.b64encode(raw).decode(),
            base64.urlsafe_b64encode(raw).decode(),
        }
    for token in live.hosted.tokens.values():
        needles |= {token, token_verifier(token).removeprefix("sha256:")}
    return needles


def public_corpus(live: Live, agent: str) -> bytes:
    """Everything the agent may legitimately see of its own runs, computed locally."""
    parts: list[bytes] = []
    for root in live.hosted.runs.glob("run-*"):
        local = PlayerSession.resume(root, control=live.hosted.control, read_only=True)
        if local.registration.agent_id != agent:
            continue
        parts.append(json.dumps(local.view().to_data()).encode())
        parts += [str(v).encode() for s in local.metric_series().values() for v in s]
        parts += [local.ledger().export(fmt).encode() for fmt in ("beancount", "csv")]
        parts += [repr(local.ledger().trial_balance()).encode()]
    return b"\n".join(parts)


def branch_needles(live: Live, run_dir: Path, out: Path) -> set[str]:
    """What only the offline evaluator knows about ALPHA's finished run.

    An effect value that also occurs in ALPHA's own public data (a number can coincide
    with an amount in its ledger) distinguishes nothing and is left out.
    """
    outcome = run_evaluation(run_dir, out, control=live.hosted.control, agent=ALPHA)
    assert outcome.report_path is not None
    report = json.loads(outcome.report_path.read_text())
    public = public_corpus(live, ALPHA)
    needles: set[str] = set()
    for question in report["questions"]:
        for branch in question["branches"].values():
            if branch is None:
                continue
            for key in ("seal_digest", "seal_sha256", "episode_id"):
                if branch.get(key):
                    needles.add(branch[key])
        effect = question.get("effect")
        if effect is not None and effect.encode() not in public:
            needles.add(effect)
    for seal_file in (out / "seals").glob("*.gz"):
        for line in gzip.decompress(seal_file.read_bytes()).splitlines():
            seal = json.loads(line)
            needles |= {seal["journal_head"], seal["ledger_digest"], seal["signature"]}
    assert needles, "the evaluation produced no branch to search for"
    return needles


def bravo_needles(live: Live) -> set[str]:
    """BRAVO's id, run ids, command ids and journal hashes."""
    needles = {BRAVO}
    for root in live.hosted.runs.glob("run-*"):
        journal = Journal.open(root / "journal.jsonl")
        if journal.header is not None and journal.header.payload["agent_id"] == BRAVO:
            needles.add(root.name)
            needles |= {e.hash for e in journal.entries}
            needles |= {e.id for e in journal.entries[1:]}
    return needles


@pytest.fixture(scope="module")
def walk(shared_live: Live, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Walk]:
    live = shared_live
    bravo = HttpAgent(live.client(BRAVO), prefix="bravo-secret-command")
    play_short_episode(bravo)
    alpha = HttpAgent(live.client(ALPHA), prefix="alpha")
    http_routes = walk_http(live, alpha)
    mcp_seen, tools, resources = anyio.run(
        walk_mcp, live, alpha.run_id, lambda: finish_http(alpha, http_routes)
    )
    out = tmp_path_factory.mktemp("evaluation") / "out"
    needles = {
        "secret": secret_needles(live),
        "branch": branch_needles(live, live.hosted.runs / alpha.run_id, out),
        "other agent": bravo_needles(live),
    }
    yield Walk(alpha.seen + mcp_seen, bravo.seen, http_routes, tools, resources, needles)


def test_every_route_and_tool_was_walked(walk: Walk, shared_live: Live) -> None:
    table = {
        (method, path)
        for path, handlers in Api(shared_live.runtime).routes().items()
        for method in handlers
    }
    assert walk.http_routes == table
    assert walk.tools == set(TOOL_NAMES)
    assert walk.resources == {
        "cfwb://briefing",
        "cfwb://questions",
        "cfwb://questions/{question_id}",
    }


@pytest.mark.parametrize("kind", ["secret", "branch", "other agent"])
def test_no_reply_holds_it(walk: Walk, kind: str) -> None:
    replies = b"\n".join(walk.replies)
    assert len(walk.replies) > 50
    found = sorted(
        needle
        for needle in walk.needles[kind]
        if needle.encode() in replies or needle.upper().encode() in replies
    )
    assert not found, f"{kind} found in replies: {found[:5]}"


def test_every_error_reply_is_one_line(walk: Walk) -> None:
    errors = [json.loads(r) for r in walk.replies if r.startswith(b'{"error"')]
    assert len(errors) >= 6
    for body in errors:
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert "\n" not in body["error"]["message"] and body["error"]["message"]


def test_the_search_finds_what_it_looks_for(walk: Walk) -> None:
    """BRAVO's own replies do hold BRAVO's run id and command ids: the search can find them."""
    replies = b"\n".join(walk.bravo_replies)
    found = {n for n in walk.needles["other agent"] if n.encode() in replies}
    assert any(n.startswith("run-") for n in found)
    assert any(n.startswith("bravo-secret-command") for n in found)
