"""How many threads the embedded model should use: the cores this process may run on, minus the ones another
process keeps busy right now.

llama.cpp's threads wait for each other at every step, so one thread on a core that another process holds slows
all of them down (measured: from ~30 to 1-4 tokens/s with one busy core out of two). Fewer threads on free
cores are much faster than more threads on shared ones. The user's setting (`--threads`, `ONTOBUILD_THREADS`)
always wins."""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

log = logging.getLogger(__name__)

ENV = "ONTOBUILD_THREADS"
BUSY = 0.5  # a core busy more than half of the sample is taken


def usable_cores() -> list[int]:
    """The cores this process may run on (its CPU affinity), else all of them."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return list(range(os.cpu_count() or 1))


def _cpu_times(stat: str) -> dict[int, tuple[int, int]]:
    """Per core: (busy, total) jiffies from the text of /proc/stat."""
    out: dict[int, tuple[int, int]] = {}
    for line in stat.splitlines():
        head, _, rest = line.partition(" ")
        if not head.startswith("cpu") or head == "cpu":
            continue
        try:
            fields = [int(x) for x in rest.split()]
            core = int(head[3:])
        except ValueError:
            continue
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
        total = sum(fields[:8])
        out[core] = (total - idle, total)
    return out


def _read(path: str) -> str:
    with open(path, encoding="ascii", errors="replace") as f:
        return f.read()


def _children() -> list[int]:
    """The process ids of this process's live children (Linux; [] where the kernel does not say)."""
    pids: list[int] = []
    try:
        for task in os.listdir("/proc/self/task"):
            pids += [int(x) for x in _read(f"/proc/self/task/{task}/children").split()]
    except (OSError, ValueError):
        return []
    return pids


def _process_ticks(pid: int) -> int:
    """User + system clock ticks a live process has used (0 when it is gone)."""
    try:
        fields = _read(f"/proc/{pid}/stat").rpartition(")")[2].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return 0


def _own_jiffies() -> float:
    """CPU time this process and its children have used (all their threads), in the clock ticks of /proc/stat.

    The children count as this process: a query worker forked by the answerer (ontouse.storage.sandbox) that is
    still freeing its last result when the model's call starts is no other process either."""
    t = os.times()
    ticks = os.sysconf("SC_CLK_TCK")
    own = (t.user + t.system + t.children_user + t.children_system) * ticks
    return own + sum(_process_ticks(pid) for pid in _children())


def busy_cores(sample_s: float = 0.15, stat_path: str = "/proc/stat") -> int | None:
    """How many usable cores other processes keep busy, sampled over `sample_s` while this process waits;
    None where the kernel does not say (not Linux).

    This process's own CPU time in the sample, and its children's, is left out (taken from the busiest cores
    first): a thread of its own that is still winding down (a numerical library's worker that spins for a moment
    after its last task) or its query worker is no other process, and counting it would give the model fewer
    threads than the free cores."""
    path = Path(stat_path)
    try:
        own0 = _own_jiffies()
        before = _cpu_times(path.read_text())
        time.sleep(sample_s)
        after = _cpu_times(path.read_text())
        own = max(0.0, _own_jiffies() - own0)
    except (OSError, ValueError):
        return None
    loads = []
    for core in usable_cores():
        if core in before and core in after:
            used = after[core][0] - before[core][0]
            total = after[core][1] - before[core][1]
            if total > 0:
                loads.append([float(used), float(total)])
    loads.sort(key=lambda x: -x[0] / x[1])
    for load in loads:  # this process's time off the busiest cores
        if own <= 0:
            break
        taken = min(own, load[0])
        load[0] -= taken
        own -= taken
    return sum(1 for used, total in loads if used / total > BUSY)


def setting() -> int | None:
    """The user's thread count from the environment, if any (ValueError for a bad value)."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return None
    value = int(text)
    if value < 1:
        raise ValueError(f"{ENV} must be a positive integer, not {text!r}")
    return value


def choose_threads(requested: int | None = None) -> int:
    """The thread count for the next model call: the user's, else the free usable cores (at least one)."""
    if requested:
        return requested
    cores = len(usable_cores())
    busy = busy_cores()
    if busy is None:
        return cores
    return max(1, cores - busy)


__all__ = ["choose_threads", "busy_cores", "usable_cores", "setting", "ENV"]
