"""Thread choice for the embedded model: free usable cores, the user's setting first."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontocore.llm import cores
STAT = "cpu  {a} 0 0 {i} 0 0 0 0 0 0\ncpu0 {a0} 0 0 {i0} 0 0 0 0 0 0\ncpu1 {a1} 0 0 {i1} 0 0 0 0 0 0\nintr 1 2 3\n"


def test_cpu_times_reads_busy_and_total() -> None:
    times = cores._cpu_times(STAT.format(a=30, i=70, a0=10, i0=40, a1=20, i1=30))
    assert times == {0: (10, 50), 1: (20, 50)}


def _two_samples(monkeypatch, core0_busy: int) -> None:
    """/proc/stat read twice on two cores: core 0 busy `core0_busy` of 100 ticks between the reads, core 1 5."""
    samples = iter([STAT.format(a=0, i=0, a0=100, i0=100, a1=100, i1=100),
                    STAT.format(a=0, i=0, a0=100 + core0_busy, i0=200 - core0_busy, a1=105, i1=195)])
    monkeypatch.setattr(cores.Path, "read_text", lambda self: next(samples))
    monkeypatch.setattr(cores, "usable_cores", lambda: [0, 1])


def test_busy_cores_counts_cores_another_process_holds(tmp_path: Path, monkeypatch) -> None:
    _two_samples(monkeypatch, core0_busy=95)
    assert cores.busy_cores(sample_s=0, stat_path=str(tmp_path / "stat")) == 1


def test_choose_threads(monkeypatch) -> None:
    monkeypatch.setattr(cores, "usable_cores", lambda: [0, 1, 2, 3])
    monkeypatch.setattr(cores, "busy_cores", lambda: 1)
    assert cores.choose_threads() == 3
    assert cores.choose_threads(2) == 2  # the user's count wins
    monkeypatch.setattr(cores, "busy_cores", lambda: 4)
    assert cores.choose_threads() == 1  # never none
    monkeypatch.setattr(cores, "busy_cores", lambda: None)  # not Linux
    assert cores.choose_threads() == 4


def test_setting_from_environment(monkeypatch) -> None:
    monkeypatch.delenv(cores.ENV, raising=False)
    assert cores.setting() is None
    monkeypatch.setenv(cores.ENV, "3")
    assert cores.setting() == 3
    monkeypatch.setenv(cores.ENV, "0")
    with pytest.raises(ValueError):
        cores.setting()


def test_busy_cores_on_this_machine_is_a_count() -> None:
    n = cores.busy_cores(sample_s=0.05)
    assert n is None or 0 <= n <= len(cores.usable_cores())


def test_busy_cores_leaves_out_this_process_own_time(tmp_path: Path, monkeypatch) -> None:
    """A core kept busy by a thread of this very process (a library's worker winding down) is no other process."""
    _two_samples(monkeypatch, core0_busy=70)
    own = iter([1000.0, 1060.0])  # this process used 60 of core 0's 70 busy ticks
    monkeypatch.setattr(cores, "_own_jiffies", lambda: next(own))
    assert cores.busy_cores(sample_s=0, stat_path=str(tmp_path / "stat")) == 0
    _two_samples(monkeypatch, core0_busy=95)
    own = iter([1000.0, 1010.0])  # of which this process 10 ticks: another process still holds the core
    assert cores.busy_cores(sample_s=0, stat_path=str(tmp_path / "stat")) == 1


def test_the_local_model_keeps_its_thread_choice_for_a_call_right_after_the_previous_one(monkeypatch) -> None:
    """Sampling the cores costs a sixth of a second inside the inference lock: a call that follows the previous one
    within THREADS_RECHECK_S keeps its choice; a later one samples again; the user's count is never replaced."""
    from ontocore.llm import localchat as llm

    sampled: list[int] = []
    monkeypatch.setattr(cores, "choose_threads", lambda requested=None: sampled.append(1) or 2)
    model = llm.LocalChat.__new__(llm.LocalChat)  # only the thread bookkeeping: no model file is loaded
    model._fixed_threads, model._last_call_end, model.threads, model._llm = None, None, 1, None
    now = [100.0]
    monkeypatch.setattr(llm.time, "monotonic", lambda: now[0])
    model._adapt_threads()
    assert sampled == [1] and model.threads == 1  # (no context to set threads on: the count stays)
    model._last_call_end = 100.5
    now[0] = 100.5 + llm.THREADS_RECHECK_S / 2
    model._adapt_threads()
    assert sampled == [1]  # kept
    now[0] = 100.5 + llm.THREADS_RECHECK_S + 1
    model._adapt_threads()
    assert sampled == [1, 1]  # sampled again
    model._fixed_threads = 3
    model._adapt_threads()
    assert sampled == [1, 1]


def test_own_time_counts_this_process_children() -> None:
    """A child of this process (the answerer's query worker) spinning between two samples is this process's time,
    not another process's."""
    import subprocess
    import sys
    import time

    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.time() + 3\nwhile time.time() < t: pass"])
    try:
        time.sleep(0.5)  # the child has started
        assert child.pid in cores._children()
        before = cores._own_jiffies()
        time.sleep(0.6)
        assert cores._own_jiffies() - before >= 10  # of the child's ~60 ticks, at least some on a busy machine
    finally:
        child.kill()
        child.wait()
    assert cores._process_ticks(child.pid) == 0  # gone
