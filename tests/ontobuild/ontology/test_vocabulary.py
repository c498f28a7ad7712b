"""Reading a user's vocabulary (`ontobuild --schema`): OWL in Turtle and RDF/XML, a schema.org-style vocabulary in
JSON-LD, units from QUDT and labels; unsafe files refused before any parser sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.ontology.vocabulary import load_vocabulary

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


# ---- public vocabularies (tests/data/vocabularies/README.md: what they are and their licences) ----------------

VOCABS = Path(__file__).resolve().parents[2] / "data" / "vocabularies"
ORG = "http://www.w3.org/ns/org#"
FOAF = "http://xmlns.com/foaf/0.1/"
SDO = "http://schema.org/"


def test_an_owl_vocabulary_whose_domains_and_ranges_name_classes_it_does_not_declare() -> None:
    """The W3C Organization Ontology: foaf:Agent, foaf:Person, skos:Concept... are only named in domains and
    ranges; they become classes of the vocabulary (this crashed: 'dictionary changed size during iteration')."""
    v = load_vocabulary([VOCABS / "org.ttl"])
    assert v.ontologies[0][0] == ORG
    assert v.terms[FOAF + "Agent"].kind == "class" and v.terms[FOAF + "Person"].kind == "class"
    member = v.terms[ORG + "memberOf"]
    assert (member.kind, member.domain, member.range) == ("object", [FOAF + "Agent"], ORG + "Organization")
    assert v.terms[ORG + "role"].domain == [ORG + "Membership", ORG + "Post"]  # an owl:unionOf domain
    assert v.terms[ORG + "basedAt"].domain == [FOAF + "Person"]
    assert ORG + "Site" in v.terms[ORG + "Organization"].disjoint
    assert v.names[FOAF + "Agent"] == "Agent" and v.names[ORG + "memberOf"] == "memberOf"


def test_a_schema_org_style_vocabulary_in_turtle_and_json_ld(tmp_path: Path) -> None:
    """schema.org's physical-activity extension: domainIncludes / rangeIncludes naming core classes the file does not
    declare (ExerciseAction, QuantitativeValue) and data types (Text, Number); the same as JSON-LD."""
    from rdflib import Graph

    jsonld = tmp_path / "activity.jsonld"
    jsonld.write_text(Graph().parse(VOCABS / "schemaorg-physical-activity.ttl").serialize(format="json-ld"),
                      encoding="utf-8")
    for path in (VOCABS / "schemaorg-physical-activity.ttl", jsonld):
        v = load_vocabulary([path])
        kind = v.terms[SDO + "exerciseType"]
        assert (kind.kind, kind.range, sorted(kind.domain)) == ("datatype", "xsd:string",
                                                                [SDO + "ExerciseAction", SDO + "ExercisePlan"]), path
        plan = v.terms[SDO + "exercisePlan"]
        assert (plan.kind, plan.domain, plan.range) == ("object", [SDO + "ExerciseAction"], SDO + "ExercisePlan")
        assert v.terms[SDO + "ExerciseAction"].kind == "class"  # named only in a domainIncludes
        assert v.terms[SDO + "Balance"].kind == "individual" and v.terms[SDO + "Balance"].classes == [
            SDO + "PhysicalActivityCategory"]
        assert v.ontologies[0][0] == "http://schema.org/"  # a namespace ending in "/" is kept whole


def test_a_build_with_a_vocabulary_imports_it_and_protege_finds_a_local_copy(tmp_path: Path) -> None:
    """The built ontology owl:imports each vocabulary; the outcome holds a Turtle copy of each and the XML catalog
    Protégé reads beside an ontology; the reasoner checks the ontology without fetching the import."""
    from rdflib import Graph, URIRef
    from rdflib.namespace import OWL, RDF

    from ontobuild.ontology.alignment import align
    from ontobuild.ontology.entries import Fact
    from ontobuild.ontology.index import EntitiesIndex
    from ontobuild.outputs.outcome import write_index_outcome

    class NeverAsked:
        backend, model = "scripted", "none"

        def chat(self, *args, **kwargs):
            raise AssertionError("the model was asked although code had decided")

    v = load_vocabulary([VOCABS / "org.ttl", VOCABS / "schemaorg-physical-activity.ttl"])
    idx = EntitiesIndex("http://example.org/kilns#")  # a pottery co-operative's sites, named as the vocabulary names
    idx.add_class("Organization")
    idx.add_class("Site")
    idx.add_property("hasSite", "object", ["Organization"], "Site")
    idx.add_individual("ClayGuild", ["Organization"])
    idx.add_individual("RiversideKilns", ["Site"])
    idx.add_fact("ClayGuild", Fact("hasSite", object="RiversideKilns"))
    records = {r["term"]: r for r in align(NeverAsked(), idx, v, use_embeddings=False)}
    assert records["hasSite"]["how"] == "same name" and idx.iri_of("hasSite") == ORG + "hasSite"
    idx.imports = [iri for iri, _ in v.ontologies]
    written = v.write_copies(tmp_path)
    stats = write_index_outcome(idx, tmp_path, reason=True, timeout_s=120)
    g = Graph().parse(tmp_path / "ontology.ttl")
    onto = next(g.subjects(RDF.type, OWL.Ontology))
    assert set(g.objects(onto, OWL.imports)) == {URIRef(ORG), URIRef("http://schema.org/")}
    assert written == ["vocabulary/1-org.ttl", "vocabulary/2-schemaorg-physical-activity.ttl", "catalog-v001.xml"]
    catalog = (tmp_path / "catalog-v001.xml").read_text("utf-8")
    assert f'name="{ORG}" uri="vocabulary/1-org.ttl"' in catalog
    copy = Graph().parse(tmp_path / "vocabulary" / "2-schemaorg-physical-activity.ttl")
    assert (URIRef("http://schema.org/"), RDF.type, OWL.Ontology) in copy
    assert stats["reasoner"]["status"] in ("consistent", "not checked")
    if stats["reasoner"]["status"] == "not checked":  # only without Java
        assert "Java" in stats["reasoner"]["reason"]
    assert '"imports"' in (tmp_path / "entities_index.json").read_text("utf-8")


def test_a_vocabulary_is_read_in_the_same_order_in_every_process() -> None:
    """rdflib yields a graph's matches in an order that changes between processes (hash seeds); the terms, their
    domains and ranges come out in one order, since that order decides what a build shows the model first."""
    import os
    import subprocess
    import sys

    vocab = Path(__file__).resolve().parents[2] / "data" / "vocabularies" / "org.ttl"
    code = ("import sys; from ontobuild.ontology.vocabulary import load_vocabulary; "
            "v = load_vocabulary([sys.argv[1]]); "
            "print([(k, t.kind, t.domain, t.range, t.classes) for k, t in v.terms.items()])")
    outs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run([sys.executable, "-c", code, str(vocab)], capture_output=True, text=True, env=env,
                             check=True)
        outs.add(run.stdout)
    assert len(outs) == 1
