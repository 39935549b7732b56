"""The base of every table: its columns exist from construction, before any mount runs."""

from __future__ import annotations

from typing import Any, ClassVar

from textual.widgets import DataTable


class Table(DataTable[str]):
    """A row-cursor table whose `COLUMNS` are added when it is built.

    A screen may paint its tables from its own mount handler, which can run before
    a child's; columns added at construction are there whichever runs first.
    """

    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cursor_type", "row")
        super().__init__(**kwargs)
        if self.COLUMNS:
            self.add_columns(*self.COLUMNS)

    @property
    def selected(self) -> str | None:
        """The key of the highlighted row (None while the table is empty)."""
        if self.row_count == 0:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
