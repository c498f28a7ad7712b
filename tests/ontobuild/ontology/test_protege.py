"""Protégé-ready output: the ontology IRI (given, or derived from the outcome's name), its header, QUDT units and
JSON-LD; the RDF/XML opened with an OWL API parser (py-horned-owl) as Protégé would read it. Builds are
`--from-index` (no model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from rdflib import Graph, Literal, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import DCTERMS, OWL, RDF, XSD

from conftest import make_tiny_index
from ontobuild import __version__
from ontobuild.cli import main
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.owl import QUDT, OntologyHeader, to_graph, to_jsonld
from ontobuild.values.units import qudt_iri
from ontouse.storage.graph import load_graph

UNIT = "http://qudt.org/vocab/unit/"


def _greenhouse_index() -> EntitiesIndex:
    """A made-up greenhouse: beds with an area, plants with a height and a price, a fact in another unit."""
    idx = EntitiesIndex()  # the default namespace: the build names it after the outcome
    idx.add_class("Bed")
    idx.add_class("Plant")
    idx.add_property("areaM2", "datatype", domain=["Bed"], range="xsd:decimal", unit="m²")
    idx.add_property("heightCm", "datatype", domain=["Plant"], range="xsd:integer", unit="cm")
    idx.add_property("priceEur", "datatype", domain=["Plant"], range="xsd:decimal", unit="EUR")
    idx.add_property("wateringEurPerDay", "datatype", domain=["Bed"], range="xsd:decimal", unit="EUR per day")
    idx.add_property("growsIn", "object", domain=["Plant"], range="Bed")
    idx.add_individual("BedNorth", classes=["Bed"], label="North bed")
    idx.add_individual("Fern", classes=["Plant"], label="Fern")
    idx.add_fact("BedNorth", Fact("areaM2", literal="12.5", unit="m²", source={"file": "beds.csv", "path": "/0"}))
    idx.add_fact("BedNorth", Fact("wateringEurPerDay", literal="0.4", source={"file": "notes.md", "path": "#2"}))
    idx.add_fact("Fern", Fact("heightCm", literal="40", unit="cm", source={"file": "plants.csv", "path": "/0"}))
    idx.add_fact("Fern", Fact("heightCm", literal="1", unit="ft", source={"file": "plants.csv", "path": "/1"}))
    idx.add_fact("Fern", Fact("priceEur", literal="7.90", source={"file": "plants.csv", "path": "/0"}))
    idx.add_fact("Fern", Fact("growsIn", object="BedNorth"))
    return idx


def _build(tmp_path: Path, name: str, *extra: str) -> Path:
    index = tmp_path / "greenhouse_index.json"
    index.write_text(_greenhouse_index().to_json(), "utf-8")
    out = tmp_path / name
    result = CliRunner().invoke(main, ["--from-index", str(index), "--out", str(out), "--no-reason", *extra])
    assert result.exit_code == 0, result.output
    return out


def test_units_map_to_qudt_in_one_table() -> None:
    assert qudt_iri("kg") == UNIT + "KiloGM"
    assert qudt_iri("Kg") == UNIT + "KiloGM"  # as written in a key: the unit table's canonical form
    assert qudt_iri("m²") == UNIT + "M2" and qudt_iri("°C") == UNIT + "DEG_C" and qudt_iri("km/h") == UNIT + "KiloM-PER-HR"
    assert qudt_iri("EUR") == "http://qudt.org/vocab/currency/EUR" and qudt_iri("$").endswith("/USD")
    assert qudt_iri("EUR per hour") == "" and qudt_iri("working day") == "" and qudt_iri("crate") == ""


def test_ontology_iri_given_header_and_qudt_units_read_by_an_owl_api(tmp_path: Path) -> None:
    pyhornedowl = pytest.importorskip("pyhornedowl")
    out = _build(tmp_path, "garden", "--ontology-iri", "https://greenhouse.example/onto")
    onto = pyhornedowl.open_ontology_from_file(str(out / "ontology.owl"))
    assert onto.get_iri() is not None and str(onto.get_iri()) == "https://greenhouse.example/onto"
    version = str(onto.get_version_iri())
    assert version.startswith("https://greenhouse.example/onto/") and len(version) > len("https://greenhouse.example/onto/")
    header = _annotations(onto, "https://greenhouse.example/onto")
    assert header[str(DCTERMS.source)] == {"beds.csv", "notes.md", "plants.csv"}
    assert header[str(DCTERMS.creator)] == {f"ontobuild {__version__}"}
    assert header["http://www.w3.org/2000/01/rdf-schema#label"] == {"garden"}
    (created,) = header[str(DCTERMS.created)]
    assert created[:4].isdigit() and "T" in created
    # the names are in the ontology's namespace; units as QUDT IRIs on the properties
    assert _annotations(onto, "https://greenhouse.example/onto#heightCm")[str(QUDT.unit)] == {UNIT + "CentiM"}
    assert _annotations(onto, "https://greenhouse.example/onto#areaM2")[str(QUDT.unit)] == {UNIT + "M2"}
    assert _annotations(onto, "https://greenhouse.example/onto#priceEur")[str(QUDT.unit)] == \
        {"http://qudt.org/vocab/currency/EUR"}
    assert str(QUDT.unit) not in _annotations(onto, "https://greenhouse.example/onto#wateringEurPerDay")
    assert "https://greenhouse.example/onto#Fern" in {str(i) for i in onto.get_named_individuals()}
    stats = json.loads((out / "stats.json").read_text("utf-8"))
    assert stats["ontology_iri"] == "https://greenhouse.example/onto"
    saved = json.loads((out / "entities_index.json").read_text("utf-8"))
    assert saved["base_iri"] == "https://greenhouse.example/onto#"


def _annotations(onto, subject: str) -> dict[str, set[str]]:  # noqa: ANN001
    """property IRI -> values (IRIs or literal texts) of the annotations on `subject` (the ontology's own when
    `subject` is its IRI), as the OWL API read them."""
    from pyhornedowl.model import AnnotationAssertion, OntologyAnnotation

    out: dict[str, set[str]] = {}
    for component in onto.get_axioms():
        ax = component.component
        if isinstance(ax, OntologyAnnotation) and subject == str(onto.get_iri()):
            ann = ax.first
        elif isinstance(ax, AnnotationAssertion) and str(ax.subject) == subject:
            ann = ax.ann
        else:
            continue
        value = ann.av
        text = getattr(value, "literal", None)
        out.setdefault(str(ann.ap.first), set()).add(str(text) if text is not None else str(value))
    return out


def test_default_ontology_iri_follows_the_outcome_name(tmp_path: Path) -> None:
    first, second = _build(tmp_path, "spring"), _build(tmp_path, "autumn")
    a = Graph().parse(first / "ontology.owl", format="xml")
    b = Graph().parse(second / "ontology.owl", format="xml")
    (onto_a,) = a.subjects(RDF.type, OWL.Ontology)
    (onto_b,) = b.subjects(RDF.type, OWL.Ontology)
    assert str(onto_a) == "http://example.org/ontobuild/spring" and str(onto_b) == "http://example.org/ontobuild/autumn"
    assert (URIRef("http://example.org/ontobuild/spring#Fern"), RDF.type, OWL.NamedIndividual) in a
    assert (onto_a, OWL.versionIRI, None) in a and (onto_a, DCTERMS.created, None) in a
    created = a.value(onto_a, DCTERMS.created)
    assert created.datatype == XSD.dateTime
    # a fact in another unit than its property's keeps both units on its axiom annotation
    axiom = next(a.subjects(OWL.annotatedTarget, Literal("1", datatype=XSD.integer)))
    assert a.value(axiom, QUDT.unit) == URIRef(UNIT + "FT")


def test_index_namespace_and_vocabulary_iris_are_kept(tmp_path: Path) -> None:
    """An index with its own namespace keeps it; terms with their own IRI (a vocabulary's) keep theirs even with
    --ontology-iri."""
    idx = make_tiny_index()  # namespace http://example.org/t#
    idx.add_property("colour", "datatype", domain=["Product"], range="xsd:string")
    idx.properties["colour"].iri = "https://vocab.example/colour"
    idx.prefixes["voc"] = "https://vocab.example/"
    index = tmp_path / "tiny.json"
    index.write_text(idx.to_json(), "utf-8")
    runner = CliRunner()
    assert runner.invoke(main, ["--from-index", str(index), "--out", str(tmp_path / "own"), "--no-reason"]).exit_code == 0
    g = Graph().parse(tmp_path / "own" / "ontology.ttl", format="turtle")
    assert (URIRef("http://example.org/t"), RDF.type, OWL.Ontology) in g
    result = runner.invoke(main, ["--from-index", str(index), "--out", str(tmp_path / "given"), "--no-reason",
                                  "--ontology-iri", "urn:example:shop/"])
    assert result.exit_code == 0, result.output
    g = Graph().parse(tmp_path / "given" / "ontology.ttl", format="turtle")
    assert (URIRef("urn:example:shop/P1"), RDF.type, OWL.NamedIndividual) in g
    assert (URIRef("https://vocab.example/colour"), RDF.type, OWL.DatatypeProperty) in g


def test_a_bad_ontology_iri_is_refused_before_any_work(tmp_path: Path) -> None:
    index = tmp_path / "tiny.json"
    index.write_text(make_tiny_index().to_json(), "utf-8")
    result = CliRunner().invoke(main, ["--from-index", str(index), "--out", str(tmp_path / "o"),
                                       "--ontology-iri", "not an iri"])
    assert result.exit_code == 2 and "--ontology-iri" in result.output
    assert not (tmp_path / "o").exists()


def test_jsonld_is_written_with_an_inline_context_and_reads_back(tmp_path: Path) -> None:
    out = _build(tmp_path, "summer")
    doc = json.loads((out / "ontology.jsonld").read_text("utf-8"))
    assert isinstance(doc["@context"], dict) and all(isinstance(v, str) for v in doc["@context"].values())
    ttl = Graph().parse(out / "ontology.ttl", format="turtle")
    jsonld = Graph().parse(out / "ontology.jsonld", format="json-ld")
    assert len(jsonld) == len(ttl) and isomorphic(jsonld, ttl)
    # ontoask reads it too (its checks pass: the context is inline)
    assert len(load_graph([out / "ontology.jsonld"])) == len(ttl)


def test_header_is_deterministic_for_one_creation_time() -> None:
    idx = _greenhouse_index()
    header = OntologyHeader(label="x", created="2030-01-02T03:04:05Z", version_iri="http://e.org/x/1",
                            sources=["b.csv", "a.csv"], generator="ontobuild test")
    g1, g2 = to_graph(idx, header), to_graph(idx, header)
    assert to_jsonld(g1) == to_jsonld(g2)
    sources = sorted(str(o) for o in g1.objects(None, DCTERMS.source))
    assert sources == ["a.csv", "b.csv"]


def test_same_index_name_and_creation_time_give_the_same_bytes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1900000000")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = _build(tmp_path / "a", "orchard"), _build(tmp_path / "b", "orchard")
    for name in ("ontology.owl", "ontology.ttl", "ontology.jsonld"):
        assert (first / name).read_bytes() == (second / name).read_bytes()
    g = Graph().parse(first / "ontology.ttl", format="turtle")
    onto = URIRef("http://example.org/ontobuild/orchard")
    assert g.value(onto, DCTERMS.created).toPython().timestamp() == 1900000000
    assert '"2030-03-17T17:46:40Z"^^xsd:dateTime' in (first / "ontology.ttl").read_text("utf-8")
    assert str(g.value(onto, OWL.versionIRI)) == "http://example.org/ontobuild/orchard/20300317T174640Z"
