from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontocore.errors import InputError, ToolArgumentError
from ontobuild.ontology.entries import Fact, check_literal
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.indexformat import FORMAT
from ontobuild.ontology.indexfile import load_index
from ontobuild.ontology.names import normalize, safe_name, similarity


def test_roundtrip(tiny_index: EntitiesIndex, tmp_path: Path) -> None:
    text = tiny_index.to_json()
    path = tmp_path / "idx.json"
    path.write_text(text, encoding="utf-8")
    again = load_index(path)
    assert again.to_json() == text
    assert again.counts() == {"classes": 3, "properties": 2, "individuals": 2, "facts": 3}
    assert again.individuals["P1"].facts[0].source == {"file": "a.json", "path": "/0/w"}


def _base(**parts) -> dict:
    return {"format": FORMAT, "classes": {}, "properties": {}, "individuals": {}, **parts}


@pytest.mark.parametrize("data, needle", [
    (_base(classes=[]), "/classes"),
    (_base(classes={"A": {"name": "A", "superclasses": "B"}}), "/classes/A/superclasses"),
    (_base(properties={"p": {"name": "p", "kind": "sometimes"}}), "/properties/p/kind"),
    (_base(individuals={"x": {"name": "x", "facts": [{"property": "p", "object": "y", "literal": "1"}]}}),
     "/individuals/x/facts/0"),
    (_base(classes={"bad name": {"name": "bad name"}}), "bad name"),
    ({"format": FORMAT}, "required"),
])
def test_schema_errors(data: dict, needle: str) -> None:
    with pytest.raises(InputError) as e:
        EntitiesIndex.from_dict(data, origin="x.json")
    assert "x.json is not a valid entities index" in str(e.value)
    assert needle in str(e.value)


def test_unknown_references() -> None:
    data = _base(classes={"A": {"name": "A", "superclasses": ["Nope"]}})
    with pytest.raises(InputError, match="unknown class 'Nope'"):
        EntitiesIndex.from_dict(data)
    data = _base(individuals={"x": {"name": "x", "classes": ["Ghost"]}})
    with pytest.raises(InputError, match="unknown class 'Ghost'"):
        EntitiesIndex.from_dict(data)
    data = _base(properties={"p": {"name": "p", "kind": "datatype", "range": "xsd:integer"}},
                 individuals={"x": {"name": "x", "facts": [{"property": "p", "literal": "abc"}]}})
    with pytest.raises(InputError, match="not a valid xsd:integer"):
        EntitiesIndex.from_dict(data)


@pytest.mark.parametrize("content, needle", [
    (b"{\"format\": ", "is not valid JSON"),
    (b"", "is empty"),
    (b"\x00\x01\x02binary", "binary"),
    (b"[1, 2]", "is not an entities index"),
    (b"{\"classes\": {}}", "is not an entities index"),
])
def test_load_index_bad_files(tmp_path: Path, content: bytes, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=needle):
        load_index(path)


def test_load_index_missing(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_index(tmp_path / "none.json")
    with pytest.raises(InputError, match="directory"):
        load_index(tmp_path)


def test_changes_raise_tool_errors(tiny_index: EntitiesIndex) -> None:
    with pytest.raises(ToolArgumentError, match="Unknown class 'Prodcut'.*Did you mean: Product"):
        tiny_index.add_individual("X", classes=["Prodcut"])
    with pytest.raises(ToolArgumentError, match="not a valid name"):
        tiny_index.add_class("has space")
    with pytest.raises(ToolArgumentError, match="not a valid xsd:decimal"):
        tiny_index.add_fact("P1", Fact("weightKg", literal="heavy"))
    assert tiny_index.add_fact("P1", Fact("storedOn", object="Cr1")) is False


@pytest.mark.parametrize("lexical, datatype, ok", [
    ("12", "xsd:integer", True), ("-3", "xsd:integer", True), ("1_000", "xsd:integer", False),
    ("1.5", "xsd:integer", False), ("1.50", "xsd:decimal", True), ("1e3", "xsd:decimal", False),
    ("1e3", "xsd:double", True), ("true", "xsd:boolean", True), ("yes", "xsd:boolean", False),
    ("2024-02-29", "xsd:date", True), ("29/02/2024", "xsd:date", False),
    ("2024-02-29T10:00:00Z", "xsd:dateTime", True), ("2024-02-29", "xsd:dateTime", False),
    ("anything", "xsd:string", True), ("x", "xsd:weird", False),
])
def test_check_literal(lexical: str, datatype: str, ok: bool) -> None:
    assert (check_literal(lexical, datatype) is None) is ok


@pytest.mark.parametrize("text, expected", [
    ("LAMP XR8", "LAMP_XR8"), ("crate weight", "CrateWeight"), ("2nd floor", "_2ndFloor"),
    ("Città Più", "CittaPiu"), ("---", "_unnamed"), ("SunDial", "SunDial"),
])
def test_safe_name(text: str, expected: str) -> None:
    assert safe_name(text) == expected
    assert EntitiesIndex._check_name(expected) is None


def test_safe_name_lower_first() -> None:
    assert safe_name("crate weight", lower_first=True) == "crateWeight"
    assert safe_name("ABC def", lower_first=True) == "ABC_Def"


def test_normalize_and_similarity() -> None:
    assert normalize("SunDial (kg)") == normalize("sun dial") == "sundial"
    assert normalize("The Weight of Crate") == "weightcrate"
    assert similarity("SunDial (kg)", "SunDial") == 1.0
    assert similarity("abc", "xyz") < 0.4


def test_json_is_sorted_and_stable(tiny_index: EntitiesIndex) -> None:
    data = json.loads(tiny_index.to_json())
    assert list(data["classes"]) == sorted(data["classes"])
    assert tiny_index.to_json() == EntitiesIndex.from_dict(data).to_json()


def test_the_steps_create_or_reuse_entities_on_the_index() -> None:
    """ensure_*: a name is reused by its own kind and suffixed when another kind holds it; a datatype property's
    dimension follows its unit and its range widens to what every value fits."""
    idx = EntitiesIndex()
    assert idx.ensure_class("Hive", "a beehive", superclass="Box") == "Hive"
    assert idx.classes["Hive"].superclasses == ["Box"] and "Box" in idx.classes
    assert idx.ensure_individual("North", "North hive", "Hive", "", {"file": "hives.csv"}) == "North"
    assert idx.ensure_class("North") == "NorthClass"
    assert idx.ensure_datatype_property("weightKg", "xsd:integer", "Hive", "kg", "From a column") == "weightKg"
    assert idx.properties["weightKg"].dimension == "mass"
    idx.ensure_datatype_property("weightKg", "xsd:decimal", "Hive", "kg", "From a column")
    assert idx.properties["weightKg"].range == "xsd:decimal"
    assert idx.ensure_object_property("weightKg", "Hive", "Hive", "a link") == "weightKgLink"
    assert idx.ensure_datatype_property("weightKgLink", "xsd:string", "", "", "text") == "weightKgLinkValue"
    assert idx.ensure_individual("Hive", "Hive", "Hive", "", {}) == "Hive_"


def test_update_property_changes_kind_range_and_domain() -> None:
    idx = EntitiesIndex()
    idx.ensure_class("Hive")
    idx.ensure_datatype_property("frames", "xsd:integer", "Hive", "", "count")
    with pytest.raises(ToolArgumentError, match="range must be one of"):
        idx.update_property("frames", range="Hive")
    p = idx.update_property("frames", kind="object", range="Hive", domain=[])
    assert (p.kind, p.range, p.domain) == ("object", "Hive", [])
    assert idx.update_property("frames", range="none").range == ""
