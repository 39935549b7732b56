"""Fuzzing `workbench run --script`: hostile scripts and submissions, fresh and resumed runs.

A script mixes well-formed commands (known and unknown actions, day counts in and out of
range, reused ids) with mutated and junk lines; a submission script fuzzes every field of
the assessment. A failing run leaves a resumed run byte-identical and creates no fresh one.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from sim.campaign_load import load_campaign
from tests.fuzz import strategies as S
from tests.fuzz.harness import fuzz_settings, invoke

_BUNDLE = load_campaign(DEFAULT_CAMPAIGN)
ACTIONS = sorted(_BUNDLE.actions)
QUESTIONS = sorted(_BUNDLE.questions)
IDS = st.sampled_from(["a", "b", "c", "same"])

schedule = st.fixed_dictionaries(
    {"kind": st.just("schedule"), "action": st.sampled_from(ACTIONS) | S.text}
)
advance = st.fixed_dictionaries(
    {"kind": st.just("advance")}, optional={"days": st.integers(-3, 200) | S.json_values}
)


@st.composite
def assessments(draw: st.DrawFn) -> object:
    """An assessment: plausible fields with hostile values, sometimes not an object at all."""
    if draw(st.integers(0, 9)) == 0:
        return draw(S.json_values)
    fields = {
        "kind": st.just("counterfactual") | S.text,
        "question": st.sampled_from(QUESTIONS) | S.text,
        "value": S.numbers | S.text | S.json_values,
        "conclusion": st.sampled_from(["-300.00", "5000.00", ["overhead"], ["capacity"]])
        | S.json_values,
        "choice": st.sampled_from(ACTIONS) | S.text,
        S.text: S.json_values,
    }
    chosen = draw(st.lists(st.sampled_from(list(fields)), unique=True, max_size=len(fields)))
    out = {}
    for key in ("question", "value", *chosen):
        field = fields[key] if isinstance(key, str) and key in fields else None
        if field is None:
            out[draw(S.text)] = draw(S.json_values)
        else:
            out[key] = draw(field)
    return out


submit = st.builds(lambda a: {"kind": "submit_assessment", "assessment": a}, assessments())
commands = st.one_of(schedule, advance, submit)


@st.composite
def script_lines(draw: st.DrawFn, submissions_only: bool = False) -> bytes:
    """A script: commands (some with ids, some with extra fields) and damaged or junk lines."""
    lines = []
    for _ in range(draw(st.integers(0, 6))):
        kind = draw(st.sampled_from(["command", "command", "command", "damaged", "junk", "blank"]))
        command = draw(submit if submissions_only else commands)
        if draw(st.booleans()):
            command["id"] = draw(IDS | S.text)
        if draw(st.integers(0, 7)) == 0:
            command[draw(S.text)] = draw(S.json_values)
        data = S.encode(command)
        if kind == "damaged":
            data = draw(S.damaged(data))
        elif kind == "junk":
            data = draw(st.binary(max_size=40) | st.builds(S.encode, S.json_values))
        elif kind == "blank":
            data = draw(st.sampled_from([b"", b"   ", b"# a comment"]))
        lines.append(data.replace(b"\n", b" "))
    return b"\n".join(lines) + draw(st.sampled_from([b"\n", b""]))


def _play(target: str, script: bytes, resume_from: Path | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "script.jsonl"
        path.write_bytes(script)
        out = root / "run"
        if resume_from is not None:
            shutil.copytree(resume_from, out)
        outcome = invoke(target, ["run", "--script", str(path), "--out", str(out)], [out])
        if outcome.exit_code != 0 and resume_from is None:
            assert not out.exists()


@fuzz_settings("scripts")
@given(script=script_lines(), resume=st.booleans())
def test_fuzz_scripts(script: bytes, resume: bool, fresh_run: Path) -> None:
    _play("scripts", script, fresh_run if resume else None)


@fuzz_settings("submissions")
@given(script=script_lines(submissions_only=True), resume=st.booleans())
def test_fuzz_submissions(script: bytes, resume: bool, fresh_run: Path) -> None:
    _play("submissions", script, fresh_run if resume else None)


@fuzz_settings("control files")
@given(data=st.data())
def test_fuzz_control_files(data: st.DataObject, private_campaign: tuple[Path, dict]) -> None:
    campaign, control = private_campaign
    content = data.draw(
        S.mutated(control)
        | st.builds(S.encode, S.json_values)
        | st.binary(max_size=64)
        | st.just(json.dumps(control).encode()),
        label="control",
    )
    agent = data.draw(st.sampled_from(["agent-7", "agent-9"]) | S.text, label="agent")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "control.json"
        path.write_bytes(content)
        out = root / "run"
        args = ["run", str(campaign), "--control", str(path), "--agent", agent, "--out", str(out)]
        outcome = invoke("control files", args, [campaign])
        if outcome.exit_code != 0:
            assert not out.exists()
