"""Local inference takes turns across processes in the order calls asked: a process that calls again at once queues
behind the others (before, it could take the lock back before a waiting process noticed, and starve it)."""

from __future__ import annotations

import multiprocessing as mp
import time
from pathlib import Path

import pytest

from ontocore.llm import inference_lock


def _worker(name: str, n: int, out: "mp.Queue[str]") -> None:
    for _ in range(n):
        with inference_lock():
            out.put(name)
            time.sleep(0.05)


def test_two_processes_calling_back_to_back_take_turns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOBUILD_CACHE", str(tmp_path))
    q: "mp.Queue[str]" = mp.Queue()
    procs = [mp.Process(target=_worker, args=(name, 6, q)) for name in "AB"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    order = "".join(q.get(timeout=5) for _ in range(12))
    assert sorted(order) == sorted("AAAAAABBBBBB")
    assert max(len(run) for run in order.replace("AB", "A B").replace("BA", "B A").split()) <= 2, order
    assert not list((tmp_path / "inference.queue").iterdir())  # every ticket removed


def test_a_dead_process_ticket_does_not_block(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOBUILD_CACHE", str(tmp_path))
    queue = tmp_path / "inference.queue"
    queue.mkdir(parents=True)
    p = mp.Process(target=time.sleep, args=(0,))
    p.start()
    p.join()
    (queue / f"{1:020d}-{p.pid}").touch()  # older than any new ticket, of a process that has ended
    start = time.monotonic()
    with inference_lock():
        pass
    assert time.monotonic() - start < 5
    assert not list(queue.iterdir())
