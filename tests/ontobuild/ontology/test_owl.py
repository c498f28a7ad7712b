from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.compare import graph_diff, isomorphic, to_isomorphic
import rdflib.namespace as ns

from ontobuild.ontology.entries import Fact

from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.indexfile import load_index
from ontobuild.ontology.owl import make_literal, serialize, to_graph, to_rdfxml

from conftest import REPO

EXPECTED = """
@prefix : <http://example.org/t#> .
@prefix ob: <https://ontobuild.example/vocab#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix qudt: <http://qudt.org/schema/qudt/> .
@prefix unit: <http://qudt.org/vocab/unit/> .

<http://example.org/t> a owl:Ontology .

ob:unit a owl:AnnotationProperty ; rdfs:label "unit" .
qudt:unit a owl:AnnotationProperty ; rdfs:label "unit (QUDT)" .

:Product a owl:Class ; rdfs:label "Product" ; rdfs:comment "Something we sell" .
:Lantern a owl:Class ; rdfs:label "Lantern model" ; rdfs:subClassOf :Product .
:Crate a owl:Class ; rdfs:label "Crate" .

:weightKg a owl:DatatypeProperty ; rdfs:label "weightKg" ; rdfs:domain :Product ; rdfs:range xsd:decimal ;
    ob:unit "kg" ; qudt:unit unit:KiloGM .
:storedOn a owl:ObjectProperty ; rdfs:label "storedOn" ; rdfs:domain :Product ; rdfs:range :Crate .

:P1 a owl:NamedIndividual, :Lantern ; rdfs:label "Lantern one" ; rdfs:comment "A lantern" ;
    :weightKg 12.5, 12500.0 ; :storedOn :Cr1 .
:Cr1 a owl:NamedIndividual, :Crate ; rdfs:label "Cr1" .

[] a owl:Axiom ; owl:annotatedSource :P1 ; owl:annotatedProperty :weightKg ; owl:annotatedTarget 12500.0 ;
    ob:unit "g" ; qudt:unit unit:GM .
"""


def _diff(a: Graph, b: Graph) -> str:
    _, only_a, only_b = graph_diff(to_isomorphic(a), to_isomorphic(b))
    return f"only in actual: {sorted(only_a)}\nonly in expected: {sorted(only_b)}"


def test_tiny_graph(tiny_index: EntitiesIndex) -> None:
    actual = to_graph(tiny_index)
    expected = Graph().parse(data=EXPECTED, format="turtle")
    assert isomorphic(actual, expected), _diff(actual, expected)


def test_rdfxml_and_turtle_agree(tiny_index: EntitiesIndex) -> None:
    rdfxml, turtle = serialize(tiny_index)
    a = Graph().parse(data=rdfxml, format="xml")
    b = Graph().parse(data=turtle, format="turtle")
    assert isomorphic(a, b), _diff(a, b)
    assert isomorphic(a, to_graph(tiny_index))
    assert rdfxml.startswith(b'<?xml version="1.0" encoding="utf-8"?>')


def test_union_domain_and_literals() -> None:
    idx = EntitiesIndex(base_iri="http://example.org/u#")
    idx.add_class("A")
    idx.add_class("B")
    idx.add_property("p", "datatype", domain=["B", "A"], range="xsd:double")
    idx.add_property("n", "datatype")
    idx.add_individual("x", classes=["A"], aliases=["the x"])
    idx.add_fact("x", Fact("p", literal="1234567.891"))
    idx.add_fact("x", Fact("n", literal="tab\there & <there> \u0001"))
    g = to_graph(idx)
    domain = g.value(URIRef("http://example.org/u#p"), URIRef("http://www.w3.org/2000/01/rdf-schema#domain"))
    members = list(g.items(g.value(domain, ns.OWL.unionOf)))
    assert members == [URIRef("http://example.org/u#A"), URIRef("http://example.org/u#B")]
    rdfxml, turtle = serialize(idx)
    assert b'"1234567.891"^^xsd:double' in turtle  # rdflib's shorthand would round it
    a, b = Graph().parse(data=rdfxml, format="xml"), Graph().parse(data=turtle, format="turtle")
    assert isomorphic(a, b), _diff(a, b)
    assert Literal("tab\there & <there> ") in set(a.objects())


@pytest.mark.parametrize("lexical, datatype, expected", [
    ("12500", "xsd:decimal", Literal("12500.0", datatype=ns.XSD.decimal)),
    ("1e3", "xsd:decimal", Literal("1000.0", datatype=ns.XSD.decimal)),
    ("12.", "xsd:decimal", Literal("12.0", datatype=ns.XSD.decimal)),
    ("1", "xsd:boolean", Literal("true", datatype=ns.XSD.boolean)),
    ("7", "xsd:integer", Literal("7", datatype=ns.XSD.integer)),
    ("plain", "xsd:string", Literal("plain")),
    ("plain", "", Literal("plain")),
])
def test_make_literal(lexical: str, datatype: str, expected: Literal) -> None:
    got = make_literal(lexical, datatype)
    assert got == expected and got.datatype == expected.datatype


def test_deterministic_in_process(tiny_index: EntitiesIndex) -> None:
    assert serialize(tiny_index) == serialize(tiny_index)


_SCRIPT = """
import hashlib, sys
from ontobuild.ontology.indexfile import load_index
from ontobuild.ontology.owl import serialize
x, t = serialize(load_index(sys.argv[1]))
print(hashlib.sha256(x).hexdigest(), hashlib.sha256(t).hexdigest())
"""


def test_deterministic_across_processes(tiny_index: EntitiesIndex, tmp_path: Path) -> None:
    tiny_index.add_property("q", "datatype", domain=["Product", "Crate"])  # blank nodes: union domain
    path = tmp_path / "idx.json"
    path.write_text(tiny_index.to_json(), encoding="utf-8")
    digests = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(REPO / "src")}
        out = subprocess.run([sys.executable, "-c", _SCRIPT, str(path)], env=env, capture_output=True,
                             text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1


def test_poc_ontology(poc_index_path: Path) -> None:
    idx = load_index(poc_index_path)
    rdfxml, _ = serialize(idx)
    g = Graph().parse(data=rdfxml, format="xml")
    assert len(set(g.subjects(ns.RDF.type, ns.OWL.NamedIndividual))) == 62
    assert len(set(g.subjects(ns.RDF.type, ns.OWL.Class))) == 46
    assert len(set(g.subjects(ns.RDF.type, ns.OWL.Ontology))) == 1


def test_owlready2_loads_all_datatypes(tmp_path: Path) -> None:
    owlready2 = pytest.importorskip("owlready2")
    idx = EntitiesIndex(base_iri="http://example.org/d#")
    idx.add_class("C")
    idx.add_individual("x", classes=["C"])
    values = {"xsd:integer": "42", "xsd:decimal": "0.80", "xsd:double": "1.5e3", "xsd:boolean": "true",
              "xsd:date": "2024-02-29", "xsd:dateTime": "2024-02-29T10:00:00", "xsd:anyURI": "https://a.example/?q=1&r=2",
              "xsd:string": "text"}
    for dt, value in values.items():
        name = "p_" + dt.split(":")[1]
        idx.add_property(name, "datatype", range=dt)
        idx.add_fact("x", Fact(name, literal=value))
    path = tmp_path / "d.owl"
    path.write_bytes(to_rdfxml(to_graph(idx)))
    world = owlready2.World()
    onto = world.get_ontology(path.as_uri()).load()
    x = onto.search_one(iri="http://example.org/d#x")
    assert x is not None
    assert x.p_integer == [42] and x.p_boolean == [True] and x.p_string == ["text"]
    assert float(x.p_decimal[0]) == 0.8 and x.p_double == [1500.0]
    assert str(x.p_date[0]) == "2024-02-29"
    world.close()
