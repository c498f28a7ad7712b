"""A hostile or broken SPARQL endpoint, served for real on 127.0.0.1: redirects to another origin (credentials
never follow), a server that drips bytes (the deadline holds), a huge answer (memory bounded by the rows kept),
malformed results (clear errors), refused credentials (exit code 2)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ontocore.errors import OntoError
from ontouse.storage.endpoint import EndpointError, EndpointStore
from ontouse.storage.sparql import QueryError

ROW = {"s": {"type": "uri", "value": "http://example.org/a"}, "n": {"type": "literal", "value": "1"}}


class Hostile:
    """`behaviour(handler)` answers each request; every request's path and headers are recorded."""

    def __init__(self, behaviour: Any) -> None:
        self.seen: list[dict[str, str]] = []
        hostile = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                hostile.seen.append({"path": self.path, "auth": self.headers.get("Authorization", "")})
                try:
                    behaviour(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"

    def __enter__(self) -> "Hostile":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.shutdown()
        self.server.server_close()


def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
    h.send_response(status)
    h.send_header("Content-Type", "application/sparql-results+json")
    h.send_header("Content-Length", str(len(body)))
    for k, v in (headers or {}).items():
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(body)


def _results(rows: list[dict[str, Any]]) -> bytes:
    return json.dumps({"head": {"vars": ["s", "n"]}, "results": {"bindings": rows}}).encode()


def test_a_redirect_to_another_origin_is_refused_and_credentials_never_follow(monkeypatch) -> None:
    with Hostile(lambda h: _send(h, 200, _results([ROW]))) as other:
        with Hostile(lambda h: _send(h, 307, b"", {"Location": other.url})) as first:
            monkeypatch.setenv("ONTOASK_ENDPOINT_TOKEN", "tok-123")
            store = EndpointStore(first.url)
            with pytest.raises(EndpointError, match="redirected .* another origin|redirected"):
                store.select("SELECT ?s ?n WHERE { ?s ?p ?n }")
            assert first.seen[0]["auth"] == "Bearer tok-123" and other.seen == []


def test_a_same_origin_307_is_followed_and_a_303_refused() -> None:
    def behaviour(h: BaseHTTPRequestHandler) -> None:
        if h.path.endswith("/old"):
            _send(h, 307, b"", {"Location": "/sparql"})
        elif h.path.endswith("/gone"):
            _send(h, 303, b"", {"Location": "/sparql"})
        else:
            _send(h, 200, _results([ROW]))

    with Hostile(behaviour) as server:
        result = EndpointStore(server.url.replace("/sparql", "/old")).select("SELECT ?s ?n WHERE { ?s ?p ?n }")
        assert len(result.rows) == 1
        with pytest.raises(EndpointError, match="POST into a GET"):
            EndpointStore(server.url.replace("/sparql", "/gone")).select("SELECT ?s ?n WHERE { ?s ?p ?n }")


def test_a_dripping_endpoint_is_abandoned_at_the_deadline() -> None:
    def drip(h: BaseHTTPRequestHandler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/sparql-results+json")
        h.end_headers()
        for _ in range(60):
            h.wfile.write(b" ")
            h.wfile.flush()
            time.sleep(0.5)

    with Hostile(drip) as server:
        start = time.monotonic()
        with pytest.raises(QueryError, match="did not answer within 2 s"):
            EndpointStore(server.url).select("SELECT ?s ?n WHERE { ?s ?p ?n }", timeout_s=2)
        assert time.monotonic() - start < 3.0


def test_a_huge_answer_keeps_only_the_rows_asked_for() -> None:
    body = _results([ROW] * 200_000)  # about 20 MB
    with Hostile(lambda h: _send(h, 200, body)) as server:
        result = EndpointStore(server.url).select("SELECT ?s ?n WHERE { ?s ?p ?n }", max_rows=50, timeout_s=30)
        assert len(result.rows) == 50 and result.truncated and result.total == 200_000


@pytest.mark.parametrize("body,message", [
    (b"42", "malformed SPARQL JSON results"),
    (json.dumps({"head": {"vars": ["s"]}, "results": {"bindings": ["not an object"]}}).encode(), "a binding is str"),
    (b"<html>nope</html>", "did not answer with SPARQL JSON results"),
    (b'{"head": {"vars": ["s"]}, "results": {"bindings": [{"s": ', "malformed or truncated"),
])
def test_malformed_answers_are_clear_errors(body: bytes, message: str) -> None:
    with Hostile(lambda h: _send(h, 200, body)) as server:
        with pytest.raises(EndpointError, match=message):
            EndpointStore(server.url).select("SELECT ?s WHERE { ?s ?p ?o }")


@pytest.mark.parametrize("status", [401, 403, 404])
def test_refused_credentials_or_a_wrong_url_exit_2(status: int) -> None:
    with Hostile(lambda h: _send(h, status, b"denied")) as server:
        with pytest.raises(OntoError) as caught:
            EndpointStore(server.url).select("SELECT ?s WHERE { ?s ?p ?o }")
        assert caught.value.exit_code == 2 and f"HTTP {status}" in str(caught.value)


def test_a_password_in_the_url_never_reaches_a_message() -> None:
    from ontocore.redaction import redact

    with Hostile(lambda h: _send(h, 500, b"failure for pw x9z")) as server:
        url = server.url.replace("http://", "http://ann:x9z@")
        with pytest.raises(OntoError) as caught:
            EndpointStore(url).select("SELECT ?s WHERE { ?s ?p ?o }")
        assert "x9z" not in redact(str(caught.value)) and server.seen[0]["auth"].startswith("Basic ")


def test_escape_sequences_in_data_never_reach_the_terminal(tmp_path) -> None:
    """An ontology whose labels carry OSC (window title, clipboard) and CSI sequences: `--sparql` prints them
    escaped, in a pipe as on a TTY."""
    import subprocess
    import sys

    from ontouse.terminal import safe

    assert safe("a\x1b]0;owned\x07b\x1b[2Jc\x9bd\ne\tf") == "a\\x1b]0;owned\\x07b\\x1b[2Jc\\x9bd\ne\tf"
    onto = tmp_path / "evil.ttl"
    onto.write_text('@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n'
                    '<http://example.org/x> rdfs:label "shop\\u001b]52;c;ZXZpbA==\\u0007 \\u001b[31mred" .\n')
    out = subprocess.run([sys.executable, "-m", "ontouse", "--ontology", str(onto), "--sparql",
                          "SELECT ?l WHERE { ?s ?p ?l }"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "\x1b" not in out.stdout and "\\x1b]52" in out.stdout


def test_a_hanging_name_lookup_is_abandoned_at_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """The resolver itself stalls (a dead DNS server): the query still ends at --timeout."""
    import socket

    def stall(*args: Any, **kwargs: Any) -> list:
        time.sleep(10)
        return []

    monkeypatch.setattr(socket, "getaddrinfo", stall)
    start = time.monotonic()
    with pytest.raises(QueryError, match="did not answer within 1 s"):
        EndpointStore("http://sparql.invalid:7878/query").select("SELECT ?s WHERE { ?s ?p ?o }", timeout_s=1)
    assert time.monotonic() - start < 2.0
