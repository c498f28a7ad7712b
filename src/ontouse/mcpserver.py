"""`ontoask mcp`: the answerer as an MCP server on stdio (the official `mcp` Python SDK, extra `mcp`).

Tools:
- `ask(question)`: the answer record (answer, rows, SPARQL, support triples with their sources, cost), from
  SPARQL results only;
- `sparql(query, max_rows)`: one read-only SPARQL query (SELECT or ASK), checked and sandboxed like every query
  of the answerer (no updates, no SERVICE, no FROM; a time limit), as SPARQL 1.1 JSON results;
- `describe_schema()`: the classes with their instance counts and the properties their instances use (kind,
  datatype, linked class, counts, sample values): what to ask about, and the IRIs to write SPARQL with.

The protocol owns standard output: everything else (logs, and anything a native library prints) goes to
standard error. One tool call runs at a time (one model, one store)."""

from __future__ import annotations

import io
import logging
import os
import sys
import threading
from typing import Any, Callable, TypeVar

from ontocore.errors import OntoError
from ontocore.redaction import redact

from .api import Answerer

log = logging.getLogger(__name__)

T = TypeVar("T")

INSTRUCTIONS = ("Answers questions about one ontology (an RDF graph) from SPARQL results only. Call "
                "describe_schema to see its classes and properties, ask for a natural-language question (the "
                "answer comes with the SPARQL that produced it and the triples that support it), and sparql for "
                "a read-only SELECT or ASK query of your own.")


def _message(e: BaseException) -> str:
    if isinstance(e, OntoError):
        return redact(" ".join(str(e).split())) or type(e).__name__
    return f"internal error: {type(e).__name__}"


def require_sdk() -> None:
    """InputError when the MCP Python SDK is not installed."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        from ontocore.errors import InputError

        raise InputError("ontoask mcp needs the MCP Python SDK: pip install -e '.[mcp]' in your checkout of "
                         "ontobuild (or pip install mcp).")


def make_server(answerer: Answerer, timeout_s: float = 10.0, max_rows: int = 200) -> Any:
    """The FastMCP server with the three tools over `answerer`."""
    require_sdk()
    import anyio
    from mcp.server.fastmcp import FastMCP

    server = FastMCP("ontoask", instructions=INSTRUCTIONS)
    lock = threading.Lock()  # one model and one store: one call at a time
    row_cap = max_rows

    async def run(fn: Callable[[], T]) -> T:
        def guarded() -> T:
            with lock:
                return fn()

        try:
            return await anyio.to_thread.run_sync(guarded)
        except Exception as e:  # noqa: BLE001 - the client gets a message, never a traceback
            log.debug("tool failed", exc_info=True)
            raise ValueError(_message(e)) from None

    @server.tool(description="Answer a natural-language question about the ontology. Returns the answer record: "
                             "answer (text), state (answered, no_data or error), columns and rows, sparql (every "
                             "query that ran; the last produced the answer), support ([subject, predicate, object] "
                             "triples from the graph that back the answer) and sources (where each came from).")
    async def ask(question: str) -> dict[str, Any]:
        return await run(lambda: answerer.ask(question).to_dict())

    @server.tool(description="Run one read-only SPARQL query (SELECT or ASK) over the ontology. Updates, SERVICE and "
                             "FROM are refused; the query is stopped after a time limit. Returns SPARQL 1.1 JSON "
                             "results (with truncated and total for capped results). Common prefixes (rdf, rdfs, "
                             "owl, xsd, skos) and the ontology's own are predefined.")
    async def sparql(query: str, max_rows: int = 50) -> dict[str, Any]:
        from .storage.sparql import to_json

        rows = max(1, min(int(max_rows), row_cap))
        return await run(lambda: to_json(answerer.sparql(query, max_rows=rows, timeout_s=timeout_s)))

    @server.tool(description="Describe the ontology as classes (with IRI, label, instance count) and the properties "
                             "their instances use (IRI, value or link, datatype or linked class, counts, sample "
                             "values).")
    async def describe_schema() -> dict[str, Any]:
        return await run(answerer.describe_schema)

    return server


def protect_stdout() -> None:
    """Keep standard output for the protocol: the protocol gets a private copy of file descriptor 1 (as
    `sys.stdout`), and descriptor 1 itself is pointed at standard error, so that nothing else (a native
    library's prints) can write into the protocol stream."""
    sys.stdout.flush()
    protocol = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = io.TextIOWrapper(os.fdopen(protocol, "wb"), encoding="utf-8", line_buffering=True)


def run_stdio(answerer: Answerer, timeout_s: float = 10.0) -> None:
    """Serve `answerer` over MCP on stdio until the client closes the connection (call `protect_stdout()`
    first, before anything is loaded)."""
    server = make_server(answerer, timeout_s=timeout_s)
    log.info("MCP server on stdio: %d classes", len(answerer.schema.tables))
    server.run(transport="stdio")


__all__ = ["require_sdk", "make_server", "run_stdio", "protect_stdout", "INSTRUCTIONS"]
