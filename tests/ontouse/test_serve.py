"""`ontoask serve`: the real command in a subprocess on a free port, queried with a real HTTP client (urllib).

The model side is an OpenAI-compatible server that replays real exchanges with the embedded model
(`tests/cassettes/api_orchard.json`, see test_api.py); the queue mechanics (503 when full, 504 after the
timeout, JSON errors) are checked in-process with an answerer that waits until the test lets it go."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from api_fixture import DATASET, FOLDER, QUESTIONS
from test_api import CASSETTE, REPO


def get(url: str, timeout: float = 120) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            assert resp.headers["Content-Type"].startswith("application/json")
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as e:
        assert e.headers["Content-Type"].startswith("application/json")
        return e.code, json.loads(e.read())


def query(**params: str) -> str:
    return "?" + urllib.parse.urlencode(params)


def _start(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    """Start `python -m ontouse serve ...` and wait for the line that gives its address."""
    proc = subprocess.Popen([sys.executable, "-m", "ontouse", "serve", *args], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: list[str] = []
    found = threading.Event()

    def read() -> None:
        for line in proc.stderr:  # type: ignore[union-attr]
            lines.append(line)
            if "serving" in line:
                found.set()
        found.set()

    threading.Thread(target=read, daemon=True).start()
    if not found.wait(180) or proc.poll() is not None:
        proc.kill()
        pytest.fail("ontoask serve did not start: " + "".join(lines))
    url = next(w for line in lines if "serving" in line for w in line.split() if w.startswith("http://"))
    proc.lines = lines  # type: ignore[attr-defined]
    return proc, url


def test_serve_text2sparql_and_answer_records_over_http() -> None:
    from cassette_server import CassetteServer

    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet")
    with CassetteServer(CASSETTE) as model_server:
        env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
        env["PYTHONPATH"] = os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])
        proc, url = _start(["--ontology", str(FOLDER), "--port", "0", "--dataset", DATASET,
                            "--backend", "openai", "--base-url", model_server.base_url, "--model", "recorded"], env)
        try:
            status, health = get(url + "health")
            assert status == 200 and health["status"] == "ok" and health["dataset"] == DATASET
            assert health["classes"] == 2

            # the TEXT2SPARQL contract: exactly dataset, question, query
            status, body = get(url + query(question=QUESTIONS[0], dataset=DATASET))
            assert status == 200, body
            assert set(body) == {"dataset", "question", "query"}
            assert body["dataset"] == DATASET and body["question"] == QUESTIONS[0]
            # the query stands alone: another SPARQL engine runs it and finds the answer
            from rdflib import Graph

            rows = Graph().parse(FOLDER / "ontology.ttl").query(body["query"])
            assert any("BramleyAppleTree" in " ".join(str(t) for t in row) for row in rows), body["query"]

            # the full answer record (the cassette's second question)
            status, record = get(url + "answer" + query(question=QUESTIONS[1]))
            assert status == 200 and record["state"] == "answered", record
            assert record["rows"][0][0]["value"] == "3" and record["answer"].startswith("3")
            assert record["sparql"] and "COUNT" in record["sparql"][-1].upper()
            support = [" ".join(t) for t in record["support"]]
            assert sum("growsIn" in t and "NorthPlot" in t for t in support) == 3, support
            assert {s.get("path") for s in record["sources"] if s} >= {"$[0]['plot']", "$[1]['plot']",
                                                                         "$[3]['plot']"}, record["sources"]
            assert model_server.position == len(model_server.entries) and not model_server.mismatches

            # clear JSON errors (no model call)
            status, body = get(url + query(question=QUESTIONS[0], dataset="https://elsewhere.example/ds"))
            assert status == 404 and "unknown dataset" in body["error"] and body["status"] == 404
            status, body = get(url + query(dataset=DATASET))
            assert status == 400 and "question" in body["error"]
            status, body = get(url + "nowhere")
            assert status == 404 and "/health" in body["error"]
            request = urllib.request.Request(url, data=b"{}", method="POST")
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)
            assert refused.value.code == 405 and json.loads(refused.value.read())["status"] == 405
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
    assert code == 143
    assert "Traceback" not in "".join(proc.lines)  # type: ignore[attr-defined]


# ---- the queue, in process ----------------------------------------------------------------------------------

class _Waiting:
    """An answerer whose answers wait until the test releases them (the queue's mechanics only), or fail."""

    def __init__(self, fail: BaseException | None = None) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.fail = fail
        self.model = type("M", (), {"backend": "test", "model": "waiting"})()
        self.schema = type("S", (), {"tables": {}})()
        self.store = type("St", (), {"prefixes": {}})()

    def ask(self, question: str):
        from ontouse.answer import Answer

        self.started.set()
        if self.fail is not None:
            raise self.fail
        self.release.wait()
        return Answer(question=question, answer="done", state="answered", sparql=["SELECT * WHERE { ?s ?p ?o }"])


@pytest.fixture
def server_of():
    from ontouse.serve import AnswerServer, Service

    started = []

    def start(answerer: Any, **options: Any) -> str:
        service = Service(answerer, **options)
        server = AnswerServer(service, "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        started.append((server, service, answerer))
        return server.url

    yield start
    for server, service, answerer in started:
        if hasattr(answerer, "release"):
            answerer.release.set()
        server.shutdown()
        server.server_close()
        service.close()


def test_a_full_queue_is_answered_503_at_once(server_of) -> None:
    answerer = _Waiting()
    url = server_of(answerer, queue_size=1)
    results: list[tuple[int, dict]] = []
    first = threading.Thread(target=lambda: results.append(get(url + query(question="first"))))
    first.start()
    assert answerer.started.wait(30)  # the first question is being answered
    second = threading.Thread(target=lambda: results.append(get(url + query(question="second"))))
    second.start()
    service = None
    for _ in range(3000):  # until the second question waits in the queue
        status, health = get(url + "health")
        if health["waiting"] == 1:
            service = health
            break
        threading.Event().wait(0.01)
    assert service is not None
    status, body = get(url + query(question="third"))
    assert status == 503 and "busy" in body["error"]
    answerer.release.set()
    first.join(30)
    second.join(30)
    assert sorted(s for s, _ in results) == [200, 200]
    assert {b["question"] for _, b in results} == {"first", "second"}


def test_a_slow_answer_is_answered_504(server_of) -> None:
    url = server_of(_Waiting(), timeout_s=0.2)
    status, body = get(url + "answer" + query(question="anything"))
    assert status == 504 and "no answer within" in body["error"]


def test_errors_are_json_never_a_traceback(server_of) -> None:
    from ontocore.errors import ModelServerError

    status, body = get(server_of(_Waiting(fail=RuntimeError("secret detail")))[:-1] + "/answer?question=x")
    assert status == 500 and body == {"error": "internal error: RuntimeError", "status": 500}
    status, body = get(server_of(_Waiting(fail=ModelServerError("the server at h is down")))
                       + "answer?question=x")
    assert status == 502 and "down" in body["error"]


def test_standalone_query_declares_the_prefixes_it_uses() -> None:
    from ontouse.serve import standalone_query

    prefixes = {"rdfs": "http://www.w3.org/2000/01/rdf-schema#", "ex": "http://ex.example/#",
                "unused": "http://unused.example/"}
    text = standalone_query('SELECT ?l WHERE { ?x a ex:Thing ; rdfs:label ?l FILTER(?l != "a:b") }', prefixes)
    assert text.startswith("PREFIX ex: <http://ex.example/#>\nPREFIX rdfs:")
    assert "unused" not in text
    declared = "PREFIX ex: <http://ex.example/#>\nSELECT * WHERE { ?x a ex:T }"
    assert standalone_query(declared, prefixes) == declared


def test_serve_and_mcp_without_an_ontology_are_usage_errors(tmp_path) -> None:
    """One readable line and exit code 2, before any model is loaded; a question still needs no subcommand."""
    from click.testing import CliRunner

    from ontouse.cli import main

    runner = CliRunner()
    for command in (["serve"], ["mcp"], ["serve", "--ontology", str(tmp_path / "missing.ttl")]):
        result = runner.invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert result.output.startswith("Error: ") and "Traceback" not in result.output
    result = runner.invoke(main, ["--ontology", str(FOLDER), "--sparql",
                                  "SELECT (COUNT(?p) AS ?n) WHERE { ?p a <http://orchard.example/onto#Plot> }"])
    assert result.exit_code == 0 and "2" in result.output


# ---- hardening: handler timeouts, JSON for every error status, readiness that reaches the model -------------------

def _raw(url: str, request: bytes, timeout: float = 10) -> bytes:
    """The raw bytes a request gets (http.client would refuse some of these requests)."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=timeout) as sock:
        sock.sendall(request)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def _parts(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return int(lines[0].split()[1]), headers, body


def test_every_error_status_is_json_also_those_http_server_makes(server_of) -> None:
    url = server_of(_Waiting())
    status, headers, body = _parts(_raw(url, b"GET /?question=" + b"x" * 70000 + b" HTTP/1.1\r\nHost: h\r\n\r\n"))
    assert status == 414 and headers["content-type"].startswith("application/json")
    assert json.loads(body) == {"error": "the request's URL is too long (a question has at most 2000 characters).",
                                "status": 414}
    status, headers, body = _parts(_raw(url, b"BREW /health HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"))
    assert status == 501 and json.loads(body)["status"] == 501 and "BREW" in json.loads(body)["error"]
    status, headers, body = _parts(_raw(url, b"GARBAGE\r\n\r\n"))
    assert status == 400 and json.loads(body)["status"] == 400
    status, headers, body = _parts(_raw(url, b"HEAD /health HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"))
    assert status == 200 and headers["content-type"].startswith("application/json") and body == b""
    status, headers, body = _parts(_raw(url, b"HEAD /nowhere HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"))
    assert status == 404 and body == b""


def test_an_idle_connection_is_closed_after_the_handler_timeout(server_of, monkeypatch) -> None:
    import socket
    import time
    from urllib.parse import urlsplit

    from ontouse import serve

    monkeypatch.setattr(serve._Handler, "timeout", 0.5)
    url = urlsplit(server_of(_Waiting()))
    assert serve.AnswerServer.request_queue_size == serve.BACKLOG >= 64
    with socket.create_connection((url.hostname, url.port), timeout=10) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""  # nothing sent: the server closes the connection
        assert time.monotonic() - started < 5


def test_health_reaches_the_model_and_503_says_when_to_retry(server_of) -> None:
    """A real OpenAI-compatible server that is up: ready; one that is down: 503 with Retry-After; a full queue too."""
    from fake_openai import FakeOpenAI, dead_url
    from ontocore.llm import OpenAIChat

    class OnServer(_Waiting):
        def __init__(self, base_url: str) -> None:
            super().__init__()
            self.model = OpenAIChat(model="m", base_url=base_url, api_key="sk-test", retries=0)

    with FakeOpenAI("script") as up:
        status, body = get(server_of(OnServer(up.base_url)) + "health")
        assert status == 200 and body["status"] == "ok"
    url = server_of(OnServer(dead_url()))
    with pytest.raises(urllib.error.HTTPError) as down:
        urllib.request.urlopen(url + "health", timeout=30)
    assert down.value.code == 503 and down.value.headers["Retry-After"] == "30"
    body = json.loads(down.value.read())
    assert body["status"] == 503 and "cannot reach the model server" in body["error"]

    answerer = _Waiting()
    url = server_of(answerer, queue_size=1)
    threads = [threading.Thread(target=lambda: get(url + query(question=q))) for q in ("one", "two")]
    threads[0].start()
    assert answerer.started.wait(30)
    threads[1].start()
    for _ in range(3000):
        if get(url + "health")[1]["waiting"] == 1:
            break
        threading.Event().wait(0.01)
    with pytest.raises(urllib.error.HTTPError) as busy:
        urllib.request.urlopen(url + query(question="three"), timeout=30)
    assert busy.value.code == 503 and busy.value.headers["Retry-After"] == "30"
    answerer.release.set()
    for t in threads:
        t.join(30)
