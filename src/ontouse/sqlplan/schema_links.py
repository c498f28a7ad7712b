"""The links of the relational view beyond the stated properties: a declared inverse read backwards, two links
that state the same pairs in opposite directions, the facts of a record a row is owl:sameAs, and foreign keys found
in the values (a database's key columns kept beside the links)."""

from __future__ import annotations

from dataclasses import replace

from rdflib import Literal, URIRef
from rdflib.namespace import RDFS

from ..storage.sparql import QueryError
from .schema import Column, Schema, Table, iri_list, is_meta, local_name, sql_ident, sql_type, unique_name

_Q_INVERSES = """SELECT DISTINCT ?p ?q WHERE { { ?p owl:inverseOf ?q } UNION { ?q owl:inverseOf ?p }
  FILTER(isIRI(?p) && isIRI(?q) && ?p != ?q) }"""
_Q_INVERSE_USE = """SELECT ?t ?c (COUNT(*) AS ?n) (COUNT(DISTINCT ?o) AS ?no) (COUNT(DISTINCT ?s) AS ?ns)
WHERE { ?s <%s> ?o . ?o a ?t . ?s a ?c . FILTER(isIRI(?t) && isIRI(?c)) } GROUP BY ?t ?c"""
_Q_SAME_USE = """SELECT ?t ?p (COUNT(*) AS ?n) (COUNT(DISTINCT ?s) AS ?ns) (COUNT(DISTINCT ?v) AS ?nv)
  (SAMPLE(?v) AS ?one) (SUM(IF(isIRI(?v), 1, 0)) AS ?iris)
WHERE { ?s a ?t . ?s owl:sameAs ?x . ?x ?p ?v . FILTER(isIRI(?t) && ?x != ?s && ?p != rdf:type && ?p != owl:sameAs) }
GROUP BY ?t ?p"""
_Q_NOT_BACK = "SELECT ?a WHERE { ?a %s ?b . FILTER NOT EXISTS { ?b %s ?a } } LIMIT 1"
_Q_PAIRS = "SELECT ?s ?o WHERE { ?s <%s> ?o . FILTER(isIRI(?o)) } LIMIT 30"
_Q_ROWVALUES = "SELECT ?x ?p ?v WHERE { VALUES ?x { %s } ?x ?p ?v . FILTER(isLiteral(?v)) }"


def add_inverse_columns(schema: Schema, rows) -> None:
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
            if is_meta(s_cls) or is_meta(t_cls):
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
            name = unique_name(sql_ident(local_name(q)), set(table.columns))
            table.columns[name.lower()] = Column(
                name=name, prop=q, kind="link", target=target.name, count=sum(x[1] for x in found),
                subjects=max(x[2] for x in found), distinct=sum(x[3] for x in found), via="inverse", via_prop=p)
    _spread_to_superclasses(schema, "inverse")


def pair_inverse_links(schema: Schema, rows) -> None:
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


def add_same_as_columns(schema: Schema, rows) -> None:
    """Facts of a record that a row is owl:sameAs (another register's node for the same thing) are columns of
    the row's table, read through the owl:sameAs link."""
    by_cls = {t.cls: t for t in schema.tables.values()}
    try:
        found = rows(_Q_SAME_USE)
    except QueryError:
        return
    for t_cls, p, n, ns, nv, one, iris in found:
        table = by_cls.get(t_cls)
        if table is None or table.column_for(p) is not None or is_meta(p):
            continue
        name = unique_name(sql_ident(local_name(p)), set(table.columns))
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
                    name = unique_name(col.name, set(table.columns))
                    table.columns[name.lower()] = replace(col, name=name)


def find_keys(schema: Schema, rows) -> None:
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
            for x, p, v in rows(_Q_ROWVALUES % iri_list(nodes)):
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
