"""Terms of other namespaces in the index: their own IRIs in the OWL, bound prefixes, JSON round trip, merges of
classes, and provenance of facts stated with a vocabulary's property."""

from __future__ import annotations

from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF, RDFS

from ontobuild.ontology.entries import ClassDef, Fact, PropertyDef

from ontobuild.ontology.index import EntitiesIndex
from ontobuild.outputs.outcome import write_index_outcome
from ontobuild.ontology.owl import serialize, to_graph
from ontouse.provenance import Provenance

HX = "https://hives.example/voc#"


def _index() -> EntitiesIndex:
    idx = EntitiesIndex("http://example.org/apiary#")
    idx.prefixes["hx"] = HX
    idx.classes["Colony"] = ClassDef("Colony", "colony", iri=HX + "Colony", disjoint=["Apiary"])
    idx.classes["Apiary"] = ClassDef("Apiary", "apiary", iri=HX + "Apiary")
    idx.properties["frameCount"] = PropertyDef("frameCount", "datatype", domain=["Colony"], range="xsd:integer",
                                               iri=HX + "frames", functional=True)
    idx.properties["keptAt"] = PropertyDef("keptAt", "object", domain=["Colony"], range="Apiary", iri=HX + "keptAt")
    idx.add_individual("HillSide", ["Apiary"], label="Hill Side")
    idx.add_individual("Amber", ["Colony"], label="Amber", source={"file": "hives.csv", "path": "$[0]"})
    idx.add_fact("Amber", Fact("frameCount", literal="9", datatype="xsd:integer",
                               source={"file": "hives.csv", "path": "$[0].frames"}))
    idx.add_fact("Amber", Fact("keptAt", object="HillSide", source={"file": "hives.csv", "path": "$[0].site"}))
    return idx


def test_vocabulary_terms_keep_their_iris() -> None:
    idx = _index()
    g = to_graph(idx)
    assert (URIRef(HX + "Colony"), OWL.disjointWith, URIRef(HX + "Apiary")) in g
    assert (URIRef(HX + "frames"), RDF.type, OWL.FunctionalProperty) in g
    amber = URIRef("http://example.org/apiary#Amber")
    assert (amber, URIRef(HX + "keptAt"), URIRef("http://example.org/apiary#HillSide")) in g
    assert (amber, RDF.type, URIRef(HX + "Colony")) in g
    rdfxml, turtle = serialize(idx)
    assert b"@prefix hx: <https://hives.example/voc#>" in turtle
    assert len(Graph().parse(data=rdfxml, format="xml")) == len(g)
    again = EntitiesIndex.from_dict(idx.to_dict())
    assert again.to_dict() == idx.to_dict() and again.iri_of("keptAt") == HX + "keptAt"
    assert "functional" not in idx.to_dict()["properties"]["keptAt"]


def test_merge_class_moves_members_and_uses() -> None:
    idx = _index()
    idx.add_class("Hive", roles=["a box of bees"])
    idx.add_individual("Birch", ["Hive"])
    idx.properties["keptAt"].domain.append("Hive")
    assert idx.merge_class("Hive", "Colony") == 1
    assert idx.individuals["Birch"].classes == ["Colony"] and "Hive" not in idx.classes
    assert idx.properties["keptAt"].domain == ["Colony"] and "a box of bees" in idx.classes["Colony"].roles
    assert not idx.dangling()


def test_provenance_through_vocabulary_iris(tmp_path: Path) -> None:
    idx = _index()
    write_index_outcome(idx, tmp_path, reason=False)
    prov = Provenance.find([tmp_path])
    assert prov is not None
    prefixes = {"hx": HX, "": idx.base_iri}
    src = prov.sources([[":Amber", "hx:frames", "9"], [":Amber", "hx:keptAt", ":HillSide"],
                        [":Amber", "rdfs:label", "Amber"], [":Amber", "hx:frames", "10"]],
                       prefixes | {"rdfs": str(RDFS)})
    assert src[0]["path"] == "$[0].frames" and src[1]["path"] == "$[0].site"
    assert src[2] == {"file": "hives.csv", "path": "$[0]"} and src[3] == {}
