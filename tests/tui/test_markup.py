"""Other people's text on the screens shows as written, whatever it holds.

A campaign whose every title, name and description ends in markup is walked through
every player screen; author screens get markup in run directories and reports
(test_author.py).

Every value goes into markup as a template variable (`workbench.tui.markup.styled`),
never by formatting it into a markup string: Rich's and Textual's `escape` leave an
unclosed `[b` and a trailing backslash live (`\\[` is a literal bracket to Textual, so the
template's next tag was lost). The source checks keep it so in every screen and widget.
"""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from textual.content import Content

from campaigns import DEFAULT_CAMPAIGN
from tests.tui.walk import visit_everything
from workbench.play.session import PlayerSession
from workbench.tui.app import PlayerApp
from workbench.tui.markup import joined, styled

TUI = Path(__file__).resolve().parents[2] / "workbench" / "tui"
HOSTILE = st.text(alphabet=st.sampled_from(list("[]\\/@=$:.ab {}#()'\"\n")), max_size=40) | st.text(
    st.characters(exclude_categories=("Cc", "Cs")), max_size=40
)
"""Markup's own characters in every order, and any printable text (Textual drops control
characters from what it shows, as a terminal must)."""
_TAG = re.compile(r"\[[^\[\]]*\]")


@given(first=HOSTILE, second=HOSTILE)
def test_a_value_shows_as_written_and_only_its_own_span_is_styled(first: str, second: str) -> None:
    shown = styled("[b]$first[/b] and [i]$second[/i]: $first", first=first, second=second)
    assert shown.plain == f"{first} and {second}: {first}"
    spans = sorted((s.start, s.end, str(s.style)) for s in shown.spans if s.end > s.start)
    expected = [(0, len(first), "b")] if first else []
    start = len(first) + 5
    expected += [(start, start + len(second), "i")] if second else []
    assert spans == expected


@given(lines=st.lists(HOSTILE | HOSTILE.map(lambda v: styled("[b]$v[/b]", v=v)), max_size=6))
def test_joined_lines_are_text_whether_given_as_str_or_styled(lines: list[Content | str]) -> None:
    plain = [line.plain if isinstance(line, Content) else line for line in lines]
    assert joined(lines).plain == "\n".join(plain)


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(TUI.rglob("*.py"))]


def _outside_tags(node: ast.JoinedStr) -> str:
    """The f-string's text with each formatted value as NUL, then every [tag] removed."""
    text = "".join(
        v.value if isinstance(v, ast.Constant) else "\x00" for v in node.values if v is not None
    )
    return _TAG.sub("", text)


def test_no_screen_formats_a_value_into_markup() -> None:
    """A formatted value may choose a style or an action inside a tag (our own words), but
    text outside the tags comes only through `styled`'s variables (or is plain `Content`)."""
    found = []
    for path, tree in _sources():
        plain = {
            id(arg)
            for call in ast.walk(tree)
            if isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "Content"
            for arg in call.args
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.JoinedStr) or id(node) in plain:
                continue
            literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
            if _TAG.search(literal) and "\x00" in _outside_tags(node):
                found.append(f"{path.relative_to(TUI)}:{node.lineno}")
    assert not found, f"markup with formatted values: {found}"


def test_styled_templates_are_literals_and_nothing_escapes_by_hand() -> None:
    found = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in (
                "rich.markup",
                "textual.markup",
            ):
                found.append(f"{path.relative_to(TUI)}:{node.lineno} imports {node.module}")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "styled"
                and node.args
            ):
                template = node.args[0]
                literal = (
                    isinstance(template, ast.Constant) and isinstance(template.value, str)
                ) or (isinstance(template, ast.Name) and template.id.isupper())
                tags_only = isinstance(template, ast.JoinedStr) and "\x00" not in _outside_tags(
                    template
                )
                if not (literal or tags_only):
                    found.append(f"{path.relative_to(TUI)}:{node.lineno} template is not literal")
    assert not found, found


def test_the_source_checks_can_fail(tmp_path: Path) -> None:
    """The checks above see the pattern they forbid."""
    bad = ast.parse('x = f"[b]{title}[/b]"\ny = f"[{colour}]ok[/{colour}]"')
    strings = [n for n in ast.walk(bad) if isinstance(n, ast.JoinedStr)]
    assert ["\x00" in _outside_tags(n) for n in strings] == [True, False]


MARKUP = " [/] [@click=app.quit]x[/x] [b \\"
"""Markup that closes a tag never opened, makes a link, opens one never closed, and a
backslash that would make the template's next tag a literal bracket."""
_PROSE = re.compile(r'\b(title|name|description) = "([^"\n]*)"(?!")')
_LONG_PROSE_END = re.compile(r'(?<!= )"""$', re.MULTILINE)
_QUOTED = MARKUP.replace("\\", "\\\\")
"""`MARKUP` inside a TOML string."""


def hostile_campaign(folder: Path) -> Path:
    """A copy of the default campaign with `MARKUP` after every title, name and description."""
    shutil.copytree(DEFAULT_CAMPAIGN, folder)
    for path in folder.glob("*.toml"):
        text = _PROSE.sub(lambda m: f'{m[1]} = "{m[2]}{_QUOTED}"', path.read_text())
        text = _LONG_PROSE_END.sub(lambda m: f'{_QUOTED}"""', text)
        path.write_text(text)
    return folder


def test_the_markup_campaign_puts_markup_in_every_kind_of_prose(tmp_path: Path) -> None:
    bundle = PlayerSession.create(tmp_path / "run", hostile_campaign(tmp_path / "c")).bundle
    texts = [bundle.campaign.title, bundle.campaign.description, bundle.campaign.company.name]
    texts += [a.title for a in bundle.actions.values()]
    texts += [a.description for a in bundle.actions.values()]
    texts += [q.title for q in bundle.questions.values()]
    texts += [q.baseline.name for q in bundle.questions.values()]
    texts += [t.title for t in bundle.tasks]
    assert all(t.endswith(MARKUP) for t in texts), [t for t in texts if not t.endswith(MARKUP)]


async def test_every_screen_shows_a_campaign_full_of_markup_as_written(tmp_path: Path) -> None:
    """The curious player's walk (`tests/tui/walk.py`) on a campaign whose every title, name
    and description ends in `MARKUP`: each is found on screen as written."""
    campaign = hostile_campaign(tmp_path / "campaign")
    session = PlayerSession.create(tmp_path / "run", campaign)
    await visit_everything(PlayerApp(session, briefing_at_start=True))


async def test_the_summary_shows_a_campaign_full_of_markup_as_written(tmp_path: Path) -> None:
    from tests.tui.conftest import SIZE, wait_for
    from tests.tui.text import screen_text
    from workbench.tui.screens.briefing import SummaryScreen

    session = PlayerSession.create(tmp_path / "run", hostile_campaign(tmp_path / "campaign"))
    app = PlayerApp(session, briefing_at_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, SummaryScreen), "summary")
        shown = screen_text(app.screen)
        assert all(task.title in shown for task in session.bundle.tasks), shown
    session.close()
