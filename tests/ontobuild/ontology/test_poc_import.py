from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.indexfile import load_index
from ontobuild.ontology.poc import from_poc
from ontobuild.values.datatypes import literal_type, widen


def test_reference_index(poc_index_path: Path) -> None:
    raw = json.loads(poc_index_path.read_text("utf-8"))
    idx = load_index(poc_index_path)
    assert idx.dangling() == []
    assert set(raw["tbox_classes"]) <= set(idx.classes)
    assert len(idx.classes) == 46  # 45 declared + Product, used by individuals but not declared
    assert "Product" in idx.classes
    assert set(raw["abox_ind"]) == set(idx.individuals) and len(idx.individuals) == 62
    assert set(raw["tbox_prop"]) <= set(idx.properties) and len(idx.properties) == 66
    n_values = sum(len(i["properties"]) for i in raw["abox_ind"].values())
    assert sum(len(i.facts) for i in idx.individuals.values()) == n_values  # no duplicates in that file
    # kinds and datatypes inferred from the values
    props = idx.properties
    assert props["hasColor"].kind == "object"
    assert props["name"].kind == "datatype"  # some names are also individuals, not all
    assert props["id"].range == "xsd:integer"
    assert props["dailyStorageCostEuroPerPallet"].range == "xsd:decimal"
    assert props["piecesPerSquareMeterAtMaxSpacing"].range == "xsd:decimal"
    assert props["imageURL"].range == "xsd:anyURI"
    assert props["modularDimensionsCm"].range == "xsd:string"
    assert props["describedAlsoBy"].kind == "object"  # no values; its role says it links individuals
    # provenance and roles
    ind = idx.individuals["SideLineSP8"]
    assert ind.source["path"] == "/abox_ind/SideLineSP8"
    assert ind.facts[0].source == {"file": str(poc_index_path), "path": "/abox_ind/SideLineSP8/properties/0"}
    assert ind.roles and idx.classes["RetainingWalls"].superclasses == ["ProductCategory"]
    # and it survives our own format
    assert EntitiesIndex.from_dict(json.loads(idx.to_json())).to_json() == idx.to_json()


def test_names_and_undeclared() -> None:
    data = {
        "tbox_classes": {"Thing A": {"name": "Thing A", "subclassOf": ["Top Level"], "role": ["a class"]}},
        "tbox_prop": {"weight": {"name": "weight", "role": []}},
        "abox_ind": {
            "item 1": {"name": "item 1", "classes": ["Thing A"], "role": [],
                       "properties": [["weight", "12"], ["weight", "12.5"], ["made by", "Maker X"],
                                      ["site", "https://x.example"], ["flag", True]]},
            "Maker X": {"name": "Maker X", "classes": ["Maker"], "properties": [["weight", 3]], "role": ["maker"]},
        },
    }
    idx = from_poc(data, origin="poc.json")
    assert idx.dangling() == []
    assert set(idx.classes) == {"ThingA", "TopLevel", "Maker"}
    assert idx.classes["ThingA"].label == "Thing A" and idx.classes["ThingA"].superclasses == ["TopLevel"]
    assert set(idx.individuals) == {"Item1", "MakerX"}
    assert idx.individuals["Item1"].label == "item 1"
    assert idx.properties["weight"].range == "xsd:decimal"  # integers and decimals mixed
    made_by = idx.properties["madeBy"]
    assert made_by.kind == "object" and made_by.label == "made by"
    assert idx.properties["site"].range == "xsd:anyURI"
    assert idx.properties["flag"].range == "xsd:boolean"
    facts = {f.property: f for f in idx.individuals["Item1"].facts}
    assert facts["madeBy"].object == "MakerX"
    assert facts["madeBy"].source == {"file": "poc.json", "path": "/abox_ind/item 1/properties/2"}


def test_name_collisions_get_suffixes() -> None:
    data = {"tbox_classes": {"Color": {"name": "Color", "subclassOf": [], "role": []}},
            "tbox_prop": {},
            "abox_ind": {"Color": {"name": "Color", "classes": ["Color"], "properties": [], "role": []}}}
    idx = from_poc(data, origin="p.json")
    assert "Color" in idx.classes and "Color_2" in idx.individuals
    assert idx.individuals["Color_2"].classes == ["Color"] and idx.individuals["Color_2"].label == "Color"


@pytest.mark.parametrize("value, dt", [
    ("12", "xsd:integer"), ("-3", "xsd:integer"), ("007", "xsd:string"), ("0.80", "xsd:decimal"),
    ("true", "xsd:boolean"), ("2024-01-31", "xsd:date"), ("http://a.example/x", "xsd:anyURI"),
    ("100 x 8 x 25", "xsd:string"), ("", "xsd:string"),
])
def test_literal_type(value: str, dt: str) -> None:
    assert literal_type(value) == dt


def test_widen() -> None:
    assert widen(["xsd:integer", "xsd:decimal"]) == "xsd:decimal"
    assert widen(["xsd:integer", "xsd:anyURI"]) == "xsd:string"
    assert widen(["xsd:boolean"]) == "xsd:boolean"


@pytest.mark.parametrize("data", [
    {"tbox_classes": 3, "tbox_prop": {}, "abox_ind": {}},
    {"tbox_classes": {}, "tbox_prop": {}, "abox_ind": {"x": {"name": "x", "properties": [["p"]]}}},
    {"tbox_classes": {}, "tbox_prop": {}, "abox_ind": {"x": "not an object"}},
])
def test_broken_poc_files(data: dict) -> None:
    with pytest.raises(InputError, match="not a valid proof-of-concept index"):
        from_poc(data, origin="p.json")
