"""Building the relational view (schema.py) from the data with a handful of aggregate SPARQL queries through the
store (not by walking the graph), so that it works the same on any store: tables from the classes (with their
subclasses' instances; an ontology that is mostly a schema gets tables of its classes and properties), columns from
the properties their instances use, then the labels (schema_labels.py), the links (schema_links.py), the values of
each value column and its samples."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

from ..language.detection import rank_of
from ontocore.text import singular

from ..storage.sparql import QueryError
from ..storage.store import Store
from .schema import (LABEL_PROPERTIES, Column, Schema, Table, iri_list, is_meta, local_name, sql_ident, sql_type,
                     unique_name)
from .schema_labels import add_english, label_languages, list_values, mark_labels, texts_of
from .schema_links import add_inverse_columns, add_same_as_columns, find_keys, pair_inverse_links

log = logging.getLogger(__name__)

MAX_VALUES = 20000  # distinct literal values kept per property for value linking
SORT_LIMIT_FALLBACK = 5000  # when a store refuses to sort MAX_VALUES rows

# classes that are IRIs are kept by the reader (a FILTER(isIRI(?t)) reads every term: 2.6 times slower on Oxigraph)
_Q_TYPES = "SELECT ?t (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t } GROUP BY ?t"
_Q_SUB = "SELECT ?c ?d WHERE { ?c rdfs:subClassOf ?d . FILTER(isIRI(?c) && isIRI(?d)) }"
_Q_PROPS = """SELECT ?t ?p ?kind (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no)
WHERE { ?s a ?t . ?s ?p ?o . FILTER(isIRI(?t) && ?p != rdf:type)
  BIND(IF(isLiteral(?o), STR(DATATYPE(?o)), IF(isIRI(?o), "@iri", "@bnode")) AS ?kind) }
GROUP BY ?t ?p ?kind"""
_Q_TARGETS = """SELECT ?t ?p ?c (COUNT(*) AS ?n) WHERE { ?s a ?t . ?s ?p ?o . ?o a ?c .
  FILTER(isIRI(?t) && isIRI(?c) && ?p != rdf:type) } GROUP BY ?t ?p ?c"""
Q_INSTANCES = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } }"
_Q_VALUES = """SELECT ?o (COUNT(*) AS ?n) WHERE { ?s <%s> ?o . FILTER(isLiteral(?o)) }
GROUP BY ?o ORDER BY DESC(?n) LIMIT %d"""
_Q_SAMPLES = """SELECT ?o (COUNT(DISTINCT ?s) AS ?n)
WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?o . FILTER(isLiteral(?o)) }
GROUP BY ?o ORDER BY DESC(?n) ?o LIMIT %d"""

# an ontology that is mostly a schema is asked about its classes and properties: two tables of them (the first kind
# names the table, the others are in it)
TBOX_TABLES = {OWL.Class: (OWL.Class, RDFS.Class),
               RDF.Property: (RDF.Property, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)}
TBOX_TEXT = {OWL.Class: ("class", "A class of the ontology (a kind of thing), with its superclasses (subClassOf)"),
             RDF.Property: ("property", "A property of the ontology, with the classes it applies to (domain) and "
                                        "its values (range)")}
_Q_KINDS = "SELECT ?t (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } FILTER(isIRI(?s)) } GROUP BY ?t"
_Q_CLOSURE_NAMED = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } FILTER(isIRI(?s)) }"


def class_counts(store: Store, timeout_s: float = 60.0) -> dict[URIRef, int]:
    """Instances per class over the whole store (classes of the RDF, RDFS, OWL and XSD vocabularies left out)."""
    rows = store.select(_Q_TYPES, max_rows=1_000_000, timeout_s=timeout_s).rows
    return {r[0]: int(r[1]) for r in rows if isinstance(r[0], URIRef) and not is_meta(r[0])}


def build_schema(store: Store, max_values: int = MAX_VALUES, timeout_s: float = 60.0,
                 counts: dict[URIRef, int] | None = None) -> Schema:
    """The relational view of the graph behind `store` (`counts`: the instances per class, when counted already)."""

    def rows(query: str, limit: int = 1_000_000) -> list[list]:
        return store.select(query, max_rows=limit, timeout_s=timeout_s).rows

    if counts is None:
        counts = class_counts(store, timeout_s)
    classes = _read_classes(rows, counts)
    schema = Schema()
    schema.languages = label_languages(rows)
    by_cls = _add_tables(schema, rows, classes)
    _add_columns(schema, rows(_Q_PROPS), rows(_Q_TARGETS), by_cls, rows, schema.label_order)
    schema.label_props = tuple(p for p in LABEL_PROPERTIES if any(
        c.prop == p for t in schema.tables.values() for c in t.columns.values()))
    add_inverse_columns(schema, rows)
    pair_inverse_links(schema, rows)
    add_same_as_columns(schema, rows)
    mark_labels(schema, rows)
    add_english(schema, rows)
    _add_values(schema, rows, max_values)
    _add_samples(schema, rows)
    find_keys(schema, rows)
    list_values(schema, rows)
    log.info("relational view: %d tables, %d columns", len(schema.tables),
             sum(len(t.columns) for t in schema.tables.values()))
    return schema


@dataclass
class _Classes:
    """The classes that may have tables: the instances of each, their subclasses and superclasses, and the tables
    of a TBox (its kinds of thing: owl:Class, rdf:Property) when the ontology is mostly a schema."""

    counts: dict[URIRef, int]  # instances per class
    subs: dict[URIRef, set[URIRef]] = field(default_factory=dict)
    parents: dict[URIRef, set[URIRef]] = field(default_factory=dict)
    classes: set[URIRef] = field(default_factory=set)
    tbox: set[URIRef] = field(default_factory=set)

    def closure(self, c: URIRef) -> tuple[URIRef, ...]:
        """`c` and its subclasses, all the way down."""
        out, todo = [c], [c]
        while todo:
            for s in sorted(self.subs.get(todo.pop(), ())):
                if s not in out:
                    out.append(s)
                    todo.append(s)
        return tuple(out)


def _read_classes(rows, counts: dict[URIRef, int]) -> _Classes:
    """The classes with instances (`counts`) or subclasses, and the subclass links between them."""
    found = _Classes(dict(counts))
    counts = found.counts
    kinds = [k for ks in TBOX_TABLES.values() for k in ks]
    typed = {r[0]: int(r[1]) for r in rows(_Q_KINDS % iri_list(kinds)) if isinstance(r[0], URIRef)}
    subs, parents = found.subs, found.parents
    for c, d in rows(_Q_SUB):
        if c != d and not is_meta(d):
            subs.setdefault(d, set()).add(c)
            parents.setdefault(c, set()).add(d)
    found.classes = set(counts) | {c for c in subs if not is_meta(c)}
    if typed and sum(counts.values()) < max(typed.get(OWL.Class, 0), typed.get(RDFS.Class, 0)):
        # mostly a schema (a TBox, few or no individuals): its classes and properties are things to ask about too,
        # in two tables, Class (owl:Class and rdfs:Class) and Property (rdf:Property and OWL's kinds of property)
        for top, kinds in TBOX_TABLES.items():
            present = [k for k in kinds if typed.get(k)]
            if present:
                counts.update({k: typed[k] for k in present})
                subs.setdefault(top, set()).update(k for k in present if k != top)
                counts.setdefault(top, 0)
                found.classes.add(top)
                found.tbox.add(top)
    return found


def _add_tables(schema: Schema, rows, found: _Classes) -> dict[URIRef, Table]:
    """A table per class with instances (its own or its subclasses'), most instances first, with its label, comment
    and parent tables; the tables by class (a TBox table also by each of its kinds)."""
    counts, tbox = found.counts, found.tbox
    taken: set[str] = set()
    texts = texts_of(rows, sorted(found.classes), schema.label_order)
    for c in sorted(found.classes, key=lambda x: (-counts.get(x, 0), str(x))):
        cl = found.closure(c)
        inst = [x for x in cl if counts.get(x)]
        if not inst:
            continue
        if c in tbox:
            total = int(rows(_Q_CLOSURE_NAMED % iri_list(inst))[0][0])
        else:
            total = int(rows(Q_INSTANCES % iri_list(inst))[0][0]) if len(inst) > 1 else counts[inst[0]]
        name = unique_name(sql_ident(local_name(c)), taken)
        schema.tables[name.lower()] = Table(name=name, cls=c, classes=tuple(inst), count=total,
                                            direct=counts.get(c, 0),
                                            typed_all=total == counts.get(c, 0) and c not in tbox,
                                            label=texts.get((c, "label"), "") or TBOX_TEXT.get(c, ("", ""))[0],
                                            comment=texts.get((c, "comment"), "") or TBOX_TEXT.get(c, ("", ""))[1],
                                            named_only=c in tbox)
    by_cls = {t.cls: t for t in schema.tables.values()}
    by_cls.update({k: t for t in schema.tables.values() if t.named_only for k in t.classes})  # a TBox's kinds
    for t in schema.tables.values():
        t.parents = [by_cls[p].name for p in sorted(found.parents.get(t.cls, ())) if p in by_cls]
    return by_cls


def _add_values(schema: Schema, rows, max_values: int) -> None:
    """The most frequent values of each property that value columns hold (for value linking), with their counts."""
    for prop in sorted({c.prop for t in schema.tables.values() for c in t.columns.values() if c.kind == "value"}):
        try:
            vals = rows(_Q_VALUES % (prop, max_values), max_values)
        except QueryError as e:  # some endpoints refuse to sort that many rows (Virtuoso: 10000): fewer
            log.info("values of %s: %s; asking for %d", prop, e, SORT_LIMIT_FALLBACK)
            max_values = SORT_LIMIT_FALLBACK
            vals = rows(_Q_VALUES % (prop, max_values), max_values)
        schema.values[prop] = {str(v): int(n) for v, n in vals}


def _add_samples(schema: Schema, rows) -> None:
    """The three most frequent values of each value column of each table, for the prompt (of labels in several
    languages, those of the view's own language first)."""
    several = sum(1 for code in schema.languages.counts if code) > 1
    for t in schema.tables.values():
        for col in t.columns.values():
            if col.kind == "value":
                found = [r[0] for r in rows(_Q_SAMPLES % (iri_list(t.classes), col.prop, 9 if several else 3), 9)]
                if several:  # labels in several languages: the view shows those of its own language first
                    found.sort(key=lambda v: rank_of(getattr(v, "language", None), schema.label_order))
                col.samples = [str(v) for v in found[:3]]


def _add_columns(schema: Schema, prop_rows: list, target_rows: list, by_cls: dict, rows,
                 prefer: tuple[str, ...] = ("en", "")) -> None:
    """Columns from property usage per class, summed over each table's classes."""
    usage: dict[tuple[URIRef, URIRef], dict[str, list[int]]] = {}
    for t, p, kind, n, ns, no in prop_rows:
        usage.setdefault((t, p), {}).setdefault(str(kind), [0, 0, 0])
        acc = usage[(t, p)][str(kind)]
        acc[0] += int(n); acc[1] += int(ns); acc[2] += int(no)  # noqa: E702
    targets: dict[tuple[URIRef, URIRef], dict[URIRef, int]] = {}
    for t, p, c, n in target_rows:
        if c in by_cls or any(c in tb.classes for tb in by_cls.values()):
            targets.setdefault((t, p), {})[c] = targets.get((t, p), {}).get(c, 0) + int(n)
    props = sorted({p for _, p in usage})
    comments: dict[URIRef, list[str]] = {}
    texts = texts_of(rows, props, prefer, comments)
    users = {p: [t.name for t in schema.tables.values() if any((c, p) in usage for c in t.classes)]
             for p in props if len(set(comments.get(p, []))) > 1}
    for table in schema.tables.values():
        merged: dict[URIRef, dict[str, list[int]]] = {}
        tgt: dict[URIRef, dict[URIRef, int]] = {}
        for c in table.classes:
            for (t, p), kinds in usage.items():
                if t != c:
                    continue
                for kind, acc in kinds.items():
                    m = merged.setdefault(p, {}).setdefault(kind, [0, 0, 0])
                    m[0] += acc[0]; m[1] += acc[1]; m[2] += acc[2]  # noqa: E702
                for cls, n in targets.get((t, p), {}).items():
                    tgt.setdefault(p, {})[cls] = tgt.get(p, {}).get(cls, 0) + n
        taken = {"iri"}
        table.columns["iri"] = Column(name="iri", prop=None, kind="id", sql_type="TEXT", subjects=table.count,
                                     distinct=table.count, count=table.count)
        for p in sorted(merged, key=lambda x: (x not in LABEL_PROPERTIES, local_name(x).lower())):
            kinds = merged[p]
            n_iri = kinds.get("@iri", [0])[0]
            n_lit = sum(v[0] for k, v in kinds.items() if not k.startswith("@"))
            if not n_iri and not n_lit:
                continue
            name = unique_name(sql_ident("label" if p == RDFS.label else local_name(p)), taken)
            label = texts.get((p, "label"), "")
            comment = _comment_for(table, comments.get(p, []), texts.get((p, "comment"), ""), users.get(p, []))
            if n_iri >= n_lit:
                acc = kinds["@iri"]
                best = _target_table(tgt.get(p, {}), by_cls, schema, acc[0])
                col = Column(name=name, prop=p, kind="link", target=best.name if best else "", count=acc[0],
                             subjects=acc[1], distinct=acc[2], label=label, comment=comment)
            else:
                lit = {k: v for k, v in kinds.items() if not k.startswith("@")}
                dt = max(lit, key=lambda k: lit[k][0])
                col = Column(name=name, prop=p, kind="value", sql_type=sql_type(dt), count=sum(v[0] for v in lit.values()),
                             subjects=max(v[1] for v in lit.values()), distinct=sum(v[2] for v in lit.values()),
                             datatype="" if local_name(dt) in ("string", "langString") else dt, label=label,
                             comment=comment, plain=set(lit) == {str(XSD.string)})
            table.columns[name.lower()] = col


def _comment_for(table: Table, comments: list[str], first: str, users: list[str]) -> str:
    """The comment of a property shown on `table`'s column. Of several comments (a property that several tables
    use, each with its own note), the one that names this table and none of the other tables that use the
    property ("... of the loans file ..." on the Loan table, not the note about the Fine table's column); else
    `first`."""
    if len(set(comments)) < 2:
        return first

    def words(text: str) -> set[str]:
        return {singular(w) for w in re.findall(r"[a-z]+", re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text).lower())}

    def names(comment: set[str], name: str) -> bool:
        return words(name) <= comment

    others = [u for u in users if u.lower() != table.name.lower()]
    naming = [c for c in dict.fromkeys(comments)
              if names(words(c), table.name) and not any(names(words(c), o) for o in others)]
    return naming[0] if len(naming) == 1 else first


def _target_table(targets: dict[URIRef, int], by_cls: dict, schema: Schema, links: int = 0):
    """The table of the linked things: the most specific table that covers nearly all of them. When no class's
    own count covers half of the `links` (a hierarchy whose instances are typed only with their most specific class:
    sharks and rays, no instance typed Fish), the smallest table whose classes together cover them."""
    if not targets:
        return None
    total = max(targets.values())
    best = None
    for cls, n in sorted(targets.items(), key=lambda kv: (-kv[1], str(kv[0]))):
        table = by_cls.get(cls)
        if table is None:
            continue
        if n >= 0.9 * total and (best is None or table.count < best.count):
            best = table
    if best is not None and links and targets.get(best.cls, 0) < 0.5 * links:
        wider = [t for t in schema.tables.values()
                 if not t.typed_all and sum(targets.get(c, 0) for c in t.classes) >= 0.9 * links]
        if wider:
            best = min(wider, key=lambda t: (t.count, t.name))
    return best or next((by_cls[c] for c in targets if c in by_cls), None)
