"""The domain benchmark's scoring (bench/domain_bench.py) on tiny inline indexes of a made-up observatory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # bench/ is a package at the repository root, not an installed one
    sys.path.insert(0, str(ROOT))

from bench.domain_bench import (bound_of, concept_duplicates, document_subjects, junk_classes,  # noqa: E402
                                key, score_facts, text_things, unit_key, values_equal)


def _ind(name: str, label: str, classes: list[str], *facts: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "label": label, "classes": classes, "facts": list(facts)}


def _fact(prop: str, value: str, unit: str = "", qualifier: str = "", sentence: str = "s1") -> dict[str, Any]:
    return {"property": prop, "literal": value, "unit": unit, "qualifier": qualifier,
            "source": {"chunk": "notes.md#1", "sentence": sentence}}


GOLD = {
    "aliases": {"Dome East": ["OBS-1"]},
    "facts": [
        {"id": "g1", "subjects": ["Dome East", "Dome West"], "words": ["speed", "rotation"], "meaning": "slew speed",
         "value": 3, "unit": "rpm", "bound": "max"},
        {"id": "g2", "subjects": ["cold box"], "words": ["temperature"], "meaning": "lowest temperature",
         "value": -40, "unit": "°C", "bound": None},
        {"id": "g3", "subjects": ["Dome West"], "words": ["opening", "open"], "meaning": "opening time",
         "value": "21:30", "unit": None, "bound": None},
    ],
    "things": [{"label": "cold box", "classes": ["Box", "ColdBox"]}],
    "concepts": [{"name": "speed", "facts": ["g1"], "columns": [{"file": "domes.csv", "column": "speed_rpm"}]}],
}


def _index(*inds: dict[str, Any]) -> dict[str, Any]:
    return {"classes": {"Dome": {}, "Box": {}, "TextChunk": {}},
            "properties": {"maxSpeedRpm": {"label": "", "unit": "rpm"}, "temperatureC": {"unit": "°C"},
                           "openingTime": {"unit": ""}, "text": {}},
            "individuals": {i["name"]: i for i in inds}}


def test_normalizers():
    assert key("The cold boxes") == key("ColdBox") == "coldbox"
    assert unit_key("°C") == unit_key("C") == unit_key("celsius")
    assert unit_key("L per hour") == unit_key("l/h") == unit_key("litres per hour")
    assert unit_key("stars per night") == unit_key("star per night")
    assert unit_key("m³") == "m3" and unit_key("m/s") == "m/s"
    assert values_equal("06:30:00", "06:30") and values_equal("-40", -40) and not values_equal("40", -40)
    assert values_equal("2027-03-15", "2027-03-15") and not values_equal("3", "03:00")
    assert bound_of("maxSpeedRpm") == "max" and bound_of("tideLevelM", "min of a range") == "min"
    assert bound_of("dockStart") == "min" and bound_of("speedKn") is None


def test_a_fact_on_every_subject_is_right_and_found():
    idx = _index(_ind("OBS1", "OBS-1", ["Dome"], _fact("maxSpeedRpm", "3", "rpm", "at most")),
                 _ind("DomeWest", "Dome West", ["Dome"], _fact("maxSpeedRpm", "3", "rpm", "at most"),
                      _fact("openingTime", "21:30:00")),
                 _ind("ColdBox", "cold box at Dome West", ["Box"], _fact("temperatureC", "-40", "°C")))
    s = score_facts(idx, GOLD)
    assert (s["statements"], s["correct_statements"], s["found"]) == (3, 3, 3)
    assert s["precision"] == 1.0 and s["recall"] == 1.0


def test_a_statement_with_one_wrong_individual_is_wrong_and_a_partial_one_not_found():
    idx = _index(_ind("DomeWest", "Dome West", ["Dome"], _fact("maxSpeedRpm", "3", "rpm", "at most")),
                 _ind("ColdBox", "cold box", ["Box"], _fact("maxSpeedRpm", "3", "rpm", "at most"),
                      _fact("temperatureC", "40", "°C")))
    s = score_facts(idx, GOLD)
    assert s["statements"] == 2 and s["correct_statements"] == 0  # lost sign; the speed also on the cold box
    by_id = {r["id"]: r for r in s["per_fact"]}
    assert not by_id["g1"]["found"] and not by_id["g2"]["found"]
    assert by_id["g2"]["diagnosis"] == "value not stated as a fact"


def test_wrong_bound_unit_or_meaning_is_diagnosed():
    idx = _index(_ind("DomeWest", "Dome West", ["Dome"], _fact("value", "21:30:00")),
                 _ind("ColdBox", "cold box", ["Box"], _fact("minTemperatureC", "-40", "°C", "more than")))
    s = score_facts(idx, GOLD)
    rows = {r["id"]: r["diagnosis"] for r in s["per_fact"]}
    assert "wrong meaning" in rows["g3"] and "wrong bound" in rows["g2"]
    assert s["correct_statements"] == 0


def test_duplicate_concepts_junk_classes_things_and_document_subjects():
    idx = _index(_ind("OBS1", "Dome East", ["Dome"], _fact("maxSpeedRpm", "3", "rpm")),
                 _ind("DomeWest", "Dome West", ["Dome"], _fact("maxRotationRpm", "3", "rpm")),
                 _ind("Notes", "Observatory Notes", ["Document"], _fact("temperatureC", "-40", "°C")),
                 _ind("ChunkNotes1", "notes.md#1", ["TextChunk"], _fact("text", "...")))
    idx["classes"].update({"The": {}, "Domes": {}, "DomeWest": {}, "Opened": {}, "StoredAtTheBox": {}})
    coverage = {"json": [{"file": "domes.csv", "path": "$[0]['speed_rpm']", "property": "slewRpm"}]}
    dup = concept_duplicates(idx, GOLD, coverage)
    assert dup["groups"][0]["properties"] == ["maxRotationRpm", "maxSpeedRpm", "slewRpm"]
    assert dup["duplicate_properties"] == 2
    junk = junk_classes(idx, GOLD)
    assert {j["class"]: j["why"] for j in junk["junk"]} == {
        "The": "function word", "DomeWest": "name of a single thing", "Opened": "verb form",
        "StoredAtTheBox": "fragment"}
    assert junk["plural"] == ["Domes"]
    docs = document_subjects(idx, ["# Observatory Notes\n\n## Domes\nThe cold box ..."], ["notes.md"])
    assert [d["individual"] for d in docs] == ["Notes"]
    things = text_things(idx, GOLD)
    assert things["as_individual"] == 0
    idx["individuals"]["ColdBox"] = _ind("ColdBox", "cold boxes", ["ColdBox"])
    assert text_things(idx, GOLD)["with_kind"] == 1


def test_subject_names_with_their_class_or_a_place_and_quantity_classes():
    idx = _index(_ind("DomeDomeWest", "Dome Dome West", ["Dome"], _fact("openingTime", "21:30")),
                 _ind("ColdBox", "cold box at Dome West", ["Box"], _fact("temperatureC", "-40", "°C")))
    s = score_facts(idx, GOLD)
    assert {r["id"] for r in s["per_fact"] if r["found"]} == {"g2", "g3"}
    idx["classes"]["Temperature"] = {}
    assert {"class": "Temperature", "why": "a quantity, not a kind"} in junk_classes(idx, GOLD)["junk"]


def test_a_fact_spread_over_too_many_things_finds_nothing():
    idx = _index(*[_ind(n, n, ["Dome"], _fact("maxSpeedRpm", "3", "rpm", "at most"))
                   for n in ("Dome East", "Dome West", "Dome North")])
    s = score_facts(idx, GOLD)
    assert s["correct_statements"] == 0 and not s["per_fact"][0]["found"]


def test_answers_judged_strictly_refuse_hedges():
    from bench.domain_bench import judge

    assert judge("14; 11.", 11, "What is the service speed of the dome in knots?") == (False, True)
    assert judge("It is 11 knots.", 11, "What is the speed of dome 3?") == (True, True)
    assert judge("06:30:00 and 07:00:00", "06:30", "When does it open?") == (False, True)
    assert judge("Dome West", "Dome West", "Which dome?", ["Dome East"]) == (True, True)
    assert judge("Dome West, Dome East", "Dome West", "Which dome?", ["Dome East"]) == (False, True)
    assert judge("No data available", 5, "How many?") == (False, False)
