"""Serialize an EntitiesIndex to OWL 2 (RDF/XML for Protégé and the reasoner, Turtle for people and SPARQL).

Mapping (IRIs are ``base_iri + name``, or the entity's own ``iri`` for a vocabulary's term, whose namespaces
are bound under the index's ``prefixes``; the ontology IRI is ``base_iri`` without its trailing '#'):

* class -> ``owl:Class``, ``rdfs:subClassOf`` per superclass, ``owl:disjointWith`` per disjoint class;
* property -> ``owl:ObjectProperty`` / ``owl:DatatypeProperty``; ``rdfs:range`` is the class or the
  xsd datatype; ``rdfs:domain``: one class is stated directly, several become one
  ``owl:unionOf`` class expression (the property is used on members of any of them; stating each
  as its own domain would require subjects to be in *all* of them); a functional one is also an
  ``owl:FunctionalProperty``;
* individual -> ``owl:NamedIndividual`` + ``rdf:type`` per class; facts become triples, literals
  typed with their xsd datatype (xsd:string literals are written as plain literals);
* every entity gets ``rdfs:label`` (its original text) and one ``rdfs:comment`` per role; aliases
  become ``skos:altLabel``;
* units: the annotation property ``ob:unit`` (``https://ontobuild.example/vocab#unit``) on the
  property, with the unit as written; a unit that QUDT names also gets ``qudt:unit`` with its QUDT IRI
  (``unit:KiloGM``, ``currency:EUR``; the table is ``units.QUDT_UNITS``); a fact whose unit differs from its
  property's unit keeps it through an OWL 2 axiom annotation (``owl:Axiom`` with
  ``owl:annotatedSource/Property/Target``, ``ob:unit`` and ``qudt:unit``). Annotations never take part in
  reasoning.
* the ontology header (`OntologyHeader`, when given): ``owl:versionIRI``, ``rdfs:label``, ``dcterms:created``,
  one ``dcterms:source`` per input file name and ``dcterms:creator`` (the tool and its version), and one
  ``owl:imports`` per vocabulary of ``ontobuild --schema`` (the index's ``imports``).
* provenance (file and JSON path of every fact) is not put into the OWL: it stays in
  entities_index.json next to it, which keeps the ontology small and free of reification noise.

Output is deterministic: triples are built from sorted names, blank nodes get ids derived from what
they describe, and the RDF/XML is written by a small sorted writer (rdflib's own XML writers emit
subjects in store order).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Iterable
from xml.sax.saxutils import escape, quoteattr

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import DCTERMS, OWL, RDF, RDFS, SKOS, XSD
from rdflib.term import Node

from ..values.units import QUDT_CURRENCY, QUDT_UNIT, qudt_iri

from .entries import Fact, Individual, PropertyDef

from .index import EntitiesIndex

log = logging.getLogger(__name__)

OB = Namespace("https://ontobuild.example/vocab#")
QUDT = Namespace("http://qudt.org/schema/qudt/")
_XSD_PREFIX = "xsd:"


def ontology_iri(base_iri: str) -> str:
    return base_iri[:-1] if base_iri.endswith("#") else base_iri


@dataclass
class OntologyHeader:
    """What the ontology says about itself (its header in Protégé's "Active ontology" tab)."""

    label: str = ""
    created: str = ""  # xsd:dateTime, e.g. 2026-01-31T12:00:00Z
    version_iri: str = ""
    sources: list[str] = field(default_factory=list)  # input file names
    generator: str = ""  # "ontobuild 0.1.0"
    imports: list[str] = field(default_factory=list)  # the user's vocabularies (--schema): owl:imports

    def triples(self, onto: URIRef) -> list[tuple[Node, Node, Node]]:
        out: list[tuple[Node, Node, Node]] = [(onto, OWL.imports, URIRef(i)) for i in sorted(set(self.imports))]
        if self.version_iri:
            out.append((onto, OWL.versionIRI, URIRef(self.version_iri)))
        if self.label:
            out.append((onto, RDFS.label, text_literal(self.label)))
        if self.created:
            out.append((onto, DCTERMS.created, Literal(self.created, datatype=XSD.dateTime, normalize=False)))
        out += [(onto, DCTERMS.source, text_literal(s)) for s in sorted(set(self.sources))]
        if self.generator:
            out.append((onto, DCTERMS.creator, text_literal(self.generator)))
        return out


def _bnode(*parts: str) -> BNode:
    """A blank node whose id depends only on `parts` (keeps serializations deterministic)."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()[:16]
    return BNode(f"b{digest}")


def datatype_iri(datatype: str) -> URIRef:
    dt = datatype or "xsd:string"
    if dt.startswith(_XSD_PREFIX):
        return XSD[dt[len(_XSD_PREFIX):]]
    return URIRef(dt)


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def text_literal(text: str) -> Literal:
    """A plain literal, without the control characters XML 1.0 cannot carry."""
    return Literal(_XML_INVALID.sub("", text))


class _ExactLiteral(Literal):
    """A literal that Turtle writes as "lexical"^^type: rdflib's shorthand for xsd:double keeps only
    7 significant digits."""

    __slots__ = ()

    def _literal_n3(self, use_plain: bool = False, qname_callback=None) -> str:  # noqa: ANN001
        return super()._literal_n3(False, qname_callback)


def make_literal(lexical: str, datatype: str) -> Literal:
    """An rdflib literal; xsd:string is plain. Numbers and booleans get a lexical form that RDF/XML and
    Turtle write identically (decimals always have a fraction part, booleans are true/false)."""
    dt = datatype or "xsd:string"
    if dt == "xsd:string":
        return text_literal(lexical)
    text = lexical.strip()
    if dt == "xsd:decimal":
        try:  # xsd:decimal has no exponent form: 1e3 -> 1000
            if "e" in text.lower():
                text = format(Decimal(text), "f")
        except InvalidOperation:
            pass
        if "." not in text:
            text += ".0"
        elif text.endswith("."):
            text += "0"
    elif dt == "xsd:boolean":
        text = {"1": "true", "0": "false"}.get(text, text.lower())
    elif dt == "xsd:double":
        return _ExactLiteral(text, datatype=datatype_iri(dt), normalize=False)
    return Literal(text, datatype=datatype_iri(dt), normalize=False)


def _fact_object(idx: EntitiesIndex, fact: Fact) -> Node:
    if fact.object is not None:
        return URIRef(idx.iri_of(fact.object))
    prop = idx.properties.get(fact.property)
    return make_literal(fact.literal or "", fact.datatype or (prop.range if prop else "") or "xsd:string")


def _property_triples(idx: EntitiesIndex, p: PropertyDef, iri) -> Iterable[tuple[Node, Node, Node]]:
    s = iri(p.name)
    yield s, RDF.type, OWL.ObjectProperty if p.kind == "object" else OWL.DatatypeProperty
    if p.functional:
        yield s, RDF.type, OWL.FunctionalProperty
    if p.kind == "object" and p.inverse_of and idx.properties.get(p.inverse_of) is not None:
        yield s, OWL.inverseOf, iri(p.inverse_of)
    domains = sorted(set(p.domain))
    if len(domains) == 1:
        yield s, RDFS.domain, iri(domains[0])
    elif len(domains) > 1:
        union = _bnode("domain", p.name)
        yield s, RDFS.domain, union
        yield union, RDF.type, OWL.Class
        nodes = [_bnode("domain", p.name, str(i)) for i in range(len(domains))]
        yield union, OWL.unionOf, nodes[0]
        for i, (node, cls) in enumerate(zip(nodes, domains)):
            yield node, RDF.first, iri(cls)
            yield node, RDF.rest, nodes[i + 1] if i + 1 < len(nodes) else RDF.nil
    if p.range:
        yield s, RDFS.range, iri(p.range) if p.kind == "object" else datatype_iri(p.range)
    if p.unit:
        yield s, OB.unit, text_literal(p.unit)
        if qudt_iri(p.unit):
            yield s, QUDT.unit, URIRef(qudt_iri(p.unit))


_TYPE, _NAMED, _ALT = RDF.type, OWL.NamedIndividual, SKOS.altLabel  # looked up once, not per individual


def individual_triples(idx: EntitiesIndex, ind: Individual, iri) -> Iterable[tuple[Node, Node, Node]]:
    s = iri(ind.name)
    yield s, _TYPE, _NAMED
    for c in ind.classes:
        yield s, _TYPE, iri(c)
    for a in ind.aliases:
        yield s, _ALT, text_literal(a)
    for f in ind.facts:
        p = iri(f.property)
        o = _fact_object(idx, f)
        yield s, p, o
        prop = idx.properties.get(f.property)
        if f.unit and prop is not None and f.unit != prop.unit:
            ax = _bnode("axiom", ind.name, f.property, str(o), f.datatype)
            yield ax, RDF.type, OWL.Axiom
            yield ax, OWL.annotatedSource, s
            yield ax, OWL.annotatedProperty, p
            yield ax, OWL.annotatedTarget, o
            yield ax, OB.unit, text_literal(f.unit)
            if qudt_iri(f.unit):
                yield ax, QUDT.unit, URIRef(qudt_iri(f.unit))


def to_graph(idx: EntitiesIndex, header: OntologyHeader | None = None) -> Graph:
    """The OWL 2 ontology of `idx` as an rdflib Graph (see the module docstring for the mapping); `header`: what
    the ontology says about itself."""
    g = Graph(bind_namespaces="core")
    g.bind("", Namespace(idx.base_iri))
    g.bind("skos", SKOS)
    g.bind("ob", OB)
    g.bind("dcterms", DCTERMS)
    g.bind("qudt", QUDT)
    g.bind("unit", Namespace(QUDT_UNIT))
    g.bind("currency", Namespace(QUDT_CURRENCY))
    for prefix, ns in sorted(idx.prefixes.items()):
        if ns != idx.base_iri:
            g.bind(prefix, Namespace(ns), override=False)

    def iri(name: str) -> URIRef:
        return URIRef(idx.iri_of(name))

    onto = URIRef(ontology_iri(idx.base_iri))
    triples: list[tuple[Node, Node, Node]] = [(onto, RDF.type, OWL.Ontology)]
    if header is not None:
        triples += header.triples(onto)

    def annotate(name: str, label: str, roles: list[str]) -> None:
        triples.append((iri(name), RDFS.label, text_literal(label or name)))
        triples.extend((iri(name), RDFS.comment, text_literal(r)) for r in roles)

    for name, c in sorted(idx.classes.items()):
        triples.append((iri(name), RDF.type, OWL.Class))
        triples.extend((iri(name), RDFS.subClassOf, iri(sup)) for sup in c.superclasses)
        triples.extend((iri(name), OWL.disjointWith, iri(d)) for d in c.disjoint)
        annotate(name, c.label, c.roles)
    for name, p in sorted(idx.properties.items()):
        triples.extend(_property_triples(idx, p, iri))
        annotate(name, p.label, p.roles)
    for name, ind in sorted(idx.individuals.items()):
        triples.extend(individual_triples(idx, ind, iri))
        annotate(name, ind.label, ind.roles)

    used = {t[1] for t in triples}
    if OB.unit in used:
        triples += [(OB.unit, RDF.type, OWL.AnnotationProperty), (OB.unit, RDFS.label, Literal("unit"))]
    if SKOS.altLabel in used:
        triples.append((SKOS.altLabel, RDF.type, OWL.AnnotationProperty))
    if QUDT.unit in used:
        triples += [(QUDT.unit, RDF.type, OWL.AnnotationProperty), (QUDT.unit, RDFS.label, Literal("unit (QUDT)"))]
    triples += [(p, RDF.type, OWL.AnnotationProperty) for p in (DCTERMS.created, DCTERMS.source, DCTERMS.creator)
                if p in used]
    for t in sorted(set(triples), key=_triple_key):
        g.add(t)
    return g


def _term_key(t: Node) -> tuple:
    if isinstance(t, Literal):
        return (2, str(t), str(t.datatype or ""), t.language or "")
    return (1 if isinstance(t, BNode) else 0, str(t), "", "")


def _triple_key(t: tuple[Node, Node, Node]) -> tuple:
    return tuple(_term_key(x) for x in t)


# ---- RDF/XML ------------------------------------------------------------------------------------------
_TYPED_NODE_ORDER = (OWL.Ontology, OWL.Class, OWL.AnnotationProperty, OWL.ObjectProperty,
                     OWL.DatatypeProperty, OWL.NamedIndividual, OWL.Axiom)


def _split(uri: str) -> tuple[str, str]:
    for sep in ("#", "/"):
        i = uri.rfind(sep)
        if i >= 0 and _is_ncname(uri[i + 1:]):
            return uri[: i + 1], uri[i + 1:]
    raise ValueError(f"cannot write predicate <{uri}> as an XML element name")


def _is_ncname(text: str) -> bool:
    if not text or not (text[0].isalpha() or text[0] == "_"):
        return False
    return all(ch.isalnum() or ch in "_.-" for ch in text) and text.isascii()


def to_rdfxml(g: Graph) -> bytes:
    """RDF/XML of `g`, sorted: one typed node element per subject, properties sorted."""
    prefixes = {str(ns): p for p, ns in g.namespaces() if p not in ("xml", "xmlns")}
    used_ns: dict[str, str] = {}

    def qname(uri: str) -> str:
        ns, local = _split(uri)
        prefix = used_ns.get(ns)
        if prefix is None:
            prefix = prefixes.get(ns)
            if prefix is None:
                n = 1
                while f"ns{n}" in prefixes.values() or f"ns{n}" in used_ns.values():
                    n += 1
                prefix = f"ns{n}"
            used_ns[ns] = prefix
        return f"{prefix}:{local}" if prefix else local

    def about(node: Node) -> str:
        if isinstance(node, BNode):
            return f"rdf:nodeID={quoteattr(str(node))}"
        return f"rdf:about={quoteattr(str(node))}"

    body: list[str] = []
    subjects = sorted(set(g.subjects()), key=_term_key)

    def rank(s: Node) -> tuple:
        types = set(g.objects(s, RDF.type))
        for i, t in enumerate(_TYPED_NODE_ORDER):
            if t in types:
                return (i, _term_key(s))
        return (len(_TYPED_NODE_ORDER), _term_key(s))

    for s in sorted(subjects, key=rank):
        pos = sorted(g.predicate_objects(s), key=lambda po: (_term_key(po[0]), _term_key(po[1])))
        types = [o for p, o in pos if p == RDF.type and not isinstance(o, (Literal, BNode))]
        main = next((t for t in _TYPED_NODE_ORDER if t in types), None)
        tag = qname(str(main)) if main is not None else "rdf:Description"
        pos = [(p, o) for p, o in pos if not (p == RDF.type and o == main)]
        if not pos:
            body.append(f"  <{tag} {about(s)}/>")
            continue
        body.append(f"  <{tag} {about(s)}>")
        for p, o in pos:
            el = qname(str(p))
            if isinstance(o, Literal):
                attrs = ""
                if o.language:
                    attrs = f" xml:lang={quoteattr(o.language)}"
                elif o.datatype is not None and o.datatype != XSD.string:
                    attrs = f" rdf:datatype={quoteattr(str(o.datatype))}"
                body.append(f"    <{el}{attrs}>{escape(str(o), {chr(13): '&#13;'})}</{el}>")
            elif isinstance(o, BNode):
                body.append(f"    <{el} rdf:nodeID={quoteattr(str(o))}/>")
            else:
                body.append(f"    <{el} rdf:resource={quoteattr(str(o))}/>")
        body.append(f"  </{tag}>")

    decl = {"rdf": str(RDF)} | {p: ns for ns, p in used_ns.items()}
    head = ['<?xml version="1.0" encoding="utf-8"?>', "<rdf:RDF"]
    head += [f"    xmlns{':' + p if p else ''}={quoteattr(ns)}" for p, ns in sorted(decl.items())]
    head[-1] += ">"
    return ("\n".join(head + body + ["</rdf:RDF>", ""])).encode("utf-8")


def serialize(idx: EntitiesIndex) -> tuple[bytes, bytes]:
    """(RDF/XML bytes, Turtle bytes) of the ontology of `idx`; byte-identical for the same index."""
    return serialize_graph(to_graph(idx))


def serialize_graph(g: Graph) -> tuple[bytes, bytes]:
    """(RDF/XML bytes, Turtle bytes) of a graph made by to_graph."""
    return to_rdfxml(g), g.serialize(format="turtle", encoding="utf-8")


# ---- JSON-LD ------------------------------------------------------------------------------------------
_JSONLD_LOCAL = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


def to_jsonld(g: Graph) -> bytes:
    """JSON-LD of `g` with an inline @context (the graph's prefixes; never a remote context): one node object
    per subject, sorted, so that the same graph gives the same bytes."""
    names = {str(ns): p for p, ns in g.namespaces() if p not in ("xml", "xmlns")}
    if "" in names.values():  # JSON-LD has no empty prefix: the default namespace gets a name
        default = next(ns for ns, p in names.items() if p == "")
        alias = next(a for a in ("base", "this", "onto", "ns0") if a not in names.values())
        names[default] = alias
    context: dict[str, str] = {}

    def compact(uri: str) -> str:
        for sep in ("#", "/"):
            i = uri.rfind(sep)
            if i >= 0:
                prefix = names.get(uri[: i + 1])
                local = uri[i + 1:]
                if prefix and _JSONLD_LOCAL.fullmatch(local):
                    context[prefix] = uri[: i + 1]
                    return f"{prefix}:{local}"
        return uri

    def node_id(node: Node) -> str:
        return f"_:{node}" if isinstance(node, BNode) else compact(str(node))

    def value(o: Node) -> dict[str, str]:
        if isinstance(o, Literal):
            out = {"@value": str(o)}
            if o.language:
                out["@language"] = o.language
            elif o.datatype is not None and o.datatype != XSD.string:
                out["@type"] = compact(str(o.datatype))
            return out
        return {"@id": node_id(o)}

    nodes = []
    for s in sorted(set(g.subjects()), key=_term_key):
        node: dict[str, object] = {"@id": node_id(s)}
        types = sorted((o for o in g.objects(s, RDF.type) if not isinstance(o, Literal)), key=_term_key)
        if types:
            node["@type"] = [node_id(t) for t in types]
        by_pred: dict[str, list] = {}
        for p, o in sorted(g.predicate_objects(s), key=lambda po: (_term_key(po[0]), _term_key(po[1]))):
            if p == RDF.type and not isinstance(o, Literal):
                continue
            by_pred.setdefault(compact(str(p)), []).append(value(o))
        node.update(by_pred)
        nodes.append(node)
    doc = {"@context": dict(sorted(context.items())), "@graph": nodes}
    return (json.dumps(doc, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
