"""`make screenshots` (docs/make_screenshots.py) still takes the pictures the README shows."""

from __future__ import annotations

import asyncio
import html
import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "make_screenshots", ROOT / "docs" / "make_screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _text(svg: Path) -> str:
    """The characters an SVG screenshot shows."""
    return html.unescape("".join(re.findall(r">([^<]*)</text>", svg.read_text()))).replace(
        "\xa0", " "
    )


def test_the_screenshots_show_what_the_readme_says(tmp_path: Path) -> None:
    """The dashboard after 32 days, the end-of-campaign summary at day 180, and the author's
    check with no checkout's path. Before, the answer typed for the questions picture made
    every later advance stop to ask first: the dashboard showed day 12 and the "summary"
    was the dashboard of day 12."""
    script = _script()
    shots_dir = tmp_path / "shots"
    shots_dir.mkdir()
    vars(script)["OUT"] = shots_dir
    asyncio.run(script.player(tmp_path / "runs" / "play-1"))
    asyncio.run(script.author(tmp_path / "runs"))
    shots = {p.name: _text(p) for p in shots_dir.glob("*.svg")}
    assert "Day 32 / 180" in shots["dashboard.svg"]
    assert "The campaign is over (day 180 of 180)" in shots["summary.svg"]
    assert str(ROOT) not in shots["author_check.svg"]
    assert str(tmp_path) not in shots["author_check.svg"]
