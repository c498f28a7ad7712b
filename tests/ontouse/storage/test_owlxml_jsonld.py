"""ontoask reads OWL/XML (Protégé's "OWL/XML" format) and JSON-LD whose @context is schema.org's (the bundled copy,
never fetched); hostile files stay refused. Hand-written files of a made-up domain: a small observatory
(telescopes, mirrors, observers) and a puppet theatre's shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import RDF, RDFS, XSD

from ontocore.errors import InputError
from ontouse.cli import main as ask_main
from ontouse.storage.graph import guess_format, load_graph
from ontocore.inputguard import is_schema_org

OBS = "http://observatory.example/onto#"

OWX = f"""<?xml version="1.0"?>
<!-- saved by hand, as Protégé saves OWL/XML -->
<Ontology xmlns="http://www.w3.org/2002/07/owl#"
     xml:base="http://observatory.example/onto"
     xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
     xmlns:xml="http://www.w3.org/XML/1998/namespace"
     xmlns:xsd="http://www.w3.org/2001/XMLSchema#"
     xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"
     ontologyIRI="http://observatory.example/onto"
     versionIRI="http://observatory.example/onto/2">
    <Prefix name="" IRI="{OBS}"/>
    <Prefix name="rdfs" IRI="http://www.w3.org/2000/01/rdf-schema#"/>
    <Prefix name="xsd" IRI="http://www.w3.org/2001/XMLSchema#"/>
    <Import>http://observatory.example/never-fetched</Import>
    <Annotation>
        <AnnotationProperty abbreviatedIRI="rdfs:comment"/>
        <Literal xml:lang="en">Telescopes of a small observatory</Literal>
    </Annotation>
    <Declaration><Class IRI="#Instrument"/></Declaration>
    <Declaration><Class IRI="#Telescope"/></Declaration>
    <Declaration><Class IRI="#Mirror"/></Declaration>
    <Declaration><Class abbreviatedIRI=":Observer"/></Declaration>
    <Declaration><ObjectProperty IRI="#hasMirror"/></Declaration>
    <Declaration><ObjectProperty IRI="#usedBy"/></Declaration>
    <Declaration><DataProperty IRI="#apertureMm"/></Declaration>
    <Declaration><NamedIndividual IRI="#Refractor1"/></Declaration>
    <Declaration><NamedIndividual IRI="#Reflector2"/></Declaration>
    <Declaration><NamedIndividual IRI="#MainMirror"/></Declaration>
    <Declaration><NamedIndividual IRI="#Vera"/></Declaration>
    <SubClassOf>
        <Annotation><AnnotationProperty abbreviatedIRI="rdfs:comment"/><Literal>an axiom annotation</Literal></Annotation>
        <Class IRI="#Telescope"/>
        <Class IRI="#Instrument"/>
    </SubClassOf>
    <SubClassOf>
        <Class IRI="#Telescope"/>
        <ObjectMaxCardinality cardinality="1">
            <ObjectProperty IRI="#hasMirror"/>
            <Class IRI="#Mirror"/>
        </ObjectMaxCardinality>
    </SubClassOf>
    <DisjointClasses><Class IRI="#Instrument"/><Class abbreviatedIRI=":Observer"/></DisjointClasses>
    <InverseObjectProperties><ObjectProperty IRI="#usedBy"/><ObjectProperty IRI="#uses"/></InverseObjectProperties>
    <FunctionalDataProperty><DataProperty IRI="#apertureMm"/></FunctionalDataProperty>
    <ObjectPropertyDomain><ObjectProperty IRI="#hasMirror"/><Class IRI="#Telescope"/></ObjectPropertyDomain>
    <DataPropertyRange><DataProperty IRI="#apertureMm"/><Datatype abbreviatedIRI="xsd:integer"/></DataPropertyRange>
    <ClassAssertion><Class IRI="#Telescope"/><NamedIndividual IRI="#Refractor1"/></ClassAssertion>
    <ClassAssertion><Class IRI="#Telescope"/><NamedIndividual IRI="#Reflector2"/></ClassAssertion>
    <ClassAssertion><Class IRI="#Mirror"/><NamedIndividual IRI="#MainMirror"/></ClassAssertion>
    <ClassAssertion><Class abbreviatedIRI=":Observer"/><NamedIndividual IRI="#Vera"/></ClassAssertion>
    <ObjectPropertyAssertion>
        <ObjectProperty IRI="#hasMirror"/><NamedIndividual IRI="#Reflector2"/><NamedIndividual IRI="#MainMirror"/>
    </ObjectPropertyAssertion>
    <ObjectPropertyAssertion>
        <ObjectInverseOf><ObjectProperty IRI="#uses"/></ObjectInverseOf>
        <NamedIndividual IRI="#Refractor1"/><NamedIndividual IRI="#Vera"/>
    </ObjectPropertyAssertion>
    <DataPropertyAssertion>
        <DataProperty IRI="#apertureMm"/><NamedIndividual IRI="#Refractor1"/>
        <Literal datatypeIRI="http://www.w3.org/2001/XMLSchema#integer">102</Literal>
    </DataPropertyAssertion>
    <DataPropertyAssertion>
        <DataProperty IRI="#apertureMm"/><NamedIndividual IRI="#Reflector2"/>
        <Literal datatypeIRI="http://www.w3.org/2001/XMLSchema#integer">254</Literal>
    </DataPropertyAssertion>
    <AnnotationAssertion>
        <AnnotationProperty abbreviatedIRI="rdfs:label"/><IRI>#Reflector2</IRI><Literal xml:lang="en">Big reflector</Literal>
    </AnnotationAssertion>
    <AnnotationAssertion>
        <AnnotationProperty abbreviatedIRI="rdfs:label"/><AbbreviatedIRI>:Vera</AbbreviatedIRI><Literal>Vera R.</Literal>
    </AnnotationAssertion>
    <DLSafeRule><Body/><Head/></DLSafeRule>
</Ontology>
"""

# the same ontology in Turtle, as the OWL 2 mapping to RDF gives it (the axiom annotation and the rule left out)
TTL = f"""@prefix : <{OBS}> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://observatory.example/onto> a owl:Ontology ; owl:versionIRI <http://observatory.example/onto/2> ;
    owl:imports <http://observatory.example/never-fetched> ; rdfs:comment "Telescopes of a small observatory"@en .
:Instrument a owl:Class . :Mirror a owl:Class . :Observer a owl:Class .
:Telescope a owl:Class ; rdfs:subClassOf :Instrument ,
    [ a owl:Restriction ; owl:onProperty :hasMirror ; owl:maxQualifiedCardinality "1"^^xsd:nonNegativeInteger ;
      owl:onClass :Mirror ] .
:Instrument owl:disjointWith :Observer .
:hasMirror a owl:ObjectProperty ; rdfs:domain :Telescope .
:usedBy a owl:ObjectProperty ; owl:inverseOf :uses .
:apertureMm a owl:DatatypeProperty, owl:FunctionalProperty ; rdfs:range xsd:integer .
:Refractor1 a owl:NamedIndividual, :Telescope ; :apertureMm 102 .
:Reflector2 a owl:NamedIndividual, :Telescope ; :apertureMm 254 ; :hasMirror :MainMirror ; rdfs:label "Big reflector"@en .
:MainMirror a owl:NamedIndividual, :Mirror .
:Vera a owl:NamedIndividual, :Observer ; :uses :Refractor1 ; rdfs:label "Vera R." .
"""


@pytest.mark.parametrize("name", ["observatory.owx", "observatory.owl"])
@pytest.mark.parametrize("store", ["oxigraph", "memory"])
def test_owlxml_reads_as_its_rdf_twin(tmp_path: Path, name: str, store: str) -> None:
    path = tmp_path / name
    path.write_text(OWX, "utf-8")
    assert guess_format(path, path.read_bytes()[:8192]) == "owl-xml"
    twin = tmp_path / "twin.ttl"
    twin.write_text(TTL, "utf-8")
    got, expected = _plain(load_graph([path], store=store)), _plain(load_graph([twin], store=store))
    assert len(got) == len(expected) == 36
    assert isomorphic(got, expected), sorted(set(got) ^ set(expected), key=str)[:6]


def _plain(g: Graph) -> Graph:
    """A memory copy of `g`; Oxigraph holds a plain literal as xsd:string (the same literal in RDF 1.1)."""
    out = Graph()
    for s, p, o in g:
        out.add((s, p, Literal(str(o)) if isinstance(o, Literal) and o.datatype == XSD.string else o))
    return out


def test_rdfxml_is_not_taken_for_owlxml(tmp_path: Path) -> None:
    path = tmp_path / "o.owl"
    Graph().parse(data=TTL, format="turtle").serialize(path, format="xml")
    assert guess_format(path, path.read_bytes()[:8192]) == "xml"


def test_ontoask_answers_sparql_over_owlxml(tmp_path: Path) -> None:
    path = tmp_path / "observatory.owx"
    path.write_text(OWX, "utf-8")
    query = f"SELECT ?t ?a WHERE {{ ?t a <{OBS}Telescope> ; <{OBS}apertureMm> ?a }} ORDER BY ?a"
    result = CliRunner().invoke(ask_main, ["--ontology", str(path), "--sparql", query])
    assert result.exit_code == 0, result.output
    assert "Refractor1" in result.output and "254" in result.output


def test_owlxml_with_a_persisted_store(tmp_path: Path) -> None:
    from ontouse.storage.persist import open_persisted

    path = tmp_path / "observatory.owx"
    path.write_text(OWX, "utf-8")
    g = open_persisted([path], tmp_path / "store")
    assert (URIRef(OBS + "Reflector2"), URIRef(OBS + "hasMirror"), URIRef(OBS + "MainMirror")) in g


@pytest.mark.parametrize("doctype,message", [
    ('<!DOCTYPE Ontology SYSTEM "http://127.0.0.1:9/x.dtd">', "external DTD"),
    ('<!DOCTYPE Ontology [<!ENTITY x SYSTEM "file:///etc/passwd">]>', "external entity"),
    ('<!DOCTYPE Ontology [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]>', "refers to other entities"),
])
def test_hostile_owlxml_is_refused(tmp_path: Path, doctype: str, message: str) -> None:
    path = tmp_path / "bad.owx"
    path.write_text(OWX.replace("<!-- saved by hand, as Protégé saves OWL/XML -->", doctype), "utf-8")
    with pytest.raises(InputError, match=message):
        load_graph([path])


def test_owlxml_internal_entities_are_read(tmp_path: Path) -> None:
    path = tmp_path / "entities.owx"
    text = OWX.replace("<!-- saved by hand, as Protégé saves OWL/XML -->",
                       f'<!DOCTYPE Ontology [<!ENTITY obs "{OBS}">]>').replace('IRI="#MainMirror"', 'IRI="&obs;MainMirror"')
    path.write_text(text, "utf-8")
    g = load_graph([path], store="memory")
    assert (URIRef(OBS + "MainMirror"), RDF.type, URIRef(OBS + "Mirror")) in g


def test_owlxml_literals_with_quotes_and_lines_keep_their_text(tmp_path: Path) -> None:
    path = tmp_path / "notes.owx"
    note = 'Collimate "monthly"\nback\\slash'
    path.write_text(OWX.replace("<Literal>Vera R.</Literal>", f"<Literal>{note}</Literal>"), "utf-8")
    for store in ("oxigraph", "memory"):
        g = load_graph([path], store=store)
        assert [str(o) for o in g.objects(URIRef(OBS + "Vera"), RDFS.label)] == [note]


@pytest.mark.parametrize("text,message", [
    ("<Ontology xmlns='http://www.w3.org/2002/07/owl#'><Declaration><Class IRI='http://x.example/a b'/>"
     "</Declaration></Ontology>", "is not an IRI"),
    ("<Ontology xmlns='http://www.w3.org/2002/07/owl#' ontologyIRI='http://x.example/o&gt; &lt;http://y'/>",
     "is not an IRI"),
    ("<Ontology xmlns='http://www.w3.org/2002/07/owl#'><Declaration><Class/></Declaration></Ontology>",
     "without IRI"),
    ("<Ontology xmlns='http://www.w3.org/2002/07/owl#'><Declaration><Class abbreviatedIRI='no:X'/></Declaration>"
     "</Ontology>", "prefix 'no'"),
    ("<Ontology xmlns='http://www.w3.org/2002/07/owl#'><Declaration>", "could not be read as OWL/XML"),
])
def test_broken_owlxml_gets_a_clear_message(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "broken.owx"
    path.write_text(text, "utf-8")
    with pytest.raises(InputError, match=message):
        load_graph([path])


PUPPETRY = {
    "@context": "https://schema.org",
    "@graph": [
        {"@id": "https://puppets.example/show/winter", "@type": "TheaterEvent", "name": "Winter puppet show",
         "startDate": "2031-12-14", "url": "https://puppets.example/winter",
         "location": {"@type": "Place", "name": "Old town hall"},
         "performer": {"@id": "https://puppets.example/people/mara"}},
        {"@id": "https://puppets.example/people/mara", "@type": "Person", "name": "Mara Lind",
         "sameAs": "https://people.example/mara"},
    ],
}


@pytest.mark.parametrize("context", ["https://schema.org", "http://schema.org/", "https://schema.org/",
                                     ["https://schema.org", {"ex": "https://puppets.example/terms#"}]])
def test_jsonld_with_the_schema_org_context_uses_the_bundled_copy(tmp_path: Path, context: object) -> None:
    path = tmp_path / "puppetry.jsonld"
    path.write_text(json.dumps({**PUPPETRY, "@context": context}), "utf-8")
    g = load_graph([path])
    show = URIRef("https://puppets.example/show/winter")
    s = "http://schema.org/"
    assert (show, RDF.type, URIRef(s + "TheaterEvent")) in g
    assert (show, URIRef(s + "name"), Literal("Winter puppet show")) in g
    assert (show, URIRef(s + "url"), URIRef("https://puppets.example/winter")) in g  # an IRI, as schema.org says
    assert (show, URIRef(s + "performer"), URIRef("https://puppets.example/people/mara")) in g
    place = g.value(show, URIRef(s + "location"))
    assert isinstance(place, BNode) and (place, URIRef(s + "name"), Literal("Old town hall")) in g


def test_other_remote_contexts_stay_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.jsonld"
    for context in ("https://schema.org.evil.example/", "https://vocab.example/context.jsonld",
                    ["https://schema.org", "https://vocab.example/c"]):
        path.write_text(json.dumps({**PUPPETRY, "@context": context}), "utf-8")
        with pytest.raises(InputError, match="would be fetched"):
            load_graph([path])
    assert is_schema_org("HTTPS://www.schema.org/") and not is_schema_org("https://schema.org.example")


def test_ontoask_reads_schema_org_jsonld(tmp_path: Path) -> None:
    path = tmp_path / "puppetry.jsonld"
    path.write_text(json.dumps(PUPPETRY), "utf-8")
    query = "SELECT ?n WHERE { ?p a <http://schema.org/Person> ; <http://schema.org/name> ?n }"
    result = CliRunner().invoke(ask_main, ["--ontology", str(path), "--sparql", query])
    assert result.exit_code == 0, result.output
    assert "Mara Lind" in result.output



def test_a_vocabulary_with_the_schema_org_context_is_read_for_schema(tmp_path: Path) -> None:
    """ontobuild --schema reads a schema.org-style vocabulary whose context is schema.org's (the bundled copy)."""
    from ontobuild.ontology.vocabulary import load_vocabulary

    path = tmp_path / "puppetry-terms.jsonld"
    path.write_text(json.dumps({"@context": "https://schema.org/", "@graph": [
        {"@id": "https://puppets.example/terms/Rehearsal", "@type": "rdfs:Class", "rdfs:label": "rehearsal"},
        {"@id": "https://puppets.example/terms/durationMin", "@type": "rdf:Property", "rdfs:label": "duration (min)",
         "domainIncludes": {"@id": "https://puppets.example/terms/Rehearsal"},
         "rangeIncludes": {"@id": "schema:Number"}},
    ]}), "utf-8")
    vocab = load_vocabulary([path])
    assert {"https://puppets.example/terms/Rehearsal", "https://puppets.example/terms/durationMin"} <= set(vocab.terms)


@pytest.mark.parametrize("name", ["observatory.owx", "observatory.owl"])
def test_an_owlxml_vocabulary_is_read_for_schema(tmp_path: Path, name: str) -> None:
    """ontobuild --schema reads a vocabulary Protégé saved as OWL/XML."""
    from ontobuild.ontology.vocabulary import load_vocabulary

    path = tmp_path / name
    path.write_text(OWX, "utf-8")
    vocab = load_vocabulary([path])
    assert {OBS + "Telescope", OBS + "apertureMm", OBS + "hasMirror"} <= set(vocab.terms)
    assert vocab.terms[OBS + "apertureMm"].kind == "datatype"


# class expressions, data ranges and axioms beyond the observatory's, in one ontology (compared with an OWL API)
RICH = f"""<?xml version="1.0"?>
<Ontology xmlns="http://www.w3.org/2002/07/owl#" xml:base="http://observatory.example/onto"
     ontologyIRI="http://observatory.example/onto">
    <Prefix name="" IRI="{OBS}"/>
    <Prefix name="xsd" IRI="http://www.w3.org/2001/XMLSchema#"/>
    <Declaration><Class IRI="#Telescope"/></Declaration>
    <Declaration><Class IRI="#Mirror"/></Declaration>
    <Declaration><Class IRI="#Dome"/></Declaration>
    <Declaration><Class IRI="#Site"/></Declaration>
    <Declaration><ObjectProperty IRI="#hasMirror"/></Declaration>
    <Declaration><ObjectProperty IRI="#housedIn"/></Declaration>
    <Declaration><ObjectProperty IRI="#locatedAt"/></Declaration>
    <Declaration><ObjectProperty IRI="#siteOf"/></Declaration>
    <Declaration><DataProperty IRI="#apertureMm"/></Declaration>
    <Declaration><DataProperty IRI="#serial"/></Declaration>
    <Declaration><NamedIndividual IRI="#Refractor1"/></Declaration>
    <Declaration><NamedIndividual IRI="#Reflector2"/></Declaration>
    <Declaration><NamedIndividual IRI="#NorthDome"/></Declaration>
    <Declaration><NamedIndividual IRI="#Ridge"/></Declaration>
    <EquivalentClasses>
        <Class IRI="#Site"/>
        <ObjectUnionOf><ObjectOneOf><NamedIndividual IRI="#Ridge"/></ObjectOneOf><Class IRI="#Dome"/></ObjectUnionOf>
    </EquivalentClasses>
    <SubClassOf>
        <Class IRI="#Telescope"/>
        <ObjectIntersectionOf>
            <ObjectSomeValuesFrom><ObjectProperty IRI="#housedIn"/><Class IRI="#Dome"/></ObjectSomeValuesFrom>
            <ObjectAllValuesFrom><ObjectProperty IRI="#hasMirror"/><Class IRI="#Mirror"/></ObjectAllValuesFrom>
            <ObjectComplementOf><Class IRI="#Mirror"/></ObjectComplementOf>
            <DataSomeValuesFrom><DataProperty IRI="#apertureMm"/>
                <DatatypeRestriction><Datatype abbreviatedIRI="xsd:integer"/>
                    <FacetRestriction facet="http://www.w3.org/2001/XMLSchema#minInclusive">
                        <Literal datatypeIRI="http://www.w3.org/2001/XMLSchema#integer">50</Literal>
                    </FacetRestriction>
                </DatatypeRestriction>
            </DataSomeValuesFrom>
            <ObjectMinCardinality cardinality="1"><ObjectProperty IRI="#housedIn"/></ObjectMinCardinality>
            <DataExactCardinality cardinality="1"><DataProperty IRI="#serial"/><Datatype abbreviatedIRI="xsd:string"/></DataExactCardinality>
        </ObjectIntersectionOf>
    </SubClassOf>
    <SubClassOf>
        <Class IRI="#Dome"/>
        <ObjectHasValue><ObjectProperty IRI="#locatedAt"/><NamedIndividual IRI="#Ridge"/></ObjectHasValue>
    </SubClassOf>
    <DisjointUnion><Class IRI="#Site"/><Class IRI="#Dome"/><Class IRI="#Mirror"/></DisjointUnion>
    <SubObjectPropertyOf>
        <ObjectPropertyChain><ObjectProperty IRI="#housedIn"/><ObjectProperty IRI="#locatedAt"/></ObjectPropertyChain>
        <ObjectProperty IRI="#locatedAt"/>
    </SubObjectPropertyOf>
    <InverseObjectProperties><ObjectProperty IRI="#locatedAt"/><ObjectProperty IRI="#siteOf"/></InverseObjectProperties>
    <TransitiveObjectProperty><ObjectProperty IRI="#locatedAt"/></TransitiveObjectProperty>
    <HasKey><Class IRI="#Telescope"/><DataProperty IRI="#serial"/></HasKey>
    <DifferentIndividuals>
        <NamedIndividual IRI="#Refractor1"/><NamedIndividual IRI="#Reflector2"/><NamedIndividual IRI="#NorthDome"/>
    </DifferentIndividuals>
    <ClassAssertion><Class IRI="#Dome"/><NamedIndividual IRI="#NorthDome"/></ClassAssertion>
    <ObjectPropertyAssertion>
        <ObjectProperty IRI="#housedIn"/><NamedIndividual IRI="#Reflector2"/><NamedIndividual IRI="#NorthDome"/>
    </ObjectPropertyAssertion>
    <NegativeObjectPropertyAssertion>
        <ObjectProperty IRI="#housedIn"/><NamedIndividual IRI="#Refractor1"/><NamedIndividual IRI="#NorthDome"/>
    </NegativeObjectPropertyAssertion>
    <DataPropertyAssertion>
        <DataProperty IRI="#serial"/><NamedIndividual IRI="#Refractor1"/><Literal>R-0001</Literal>
    </DataPropertyAssertion>
</Ontology>
"""


@pytest.mark.parametrize("text", [OWX, RICH], ids=["observatory", "rich"])
def test_owlxml_reads_as_an_owl_api_maps_it_to_rdf(tmp_path: Path, text: str) -> None:
    """py-horned-owl (an OWL 2 API) reads the same OWL/XML and writes it as RDF/XML: the same graph (up to blank
    nodes) as ours. The SWRL rule and the axiom annotation, which we leave out, are taken out first."""
    pyhornedowl = pytest.importorskip("pyhornedowl")
    text = text.replace("<DLSafeRule><Body/><Head/></DLSafeRule>", "").replace(
        '<Annotation><AnnotationProperty abbreviatedIRI="rdfs:comment"/><Literal>an axiom annotation</Literal>'
        '</Annotation>', "")
    path = tmp_path / "o.owx"
    path.write_text(text, "utf-8")
    reference = pyhornedowl.open_ontology_from_string(text, "owx").save_to_string("rdf")
    expected = _plain(Graph().parse(data=reference, format="xml"))
    got = _plain(load_graph([path], store="memory"))
    assert len(got) == len(expected)
    assert isomorphic(got, expected), sorted(set(got) ^ set(expected), key=str)[:6]
