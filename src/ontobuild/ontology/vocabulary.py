"""A user's own vocabulary (`ontobuild --schema FILE`): its classes, properties and individuals with their IRIs.

Reads OWL ontologies and RDFS vocabularies in Turtle, RDF/XML, N-Triples or JSON-LD, including schema.org-style
vocabularies (`rdf:Property` with `schema:domainIncludes` / `schema:rangeIncludes`, `schema:Text`, `schema:Number`).
Every file is checked before a parser sees it (src/ontouse/inputguard.py: no external entities, no remote JSON-LD
context); `owl:imports` is never followed.

What is read, per term: its IRI, a label (rdfs:label, skos:prefLabel, schema:name, else the IRI's local name) and a
comment; for a class its superclasses and the classes declared disjoint with it; for a property its kind (object
or datatype: declared, else from its range), domain (one class, a union, or domainIncludes), range (a class or an
xsd datatype), functional or not, and its unit when one is given (QUDT `qudt:unit` / `qudt:hasUnit`, our own
`ob:unit`, or a unit in parentheses at the end of its label: "flow rate (L/h)"); for an individual its classes.

`Vocabulary.names` gives each term the name it has in an EntitiesIndex: its local name, made safe, and unique.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ontocore.errors import InputError
from ..values.units import canonical

from .names import safe_name

log = logging.getLogger(__name__)

_FORMATS = {".ttl": "turtle", ".turtle": "turtle", ".n3": "n3", ".nt": "nt", ".owl": "xml", ".rdf": "xml",
            ".xml": "xml", ".jsonld": "json-ld", ".json": "json-ld", ".owx": "owl-xml"}
_CORE = ("http://www.w3.org/2002/07/owl#", "http://www.w3.org/2000/01/rdf-schema#",
         "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://www.w3.org/2001/XMLSchema#",
         "http://www.w3.org/2004/02/skos/core#", "http://qudt.org/schema/qudt/", "http://qudt.org/vocab/unit/",
         "http://qudt.org/vocab/quantitykind/", "http://purl.org/dc/", "https://ontobuild.example/vocab#")
_SCHEMA_NS = ("http://schema.org/", "https://schema.org/")
_XSD = "http://www.w3.org/2001/XMLSchema#"
_QUDT = "http://qudt.org/schema/qudt/"
_OB_UNIT = "https://ontobuild.example/vocab#unit"
# xsd datatypes the index knows, and the others read as one of them
_XSD_AS = {"integer": "xsd:integer", "int": "xsd:integer", "long": "xsd:integer", "short": "xsd:integer",
           "byte": "xsd:integer", "nonNegativeInteger": "xsd:integer", "positiveInteger": "xsd:integer",
           "negativeInteger": "xsd:integer", "nonPositiveInteger": "xsd:integer", "unsignedInt": "xsd:integer",
           "unsignedLong": "xsd:integer", "unsignedShort": "xsd:integer", "decimal": "xsd:decimal",
           "double": "xsd:double", "float": "xsd:double", "boolean": "xsd:boolean", "string": "xsd:string",
           "normalizedString": "xsd:string", "token": "xsd:string", "date": "xsd:date", "dateTime": "xsd:dateTime",
           "dateTimeStamp": "xsd:dateTime", "time": "xsd:time", "gYear": "xsd:gYear", "gMonthDay": "xsd:gMonthDay",
           "anyURI": "xsd:anyURI"}
# schema.org's data types
_SCHEMA_AS = {"Text": "xsd:string", "Number": "xsd:decimal", "Integer": "xsd:integer", "Float": "xsd:double",
              "Boolean": "xsd:boolean", "Date": "xsd:date", "DateTime": "xsd:dateTime", "Time": "xsd:time",
              "URL": "xsd:anyURI", "Quantity": "xsd:decimal", "Duration": "xsd:string"}
# QUDT unit codes (http://qudt.org/vocab/unit/...) -> the symbol our units table knows
_QUDT_UNITS = {"KiloGM": "kg", "GM": "g", "MilliGM": "mg", "TONNE": "t", "LB": "lb", "OZ": "oz", "M": "m",
               "CentiM": "cm", "MilliM": "mm", "KiloM": "km", "IN": "in", "FT": "ft", "MI": "mi", "M2": "m²",
               "M3": "m³", "L": "L", "MilliL": "mL", "DEG_C": "°C", "DEG_F": "°F", "SEC": "s", "MIN": "min",
               "HR": "h", "DAY": "day", "WK": "week", "MO": "month", "YR": "year", "PERCENT": "%", "W": "W",
               "KiloW": "kW", "V": "V", "A": "A", "BAR": "bar", "PA": "Pa", "KiloPA": "kPa",
               "REV-PER-MIN": "rpm", "M-PER-SEC": "m/s", "KiloM-PER-HR": "km/h"}
_LABEL_UNIT = re.compile(r"\(([^()]{1,60})\)\s*$")


@dataclass
class Term:
    """One term of a vocabulary; class and property references are IRIs."""
    iri: str
    kind: str  # "class" | "object" | "datatype" | "individual"
    label: str = ""
    comment: str = ""
    superclasses: list[str] = field(default_factory=list)
    disjoint: list[str] = field(default_factory=list)
    domain: list[str] = field(default_factory=list)
    range: str = ""  # a class IRI (object) or an index datatype such as "xsd:decimal" (datatype)
    unit: str = ""  # canonical symbol ("kg", "°C") or ISO currency code
    functional: bool = False
    classes: list[str] = field(default_factory=list)  # an individual's classes


CATALOG_FILE = "catalog-v001.xml"  # the XML catalog Protégé reads beside an ontology (imports -> local files)


@dataclass
class Vocabulary:
    terms: dict[str, Term] = field(default_factory=dict)  # IRI -> term
    prefixes: dict[str, str] = field(default_factory=dict)  # prefix -> namespace
    names: dict[str, str] = field(default_factory=dict)  # IRI -> name in an index
    files: list[str] = field(default_factory=list)
    # per file: (the IRI a built ontology imports it by, its triples as Turtle, with that IRI declared an
    # owl:Ontology): its owl:Ontology's IRI, else the namespace most of its terms are in
    ontologies: list[tuple[str, str]] = field(default_factory=list)

    def write_copies(self, folder: Path) -> list[str]:
        """Each vocabulary as Turtle in `folder/vocabulary/`, and `folder/catalog-v001.xml`, the OASIS XML catalog
        Protégé reads beside an ontology, naming the local copy of each imported IRI (so that opening the built
        ontology shows the vocabulary too, without the network). Returns the files written (relative)."""
        from xml.sax.saxutils import quoteattr

        from ontocore.folders import atomic_write

        if not self.ontologies:
            return []
        (folder / "vocabulary").mkdir(parents=True, exist_ok=True)
        written, entries = [], []
        for i, (iri, turtle) in enumerate(self.ontologies, 1):
            stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(self.files[i - 1]).stem)[:60] or "vocabulary"
            name = f"vocabulary/{i}-{stem}.ttl" if len(self.ontologies) > 1 else f"vocabulary/{stem}.ttl"
            atomic_write(folder / name, turtle)
            written.append(name)
            entries.append(f'  <uri id="{i}" name={quoteattr(iri)} uri={quoteattr(name)}/>')
        atomic_write(folder / CATALOG_FILE, '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
                     '<catalog prefer="public" xmlns="urn:oasis:names:tc:entity:xmlns:xml:catalog">\n'
                     + "\n".join(entries) + "\n</catalog>\n")
        return [*written, CATALOG_FILE]

    def of_kind(self, *kinds: str) -> list[Term]:
        return [t for t in self.terms.values() if t.kind in kinds]

    def superclasses_closure(self, iri: str) -> set[str]:
        seen: set[str] = set()
        todo = [iri]
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                term = self.terms.get(c)
                todo.extend(term.superclasses if term else [])
        return seen


def _fmt(path: Path) -> str:
    fmt = _FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise InputError(f"{path}: a vocabulary must be Turtle (.ttl), RDF/XML (.owl, .rdf, .xml), OWL/XML (.owx, or "
                         f".owl), N-Triples (.nt) or JSON-LD (.jsonld, .json); '{path.suffix or 'no suffix'}' is not "
                         "one of them.")
    if fmt == "xml":  # OWL/XML saved as .owl (Protégé's other format)
        from ontocore.owlxml import is_owlxml

        try:
            with path.open("rb") as f:
                head = f.read(8192)
        except OSError:
            return fmt
        if is_owlxml(head):
            return "owl-xml"
    return fmt


def _parse(path: Path):  # noqa: ANN202 - an rdflib Graph
    from rdflib import Graph

    from ontocore.inputguard import check_file, jsonld_text

    from ..inputs.limits import check_input_size

    if not path.is_file():
        raise InputError(f"{path}: no such vocabulary file.")
    fmt = _fmt(path)
    check_input_size(path)
    check_file(path, fmt)
    g = Graph()
    try:
        if fmt == "json-ld":  # schema.org's context is the bundled copy, never fetched
            g.parse(data=jsonld_text(path), format=fmt, publicID=path.resolve().as_uri())
        elif fmt == "owl-xml":
            from ontocore.owlxml import read_owlxml

            triples, prefixes = read_owlxml(path)
            for t in triples:
                g.add(t)
            for prefix, ns in prefixes.items():
                if prefix:
                    g.bind(prefix, ns, override=False)
        else:
            g.parse(path, format=fmt)
    except InputError:
        raise
    except Exception as e:  # noqa: BLE001 - any parser error is the user's file
        raise InputError(f"{path} could not be read as {fmt}: {' '.join(str(e).split())[:300]}") from None
    return g


def _in_order(nodes: Iterable[Any]) -> list[Any]:
    """Nodes (or tuples of nodes) in one order on every run: rdflib yields a graph's matches in an order that changes
    from process to process, and the order of the terms decides what a build shows the model first."""
    return sorted(nodes, key=lambda n: tuple(map(str, n)) if isinstance(n, tuple) else (str(n),))


def _core(iri: str) -> bool:
    return iri.startswith(_CORE) or iri.startswith(tuple(ns + t for ns in _SCHEMA_NS for t in _SCHEMA_AS))


def _local(iri: str) -> str:
    return re.split(r"[#/:]", iri.rstrip("#/"))[-1] or iri


def _namespace(iri: str) -> str:
    local = _local(iri)
    return iri[: len(iri) - len(local)] if iri.endswith(local) else iri


def _text(g, node, *preds) -> str:  # noqa: ANN001
    from rdflib import Literal

    for p in preds:
        values = sorted((o for o in g.objects(node, p) if isinstance(o, Literal)),
                        key=lambda o: (o.language not in (None, "en"), str(o)))
        if values:
            return " ".join(str(values[0]).split())
    return ""


def _datatype(iri: str) -> str | None:
    """The index datatype of a range IRI, "" for any literal, None when the range is not a datatype."""
    if iri.startswith(_XSD):
        return _XSD_AS.get(iri[len(_XSD):], "xsd:string")
    if iri in ("http://www.w3.org/2000/01/rdf-schema#Literal",
               "http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral",
               "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"):
        return ""
    for ns in _SCHEMA_NS:
        if iri.startswith(ns) and iri[len(ns):] in _SCHEMA_AS:
            return _SCHEMA_AS[iri[len(ns):]]
    return None


def _unit(g, prop) -> str:  # noqa: ANN001
    from rdflib import Literal, URIRef

    for p in (URIRef(_QUDT + "unit"), URIRef(_QUDT + "hasUnit"), URIRef(_OB_UNIT)):
        for o in g.objects(prop, p):
            if isinstance(o, Literal):
                return canonical(str(o)) or str(o).strip()
            code = _local(str(o))
            if code in _QUDT_UNITS:
                return _QUDT_UNITS[code]
            symbol = _text(g, o, URIRef(_QUDT + "symbol"), URIRef(_QUDT + "abbreviation"))
            if symbol:
                return canonical(symbol) or symbol
            if code.startswith("CCY_"):
                return code[4:]
    return ""


def _members(g, node) -> list[str]:  # noqa: ANN001
    """The classes of a class expression: a class, or the members of an owl:unionOf."""
    from rdflib import BNode, URIRef
    from rdflib.collection import Collection
    from rdflib.namespace import OWL

    if isinstance(node, URIRef):
        return [str(node)]
    if isinstance(node, BNode):
        for lst in g.objects(node, OWL.unionOf):
            return [str(x) for x in Collection(g, lst) if isinstance(x, URIRef)]
    return []


def load_vocabulary(paths: list[Path] | list[str]) -> Vocabulary:
    """Read one or more vocabulary files into one Vocabulary; InputError when a file cannot be used."""
    from rdflib import Graph

    g = Graph()
    vocab = Vocabulary(files=[str(p) for p in paths])
    for path in map(Path, paths):
        part = _parse(path)
        g += part
        vocab.ontologies.append(_ontology_of(part))
        for prefix, ns in part.namespaces():
            if str(ns).startswith(_CORE) or prefix in ("xml", "brick", "csvw", "dc", "dcat", "dcmitype", "dcterms",
                                                       "dcam", "doap", "foaf", "geo", "odrl", "org", "prof", "prov",
                                                       "qb", "schema", "sh", "sosa", "ssn", "time", "vann", "void",
                                                       "wgs", "owl", "rdf", "rdfs", "xsd", "skos"):
                continue
            vocab.prefixes.setdefault(prefix or "voc", str(ns))
    _read_terms(g, vocab)
    if not vocab.terms:
        raise InputError(f"{', '.join(vocab.files)}: no classes, properties or individuals were found (a vocabulary "
                         "declares owl:Class / rdfs:Class, owl:ObjectProperty / owl:DatatypeProperty / rdf:Property).")
    _bind_prefixes(vocab)
    _name_terms(vocab)
    log.info("vocabulary: %d classes, %d properties, %d individuals", len(vocab.of_kind("class")),
             len(vocab.of_kind("object", "datatype")), len(vocab.of_kind("individual")))
    return vocab


def _ontology_of(g) -> tuple[str, str]:  # noqa: ANN001
    """(IRI, Turtle) of one vocabulary file: its owl:Ontology's IRI, else the namespace most of its terms are in
    (without a trailing '#'), declared an owl:Ontology in the copy."""
    from collections import Counter

    from rdflib import Graph, URIRef
    from rdflib.namespace import OWL, RDF

    iri = next((str(o) for o in g.subjects(RDF.type, OWL.Ontology) if isinstance(o, URIRef)), "")
    if not iri:
        spaces = Counter(_namespace(str(s)) for s in set(g.subjects()) if isinstance(s, URIRef) and not _core(str(s)))
        iri = spaces.most_common(1)[0][0].rstrip("#") if spaces else "urn:ontobuild:vocabulary"
    copy = Graph()
    for prefix, ns in g.namespaces():
        copy.bind(prefix, ns, override=False)
    copy += g
    copy.add((URIRef(iri), RDF.type, OWL.Ontology))
    return iri, copy.serialize(format="turtle")


def _read_terms(g, vocab: Vocabulary) -> None:  # noqa: ANN001
    """The terms of graph `g` into `vocab`: classes, properties, the classes' relations, individuals; then the
    domains and ranges that no triple declared become classes."""
    from rdflib import URIRef
    from rdflib.namespace import RDFS, SKOS

    schema = [(URIRef(ns + "domainIncludes"), URIRef(ns + "rangeIncludes"), URIRef(ns + "name"))
              for ns in _SCHEMA_NS]
    label_preds = (RDFS.label, SKOS.prefLabel, *(s[2] for s in schema))

    def term(node, kind: str) -> Term | None:  # noqa: ANN001
        iri = str(node)
        if not isinstance(node, URIRef) or _core(iri):
            return None
        t = vocab.terms.get(iri)
        if t is None:
            t = vocab.terms[iri] = Term(iri, kind, _text(g, node, *label_preds) or _local(iri),
                                        _text(g, node, RDFS.comment))
        return t

    _read_classes(g, term)
    _read_properties(g, term, schema)
    classes = {iri for iri, t in vocab.terms.items() if t.kind == "class"}
    _read_class_relations(g, vocab, classes)
    _read_individuals(g, vocab, term, classes)
    _declare_undeclared_classes(vocab)


def _read_classes(g, term: Callable[[Any, str], Term | None]) -> None:  # noqa: ANN001
    """Declared classes, and both ends of each subclass axiom."""
    from rdflib import URIRef
    from rdflib.namespace import OWL, RDF, RDFS

    for cls in (OWL.Class, RDFS.Class):
        for node in _in_order(g.subjects(RDF.type, cls)):
            term(node, "class")
    for a, b in _in_order(g.subject_objects(RDFS.subClassOf)):
        for node in (a, b):
            if isinstance(node, URIRef):
                term(node, "class")


def _read_properties(g, term: Callable[[Any, str], Term | None],  # noqa: ANN001
                     schema: list[tuple[Any, Any, Any]]) -> None:
    """Declared properties with their kind (an rdf:Property's from its range), range, domain, functional flag and
    unit."""
    from rdflib import URIRef
    from rdflib.namespace import OWL, RDF, RDFS

    props = {}
    for kind, types in (("object", (OWL.ObjectProperty,)),
                        ("datatype", (OWL.DatatypeProperty,)),
                        ("", (RDF.Property, OWL.FunctionalProperty))):
        for t in types:
            for node in _in_order(g.subjects(RDF.type, t)):
                if isinstance(node, URIRef) and not _core(str(node)):
                    props.setdefault(node, kind or props.get(node, ""))
    for node, kind in props.items():
        ranges = [str(r) for r in _in_order(g.objects(node, RDFS.range)) if isinstance(r, URIRef)]
        ranges += [str(r) for p in schema for r in _in_order(g.objects(node, p[1])) if isinstance(r, URIRef)]
        datatypes = [d for d in map(_datatype, ranges) if d is not None]
        if not kind:  # rdf:Property: its range says which
            kind = "datatype" if datatypes or not ranges else "object"
        t = term(node, kind)
        if t is None:
            continue
        t.kind = kind
        if kind == "datatype":
            t.range = datatypes[0] if len(set(datatypes)) == 1 else ""
        else:
            classes = [r for r in ranges if _datatype(r) is None]
            t.range = classes[0] if len(classes) == 1 else ""
        doms = [m for d in _in_order(g.objects(node, RDFS.domain)) for m in _members(g, d)]
        doms += [str(d) for p in schema for d in _in_order(g.objects(node, p[0])) if isinstance(d, URIRef)]
        t.domain = list(dict.fromkeys(d for d in doms if not _core(d)))
        t.functional = (node, RDF.type, OWL.FunctionalProperty) in g
        t.unit = _unit(g, node)
        if not t.unit and kind == "datatype":
            m = _LABEL_UNIT.search(t.label)  # "level (m, relative to the river)": the first part
            written = m.group(1).split(",")[0].strip() if m else ""
            if written and canonical(written):
                t.unit = canonical(written)


def _read_class_relations(g, vocab: Vocabulary, classes: set[str]) -> None:  # noqa: ANN001
    """Each class's superclasses and the classes disjoint with it (pairwise or in an owl:AllDisjointClasses)."""
    from rdflib import URIRef
    from rdflib.collection import Collection
    from rdflib.namespace import OWL, RDF, RDFS

    for iri in list(classes):
        node = URIRef(iri)
        t = vocab.terms[iri]
        t.superclasses = sorted({str(s) for s in g.objects(node, RDFS.subClassOf) if str(s) in classes and str(s) != iri})
        t.disjoint = sorted({str(s) for s in g.objects(node, OWL.disjointWith) if str(s) in classes} |
                            {str(s) for s in g.subjects(OWL.disjointWith, node) if str(s) in classes})
    for group in _in_order(g.subjects(RDF.type, OWL.AllDisjointClasses)):
        for lst in _in_order(g.objects(group, OWL.members)):
            members = [str(x) for x in Collection(g, lst) if str(x) in classes]
            for m in members:
                vocab.terms[m].disjoint = sorted(set(vocab.terms[m].disjoint) | (set(members) - {m}))


def _read_individuals(g, vocab: Vocabulary, term: Callable[[Any, str], Term | None],  # noqa: ANN001
                      classes: set[str]) -> None:
    """Individuals of the vocabulary's classes, with those classes, and named individuals."""
    from rdflib import URIRef
    from rdflib.namespace import OWL, RDF

    for s, c in _in_order(g.subject_objects(RDF.type)):
        if str(c) in classes and isinstance(s, URIRef) and str(s) not in vocab.terms and not _core(str(s)):
            t = term(s, "individual")
            if t is not None:
                t.classes.append(str(c))
    for s in _in_order(g.subjects(RDF.type, OWL.NamedIndividual)):
        term(s, "individual")


def _declare_undeclared_classes(vocab: Vocabulary) -> None:
    """Properties' domains and ranges that no triple declared as classes become classes; a domain or object range
    that is another kind of term is dropped."""
    for t in list(vocab.terms.values()):
        if t.kind in ("object", "datatype"):
            t.domain = [d for d in t.domain if vocab.terms.get(d, Term(d, "class")).kind == "class"]
            for d in t.domain:
                vocab.terms.setdefault(d, Term(d, "class", _local(d)))
            if t.kind == "object" and t.range:
                if vocab.terms.get(t.range, Term(t.range, "class")).kind != "class":
                    t.range = ""
                else:
                    vocab.terms.setdefault(t.range, Term(t.range, "class", _local(t.range)))


def _bind_prefixes(vocab: Vocabulary) -> None:
    """Every namespace of a term has a prefix (the file's own, else voc, voc2, ...)."""
    bound = set(vocab.prefixes.values())
    for iri in sorted(vocab.terms):
        ns = _namespace(iri)
        if ns and ns not in bound and ns[-1] in "#/":
            n = 1
            while (name := "voc" if n == 1 else f"voc{n}") in vocab.prefixes:
                n += 1
            vocab.prefixes[name] = ns
            bound.add(ns)
    used = {_namespace(iri) for iri in vocab.terms}
    vocab.prefixes = {p: ns for p, ns in vocab.prefixes.items() if ns in used and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.-]*", p)}


def _name_terms(vocab: Vocabulary) -> None:
    """Index names: the local name made safe (classes capitalized, properties lowerCamel), unique."""
    prefix_of = {ns: p for p, ns in vocab.prefixes.items()}
    taken: set[str] = set()
    for iri in sorted(vocab.terms, key=lambda i: (vocab.terms[i].kind != "class", i)):
        t = vocab.terms[iri]
        local = _local(iri)
        name = safe_name(local, lower_first=t.kind in ("object", "datatype")) if not re.fullmatch(
            r"[A-Za-z_][A-Za-z0-9_]*", local) else local
        if name.lower() in taken:
            name = f"{prefix_of.get(_namespace(iri), 'voc')}_{name}"
        n = 2
        base = name
        while name.lower() in taken:
            name, n = f"{base}{n}", n + 1
        taken.add(name.lower())
        vocab.names[iri] = name
