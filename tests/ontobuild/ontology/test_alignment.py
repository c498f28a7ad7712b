"""Aligning a built index onto the user's vocabulary: code's compatible candidates, the model's choice (recorded
real exchanges of the embedded model), renames and merges onto the vocabulary's IRIs, new terms listed.

Set ONTOBUILD_RECORD=1 to re-record the cassette with the real local model after changing the prompt or tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontobuild.ontology.alignment import align, iri_share, property_problem
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.owl import to_graph
from ontobuild.outputs.report import build_report
from ontocore.trace import Trace
from ontobuild.ontology.vocabulary import Term, load_vocabulary

from conftest import HIVES_PREFIXES, cassette_model

HERE = Path(__file__).resolve().parents[2]
CASSETTE = HERE / "cassettes" / "align_vocabulary.json"
HX = "https://hives.example/voc#"
VOCAB = HIVES_PREFIXES + """hx:Colony a owl:Class ; rdfs:label "bee colony" ; rdfs:comment "The bees that live together in one hive." .
hx:Apiary a owl:Class ; rdfs:label "apiary" ; rdfs:comment "A place where hives are kept." .
hx:Beekeeper a owl:Class ; rdfs:label "beekeeper" .
[] a owl:AllDisjointClasses ; owl:members ( hx:Colony hx:Apiary hx:Beekeeper ) .
hx:honeyYield a owl:DatatypeProperty ; rdfs:label "honey yield" ; rdfs:comment "Honey harvested from a colony in a season." ;
    rdfs:domain hx:Colony ; rdfs:range xsd:decimal ; qudt:unit unit:KiloGM .
hx:queenAge a owl:DatatypeProperty ; rdfs:label "queen age" ; rdfs:domain hx:Colony ; rdfs:range xsd:integer ;
    qudt:unit unit:MO .
hx:keptAt a owl:ObjectProperty, owl:FunctionalProperty ; rdfs:label "kept at" ; rdfs:domain hx:Colony ;
    rdfs:range hx:Apiary .
hx:frames a owl:DatatypeProperty ; rdfs:label "frame count" ; rdfs:domain hx:Colony ; rdfs:range xsd:integer .
hx:HillSide a hx:Apiary ; rdfs:label "Hill Side" .
"""


def built_index() -> EntitiesIndex:
    """What the builder could make of a hives table: its own names for the vocabulary's concepts."""
    idx = EntitiesIndex("http://example.org/hives#")
    idx.add_class("Hive", label="Hive")
    idx.add_class("Site", label="Site")
    idx.add_property("honeyKg", "datatype", ["Hive"], "xsd:decimal", unit="kg")
    idx.properties["honeyKg"].dimension = "mass"
    idx.add_property("queenAgeYears", "datatype", ["Hive"], "xsd:integer", unit="year")
    idx.properties["queenAgeYears"].dimension = "time"
    idx.add_property("frameCount", "datatype", ["Hive"], "xsd:integer")
    idx.add_property("keptIn", "object", ["Hive"], "Site")
    idx.add_individual("HillSide", ["Site"], label="Hill Side", source={"file": "hives.csv", "path": "$[0].site"})
    for name, honey, age, frames in (("Amber", "21.5", "2", "9"), ("Birch", "14.0", "1", "7")):
        idx.add_individual(name, ["Hive"], label=name, source={"file": "hives.csv", "path": f"$[{name}]"})
        idx.add_fact(name, Fact("honeyKg", literal=honey, datatype="xsd:decimal", unit="kg"))
        idx.add_fact(name, Fact("queenAgeYears", literal=age, datatype="xsd:integer", unit="year"))
        idx.add_fact(name, Fact("frameCount", literal=frames, datatype="xsd:integer"))
        idx.add_fact(name, Fact("keptIn", object="HillSide"))
    return idx


@pytest.fixture
def vocab(tmp_path: Path):
    path = tmp_path / "hives.ttl"
    path.write_text(VOCAB, encoding="utf-8")
    return load_vocabulary([path])


def _model():
    return cassette_model(CASSETTE)


def test_code_refuses_what_cannot_be_the_same(vocab) -> None:
    idx = built_index()
    age = vocab.terms[HX + "queenAge"]
    assert "in month" in property_problem(idx, vocab, "queenAgeYears", age)  # another unit: never merged
    assert "datatype property" in property_problem(idx, vocab, "keptIn", vocab.terms[HX + "frames"])
    idx.add_fact("Amber", Fact("frameCount", literal="8", datatype="xsd:integer"))
    idx.properties["frameCount"].range = "xsd:decimal"
    idx.add_fact("Amber", Fact("frameCount", literal="7.5", datatype="xsd:decimal"))
    assert "not \"7.5\"" in property_problem(idx, vocab, "frameCount", vocab.terms[HX + "frames"])
    tag = Term(HX + "hiveTag", "datatype", "hive tag", range="xsd:string")
    vocab.names[tag.iri] = "hiveTag"
    assert "holds numbers" in property_problem(idx, vocab, "frameCount", tag)  # a number never becomes text
    idx.add_property("lastInspection", "datatype", ["Hive"], "xsd:date")
    idx.add_fact("Amber", Fact("lastInspection", literal="2026-05-02", datatype="xsd:date"))
    assert "holds texts, lastInspection holds dates" in property_problem(idx, vocab, "lastInspection", tag)
    idx.add_property("broodFrames", "datatype", ["Hive"], "xsd:integer", unit="frame")
    idx.properties["broodFrames"].dimension = "count"
    idx.add_fact("Birch", Fact("broodFrames", literal="4", unit="frame"))
    frames = Term(HX + "broodFrameCount", "datatype", "brood frames", range="xsd:integer")
    bees = Term(HX + "workerCount", "datatype", "worker bees", range="xsd:integer")
    vocab.names.update({frames.iri: "broodFrameCount", bees.iri: "workerCount"})
    assert property_problem(idx, vocab, "broodFrames", frames) == ""
    assert "counts frames" in property_problem(idx, vocab, "broodFrames", bees)  # what is counted must be the same
    idx.add_property("split", "datatype", ["Hive"], "xsd:string")  # dates a table gave as text
    idx.add_fact("Amber", Fact("split", literal="2026-04-11"))
    day = Term(HX + "splitOn", "datatype", "split on", range="xsd:date")
    vocab.names[day.iri] = "splitOn"
    assert property_problem(idx, vocab, "split", day) == ""


def test_built_terms_become_vocabulary_terms(vocab) -> None:
    idx = built_index()
    trace = Trace()
    listed = align(_model(), idx, vocab, trace, use_embeddings=True)
    assert [r["alignment"]["term"] for r in trace.records if r["kind"] == "align"] == [r["term"] for r in listed]
    records = {r["term"]: r for r in listed}
    assert records["frameCount"]["how"] == "same name" and records["frameCount"]["name"] == "frames"
    assert records["Hive"]["iri"] == HX + "Colony" and records["Hive"]["how"] == "model chose"
    assert records["honeyKg"]["iri"] == HX + "honeyYield"
    # the embedded model keeps "keptIn" (a Site) apart from "kept at" (an Apiary): offered, not chosen
    assert records["keptIn"]["iri"] == "" and records["keptIn"]["candidates"] == ["keptAt"]
    assert records["keptIn"]["how"] == "model said none"
    assert records["queenAgeYears"]["iri"] == "" and "in month" in " ".join(records["queenAgeYears"]["refused"])
    amber = idx.individuals["Amber"]
    assert amber.classes == ["Colony"] and {f.property for f in amber.facts} == {"honeyYield", "queenAgeYears",
                                                                                 "frames", "keptIn"}
    assert idx.individuals["HillSide"].iri == HX + "HillSide" and "Apiary" in idx.individuals["HillSide"].classes
    assert idx.properties["keptAt"].functional and idx.classes["Colony"].disjoint == ["Apiary", "Beekeeper"]
    assert not idx.dangling()
    assert {f.datatype for f in amber.facts if f.property == "honeyYield"} == {"xsd:decimal"}
    share = iri_share(idx, vocab)
    assert share["properties"] == {"used": 4, "vocabulary": 2, "new": ["keptIn", "queenAgeYears"]}
    g = to_graph(idx)
    assert len(list(g.triples((None, None, None)))) > 0 and "hx" in dict(g.namespaces())
    page = build_report(idx, {}, {"alignments": listed})
    assert "Your vocabulary" in page and HX + "honeyYield" in page and "New terms" in page


def test_schema_option_is_not_for_from_index(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from ontobuild.cli import main

    result = CliRunner().invoke(main, ["--from-index", str(tmp_path / "i.json"), "--schema", str(tmp_path / "v.ttl")])
    assert result.exit_code == 2 and "--schema" in result.output


LIGHTS = """@prefix lh: <https://lights.example/o#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
lh:Lighthouse a owl:Class ; rdfs:label "lighthouse" .
lh:towerHeight a owl:DatatypeProperty ; rdfs:label "tower height (m, above the rock)" ; rdfs:range xsd:decimal .
lh:Harbour a owl:Class ; rdfs:label "harbour" .
lh:homeHarbour a owl:ObjectProperty ; rdfs:domain lh:Lighthouse ; rdfs:range lh:Harbour .
"""


class NeverAsked:  # loop mechanics only: fails the test if the model is asked
    backend, model = "scripted", "none"

    def chat(self, *args, **kwargs):
        raise AssertionError("the model was asked although code had decided")


def test_same_name_terms_are_taken_once_and_values_take_the_vocabulary_unit(tmp_path: Path) -> None:
    path = tmp_path / "lights.ttl"
    path.write_text(LIGHTS, encoding="utf-8")
    vocab = load_vocabulary([path])
    assert vocab.terms["https://lights.example/o#towerHeight"].unit == "m"
    idx = EntitiesIndex("http://example.org/coast#")
    idx.add_class("Lighthouse")
    idx.add_property("towerHeight", "datatype", ["Lighthouse"], "xsd:decimal")  # no unit in the data
    idx.add_property("towerHeightM", "datatype", ["Lighthouse"], "xsd:decimal", unit="m")
    idx.add_property("homeHarbour", "datatype", ["Lighthouse"], "xsd:string")  # a table column of names
    for name in ("NorthHead", "SouthHead"):
        idx.add_individual(name, ["Lighthouse"])
        idx.add_fact(name, Fact("homeHarbour", literal="Port Ellen", source={"file": "lights.csv", "path": name}))
    idx.add_fact("NorthHead", Fact("towerHeight", literal="31"))
    idx.add_fact("NorthHead", Fact("towerHeightM", literal="28"))  # another value on the same thing
    records = {r["term"]: r for r in align(NeverAsked(), idx, vocab, use_embeddings=False)}
    assert records["towerHeight"]["how"] == "same name" and idx.properties["towerHeight"].unit == "m"
    assert records["towerHeightM"]["how"] == "no candidate"  # one thing never gets two values of one concept
    assert {f.property for f in idx.individuals["NorthHead"].facts} == {"towerHeight", "towerHeightM", "homeHarbour"}
    # the vocabulary says a home harbour is a Harbour: the names become one harbour both lighthouses link to
    assert records["homeHarbour"]["how"] == "same name" and idx.properties["homeHarbour"].kind == "object"
    [link] = [f for f in idx.individuals["SouthHead"].facts if f.property == "homeHarbour"]
    harbour = idx.individuals[link.object]
    assert harbour.label == "Port Ellen" and harbour.classes == ["Harbour"] and harbour.source["file"] == "lights.csv"
    assert [f.object for f in idx.individuals["NorthHead"].facts if f.property == "homeHarbour"] == [harbour.name]
    assert not idx.dangling()


def test_a_lower_bound_never_becomes_an_upper_one(vocab) -> None:
    idx = built_index()
    idx.add_property("feedingStart", "datatype", ["Hive"], "xsd:time")
    idx.add_fact("Amber", Fact("feedingStart", literal="06:30:00", datatype="xsd:time"))
    until = Term(HX + "feedingUntil", "datatype", "feeding until", range="xsd:time")
    start = Term(HX + "feedingFrom", "datatype", "feeding from", range="xsd:time")
    vocab.names[until.iri], vocab.names[start.iri] = "feedingUntil", "feedingFrom"
    assert "is an upper bound" in property_problem(idx, vocab, "feedingStart", until)
    assert property_problem(idx, vocab, "feedingStart", start) == ""
