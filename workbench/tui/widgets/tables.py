"""The base of every table: its columns exist from construction, before any mount runs,
its cells show text as it is, and its cursor keys move between rows."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, RowKey


def literal(cell: str | Text) -> Text:
    """A cell that shows its text as it is.

    DataTable reads a `str` cell as Rich markup: a run directory or a campaign id from
    someone else's run.json such as `[/]` raised MarkupError and closed the app, and one
    such as `[@click=…]` became an action link.
    """
    return Text(cell) if isinstance(cell, str) else cell


class Table(DataTable[Text]):
    """A row-cursor table whose `COLUMNS` are added when it is built; its cells are literal.

    A screen may paint its tables from its own mount handler, which can run before
    a child's; columns added at construction are there whichever runs first.

    Home and End go to the first and last row, as up, down, PageUp and PageDown move by
    rows: DataTable gives them to the column cursor, so in a row-cursor table they only
    scrolled sideways (and did nothing in a table as narrow as its screen).
    """

    COLUMNS: ClassVar[tuple[str, ...]] = ()
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", "First row", show=False),
        Binding("end", "scroll_bottom", "Last row", show=False),
    ]

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cursor_type", "row")
        super().__init__(**kwargs)
        if self.COLUMNS:
            self.add_columns(*self.COLUMNS)

    def validate_cursor_coordinate(self, value: Coordinate) -> Coordinate:
        """Keep the cursor inside the table; in an empty one, on its origin.

        DataTable clamps an empty table's cursor to row -1 and reports that row as
        highlighted with no key: End, PageDown or ctrl+end in an empty table raised in
        every handler that reads the key, and closed the app.
        """
        if self.row_count == 0:
            return Coordinate(0, 0)
        return super().validate_cursor_coordinate(value)

    def add_row(
        self,
        *cells: str | Text,
        height: int | None = 1,
        key: str | None = None,
        label: str | Text | None = None,
    ) -> RowKey:
        """Add a row whose `str` cells show as they are (see `literal`)."""
        return super().add_row(
            *(literal(cell) for cell in cells), height=height, key=key, label=label
        )

    def update_cell(
        self,
        row_key: RowKey | str,
        column_key: ColumnKey | str,
        value: str | Text,
        *,
        update_width: bool = False,
    ) -> None:
        """Replace a cell's value, shown as it is (see `literal`)."""
        super().update_cell(row_key, column_key, literal(value), update_width=update_width)

    def row_text(self, row_index: int) -> list[str]:
        """The cells of the row at `row_index` as plain text."""
        return [cell.plain for cell in self.get_row_at(row_index)]

    @property
    def selected(self) -> str | None:
        """The key of the highlighted row (None while the table is empty)."""
        if self.row_count == 0:
            return None
        return str(self.coordinate_to_cell_key(self.cursor_coordinate).row_key.value)
