"""The measure an adjective of size is about (ontouse.checks.dimensions): "lighter than 12" compares a weight, "the
tallest" ranks by a height, "more expensive than 40" compares a price. A plan that reads another number of the same
rows is sent back, and code reads the one column that names the measure. Two made-up domains written inline: a
courier's parcels (volume and weight) and an arboretum's trees (girth and height, in a table of their own)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.dimensions import dimension_problem, dimension_read
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql

COURIER = HEAD + """
@prefix : <http://example.org/courier#> .
:Parcel a owl:Class ; rdfs:label "parcel"@en .
:p1 a :Parcel ; rdfs:label "P-north" ; :volume_l 30 ; :weight_kg 4 ; :fee 9 .
:p2 a :Parcel ; rdfs:label "P-south" ; :volume_l 8 ; :weight_kg 20 ; :fee 31 .
:p3 a :Parcel ; rdfs:label "P-east" ; :volume_l 5 ; :weight_kg 6 ; :fee 44 .
"""

ARBORETUM = HEAD + """
@prefix : <http://example.org/arboretum#> .
:Tree a owl:Class ; rdfs:label "tree"@en .
:Bed a owl:Class ; rdfs:label "bed"@en .
:growsIn a owl:ObjectProperty ; rdfs:label "grows in"@en .
:east a :Bed ; rdfs:label "East bed" .
:west a :Bed ; rdfs:label "West bed" .
:oak a :Tree ; rdfs:label "Old oak" ; :girth 610 ; :height 18 ; :growsIn :east .
:larch a :Tree ; rdfs:label "Tall larch" ; :girth 140 ; :height 34 ; :growsIn :west .
:yew a :Tree ; rdfs:label "Yew" ; :girth 300 ; :height 9 ; :growsIn :east .
"""


@pytest.fixture(scope="module")
def courier():
    store, schema = view(COURIER)
    return AnswerLoop(store, NoModel(), schema=schema), schema


@pytest.fixture(scope="module")
def arboretum():
    store, schema = view(ARBORETUM)
    return AnswerLoop(store, NoModel(), schema=schema), schema


def test_a_comparison_reads_the_measure_its_adjective_names(courier, arboretum) -> None:
    """"Lighter than 12" compares the weight (P-north 4, P-east 6), not the volume the plan read (P-south 8,
    P-east 5); "taller than 15" compares the height (oak 18, larch 34), not the girth."""
    loop, _ = courier
    ans = loop.answer_sql("Which parcels are lighter than 12?", "SELECT label FROM Parcel WHERE volume_l < 12")
    assert ans.state == "answered" and sorted(ans.values()) == ["P-east", "P-north"]
    assert "measure_of_adjective" in ans.repairs
    loop, _ = arboretum
    ans = loop.answer_sql("Which trees are taller than 15?", "SELECT label FROM Tree WHERE girth > 15")
    assert ans.state == "answered" and sorted(ans.values()) == ["Old oak", "Tall larch"]


def test_a_superlative_ranks_by_the_measure_its_adjective_names(courier, arboretum) -> None:
    """"The most expensive parcel" ranks by the fee (P-east 44), "the tallest tree in the east bed" by the height
    (the oak 18), not by the other number the plan ranked by."""
    loop, _ = courier
    ans = loop.answer_sql("Which parcel is the most expensive?",
                          "SELECT label FROM Parcel ORDER BY weight_kg DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["P-east"]
    loop, _ = arboretum
    ans = loop.answer_sql("Which is the tallest tree in the East bed?",
                          "SELECT T.label FROM Tree AS T JOIN Bed AS B ON T.growsIn = B.iri "
                          "WHERE B.label = 'East bed' ORDER BY T.girth DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["Old oak"]


def test_the_right_measure_or_a_view_without_it_is_left_alone(courier, arboretum) -> None:
    """A plan that reads the named measure passes; so does a number compared where no column of the view names
    the adjective's measure ("faster than 3": nothing here is a speed), and an adjective compared with a number
    the plan does not use."""
    _, schema = courier
    q = parse_question("Which parcels are heavier than 5?")
    assert dimension_problem(q, read_sql(schema, "SELECT label FROM Parcel WHERE weight_kg > 5")[0], schema) == ""
    q = parse_question("Which parcels are faster than 3?")
    assert dimension_problem(q, read_sql(schema, "SELECT label FROM Parcel WHERE volume_l > 3")[0], schema) == ""
    _, schema = arboretum
    q = parse_question("Which trees are wider than 200?")
    plan = read_sql(schema, "SELECT label FROM Tree WHERE height > 200")[0]
    assert dimension_problem(q, plan, schema) == "" and dimension_read(q, plan, schema) is None


def test_the_problem_names_the_measure_columns(courier) -> None:
    """What goes back to the model says the adjective and the column that names its measure."""
    _, schema = courier
    q = parse_question("Which parcels are cheaper than 20?")
    problem = dimension_problem(q, read_sql(schema, "SELECT label FROM Parcel WHERE weight_kg < 20")[0], schema)
    assert "'cheaper'" in problem and "fee" in problem
