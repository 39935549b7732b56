"""Screen text from markup templates whose values always show as written.

A campaign, a run directory or a report is other people's text: read as markup, `[/]`
closed the app and `[@click=…]` made a link. Escaping each value at each call site missed
sites, and no escape can protect a value that ends in a backslash (Textual reads `\\[` as
a literal bracket, so the template's next tag was lost). Textual substitutes template
variables as plain text, so every value goes through a `$name`, never into the markup.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.content import Content


def styled(template: str, **values: object) -> Content:
    """`template` as markup, each `$name` in it filled with `str(values[name])` as plain text."""
    return Content.from_markup(template, **{name: str(value) for name, value in values.items()})


def joined(lines: Iterable[Content | str], separator: str = "\n") -> Content:
    """Lines as one text; a str line is plain text (never read as markup)."""
    return Content(separator).join(
        line if isinstance(line, Content) else Content(line) for line in lines
    )
