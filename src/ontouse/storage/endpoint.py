"""A remote SPARQL 1.1 endpoint as a `Store` (Fuseki, GraphDB, Virtuoso, Oxigraph server, QLever, ...).

Read-only by construction: a query is parsed and checked here first (only SELECT and ASK, no SERVICE, no FROM,
decided on its algebra; `querycheck.check_query`), and its text as checked (escapes decoded) is sent to the
endpoint's *query* operation of the SPARQL 1.1 Protocol, which cannot update. Variable bindings travel as a VALUES
clause appended to the query (values are never pasted into the query's patterns). Credentials come from the
environment (`ONTOASK_ENDPOINT_TOKEN` for a bearer token, or `ONTOASK_ENDPOINT_USER` and
`ONTOASK_ENDPOINT_PASSWORD`, or user:password in the URL) and are never logged or shown: every message names the
endpoint by its URL without credentials."""

from __future__ import annotations

import http.client
import json
import logging
import re
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from ontocore.credentials import auth_from_env, split_credentials
from ontocore.errors import EndpointError

from .sparql import COMMON_PREFIXES, QueryError, QueryResult, check_query

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 256 << 20
RESULTS_JSON = "application/sparql-results+json"


def _connection(url: str, deadline: float) -> http.client.HTTPConnection:
    parts = urllib.parse.urlsplit(url)
    timeout = max(0.05, deadline - time.monotonic())
    if parts.scheme == "https":
        return http.client.HTTPSConnection(parts.hostname or "", parts.port, timeout=timeout)
    return http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=timeout)


def _connect(conn: http.client.HTTPConnection, deadline: float) -> None:
    """Open `conn` within the deadline, the name lookup included (a resolver that hangs would otherwise hold the
    query past --timeout: the lookup runs in a thread that is abandoned at the deadline)."""
    port = conn.port or (443 if isinstance(conn, http.client.HTTPSConnection) else 80)
    found: list[Any] = []
    failed: list[BaseException] = []

    def lookup() -> None:
        try:
            found.extend(socket.getaddrinfo(conn.host, port, type=socket.SOCK_STREAM))
        except OSError as e:
            failed.append(e)

    worker = threading.Thread(target=lookup, daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if failed:
        raise failed[0]
    if not found:
        raise socket.timeout(f"looking up {conn.host} took past the deadline")
    error: OSError | None = None
    for family, kind, proto, _, address in found:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            sock.connect(address)
        except OSError as e:
            sock.close()
            error = e
            continue
        if isinstance(conn, http.client.HTTPSConnection):
            import ssl

            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=conn.host)
        conn.sock = sock
        return
    raise error or OSError(f"cannot connect to {conn.host}")


def _close(sockets: list[socket.socket]) -> None:
    """The deadline watchdog: shut the socket so that a blocked read returns at once."""
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


_BINDINGS = re.compile(rb'"bindings"\s*:\s*\[')


def _read_results(response: http.client.HTTPResponse, max_rows: int, url: str,
                  deadline: float = float("inf")) -> dict[str, Any]:
    """SPARQL JSON results read as they stream: the head and the first `max_rows` bindings are kept, the rest
    only counted, so memory is bounded by the rows kept, not by the size of the answer."""
    buffer = b""
    data: dict[str, Any] | None = None
    kept: list[Any] = []
    total = 0
    received = 0
    decoder = json.JSONDecoder()
    state = "head"
    text = ""
    while True:
        chunk = response.read1(1 << 16) if hasattr(response, "read1") else response.read(1 << 16)
        if not chunk and time.monotonic() >= deadline - 0.05:
            raise TimeoutError("deadline")  # the watchdog closed the connection
        received += len(chunk)
        if received > MAX_RESPONSE_BYTES and state != "rows":
            raise QueryError(f"the endpoint's answer is larger than {MAX_RESPONSE_BYTES >> 20} MB before its "
                             "rows; add a LIMIT.")
        buffer += chunk
        if state == "head":
            m = _BINDINGS.search(buffer)
            if m is None and chunk:
                continue
            if m is None:  # the whole answer without a bindings array: ASK, or malformed
                return _whole(buffer, url)
            prefix = buffer[:m.end()]
            buffer = buffer[m.end():]
            state = "rows"
            try:
                data = json.loads(prefix.decode("utf-8") + "]}}" if prefix.count(b"{") - prefix.count(b"}") >= 2
                                  else prefix.decode("utf-8") + "]}")
            except ValueError:
                data = None
            text = ""
        if state == "rows":
            text += buffer.decode("utf-8", "ignore") if chunk or buffer else ""
            buffer = b""
            pos = 0
            while True:
                while pos < len(text) and text[pos] in " \t\r\n,":
                    pos += 1
                if pos < len(text) and text[pos] == "]":
                    state = "done"
                    break
                try:
                    obj, end = decoder.raw_decode(text, pos)
                except ValueError:
                    break
                if not isinstance(obj, dict):
                    raise EndpointError(f"{url} answered with malformed SPARQL JSON results (a binding is "
                                        f"{type(obj).__name__}, not an object).")
                total += 1
                if len(kept) < max_rows:
                    kept.append(obj)
                pos = end
            text = text[pos:]
        if state == "done" or not chunk:
            break
    if state != "done":
        raise EndpointError(f"{url} answered with malformed or truncated SPARQL JSON results.")
    if not isinstance(data, dict) or not isinstance(data.get("head"), dict):
        data = {"head": {"vars": sorted({k for b in kept for k in b})}}
    data["results"] = {"bindings": kept}
    data["_total"] = total
    return data


def _whole(body: bytes, url: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise EndpointError(f"{url} did not answer with SPARQL JSON results; is it a SPARQL query "
                            "endpoint?") from None
    if not isinstance(data, dict) or not ("boolean" in data or "results" in data):
        raise EndpointError(f"{url} answered with malformed SPARQL JSON results (a {type(data).__name__}, "
                            "not a results object).")
    return data


def term_of(value: dict[str, Any]) -> Node:
    """An rdflib term from one binding of SPARQL 1.1 JSON results."""
    kind, text = value.get("type"), value.get("value", "")
    if kind == "uri":
        return URIRef(text)
    if kind == "bnode":
        return BNode(text)
    if kind in ("literal", "typed-literal"):
        lang = value.get("xml:lang")
        return Literal(text, lang=lang) if lang else Literal(text, datatype=value.get("datatype"))
    raise ValueError(f"unknown term type {kind!r}")


_WHERE = re.compile(r"\b(?:WHERE|ASK)\s*\{", re.IGNORECASE)


def with_values(query: str, bindings: dict[str, Node]) -> str:
    """The query with `VALUES (?a ?b) { (<x> "y") }` opening its WHERE group: bindings as data, never pasted
    into its patterns (inside the group rather than after the query: some engines, such as Virtuoso 7, accept
    only that form)."""
    names = " ".join(f"?{k}" for k in bindings)
    terms = " ".join(t.n3() for t in bindings.values())
    block = f" VALUES ({names}) {{ ({terms}) }} "
    m = _WHERE.search(query)
    return query[:m.end()] + block + query[m.end():] if m else query + "\n" + block


def _boolean(data: dict[str, Any]) -> bool:
    """An ASK answer: `boolean`, or (Virtuoso) one row whose one value is 1 or 0."""
    if "boolean" in data:
        return bool(data["boolean"])
    try:
        row = data["results"]["bindings"][0]
        return next(iter(row.values()))["value"] not in ("0", "false", "")
    except (KeyError, IndexError, StopIteration, TypeError):
        return False


def wait_ready(url: str, timeout_s: float = 30.0) -> bool:
    """Whether a SPARQL endpoint answers a trivial query within `timeout_s` (e.g. a server just started)."""
    probe = url + ("&" if "?" in url else "?") + "query=ASK%7B%7D"
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(probe, timeout=2) as response:  # noqa: S310 - http(s) only
                response.read()
            return True
        except OSError:
            time.sleep(0.2)
    return False


class EndpointStore:
    """SELECT and ASK over a SPARQL 1.1 endpoint (optionally restricted to one named graph)."""

    def __init__(self, url: str, graph: str | None = None, prefixes: dict[str, str] | None = None) -> None:
        self.url, url_auth = split_credentials(url)
        self._auth = auth_from_env() or url_auth
        self.graph = graph
        self.prefixes = dict(COMMON_PREFIXES, **(prefixes or {}))
        self.requests = 0
        self.seconds = 0.0

    def __repr__(self) -> str:
        return f"EndpointStore({self.url!r}, graph={self.graph!r})"

    def _post(self, query: str, timeout_s: float, max_rows: int = 1000) -> dict[str, Any]:
        """POST the query; the whole exchange (connect, headers, body) is bounded by `timeout_s` (a watchdog
        closes the connection at the deadline, so a server that drips bytes cannot hold it), redirects are
        followed only within the endpoint's origin and only when they keep the POST (307/308), and the answer is
        parsed as it streams, keeping at most `max_rows` bindings in memory."""
        form = {"query": query}
        if self.graph:
            form["default-graph-uri"] = self.graph
        body = urllib.parse.urlencode(form).encode()
        headers = {"Accept": RESULTS_JSON, "Content-Type": "application/x-www-form-urlencoded",
                   "User-Agent": "ontoask"}
        if self._auth:
            headers["Authorization"] = self._auth
        start = time.monotonic()
        deadline = start + timeout_s
        url = self.url
        try:
            for _hop in range(4):
                conn = _connection(url, deadline)
                watched: list[socket.socket] = []
                timer = threading.Timer(max(0.0, deadline - time.monotonic()), _close, (watched,))
                timer.daemon = True
                timer.start()
                try:
                    _connect(conn, deadline)
                    if conn.sock is not None:
                        watched.append(conn.sock)  # the response may keep the socket after conn lets go
                    parts = urllib.parse.urlsplit(url)
                    conn.request("POST", urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")),
                                 body=body, headers=headers)
                    response = conn.getresponse()
                    if response.status in (301, 302, 303, 307, 308):
                        url = self._redirect(url, response)
                        continue
                    if response.status >= 400:
                        self._http_error(response)
                    return _read_results(response, max_rows, self.url, deadline)
                except (OSError, http.client.HTTPException, ValueError) as e:
                    if time.monotonic() >= deadline - 0.01:
                        raise QueryError(f"the endpoint did not answer within {timeout_s:g} s; narrow the query, "
                                         "or raise --timeout.") from None
                    if isinstance(e, ValueError):
                        raise
                    raise EndpointError(f"the SPARQL endpoint {self.url} cannot be reached ({type(e).__name__}: "
                                        f"{e}). Is the server running, and is this its query URL?") from None
                finally:
                    timer.cancel()
                    conn.close()
            raise EndpointError(f"the SPARQL endpoint {self.url} redirected too many times.")
        finally:
            self.requests += 1
            self.seconds += time.monotonic() - start

    def _redirect(self, url: str, response: http.client.HTTPResponse) -> str:
        """Where a redirect may be followed: the same origin (scheme, host, port) and a 307/308 that keeps the
        POST; anything else is refused with the place it pointed to (credentials never leave the origin)."""
        location = urllib.parse.urljoin(url, response.getheader("Location") or "")
        here, there = urllib.parse.urlsplit(url), urllib.parse.urlsplit(location)
        same = (here.scheme, here.hostname, here.port) == (there.scheme, there.hostname, there.port)
        if same and response.status in (307, 308):
            return location
        shown = urllib.parse.urlunsplit((there.scheme, there.hostname or "", there.path, "", ""))
        raise EndpointError(f"the SPARQL endpoint {self.url} redirected (HTTP {response.status}) to {shown}; "
                            + ("give that URL with --endpoint (a redirect to another origin is never followed, "
                               "so credentials stay with the endpoint you named)." if not same else
                               "a redirect that turns the query's POST into a GET would lose the query; give "
                               "that URL with --endpoint."))

    def _http_error(self, response: http.client.HTTPResponse) -> None:
        detail = " ".join(response.read(2000).decode("utf-8", "replace").split())[:300]
        code = response.status
        if code not in (401, 403, 404, 407) and 400 <= code < 600 and detail:  # the query's own error
            raise QueryError(f"the endpoint could not run the query (HTTP {code}): {detail}")
        error = EndpointError(f"the SPARQL endpoint {self.url} answered HTTP {code} {response.reason}"
                              f"{': ' + detail if detail else ''}. Check the URL (its query service), and the "
                              "credentials in ONTOASK_ENDPOINT_TOKEN or ONTOASK_ENDPOINT_USER / "
                              "ONTOASK_ENDPOINT_PASSWORD.")
        if code in (401, 403, 404, 407):
            error.exit_code = 2  # the user's URL or credentials: a usage error, as the README's table says
        raise error

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = 20.0,
               bindings: dict[str, Node] | None = None) -> QueryResult:
        checked = check_query(query, self.prefixes)  # read-only check (on the algebra) and syntax errors
        is_ask, query = checked.kind == "ASK", checked.text  # the text checked is the text sent
        declared = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in self.prefixes.items())
        bindings = {k: t for k, t in (bindings or {}).items() if t is not None}
        text = declared + (with_values(query, bindings) if bindings else query)
        data = self._post(text, timeout_s, max_rows)
        if "boolean" in data or is_ask:
            return QueryResult(vars=[], rows=[], total=1, kind="ASK", boolean=_boolean(data), prefixes=self.prefixes)
        try:
            names = [str(v) for v in data["head"]["vars"]]
            found = data["results"]["bindings"]
            rows = [[term_of(b[v]) if v in b else None for v in names] for b in found[:max_rows]]
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise EndpointError(f"{self.url} answered with malformed SPARQL JSON results "
                                f"({type(e).__name__}: {e}).") from None
        total = data.get("_total", len(found))
        return QueryResult(vars=names, rows=rows, truncated=total > max_rows, total=total,
                           kind="SELECT", prefixes=self.prefixes)

    def learn_prefixes(self, timeout_s: float = 10.0) -> None:
        """Short names for display: the namespaces of the predicates in use ("" for the most used one outside
        the common vocabularies), as a local file's prefixes would give. Skipped if the endpoint is slow."""
        try:
            result = self.select("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p", max_rows=2000,
                                 timeout_s=timeout_s)
        except QueryError as e:
            log.info("prefixes not learnt from %s: %s", self.url, e)
            return
        counts: dict[str, int] = {}
        for p, n in result.rows:
            text = str(p)
            cut = max(text.rfind("#"), text.rfind("/"))
            if cut > 0 and isinstance(p, URIRef):
                counts[text[:cut + 1]] = counts.get(text[:cut + 1], 0) + int(n or 0)
        known = set(self.prefixes.values())
        fresh = sorted((ns for ns in counts if ns not in known), key=lambda ns: -counts[ns])
        for i, ns in enumerate(fresh[:20]):
            self.prefixes["" if i == 0 else f"ns{i}"] = ns

    def contains(self, triple: tuple[Node, Node, Node]) -> bool:
        # a blank node's label is not stable across requests to an endpoint: it stays a variable
        bound = {k: t for k, t in zip("spo", triple) if not isinstance(t, BNode)}
        result = self.select("ASK { ?s ?p ?o }", bindings=bound)
        return bool(result.boolean)

    def size(self) -> int:
        result = self.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
        return int(result.rows[0][0]) if result.rows and result.rows[0][0] is not None else 0


__all__ = ["EndpointStore", "EndpointError", "term_of", "with_values", "wait_ready"]
