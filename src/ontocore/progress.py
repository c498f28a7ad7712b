"""Progress of a long run on the terminal (rich): each step, how far it is, elapsed and remaining time.

Shown only when stderr is a terminal and the user did not ask for quiet (`-q`); piped or redirected runs print
only their summary. Library code reports through a `Progress` and never prints itself."""

from __future__ import annotations

import sys
from typing import IO, Any


class Progress:
    """Silent progress: the interface, and what runs use when nobody watches."""

    def begin(self, key: str, text: str, total: int | None = None) -> None:
        """A step starts (`total` units of work, or unknown)."""

    def advance(self, key: str, text: str | None = None) -> None:
        """One unit of a step is done; `text` replaces its description."""

    def end(self, key: str) -> None:
        """A step is complete."""

    def close(self) -> None:
        """The run is over."""


class TerminalProgress(Progress):
    """rich progress bars on stderr (or the given console)."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bars, SpinnerColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self._bars = Bars(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn(),
                          console=console or Console(stderr=True), transient=False)
        self._tasks: dict[str, Any] = {}
        self._bars.start()

    def begin(self, key: str, text: str, total: int | None = None) -> None:
        self._tasks[key] = self._bars.add_task(text, total=total)

    def advance(self, key: str, text: str | None = None) -> None:
        if key in self._tasks:
            self._bars.update(self._tasks[key], advance=1, **({"description": text} if text else {}))

    def end(self, key: str) -> None:
        if key in self._tasks:
            task_id = self._tasks[key]
            total = next((t.total for t in self._bars.tasks if t.id == task_id), None) or 1
            self._bars.update(task_id, total=total, completed=total)

    def close(self) -> None:
        self._bars.stop()


def open_progress(quiet: bool = False, stream: IO[str] | None = None) -> Progress:
    """Terminal progress when `stream` (stderr) is a terminal and not `quiet`; else silent."""
    stream = stream or sys.stderr
    if quiet or not getattr(stream, "isatty", lambda: False)():
        return Progress()
    return TerminalProgress()


__all__ = ["Progress", "TerminalProgress", "open_progress"]
