"""A job's progress bar: hidden while idle, so nothing animates when no work runs."""

from __future__ import annotations

from textual.widgets import ProgressBar


class JobProgress(ProgressBar):
    """Shown from `start` until `finish`; a known total draws a bar, never an idle pulse."""

    DEFAULT_CSS = """
    JobProgress {
        display: none;
        height: 1;
    }
    JobProgress.-running {
        display: block;
    }
    """

    def __init__(self, **kwargs: object) -> None:
        super().__init__(show_eta=False, **kwargs)  # type: ignore[arg-type]

    def start(self, total: int | None = None) -> None:
        """Show the bar at zero (an unknown total pulses only while the job runs)."""
        self.update(total=total, progress=0)
        self.add_class("-running")

    def step(self, done: int, total: int) -> None:
        """Move to `done` of `total`."""
        self.update(total=total, progress=done)

    def finish(self) -> None:
        """Hide the bar: the job is over."""
        self.remove_class("-running")
        self.update(total=1, progress=1)

    @property
    def running(self) -> bool:
        """True between `start` and `finish`."""
        return self.has_class("-running")
