"""The documentation a new user reads agrees with the program: every option of every command
is described beside its command, the exit-code table lists every code, and links resolve."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from workbench import exit_codes
from workbench.cli import _COMMANDS

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _paragraphs() -> list[str]:
    """Every paragraph (text between blank lines) of the README and docs/*.md."""
    return [part for doc in DOCS for part in re.split(r"\n\s*\n", doc.read_text())]


def _commands(name: str, command: click.Command) -> Iterator[tuple[str, click.Command]]:
    """`name` and every command under it, by their full names (`causal audit`)."""
    if isinstance(command, click.Group):
        context = click.Context(command)
        for sub in command.list_commands(context):
            child = command.get_command(context, sub)
            assert child is not None
            yield from _commands(f"{name} {sub}", child)
    else:
        yield name, command


def _options() -> list[tuple[str, str]]:
    """(full command name, option spelling) for every option of every command but --help."""
    found = []
    for name, entry in _COMMANDS.items():
        top: click.Command = getattr(importlib.import_module(entry.module), entry.attr)
        for full, command in _commands(name, top):
            for param in command.params:
                if isinstance(param, click.Option):
                    found += [(full, flag) for flag in param.opts if flag not in ("-h", "--help")]
    return found


@pytest.mark.parametrize(("command", "flag"), _options())
def test_every_option_is_described_beside_its_command(command: str, flag: str) -> None:
    """Some paragraph names both the command (in full, or its last word in backticks) and the
    option: `vc generate --num-examples` and `causal score --split` were in `--help` only."""
    option = re.compile(re.escape(flag) + r"(?![\w-])")
    names = re.compile(
        rf"(?<![\w-]){re.escape(command)}(?![\w-])|`{re.escape(command.split()[-1])}`"
    )
    assert any(option.search(p) and names.search(p) for p in _paragraphs()), (command, flag)


@pytest.mark.parametrize(
    ("doc", "heading"), [("README.md", "### Exit codes"), ("docs/architecture.md", "| Exit |")]
)
def test_the_exit_code_table_has_a_row_for_every_code(doc: str, heading: str) -> None:
    """Both tables of exit codes list every code: architecture.md's lacked 141."""
    codes = {v for k, v in vars(exit_codes).items() if k.isupper() and isinstance(v, int)}
    after = (ROOT / doc).read_text().split(heading, 1)[1]
    table = next(block for block in after.split("\n\n") if "\n| " in f"\n{block.strip()}")
    rows = {int(m) for m in re.findall(r"^\| +(\d+) \|", table, re.MULTILINE)}
    assert rows == codes


def test_every_relative_link_resolves() -> None:
    for doc in DOCS:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", doc.read_text()):
            if not target.startswith(("http://", "https://")):
                assert (doc.parent / target).exists(), (doc.name, target)


def _python_blocks() -> list[tuple[str, str]]:
    """(doc, code) for every ```python block of docs/*.md (the README's needs a live host)."""
    return [
        (doc.name, code)
        for doc in DOCS[1:]
        for code in re.findall(r"^```python\n(.*?)^```", doc.read_text(), re.MULTILINE | re.DOTALL)
    ]


@pytest.mark.parametrize(("doc", "code"), _python_blocks(), ids=[d for d, _ in _python_blocks()])
def test_every_python_example_of_the_docs_runs_as_written(
    doc: str, code: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader pastes these: causal_gym.md's panel example adjusted for an `age` column its
    task lacks, so `adjusted_ols` raised PanelError."""
    monkeypatch.delenv("CAUSAL_GYM_KEY", raising=False)
    exec(compile(code, doc, "exec"), {})


def _host_error_codes() -> set[str]:
    """Every error code the host's JSON API answers with: its error classes' and the codes
    `workbench/host/*.py` writes as literals (`405, "method_not_allowed"`), but the 500 of a
    bug, which the fuzzing checks never comes."""
    from workbench.host import errors

    codes = {
        value.code
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, errors.HostError)
    }
    for source in (ROOT / "workbench" / "host").glob("*.py"):
        codes |= set(re.findall(r'(?<!": )\b[45]\d\d, "([a-z_]+)"', source.read_text()))
        codes |= set(re.findall(r'"code": "([a-z_]+)"', source.read_text()))
    return codes - {"internal"}


@pytest.mark.parametrize("code", sorted(_host_error_codes()))
def test_every_error_code_of_the_host_is_in_the_readme(code: str) -> None:
    """The README's list of the API's statuses lacked 405 `method_not_allowed`."""
    assert f"`{code}`" in (ROOT / "README.md").read_text(), code


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_every_link_to_a_heading_resolves() -> None:
    """`[performance section](#performance-this-2-core-machine-measured-quiet)` and the like
    name a heading: renaming the heading silently broke the link (the file still exists)."""
    headings = {
        doc.resolve(): {
            _anchor(h)
            for h in re.findall(
                r"^#+ (.*)$", re.sub(r"```.*?```", "", doc.read_text(), flags=re.S), re.M
            )
        }
        for doc in DOCS
    }
    for doc in DOCS:
        for target, fragment in re.findall(r"\]\(([^)#]*)#([^)]+)\)", doc.read_text()):
            linked = (doc.parent / target).resolve() if target else doc.resolve()
            assert fragment in headings[linked], (doc.name, target, fragment)
