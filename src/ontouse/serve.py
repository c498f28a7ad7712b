"""`ontoask serve`: the answerer as an HTTP service, with the TEXT2SPARQL contract.

- `GET /?question=...&dataset=<IRI>` -> `{"dataset": ..., "question": ..., "query": <SPARQL>}` (the contract
  of the TEXT2SPARQL challenge: the query that produced the answer, with the PREFIX declarations it needs);
  a dataset other than the one served -> 404.
- `GET /answer?question=...` -> the whole answer record (what `ontoask --json` prints: answer, rows, SPARQL,
  support triples with their sources, cost).
- `GET /health` -> `{"status": "ok", ...}` when the ontology's view is loaded and the model answers (a model
  server is reached: its model list; checked at most every HEALTH_TTL seconds); 503 `{"status": "unavailable",
  "error": ...}` with `Retry-After` when it does not. `HEAD` of any resource: its headers.

One model answers one question at a time: requests wait in a bounded queue for the one worker thread that
asks (`Service`); a full queue is answered 503 at once (with `Retry-After`), a request that waits or runs longer
than its timeout is answered 504 (a question already being answered runs to its end; one still waiting is
dropped). Every error, also those http.server makes itself (414 for a too long URL, 400, 501 for another method),
is a JSON object `{"error": message, "status": code}`, never a traceback or an HTML page. A connection that sends
nothing for HANDLER_TIMEOUT seconds is closed; the listen backlog is BACKLOG. Standard library only
(`http.server.ThreadingHTTPServer`)."""

from __future__ import annotations

import json
import logging
import queue
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ontocore.errors import InputError, ModelServerError, ModelUnavailable, OntoError
from ontocore.redaction import redact

from .answer import Answer
from .api import Answerer

log = logging.getLogger(__name__)

QUEUE_SIZE = 8  # questions waiting for the model, beyond the one being answered
REQUEST_TIMEOUT = 300.0  # seconds a request may wait and run (the embedded model takes 5-60 s a question)
MAX_QUESTION = 2000  # characters
HANDLER_TIMEOUT = 30.0  # seconds a connection may stay silent (an idle keep-alive, a slow client) before it is closed
BACKLOG = 64  # connections the operating system holds while the server is busy accepting
RETRY_AFTER = 30  # seconds a client told 503 (busy) waits before it asks again
HEALTH_TTL = 10.0  # seconds a model check is trusted before /health reaches the model again


class ServiceError(Exception):
    """A request the service answers with an HTTP error status and a JSON message."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.retry_after = retry_after


@dataclass
class _Job:
    question: str
    done: threading.Event = field(default_factory=threading.Event)
    answer: Answer | None = None
    error: BaseException | None = None
    dropped: bool = False  # the request gave up waiting: do not start it


class Service:
    """One answerer behind a bounded queue: requests wait their turn for the one worker thread that asks.

    `dataset`: the IRI of the dataset served (a request naming another one is refused with 404); None: any
    dataset name is accepted and echoed. `queue_size`: questions that may wait; `timeout_s`: how long one
    request may wait and run."""

    def __init__(self, answerer: Answerer, dataset: str | None = None, queue_size: int = QUEUE_SIZE,
                 timeout_s: float = REQUEST_TIMEOUT) -> None:
        self.answerer = answerer
        self.dataset = dataset
        self.timeout_s = timeout_s
        self._jobs: queue.Queue[_Job | None] = queue.Queue(maxsize=max(1, queue_size))
        self._stopping = threading.Event()
        self.answered = 0
        self._checked: tuple[float, str] | None = None  # (when, "" or why the model is not available)
        self._check_lock = threading.Lock()
        self._worker = threading.Thread(target=self._work, name="ontoask-answerer", daemon=True)
        self._worker.start()

    def ask(self, question: str) -> Answer:
        """The answer record of `question`, answered in turn; ServiceError 503 when the queue is full, 504 when
        the answer takes longer than the timeout."""
        if self._stopping.is_set():
            raise ServiceError(503, "the service is stopping.", RETRY_AFTER)
        job = _Job(question)
        try:
            self._jobs.put_nowait(job)
        except queue.Full:
            raise ServiceError(503, f"busy: {self._jobs.maxsize} question(s) are already waiting for the model; "
                                    "try again later.", RETRY_AFTER) from None
        if not job.done.wait(self.timeout_s):
            job.dropped = True
            raise ServiceError(504, f"no answer within {self.timeout_s:g} s.")
        if job.error is not None:
            raise job.error
        assert job.answer is not None
        return job.answer

    @property
    def waiting(self) -> int:
        return self._jobs.qsize()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if job.dropped:
                continue
            try:
                job.answer = self.answerer.ask(job.question)
                self.answered += 1
            except Exception as e:  # noqa: BLE001 - handed to the request, which turns it into a JSON error
                job.error = e
            finally:
                job.done.set()

    def close(self) -> None:
        """Stop taking questions; the worker ends after the question it is answering."""
        self._stopping.set()
        while True:  # drop what waits, then tell the worker to stop
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.error = ServiceError(503, "the service is stopping.")
                job.done.set()
        try:
            self._jobs.put(None, timeout=1.0)
        except queue.Full:  # a request slipped in meanwhile: the worker is a daemon thread and ends with the process
            log.debug("the answerer's queue did not take the stop signal")

    def model_problem(self) -> str:
        """"" when the model answers (a model server is reached: `ping`), else why not; a result is kept
        HEALTH_TTL seconds, so that health checks do not load the model server."""
        import time

        with self._check_lock:
            now = time.monotonic()
            if self._checked is None or now - self._checked[0] > HEALTH_TTL:
                ping = getattr(self.answerer.model, "ping", None)
                try:
                    problem = "" if ping is None else (ping() or "")
                except OntoError as e:
                    problem = str(e)
                except Exception as e:  # noqa: BLE001 - a check never fails the service
                    problem = f"{type(e).__name__}: {e}"
                self._checked = (now, problem)
            return self._checked[1]

    def health(self) -> dict[str, Any]:
        """The service's state; ServiceError 503 when the model does not answer."""
        model = self.answerer.model
        problem = self.model_problem()
        if problem:
            raise ServiceError(503, f"the model is not available: {problem}", RETRY_AFTER)
        return {"status": "ok", "dataset": self.dataset, "classes": len(self.answerer.schema.tables),
                "model": f"{getattr(model, 'backend', '?')} {getattr(model, 'model', '?')}",
                "waiting": self.waiting, "queue_size": self._jobs.maxsize, "answered": self.answered,
                "timeout_s": self.timeout_s}


def standalone_query(sparql: str, prefixes: dict[str, str]) -> str:
    """`sparql` with a PREFIX declaration for each prefixed name it uses and does not declare (the store adds
    them when it runs a query; a client that runs the query elsewhere needs them)."""
    declared = {m.lower() for m in re.findall(r"(?im)^\s*PREFIX\s+([\w.-]*):", sparql)}
    body = re.sub(r"<[^>\s]*>|\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*'", " ", sparql)  # IRIs and strings out
    used = set(re.findall(r"(?<![\w?$:.-])([A-Za-z][\w.-]*|):[\w-]", body))
    lines = [f"PREFIX {p}: <{prefixes[p]}>" for p in sorted(used) if p in prefixes and p.lower() not in declared]
    return "\n".join([*lines, sparql]) if lines else sparql


def text2sparql_record(answer: Answer, dataset: str | None, prefixes: dict[str, str]) -> dict[str, Any]:
    """The TEXT2SPARQL answer: the dataset, the question and the query that produced the answer (the last one
    that ran; "" with an `error` when no query could be written)."""
    out: dict[str, Any] = {"dataset": dataset, "question": answer.question,
                           "query": standalone_query(answer.sparql[-1], prefixes) if answer.sparql else ""}
    if not answer.sparql:
        out["error"] = answer.error or "no query could be written for this question."
    return out


class _Handler(BaseHTTPRequestHandler):
    server: "AnswerServer"
    protocol_version = "HTTP/1.1"
    server_version = "ontoask"
    timeout = HANDLER_TIMEOUT  # a silent connection (an idle keep-alive, a client that stalls) is closed

    def do_GET(self) -> None:  # noqa: N802 - the http.server API
        retry_after = None
        try:
            status, body = self._route()
        except ServiceError as e:
            status, body, retry_after = e.status, {"error": str(e)}, e.retry_after
        except InputError as e:
            status, body = 400, {"error": str(e)}
        except ModelUnavailable as e:
            status, body, retry_after = 503, {"error": f"the model is not available: {e}"}, RETRY_AFTER
        except ModelServerError as e:
            status, body = 502, {"error": f"the model server failed: {e}"}
        except OntoError as e:
            status, body = 500, {"error": str(e) or type(e).__name__}
        except Exception as e:  # noqa: BLE001 - never a traceback to the client
            log.debug("internal error", exc_info=True)
            status, body = 500, {"error": f"internal error: {type(e).__name__}"}
        if status >= 400:
            body = {"error": redact(" ".join(str(body.get("error", "")).split())), "status": status}
        self._send(status, body, retry_after=retry_after)

    def do_HEAD(self) -> None:  # noqa: N802 - the headers of GET, without the body
        self.do_GET()

    def _other(self) -> None:
        self._send(405, {"error": f"{self.command} is not supported: use GET.", "status": 405}, allow="GET, HEAD")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _other

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The errors http.server answers itself (a too long URL, a malformed request line, an unknown method):
        JSON like every other error, not its HTML page."""
        try:
            short, long = self.responses.get(code, ("error", ""))
        except AttributeError:
            short, long = "error", ""
        text = message or short
        if explain or long:
            text = f"{text}: {explain or long}"
        if code == 414:
            text = "the request's URL is too long (a question has at most " f"{MAX_QUESTION} characters)."
        if getattr(self, "request_version", "HTTP/0.9") in ("HTTP/0.9", ""):
            self.request_version = "HTTP/1.0"  # a status line and headers even before the request line was read
        self.close_connection = True
        self._send(code, {"error": redact(" ".join(str(text).split())), "status": code})

    def _route(self) -> tuple[int, dict[str, Any]]:
        url = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        service = self.server.service
        if url.path == "/health":
            return 200, service.health()
        if url.path not in ("/", "/answer"):
            raise ServiceError(404, f"no such resource {url.path!r}: use /?question=...&dataset=..., "
                                    "/answer?question=... or /health.")
        question = " ".join(params.get("question", "").split())
        if not question:
            raise ServiceError(400, "give the question as ?question=...")
        if len(question) > MAX_QUESTION:
            raise ServiceError(400, f"the question is longer than {MAX_QUESTION} characters.")
        dataset = params.get("dataset") or None
        if dataset is not None and service.dataset is not None and dataset != service.dataset:
            raise ServiceError(404, f"unknown dataset {dataset!r}: this service serves {service.dataset!r}.")
        answer = service.ask(question)
        if url.path == "/answer":
            return 200, answer.to_dict()
        return 200, text2sparql_record(answer, dataset or service.dataset, service.answerer.store.prefixes)

    def _send(self, status: int, body: dict[str, Any], allow: str | None = None,
              retry_after: int | None = None) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            if allow:
                self.send_header("Allow", allow)
            if retry_after is not None or status == 503:
                self.send_header("Retry-After", str(retry_after or RETRY_AFTER))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):  # the client went away
            log.info("client closed the connection before the answer was sent")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the http.server API
        log.info("%s %s", self.address_string(), redact(format % args))


class AnswerServer(ThreadingHTTPServer):
    """The HTTP server of a `Service` (a thread per connection; the answers themselves are serialized)."""

    daemon_threads = True
    request_queue_size = BACKLOG  # connections waiting to be accepted (http.server's default is 5)

    def __init__(self, service: Service, host: str = "127.0.0.1", port: int = 8000) -> None:
        self.service = service
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{'[' + str(host) + ']' if ':' in str(host) else host}:{port}/"


def serve(answerer: Answerer, host: str = "127.0.0.1", port: int = 8000, dataset: str | None = None,
          queue_size: int = QUEUE_SIZE, timeout_s: float = REQUEST_TIMEOUT, ready: Any = None) -> None:
    """Serve `answerer` until interrupted (Ctrl-C, SIGTERM). `ready(url)` is called once it listens."""
    service = Service(answerer, dataset=dataset, queue_size=queue_size, timeout_s=timeout_s)
    try:
        server = AnswerServer(service, host, port)
    except OSError as e:
        service.close()
        raise InputError(f"cannot listen on {host}:{port}: {e.strerror or e}.") from None
    try:
        if ready is not None:
            ready(server.url)
        server.serve_forever(poll_interval=0.2)
    finally:
        server.server_close()
        service.close()


__all__ = ["AnswerServer", "Service", "ServiceError", "serve", "standalone_query", "text2sparql_record"]
