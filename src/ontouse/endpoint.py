"""A remote SPARQL 1.1 endpoint as a `Store` (Fuseki, GraphDB, Virtuoso, Oxigraph server, QLever, ...).

Read-only by construction: a query is parsed and checked here first (only SELECT and ASK, no SERVICE, no FROM,
decided on its algebra; `querycheck.check_query`), and its text as checked (escapes decoded) is sent to the
endpoint's *query* operation of the SPARQL 1.1 Protocol, which cannot update. Variable bindings travel as a VALUES
clause appended to the query (values are never pasted into the query's patterns). Credentials come from the
environment (`ONTOASK_ENDPOINT_TOKEN` for a bearer token, or `ONTOASK_ENDPOINT_USER` and
`ONTOASK_ENDPOINT_PASSWORD`, or user:password in the URL) and are never logged or shown: every message names the
endpoint by its URL without credentials."""

from __future__ import annotations

import base64
import json
import logging
import os
import re
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from rdflib import BNode, Literal, URIRef
from rdflib.term import Node

from ontobuild.errors import InputError, OntoError

from .sparql import COMMON_PREFIXES, QueryError, QueryResult, check_query

log = logging.getLogger(__name__)

MAX_RESPONSE_BYTES = 256 << 20
RESULTS_JSON = "application/sparql-results+json"


class EndpointError(OntoError):
    """The endpoint cannot be reached or does not answer as a SPARQL endpoint (exit code 1)."""


def split_credentials(url: str) -> tuple[str, str | None]:
    """The URL without user:password, and a Basic authorization header value when the URL held them."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError(f"--endpoint must be an http(s) URL of a SPARQL query service, not {url!r}.")
    if parts.username is None:
        return url, None
    netloc = parts.hostname + (f":{parts.port}" if parts.port else "")
    clean = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    return clean, "Basic " + base64.b64encode(pair.encode()).decode()


def _auth_from_env() -> str | None:
    token = os.environ.get("ONTOASK_ENDPOINT_TOKEN")
    if token:
        return f"Bearer {token}"
    user = os.environ.get("ONTOASK_ENDPOINT_USER")
    if user:
        pair = f"{user}:{os.environ.get('ONTOASK_ENDPOINT_PASSWORD', '')}"
        return "Basic " + base64.b64encode(pair.encode()).decode()
    return None


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
        self._auth = _auth_from_env() or url_auth
        self.graph = graph
        self.prefixes = dict(COMMON_PREFIXES, **(prefixes or {}))
        self.requests = 0
        self.seconds = 0.0

    def __repr__(self) -> str:
        return f"EndpointStore({self.url!r}, graph={self.graph!r})"

    def _post(self, query: str, timeout_s: float) -> dict[str, Any]:
        form = {"query": query}
        if self.graph:
            form["default-graph-uri"] = self.graph
        headers = {"Accept": RESULTS_JSON, "Content-Type": "application/x-www-form-urlencoded",
                   "User-Agent": "ontoask"}
        if self._auth:
            headers["Authorization"] = self._auth
        request = urllib.request.Request(self.url, data=urllib.parse.urlencode(form).encode(), headers=headers,
                                         method="POST")
        start = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310 - http(s) only
                body = response.read(MAX_RESPONSE_BYTES + 1)
        except urllib.error.HTTPError as e:
            detail = " ".join(e.read(2000).decode("utf-8", "replace").split())[:300]
            if e.code not in (401, 403, 404, 407) and 400 <= e.code < 600 and detail:  # the query's own error
                raise QueryError(f"the endpoint could not run the query (HTTP {e.code}): {detail}") from None
            raise EndpointError(f"the SPARQL endpoint {self.url} answered HTTP {e.code} {e.reason}"
                                f"{': ' + detail if detail else ''}. Check the URL (its query service), "
                                "and the credentials in ONTOASK_ENDPOINT_TOKEN or ONTOASK_ENDPOINT_USER / "
                                "ONTOASK_ENDPOINT_PASSWORD.") from None
        except (socket.timeout, TimeoutError):
            raise QueryError(f"the endpoint did not answer within {timeout_s:g} s; narrow the query.") from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            raise EndpointError(f"the SPARQL endpoint {self.url} cannot be reached ({reason}). Is the server "
                                "running, and is this its query URL?") from None
        finally:
            self.requests += 1
            self.seconds += time.monotonic() - start
        if len(body) > MAX_RESPONSE_BYTES:
            raise QueryError(f"the endpoint's answer is larger than {MAX_RESPONSE_BYTES >> 20} MB; add a LIMIT.")
        try:
            return json.loads(body)
        except (ValueError, UnicodeDecodeError):
            raise EndpointError(f"{self.url} did not answer with SPARQL JSON results; is it a SPARQL query "
                                "endpoint?") from None

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = 20.0,
               bindings: dict[str, Node] | None = None) -> QueryResult:
        checked = check_query(query, self.prefixes)  # read-only check (on the algebra) and syntax errors
        is_ask, query = checked.kind == "ASK", checked.text  # the text checked is the text sent
        declared = "".join(f"PREFIX {p}: <{ns}>\n" for p, ns in self.prefixes.items())
        bindings = {k: t for k, t in (bindings or {}).items() if t is not None}
        text = declared + (with_values(query, bindings) if bindings else query)
        data = self._post(text, timeout_s)
        if "boolean" in data or is_ask:
            return QueryResult(vars=[], rows=[], total=1, kind="ASK", boolean=_boolean(data), prefixes=self.prefixes)
        try:
            names = list(data["head"]["vars"])
            found = data["results"]["bindings"]
            rows = [[term_of(b[v]) if v in b else None for v in names] for b in found[:max_rows]]
        except (KeyError, TypeError, ValueError) as e:
            raise EndpointError(f"{self.url} answered with malformed SPARQL JSON results ({e}).") from None
        return QueryResult(vars=names, rows=rows, truncated=len(found) > max_rows, total=len(found),
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
