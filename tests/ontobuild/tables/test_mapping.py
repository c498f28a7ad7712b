"""Record discovery, mapping proposals and applying a decided mapping (no LLM: the decision is given)."""

from __future__ import annotations

import json

import pytest

from ontobuild.ontology.index import EntitiesIndex
from ontobuild.tables.decisions import check_decision, repair_decision
from ontobuild.tables.mapping import Coverage, Decision, apply_mapping, find_records, group_shapes, infer_field, split_key

from conftest import REPO

POC = REPO / "../shared/data/poc/product_data.json"
CATALOG = {
    "Lanterns": {
        "Glimmer": {"ID": "7", "Name": "Glimmer", "Colors": ["Red", "Black"], "Weight (g):": "280",
                    "Price (EUR):": "129.90", "Web": "https://x.example/glimmer", "Note": ""},
        "Beacon": {"ID": "8", "Name": "Beacon", "Colors": ["Black"], "Weight (g):": "310", "Price (EUR):": "89",
                   "SIZE M:": "Shade weight (kg): 1.15; Handle length (cm): 31"},
    }
}


def test_split_key_and_inference() -> None:
    assert split_key("Lid weight (kg):") == ("Lid weight", "kg")
    assert split_key("Pcs/box packed at max gap (18cm):")[1] == ""
    assert infer_field("Weight (g):", ["280", "310"]).type == "integer"
    assert infer_field("Price (EUR):", ["129.90", "89"]).type == "decimal"
    assert infer_field("ID", ["7", "8"]).type == "string"
    assert infer_field("Post box", ["31250", "04711"]).type == "string"  # a leading zero: a code, kept as written
    assert infer_field("Depth (m)", ["0.5", "0", "12"]).type == "decimal"
    colors = infer_field("Colors", [["Red", "Black"], ["Black"]])
    assert (colors.type, colors.property, colors.range_class) == ("individual", "hasColor", "Color")
    assert infer_field("Web", ["https://x.example/glimmer"]).type == "uri"
    assert infer_field("SIZE M:", ["Shade weight (kg): 1.15; Handle length (cm): 31"]).type == "parts"


def test_records_and_shapes() -> None:
    shapes = group_shapes(find_records("c.json", CATALOG))
    assert len(shapes) == 1
    shape = shapes[0]
    assert shape.pattern == "$.*.*" and shape.n_levels == 1 and len(shape.records) == 2
    assert shape.records[0].levels == ["Lanterns"] and shape.records[0].own_key == "Glimmer"


def _apply(data: dict, file: str = "c.json") -> tuple[EntitiesIndex, Coverage]:
    idx, cov = EntitiesIndex(), Coverage()
    for shape in group_shapes(find_records(file, data)):
        decision = Decision("Product", name_key="Name", levels=[{"class": "ProductCategory", "property": "inCategory"}])
        apply_mapping(idx, shape, decision, cov)
    return idx, cov


def test_apply_mapping_accounts_for_every_leaf() -> None:
    idx, cov = _apply(CATALOG)
    totals = cov.totals()
    assert totals == {"total": 14, "covered": 13, "skipped": 1}  # 8 + 6 leaves; the empty "Note" is skipped
    glim = idx.individuals["Glimmer"]
    assert "Product" in glim.classes
    facts = {(f.property, f.literal or f.object) for f in glim.facts}
    assert {("weightG", "280"), ("priceEUR", "129.90")} <= facts
    assert ("hasColor", "Red") in facts and ("inCategory", "Lanterns") in facts
    variant = idx.individuals["Beacon_SIZE_M"]
    assert {(f.property, f.literal) for f in variant.facts} >= {("shadeWeightKg", "1.15"), ("handleLengthCm", "31")}
    assert idx.dangling() == []


def test_poc_catalog_is_fully_accounted_for() -> None:
    if not POC.is_file():
        pytest.skip(f"shared sample data not found: {POC}")
    data = json.loads(POC.read_text())
    idx, cov = _apply(data, "product_data.json")
    totals = cov.totals()
    assert totals["covered"] + totals["skipped"] == totals["total"] == 100
    assert all(e["reason"] == "empty value" for e in cov.entries if e["status"] == "skipped")
    assert {"EcoRing", "MiniEcoRing", "SideLine", "GrecCurb100", "DrainConcaveDual", "WavePave", "Rustika",
            "SculptStone"} <= set(idx.individuals)
    assert idx.dangling() == []


def test_mapping_validator_and_repair() -> None:
    shape = group_shapes(find_records("c.json", CATALOG))[0]
    bad = {"record_class": "Product", "name_key": "ID", "levels": [{"class": "Product", "property": "hasColor"}],
           "changes": []}
    problems = check_decision(shape, bad)
    assert any("must differ" in p for p in problems) and any("already maps" in p for p in problems)
    assert any("holds numbers" in p for p in problems)
    fixed = repair_decision(shape, bad)
    assert fixed["levels"] == [{"class": "ProductCategory", "property": "inProductCategory"}]
    assert fixed["name_key"] == "Name" and check_decision(shape, fixed) == []


def test_level_may_not_reuse_the_variant_class_or_a_parts_property() -> None:
    shape = group_shapes(find_records("c.json", CATALOG))[0]
    bad = {"record_class": "Product", "name_key": "Name", "changes": [],
           "levels": [{"class": "Variant", "property": "shadeWeightKg"}]}  # what the 1.5B model once answered
    problems = check_decision(shape, bad)
    assert any("already the class of the records' variants" in p for p in problems)
    assert any("shadeWeightKg already maps key 'SIZE M: / Shade weight (kg)'" in p for p in problems)
    assert repair_decision(shape, bad)["levels"] == [{"class": "ProductCategory", "property": "inProductCategory"}]


def test_a_parts_key_keeps_being_read_as_parts() -> None:
    """A change that makes a parts key another type would keep "Shade weight (kg): 1.15; ..." as one unread text
    (an individual named by the whole value, the weight and length lost): refused, and dropped by the repair;
    a change that keeps it parts, or only names its property, stands."""
    shape = group_shapes(find_records("c.json", CATALOG))[0]
    bad = {"record_class": "Product", "name_key": "Name", "levels": [{"class": "ProductCategory",
                                                                      "property": "inProductCategory"}],
           "changes": [{"key": "SIZE M:", "property": "hasVariant", "type": "individual"},
                       {"key": "Colors", "type": "individual", "range_class": "Color"}]}
    problems = check_decision(shape, bad)
    assert len(problems) == 1 and "'SIZE M:'" in problems[0] and "leave it out of changes" in problems[0]
    assert repair_decision(shape, bad)["changes"] == [{"key": "Colors", "type": "individual", "range_class": "Color"}]
    ok = {**bad, "changes": [{"key": "SIZE M:", "type": "parts"}, {"key": "SIZE M:", "property": "hasSize"}]}
    assert check_decision(shape, ok) == []


def test_category_keys_become_subclasses_of_the_record_class() -> None:
    idx, _ = _apply({**CATALOG, "Accessories": {"Lamp": {"Name": "Lamp", "Weight (g):": "90"}}})
    assert idx.classes["Lantern"].superclasses == ["Product"] and idx.classes["Accessory"].superclasses == ["Product"]
    assert idx.individuals["Glimmer"].classes == ["Product", "Lantern"]
    assert idx.individuals["Lanterns"].classes == ["ProductCategory"]  # the category itself stays an individual
    other = EntitiesIndex()
    shape = group_shapes(find_records("rangers.json", {"Lakeside": {"Ann": {"Name": "Ann", "Age": "40"}}}))[0]
    apply_mapping(other, shape, Decision("Ranger", name_key="Name",
                                         levels=[{"class": "Hut", "property": "postedAt"}]), Coverage())
    assert set(other.classes) == {"Ranger", "Hut"}  # a hut is not a kind of ranger


def test_a_field_name_that_wraps_every_record_is_no_category() -> None:
    data = {"kilns": [{"Name": "Kiln North", "Volume (m3):": "4"}, {"Name": "Kiln South", "Volume (m3):": "6"}]}
    idx, cov = _apply(data, "kilns.json")
    assert "ProductCategory" not in idx.classes and "kilns" not in {i.label for i in idx.individuals.values()}
    assert not any(f.property == "inCategory" for i in idx.individuals.values() for f in i.facts)
    assert cov.totals()["covered"] == 4


def test_a_record_description_copied_from_the_instructions_is_dropped() -> None:
    """The model sometimes copies the prompt's wording into a class description ("one short sentence saying
    what a record is", "(the table's own name)", the "@key" placeholder): those parts describe the prompt."""
    from ontobuild.tables.recordstep import clean_role

    assert clean_role("one short sentence saying what a record is") == ""
    assert clean_role("A rowing boat of the club (the table's own name).") == "A rowing boat of the club."
    assert clean_role("A booking of a court, stored under the @key field.") == "A booking of a court."
    assert clean_role("A booking of a court, with its hour and its player.") == \
        "A booking of a court, with its hour and its player."
