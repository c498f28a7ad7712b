"""Run a function in a forked child process that is killed when its time is up.

A query over an embedded store runs natively (Oxigraph) or in rdflib's evaluator, and neither can be
interrupted from a thread: a catastrophic REGEX or a huge join would run on after its caller gave up. Here the
work runs in a child made by fork(): it sees the parent's loaded store copy-on-write (nothing is copied or
parsed again), sends its result back pickled through a pipe, and exits with os._exit (no cleanup of the
parent's objects runs in it). When the time limit passes the parent kills it (SIGKILL) and reaps it, so no
stray or zombie process remains; the child also dies with its parent (PR_SET_PDEATHSIG on Linux). Behind the
query check, the child has no network: it moves into a new, empty network namespace (Linux, where unprivileged
user namespaces are allowed), and an audit hook refuses Python's own network access in any case.

`call_isolated` forks one child per call. Forking copies the parent's page tables (about 16 ms, and as much
again to tear them down, for a process holding a 1M-triple store), so a store that answers many queries uses
a `Worker`: one long-lived child forked at the first call, which answers call after call through pipes and is
killed and forked again only after a timeout. It sees the graph as it was when it was forked.

Where fork() does not exist, the work runs in a daemon thread that is abandoned on timeout (as before)."""

from __future__ import annotations

import ctypes
import logging
import os
import pickle
import select
import signal
import struct
import sys
import threading
import time
import weakref
from typing import Any, Callable, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
_PR_SET_PDEATHSIG = 1
_CLONE_NEWUSER, _CLONE_NEWNET = 0x10000000, 0x40000000
_HEADER = struct.Struct("!Q")
_NETWORK_EVENTS = frozenset({"socket.connect", "socket.getaddrinfo", "socket.gethostbyname", "urllib.Request",
                             "http.client.connect"})


class TimedOut(Exception):
    """The work did not finish within its time limit (and the child was killed)."""


class ChildFailed(Exception):
    """The child died without a result (killed by a signal, out of memory, ...)."""


def _refuse_network(event: str, args: tuple[Any, ...]) -> None:
    if event in _NETWORK_EVENTS:
        raise PermissionError(f"network access is not allowed here ({event})")


def _child_setup(parent: int) -> None:
    """In the child: die with the parent; leave the network (a new, empty network namespace, where user
    namespaces are allowed: then neither Python nor native code such as Oxigraph's SERVICE client can connect
    anywhere); and refuse Python-level network access in any case (an audit hook)."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNET)  # may fail (user namespaces disabled): the hook remains
        except (OSError, AttributeError):
            pass
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C reaches the child too: it simply dies
    sys.addaudithook(_refuse_network)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _child(fn: Callable[[], Any], fd: int, parent: int) -> None:
    code = 0
    try:
        _child_setup(parent)
        _write_all(fd, _answer(fn))
    except BaseException:  # noqa: BLE001 - nothing may escape a forked child
        code = 1
    finally:
        os._exit(code)


def _serve(handler: Callable[[Any], Any], requests: int, answers: int, parent: int) -> None:
    """The worker child's loop: a request in, its answer out, until the parent closes the pipe."""
    code = 0
    try:
        _child_setup(parent)
        while True:
            try:
                request = pickle.loads(_read_frame(requests, parent, None))
            except ChildFailed:  # the parent closed the pipe
                break
            _write_all(answers, _answer(lambda: handler(request)))
    except BaseException:  # noqa: BLE001 - nothing may escape a forked child
        code = 1
    finally:
        os._exit(code)


def _reap(pid: int, kill: bool) -> None:
    """Kill the child (if asked) and reap it: no zombie remains. A child that answered is exiting already."""
    if kill:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _read_frame(fd: int, pid: int, deadline: float | None) -> bytes:
    """One framed message from `fd`: TimedOut when `deadline` passes first, ChildFailed at end of file."""
    buf = bytearray()
    need: int | None = None
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while need is None or len(buf) < need:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimedOut()
            if not poller.poll(max(1, int(left * 1000))):
                continue
        chunk = os.read(fd, min(1 << 20, (need or _HEADER.size) - len(buf)))
        if not chunk:
            raise ChildFailed(f"the query process {pid} ended without an answer")
        buf += chunk
        if need is None and len(buf) == _HEADER.size:
            need = _HEADER.size + _HEADER.unpack_from(buf)[0]
    return bytes(buf[_HEADER.size:])


def _frame(obj: Any) -> bytes:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(data)) + data


def _answer(fn: Callable[[], Any]) -> bytes:
    """The framed ("ok", value) or ("raise", exception) of fn()."""
    try:
        payload: tuple[str, Any] = ("ok", fn())
    except BaseException as e:  # noqa: BLE001 - handed to the parent
        payload = ("raise", e)
    try:
        return _frame(payload)
    except Exception:  # noqa: BLE001 - an exception (or value) that does not pickle
        err = payload[1] if payload[0] == "raise" else None
        return _frame(("raise", RuntimeError(f"{type(err).__name__}: {err}" if err else
                                             "the result could not be sent back")))


def _unpack(data: bytes) -> Any:
    status, value = pickle.loads(data)
    if status == "raise":
        raise value
    return value


def call_isolated(fn: Callable[[], T], timeout_s: float) -> T:
    """fn() run in a forked child; its return value, or the exception it raised (re-raised here).

    TimedOut when it does not finish within `timeout_s` seconds (the child is then killed); ChildFailed when
    the child died without an answer."""
    if not hasattr(os, "fork"):
        return _call_in_thread(fn, timeout_s)
    deadline = time.monotonic() + timeout_s
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(read_fd)
        _child(fn, write_fd, parent)
    os.close(write_fd)
    finished = False
    try:
        data = _read_frame(read_fd, pid, deadline)
        finished = True
    finally:
        os.close(read_fd)
        _reap(pid, kill=not finished)
    return _unpack(data)


def _stop(child: list[int]) -> None:
    """Close the pipes of a worker child [pid, fd, fd] and kill it, unless it was reaped already."""
    pid, *fds = child
    child[0] = 0
    for fd in fds:
        try:
            os.close(fd)
        except OSError:
            pass
    if pid:
        _reap(pid, kill=True)


class Worker:
    """A long-lived forked child that answers requests with `handler(request)` (run in the child), killed and
    forked again after a timeout; killed when closed, garbage-collected, or at exit. One request at a time."""

    def __init__(self, handler: Callable[[Any], Any]) -> None:
        self._handler = handler
        self._lock = threading.Lock()
        self._child: list[int] = [0, -1, -1]  # pid, pipe to the child, pipe from the child
        self._finalizer: weakref.finalize | None = None
        self.started = 0  # children forked so far

    @property
    def pid(self) -> int | None:
        return self._child[0] or None

    def _alive(self) -> bool:
        pid = self._child[0]
        if not pid:
            return False
        try:
            done, _status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:  # it died (e.g. the thread that forked it ended): reaped now, forget it
            self._child[0] = 0
            self.close()
        return bool(done == 0)

    def _start(self) -> None:
        requests_r, requests_w = os.pipe()
        answers_r, answers_w = os.pipe()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the child: never returns
            os.close(requests_w)
            os.close(answers_r)
            _serve(self._handler, requests_r, answers_w, parent)
        os.close(requests_r)
        os.close(answers_w)
        self._child = [pid, requests_w, answers_r]
        self._finalizer = weakref.finalize(self, _stop, self._child)
        self.started += 1
        log.debug("query worker %d started", pid)

    def close(self) -> None:
        """Kill the child (if any); the next call forks a new one."""
        if self._finalizer is not None:
            self._finalizer()
        self._finalizer = None
        self._child = [0, -1, -1]

    def call(self, request: Any, timeout_s: float) -> Any:
        """handler(request) in the child; its value or its exception; TimedOut or ChildFailed as call_isolated."""
        if not hasattr(os, "fork"):
            return _call_in_thread(lambda: self._handler(request), timeout_s)
        deadline = time.monotonic() + timeout_s
        if not self._lock.acquire(timeout=timeout_s):
            raise TimedOut()
        try:
            if not self._alive():
                self._start()
            answered = False
            try:
                try:
                    _write_all(self._child[1], _frame(request))
                except OSError as e:
                    raise ChildFailed(f"the query process {self._child[0]} cannot be reached ({e})") from None
                data = _read_frame(self._child[2], self._child[0], deadline)
                answered = True
            finally:
                if not answered:
                    self.close()
        finally:
            self._lock.release()
        return _unpack(data)


def _call_in_thread(fn: Callable[[], T], timeout_s: float) -> T:
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["ok"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            box["raise"] = e

    worker = threading.Thread(target=work, name="isolated-call", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        raise TimedOut()
    if "raise" in box:
        raise box["raise"]
    return box["ok"]


__all__ = ["call_isolated", "Worker", "TimedOut", "ChildFailed"]
