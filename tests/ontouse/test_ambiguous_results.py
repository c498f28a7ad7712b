"""Results that the data leaves ambiguous are "Unsure", never stated: a result that keeps the first k things by a
ranking (ORDER BY ... LIMIT k) when more things share the k-th's ranked value, with every tied thing shown
(ontouse.ambiguity.AmbiguityProbes._tie, ontouse.ambiguity.tie_probes / tied_rows), and a part of a name the question says that
matches several people (AnswerLoop._mixed_names, ambiguity.name_probes). On a tiny graph of a made-up domain (a bicycle
workshop: mechanics and the repairs they did), without a model: `AnswerLoop.answer_sql` runs a given plan through
the same steps as a plan the model wrote."""

from __future__ import annotations

import pytest
from ontouse_graphs import HEAD, NoModel, view

from ontouse.answer import Cell
from ontouse.answerer import AnswerLoop
from ontouse.sqlplan.reader import read_sql
from ontouse.ambiguity import MAX_TIED, tie_probes, tied_rows

WORKSHOP = HEAD + """
@prefix : <http://example.org/workshop#> .
:Mechanic a owl:Class ; rdfs:label "mechanic" .
:Repair a owl:Class ; rdfs:label "repair" .
:doneBy a owl:ObjectProperty .
:m1 a :Mechanic ; rdfs:label "Tove Berg" ; :years 9 .
:m2 a :Mechanic ; rdfs:label "Nils Aune" ; :years 4 .
:m3 a :Mechanic ; rdfs:label "Sanna Lie" ; :years 4 .
:m4 a :Mechanic ; rdfs:label "Paal Dahl" ; :years 1 .
:m5 a :Mechanic ; rdfs:label "Eli Berg" ; :years 2 .
:r1 a :Repair ; rdfs:label "repair 1" ; :doneBy :m1 ; :price 120 .
:r2 a :Repair ; rdfs:label "repair 2" ; :doneBy :m1 ; :price 80 .
:r3 a :Repair ; rdfs:label "repair 3" ; :doneBy :m2 ; :price 120 .
:r4 a :Repair ; rdfs:label "repair 4" ; :doneBy :m2 ; :price 45 .
:r5 a :Repair ; rdfs:label "repair 5" ; :doneBy :m3 ; :price 60 .
"""
MOST_REPAIRS = ("SELECT m.label FROM Mechanic AS m JOIN Repair AS r ON r.doneBy = m.iri GROUP BY m.label "
                "ORDER BY COUNT(*) {} LIMIT 1")


@pytest.fixture(scope="module")
def answerer() -> AnswerLoop:
    store, schema = view(WORKSHOP)
    return AnswerLoop(store, NoModel(), schema=schema)


def checks(ans) -> dict[str, bool]:
    return {c["check"]: c["passed"] for c in ans.checks}


def test_a_tie_at_the_top_is_unsure_and_shows_every_tied_thing(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which mechanic did the most repairs?", MOST_REPAIRS.format("DESC"))
    assert ans.state == "unsure" and checks(ans)["ranking_unique"] is False
    assert "2 results share the top ranked value (2)" in ans.error
    assert "Tove Berg" in ans.answer and "Nils Aune" in ans.answer and "Sanna Lie" not in ans.answer
    assert ans.rows == [] and ans.support == []  # nothing stated, so no evidence of a statement


def test_a_single_top_thing_is_stated_and_the_check_is_recorded(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which mechanic did the fewest repairs?", MOST_REPAIRS.format("ASC"))
    assert ans.state == "answered" and ans.rows[0][0].text() == "Sanna Lie"
    assert checks(ans)["ranking_unique"] is True


def test_a_tie_at_the_last_of_the_top_k(answerer: AnswerLoop) -> None:
    sql = "SELECT label FROM Mechanic ORDER BY years DESC LIMIT 2"
    ans = answerer.answer_sql("Which 2 mechanics have worked the longest?", sql)
    assert ans.state == "unsure" and "1 more result(s) share the ranked value (4) of the last of the top 2" in ans.error
    assert all(name in ans.answer for name in ("Tove Berg", "Nils Aune", "Sanna Lie"))
    ans = answerer.answer_sql("Which 3 mechanics have worked the longest?", sql.replace("LIMIT 2", "LIMIT 3"))
    assert ans.state == "answered" and len(ans.rows) == 3  # the tie is inside the top 3: nothing left out


def test_a_subquery_that_picks_one_of_a_tie(answerer: AnswerLoop) -> None:
    sql = ("SELECT label FROM Mechanic WHERE iri = (SELECT doneBy FROM Repair GROUP BY doneBy "
           "ORDER BY COUNT(*) DESC LIMIT 1)")
    ans = answerer.answer_sql("What is the name of the mechanic with the most repairs?", sql)
    assert ans.state == "unsure" and ans.error.startswith("the ranking in a subquery ties: 2 things")


def test_the_same_value_from_two_things_is_no_tie_when_only_the_value_is_asked(answerer: AnswerLoop) -> None:
    # two repairs cost the most (120): the price asked is the same whichever is kept
    ans = answerer.answer_sql("What is the highest price paid for a repair?",
                              "SELECT price FROM Repair ORDER BY price DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["120"] and checks(ans)["ranking_unique"] is True
    ans = answerer.answer_sql("Which repair had the highest price?",
                              "SELECT label FROM Repair ORDER BY price DESC LIMIT 1")
    assert ans.state == "unsure"


def test_probes_of_a_plan(answerer: AnswerLoop) -> None:
    plan, _ = read_sql(answerer.schema, "SELECT label FROM Mechanic ORDER BY years DESC LIMIT 2")
    [(probe, width, k, whole)] = tie_probes(plan)
    assert (width, k, whole, probe.limit) == (1, 2, True, 2 + MAX_TIED) and len(probe.select) == 2
    plan, _ = read_sql(answerer.schema, "SELECT label FROM Mechanic ORDER BY years DESC")
    assert tie_probes(plan) == []  # no LIMIT: every row is kept, nothing to tie


def test_tied_rows_counts_other_things_with_the_kth_value() -> None:
    rows = [[Cell("a"), Cell("9")], [Cell("b"), Cell("4")], [Cell("c"), Cell("4")], [Cell("c"), Cell("4")],
            [Cell("d"), Cell("1")]]
    assert tied_rows(rows, 1, 2) == 1  # c ties b (twice: one thing)
    assert tied_rows(rows, 1, 1) == 0
    assert tied_rows(rows, 1, 3) == 0  # the 3rd row's value (4) is shared only by the same thing again
    assert tied_rows(rows[:2], 1, 2) == 0


def test_a_part_of_a_name_that_two_people_share(answerer: AnswerLoop) -> None:
    join = "SELECT r.label FROM Repair AS r JOIN Mechanic AS m ON r.doneBy = m.iri WHERE m.label LIKE '{}'"
    ans = answerer.answer_sql("Which repairs did Berg do?", join.format("%Berg%"))
    assert ans.state == "unsure" and checks(ans)["one_name_matched"] is False
    assert "'Berg' matches 2 different values of Mechanic.label (Eli Berg; Tove Berg)" in ans.error
    ans = answerer.answer_sql("Which repairs did Nils do?", join.format("%Nils%"))
    assert ans.state == "answered" and checks(ans)["one_name_matched"] is True
    ans = answerer.answer_sql("Which repairs did Tove Berg do?", join.format("%Tove Berg%"))
    assert ans.state == "answered" and sorted(ans.values()) == ["repair 1", "repair 2"]
