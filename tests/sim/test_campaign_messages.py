"""Campaign problems in the house style: one line naming the file, the field, the value given
and what is allowed; a misspelt key gets the name it should have (hypothesis over every key
and value of both bundled campaigns)."""

from __future__ import annotations

import copy
import tempfile
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import CAMPAIGNS_DIR
from sim.campaign_load import CampaignError, load_campaign
from sim.campaign_messages import _edits, shown
from tests.toml_text import dumps
from workbench.cli import main

FILES = ("campaign.toml", "actions.toml", "metrics.toml", "questions.toml")
SOURCES = {
    name: {file: tomllib.loads((CAMPAIGNS_DIR / name / file).read_text()) for file in FILES}
    for name in ("default", "gelato")
}
RAW_WORDING = (
    "Input should be",
    "String should",
    "Field required",
    "Extra inputs are not permitted",
    "Value error",
    "Unable to",
    "valid dictionary",
    "Datetimes provided",
    "expected a plain decimal string",
    "[key]",
)
"""pydantic's own phrases (and the old catch-all): none reaches an author."""


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


AUDIT = [
    (
        "campaign.toml",
        'id = "harbor-roasters"',
        'id = "Harbor Roasters"',
        "campaign.toml: id: 'Harbor Roasters' has 'H' at position 1: allowed a lowercase "
        "letter a-z or a digit, then lowercase letters, digits, _ and -, at most 64 characters",
    ),
    (
        "metrics.toml",
        'id = "cash"',
        'id = "' + "a" * 70 + '"',
        "metrics.toml: metrics[0].id: '" + "a" * 36 + "... has 70 characters: allowed "
        "lowercase letters a-z, digits and _, at most 64 characters",
    ),
    (
        "questions.toml",
        "outcome_day = 60",
        "outcome_dya = 60",
        "questions.toml: questions[2].outcome_dya: unknown field: did you mean 'outcome_day'? "
        "(outcome_day is required)",
    ),
    (
        "campaign.toml",
        'start_date = "2027-03-01"',
        'start_date = "2027-02-30"',
        "campaign.toml: start_date: '2027-02-30' is not a date (February 2027 has days 1 to "
        "28): allowed a date such as 2027-03-01",
    ),
    (
        "campaign.toml",
        'visibility = "development"',
        'visibility = "Private"',
        "campaign.toml: visibility: 'Private' is not allowed: allowed 'development' or "
        "'private' (did you mean 'private'?)",
    ),
    (
        "questions.toml",
        'scale = "2000"',
        'scale = "0.0000001"',
        "questions.toml: questions[0].scale: '0.0000001' has 7 decimal places, more than 6: "
        "allowed above 0 to 1,000,000,000,000 metric units",
    ),
    (
        "metrics.toml",
        '{ metric = "missed_payrolls", at_most = "0" }',
        '{ metric = "missed_payrolls", at_most = "0", on_day = 999 }',
        "metrics.toml: tasks[0].requirements[1].on_day: 999 is after the horizon: allowed 0 to "
        "180 (horizon_days in campaign.toml)",
    ),
    (
        "questions.toml",
        'select_from = ["hire_sales_rep", "raise_price"',
        'select_from = ["hire_sales_rep", "hire_sales_rep"',
        "questions.toml: questions[5].intervention: select_from lists 'hire_sales_rep' twice "
        "(select_from[0] and select_from[1]): list each action once",
    ),
    (
        "questions.toml",
        "intervene_on_day = 30",
        "intervene_on_day = 0",
        "questions.toml: questions[0].intervene_on_day: 0 is out of range: allowed 1 to 36,500 "
        "day number",
    ),
    (
        "campaign.toml",
        'start_date = "2027-03-01"',
        "start_date = 2027-02-30",
        "campaign.toml: is not valid TOML at line 14, column 14: Invalid date or datetime in "
        "'start_date = 2027-02-30'",
    ),
    (
        "actions.toml",
        'kind = "loan"',
        'kind = "lone"',
        "actions.toml: actions[3].effects[0]: kind 'lone' is not allowed: allowed 'hire', "
        "'capacity', 'price', 'marketing', 'loan', 'supplier', 'demand', 'overhead' (did you "
        "mean 'loan'?)",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "line"), AUDIT, ids=[a[2][:30] for a in AUDIT])
def test_the_audits_examples_say_what_was_given_and_what_is_allowed(
    campaign_copy: Path, file: str, old: str, new: str, line: str
) -> None:
    _edit(campaign_copy / file, old, new)
    result = CliRunner().invoke(main, ["check", str(campaign_copy)])
    assert result.exit_code == 2, result.output
    assert result.output == f"Error: campaign {campaign_copy}: {line}\n"


def test_a_byte_order_mark_is_read_past(campaign_copy: Path) -> None:
    """Some editors start a file with a UTF-8 byte-order mark: it was `Invalid statement
    (at line 1, column 1)`. It is read past and left out of the digest, and `new --from`
    copies such a campaign."""
    before = load_campaign(campaign_copy).digest
    for file in FILES:
        path = campaign_copy / file
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert load_campaign(campaign_copy).digest == before
    copy_dir = campaign_copy.parent / "copy"
    assert (
        CliRunner().invoke(main, ["new", str(copy_dir), "--from", str(campaign_copy)]).exit_code
        == 0
    )
    assert load_campaign(copy_dir).id == "copy"


def _keys(node: Any, path: list[Any]) -> list[list[Any]]:
    """Every key path of a parsed file (a key of a table, at any depth)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append([*path, key])
            found += _keys(value, [*path, key])
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _keys(value, [*path, index])
    return found


def _typo(key: str, how: int, at: int) -> str:
    """One edit of `key`: a neighbour swap, a dropped or doubled character, or upper case."""
    i = at % len(key)
    if how == 0 and len(key) > 1:
        i = min(i, len(key) - 2)
        return key[:i] + key[i + 1] + key[i] + key[i + 2 :]
    if how == 1 and len(key) > 2:
        return key[:i] + key[i + 1 :]
    if how == 2:
        return key[: i + 1] + key[i] + key[i + 1 :]
    return key.upper()


JUNK = st.sampled_from(
    [True, "x", 2**63, -(2**63), 1.5, -1, 0, "2027-02-30", "Private", "0.0000001", "a" * 300]
)


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, dict[str, Any], str, list[Any], Any, str | None]:
    """A bundled campaign with one key misspelt or one value replaced by junk:
    (file, its data, what was done, the path, the junk value, the original key)."""
    source = draw(st.sampled_from(sorted(SOURCES)))
    data = copy.deepcopy(SOURCES[source])
    file = draw(st.sampled_from(FILES))
    keys = [k for k in _keys(data[file], []) if "min_headcount" not in k[:-1]]
    path = draw(st.sampled_from(keys))
    node: Any = data[file]
    for part in path[:-1]:
        node = node[part]
    key = path[-1]
    if draw(st.booleans()):
        typo = _typo(key, draw(st.integers(0, 3)), draw(st.integers(0, 40)))
        if typo == key or typo in node:
            typo = key + "x"
        node[typo] = node.pop(key)
        return file, data, "typo", [*path[:-1], typo], None, key
    value = draw(JUNK)
    node[key] = value
    return file, data, "value", path, value, None


def _field(path: list[Any]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=damaged())
def test_every_problem_is_one_house_style_line(
    case: tuple[str, dict[str, Any], str, list[Any], Any, str | None],
) -> None:
    """No raw pydantic wording; a misspelt key is told the name it should have (when no other
    key of its table is as close); a refused value is echoed where it was given."""
    file, data, what, path, value, original = case
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "campaign"
        folder.mkdir()
        for name, document in data.items():
            (folder / name).write_text(dumps(document), encoding="utf-8")
        try:
            load_campaign(folder)
        except CampaignError as exc:
            problems = exc.problems
        else:
            assert what == "value"  # some junk is a fine value (a title "x")
            return
    lines = [str(p) for p in problems]
    for line in lines:
        assert "\n" not in line and not any(raw in line for raw in RAW_WORDING), line
    field = _field(path)
    at_field = [p for p in problems if p.file == file and p.path == field]
    if what == "typo" and original == "kind" and len(path) > 2 and path[-3] == "effects":
        (problem,) = [p for p in problems if p.file == file and p.path == _field(path[:-1])]
        assert f"(unknown field {path[-1]!r}: did you mean 'kind'?)" in problem.message
    elif what == "typo":
        assert original is not None
        (problem,) = at_field
        assert problem.message.startswith("unknown field: did you mean "), problem.message
        hint = problem.message.split("'")[1]
        typo = str(path[-1])
        assert hint == original or _edits(hint, typo) <= _edits(original, typo), problem
    else:
        for problem in at_field:
            assert shown(value)[:20] in problem.message, problem
