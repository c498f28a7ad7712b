"""Run read-only SPARQL over a loaded graph, with a time limit and a row cap, and format the results.

Only SELECT and ASK queries run. CONSTRUCT and DESCRIBE are refused (the results of this tool are
tables; ``SELECT ?s ?p ?o`` gives the same triples); so are updates (INSERT, DELETE, LOAD, CLEAR, ...),
SERVICE (remote endpoints) and FROM / FROM NAMED (which would make rdflib fetch graphs from the web).
The prefixes rdf, rdfs, owl, xsd, skos plus every prefix bound in the graph are predeclared.

rdflib has no query timeout: the evaluation runs in a daemon thread and the caller stops waiting after
`timeout_s`; the abandoned thread finishes (or dies with the process) in the background."""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD
from rdflib.plugins.sparql import prepareQuery
from rdflib.term import Node

from ontobuild.errors import ToolArgumentError

log = logging.getLogger(__name__)

COMMON_PREFIXES = {"rdf": str(RDF), "rdfs": str(RDFS), "owl": str(OWL), "xsd": str(XSD), "skos": str(SKOS)}
_UPDATE_WORDS = ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY")
_GENERAL_HINT = ("check for a missing '.' between triple patterns, a variable without '?', unbalanced braces "
                 "or parentheses, a misspelled keyword, or a missing PREFIX declaration")


class QueryError(ToolArgumentError):
    """A SPARQL query that cannot or may not run; the message says what to change."""


@dataclass
class QueryResult:
    vars: list[str]
    rows: list[list[Node | None]]
    truncated: bool = False
    total: int = 0
    kind: str = "SELECT"  # "SELECT" | "ASK"
    boolean: bool | None = None  # the answer of an ASK query
    prefixes: dict[str, str] = field(default_factory=dict)  # prefix -> namespace, for shortening terms


# ---- checking -----------------------------------------------------------------------------------------
_STRIP = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'  # long strings
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'  # strings
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|<[^<>\"{}|^`\\\s]*>"  # IRIs
    r"|#[^\n]*",  # comments
    re.DOTALL,
)


def _keywords(query: str) -> set[str]:
    """Upper-cased bare words of the query outside strings, IRIs, comments, variables and prefixed names."""
    text = _STRIP.sub(" ", query)
    return {m.group(0).upper() for m in re.finditer(r"(?<![?$\w:.-])[A-Za-z]+(?![\w:-])", text)}


def check_read_only(query: str) -> None:
    """Raise QueryError for updates, SERVICE and FROM clauses."""
    words = _keywords(query)
    update = [w for w in _UPDATE_WORDS if w in words]
    if update:
        raise QueryError(f"{update[0]} is not allowed: this tool only reads the ontology (SELECT or ASK queries); "
                         "updates such as INSERT, DELETE, LOAD, CLEAR or DROP are refused.")
    if "SERVICE" in words:
        raise QueryError("SERVICE is not allowed: query only the loaded ontology, without remote endpoints.")
    if "FROM" in words:
        raise QueryError("FROM / FROM NAMED are not allowed: the query always runs over the loaded ontology; "
                         "remove the FROM clause.")


def _syntax_message(query: str, e: Exception, prefixes: dict[str, str]) -> str:
    unknown = re.search(r"Unknown namespace prefix : (\S*)", str(e))
    if unknown:
        known = ", ".join(f"{p}:" for p in sorted(prefixes)) or "none"
        return (f"SPARQL error: the prefix '{unknown.group(1)}:' is not declared. Declare it with "
                f"PREFIX {unknown.group(1)}: <namespace IRI>, or use one of the predeclared prefixes: {known}.")
    lineno, col = getattr(e, "lineno", None), getattr(e, "col", None)
    if lineno is None:
        return f"SPARQL error: {' '.join(str(e).split())[:300]}. Hint: {_GENERAL_HINT}."
    line = query.splitlines()[lineno - 1] if 0 < lineno <= len(query.splitlines()) else ""
    near = line[max(col - 1, 0):][:40].strip() or "the end of the query"
    hints = []
    if query.count("{") != query.count("}"):
        hints.append(f"the braces are unbalanced ({query.count('{')} '{{' and {query.count('}')} '}}')")
    if query.count("(") != query.count(")"):
        hints.append(f"the parentheses are unbalanced ({query.count('(')} '(' and {query.count(')')} ')')")
    if not hints:
        hints.append(_GENERAL_HINT)
    return (f"SPARQL syntax error at line {lineno}, column {col}, near \"{near}\" (line: {line.strip()[:120]!r}). "
            f"Hint: {'; '.join(hints)}.")


def prepare(query: str, prefixes: dict[str, str]):
    """Parse and check `query`; the prepared query or QueryError."""
    if not query or not query.strip():
        raise QueryError("the SPARQL query is empty.")
    check_read_only(query)
    try:
        prepared = prepareQuery(query, initNs=prefixes)
    except Exception as e:  # noqa: BLE001 - pyparsing and rdflib raise plain exceptions
        raise QueryError(_syntax_message(query, e, prefixes)) from None
    kind = prepared.algebra.name
    if kind in ("ConstructQuery", "DescribeQuery"):
        verb = kind.replace("Query", "").upper()
        raise QueryError(f"{verb} queries are not supported: use SELECT (for example SELECT ?s ?p ?o WHERE "
                         "{ ... }) or ASK.")
    if kind not in ("SelectQuery", "AskQuery"):
        raise QueryError(f"only SELECT and ASK queries are allowed, not {kind}.")
    if prepared.algebra.get("datasetClause"):
        raise QueryError("FROM / FROM NAMED are not allowed: remove the FROM clause.")
    return prepared


def graph_prefixes(graph: Graph) -> dict[str, str]:
    """Common prefixes plus the graph's own bindings (the graph's win on conflicts)."""
    out = dict(COMMON_PREFIXES)
    for prefix, ns in graph.namespaces():
        out[str(prefix)] = str(ns)
    return out


# ---- running -------------------------------------------------------------------------------------------
class _Cancelled(Exception):
    pass


class _CancellableGraph(Graph):
    """A view of `base` (same store) whose triple lookups stop once `cancel` is set, so that an
    abandoned query stops at its next join instead of running on in the background."""

    def __init__(self, base: Graph, cancel: threading.Event) -> None:
        super().__init__(store=base.store, identifier=base.identifier, namespace_manager=base.namespace_manager)
        self._cancel = cancel

    def triples(self, triple, *args, **kwargs):  # type: ignore[override]
        if self._cancel.is_set():
            raise _Cancelled()
        return super().triples(triple, *args, **kwargs)


def run_query(graph: Graph, query: str, max_rows: int = 50, timeout_s: float = 10,
              bindings: dict[str, Node] | None = None) -> QueryResult:
    """Run a read-only SELECT or ASK query; at most `max_rows` rows are kept (`truncated` says so).

    `bindings` gives values to variables of the query (rdflib initBindings), so that code never pastes
    values into query text. Raises QueryError for refused queries, syntax errors, evaluation errors and
    timeouts."""
    prefixes = graph_prefixes(graph)
    prepared = prepare(query, prefixes)
    box: dict[str, Any] = {}
    cancel = threading.Event()
    view = _CancellableGraph(graph, cancel)

    native = hasattr(graph.store, "_inner")  # an Oxigraph store runs the query text itself, natively

    def work() -> None:
        try:
            if native:
                result = graph.query(query, initNs=prefixes, initBindings=bindings or {})
            else:
                result = view.query(prepared, initBindings=bindings or None)
            if result.type == "ASK":
                box["ask"] = bool(result.askAnswer)
                return
            names = [str(v) for v in (result.vars or [])]
            rows, total = [], 0
            for row in result:
                total += 1
                if len(rows) < max_rows:
                    rows.append([row[i] if i < len(row) else None for i in range(len(names))])
            box["select"] = (names, rows, total)
        except _Cancelled:
            log.debug("abandoned query stopped")
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            box["error"] = e

    worker = threading.Thread(target=work, name="sparql-query", daemon=True)
    worker.start()
    worker.join(timeout_s)
    if worker.is_alive():
        cancel.set()
        raise QueryError(f"the query took longer than {timeout_s:g} s and was abandoned; add a LIMIT or narrow "
                         "it (more specific triple patterns first, fewer OPTIONALs, no unbounded ?s ?p ?o joins).")
    if "error" in box:
        e = box["error"]
        raise QueryError(f"the query failed while running: {' '.join(str(e).split())[:300] or type(e).__name__}.")
    if "ask" in box:
        return QueryResult(vars=[], rows=[], total=1, kind="ASK", boolean=box["ask"], prefixes=prefixes)
    names, rows, total = box["select"]
    return QueryResult(vars=names, rows=rows, truncated=total > len(rows), total=total, kind="SELECT",
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
