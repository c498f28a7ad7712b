"""A table joined only to come back (ontouse.checks.joins.detour_problem, check joins_asked): a plan that reads its
answer through the rows of a table the question never mentions - joined by that table's one link to rows the plan
reads already - repeats those rows once per linking row and drops the ones nothing links to. Code leaves the table
out (without_detour) and keeps the repair only when every check passes. Two made-up domains written inline: a
lamp workshop with its order lines, and a library with its loans."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql
from ontouse.checks.joins import detour_problem, without_detour

WORKSHOP = HEAD + """
@prefix : <http://example.org/workshop#> .
:Maker a owl:Class ; rdfs:label "maker"@en .
:Lamp a owl:Class ; rdfs:label "lamp"@en .
:OrderLine a owl:Class ; rdfs:label "order line"@en .
:madeBy a owl:ObjectProperty ; rdfs:label "made by"@en .
:ofLamp a owl:ObjectProperty ; rdfs:label "of lamp"@en .
:m1 a :Maker ; rdfs:label "Brightworks" ; :city "Lyon" .
:m2 a :Maker ; rdfs:label "Glow & Co" ; :city "Lyon" .
:m3 a :Maker ; rdfs:label "Filament Ltd" ; :city "Graz" .
:l1 a :Lamp ; rdfs:label "Desk lamp" ; :madeBy :m1 ; :priceEur 40 .
:l2 a :Lamp ; rdfs:label "Floor lamp" ; :madeBy :m2 ; :priceEur 120 .
:l3 a :Lamp ; rdfs:label "Reading lamp" ; :madeBy :m3 ; :priceEur 65 .
:l4 a :Lamp ; rdfs:label "Wall lamp" ; :madeBy :m2 ; :priceEur 55 .
:o1 a :OrderLine ; rdfs:label "line 1" ; :ofLamp :l1 ; :quantity 3 .
:o2 a :OrderLine ; rdfs:label "line 2" ; :ofLamp :l1 ; :quantity 1 .
:o3 a :OrderLine ; rdfs:label "line 3" ; :ofLamp :l3 ; :quantity 2 .
"""

LIBRARY = HEAD + """
@prefix : <http://example.org/library#> .
:Author a owl:Class ; rdfs:label "author"@en .
:Book a owl:Class ; rdfs:label "book"@en .
:Loan a owl:Class ; rdfs:label "loan"@en .
:writtenBy a owl:ObjectProperty ; rdfs:label "written by"@en .
:ofBook a owl:ObjectProperty ; rdfs:label "of book"@en .
:a1 a :Author ; rdfs:label "Ada Rook" .
:a2 a :Author ; rdfs:label "Ben Quill" .
:a3 a :Author ; rdfs:label "Cy Vellum" .
:b1 a :Book ; rdfs:label "Tides" ; :writtenBy :a1 ; :pages 820 .
:b2 a :Book ; rdfs:label "Embers" ; :writtenBy :a2 ; :pages 640 .
:b3 a :Book ; rdfs:label "Frost" ; :writtenBy :a3 ; :pages 300 .
:n1 a :Loan ; :ofBook :b1 ; :days 14 .
:n2 a :Loan ; :ofBook :b1 ; :days 7 .
:n3 a :Loan ; :ofBook :b3 ; :days 21 .
"""


@pytest.fixture(scope="module")
def workshop() -> AnswerLoop:
    store, schema = view(WORKSHOP)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def library() -> AnswerLoop:
    store, schema = view(LIBRARY)
    return AnswerLoop(store, NoModel(), schema=schema)


def problem(a: AnswerLoop, question: str, sql: str) -> str:
    plan, _ = read_sql(a.schema, sql)
    return detour_problem(parse_question(question), plan, a.schema, a.index.table_texts)


def checked(ans) -> dict[str, bool]:
    return {c["check"]: c["passed"] for c in ans.checks}


THROUGH_LINES = ("SELECT M.label FROM Maker AS M JOIN Lamp AS L ON L.madeBy = M.iri "
                 "JOIN OrderLine AS O ON O.ofLamp = L.iri WHERE M.city = 'Lyon'")


def test_a_table_joined_only_to_come_back_fails(workshop: AnswerLoop) -> None:
    assert "joins OrderLine (O), which the question does not mention" in problem(
        workshop, "Which makers in Lyon make lamps?", THROUGH_LINES)
    # the question names the order lines: they are asked about
    assert problem(workshop, "Which makers in Lyon have order lines?", THROUGH_LINES) == ""
    # a table whose columns the plan reads is no detour
    assert problem(workshop, "Which makers in Lyon make lamps?",
                   "SELECT M.label, O.quantity FROM Maker AS M JOIN Lamp AS L ON L.madeBy = M.iri "
                   "JOIN OrderLine AS O ON O.ofLamp = L.iri WHERE M.city = 'Lyon'") == ""
    # nor is the plain join of what the question asks
    assert problem(workshop, "Which makers in Lyon make lamps?",
                   "SELECT M.label FROM Maker AS M JOIN Lamp AS L ON L.madeBy = M.iri WHERE M.city = 'Lyon'") == ""


HUB = ("SELECT M.label FROM Maker AS M JOIN Lamp AS L2 ON L2.madeBy = M.iri JOIN OrderLine AS O ON O.ofLamp = L2.iri "
       "JOIN Lamp AS L ON O.ofLamp = L.iri WHERE L.priceEur > 50")


def test_the_detour_is_left_out(workshop: AnswerLoop) -> None:
    """The order lines joined to two lamp sources by one link (as code writes a column reached through them): both
    are one lamp. Left out, the makers of every lamp over 50 are listed, not only of those that were ordered."""
    plan, _ = read_sql(workshop.schema, HUB)
    direct, _ = read_sql(workshop.schema, "SELECT M.label FROM Maker AS M JOIN Lamp AS L2 ON L2.madeBy = M.iri "
                                          "WHERE L2.priceEur > 50")
    question = "Which makers sell lamps that cost more than 50 euros?"
    assert "joins OrderLine (O)" in problem(workshop, question, HUB)
    assert without_detour(parse_question(question), plan, workshop.schema, workshop.index.table_texts) == direct
    ans = workshop.answer_sql(question, HUB)
    assert ans.state == "answered" and sorted(ans.values()) == ["Filament Ltd", "Glow & Co"]
    assert checked(ans)["joins_asked"] and "joins_asked" in ans.repairs


def test_a_ranking_through_the_detour_counts_each_thing_once(library: AnswerLoop) -> None:
    """A second domain: the loans joined to two book sources; through them the longest book came once per loan and
    filled the top two alone."""
    sql = ("SELECT A.label FROM Author AS A JOIN Book AS B2 ON B2.writtenBy = A.iri "
           "JOIN Loan AS N ON N.ofBook = B2.iri JOIN Book AS B ON N.ofBook = B.iri ORDER BY B.pages DESC LIMIT 2")
    question = "Which authors wrote the two longest books?"
    assert "joins Loan (N)" in problem(library, question, sql)
    ans = library.answer_sql(question, sql)
    assert ans.state == "answered" and sorted(ans.values()) == ["Ada Rook", "Ben Quill"]
    assert checked(ans)["joins_asked"]
    named = "Which authors wrote the two longest books on loan?"
    assert problem(library, named, sql) == ""  # the question names the loans: they are asked about
