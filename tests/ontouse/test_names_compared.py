"""A proper name the question writes that the data does not hold and the plan never compares
(ontouse.checks.proper_names, check names_compared): the plan answers the question without it. Two made-up
domains of tests/ontouse_graphs.py: a park's rangers and huts, and a shop's catalog of products and suppliers."""

from __future__ import annotations

import pytest

from ontouse_graphs import CATALOG, PARKS, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.proper_names import unmatched_names, written_names
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql


@pytest.fixture(scope="module")
def parks() -> AnswerLoop:
    store, schema = view(PARKS)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def catalog() -> AnswerLoop:
    store, schema = view(CATALOG)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_the_names_a_question_writes() -> None:
    assert written_names("How many huts does Lower Fell have? List 'Dock 4' too.") == ["Dock 4", "Lower Fell"]
    assert written_names("Which rangers were hired in March by Mr. Holt?") == ["Mr Holt"]
    assert written_names("List the rangers. Give their names.") == []
    assert written_names("List each ranger's name and the hut's budget.") == []  # no quotes


def test_a_name_the_plan_drops_is_never_stated(parks: AnswerLoop, catalog: AnswerLoop) -> None:
    ans = parks.answer_sql("How many rangers work at the Larchmont hut?", "SELECT COUNT(*) FROM Ranger")
    assert ans.state == "unsure" and "Larchmont" in ans.error
    ans = catalog.answer_sql("How many products does Vendora supply?", "SELECT COUNT(*) FROM Product")
    assert ans.state == "unsure" and "Vendora" in ans.error
    ans = catalog.answer_sql("Wie viele Produkte liefert Vendora?", "SELECT COUNT(*) FROM Product")
    assert "names_compared" not in [c["check"] for c in ans.checks]  # not English: every noun is capitalized


def test_names_the_plan_compares_or_the_view_holds_pass(parks: AnswerLoop, catalog: AnswerLoop) -> None:
    cases = [
        (parks, "How many Rangers work at the Pinewood hut?",  # a class, and a name the data holds
         "SELECT COUNT(*) FROM Ranger R JOIN Hut H ON R.postedAt = H.iri WHERE H.label = 'Pinewood'"),
        (parks, "How many rangers work at the Pine Wood hut?",  # compared in part
         "SELECT COUNT(*) FROM Ranger R JOIN Hut H ON R.postedAt = H.iri WHERE H.label LIKE '%Pine%'"),
        (catalog, "What is the Price of each product?", "SELECT label, price FROM Product"),  # a column
        (parks, "Show the hut IDs and the budgets.", "SELECT iri, budget FROM Hut"),  # a column's name, plural
        (catalog, "Which products were listed in May?", "SELECT label FROM Product WHERE listedAt >= '2024-05-01'"),
    ]
    for loop, question, sql in cases:
        q = parse_question(question)
        plan, _ = read_sql(loop.schema, sql)
        assert unmatched_names(q, plan, loop.index.mentions(q), loop.schema) == [], question
