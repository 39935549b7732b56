"""Fuzzing campaigns: one to three hostile edits to the default campaign's TOML files, then
`actions`, `run` or `check` on it. The campaign folder is never written; a failing run
creates nothing."""

from __future__ import annotations

import json
import math
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from campaigns import DEFAULT_CAMPAIGN
from tests.fuzz import strategies as S
from tests.fuzz.harness import fuzz_settings, invoke

FILES = ("campaign.toml", "actions.toml", "metrics.toml", "questions.toml")
_ASSIGNMENT = re.compile(r"^(\s*[A-Za-z0-9_]+\s*=\s*)(.+)$")


def toml_literal(value: object) -> str:
    """A TOML literal for a generated value (strings JSON-escaped, which TOML accepts)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{json.dumps(k)} = {toml_literal(v)}" for k, v in value.items()) + "}"
        )
    return '""'


toml_values = (
    S.numbers
    | S.text
    | st.sampled_from([float("nan"), float("inf"), -1e308, "0", "-1", "1e308", "0.00"])
    | st.lists(S.numbers | S.text, max_size=8)
    | st.dictionaries(S.text, S.numbers, max_size=2)
)


@st.composite
def edited_campaign(draw: st.DrawFn) -> dict[str, str]:
    """The default campaign's files with one to three edits: a value replaced, a line
    dropped or duplicated, a block copied (duplicate ids), or junk inserted."""
    files = {name: (DEFAULT_CAMPAIGN / name).read_text() for name in FILES}
    for _ in range(draw(st.integers(1, 3))):
        name = draw(st.sampled_from(FILES))
        lines = files[name].split("\n")
        assignments = [i for i, line in enumerate(lines) if _ASSIGNMENT.match(line)]
        move = draw(st.sampled_from(["value", "value", "value", "drop", "duplicate", "junk"]))
        index = draw(st.sampled_from(assignments))
        if move == "value":
            match = _ASSIGNMENT.match(lines[index])
            assert match is not None
            lines[index] = match.group(1) + toml_literal(draw(toml_values))
        elif move == "drop":
            del lines[index]
        elif move == "duplicate":
            blocks = files[name].split("\n[[")
            if len(blocks) > 1:
                copy = draw(st.sampled_from(blocks[1:]))
                lines.append("[[" + copy)
        else:
            lines.insert(index, draw(st.text(max_size=20)).replace("\x00", ""))
        files[name] = "\n".join(lines)
    return files


@fuzz_settings("campaigns")
@given(files=edited_campaign(), command=st.sampled_from(["actions", "run", "run", "check"]))
def test_fuzz_campaigns(files: dict[str, str], command: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        campaign = Path(tmp) / "campaign"
        shutil.copytree(DEFAULT_CAMPAIGN, campaign)
        for name, text in files.items():
            (campaign / name).write_text(text, encoding="utf-8", errors="surrogatepass")
        out = Path(tmp) / "run"
        if command == "actions":
            args = ["actions", str(campaign), "--json"]
        elif command == "run":
            args = ["run", str(campaign), "--out", str(out)]
        else:
            args = ["check", str(campaign)]
        outcome = invoke("campaigns", args, [campaign])
        if command == "run" and outcome.exit_code != 0:
            assert not out.exists()
