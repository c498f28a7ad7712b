"""The relational view of an ontology: one table per class, one column per property its instances use.

A small coder model writes SQL far better than SPARQL, and every ontology has a faithful relational reading:
a class is a table whose rows are its instances (with its subclasses' instances), a property used by those
instances is a column (a datatype property holds values, an object property holds links to rows of another
table), and `id` is the instance itself. The view is built from the data with a handful of aggregate SPARQL
queries through the store (not by walking the graph), so it works the same on any store.

Names: a table is named by its class's local name, a column by its property's local name, both turned into SQL
identifiers and made unique; the view keeps the IRI behind every name."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace
from typing import Iterable

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from ontocore.text import fold, singular

from ..language.detection import DEFAULT, LabelLanguages, pick_label, preference, rank_of
from ..storage.sparql import QueryError
from ..storage.store import Store

log = logging.getLogger(__name__)

META_NAMESPACES = (str(RDF), str(RDFS), str(OWL), str(XSD))
# Standard label properties of the RDF world, most preferred first (what a thing is called, in any domain).
LABEL_PROPERTIES = (RDFS.label, SKOS.prefLabel, URIRef("http://xmlns.com/foaf/0.1/name"),
                    URIRef("http://schema.org/name"), URIRef("http://purl.org/dc/terms/title"), SKOS.altLabel)
MAX_VALUES = 20000  # distinct literal values kept per property for value linking
SORT_LIMIT_FALLBACK = 5000  # when a store refuses to sort MAX_VALUES rows

_INT = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "negativeInteger",
        "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte", "gYear"}
_REAL = {"decimal", "double", "float"}
_TIME = {"date": "DATE", "dateTime": "TIMESTAMP", "dateTimeStamp": "TIMESTAMP", "time": "TIME"}


def local_name(iri: str) -> str:
    """The last segment of an IRI (after '#', else after the last '/' or ':')."""
    text = str(iri).rstrip("/#")
    for sep in ("#", "/", ":"):
        if sep in text:
            tail = text.rsplit(sep, 1)[1]
            if tail:
                return tail
    return text


def sql_ident(name: str) -> str:
    """`name` as a plain SQL identifier: letters, digits and '_', not starting with a digit."""
    ident = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_") or "x"
    return f"c_{ident}" if ident[0].isdigit() else ident


def sql_type(datatype: str) -> str:
    """The SQL type shown for an XSD datatype IRI ('' for plain strings)."""
    local = local_name(datatype) if datatype else "string"
    if local in _INT:
        return "INTEGER"
    if local in _REAL:
        return "REAL"
    if local == "boolean":
        return "BOOLEAN"
    return _TIME.get(local, "TEXT")


@dataclass
class Column:
    name: str
    prop: URIRef | None  # None for `id`
    kind: str  # "id" | "value" | "link"
    sql_type: str = "TEXT"
    datatype: str = ""  # the most common datatype of the values ("" for plain strings, links and id)
    target: str = ""  # for links: the table the linked things belong to
    count: int = 0  # triples
    distinct: int = 0  # distinct values
    subjects: int = 0  # rows with a value
    label: str = ""
    comment: str = ""
    english: str = ""  # its English label when the view's labels are in another language (_add_english)
    samples: list[str] = field(default_factory=list)  # most frequent values (lexical forms or target labels)
    is_label: bool = False  # the column holds what the rows are called
    key_of: str = ""  # "" or "table.column" this value column refers to (a foreign key found in the data)
    hidden: bool = False  # not shown in prompts (a link that a shown foreign key column already expresses)
    # how the column is read when it is not `row prop value`: "inverse" (the graph states `value inverse row`:
    # a declared owl:inverseOf partner that the data never states), "same" (`row owl:sameAs x . x prop value`:
    # a fact of a record the row is the same as)
    via: str = ""
    via_prop: URIRef | None = None
    inverse: str = ""  # for links: "table.column" of the link that states the same pairs backwards, if any
    plain: bool = False  # a value column whose every value is a plain string (no language tag, no other datatype)
    canonical: bool = False  # an INTEGER column whose every value is an xsd:integer in canonical form (a big view's)

    @property
    def numeric(self) -> bool:
        return self.sql_type in ("INTEGER", "REAL")

    def triples(self, row: str, value: str, mid: str = "") -> list[tuple[str, str, str]]:
        """The triple patterns that read this column of `row` into `value` (SPARQL terms; `mid`: a fresh
        variable for a column read through another node)."""
        if self.via == "inverse":
            return [(value, URIRef(self.via_prop).n3(), row)]
        if self.via == "same":
            return [(row, OWL.sameAs.n3(), mid or value + "_same"), (mid or value + "_same", URIRef(self.prop).n3(),
                                                                     value)]
        return [(row, URIRef(self.prop).n3(), value)]


@dataclass
class Table:
    name: str
    cls: URIRef
    classes: tuple[URIRef, ...]  # the class and its subclasses
    typed_all: bool  # every instance of a subclass is also typed with `cls` (a plain `?x a cls` finds them all)
    count: int = 0
    direct: int = 0  # rows typed with `cls` itself
    label: str = ""
    comment: str = ""
    english: str = ""  # its English label when the view's labels are in another language (_add_english)
    parents: list[str] = field(default_factory=list)
    # the names of its rows, when they are few things that serve as values of other things (a status, a genre, a
    # language: named individuals with nothing but names, that links point at), for the prompt (_list_values)
    values: list[str] = field(default_factory=list)
    columns: dict[str, Column] = field(default_factory=dict)  # lower-cased name -> Column
    named_only: bool = False  # its rows are the named ones only (a TBox's classes: not its anonymous class expressions)

    def column(self, name: str) -> Column | None:
        return self.columns.get(name.lower())

    def column_for(self, prop: URIRef) -> Column | None:
        return next((c for c in self.columns.values() if c.prop == prop), None)

    def label_column(self) -> Column | None:
        cols = [c for c in self.columns.values() if c.is_label]
        return cols[0] if cols else None

    def id_column(self) -> Column | None:
        """The one column that holds the rows' ids: a value column named `id`, `<table>Id`, `<table>_id` or
        `<table>Identifier` (case and `_` ignored; then the same with the table's name in the singular: "crates":
        crateid) with a different value on every row; None when there is none or more than one."""
        name = fold(self.name).replace("_", "")
        one = singular(name)
        for wanted in ({"id", name + "id", name + "identifier", "identifier"}, {one + "id", one + "identifier"}):
            found = [c for c in self.columns.values() if c.kind == "value" and c.prop is not None
                     and fold(c.name).replace("_", "") in wanted
                     and self.count > 0 and c.subjects == self.count and c.distinct == self.count]
            if found:
                return found[0] if len(found) == 1 else None
        return None

    def key_columns(self) -> list[Column]:
        """Text columns that hold a different value on every row: the codes the rows are known by besides their
        names (a thing compared with text may be meant by either)."""
        return [c for c in self.columns.values() if c.kind == "value" and c.sql_type == "TEXT" and c.prop is not None
                and not c.is_label and self.count > 1 and c.subjects == self.count and c.distinct == self.count]


@dataclass
class Schema:
    tables: dict[str, Table] = field(default_factory=dict)  # lower-cased name -> Table
    values: dict[URIRef, dict[str, int]] = field(default_factory=dict)  # property -> lexical form -> count
    label_props: tuple[URIRef, ...] = ()  # label properties present in the data
    languages: LabelLanguages = field(default_factory=LabelLanguages)  # the language tags of the labels
    # text properties whose `values` are a part of their values (a big graph's names and codes: bigschema.py); a
    # value of one is looked up in the store (linking.ValueIndex)
    open_values: frozenset[URIRef] = frozenset()
    sampled: int = 0  # made from a sample of this many rows per class (bigschema.py; 0: from the whole graph)

    @property
    def label_order(self) -> tuple[str, ...]:
        """The label languages the view prefers: the ontology's main label language, then untagged labels."""
        return preference("", self.languages.main)

    def table(self, name: str) -> Table | None:
        return self.tables.get(name.lower())

    def by_class(self, cls: URIRef) -> Table | None:
        return next((t for t in self.tables.values() if t.cls == cls), None)

    def columns_of(self, prop: URIRef) -> list[tuple[Table, Column]]:
        return [(t, c) for t in self.tables.values() for c in t.columns.values() if c.prop == prop]


# ---- building ----------------------------------------------------------------------------------------------
# classes that are IRIs are kept by the reader (a FILTER(isIRI(?t)) reads every term: 2.6 times slower on Oxigraph)
_Q_TYPES = "SELECT ?t (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t } GROUP BY ?t"
_Q_SUB = "SELECT ?c ?d WHERE { ?c rdfs:subClassOf ?d . FILTER(isIRI(?c) && isIRI(?d)) }"
_Q_PROPS = """SELECT ?t ?p ?kind (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?o) AS ?no)
WHERE { ?s a ?t . ?s ?p ?o . FILTER(isIRI(?t) && ?p != rdf:type)
  BIND(IF(isLiteral(?o), STR(DATATYPE(?o)), IF(isIRI(?o), "@iri", "@bnode")) AS ?kind) }
GROUP BY ?t ?p ?kind"""
_Q_TARGETS = """SELECT ?t ?p ?c (COUNT(*) AS ?n) WHERE { ?s a ?t . ?s ?p ?o . ?o a ?c .
  FILTER(isIRI(?t) && isIRI(?c) && ?p != rdf:type) } GROUP BY ?t ?p ?c"""
_Q_CLOSURE = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } }"
_Q_VALUES = """SELECT ?o (COUNT(*) AS ?n) WHERE { ?s <%s> ?o . FILTER(isLiteral(?o)) }
GROUP BY ?o ORDER BY DESC(?n) LIMIT %d"""
_Q_SAMPLES = """SELECT ?o (COUNT(DISTINCT ?s) AS ?n)
WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?o . FILTER(isLiteral(?o)) }
GROUP BY ?o ORDER BY DESC(?n) ?o LIMIT %d"""
_Q_LABEL_LANGS = """SELECT ?l WHERE { ?s ?p ?l . VALUES ?p { %s } FILTER(isLiteral(?l) && LANG(?l) != "") } LIMIT %d"""
_Q_UNTAGGED = """SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?l . VALUES ?p { %s } FILTER(isLiteral(?l) && LANG(?l) = "") }"""
MAX_TAGGED_LABELS = 20000  # tagged labels read for the languages of an ontology
_Q_TEXT = "SELECT ?x ?p ?v WHERE { VALUES ?x { %s } VALUES ?p { rdfs:label rdfs:comment skos:prefLabel skos:definition } ?x ?p ?v }"
_Q_LABEL_LIKE = """SELECT (COUNT(*) AS ?n) (SUM(IF(STR(?v) = STR(?l), 1, 0)) AS ?same)
  (SUM(IF(CONTAINS(STR(?l), STR(?v)) && REGEX(STR(?v), "[^\\\\W\\\\d_]"), 1, 0)) AS ?inside)
WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?v . ?s <%s> ?l . FILTER(isLiteral(?v)) }"""
_Q_PAIRS = "SELECT ?s ?o WHERE { ?s <%s> ?o . FILTER(isIRI(?o)) } LIMIT 30"
_Q_ROWVALUES = "SELECT ?x ?p ?v WHERE { VALUES ?x { %s } ?x ?p ?v . FILTER(isLiteral(?v)) }"


def _iri_list(iris: Iterable[URIRef]) -> str:
    return " ".join(f"<{i}>" for i in iris)


# an ontology that is mostly a schema is asked about its classes and properties: two tables of them (the first kind
# names the table, the others are in it)
TBOX_TABLES = {OWL.Class: (OWL.Class, RDFS.Class),
               RDF.Property: (RDF.Property, OWL.ObjectProperty, OWL.DatatypeProperty, OWL.AnnotationProperty)}
TBOX_TEXT = {OWL.Class: ("class", "A class of the ontology (a kind of thing), with its superclasses (subClassOf)"),
             RDF.Property: ("property", "A property of the ontology, with the classes it applies to (domain) and "
                                        "its values (range)")}
_Q_KINDS = "SELECT ?t (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } FILTER(isIRI(?s)) } GROUP BY ?t"
_Q_CLOSURE_NAMED = "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a ?t . VALUES ?t { %s } FILTER(isIRI(?s)) }"


def _is_meta(iri: URIRef) -> bool:
    return str(iri).startswith(META_NAMESPACES)


def _unique(name: str, taken: set[str]) -> str:
    base, n = name, 2
    while name.lower() in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name.lower())
    return name


def build_schema(store: Store, max_values: int = MAX_VALUES, timeout_s: float = 60.0,
                 counts: dict[URIRef, int] | None = None) -> Schema:
    """The relational view of the graph behind `store` (`counts`: the instances per class, when counted already)."""

    def rows(query: str, limit: int = 1_000_000) -> list[list]:
        return store.select(query, max_rows=limit, timeout_s=timeout_s).rows

    if counts is None:
        counts = {r[0]: int(r[1]) for r in rows(_Q_TYPES) if isinstance(r[0], URIRef) and not _is_meta(r[0])}
    counts = dict(counts)
    kinds = [k for ks in TBOX_TABLES.values() for k in ks]
    typed = {r[0]: int(r[1]) for r in rows(_Q_KINDS % _iri_list(kinds)) if isinstance(r[0], URIRef)}
    subs: dict[URIRef, set[URIRef]] = {}
    parents: dict[URIRef, set[URIRef]] = {}
    for c, d in rows(_Q_SUB):
        if c != d and not _is_meta(d):
            subs.setdefault(d, set()).add(c)
            parents.setdefault(c, set()).add(d)
    classes = set(counts) | {c for c in subs if not _is_meta(c)}
    tbox: set[URIRef] = set()
    if typed and sum(counts.values()) < max(typed.get(OWL.Class, 0), typed.get(RDFS.Class, 0)):
        # mostly a schema (a TBox, few or no individuals): its classes and properties are things to ask about too,
        # in two tables, Class (owl:Class and rdfs:Class) and Property (rdf:Property and OWL's kinds of property)
        for top, kinds in TBOX_TABLES.items():
            found = [k for k in kinds if typed.get(k)]
            if found:
                counts.update({k: typed[k] for k in found})
                subs.setdefault(top, set()).update(k for k in found if k != top)
                counts.setdefault(top, 0)
                classes.add(top)
                tbox.add(top)

    def closure(c: URIRef) -> tuple[URIRef, ...]:
        out, todo = [c], [c]
        while todo:
            for s in sorted(subs.get(todo.pop(), ())):
                if s not in out:
                    out.append(s)
                    todo.append(s)
        return tuple(out)

    schema = Schema()
    schema.languages = _label_languages(rows)
    taken: set[str] = set()
    texts = _texts(rows, sorted(classes), schema.label_order)
    for c in sorted(classes, key=lambda x: (-counts.get(x, 0), str(x))):
        cl = closure(c)
        inst = [x for x in cl if counts.get(x)]
        if not inst:
            continue
        if c in tbox:
            total = int(rows(_Q_CLOSURE_NAMED % _iri_list(inst))[0][0])
        else:
            total = int(rows(_Q_CLOSURE % _iri_list(inst))[0][0]) if len(inst) > 1 else counts[inst[0]]
        name = _unique(sql_ident(local_name(c)), taken)
        schema.tables[name.lower()] = Table(name=name, cls=c, classes=tuple(inst), count=total,
                                            direct=counts.get(c, 0),
                                            typed_all=total == counts.get(c, 0) and c not in tbox,
                                            label=texts.get((c, "label"), "") or TBOX_TEXT.get(c, ("", ""))[0],
                                            comment=texts.get((c, "comment"), "") or TBOX_TEXT.get(c, ("", ""))[1],
                                            named_only=c in tbox)
    by_cls = {t.cls: t for t in schema.tables.values()}
    by_cls.update({k: t for t in schema.tables.values() if t.named_only for k in t.classes})  # a TBox's kinds
    for t in schema.tables.values():
        t.parents = [by_cls[p].name for p in sorted(parents.get(t.cls, ())) if p in by_cls]
    _add_columns(schema, rows(_Q_PROPS), rows(_Q_TARGETS), by_cls, rows, schema.label_order)
    schema.label_props = tuple(p for p in LABEL_PROPERTIES if any(
        c.prop == p for t in schema.tables.values() for c in t.columns.values()))
    _add_inverse_columns(schema, rows)
    _pair_inverse_links(schema, rows)
    _add_same_as_columns(schema, rows)
    _mark_labels(schema, rows)
    _add_english(schema, rows)
    for prop in sorted({c.prop for t in schema.tables.values() for c in t.columns.values() if c.kind == "value"}):
        try:
            vals = rows(_Q_VALUES % (prop, max_values), max_values)
        except QueryError as e:  # some endpoints refuse to sort that many rows (Virtuoso: 10000): fewer
            log.info("values of %s: %s; asking for %d", prop, e, SORT_LIMIT_FALLBACK)
            max_values = SORT_LIMIT_FALLBACK
            vals = rows(_Q_VALUES % (prop, max_values), max_values)
        schema.values[prop] = {str(v): int(n) for v, n in vals}
    several = sum(1 for code in schema.languages.counts if code) > 1
    for t in schema.tables.values():
        for col in t.columns.values():
            if col.kind == "value":
                found = [r[0] for r in rows(_Q_SAMPLES % (_iri_list(t.classes), col.prop, 9 if several else 3), 9)]
                if several:  # labels in several languages: the view shows those of its own language first
                    found.sort(key=lambda v: rank_of(getattr(v, "language", None), schema.label_order))
                col.samples = [str(v) for v in found[:3]]
    _find_keys(schema, rows)
    _list_values(schema, rows)
    log.info("relational view: %d tables, %d columns", len(schema.tables),
             sum(len(t.columns) for t in schema.tables.values()))
    return schema


_Q_ENGLISH = """SELECT ?x ?v WHERE { VALUES ?x { %s } VALUES ?p { rdfs:label skos:prefLabel } ?x ?p ?v .
  FILTER(langMatches(LANG(?v), "en")) }"""


def _add_english(schema: Schema, rows) -> None:
    """The English labels of the classes and properties, when the ontology's main label language is another one
    and it labels things in English too. The view's names are the IRIs' local names, often words of the main
    language (`Lieferant`, `Lagerort`); an English question, and any question read in English, is planned over them
    with these beside them (view_prompt) and linked by them."""
    main = schema.languages.main
    if main == DEFAULT or not schema.languages.has(DEFAULT):
        return
    owners: dict[URIRef, list[Table | Column]] = {}
    for t in schema.tables.values():
        owners.setdefault(t.cls, []).append(t)
        for c in t.columns.values():
            if c.prop is not None and not c.via:
                owners.setdefault(c.prop, []).append(c)
    iris = sorted(owners)
    found: dict[URIRef, list[str]] = {}
    for i in range(0, len(iris), 200):
        for x, v in rows(_Q_ENGLISH % _iri_list(iris[i:i + 200])):
            found.setdefault(x, []).append(" ".join(str(v).split()))
    for iri, texts in found.items():
        for owner in owners[iri]:
            owner.english = sorted(texts)[0]


def english_covered(schema: Schema) -> bool:
    """Every class of the view and every property it shows has an English label (so an English question links
    to the view's words without a translation into the main label language)."""
    things: list[Table | Column] = []
    for t in schema.tables.values():
        things.append(t)
        things += [c for c in t.columns.values() if c.kind != "id" and c.prop is not None and not c.hidden
                   and not c.is_label and not c.via]
    return bool(things) and all(x.english for x in things)


def _label_languages(rows) -> LabelLanguages:
    """The language tags of the labels (every label property of LABEL_PROPERTIES)."""
    props = " ".join(p.n3() for p in LABEL_PROPERTIES)
    try:
        tagged = rows(_Q_LABEL_LANGS % (props, MAX_TAGGED_LABELS), MAX_TAGGED_LABELS)
        if not tagged:
            return LabelLanguages()
        untagged = int(rows(_Q_UNTAGGED % props)[0][0] or 0)
    except QueryError as e:
        log.info("label languages not read: %s", e)
        return LabelLanguages()
    found = LabelLanguages.of((str(v), getattr(v, "language", None)) for (v,) in tagged)
    if untagged:
        found.counts[""] += untagged
    return found


def _texts(rows, iris: list[URIRef], prefer: tuple[str, ...] = ("en", ""),
           every: dict[URIRef, list[str]] | None = None) -> dict[tuple[URIRef, str], str]:
    """The label and the comment of each IRI, in the first preferred language that has one; `every` collects all
    comments of that language."""
    found: dict[tuple[URIRef, str], list[tuple[str, str | None]]] = {}
    for i in range(0, len(iris), 200):
        for x, p, v in rows(_Q_TEXT % _iri_list(iris[i:i + 200])):
            kind = "label" if p in (RDFS.label, SKOS.prefLabel) else "comment"
            found.setdefault((x, kind), []).append((str(v), getattr(v, "language", None)))
    out = {k: pick_label(v, prefer) or "" for k, v in found.items()}
    if every is not None:
        for (x, kind), values in found.items():
            if kind == "comment":
                lang = next((tag for text, tag in values if text == out[(x, kind)]), None)
                every[x] = [text for text, tag in values if tag == lang]
    return out


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
    texts = _texts(rows, props, prefer, comments)
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
            name = _unique(sql_ident("label" if p == RDFS.label else local_name(p)), taken)
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


_Q_INVERSES = """SELECT DISTINCT ?p ?q WHERE { { ?p owl:inverseOf ?q } UNION { ?q owl:inverseOf ?p }
  FILTER(isIRI(?p) && isIRI(?q) && ?p != ?q) }"""
_Q_INVERSE_USE = """SELECT ?t ?c (COUNT(*) AS ?n) (COUNT(DISTINCT ?o) AS ?no) (COUNT(DISTINCT ?s) AS ?ns)
WHERE { ?s <%s> ?o . ?o a ?t . ?s a ?c . FILTER(isIRI(?t) && isIRI(?c)) } GROUP BY ?t ?c"""
_Q_SAME_USE = """SELECT ?t ?p (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?v) AS ?nv)
  (SAMPLE(?v) AS ?one) (SUM(IF(isIRI(?v), 1, 0)) AS ?iris)
WHERE { ?s a ?t . ?s owl:sameAs ?x . ?x ?p ?v . FILTER(isIRI(?t) && ?x != ?s && ?p != rdf:type && ?p != owl:sameAs) }
GROUP BY ?t ?p"""


def _add_inverse_columns(schema: Schema, rows) -> None:
    """A declared inverse that the data never states (`caredForBy`, inverse of the stated `caresFor`) is a link
    column of the rows the stated property points at, read backwards: the question may use either direction."""
    by_cls = {c: t for t in schema.tables.values() for c in (t.cls,)}
    try:
        pairs = rows(_Q_INVERSES)
    except QueryError:
        return
    used = {c.prop for t in schema.tables.values() for c in t.columns.values()}
    for p, q in pairs:
        if q in used or p not in used:
            continue  # the data states the inverse itself (or neither direction)
        per: dict[URIRef, list] = {}
        for t_cls, s_cls, n, no, ns in rows(_Q_INVERSE_USE % p):
            if _is_meta(s_cls) or _is_meta(t_cls):
                continue
            per.setdefault(t_cls, []).append((s_cls, int(n), int(no), int(ns)))
        for t_cls, found in per.items():
            table = by_cls.get(t_cls)
            if table is None or table.column_for(q) is not None:
                continue
            sources = {c for c, _, _, _ in found}
            covering = [t for t in schema.tables.values() if sources <= set(t.classes)]
            if not covering:
                continue
            target = min(covering, key=lambda t: t.count)
            name = _unique(sql_ident(local_name(q)), set(table.columns))
            table.columns[name.lower()] = Column(
                name=name, prop=q, kind="link", target=target.name, count=sum(x[1] for x in found),
                subjects=max(x[2] for x in found), distinct=sum(x[3] for x in found), via="inverse", via_prop=p)
    _spread_to_superclasses(schema, "inverse")


_Q_NOT_BACK = "SELECT ?a WHERE { ?a %s ?b . FILTER NOT EXISTS { ?b %s ?a } } LIMIT 1"


def _pair_inverse_links(schema: Schema, rows) -> None:
    """Two links that state the same pairs in opposite directions (`Order.customer` and `Customer.hasOrder`) are
    one relation read both ways: each names the other as its `inverse`, so that a chain of joins through one is
    not taken for another chain through the other. Declared (owl:inverseOf, or a column read backwards) or found
    in the data: every pair of the one stated backwards by the other, and the other way round."""
    links = [(t, c) for t in schema.tables.values() for c in t.columns.values()
             if c.kind == "link" and c.target and c.prop is not None]
    try:
        declared = {frozenset((p, q)) for p, q in rows(_Q_INVERSES)}
    except QueryError:
        declared = set()
    for i, (t, c) in enumerate(links):
        for u, d in links[i + 1:]:
            if c.inverse or d.inverse or c.target.lower() != u.name.lower() or d.target.lower() != t.name.lower():
                continue
            if c.prop == d.prop and c.via == d.via:
                continue
            paired = frozenset((c.prop, d.prop)) in declared or (c.via == "inverse" and c.via_prop == d.prop) or (
                d.via == "inverse" and d.via_prop == c.prop)
            if not paired and not c.via and not d.via and c.count == d.count:
                p, q = URIRef(c.prop).n3(), URIRef(d.prop).n3()
                try:
                    paired = not rows(_Q_NOT_BACK % (p, q), 1) and not rows(_Q_NOT_BACK % (q, p), 1)
                except QueryError:
                    paired = False
            if paired:
                c.inverse, d.inverse = f"{u.name}.{d.name}", f"{t.name}.{c.name}"


def _add_same_as_columns(schema: Schema, rows) -> None:
    """Facts of a record that a row is owl:sameAs (another register's node for the same thing) are columns of
    the row's table, read through the owl:sameAs link."""
    by_cls = {t.cls: t for t in schema.tables.values()}
    try:
        found = rows(_Q_SAME_USE)
    except QueryError:
        return
    for t_cls, p, n, ns, nv, one, iris in found:
        table = by_cls.get(t_cls)
        if table is None or table.column_for(p) is not None or _is_meta(p):
            continue
        name = _unique(sql_ident(local_name(p)), set(table.columns))
        if int(iris) >= int(n) - int(iris):
            col = Column(name=name, prop=p, kind="link", count=int(n), subjects=int(ns), distinct=int(nv), via="same")
        else:
            dt = str(one.datatype) if isinstance(one, Literal) and one.datatype else ""
            col = Column(name=name, prop=p, kind="value", sql_type=sql_type(dt), count=int(n), subjects=int(ns),
                         distinct=int(nv), datatype="" if local_name(dt) in ("string", "langString", "") else dt,
                         via="same")
        table.columns[name.lower()] = col
    _spread_to_superclasses(schema, "same")


def _spread_to_superclasses(schema: Schema, via: str) -> None:
    """A column read `via` on a subclass's table is a column of the tables above it too (their rows include the
    subclass's rows), as the view does for stated properties."""
    for table in schema.tables.values():
        for other in schema.tables.values():
            if other is table or not set(other.classes) < set(table.classes):
                continue
            for col in [c for c in other.columns.values() if c.via == via]:
                if table.column_for(col.prop) is None:
                    name = _unique(col.name, set(table.columns))
                    table.columns[name.lower()] = replace(col, name=name)


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


def _mark_labels(schema: Schema, rows) -> None:
    """Label columns: standard label properties, and value columns whose values equal the rows' labels."""
    for table in schema.tables.values():
        std = [c for c in table.columns.values() if c.prop in LABEL_PROPERTIES and c.kind == "value"]
        for c in std[:1]:
            c.is_label = True
        if not std:
            continue
        for c in table.columns.values():
            if c.kind != "value" or c.is_label or c.sql_type != "TEXT" or c.prop in LABEL_PROPERTIES:
                continue
            n, same, inside = rows(_Q_LABEL_LIKE % (_iri_list(table.classes), c.prop, std[0].prop))[0]
            n = int(n or 0)
            if n and int(same or 0) >= 0.9 * n:
                c.is_label = True  # the label itself, under another name
            elif n and int(inside or 0) >= 0.9 * n and c.distinct >= 0.8 * c.subjects:
                c.is_label = True  # the part of the label that names the row ("code - name", "name (place)")


VALUE_LIST = 12  # the most rows of a table of values whose names the view lists
_Q_NAMES = "SELECT DISTINCT ?l WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?l } ORDER BY ?l LIMIT %d"


def _list_values(schema: Schema, rows) -> None:
    """The names of the rows of a small table of values (named individuals that other rows link to and that hold
    nothing but names), in the view's label language: a question that names one of them ("the oboe", "vulnerable")
    is read as that thing, not as a text to search."""
    targets = {c.target.lower() for t in schema.tables.values() for c in t.columns.values()
               if c.kind == "link" and c.target}
    notes = {RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy}
    for t in schema.tables.values():
        label = t.label_column()
        if t.name.lower() not in targets or not 3 <= t.count <= VALUE_LIST or label is None or any(
                c.kind == "value" and not c.is_label and c.prop not in notes for c in t.columns.values()):
            continue
        found = rows(_Q_NAMES % (_iri_list(t.classes), label.prop, 4 * VALUE_LIST), 4 * VALUE_LIST)
        ranked = sorted(found, key=lambda r: rank_of(getattr(r[0], "language", None), schema.label_order))
        names: list[str] = []
        for (value,) in ranked:
            if str(value) not in names:
                names.append(str(value))
        t.values = sorted(names[:t.count])


def _find_keys(schema: Schema, rows) -> None:
    """Foreign keys in values: a link column whose linked rows carry, in some column, the value that the linking
    row carries in one of its own columns (a database's key columns kept beside the links). The shown value
    column then says `REFERENCES table(column)`, and the link column is hidden from prompts."""
    for table in schema.tables.values():
        for link in [c for c in table.columns.values() if c.kind == "link" and c.target]:
            target = schema.table(link.target)
            pairs = rows(_Q_PAIRS % link.prop, 30)
            if not pairs or target is None:
                continue
            pairs = [(s, o) for s, o in pairs if isinstance(s, URIRef) and isinstance(o, URIRef)]
            nodes = {s for s, _ in pairs} | {o for _, o in pairs}
            if not pairs:
                continue
            vals: dict[URIRef, dict[URIRef, set[str]]] = {}
            for x, p, v in rows(_Q_ROWVALUES % _iri_list(nodes)):
                vals.setdefault(x, {}).setdefault(p, set()).add(str(v))
            found = _matching_columns(table, target, pairs, vals)
            if found is None:
                continue
            mine, theirs, referenced = found
            if referenced == "target":
                mine.key_of = f"{target.name}.{theirs.name}"
            else:
                theirs.key_of = theirs.key_of or f"{table.name}.{mine.name}"
            link.hidden = True


def _matching_columns(table: Table, target: Table, pairs, vals):
    """(column of table, column of target, which side is the key) with equal values on every sampled pair."""
    best = None
    notes = {RDFS.comment, RDFS.seeAlso, RDFS.isDefinedBy}  # documentation, never a key
    for a in (c for c in table.columns.values() if c.kind == "value" and c.prop not in notes):
        for b in (c for c in target.columns.values() if c.kind == "value" and c.prop not in notes):
            if len(pairs) < 2 and not (a.distinct > 1 or b.distinct > 1):
                continue  # one pair whose two values happen to match proves no key
            if all(vals.get(s, {}).get(a.prop, set()) & vals.get(o, {}).get(b.prop, set()) for s, o in pairs):
                b_key = b.distinct >= b.subjects and b.subjects >= 0.9 * target.count
                a_key = a.distinct >= a.subjects and a.subjects >= 0.9 * table.count
                side = "target" if b_key or not a_key else "table"
                score = (b_key or a_key, a.name.lower() == b.name.lower())
                if best is None or score > best[0]:
                    best = (score, a, b, side)
    return None if best is None else best[1:]

