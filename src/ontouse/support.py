"""Support sets: the triples that back an answer, from the evidence query of the plan that produced it.

The compiled plan carries an evidence query (the same graph pattern and filters, projecting every variable,
restricted like the answer: the same order and limit for a superlative, a few rows otherwise) and the triple
patterns of the plan. Each evidence row instantiates the patterns into triples; every triple is checked to be
in the graph exactly as written (`Store.contains`) before it is shown, and rendered with prefixed names."""

from __future__ import annotations

import logging

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import RDF
from rdflib.term import Node
from rdflib.util import from_n3

from .storage.sparql import QueryError, shorten
from .storage.store import Store

log = logging.getLogger(__name__)

MAX_TRIPLES = 40

Triple = tuple[Node, Node, Node]


def _term(text: str, row: dict[str, Node]) -> Node | None:
    if text.startswith("?"):
        return row.get(text[1:])
    if text == "a":
        return RDF.type
    return from_n3(text)


def _bind(query: str, keys: list[tuple[str, int]], answer_rows: list[list[Node | None]] | None) -> str:
    """The evidence query restricted to the answer's groups: VALUES on the group key variables."""
    if not keys or not answer_rows:
        return query
    tuples = []
    for row in answer_rows[:50]:
        terms = [row[i] if i < len(row) else None for _, i in keys]
        if any(t is None or not isinstance(t, (URIRef, Literal)) for t in terms):
            continue
        tuples.append("(" + " ".join(t.n3() for t in terms) + ")")
    if not tuples:
        return query
    values = f"  VALUES ({' '.join(v for v, _ in keys)}) {{ {' '.join(tuples)} }}\n"
    head, sep, rest = query.partition("WHERE {\n")
    return head + sep + values + rest


def evidence_triples(store: Store, evidence: list, limit: int = MAX_TRIPLES,
                     answer_rows: list[list[Node | None]] | None = None) -> list[Triple]:
    """The triples of the evidence rows, checked to be in the graph, in order, without repeats."""
    out: list[Triple] = []
    seen: set[Triple] = set()
    for query, patterns, keys in evidence:
        query = _bind(query, keys, answer_rows)
        try:
            result = store.select(query, max_rows=50)
        except QueryError as e:
            log.info("evidence query failed: %s", e)
            continue
        for values in result.rows:
            row = {v: t for v, t in zip(result.vars, values) if t is not None}
            for s, p, o in patterns:
                t = (_term(s, row), _term(p, row), _term(o, row))
                if any(x is None for x in t) or t in seen:
                    continue
                seen.add(t)  # type: ignore[arg-type]
                if store.contains(t):  # type: ignore[arg-type]
                    out.append(t)  # type: ignore[arg-type]
                    if len(out) >= limit:
                        return out
    return out


def render(triples: list[Triple], prefixes: dict[str, str]) -> list[list[str]]:
    """[subject, predicate, object] with prefixed names (literals as their lexical form)."""
    return [[shorten(s, prefixes), shorten(p, prefixes), shorten(o, prefixes)] for s, p, o in triples]


def support_set(store: Store, evidence: list, limit: int = MAX_TRIPLES,
                answer_rows: list[list[Node | None]] | None = None) -> list[list[str]]:
    return render(evidence_triples(store, evidence, limit, answer_rows), store.prefixes)


__all__ = ["support_set", "evidence_triples", "render", "BNode", "Literal", "URIRef"]
