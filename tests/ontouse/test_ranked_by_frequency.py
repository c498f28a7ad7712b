""""The most common / least frequent X" answered by a plan that lists the values without ranking them, or ranks
them alphabetically (ontouse.checks.rankings.ranked_by_frequency, the repair of checks superlative_ranked and
ranked_by_amount): code counts each value and ranks by the count. Two made-up domains written inline: a library's
branches and books, and a workshop's machines."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql
from ontouse.checks.rankings import ranked_by_frequency

LIBRARY = HEAD + """
@prefix : <http://example.org/library#> .
:Branch a owl:Class ; rdfs:label "branch"@en .
:Book a owl:Class ; rdfs:label "book"@en .
:heldAt a owl:ObjectProperty ; rdfs:label "held at"@en .
:e a :Branch ; rdfs:label "East" .
:w a :Branch ; rdfs:label "West" .
:b1 a :Book ; rdfs:label "Tides" ; :heldAt :e ; :genre "poetry" .
:b2 a :Book ; rdfs:label "Salt" ; :heldAt :e ; :genre "history" .
:b3 a :Book ; rdfs:label "Ledger" ; :heldAt :e ; :genre "history" .
:b4 a :Book ; rdfs:label "Orbit" ; :heldAt :w ; :genre "science" .
:b5 a :Book ; rdfs:label "Comet" ; :heldAt :w ; :genre "science" .
:b6 a :Book ; rdfs:label "Dunes" ; :heldAt :w ; :genre "travel" .
"""

WORKSHOP = HEAD + """
@prefix : <http://example.org/workshop#> .
:Machine a owl:Class ; rdfs:label "machine"@en .
:m1 a :Machine ; rdfs:label "Lathe 1" ; :maker "Arden" .
:m2 a :Machine ; rdfs:label "Lathe 2" ; :maker "Arden" .
:m3 a :Machine ; rdfs:label "Mill 1" ; :maker "Brook" .
:m4 a :Machine ; rdfs:label "Mill 2" ; :maker "Arden" .
:m5 a :Machine ; rdfs:label "Press 1" ; :maker "Corva" .
:m6 a :Machine ; rdfs:label "Press 2" ; :maker "Corva" .
"""


@pytest.fixture(scope="module")
def library() -> AnswerLoop:
    store, schema = view(LIBRARY)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def workshop() -> AnswerLoop:
    store, schema = view(WORKSHOP)
    return AnswerLoop(store, NoModel(), schema=schema)


LISTED = ("SELECT B.genre FROM Branch AS R JOIN Book AS B ON B.heldAt = R.iri WHERE R.label = 'East'")


def test_listed_values_are_ranked_by_how_often_they_occur(library: AnswerLoop) -> None:
    ans = library.answer_sql("What is the most common genre of the books at the East branch?", LISTED)
    assert ans.state == "answered" and ans.values() == ["history", "2"]  # (the count shown beside it)
    assert "superlative_ranked" in ans.repairs


def test_an_alphabetical_ranking_is_ranked_by_count(workshop: AnswerLoop) -> None:
    """By spelling the top maker is Corva (two machines); by count it is Arden (three)."""
    sql = "SELECT maker FROM Machine ORDER BY maker DESC LIMIT 1"
    ans = workshop.answer_sql("Which maker is the most frequent among the machines?", sql)
    assert ans.state == "answered" and ans.values() == ["Arden", "3"]
    least = workshop.answer_sql("Which maker is the least common among the machines?",
                                "SELECT maker FROM Machine")
    assert least.state == "answered" and least.values() == ["Brook", "1"]


def test_no_frequency_asked_no_count_ranking(library: AnswerLoop, workshop: AnswerLoop) -> None:
    """A superlative of an amount ("the longest", "the most books") is no frequency of values; a plan that already
    groups is left to the model."""
    plan, _ = read_sql(library.schema, LISTED)
    assert ranked_by_frequency(parse_question("What is the longest genre at the East branch?"), plan) is None
    grouped, _ = read_sql(workshop.schema, "SELECT maker, COUNT(*) FROM Machine GROUP BY maker")
    assert ranked_by_frequency(parse_question("Which maker is the most common?"), grouped) is None
