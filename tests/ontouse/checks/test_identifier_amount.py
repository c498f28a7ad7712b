"""A sum or an average of identifiers (ontouse.checks.identifiers, check amount_not_an_identifier): SUM / AVG over
a table's identifier or a key that refers to another table's rows adds up labels, not amounts. On a tiny graph of a
made-up domain written inline (a courier's depots and vans, each van keyed to its depot by the depot's code)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks import registry
from ontouse.checks.identifiers import identifier_amount_problem
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql

COURIER = HEAD + """
@prefix : <http://example.org/courier#> .
:Depot a owl:Class ; rdfs:label "depot"@en .
:Van a owl:Class ; rdfs:label "van"@en .
:basedAt a owl:ObjectProperty ; rdfs:label "based at"@en .
:n a :Depot ; rdfs:label "North" ; :code 11 .
:s a :Depot ; rdfs:label "South" ; :code 12 .
:v1 a :Van ; rdfs:label "N1" ; :basedAt :n ; :rangeKm 310 ; :depotCode 11 .
:v2 a :Van ; rdfs:label "N2" ; :basedAt :n ; :rangeKm 650 ; :depotCode 11 .
:v3 a :Van ; rdfs:label "S1" ; :basedAt :s ; :rangeKm 280 ; :depotCode 12 .
"""


@pytest.fixture(scope="module")
def courier() -> AnswerLoop:
    store, schema = view(COURIER)
    return AnswerLoop(store, NoModel(), schema=schema)


def problem(a: AnswerLoop, question: str, sql: str) -> str:
    plan, _ = read_sql(a.schema, sql)
    return identifier_amount_problem(parse_question(question), plan, a.schema)


def test_the_check_is_registered_by_its_file_alone() -> None:
    names = [c.name for c in registry()]
    assert "amount_not_an_identifier" in names and len(set(names)) == len(names)
    assert [c.order for c in registry()] == sorted({c.order for c in registry()})


def test_a_sum_of_keys_or_identifiers_fails(courier: AnswerLoop) -> None:
    assert "a key of Depot.code" in problem(courier, "What is the total range of the vans?",
                                            "SELECT SUM(V.depotCode) FROM Van AS V")
    assert "the identifier of its rows" in problem(courier, "What is the average van?",
                                                   "SELECT AVG(V.iri) FROM Van AS V")


def test_amounts_pass(courier: AnswerLoop) -> None:
    assert problem(courier, "What is the total range of the vans?", "SELECT SUM(V.rangeKm) FROM Van AS V") == ""
    assert problem(courier, "What is the total range per depot?",
                   "SELECT D.label, SUM(V.rangeKm) FROM Depot AS D JOIN Van AS V ON V.basedAt = D.iri "
                   "GROUP BY D.iri") == ""
    # a key column the question names by its own words is read as the value it holds
    assert problem(courier, "What is the average depot code of the vans?",
                   "SELECT AVG(V.depotCode) FROM Van AS V") == ""


def test_an_answer_that_adds_up_keys_is_not_stated(courier: AnswerLoop) -> None:
    ans = courier.answer_sql("What is the total range of the vans?", "SELECT SUM(V.depotCode) FROM Van AS V")
    checks = {c["check"]: c["passed"] for c in ans.checks}
    assert ans.state != "answered" and checks["amount_not_an_identifier"] is False
    ans = courier.answer_sql("What is the total range of the vans?", "SELECT SUM(V.rangeKm) FROM Van AS V")
    assert ans.state == "answered" and ans.answer == "1240."
