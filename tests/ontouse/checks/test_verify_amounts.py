"""Checks of the amounts an answer returns (ontouse.checks): a price held as an object of its own (a value, a
unit) is a number to the checks, so "the cheapest X" answered with the price object is the price and not the
X (superlative_thing_returned); rounded numbers asked and none rounded (rounded_as_asked); how many and a second
amount asked and one number returned (second_ask_answered). Model-free: `AnswerLoop.answer_sql` runs each plan
through the same checks as a plan the model wrote. Made-up domains: a stationery shop and a bike rental written
inline here, and the parks and grove graphs of ontouse_graphs."""

from __future__ import annotations

import pytest

from ontouse_graphs import GROVE, HEAD, PARKS, NoModel, view
from ontouse.answerer import AnswerLoop

STATIONERY = HEAD + """
@prefix : <http://example.org/stationery#> .
:Item a owl:Class ; rdfs:label "item"@en .
:Kind a owl:Class ; rdfs:label "kind"@en .
:Tag a owl:Class ; rdfs:label "price tag"@en .
:ofKind a owl:ObjectProperty . :costs a owl:ObjectProperty .
:pen a :Kind ; rdfs:label "Pen" .
:pad a :Kind ; rdfs:label "Notepad" .
:i1 a :Item ; rdfs:label "Gel pen blue" ; :ofKind :pen ; :costs :p1 .
:i2 a :Item ; rdfs:label "Fountain pen" ; :ofKind :pen ; :costs :p2 .
:i3 a :Item ; rdfs:label "Ruled pad A5" ; :ofKind :pad ; :costs :p3 .
:p1 a :Tag ; rdfs:label "EUR 1.20" ; :value 1.20 ; :unit "EUR" .
:p2 a :Tag ; rdfs:label "EUR 24.50" ; :value 24.50 ; :unit "EUR" .
:p3 a :Tag ; rdfs:label "EUR 3.10" ; :value 3.10 ; :unit "EUR" .
"""

RENTAL = HEAD + """
@prefix : <http://example.org/rental#> .
:Bike a owl:Class . :Station a owl:Class . :Fee a owl:Class .
:dayFee a owl:ObjectProperty . :dockedAt a owl:ObjectProperty .
:east a :Station ; rdfs:label "East Gate" ; :docks 12 .
:west a :Station ; rdfs:label "Kiln Lane" ; :docks 8 .
:b1 a :Bike ; rdfs:label "Cargo One" ; :dockedAt :east ; :dayFee :f1 .
:b2 a :Bike ; rdfs:label "City Two" ; :dockedAt :east ; :dayFee :f2 .
:b3 a :Bike ; rdfs:label "Tandem Three" ; :dockedAt :west ; :dayFee :f3 .
:f1 a :Fee ; :sum 30 ; :unit "USD" .
:f2 a :Fee ; :sum 12 ; :unit "USD" .
:f3 a :Fee ; :sum 25 ; :unit "USD" .
"""


def answerer(ttl: str) -> AnswerLoop:
    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


def failed(ans) -> list[str]:
    return [c["check"] for c in ans.checks if not c["passed"]]


# ---- a price object is a number -----------------------------------------------------------------------------
def test_the_cheapest_thing_answered_with_its_price_object_is_the_price() -> None:
    a = answerer(STATIONERY)
    ans = a.answer_sql("What is the cheapest pen?", "SELECT i.costs FROM Item AS i JOIN Kind AS k ON i.ofKind = "
                       "k.iri WHERE k.label = 'Pen' ORDER BY i.costs ASC LIMIT 1")
    assert ans.state == "unsure" and failed(ans) == ["superlative_thing_returned"]
    ans = a.answer_sql("What is the cheapest pen?", "SELECT i.label FROM Item AS i JOIN Kind AS k ON i.ofKind = "
                       "k.iri WHERE k.label = 'Pen' ORDER BY i.costs ASC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["Gel pen blue"]


def test_a_fee_object_in_another_domain() -> None:
    a = answerer(RENTAL)
    ans = a.answer_sql("Which bike is the most expensive?", "SELECT dayFee FROM Bike ORDER BY dayFee DESC LIMIT 1")
    assert ans.state == "unsure" and "superlative_thing_returned" in failed(ans)
    ans = a.answer_sql("Which bike is the most expensive?", "SELECT label FROM Bike ORDER BY dayFee DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["Cargo One"]


def test_a_price_object_in_arithmetic_is_its_number() -> None:
    """A difference of two prices held as objects is the difference of their amounts, in both domains (an object
    has no number of its own: read as is it gave no value at all)."""
    a = answerer(STATIONERY)
    ans = a.answer_sql("How much more does the fountain pen cost than the gel pen?",
                       "SELECT a.costs - b.costs FROM Item AS a, Item AS b WHERE a.label = 'Fountain pen' AND "
                       "b.label = 'Gel pen blue'")
    assert ans.state == "answered" and [round(float(v), 2) for v in ans.values()] == [23.3]
    a = answerer(RENTAL)
    ans = a.answer_sql("What is each bike's day fee in cents?", "SELECT label, dayFee * 100 FROM Bike ORDER BY label")
    assert ans.state == "answered"
    assert [row[0].text() for row in ans.rows] == ["Cargo One", "City Two", "Tandem Three"]
    assert [round(float(row[1].value)) for row in ans.rows] == [3000, 1200, 2500]


def test_a_link_to_things_shared_by_many_is_no_value() -> None:
    """Stations are linked from several bikes: a station is a thing, not a bike's value."""
    a = answerer(RENTAL)
    ans = a.answer_sql("At which station is the most expensive bike docked?",
                       "SELECT dockedAt FROM Bike ORDER BY dayFee DESC LIMIT 1")
    assert "superlative_thing_returned" not in failed(ans)


# ---- rounded numbers asked ----------------------------------------------------------------------------------
@pytest.mark.parametrize("ttl, question, unrounded, rounded", [
    (PARKS, "What is the average salary of the rangers, rounded to two decimals?", "SELECT AVG(salary) FROM Ranger",
     "SELECT ROUND(AVG(salary), 2) FROM Ranger"),
    (GROVE, "What is the average age of the trees? Round it off.", "SELECT AVG(tree_age) / 7.0 FROM Tree",
     "SELECT ROUND(AVG(tree_age) / 7.0, 1) FROM Tree"),
])
def test_rounded_numbers_asked(ttl: str, question: str, unrounded: str, rounded: str) -> None:
    a = answerer(ttl)
    ans = a.answer_sql(question, unrounded)
    assert ans.state == "unsure" and failed(ans) == ["rounded_as_asked"]
    ans = a.answer_sql(question, rounded)
    assert ans.state == "answered" and "rounded_as_asked" not in failed(ans)


def test_round_as_a_noun_asks_for_nothing() -> None:
    ans = answerer(PARKS).answer_sql("Which rangers made the first round of the patrol at Reeds?",
                                     "SELECT label FROM Ranger WHERE postedAt = 'Reeds'")
    assert "rounded_as_asked" not in [c["check"] for c in ans.checks]


# ---- how many, and a second amount --------------------------------------------------------------------------
@pytest.mark.parametrize("ttl, question, one, both", [
    (PARKS, "How many rangers work at each hut, and what is their average salary?",
     "SELECT postedAt, COUNT(*) FROM Ranger GROUP BY postedAt",
     "SELECT postedAt, COUNT(*), AVG(salary) FROM Ranger GROUP BY postedAt"),
    (GROVE, "How many trees bear each fruit, and what is their total age?",
     "SELECT fruit, SUM(tree_age) FROM Tree GROUP BY fruit",
     "SELECT fruit, COUNT(*), SUM(tree_age) FROM Tree GROUP BY fruit"),
])
def test_how_many_and_a_second_amount(ttl: str, question: str, one: str, both: str) -> None:
    a = answerer(ttl)
    ans = a.answer_sql(question, one)
    assert ans.state == "unsure" and failed(ans) == ["second_ask_answered"]
    assert a.answer_sql(question, both).state == "answered"


def test_the_most_and_how_many_is_one_amount() -> None:
    """"Which X has the most Y, and how many?": the count is the one amount asked."""
    ans = answerer(GROVE).answer_sql("Which fruit do the most trees bear, and how many?",
                                     "SELECT fruit, COUNT(*) FROM Tree GROUP BY fruit ORDER BY COUNT(*) DESC LIMIT 1")
    assert "second_ask_answered" not in failed(ans)


# ---- a condition on an average ------------------------------------------------------------------------------
QUARRY = HEAD + """
@prefix : <http://example.org/quarry#> .
:Sample a owl:Class . :Pit a owl:Class .
:fromPit a owl:ObjectProperty .
:p1 a :Pit ; rdfs:label "North pit" . :p2 a :Pit ; rdfs:label "Lower pit" .
:s1 a :Sample ; :fromPit :p1 ; :grit 50 ; :rock "granite" . :s2 a :Sample ; :fromPit :p1 ; :grit 20 ; :rock "granite" .
:s3 a :Sample ; :fromPit :p2 ; :grit 45 ; :rock "gneiss" . :s4 a :Sample ; :fromPit :p2 ; :grit 41 ; :rock "gneiss" .
"""


def test_a_condition_on_an_average_is_not_a_condition_on_each_value() -> None:
    a = answerer(QUARRY)
    ans = a.answer_sql("How many samples does each rock have, for the rocks with an average grit greater than 40?",
                       "SELECT rock, COUNT(*) FROM Sample WHERE grit > 40 GROUP BY rock")
    assert ans.state == "answered" and ans.repairs == ["average_compared"]  # the condition put on the average
    assert [[c.value for c in r] for r in ans.rows] == [["gneiss", "2"]]
    ans = a.answer_sql("Which samples have grit above 40, among the pits with an average grit greater than 40?",
                       "SELECT s.iri FROM Sample s WHERE s.grit > 40")
    assert ans.state == "unsure" and "average_compared" in failed(ans)  # no group to put it on: the model's
    ans = a.answer_sql("Which rocks have an average grit greater than 40?",
                       "SELECT rock FROM Sample GROUP BY rock HAVING AVG(grit) > 40")
    assert ans.state == "answered" and ans.values() == ["gneiss"]
    a = answerer(PARKS)
    ans = a.answer_sql("List the huts whose rangers earn on average more than 9000.",
                       "SELECT label FROM Hut")
    assert "average_compared" in failed(ans)  # "on average more than" is a condition on an average too
    ans = a.answer_sql("What is the average salary of rangers earning over 9000?",
                       "SELECT AVG(salary) FROM Ranger WHERE salary > 9000")
    assert "average_compared" not in failed(ans)


@pytest.mark.parametrize("ttl, question, sql, rows", [
    (QUARRY, "What is the total grit of each rock, for the rocks with an average grit greater than 40?",
     "SELECT rock, SUM(grit), AVG(grit) FROM Sample WHERE grit > 40 GROUP BY rock", [["gneiss", "86", "43"]]),
    (PARKS, "For the huts whose rangers earn on average more than 6000, how many rangers are posted there?",
     "SELECT h.label, COUNT(*) FROM Ranger r JOIN Hut h ON r.postedAt = h.iri WHERE r.salary > 6000 "
     "GROUP BY h.label HAVING AVG(r.salary) > 6000", [["Pinewood", "3"]]),
])
def test_an_average_compared_is_not_also_each_value_compared(ttl: str, question: str, sql: str, rows: list) -> None:
    """A plan that averages (selected, or compared in HAVING) and also keeps only the single values past the
    number reads the average of the kept values: the condition on each value goes, the one on the average stays."""
    ans = answerer(ttl).answer_sql(question, sql)
    assert ans.state == "answered" and ans.repairs == ["average_compared"], ans.answer
    assert [[c.value for c in r] for r in ans.rows] == rows
