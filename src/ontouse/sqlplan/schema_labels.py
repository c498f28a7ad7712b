"""What the relational view's things are called: the language tags of the ontology's labels, the labels and
comments of classes and properties, English labels beside those of another main language, the label columns of
each table (what its rows are called), and the names of the rows of a small table of values."""

from __future__ import annotations

import logging

from rdflib import URIRef
from rdflib.namespace import RDFS, SKOS

from ..language.detection import DEFAULT, LabelLanguages, pick_label, rank_of

from ..storage.sparql import QueryError
from .schema import LABEL_PROPERTIES, Column, Schema, Table, iri_list

log = logging.getLogger(__name__)

_Q_LABEL_LANGS = """SELECT ?l WHERE { ?s ?p ?l . VALUES ?p { %s } FILTER(isLiteral(?l) && LANG(?l) != "") } LIMIT %d"""
_Q_UNTAGGED = """SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?l . VALUES ?p { %s } FILTER(isLiteral(?l) && LANG(?l) = "") }"""
MAX_TAGGED_LABELS = 20000  # tagged labels read for the languages of an ontology
_Q_TEXT = "SELECT ?x ?p ?v WHERE { VALUES ?x { %s } VALUES ?p { rdfs:label rdfs:comment skos:prefLabel skos:definition } ?x ?p ?v }"
_Q_LABEL_LIKE = """SELECT (COUNT(*) AS ?n) (SUM(IF(STR(?v) = STR(?l), 1, 0)) AS ?same)
  (SUM(IF(CONTAINS(STR(?l), STR(?v)) && REGEX(STR(?v), "[^\\\\W\\\\d_]"), 1, 0)) AS ?inside)
WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?v . ?s <%s> ?l . FILTER(isLiteral(?v)) }"""
_Q_ENGLISH = """SELECT ?x ?v WHERE { VALUES ?x { %s } VALUES ?p { rdfs:label skos:prefLabel } ?x ?p ?v .
  FILTER(langMatches(LANG(?v), "en")) }"""
VALUE_LIST = 12  # the most rows of a table of values whose names the view lists
_Q_NAMES = "SELECT DISTINCT ?l WHERE { ?s a ?t . VALUES ?t { %s } ?s <%s> ?l } ORDER BY ?l LIMIT %d"


def label_languages(rows) -> LabelLanguages:
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


def texts_of(rows, iris: list[URIRef], prefer: tuple[str, ...] = ("en", ""),
           every: dict[URIRef, list[str]] | None = None) -> dict[tuple[URIRef, str], str]:
    """The label and the comment of each IRI, in the first preferred language that has one; `every` collects all
    comments of that language."""
    found: dict[tuple[URIRef, str], list[tuple[str, str | None]]] = {}
    for i in range(0, len(iris), 200):
        for x, p, v in rows(_Q_TEXT % iri_list(iris[i:i + 200])):
            kind = "label" if p in (RDFS.label, SKOS.prefLabel) else "comment"
            found.setdefault((x, kind), []).append((str(v), getattr(v, "language", None)))
    out = {k: pick_label(v, prefer) or "" for k, v in found.items()}
    if every is not None:
        for (x, kind), values in found.items():
            if kind == "comment":
                lang = next((tag for text, tag in values if text == out[(x, kind)]), None)
                every[x] = [text for text, tag in values if tag == lang]
    return out


def add_english(schema: Schema, rows) -> None:
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
        for x, v in rows(_Q_ENGLISH % iri_list(iris[i:i + 200])):
            found.setdefault(x, []).append(" ".join(str(v).split()))
    for iri, texts in found.items():
        for owner in owners[iri]:
            owner.english = sorted(texts)[0]


def mark_labels(schema: Schema, rows) -> None:
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
            n, same, inside = rows(_Q_LABEL_LIKE % (iri_list(table.classes), c.prop, std[0].prop))[0]
            n = int(n or 0)
            if n and int(same or 0) >= 0.9 * n:
                c.is_label = True  # the label itself, under another name
            elif n and int(inside or 0) >= 0.9 * n and c.distinct >= 0.8 * c.subjects:
                c.is_label = True  # the part of the label that names the row ("code - name", "name (place)")


def list_values(schema: Schema, rows) -> None:
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
        found = rows(_Q_NAMES % (iri_list(t.classes), label.prop, 4 * VALUE_LIST), 4 * VALUE_LIST)
        ranked = sorted(found, key=lambda r: rank_of(getattr(r[0], "language", None), schema.label_order))
        names: list[str] = []
        for (value,) in ranked:
            if str(value) not in names:
                names.append(str(value))
        t.values = sorted(names[:t.count])
