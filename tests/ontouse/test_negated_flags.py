"""A yes/no column under a negation (ontouse.checks.conditions): "which rooms are not heated?" keeps the rows whose
flag says no (`is_heated = 'F'`, `is_heated != 'T'`), and `!= 'F'` keeps the heated ones: it excludes nothing,
whatever its operator says. Two made-up domains written inline: a hostel's rooms (T / F) and a network of weather
stations (yes / no)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

HOSTEL = HEAD + """
@prefix : <http://example.org/hostel#> .
:Room a owl:Class ; rdfs:label "room"@en .
:r1 a :Room ; rdfs:label "Attic" ; :is_heated "T" .
:r2 a :Room ; rdfs:label "Cellar" ; :is_heated "F" .
:r3 a :Room ; rdfs:label "Loft" ; :is_heated "T" .
:r4 a :Room ; rdfs:label "Porch" ; :is_heated "F" .
"""

STATIONS = HEAD + """
@prefix : <http://example.org/stations#> .
:Station a owl:Class ; rdfs:label "station"@en .
:s1 a :Station ; rdfs:label "Hill Top" ; :automated "yes" .
:s2 a :Station ; rdfs:label "Lake Shore" ; :automated "no" .
:s3 a :Station ; rdfs:label "Old Mill" ; :automated "yes" .
"""


@pytest.fixture(scope="module")
def hostel() -> AnswerLoop:
    store, schema = view(HOSTEL)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def stations() -> AnswerLoop:
    store, schema = view(STATIONS)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_the_flags_no_value_answers_a_negated_question(hostel: AnswerLoop, stations: AnswerLoop) -> None:
    """`= 'F'` and `!= 'T'` keep the rooms that are not heated; `= 'no'` the station that is not automated: each
    is stated, not withheld for "excluding nothing"."""
    for sql in ("SELECT label FROM Room WHERE is_heated = 'F'", "SELECT label FROM Room WHERE is_heated != 'T'"):
        ans = hostel.answer_sql("Which rooms are not heated?", sql)
        assert ans.state == "answered" and sorted(ans.values()) == ["Cellar", "Porch"], sql
    ans = stations.answer_sql("Which stations are not automated?", "SELECT label FROM Station WHERE automated = 'no'")
    assert ans.state == "answered" and ans.values() == ["Lake Shore"]


def test_the_flags_yes_value_is_no_exclusion(hostel: AnswerLoop, stations: AnswerLoop) -> None:
    """`!= 'F'` keeps the heated rooms and `!= 'no'` the automated stations: the negated question is not answered
    with them, and what goes back to the model says why."""
    ans = hostel.answer_sql("Which rooms are not heated?", "SELECT label FROM Room WHERE is_heated != 'F'")
    assert ans.state != "answered"
    assert "keeps the rows whose yes/no column says yes" in ans.answer
    ans = stations.answer_sql("Which stations are not automated?",
                              "SELECT label FROM Station WHERE automated != 'no'")
    assert ans.state != "answered"
