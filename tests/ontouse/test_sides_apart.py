""""Does A weigh more than B?", "Was A opened before B?": two named things compared by one value. A plan that
joins the two (on their names, or on a column they share) finds no row holding both; code finds each on its own
and compares their values (ontouse.checks.named.sides_apart, the repair of check comparison_sides) once the plan
says which value. Two made-up domains written inline: a port's cranes (numbers, in two classes) and a city's
bridges (dates)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

PORT = HEAD + """
@prefix : <http://example.org/port#> .
:Crane a owl:Class ; rdfs:label "crane"@en .
:GantryCrane a owl:Class ; rdfs:subClassOf :Crane ; rdfs:label "gantry crane"@en .
:MobileCrane a owl:Class ; rdfs:subClassOf :Crane ; rdfs:label "mobile crane"@en .
:c1 a :GantryCrane ; rdfs:label "Atlas" ; :liftTonnes 65 .
:c2 a :MobileCrane ; rdfs:label "Heron" ; :liftTonnes 90 .
:c3 a :GantryCrane ; rdfs:label "Kodiak" ; :liftTonnes 40 .
"""

CITY = HEAD + """
@prefix : <http://example.org/city#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Bridge a owl:Class ; rdfs:label "bridge"@en .
:b1 a :Bridge ; rdfs:label "Mill Bridge" ; :opened "1887-05-01"^^xsd:date .
:b2 a :Bridge ; rdfs:label "Harbour Bridge" ; :opened "1932-03-19"^^xsd:date .
:b3 a :Bridge ; rdfs:label "Canal Bridge" ; :opened "1901-09-12"^^xsd:date .
:b4 a :Bridge ; rdfs:label "Old Harbour Swing Bridge" ; :opened "1950"^^xsd:gYear .
:b5 a :Bridge ; rdfs:label "Salt and Iron Bridge" ; :opened "1870"^^xsd:gYear .
"""


@pytest.fixture(scope="module")
def port() -> AnswerLoop:
    store, schema = view(PORT)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def city() -> AnswerLoop:
    store, schema = view(CITY)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_two_things_joined_on_their_names_are_compared_apart(port: AnswerLoop) -> None:
    sql = ("SELECT T1.liftTonnes > T2.liftTonnes FROM GantryCrane AS T1 JOIN MobileCrane AS T2 "
           "ON T1.label = T2.label")
    ans = port.answer_sql("Does Atlas lift more than Heron?", sql)
    assert ans.state == "answered" and ans.boolean is False
    assert "comparison_sides" in ans.repairs
    ans = port.answer_sql("Does Atlas lift more than Kodiak?", sql)
    assert ans.state == "answered" and ans.boolean is True


def test_a_comparison_in_time_is_compared_by_its_dates(city: AnswerLoop) -> None:
    """Two subqueries set apart by EXCEPT compare nothing; "before" asks whether the first date is the smaller."""
    sql = ("SELECT opened FROM Bridge WHERE label = 'Canal Bridge' EXCEPT "
           "SELECT opened FROM Bridge WHERE label = 'Mill Bridge'")
    ans = city.answer_sql("Was Canal Bridge opened before Mill Bridge?", sql)
    assert ans.state == "answered" and ans.boolean is False
    assert "comparison_sides" in ans.repairs
    ans = city.answer_sql("Was Mill Bridge opened before Harbour Bridge?",
                          "SELECT opened FROM Bridge WHERE label = 'Mill Bridge' EXCEPT "
                          "SELECT opened FROM Bridge WHERE label = 'Harbour Bridge'")
    assert ans.state == "answered" and ans.boolean is True
    # the first named is the first compared, whichever name is the longer (a year against a date)
    ans = city.answer_sql("Was Mill Bridge opened before Old Harbour Swing Bridge?",
                          "SELECT opened FROM Bridge WHERE label = 'Mill Bridge' EXCEPT "
                          "SELECT opened FROM Bridge WHERE label = 'Old Harbour Swing Bridge'")
    assert ans.state == "answered" and ans.boolean is True and "comparison_sides" in ans.repairs
    # a name with "and" inside is one of the two
    ans = city.answer_sql("Was Canal Bridge opened before Salt and Iron Bridge?",
                          "SELECT opened FROM Bridge WHERE label = 'Canal Bridge' EXCEPT "
                          "SELECT opened FROM Bridge WHERE label = 'Salt and Iron Bridge'")
    assert ans.state == "answered" and ans.boolean is False and "comparison_sides" in ans.repairs


def test_a_choice_ranked_by_its_value_names_the_thing(city: AnswerLoop) -> None:
    """"Which ..., A or B?" answered with the earlier date: the bridge of that row is asked."""
    sql = ("SELECT opened FROM Bridge WHERE label IN ('Harbour Bridge', 'Canal Bridge') "
           "ORDER BY opened ASC LIMIT 1")
    ans = city.answer_sql("Which was opened earlier, Harbour Bridge or Canal Bridge?", sql)
    assert ans.state == "answered" and ans.answer == "Canal Bridge."
    assert "one_of_the_named" in ans.repairs
    # the dates of the two listed, unranked: ranked the way the question's word says ("later": the larger)
    ans = city.answer_sql("Which was opened later, Harbour Bridge or Canal Bridge?",
                          "SELECT opened FROM Bridge WHERE label IN ('Harbour Bridge', 'Canal Bridge')")
    assert ans.state == "answered" and ans.answer == "Harbour Bridge."


def test_a_comparison_the_view_cannot_read_is_compared_by_the_value_it_names(port: AnswerLoop) -> None:
    """A join on a column the view lacks: no plan runs, but the query says which value is compared."""
    ans = port.answer_sql("Does Heron lift more than Kodiak?",
                          "SELECT T1.liftTonnes > T2.liftTonnes FROM MobileCrane AS T1 JOIN GantryCrane AS T2 "
                          "ON T1.twinOf = T2.twinOf")
    assert ans.state == "answered" and ans.boolean is True
    assert "comparison_sides" in ans.repairs
