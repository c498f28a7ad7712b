"""The inference lock: one local inference at a time on this machine, taken in the order the processes asked."""

from __future__ import annotations

import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)


@contextmanager
def inference_lock() -> Iterator[None]:
    """One local inference at a time on this machine: two llama.cpp processes on 2 cores thrash each other
    (each slows down far more than 2x), so concurrent processes take turns instead, in the order they asked: each
    call leaves a ticket in a queue folder and waits until no older ticket of a live process is left (a process that
    calls again at once queues behind the others instead of taking the lock back before they can), then takes the
    file lock."""
    from ..folders import cache_dir

    from filelock import FileLock  # portable (fcntl on POSIX, msvcrt on Windows)

    path = cache_dir() / "inference.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    queue = path.parent / "inference.queue"
    ticket: Path | None = None
    try:
        queue.mkdir(exist_ok=True)
        ticket = queue / f"{time.time_ns():020d}-{os.getpid()}"
        ticket.touch()
        deadline = time.monotonic() + QUEUE_PATIENCE_S
        while time.monotonic() < deadline and any(t.name < ticket.name and _live_ticket(t) for t in queue.iterdir()):
            time.sleep(0.02)
    except OSError as e:  # a queue that cannot be kept only loses the order, never the lock
        log.debug("inference queue: %s", e)
    try:
        with FileLock(str(path)):
            yield
    finally:
        if ticket is not None:
            ticket.unlink(missing_ok=True)


QUEUE_PATIENCE_S = 3600.0  # the longest a call waits for older tickets before it competes for the lock anyway


def _live_ticket(ticket: Path) -> bool:
    """Whether a queue ticket belongs to a process that still runs (a killed process's ticket is removed)."""
    try:
        pid = int(ticket.name.rsplit("-", 1)[1])
        if pid == os.getpid():
            return True
        os.kill(pid, 0)
        return True
    except (ValueError, IndexError):
        return False
    except PermissionError:
        return True  # another user's live process
    except (ProcessLookupError, OSError):
        ticket.unlink(missing_ok=True)
        return False
