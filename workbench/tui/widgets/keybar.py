"""The key bar: the keys the focused widget and its screen answer, on one line."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.content import Content
from textual.style import Style
from textual.widget import Widget

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import Binding
    from textual.screen import ActiveBinding, Screen

PALETTE_LABEL = "palette"


@dataclass(frozen=True)
class KeyLabel:
    """One key as the bar shows it: the key to press, how it reads, what it does."""

    key: str
    display: str
    description: str
    enabled: bool


def key_labels(app: App[object], bindings: dict[str, ActiveBinding]) -> list[KeyLabel]:
    """The shown bindings in the screen's order, one per action (its first key), as Footer does."""
    seen: set[str] = set()
    labels = []
    for _node, binding, enabled, _tooltip in bindings.values():
        if not binding.show or binding.action in seen:
            continue
        seen.add(binding.action)
        labels.append(_label(app, binding, enabled))
    return labels


def palette_label(app: App[object], bindings: dict[str, ActiveBinding]) -> KeyLabel | None:
    """The command palette's key, shown apart at the right end, or None without a palette."""
    if not app.ENABLE_COMMAND_PALETTE:
        return None
    active = bindings.get(app.COMMAND_PALETTE_BINDING)
    if active is None:
        return None
    return _label(app, active.binding, active.enabled, PALETTE_LABEL)


def _label(
    app: App[object], binding: Binding, enabled: bool, description: str | None = None
) -> KeyLabel:
    return KeyLabel(
        binding.key,
        app.get_key_display(binding),
        binding.description if description is None else description,
        enabled,
    )


@dataclass(frozen=True)
class BarLine:
    """The bar's line and where each key's pair sits on it (start and end cell)."""

    content: Content
    spans: tuple[tuple[int, int, KeyLabel], ...]

    def key_at(self, x: int) -> KeyLabel | None:
        """The key whose pair covers cell `x`, if any."""
        for start, end, label in self.spans:
            if start <= x < end:
                return label
        return None


def bar_line(
    keys: list[KeyLabel],
    palette: KeyLabel | None,
    width: int,
    key_style: Style,
    text_style: Style,
) -> BarLine:
    """The bar's line: `key description` pairs from the left, the palette at the right end.

    When the keys do not fit, they are cut so the palette key stays visible (as a docked
    palette key covers them).
    """
    pairs = [_pair(label, key_style, text_style) for label in keys]
    left = Content(" ").join(pairs)
    room = width
    right = Content()
    if palette is not None:
        right = Content.assemble(("▏", text_style), _pair(palette, key_style, text_style), " ")
        room = max(width - right.cell_length, 0)
    if left.cell_length > room:
        left = left.truncate(room)
    spans = []
    x = 0
    for label, pair in zip(keys, pairs, strict=True):
        spans.append((x, min(x + pair.cell_length, room), label))
        x += pair.cell_length + 1
    if palette is not None:
        spans.append((room + 1, room + right.cell_length - 1, palette))
        left = Content.assemble(left, " " * (room - left.cell_length), right)
    return BarLine(left, tuple((a, b, label) for a, b, label in spans if a < b))


def _pair(label: KeyLabel, key_style: Style, text_style: Style) -> Content:
    dim = Style(dim=True) if not label.enabled else Style()
    text = f" {label.description}" if label.description else ""
    return Content.assemble((label.display, key_style + dim), (text, text_style + dim))


class KeyBar(Widget, can_focus=False):
    """What Textual's Footer lists, drawn as one widget that repaints on a focus change.

    The Footer builds a widget per key and rebuilds them all whenever focus moves or a
    screen shows: it was half the CPU of a screen switch.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"key-bar--key", "key-bar--description"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $footer-background;
        color: $footer-foreground;
        & > .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        & > .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    def on_mount(self) -> None:
        """Repaint whenever the screen's bindings change (focus moved, a screen showed)."""
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        """Stop listening to the screen."""
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        if screen is self.screen:
            self.refresh()

    def labels(self) -> tuple[list[KeyLabel], KeyLabel | None]:
        """The keys shown now and the palette key."""
        bindings = self.screen.active_bindings
        return key_labels(self.app, bindings), palette_label(self.app, bindings)

    def line(self) -> BarLine:
        """The line for the current width."""
        keys, palette = self.labels()
        return bar_line(
            keys,
            palette,
            self.size.width,
            self.get_visual_style("key-bar--key"),
            self.get_visual_style("key-bar--description"),
        )

    def render(self) -> Content:
        """The line for the current width."""
        return self.line().content

    def on_click(self, event: events.Click) -> None:
        """A click on a key presses it (a disabled one rings the bell)."""
        label = self.line().key_at(event.x)
        if label is None:
            return
        event.stop()
        if label.enabled:
            self.app.simulate_key(label.key)
        else:
            self.app.bell()
