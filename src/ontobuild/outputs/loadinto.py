"""`ontobuild --load-into URL`: hand a finished outcome to a graph engine the user runs (QLever, Virtuoso, GraphDB,
Fuseki, Oxigraph server, ...) through the SPARQL 1.1 Graph Store HTTP Protocol.

The outcome's ontology file (ontology.nt for a big graph, else ontology.ttl) is sent as the body of one request,
streamed from the file: POST (the triples are added to the graph) or, with `replace`, PUT (the graph's content is
replaced), to `URL?graph=IRI` for a named graph or `URL?default` for the default graph. Credentials are the ones
`ontoask --endpoint` reads (ONTOASK_ENDPOINT_TOKEN, or ONTOASK_ENDPOINT_USER / ONTOASK_ENDPOINT_PASSWORD, or
user:password in the URL); they are never shown, and a redirect is followed only within the URL's origin and only
when it keeps the method (307/308), as for queries (ontouse.storage.endpoint)."""

from __future__ import annotations

import http.client
import logging
import time
import urllib.parse
from pathlib import Path
from typing import Any

from ontocore.credentials import auth_from_env, split_credentials
from ontocore.errors import EndpointError, InputError

log = logging.getLogger(__name__)

CONTENT_TYPES = {".nt": "application/n-triples", ".ttl": "text/turtle", ".owl": "application/rdf+xml"}
LOAD_FILES = ("ontology.nt", "ontology.ttl", "ontology.owl")


def outcome_file(outcome: str | Path) -> Path:
    """The file of an outcome that is loaded: its N-Triples, else its Turtle, else its RDF/XML."""
    outcome = Path(outcome)
    for name in LOAD_FILES:
        if (outcome / name).is_file():
            return outcome / name
    raise InputError(f"{outcome} holds none of {', '.join(LOAD_FILES)}; nothing to load.")


def target_url(url: str, graph: str | None) -> str:
    """The Graph Store request URL: `url?graph=IRI` (named graph) or `url?default` (default graph)."""
    parts = urllib.parse.urlsplit(url)
    query = parts.query + ("&" if parts.query else "")
    query += ("graph=" + urllib.parse.quote(graph, safe="")) if graph else "default"
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, query, ""))


def load_into(url: str, outcome: str | Path, graph: str | None = None, replace: bool = False,
              timeout_s: float = 600.0) -> dict[str, Any]:
    """Send the outcome's ontology file to the Graph Store at `url`; what was sent:
    {url (without credentials), graph, method, file, bytes, seconds, status}. EndpointError (no traceback) when the
    server cannot be reached or refuses."""
    if graph is not None and not urllib.parse.urlsplit(graph).scheme:
        raise InputError(f"--load-graph {graph!r} is not an absolute IRI (e.g. http://example.org/graphs/sales).")
    clean, url_auth = split_credentials(url)
    auth = auth_from_env() or url_auth
    path = outcome_file(outcome)
    ctype = CONTENT_TYPES[path.suffix]
    method = "PUT" if replace else "POST"
    size = path.stat().st_size
    headers = {"Content-Type": ctype, "Content-Length": str(size), "User-Agent": "ontobuild"}
    if auth:
        headers["Authorization"] = auth
    where = target_url(clean, graph)
    shown = f"{clean} ({'graph ' + graph if graph else 'default graph'})"
    start = time.monotonic()
    for _hop in range(4):
        parts = urllib.parse.urlsplit(where)
        conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = conn_cls(parts.hostname or "", parts.port, timeout=timeout_s)
        try:
            with open(path, "rb") as body:
                conn.request(method, urllib.parse.urlunsplit(("", "", parts.path or "/", parts.query, "")),
                             body=body, headers=headers)
                response = conn.getresponse()
            status, reason = response.status, response.reason
            detail = " ".join(response.read(2000).decode("utf-8", "replace").split())[:300]
            location = response.getheader("Location") or ""
        except (OSError, http.client.HTTPException) as e:
            raise EndpointError(f"the graph store {shown} cannot be reached ({type(e).__name__}: {e}). Is the "
                                "server running, and is this its Graph Store URL (for Oxigraph server: "
                                "http://HOST:PORT/store)?") from None
        finally:
            conn.close()
        if status in (301, 302, 303, 307, 308):
            there = urllib.parse.urlsplit(urllib.parse.urljoin(where, location))
            same = (parts.scheme, parts.hostname, parts.port) == (there.scheme, there.hostname, there.port)
            if same and status in (307, 308):
                where = urllib.parse.urlunsplit(there)
                continue
            to = urllib.parse.urlunsplit((there.scheme, there.hostname or "", there.path, "", ""))
            raise EndpointError(f"the graph store {shown} redirected (HTTP {status}) to {to}; give that URL with "
                                "--load-into" + (" (a redirect to another origin is never followed, so "
                                                 "credentials stay with the server you named)." if not same else
                                                 " (a redirect that changes the method would lose the data)."))
        if status >= 400:
            error = EndpointError(f"the graph store {shown} refused the {method} of {path.name} (HTTP {status} "
                                  f"{reason}){': ' + detail if detail else ''}. Check the URL (its Graph Store "
                                  "service), and the credentials in ONTOASK_ENDPOINT_TOKEN or ONTOASK_ENDPOINT_USER "
                                  "/ ONTOASK_ENDPOINT_PASSWORD. The outcome folder is complete; load it again "
                                  "with the same command.")
            if status in (401, 403, 404, 405, 407):
                error.exit_code = 2
            raise error
        seconds = round(time.monotonic() - start, 3)
        log.info("%s %s into %s: HTTP %s in %.1f s", method, path.name, shown, status, seconds)
        return {"url": clean, "graph": graph, "method": method, "file": path.name, "bytes": size,
                "seconds": seconds, "status": status}
    raise EndpointError(f"the graph store {shown} redirected too many times.")


__all__ = ["load_into", "outcome_file", "target_url"]
