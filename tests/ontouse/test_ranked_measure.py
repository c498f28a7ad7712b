"""What a superlative over groups ranks by (ontouse.checks.measures): "the most X", X the rows of the table a plan
adds up, asks for the number of those rows (COUNT), not the sum of a column of theirs; "the largest amount in
total" asks for a sum, not a count of rows. Two made-up domains written inline: a bakery's customers and their
purchases (one amount), and a walking club's members and their walks (two numbers: distance and climb)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.measures import counted_not_summed, measure_problem, summed_not_counted
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql

BAKERY = HEAD + """
@prefix : <http://example.org/bakery#> .
:Customer a owl:Class ; rdfs:label "customer"@en .
:Purchase a owl:Class ; rdfs:label "purchase"@en .
:placedBy a owl:ObjectProperty ; rdfs:label "placed by"@en .
:ines a :Customer ; rdfs:label "Ines" .
:omar a :Customer ; rdfs:label "Omar" .
:p1 a :Purchase ; :placedBy :ines ; :amount 5 .
:p2 a :Purchase ; :placedBy :ines ; :amount 6 .
:p3 a :Purchase ; :placedBy :ines ; :amount 4 .
:p4 a :Purchase ; :placedBy :omar ; :amount 40 .
"""

CLUB = HEAD + """
@prefix : <http://example.org/club#> .
:Member a owl:Class ; rdfs:label "member"@en .
:Walk a owl:Class ; rdfs:label "walk"@en .
:walkedBy a owl:ObjectProperty ; rdfs:label "walked by"@en .
:tove a :Member ; rdfs:label "Tove" .
:bram a :Member ; rdfs:label "Bram" .
:w1 a :Walk ; :walkedBy :tove ; :distance 10 ; :climb 900 .
:w2 a :Walk ; :walkedBy :tove ; :distance 12 ; :climb 800 .
:w3 a :Walk ; :walkedBy :bram ; :distance 30 ; :climb 100 .
"""


@pytest.fixture(scope="module")
def bakery() -> AnswerLoop:
    store, schema = view(BAKERY)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def club() -> AnswerLoop:
    store, schema = view(CLUB)
    return AnswerLoop(store, NoModel(), schema=schema)


SUMMED = ("SELECT C.label FROM Customer AS C JOIN Purchase AS P ON P.placedBy = C.iri GROUP BY C.iri "
          "ORDER BY SUM(P.amount) DESC LIMIT 1")
COUNTED = ("SELECT C.label FROM Customer AS C JOIN Purchase AS P ON P.placedBy = C.iri GROUP BY C.iri "
           "ORDER BY COUNT(*) DESC LIMIT 1")
WALKS_SUMMED = ("SELECT M.label FROM Member AS M JOIN Walk AS W ON W.walkedBy = M.iri GROUP BY M.iri "
                "ORDER BY SUM(W.distance) DESC LIMIT 1")
WALKS_COUNTED = ("SELECT M.label FROM Member AS M JOIN Walk AS W ON W.walkedBy = M.iri GROUP BY M.iri "
                 "ORDER BY COUNT(*) DESC LIMIT 1")


def test_the_most_rows_of_a_table_are_counted_not_summed(bakery: AnswerLoop, club: AnswerLoop) -> None:
    """Ines placed three purchases (15 in all), Omar one (40): "the most purchases" is Ines."""
    ans = bakery.answer_sql("Which customer placed the most purchases?", SUMMED)
    assert ans.state == "answered" and ans.values()[0] == "Ines"
    assert "ranked_measure" in ans.repairs
    walks = club.answer_sql("Which member went on the most walks?", WALKS_SUMMED)
    assert walks.state == "answered" and walks.values()[0] == "Tove"


def test_an_amount_in_total_is_summed_not_counted(bakery: AnswerLoop, club: AnswerLoop) -> None:
    """"The largest amount in total" and "the highest sum overall" rank by the sum: Omar (40), not Ines (3 rows);
    the walk the club names by one of its two numbers ("the greatest total distance") is summed by that one."""
    for question in ("Which customer paid the largest amount in total?",
                     "Which customer spent the highest sum overall?"):
        ans = bakery.answer_sql(question, COUNTED)
        assert ans.state == "answered" and ans.values()[0] == "Omar", question
        assert "ranked_measure" in ans.repairs
    far = club.answer_sql("Which member covered the greatest total distance?", WALKS_COUNTED)
    assert far.state == "answered" and far.values()[0] == "Bram"


def test_two_amounts_and_none_named_go_back_to_the_model(club: AnswerLoop) -> None:
    """Distance or climb: code does not choose; the problem names both for the model, and no repair is made."""
    q = parse_question("Which member walked the most in total?")
    plan, _ = read_sql(club.schema, WALKS_COUNTED)
    problem = measure_problem(q, plan, club.schema)
    assert "distance" in problem and "climb" in problem
    assert summed_not_counted(q, plan, club.schema) is None
    ans = club.answer_sql("Which member walked the most in total?", WALKS_COUNTED)
    assert ans.state != "answered" or not ans.values() or ans.values()[0] != "Tove" or "Unsure" in ans.answer


def test_plans_that_rank_as_asked_pass(bakery: AnswerLoop, club: AnswerLoop) -> None:
    """Counting for "the most purchases", summing for "the largest amount in total" or for a number the question
    names ("the greatest distance"), and a count asked in words ("the largest number of walks", "the greatest amount
    of pastries": things in the plural) pass."""
    cases = [(bakery, "Which customer placed the most purchases?", COUNTED),
             (bakery, "Which customer paid the largest amount in total?", SUMMED),
             (club, "Which member covered the greatest distance in total?", WALKS_SUMMED),
             (club, "Which member went on the largest number of walks in total?", WALKS_COUNTED),
             (bakery, "Which customer bought the greatest amount of pastries?", COUNTED),
             (club, "Which member has the most climb?", WALKS_COUNTED.replace("COUNT(*)", "SUM(W.climb)"))]
    for loop, question, sql in cases:
        plan, _ = read_sql(loop.schema, sql)
        q = parse_question(question)
        assert measure_problem(q, plan, loop.schema) == "", question
        assert counted_not_summed(q, plan, loop.schema) is None and summed_not_counted(q, plan, loop.schema) is None


FARMS = HEAD + """
@prefix : <http://example.org/farms#> .
:Farm a owl:Class ; rdfs:label "farm"@en .
:Planting a owl:Class ; rdfs:label "planting"@en .
:onFarm a owl:ObjectProperty ; rdfs:label "on farm"@en .
:brook a :Farm ; rdfs:label "Brook" .
:hill a :Farm ; rdfs:label "Hill" .
:p1 a :Planting ; :onFarm :brook ; :crop "barley" ; :share 20 .
:p2 a :Planting ; :onFarm :brook ; :crop "rye" ; :share 70 .
:p3 a :Planting ; :onFarm :brook ; :crop "flax" ; :share 10 .
:p4 a :Planting ; :onFarm :hill ; :crop "barley" ; :share 100 .
"""

VASES = HEAD + """
@prefix : <http://example.org/vases#> .
:Vase a owl:Class ; rdfs:label "vase"@en .
:Part a owl:Class ; rdfs:label "part"@en .
:ofVase a owl:ObjectProperty ; rdfs:label "of vase"@en .
:amber a :Vase ; rdfs:label "Amber" .
:q1 a :Part ; :ofVase :amber ; :material "clay" ; :fraction 0.3 .
:q2 a :Part ; :ofVase :amber ; :material "glass" ; :fraction 0.6 .
:q3 a :Part ; :ofVase :amber ; :material "tin" ; :fraction 0.1 .
"""


def test_the_predominant_one_is_the_top_of_the_listed_rows_by_their_amount() -> None:
    """"Mainly" / "chiefly" ask for the one row with the largest share, not for every row of the named thing."""
    from ontouse.checks.measures import predominant_one

    for ttl, question, sql, top in (
            (FARMS, "Which crop is mainly grown on the Brook farm?",
             "SELECT P.crop FROM Farm F JOIN Planting P ON P.onFarm = F.iri WHERE F.label = 'Brook'", "rye"),
            (VASES, "What material is the Amber vase chiefly made of?",
             "SELECT P.material FROM Vase V JOIN Part P ON P.ofVase = V.iri WHERE V.label = 'Amber'", "glass")):
        store, schema = view(ttl)
        loop = AnswerLoop(store, NoModel(), schema=schema)
        ans = loop.answer_sql(question, sql)
        assert ans.state == "answered" and ans.values()[0] == top and "predominant_one" in ans.repairs, question
        listed = loop.answer_sql(question.replace("mainly ", "").replace("chiefly ", ""), sql)
        assert listed.state == "answered" and len(listed.values()) == 3  # every one, when every one is asked
        plan, _ = read_sql(schema, sql)
        per_farm = parse_question("Which crop is mainly grown on each farm?")
        assert predominant_one(per_farm, plan, schema) is None  # per group: left to the model
        several = parse_question("Which farms mainly grow rye?")
        assert predominant_one(several, plan, schema) is None  # each farm's own predominant crop: left to the model
