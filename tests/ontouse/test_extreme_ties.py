"""A ranking written as "the rows whose value is the MIN (or MAX)" (ontouse.ambiguity.extreme_picked) keeps every
row that shares the top: when several do and the question asks for exactly one, the answer is "Unsure" and names
them, as for ORDER BY ... LIMIT 1; a question about things in the plural states them all. Two made-up domains
written inline: a rowing club's members, a valley's rivers."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

CLUB = HEAD + """
@prefix : <http://example.org/rowing#> .
:Member a owl:Class ; rdfs:label "member"@en .
:m1 a :Member ; rdfs:label "Ilse" ; :age 19 .
:m2 a :Member ; rdfs:label "Tarik" ; :age 19 .
:m3 a :Member ; rdfs:label "Oona" ; :age 33 .
"""

VALLEY = HEAD + """
@prefix : <http://example.org/valley#> .
:River a owl:Class ; rdfs:label "river"@en .
:r1 a :River ; rdfs:label "Aln" ; :length_km 48 .
:r2 a :River ; rdfs:label "Brue" ; :length_km 48 .
:r3 a :River ; rdfs:label "Coquet" ; :length_km 12 .
"""


def _loop(ttl: str) -> AnswerLoop:
    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def club() -> AnswerLoop:
    return _loop(CLUB)


def test_one_asked_and_several_share_the_top(club: AnswerLoop) -> None:
    """"Who is the youngest member?": Ilse and Tarik are both 19; "which river is the longest?": Aln and Brue."""
    ans = club.answer_sql("Who is the youngest member?",
                          "SELECT label FROM Member WHERE age = (SELECT MIN(age) FROM Member)")
    assert ans.state == "unsure" and "Ilse" in ans.answer and "Tarik" in ans.answer
    ans = _loop(VALLEY).answer_sql("Which river is the longest?",
                                   "SELECT label FROM River WHERE length_km = (SELECT MAX(length_km) FROM River)")
    assert ans.state == "unsure" and "Aln" in ans.answer and "Brue" in ans.answer


def test_things_asked_or_one_at_the_top_are_stated(club: AnswerLoop) -> None:
    """"Which members are the youngest?" asks for things: both are stated; the oldest member is one."""
    ans = club.answer_sql("Which members are the youngest?",
                          "SELECT label FROM Member WHERE age = (SELECT MIN(age) FROM Member)")
    assert ans.state == "answered" and sorted(ans.values()) == ["Ilse", "Tarik"]
    ans = club.answer_sql("Who is the oldest member?",
                          "SELECT label FROM Member WHERE age = (SELECT MAX(age) FROM Member)")
    assert ans.state == "answered" and ans.values() == ["Oona"]
