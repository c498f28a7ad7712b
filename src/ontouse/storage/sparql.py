"""Run read-only SPARQL over a loaded graph, with a time limit and a row cap, and format the results.

Only SELECT and ASK queries run. CONSTRUCT and DESCRIBE are refused (the results of this tool are
tables; ``SELECT ?s ?p ?o`` gives the same triples); so are updates (INSERT, DELETE, LOAD, CLEAR, ...),
SERVICE (remote endpoints) and FROM / FROM NAMED (which would make rdflib fetch graphs from the web): the
parsed algebra decides (`querycheck.py`). The prefixes rdf, rdfs, owl, xsd, skos plus every prefix bound in
the graph are predeclared.

Neither rdflib nor the embedded Oxigraph store can stop a running query, so every query runs in a forked child
process (`sandbox.py`) that is killed when its time is up. The child streams the solutions: it keeps the first
`max_rows` and only counts the others, so a query with a million solutions costs no memory for them."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from rdflib import BNode, Graph, Literal, URIRef, Variable
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD
from rdflib.term import Node

from .querycheck import QueryError, check_query, check_read_only, decode_escapes, prepare  # noqa: F401 - re-exported
from .sandbox import ChildFailed, TimedOut, Worker, call_isolated

log = logging.getLogger(__name__)

COMMON_PREFIXES = {"rdf": str(RDF), "rdfs": str(RDFS), "owl": str(OWL), "xsd": str(XSD), "skos": str(SKOS)}


@dataclass
class QueryResult:
    vars: list[str]
    rows: list[list[Node | None]]
    truncated: bool = False
    total: int = 0
    kind: str = "SELECT"  # "SELECT" | "ASK"
    boolean: bool | None = None  # the answer of an ASK query
    prefixes: dict[str, str] = field(default_factory=dict)  # prefix -> namespace, for shortening terms


def graph_prefixes(graph: Graph) -> dict[str, str]:
    """Common prefixes plus the graph's own bindings (the graph's win on conflicts)."""
    out = dict(COMMON_PREFIXES)
    for prefix, ns in graph.namespaces():
        out[str(prefix)] = str(ns)
    return out


# ---- running -------------------------------------------------------------------------------------------
def _native_solutions(graph: Graph, text: str, prefixes: dict[str, str],
                      bindings: dict[str, Node]) -> tuple[str, list[str], Any]:
    """Run `text` on the Oxigraph store under `graph` (as oxrdflib's store.query does, but without rdflib's
    Result, which keeps every solution): (kind, variable names, boolean or an iterator of rows, whose terms
    are made rdflib terms only for the rows kept)."""
    import pyoxigraph as ox
    from oxrdflib._converter import from_ox, to_ox

    store = graph.store
    inner = store._inner  # type: ignore[attr-defined]
    union = getattr(graph, "default_union", False)
    result = inner.query(text, use_default_graph_as_union=union,
                         default_graph=None if union else to_ox(graph.identifier),
                         prefixes=dict(getattr(store, "_namespace_for_prefix", {}), **prefixes),
                         substitutions={ox.Variable(k): to_ox(v) for k, v in bindings.items()})
    if isinstance(result, ox.QueryBoolean):
        return "ASK", [], bool(result)
    names = [v.value for v in result.variables]

    def row(solution: Any) -> list[Node | None]:
        return [None if (t := solution[i]) is None else from_ox(t) for i in range(len(names))]

    return "SELECT", names, _Lazy(result, row)


def _rdflib_solutions(graph: Graph, prepared: Any, bindings: dict[str, Node]) -> tuple[str, list[str], Any]:
    """Run `prepared` with rdflib's evaluator, streaming (rdflib's Result would keep every solution)."""
    from rdflib.plugins.sparql.evaluate import evalQuery

    res = evalQuery(graph, prepared, bindings or None)
    if res["type_"] == "ASK":
        return "ASK", [], bool(res["askAnswer"])
    variables = [Variable(str(v)) for v in (res.get("vars_") or [])]

    def rows() -> Iterator[list[Node | None]]:
        for solution in res["bindings"]:
            yield [solution.get(v) for v in variables]

    return "SELECT", [str(v) for v in variables], rows()


def _evaluate(graph: Graph, query: str, prefixes: dict[str, str], max_rows: int,
              bindings: dict[str, Node]) -> tuple[str, list[str], Any, int]:
    """Check `query`, then run the text checked; (kind, names, boolean or the first `max_rows` rows, total).
    Runs in the child, so that the time limit also bounds parsing (a long query can take rdflib minutes)."""
    checked = check_query(query, prefixes)
    try:
        if hasattr(graph.store, "_inner"):  # an Oxigraph store runs the checked text natively
            kind, names, out = _native_solutions(graph, checked.text, prefixes, bindings)
        else:  # rdflib evaluates its parse of the same text
            kind, names, out = _rdflib_solutions(graph, checked.prepared, bindings)
        if kind == "ASK":
            return kind, names, out, 1
        rows, total = _first(out, max_rows)
    except Exception as e:  # noqa: BLE001 - engines raise many kinds of errors
        raise QueryError(f"the query failed while running: {' '.join(str(e).split())[:300] or type(e).__name__}.")
    return kind, names, rows, total


def _warm_parser() -> None:
    """Parse a tiny query here before forking: a child that parses first (rdflib builds and caches parts of its
    parser on first use) pays for it on every fork, up to a second in a process holding a large store."""
    check_query("ASK { ?s ?p ?o }", COMMON_PREFIXES)


@dataclass
class _Lazy:
    """Solutions made rows only when kept."""

    solutions: Iterable[Any]
    row: Callable[[Any], list[Node | None]]


def _first(rows: Iterable[list[Node | None]] | _Lazy, keep: int) -> tuple[list[list[Node | None]], int]:
    """The first `keep` rows and the number of rows; the others are counted, not kept."""
    solutions, row = (rows.solutions, rows.row) if isinstance(rows, _Lazy) else (rows, None)
    kept: list[Any] = []
    total = 0
    for solution in solutions:
        total += 1
        if total <= keep:
            kept.append(row(solution) if row else solution)
    return kept, total


def query_worker(graph: Graph) -> Worker:
    """A long-lived child process that runs queries over `graph` as it is now (see `sandbox.Worker`)."""
    return Worker(lambda request: _evaluate(graph, *request))


def run_query(graph: Graph, query: str, max_rows: int = 50, timeout_s: float = 10,
              bindings: dict[str, Node] | None = None, worker: Worker | None = None) -> QueryResult:
    """Run a read-only SELECT or ASK query; at most `max_rows` rows are kept (`truncated` says so).

    `bindings` gives values to variables of the query (rdflib initBindings), so that code never pastes
    values into query text. The query is checked and run in a child process killed after `timeout_s`: a fresh
    fork of this process, or `worker` (from `query_worker(graph)`), which saves the fork on every query.
    Raises QueryError for refused queries, syntax errors, evaluation errors and timeouts."""
    prefixes = graph_prefixes(graph)
    values = {k: v for k, v in (bindings or {}).items() if v is not None}
    try:
        if worker is None or worker.pid is None:
            _warm_parser()
        if worker is not None:
            kind, names, out, total = worker.call((query, prefixes, max_rows, values), timeout_s)
        else:
            kind, names, out, total = call_isolated(
                lambda: _evaluate(graph, query, prefixes, max_rows, values), timeout_s)
    except TimedOut:
        raise QueryError(f"the query took longer than {timeout_s:g} s and was abandoned; add a LIMIT or narrow "
                         "it (more specific triple patterns first, fewer OPTIONALs, no unbounded ?s ?p ?o joins)."
                         ) from None
    except ChildFailed as e:
        raise QueryError(f"the query failed while running: {e} (out of memory?); narrow it or add a LIMIT."
                         ) from None
    if kind == "ASK":
        return QueryResult(vars=[], rows=[], total=1, kind="ASK", boolean=out, prefixes=prefixes)
    return QueryResult(vars=names, rows=out, truncated=total > len(out), total=total, kind="SELECT",
                       prefixes=prefixes)


# ---- formatting ----------------------------------------------------------------------------------------
_LOCAL = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def shorten(term: Node | None, prefixes: dict[str, str]) -> str:
    """A compact text form of a term: prefix:local for IRIs in a known namespace, the lexical form of
    literals (with @lang), _:id for blank nodes, '' for unbound."""
    if term is None:
        return ""
    if isinstance(term, URIRef):
        text = str(term)
        best = ""
        best_prefix = None
        for prefix, ns in prefixes.items():
            if ns and text.startswith(ns) and len(ns) > len(best) and _LOCAL.match(text[len(ns):]):
                best, best_prefix = ns, prefix
        return f"{best_prefix}:{text[len(best):]}" if best_prefix is not None else f"<{text}>"
    if isinstance(term, Literal):
        text = str(term).replace("\r", "").replace("\n", "\\n").replace("\t", " ")
        return f"{text}@{term.language}" if term.language else text
    if isinstance(term, BNode):
        return f"_:{term}"
    return str(term)


def format_table(result: QueryResult, max_cell: int | None = None) -> str:
    """An aligned text table (or yes/no for ASK), with a footer giving the row count."""
    if result.kind == "ASK":
        return "true" if result.boolean else "false"
    if not result.vars:
        return f"(no variables; {result.total} row(s))"
    cells = [[shorten(t, result.prefixes) for t in row] for row in result.rows]
    if max_cell:
        cells = [[c if len(c) <= max_cell else c[: max_cell - 1] + "…" for c in row] for row in cells]
    header = [f"?{v}" for v in result.vars]
    widths = [max([len(header[i])] + [len(r[i]) for r in cells]) for i in range(len(header))]
    lines = [" | ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
             "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    if result.truncated:
        lines.append(f"({len(result.rows)} of {result.total} rows shown; add LIMIT or narrow the query)")
    else:
        lines.append(f"({result.total} row{'s' if result.total != 1 else ''})")
    return "\n".join(lines)


def term_json(term: Node) -> dict[str, str]:
    """A term in the SPARQL 1.1 JSON results form."""
    if isinstance(term, URIRef):
        return {"type": "uri", "value": str(term)}
    if isinstance(term, BNode):
        return {"type": "bnode", "value": str(term)}
    out = {"type": "literal", "value": str(term)}
    if isinstance(term, Literal):
        if term.language:
            out["xml:lang"] = term.language
        elif term.datatype is not None:
            out["datatype"] = str(term.datatype)
    return out


def to_json(result: QueryResult) -> dict[str, Any]:
    """SPARQL 1.1 JSON results, plus "truncated" and "total" for capped SELECT results."""
    if result.kind == "ASK":
        return {"head": {}, "boolean": bool(result.boolean)}
    bindings = [{v: term_json(t) for v, t in zip(result.vars, row) if t is not None} for row in result.rows]
    return {"head": {"vars": result.vars}, "results": {"bindings": bindings},
            "truncated": result.truncated, "total": result.total}
