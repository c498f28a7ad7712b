"""The class the question asks about, read whole (ontouse.checks.asked.class_read_problem, check asked_class_read): a
plan that reads a subclass the question does not name answers about some of the things asked, and a plan that
reads a whole class where the asked words name a subclass answers about more. Code repairs both when every column
the plan reads is the other table's too (widened_to_asked, narrowed_to_named). Two made-up domains: a fleet
written inline here, and the aquarium ontology of tests/data (a hierarchy four levels deep)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql
from ontouse.sqlplan.schema_build import build_schema
from ontouse.storage.store import GraphStore
from ontouse.checks.asked import class_read_problem

FLEET = HEAD + """
@prefix : <http://example.org/fleet#> .
:Vehicle a owl:Class ; rdfs:label "vehicle"@en .
:ElectricVehicle a owl:Class ; rdfs:subClassOf :Vehicle ; rdfs:label "electric vehicle"@en .
:Van a owl:Class ; rdfs:subClassOf :Vehicle ; rdfs:label "van"@en .
:Depot a owl:Class ; rdfs:label "depot"@en .
:basedAt a owl:ObjectProperty ; rdfs:label "based at"@en .
:north a :Depot ; rdfs:label "North Yard" .
:south a :Depot ; rdfs:label "South Yard" .
:e1 a :ElectricVehicle ; rdfs:label "Volt 1" ; :basedAt :north ; :rangeKm 310 .
:e2 a :ElectricVehicle ; rdfs:label "Volt 2" ; :basedAt :south ; :rangeKm 280 .
:v1 a :Van ; rdfs:label "Hauler 1" ; :basedAt :north ; :rangeKm 650 .
:v2 a :Van ; rdfs:label "Hauler 2" ; :basedAt :north ; :rangeKm 700 .
:c1 a :Vehicle ; rdfs:label "Pool car" ; :basedAt :south ; :rangeKm 540 .
"""


@pytest.fixture(scope="module")
def fleet() -> AnswerLoop:
    store, schema = view(FLEET)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def aquarium() -> AnswerLoop:
    store = GraphStore.from_paths([Path(__file__).resolve().parents[1] / "data" / "owl_aquarium.ttl"])
    return AnswerLoop(store, NoModel(), schema=build_schema(store))


def problem(a: AnswerLoop, question: str, sql: str) -> str:
    plan, _ = read_sql(a.schema, sql)
    return class_read_problem(parse_question(question), plan, a.schema, a.index.table_texts)


def checked(ans) -> dict[str, bool]:
    return {c["check"]: c["passed"] for c in ans.checks}


# ---- a subclass the question does not name ----------------------------------------------------------------
def test_a_subclass_read_for_the_class_asked_fails(fleet: AnswerLoop) -> None:
    assert "reads only Van, a subclass" in problem(fleet, "Which vehicles are based at North Yard?",
                                                   "SELECT label FROM Van WHERE basedAt = 'North Yard'")
    # the class itself, or the subclass the question names, is read as asked
    assert problem(fleet, "Which vehicles are based at North Yard?",
                   "SELECT label FROM Vehicle WHERE basedAt = 'North Yard'") == ""
    assert problem(fleet, "Which vans are based at North Yard?",
                   "SELECT label FROM Van WHERE basedAt = 'North Yard'") == ""


def test_a_subclass_read_is_repaired_to_the_class(fleet: AnswerLoop) -> None:
    ans = fleet.answer_sql("Which vehicles are based at North Yard?",
                           "SELECT label FROM Van WHERE basedAt = 'North Yard'")
    assert ans.state == "answered" and sorted(ans.values()) == ["Hauler 1", "Hauler 2", "Volt 1"]
    assert checked(ans)["asked_class_read"]


def test_a_subclass_deeper_down_fails_too(aquarium: AnswerLoop) -> None:
    """Four levels: the question asks about the animals, the plan reads the sharks (a subclass of a subclass)."""
    assert "a subclass of it" in problem(aquarium, "Which animals weigh more than 100 kg?",
                                         "SELECT label FROM Shark WHERE weightKg > 100")
    assert problem(aquarium, "Which sharks weigh more than 100 kg?",
                   "SELECT label FROM Shark WHERE weightKg > 100") == ""


# ---- the whole class where the asked words name a subclass -----------------------------------------------
def test_the_whole_class_read_where_the_words_name_a_subclass_fails(fleet: AnswerLoop) -> None:
    """"electric" is what the subclass's label adds to the class's: the question asks about those."""
    assert "read from ElectricVehicle" in problem(fleet, "How many electric cars are based at South Yard?",
                                                  "SELECT COUNT(*) FROM Vehicle WHERE basedAt = 'South Yard'")
    # a value that says the words selects them: not the whole class
    assert problem(fleet, "How many electric cars are there?",
                   "SELECT COUNT(*) FROM Vehicle WHERE label LIKE '%electric%'") == ""
    # words that name no subclass leave the class as it is
    assert problem(fleet, "How many vehicles are based at South Yard?",
                   "SELECT COUNT(*) FROM Vehicle WHERE basedAt = 'South Yard'") == ""


def test_the_whole_class_is_repaired_to_the_named_subclass(fleet: AnswerLoop) -> None:
    ans = fleet.answer_sql("How many electric cars are based at South Yard?",
                           "SELECT COUNT(*) FROM Vehicle WHERE basedAt = 'South Yard'")
    assert ans.state == "answered" and ans.values() == ["1"]
    assert checked(ans)["asked_class_read"]


def test_an_ontology_without_subclasses_has_no_such_check() -> None:
    store, schema = view(HEAD + """
@prefix : <http://example.org/shop#> .
:Order a owl:Class . :o1 a :Order ; rdfs:label "O-1" ; :total 12 .
""")
    ans = AnswerLoop(store, NoModel(), schema=schema).answer_sql("Which orders are there?", "SELECT label FROM Order")
    assert "asked_class_read" not in checked(ans)
