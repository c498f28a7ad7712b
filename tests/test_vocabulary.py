"""Reading a user's vocabulary (`ontobuild --schema`): OWL in Turtle and RDF/XML, a schema.org-style vocabulary in
JSON-LD, units from QUDT and labels; unsafe files refused before any parser sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.vocabulary import load_vocabulary

from conftest import HIVES_PREFIXES

HX = "https://hives.example/voc#"
TTL = HIVES_PREFIXES + """hx:Colony a owl:Class ; rdfs:label "bee colony" ; rdfs:comment "Bees living together in one hive." .
hx:Apiary a owl:Class ; rdfs:label "apiary" .
hx:Swarm rdfs:subClassOf hx:Colony .
[] a owl:AllDisjointClasses ; owl:members ( hx:Colony hx:Apiary ) .
hx:honeyYield a owl:DatatypeProperty ; rdfs:label "honey yield" ; rdfs:domain hx:Colony ; rdfs:range xsd:float ;
    qudt:unit unit:KiloGM .
hx:keptAt a owl:ObjectProperty, owl:FunctionalProperty ; rdfs:domain hx:Colony ; rdfs:range hx:Apiary .
hx:inspectedBy a owl:ObjectProperty ; rdfs:domain [ a owl:Class ; owl:unionOf ( hx:Colony hx:Apiary ) ] .
hx:HillSide a hx:Apiary ; rdfs:label "Hill Side" .
"""
JSONLD = """{"@context": {"schema": "https://schema.org/", "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
  "rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#", "tt": "https://tram.example/terms/"},
 "@graph": [
  {"@id": "tt:Stop", "@type": "rdfs:Class", "rdfs:label": "stop"},
  {"@id": "tt:Line", "@type": "rdfs:Class", "rdfs:label": "line"},
  {"@id": "tt:servedBy", "@type": "rdf:Property", "schema:domainIncludes": {"@id": "tt:Stop"},
   "schema:rangeIncludes": {"@id": "tt:Line"}},
  {"@id": "tt:platformLength", "@type": "rdf:Property", "rdfs:label": "platform length (m)",
   "schema:domainIncludes": {"@id": "tt:Stop"}, "schema:rangeIncludes": {"@id": "schema:Number"}},
  {"@id": "tt:stopCode", "@type": "rdf:Property", "schema:rangeIncludes": {"@id": "schema:Text"}}
 ]}"""
RDFXML = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:owl="http://www.w3.org/2002/07/owl#"
         xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#">
  <owl:Class rdf:about="https://looms.example/o#Loom"><rdfs:label>loom</rdfs:label></owl:Class>
  <owl:DatatypeProperty rdf:about="https://looms.example/o#warpWidth">
    <rdfs:label>warp width (cm)</rdfs:label>
    <rdfs:domain rdf:resource="https://looms.example/o#Loom"/>
    <rdfs:range rdf:resource="http://www.w3.org/2001/XMLSchema#decimal"/>
  </owl:DatatypeProperty>
</rdf:RDF>"""


def _file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_owl_turtle_with_qudt_units_disjointness_and_unions(tmp_path: Path) -> None:
    v = load_vocabulary([_file(tmp_path, "hives.ttl", TTL)])
    assert v.prefixes == {"hx": HX}
    colony, y, kept = v.terms[HX + "Colony"], v.terms[HX + "honeyYield"], v.terms[HX + "keptAt"]
    assert colony.label == "bee colony" and colony.comment.startswith("Bees") and colony.disjoint == [HX + "Apiary"]
    assert v.terms[HX + "Swarm"].superclasses == [HX + "Colony"]
    assert (y.kind, y.range, y.unit, y.domain) == ("datatype", "xsd:double", "kg", [HX + "Colony"])
    assert (kept.kind, kept.range, kept.functional) == ("object", HX + "Apiary", True)
    assert v.terms[HX + "inspectedBy"].domain == [HX + "Colony", HX + "Apiary"]
    assert v.terms[HX + "HillSide"].kind == "individual" and v.terms[HX + "HillSide"].classes == [HX + "Apiary"]
    assert v.names[HX + "honeyYield"] == "honeyYield" and v.names[HX + "Colony"] == "Colony"


def test_schema_org_style_jsonld_and_rdfxml(tmp_path: Path) -> None:
    v = load_vocabulary([_file(tmp_path, "tram.jsonld", JSONLD), _file(tmp_path, "looms.owl", RDFXML)])
    tt = "https://tram.example/terms/"
    served, length = v.terms[tt + "servedBy"], v.terms[tt + "platformLength"]
    assert (served.kind, served.domain, served.range) == ("object", [tt + "Stop"], tt + "Line")
    assert (length.kind, length.range, length.unit) == ("datatype", "xsd:decimal", "m")
    assert v.terms[tt + "stopCode"].range == "xsd:string"
    width = v.terms["https://looms.example/o#warpWidth"]
    assert (width.kind, width.unit, width.range) == ("datatype", "cm", "xsd:decimal")
    assert v.prefixes["tt"] == tt and "https://looms.example/o#" in v.prefixes.values()


@pytest.mark.parametrize("name,text,why", [
    ("remote.jsonld", '{"@context": "https://vocab.example/context.jsonld", "@id": "x"}', "would be fetched"),
    ("xxe.owl", '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
                '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">&e;</rdf:RDF>', "refused"),
    ("empty.ttl", "@prefix x: <https://x.example/> .\n", "no classes, properties"),
    ("broken.ttl", "this is not turtle", "could not be read"),
    ("v.csv", "a,b\n", "must be Turtle"),
])
def test_unusable_vocabularies_are_refused(tmp_path: Path, name: str, text: str, why: str) -> None:
    with pytest.raises(InputError, match=why):
        load_vocabulary([_file(tmp_path, name, text)])
