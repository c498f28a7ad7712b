"""A superlative ranked by an average nobody asked for (ontouse.checks.rankings.average_rank_problem, check
ranked_as_asked): "which X has the most reliable Y" asks for the X of the top Y; a plan that ranks the Xs by the
average of their Ys answers another question. Code ranks by the values themselves (ranked_by_values): the rows
without GROUP BY for the top one, each group's top value for the top k. Two made-up domains written inline: an
orchard's farms and trees, and a courier's depots and vans."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql
from ontouse.checks.rankings import average_rank_problem

ORCHARD = HEAD + """
@prefix : <http://example.org/orchard#> .
:Farm a owl:Class ; rdfs:label "farm"@en .
:Tree a owl:Class ; rdfs:label "tree"@en .
:grownAt a owl:ObjectProperty ; rdfs:label "grown at"@en .
:f1 a :Farm ; rdfs:label "Hillside" .
:f2 a :Farm ; rdfs:label "Riverbend" .
:t1 a :Tree ; rdfs:label "Old pear" ; :grownAt :f1 ; :yieldKg 100 .
:t2 a :Tree ; rdfs:label "Young pear" ; :grownAt :f1 ; :yieldKg 10 .
:t3 a :Tree ; rdfs:label "Plum" ; :grownAt :f2 ; :yieldKg 70 .
:t4 a :Tree ; rdfs:label "Cherry" ; :grownAt :f2 ; :yieldKg 72 .
"""

COURIER = HEAD + """
@prefix : <http://example.org/courier#> .
:Depot a owl:Class ; rdfs:label "depot"@en .
:Van a owl:Class ; rdfs:label "van"@en .
:basedAt a owl:ObjectProperty ; rdfs:label "based at"@en .
:n a :Depot ; rdfs:label "North" .
:s a :Depot ; rdfs:label "South" .
:e a :Depot ; rdfs:label "East" .
:v1 a :Van ; rdfs:label "N1" ; :basedAt :n ; :rangeKm 310 .
:v2 a :Van ; rdfs:label "N2" ; :basedAt :n ; :rangeKm 650 .
:v3 a :Van ; rdfs:label "N3" ; :basedAt :n ; :rangeKm 700 .
:v4 a :Van ; rdfs:label "S1" ; :basedAt :s ; :rangeKm 280 .
:v5 a :Van ; rdfs:label "S2" ; :basedAt :s ; :rangeKm 690 .
:v6 a :Van ; rdfs:label "E1" ; :basedAt :e ; :rangeKm 600 .
:v7 a :Van ; rdfs:label "E2" ; :basedAt :e ; :rangeKm 600 .
"""


@pytest.fixture(scope="module")
def orchard() -> AnswerLoop:
    store, schema = view(ORCHARD)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def courier() -> AnswerLoop:
    store, schema = view(COURIER)
    return AnswerLoop(store, NoModel(), schema=schema)


def problem(a: AnswerLoop, question: str, sql: str) -> str:
    plan, _ = read_sql(a.schema, sql)
    return average_rank_problem(parse_question(question), plan)


def first_column(ans) -> list[str]:
    return sorted(row[0].value for row in ans.rows)


BY_AVERAGE = ("SELECT F.label FROM Farm AS F JOIN Tree AS T ON T.grownAt = F.iri GROUP BY F.iri "
              "ORDER BY AVG(T.yieldKg) DESC LIMIT 1")


def test_a_top_thing_ranked_by_an_average_fails(orchard: AnswerLoop) -> None:
    assert "ranks groups by an average" in problem(orchard, "Which farm grows the most productive tree?",
                                                     BY_AVERAGE)
    # an average asked for is ranked by it
    assert problem(orchard, "Which farm has the highest average tree yield?", BY_AVERAGE) == ""
    # a plan that ranks the trees themselves asks no average
    assert problem(orchard, "Which farm grows the most productive tree?",
                   "SELECT F.label FROM Farm AS F JOIN Tree AS T ON T.grownAt = F.iri "
                   "ORDER BY T.yieldKg DESC LIMIT 1") == ""


def test_the_top_thing_is_ranked_by_its_own_value(orchard: AnswerLoop) -> None:
    """By average, Riverbend (71 kg) comes first; the most productive tree (100 kg) grows at Hillside."""
    ans = orchard.answer_sql("Which farm grows the most productive tree?", BY_AVERAGE)
    assert ans.state == "answered" and first_column(ans) == ["Hillside"]
    assert "ranked_as_asked" in ans.repairs
    assert orchard.answer_sql("Which farm has the highest average tree yield?", BY_AVERAGE).values() == [
        "Riverbend", "71"]


def test_the_top_groups_are_ranked_by_their_top_value(courier: AnswerLoop) -> None:
    """A second domain, top two: by average East (600) and North (553) come first; the depots of the vans with the
    longest range are North (700) and South (690)."""
    sql = ("SELECT D.label FROM Depot AS D JOIN Van AS V ON V.basedAt = D.iri GROUP BY D.iri "
           "ORDER BY AVG(V.rangeKm) DESC LIMIT 2")
    question = "Which two depots have the vans with the longest range?"
    assert "ranks groups by an average" in problem(courier, question, sql)
    ans = courier.answer_sql(question, sql)
    assert ans.state == "answered" and first_column(ans) == ["North", "South"]
    assert "ranked_as_asked" in ans.repairs
