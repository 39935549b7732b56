"""One rule for how an expected error becomes a notice (workbench/tui/errors.py): a call
run by `guarded` and a handler wrapped by `shown_as_notice` both go through `guarded`."""

from __future__ import annotations

from typing import Any

import pytest
from textual.app import App

from workbench.errors import UserError
from workbench.tui import errors
from workbench.tui.errors import guarded, shown_as_notice


class Noted(App[None]):
    """An app that keeps what it was asked to notify."""

    def __init__(self) -> None:
        super().__init__()
        self.noted: list[tuple[str, dict[str, Any]]] = []

    def notify(self, message: str, **options: Any) -> None:  # type: ignore[override]
        self.noted.append((message, options))

    @shown_as_notice
    def refuse(self, day: int) -> int:
        raise UserError(f"no such day {day}")

    @shown_as_notice
    def answer(self, day: int) -> int:
        return day + 1

    @shown_as_notice
    def bug(self) -> None:
        raise KeyError("bug")


async def test_a_handler_and_a_call_notify_an_expected_error_alike() -> None:
    """Same message, an error notice; a handler's shows 8 s, a call's 6 s (as before);
    a handler's result passes through; a bug still raises."""
    app = Noted()
    async with app.run_test():
        assert app.refuse(3) is None
        assert guarded(app, lambda: app.refuse.__wrapped__(app, 3)) is None  # type: ignore[attr-defined]
        assert app.answer(3) == 4
        with pytest.raises(KeyError):
            app.bug()
    assert app.noted == [
        ("no such day 3", {"severity": "error", "timeout": 8}),
        ("no such day 3", {"severity": "error", "timeout": 6}),
    ]


async def test_a_handlers_notice_is_guardeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """`shown_as_notice` runs its handler through `guarded`: there is one place that turns
    an expected error into a notice (it had its own copy of the try and the notify)."""
    calls: list[float] = []
    real = errors.guarded

    def spy(app: App[Any], call: Any, timeout: float = 6) -> Any:
        calls.append(timeout)
        return real(app, call, timeout)

    monkeypatch.setattr(errors, "guarded", spy)
    app = Noted()
    async with app.run_test():
        assert app.refuse(1) is None
        assert app.answer(1) == 2
    assert calls == [8, 8]
    assert app.noted == [("no such day 1", {"severity": "error", "timeout": 8})]
