"""Read OWL/XML (the OWL 2 XML serialization Protégé saves as "OWL/XML") into RDF triples, by the OWL 2 mapping to
RDF graphs, so that the answerer sees it like the same ontology saved as RDF/XML or Turtle.

Inputs are hostile: the file is first checked like any XML input (`inputguard.check_xml`: no external DTD or
entities, no parameter or nested entities, bounded expansion), then read with defusedxml (external entities and
DTD fetching forbidden) as a stream, one axiom at a time. `Import` becomes an owl:imports triple and is never
followed. Axioms outside OWL 2 (SWRL rules) and axiom annotations are left out, counted in the log.

Supported: declarations; class expressions (Object/Data Intersection, Union, Complement, OneOf, Some/All values,
HasValue, HasSelf, cardinalities, qualified or not); data ranges (datatype restrictions with facets); inverse
properties and property chains; the class, property, individual, key and annotation axioms; literals with
datatypes and languages; anonymous individuals; IRIs full, relative (to xml:base or the ontology IRI) or
abbreviated (by the file's `Prefix` elements)."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path
from typing import Iterator
from urllib.parse import urljoin

from rdflib import BNode, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD
from rdflib.term import Node

from .errors import InputError
from .inputguard import check_xml

log = logging.getLogger(__name__)

NS = "http://www.w3.org/2002/07/owl#"
XML_NS = "http://www.w3.org/XML/1998/namespace"
_Q = "{" + NS + "}"
Triple = tuple[Node, Node, Node]

_DECLARED = {"Class": OWL.Class, "ObjectProperty": OWL.ObjectProperty, "DataProperty": OWL.DatatypeProperty,
             "AnnotationProperty": OWL.AnnotationProperty, "NamedIndividual": OWL.NamedIndividual,
             "Datatype": RDFS.Datatype}
_CHARACTERISTICS = {
    "FunctionalObjectProperty": OWL.FunctionalProperty, "InverseFunctionalObjectProperty": OWL.InverseFunctionalProperty,
    "ReflexiveObjectProperty": OWL.ReflexiveProperty, "IrreflexiveObjectProperty": OWL.IrreflexiveProperty,
    "SymmetricObjectProperty": OWL.SymmetricProperty, "AsymmetricObjectProperty": OWL.AsymmetricProperty,
    "TransitiveObjectProperty": OWL.TransitiveProperty, "FunctionalDataProperty": OWL.FunctionalProperty}
_BINARY = {"SubClassOf": RDFS.subClassOf, "SubObjectPropertyOf": RDFS.subPropertyOf,
           "SubDataPropertyOf": RDFS.subPropertyOf, "SubAnnotationPropertyOf": RDFS.subPropertyOf,
           "ObjectPropertyDomain": RDFS.domain, "ObjectPropertyRange": RDFS.range, "DataPropertyDomain": RDFS.domain,
           "DataPropertyRange": RDFS.range, "AnnotationPropertyDomain": RDFS.domain,
           "AnnotationPropertyRange": RDFS.range, "InverseObjectProperties": OWL.inverseOf,
           "DatatypeDefinition": OWL.equivalentClass}
_CHAINED = {"EquivalentClasses": OWL.equivalentClass, "EquivalentObjectProperties": OWL.equivalentProperty,
            "EquivalentDataProperties": OWL.equivalentProperty, "SameIndividual": OWL.sameAs}
_PAIRWISE = {"DisjointClasses": (OWL.disjointWith, OWL.AllDisjointClasses, OWL.members),
             "DisjointObjectProperties": (OWL.propertyDisjointWith, OWL.AllDisjointProperties, OWL.members),
             "DisjointDataProperties": (OWL.propertyDisjointWith, OWL.AllDisjointProperties, OWL.members),
             "DifferentIndividuals": (OWL.differentFrom, OWL.AllDifferent, OWL.members)}
_CARDINALITY = {"Min": (OWL.minCardinality, OWL.minQualifiedCardinality),
                "Max": (OWL.maxCardinality, OWL.maxQualifiedCardinality),
                "Exact": (OWL.cardinality, OWL.qualifiedCardinality)}
_SKIPPED = {"DLSafeRule", "DescriptionGraphRule"}


_BAD_IRI = re.compile(r'[\x00-\x20<>"{}|^`\\]')
_LANG = re.compile(r"[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*")


def _local(tag: str) -> str:
    return tag[len(_Q):] if tag.startswith(_Q) else ""


class _Reader:
    """Turns the elements under <Ontology> into triples; blank nodes are named after the file and a counter."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.base = ""
        self.prefixes: dict[str, str] = {}
        self.triples: list[Triple] = []
        self.skipped: dict[str, int] = {}
        self._stem = hashlib.sha1(str(path.resolve()).encode("utf-8")).hexdigest()[:8]
        self._n = 0
        self.ontology: Node = BNode()

    # ---- terms -------------------------------------------------------------------------------------------------
    def bnode(self) -> BNode:
        self._n += 1
        return BNode(f"ox{self._stem}n{self._n}")

    def fail(self, el, why: str) -> InputError:  # noqa: ANN001
        return InputError(f"{self.path} could not be read as OWL/XML: {why} (in <{_local(el.tag) or el.tag}>).")

    def make_iri(self, text: str) -> URIRef:
        """An IRI, refused (InputError) when it holds what no IRI may hold (spaces, <>"{}|^`\\)."""
        if not text or _BAD_IRI.search(text):
            raise InputError(f"{self.path} could not be read as OWL/XML: {text[:120]!r} is not an IRI.")
        return URIRef(text)

    def resolve(self, text: str) -> URIRef:
        """A full IRI, or one relative to the document's base."""
        text = text.strip()
        return self.make_iri(urljoin(self.base, text) if self.base and not _BAD_IRI.search(text) else text)

    def iri(self, el) -> URIRef:  # noqa: ANN001
        if el.get("IRI") is not None:
            return self.resolve(el.get("IRI"))
        abbreviated = el.get("abbreviatedIRI")
        if abbreviated is None and _local(el.tag) == "AbbreviatedIRI":
            abbreviated = (el.text or "").strip()
        if abbreviated is not None:
            prefix, _, local = abbreviated.partition(":")
            if prefix not in self.prefixes:
                raise self.fail(el, f"the prefix {prefix!r} of {abbreviated!r} is not declared")
            return self.make_iri(self.prefixes[prefix] + local)
        if _local(el.tag) == "IRI":
            return self.resolve(el.text or "")
        raise self.fail(el, "an entity without IRI or abbreviatedIRI")

    def individual(self, el) -> Node:  # noqa: ANN001
        if _local(el.tag) == "AnonymousIndividual":
            return BNode(f"ox{self._stem}a{re.sub(r'[^A-Za-z0-9]', '', el.get('nodeID', ''))}")
        return self.iri(el)

    def literal(self, el) -> Literal:  # noqa: ANN001
        text = el.text or ""
        lang = el.get("{" + XML_NS + "}lang")
        dt = el.get("datatypeIRI")
        if dt is not None:
            dt = str(self.resolve(dt))
        if lang:
            if not _LANG.fullmatch(lang):
                raise self.fail(el, f"{lang[:40]!r} is not a language tag")
            return Literal(text, lang=lang)
        if dt in (None, str(RDF.PlainLiteral)):
            if dt is not None and "@" in text:
                value, _, tag = text.rpartition("@")
                return Literal(value, lang=tag) if tag and _LANG.fullmatch(tag) else Literal(text)
            return Literal(text)
        if dt == str(XSD.string):
            return Literal(text)
        return Literal(text, datatype=URIRef(dt))

    def object_property(self, el) -> tuple[Node, bool]:  # noqa: ANN001
        """(property, inverse): ObjectInverseOf(P) is read as P with its subject and object swapped."""
        if _local(el.tag) == "ObjectInverseOf":
            return self.iri(self.operands(el)[0]), True
        return self.iri(el), False

    def property_node(self, el) -> Node:  # noqa: ANN001
        prop, inverse = self.object_property(el) if _local(el.tag) in ("ObjectProperty", "ObjectInverseOf") \
            else (self.iri(el), False)
        if inverse:
            node = self.bnode()
            self.add(node, OWL.inverseOf, prop)
            return node
        return prop

    def operands(self, el) -> list:  # noqa: ANN001
        """The children that are not annotations of the axiom."""
        return [c for c in el if _local(c.tag) != "Annotation"]

    def add(self, s: Node, p: Node, o: Node) -> None:
        self.triples.append((s, p, o))

    def rdf_list(self, items: list[Node]) -> Node:
        if not items:
            return RDF.nil
        head = self.bnode()
        node = head
        for i, item in enumerate(items):
            self.add(node, RDF.first, item)
            nxt = self.bnode() if i + 1 < len(items) else RDF.nil
            self.add(node, RDF.rest, nxt)
            node = nxt
        return head

    # ---- class expressions and data ranges ---------------------------------------------------------------------
    def expression(self, el) -> Node:  # noqa: ANN001
        name = _local(el.tag)
        if name in ("Class", "Datatype"):
            return self.iri(el)
        parts = self.operands(el)
        node = self.bnode()
        if name in ("ObjectIntersectionOf", "ObjectUnionOf", "DataIntersectionOf", "DataUnionOf"):
            self.add(node, RDF.type, OWL.Class if name.startswith("Object") else RDFS.Datatype)
            self.add(node, OWL.intersectionOf if "Intersection" in name else OWL.unionOf,
                     self.rdf_list([self.expression(p) for p in parts]))
        elif name == "ObjectComplementOf":
            self.add(node, RDF.type, OWL.Class)
            self.add(node, OWL.complementOf, self.expression(parts[0]))
        elif name == "DataComplementOf":
            self.add(node, RDF.type, RDFS.Datatype)
            self.add(node, OWL.datatypeComplementOf, self.expression(parts[0]))
        elif name == "ObjectOneOf":
            self.add(node, RDF.type, OWL.Class)
            self.add(node, OWL.oneOf, self.rdf_list([self.individual(p) for p in parts]))
        elif name == "DataOneOf":
            self.add(node, RDF.type, RDFS.Datatype)
            self.add(node, OWL.oneOf, self.rdf_list([self.literal(p) for p in parts]))
        elif name == "DatatypeRestriction":
            self.add(node, RDF.type, RDFS.Datatype)
            self.add(node, OWL.onDatatype, self.iri(parts[0]))
            facets = []
            for f in parts[1:]:
                facet = self.bnode()
                self.add(facet, self.resolve(f.get("facet", "")), self.literal(self.operands(f)[0]))
                facets.append(facet)
            self.add(node, OWL.withRestrictions, self.rdf_list(facets))
        elif name.endswith(("SomeValuesFrom", "AllValuesFrom", "HasValue", "HasSelf")) or "Cardinality" in name:
            self.restriction(node, name, el, parts)
        else:
            raise self.fail(el, f"the class expression or data range <{name}> is not OWL 2")
        return node

    def restriction(self, node: Node, name: str, el, parts: list) -> None:  # noqa: ANN001
        self.add(node, RDF.type, OWL.Restriction)
        data = name.startswith("Data")
        if data and ("SomeValuesFrom" in name or "AllValuesFrom" in name) and len(parts) > 2:
            self.add(node, OWL.onProperties, self.rdf_list([self.iri(p) for p in parts[:-1]]))
        else:
            self.add(node, OWL.onProperty, self.property_node(parts[0]))
        rest = parts[1:]
        if name.endswith("SomeValuesFrom"):
            self.add(node, OWL.someValuesFrom, self.expression(parts[-1]))
        elif name.endswith("AllValuesFrom"):
            self.add(node, OWL.allValuesFrom, self.expression(parts[-1]))
        elif name == "ObjectHasValue":
            self.add(node, OWL.hasValue, self.individual(rest[0]))
        elif name == "DataHasValue":
            self.add(node, OWL.hasValue, self.literal(rest[0]))
        elif name == "ObjectHasSelf":
            self.add(node, OWL.hasSelf, Literal(True))
        else:
            kind = next(k for k in _CARDINALITY if k in name)
            plain, qualified = _CARDINALITY[kind]
            count = Literal(el.get("cardinality", "0"), datatype=XSD.nonNegativeInteger)
            if rest:
                self.add(node, qualified, count)
                self.add(node, OWL.onDataRange if data else OWL.onClass, self.expression(rest[0]))
            else:
                self.add(node, plain, count)

    # ---- axioms ------------------------------------------------------------------------------------------------
    def annotation_value(self, el) -> Node:  # noqa: ANN001
        name = _local(el.tag)
        if name == "Literal":
            return self.literal(el)
        if name == "AnonymousIndividual":
            return self.individual(el)
        return self.iri(el)

    def axiom(self, el) -> None:  # noqa: ANN001
        name = _local(el.tag)
        parts = self.operands(el)
        if name == "Prefix":
            return
        if name == "Import":
            return self.add(self.ontology, OWL.imports, self.resolve(el.text or ""))
        if name == "Annotation":  # of the ontology
            return self.add(self.ontology, self.iri(el[0] if _local(el[0].tag) == "AnnotationProperty" else
                                                   self.operands(el)[0]), self.annotation_value(self.operands(el)[-1]))
        if name == "Declaration":
            entity = parts[0]
            return self.add(self.iri(entity), RDF.type, _DECLARED[_local(entity.tag)])
        if name == "AnnotationAssertion":
            subject = parts[1]
            s = self.individual(subject) if _local(subject.tag) == "AnonymousIndividual" else self.iri(subject)
            return self.add(s, self.iri(parts[0]), self.annotation_value(parts[2]))
        if name == "ClassAssertion":
            return self.add(self.individual(parts[1]), RDF.type, self.expression(parts[0]))
        if name == "ObjectPropertyAssertion":
            prop, inverse = self.object_property(parts[0])
            a, b = self.individual(parts[1]), self.individual(parts[2])
            return self.add(*((b, prop, a) if inverse else (a, prop, b)))
        if name == "DataPropertyAssertion":
            return self.add(self.individual(parts[1]), self.iri(parts[0]), self.literal(parts[2]))
        if name in ("NegativeObjectPropertyAssertion", "NegativeDataPropertyAssertion"):
            node = self.bnode()
            self.add(node, RDF.type, OWL.NegativePropertyAssertion)
            self.add(node, OWL.sourceIndividual, self.individual(parts[1]))
            self.add(node, OWL.assertionProperty, self.property_node(parts[0]))
            target = self.individual(parts[2]) if name.startswith("NegativeObject") else self.literal(parts[2])
            return self.add(node, OWL.targetIndividual if name.startswith("NegativeObject") else OWL.targetValue,
                            target)
        if name in _CHARACTERISTICS:
            return self.add(self.property_node(parts[0]), RDF.type, _CHARACTERISTICS[name])
        if name == "SubObjectPropertyOf" and _local(parts[0].tag) == "ObjectPropertyChain":
            chain = [self.property_node(p) for p in self.operands(parts[0])]
            return self.add(self.property_node(parts[1]), OWL.propertyChainAxiom, self.rdf_list(chain))
        if name in _BINARY:
            first, second = (self.term(p) for p in parts[:2]) if not name.startswith("Annotation") or \
                name == "SubAnnotationPropertyOf" else (self.iri(parts[0]), self.iri(parts[1]))
            return self.add(first, _BINARY[name], second)
        if name in _CHAINED:
            terms = [self.term(p) for p in parts]
            for a, b in zip(terms, terms[1:]):
                self.add(a, _CHAINED[name], b)
            return None
        if name in _PAIRWISE:
            pairwise, group, members = _PAIRWISE[name]
            terms = [self.term(p) for p in parts]
            if len(terms) == 2:
                return self.add(terms[0], pairwise, terms[1])
            node = self.bnode()
            self.add(node, RDF.type, group)
            return self.add(node, members, self.rdf_list(terms))
        if name == "DisjointUnion":
            return self.add(self.iri(parts[0]), OWL.disjointUnionOf,
                            self.rdf_list([self.expression(p) for p in parts[1:]]))
        if name == "HasKey":
            keys = [self.property_node(p) for p in parts[1:]]
            return self.add(self.expression(parts[0]), OWL.hasKey, self.rdf_list(keys))
        self.skipped[name] = self.skipped.get(name, 0) + 1
        return None

    def term(self, el) -> Node:  # noqa: ANN001
        """A class expression, data range, property expression or individual, by its element."""
        name = _local(el.tag)
        if name in ("ObjectProperty", "ObjectInverseOf"):
            return self.property_node(el)
        if name in ("DataProperty", "AnnotationProperty", "IRI", "AbbreviatedIRI"):
            return self.iri(el)
        if name in ("NamedIndividual", "AnonymousIndividual"):
            return self.individual(el)
        return self.expression(el)


def read_owlxml(path: Path) -> tuple[list[Triple], dict[str, str]]:
    """The triples of the OWL/XML file `path` and the prefixes it declares; InputError when it is refused
    (inputguard) or is not OWL/XML."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import iterparse

    check_xml(path)
    reader = _Reader(path)
    depth = 0
    root = None
    try:
        for event, el in iterparse(str(path), events=("start", "end"), forbid_dtd=False, forbid_entities=False,
                                   forbid_external=True):
            if event == "start":
                depth += 1
                if depth == 1:
                    if _local(el.tag) != "Ontology":
                        raise InputError(f"{path} is not OWL/XML: its root element is {el.tag!r}, not "
                                         f"{{{NS}}}Ontology.")
                    root = el
                    reader.base = el.get("{" + XML_NS + "}base") or el.get("ontologyIRI") or path.resolve().as_uri()
                    reader.ontology = reader.make_iri(el.get("ontologyIRI")) if el.get("ontologyIRI") else \
                        reader.bnode()
                    reader.add(reader.ontology, RDF.type, OWL.Ontology)
                    if el.get("versionIRI"):
                        reader.add(reader.ontology, OWL.versionIRI, reader.make_iri(el.get("versionIRI")))
                elif depth == 2 and _local(el.tag) == "Prefix":
                    reader.prefixes[el.get("name", "")] = el.get("IRI", "")
                continue
            depth -= 1
            if depth == 1:
                try:
                    reader.axiom(el)
                except (IndexError, KeyError, StopIteration):
                    raise reader.fail(el, "an axiom without the parts OWL 2 gives it") from None
                root.remove(el)  # one axiom at a time in memory
    except InputError:
        raise
    except DefusedXmlException as e:
        raise InputError(f"{path} is refused: {e}. Nothing was read from outside the file.") from None
    except SyntaxError as e:  # xml.etree.ElementTree.ParseError
        raise InputError(f"{path} could not be read as OWL/XML: {' '.join(str(e).split())[:300]}") from None
    for name, n in sorted(reader.skipped.items()):
        log.warning("%s: %d <%s> element(s) left out (not part of the OWL 2 mapping to RDF)", path, n, name)
    return reader.triples, reader.prefixes


_FIRST_TAG = re.compile(rb"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)([^>]*)>", re.DOTALL)
_PROLOG = re.compile(rb"\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE(?:[^\[>]|\[.*?\])*>", re.DOTALL | re.IGNORECASE)


def is_owlxml(head: bytes) -> bool:
    """Whether the start of a file is an OWL/XML document (root element Ontology in the OWL namespace, no
    rdf:about as an RDF/XML node element would have)."""
    pos = 3 if head.startswith(b"\xef\xbb\xbf") else 0
    while True:
        m = _PROLOG.match(head, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
    m = _FIRST_TAG.match(head, pos)
    if not m or m.group(2) != b"Ontology":
        return False
    attrs = m.group(3)
    return NS.encode() in attrs and b"rdf:about" not in attrs and b"rdf:ID" not in attrs


def _nt(term: Node) -> str:
    """A term in N-Triples (IRIs were checked when read; blank node ids are made of letters and digits)."""
    if isinstance(term, URIRef):
        return f"<{term}>"
    if isinstance(term, BNode):
        return f"_:{term}"
    text = str(term).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    if term.language:
        return f'"{text}"@{term.language}'
    if term.datatype is not None:
        return f'"{text}"^^<{term.datatype}>'
    return f'"{text}"'


def iter_owlxml_ntriples(triples: list[Triple]) -> Iterator[str]:
    """The triples as N-Triples lines (to load them into a store with its native parser)."""
    for s, p, o in triples:
        yield f"{_nt(s)} {_nt(p)} {_nt(o)} .\n"


__all__ = ["read_owlxml", "is_owlxml", "iter_owlxml_ntriples"]
