"""The relational view of a big graph, made with a bounded number of bounded queries.

schema_build.build_schema reads the view with aggregate queries over every typed triple (properties, link targets,
values, samples per column): minutes on millions of triples. Above `SAMPLE_ABOVE` instances of a class, the view is
made instead from a sample graph, then corrected with what the sample cannot say:

1. the instances of each class counted over the whole store (one GROUP BY over the rdf:type triples);
2. a sample graph: the schema's own triples (classes, properties, the ontology), each class's first `SAMPLE_ROWS`
   instances with all their triples, and the triples of the things they link to (one hop: the targets of links,
   owl:sameAs records), so that link targets, label columns and foreign keys are found on the sample as on the whole;
3. build_schema over the sample (in memory: a few thousand rows per class);
4. corrections: each table's rows are the whole store's; a column's triples and rows are scaled from the sample
   (a column every sampled row has is taken as a column every row has; one whose sampled values all differ is
   taken as unique); the values of a repetitive text column (fewer distinct values than half its sampled rows:
   statuses, towns, categories) are listed whole from the store, up to schema_build.MAX_VALUES (its distinct count is
   then exact); plain-string and canonical-integer columns are checked on the whole store (a comparison with a
   value then binds it: compile_expr); the values of the other text columns (names, codes, ids: many, mostly different) are those of
   the sample, and the column is marked open (Schema.open_values): the value index looks the question's words up
   in the store instead (linking.ValueIndex).

The counts of a sampled view are estimates; the view says how many rows per class it sampled (Schema.sampled)."""

from __future__ import annotations

import logging
import re
import time

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from ..storage.sparql import QueryError
from ..storage.store import Store
from .schema import Schema, iri_list, is_meta
from .schema_build import MAX_VALUES, Q_INSTANCES, build_schema, class_counts

log = logging.getLogger(__name__)

SAMPLE_ABOVE = 20_000  # instances of one class above which the view is made from a sample
SAMPLE_ROWS = 1_000  # instances of each class read into the sample
CHUNK = 500  # subjects per VALUES query
REPEATED = 0.5  # a text column with fewer distinct values than this share of its sampled rows is listed whole

_SCHEMA_KINDS = (OWL.Class, RDFS.Class, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty,
                 RDF.Property, OWL.Ontology, OWL.FunctionalProperty, OWL.InverseFunctionalProperty,
                 OWL.TransitiveProperty, OWL.SymmetricProperty)
_Q_SCHEMA = "SELECT ?s ?p ?o WHERE { VALUES ?k { %s } ?s a ?k . ?s ?p ?o }" % " ".join(k.n3() for k in _SCHEMA_KINDS)
_Q_SUBCLASS = "SELECT ?c ?d WHERE { ?c rdfs:subClassOf ?d }"
_Q_FIRST = "SELECT ?s WHERE { ?s a <%s> } LIMIT %d"
_Q_OF = "SELECT ?s ?p ?o WHERE { VALUES ?s { %s } ?s ?p ?o }"
_Q_NOT_PLAIN = "SELECT ?o WHERE { ?s <%s> ?o . FILTER(isLiteral(?o) && DATATYPE(?o) != xsd:string) } LIMIT 1"
_Q_NOT_CANONICAL = """SELECT ?o WHERE { ?s <%s> ?o .
  FILTER(!isLiteral(?o) || DATATYPE(?o) != xsd:integer || STR(?o) != STR(xsd:integer(?o))) } LIMIT 1"""
_Q_ALL_VALUES = """SELECT ?o (COUNT(*) AS ?n) WHERE { ?s <%s> ?o . FILTER(isLiteral(?o)) }
GROUP BY ?o ORDER BY DESC(?n) LIMIT %d"""


def build_view(store: Store, timeout_s: float = 60.0, sample_above: int | None = None,
               sample_rows: int | None = None) -> Schema:
    """The relational view of `store`: schema_build.build_schema's, or above `sample_above` (SAMPLE_ABOVE)
    instances of a class, the view made from a sample of `sample_rows` (SAMPLE_ROWS) instances per class (module
    docstring)."""
    sample_above = SAMPLE_ABOVE if sample_above is None else sample_above
    sample_rows = SAMPLE_ROWS if sample_rows is None else sample_rows
    started = time.perf_counter()
    counts = class_counts(store, timeout_s)
    if max(counts.values(), default=0) <= sample_above:
        return build_schema(store, timeout_s=timeout_s, counts=counts)
    sample = sample_graph(store, counts, sample_rows, timeout_s)
    from ..storage.store import GraphStore

    sampled_s = time.perf_counter() - started
    inner = GraphStore(sample)
    try:
        schema = build_schema(inner, timeout_s=timeout_s)
    finally:
        inner.close()
    inner_s = time.perf_counter() - started - sampled_s
    _correct(schema, store, counts, timeout_s)
    schema.sampled = sample_rows
    log.info("relational view of a big graph (%d instances in the largest class) from a sample of %d rows per "
             "class: %.1f s (sample %.1f s, its view %.1f s)", max(counts.values()), sample_rows,
             time.perf_counter() - started, sampled_s, inner_s)
    return schema


def sample_graph(store: Store, counts: dict[URIRef, int], rows: int = SAMPLE_ROWS, timeout_s: float = 60.0,
                 hop: int | None = None) -> Graph:
    """The schema's triples, each class's first `rows` instances with their triples, and the triples of the things
    they link to (module docstring, step 2), in an in-memory graph."""
    from ..storage.graph import new_graph

    def select(query: str, limit: int) -> list[list]:
        return store.select(query, max_rows=limit, timeout_s=timeout_s).rows

    graph = new_graph("oxigraph")
    for prefix, ns in getattr(store, "prefixes", {}).items():
        graph.bind(prefix, ns, override=False)
    for s, p, o in select(_Q_SCHEMA, 1_000_000):
        graph.add((s, p, o))
    for c, d in select(_Q_SUBCLASS, 1_000_000):
        graph.add((c, RDFS.subClassOf, d))
    seen: set[URIRef] = set()
    for cls in sorted(counts, key=str):
        first = [r[0] for r in select(_Q_FIRST % (cls, rows), rows) if isinstance(r[0], URIRef)]
        linked = _add_triples(graph, select, [s for s in first if s not in seen], seen)
        targets = [o for o in dict.fromkeys(linked) if o not in seen and o not in counts]
        _add_triples(graph, select, targets[:rows if hop is None else hop], seen)
    log.info("sample of the graph: %d triples", len(graph))
    return graph


def _add_triples(graph: Graph, select, subjects: list[URIRef], seen: set[URIRef]) -> list[URIRef]:
    """Add every triple of `subjects` to `graph`; the IRIs they link to (rdf:type objects left out)."""
    linked: list[URIRef] = []
    for i in range(0, len(subjects), CHUNK):
        part = subjects[i:i + CHUNK]
        seen.update(part)
        for s, p, o in select(_Q_OF % iri_list(part), 1_000_000):
            graph.add((s, p, o))
            if isinstance(o, URIRef) and p != RDF.type and not is_meta(o):
                linked.append(o)
    return linked


def _correct(schema: Schema, store: Store, counts: dict[URIRef, int], timeout_s: float) -> None:
    """The sample's view with the whole store's rows (module docstring, step 4)."""
    repeated = {c.prop for t in schema.tables.values() for c in t.columns.values()
                if c.kind == "value" and c.subjects and c.distinct < REPEATED * c.subjects}
    for table in schema.tables.values():
        sampled = table.count
        inst = [c for c in table.classes if counts.get(c)]
        if len(inst) > 1 and not table.typed_all:
            try:
                table.count = int(store.select(Q_INSTANCES % iri_list(inst), timeout_s=timeout_s).rows[0][0])
            except QueryError as e:  # the instances of its classes, counted apiece, bound it from above
                log.info("rows of %s not counted (%s): summed per class", table.name, e)
                table.count = sum(counts[c] for c in inst)
        else:
            table.count = counts.get(table.cls, 0) if table.typed_all else sum(counts.get(c, 0) for c in inst)
        table.direct = counts.get(table.cls, 0)
        factor = table.count / sampled if sampled else 0.0
        for col in table.columns.values():
            if col.kind == "id":
                col.count = col.subjects = col.distinct = table.count
                continue
            every = col.subjects >= sampled
            unique = col.distinct >= col.count
            col.count = round(col.count * factor)
            col.subjects = table.count if every else min(table.count, round(col.subjects * factor))
            if unique:  # every triple a value of its own
                col.distinct = col.count
    listed: set[URIRef] = set()
    text = {c.prop: c for t in schema.tables.values() for c in t.columns.values()
            if c.kind == "value" and c.sql_type == "TEXT" and c.prop is not None and not c.via}
    for prop in sorted(text):
        if prop not in repeated:
            continue
        try:
            found = store.select(_Q_ALL_VALUES % (prop, MAX_VALUES), max_rows=MAX_VALUES, timeout_s=timeout_s).rows
        except QueryError as e:
            log.info("values of %s not listed (%s): looked up in the store", prop, e)
            continue
        if len(found) >= MAX_VALUES:
            continue
        schema.values[prop] = {str(v): int(n) for v, n in found}
        listed.add(prop)
        if not all(isinstance(v, Literal) and v.language is None and v.datatype in (None, XSD.string)
                   for v, _ in found):
            for _, c in schema.columns_of(prop):
                c.plain = False
        for t, c in schema.columns_of(prop):
            if len(schema.columns_of(prop)) == 1:
                c.distinct = len(found)
    schema.open_values = frozenset(p for p in text if p not in listed)
    plain = {c.prop for t in schema.tables.values() for c in t.columns.values() if c.plain and c.prop not in listed}
    for prop in sorted(plain):  # plain strings in the sample: in the whole store too? (a listed column: seen above)
        try:
            other = store.select(_Q_NOT_PLAIN % prop, max_rows=1, timeout_s=timeout_s).rows
        except QueryError as e:
            log.info("the values of %s not checked (%s): compared as text", prop, e)
            other = [1]
        if other:
            for _, c in schema.columns_of(prop):
                c.plain = False
    integers = {c.prop for t in schema.tables.values() for c in t.columns.values()
                if c.kind == "value" and c.sql_type == "INTEGER" and c.prop is not None and not c.via
                and c.datatype == str(XSD.integer)}
    for prop in sorted(integers):  # integers written as xsd:integer in canonical form (in the sample, then all)?
        canonical = all(isinstance(v, str) and re.fullmatch(r"-?(0|[1-9][0-9]*)", v)
                        for v in schema.values.get(prop, {}))
        if canonical:
            try:
                canonical = not store.select(_Q_NOT_CANONICAL % prop, max_rows=1, timeout_s=timeout_s).rows
            except QueryError as e:
                log.info("the integers of %s not checked (%s): compared by value", prop, e)
                canonical = False
        for _, c in schema.columns_of(prop):
            c.canonical = canonical and c.sql_type == "INTEGER"
