"""The key bar: one line of keys that fits any width, keeps the palette key, and clicks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from textual.style import Style

from tests.tui.conftest import SIZE, SMALL, go, wait_for
from workbench.tui.app import PLAYER_SCREENS, PlayerApp
from workbench.tui.widgets.keybar import KeyBar, KeyLabel, bar_line

KEY, TEXT = Style(bold=True), Style()

labels = st.builds(
    KeyLabel,
    key=st.sampled_from(["n", "w", "ctrl+o", "f1", "enter"]),
    display=st.text("abcdefgh^+12", min_size=1, max_size=6),
    description=st.text("abcdefgh ", max_size=14),
    enabled=st.booleans(),
)


@given(st.lists(labels, max_size=12), st.one_of(st.none(), labels), st.integers(0, 160))
def test_the_line_fits_and_every_span_names_the_key_drawn_there(
    keys: list[KeyLabel], palette: KeyLabel | None, width: int
) -> None:
    line = bar_line(keys, palette, width, KEY, TEXT)
    text = line.content.plain
    if palette is not None:
        right = f"▏{palette.display}{' ' + palette.description if palette.description else ''} "
        if len(right) <= width:
            assert len(text) == width and text.endswith(right)
    else:
        assert len(text) <= width
    previous_end = 0
    for start, end, label in line.spans:
        assert previous_end <= start < end <= max(len(text), width)
        assert text[start:end] in f"{label.display} {label.description}"
        assert line.key_at(start) == label and line.key_at(end - 1) == label
        previous_end = end


def test_keys_that_do_not_fit_are_cut_and_the_palette_stays() -> None:
    keys = [KeyLabel(k, k, "a long description", True) for k in "abcdefgh"]
    palette = KeyLabel("ctrl+p", "^p", "palette", True)
    line = bar_line(keys, palette, 40, KEY, TEXT)
    assert line.content.plain.endswith("▏^p palette ") and len(line.content.plain) == 40
    assert line.key_at(39 - len("palette ")) == palette
    assert line.key_at(0) == keys[0] and line.key_at(len("a a long description")) is None


async def test_clicking_a_key_presses_it(app: PlayerApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        bar = app.screen.query_one(KeyBar)
        await pilot.pause()
        start, _end, label = next(s for s in bar.line().spans if s[2].key == "n")
        assert label.description == "Next day"
        await pilot.click(KeyBar, offset=(start + 2, 0))
        await wait_for(pilot, lambda: app.session.day == 1, "day 1 after the click")
        palette = bar.line().spans[-1]
        await pilot.click(KeyBar, offset=(palette[0], 0))
        await wait_for(pilot, lambda: app.screen.id == "--command-palette", "the palette")


async def test_every_screen_shows_its_keys_at_80_columns(app: PlayerApp) -> None:
    async with app.run_test(size=SMALL) as pilot:
        for spec in PLAYER_SCREENS:
            await go(pilot, spec.key)
            bar = app.screen.query_one(KeyBar)
            line = bar.line().content.plain
            assert len(line) == SMALL[0] and line.endswith("▏^p palette "), spec.mode
            first = bar.labels()[0][0]
            assert line.startswith(f"{first.display} {first.description}"), spec.mode
