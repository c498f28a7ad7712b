"""Repairs by code of a plan that found no rows (ontouse.empty_results): a name compared on the wrong table of the
plan moves to the table whose row it names; a joined table the question does not name, unused and leaving no
rows, is left out. On the parks graph of the tests (made up)."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, PARKS, NoModel, view
from ontouse.answerer import AnswerLoop


@pytest.fixture(scope="module")
def parks() -> AnswerLoop:
    store, schema = view(PARKS)
    return AnswerLoop(store, NoModel(), schema=schema)


def values(ans) -> list[str]:
    return sorted(c.label or c.value for row in ans.rows for c in row)


def test_a_name_moves_to_the_table_whose_row_it_names(parks: AnswerLoop) -> None:
    """'Mira Stone' is a warden (so also a ranger): compared on the rangers, the plan finds no ranger named so that
    has a warden; the question's linking names her a Warden row, the other table of the plan."""
    ans = parks.answer_sql("Which rangers report to Mira Stone?",
                           "SELECT R.iri FROM Ranger AS R JOIN Warden AS W ON R.hasWarden = W.iri "
                           "WHERE R.label = 'Mira Stone'")
    assert ans.state == "answered" and "named_on_its_table" in ans.repairs
    assert values(ans) == ["Ada Quill", "Ben Arbor"]


def test_an_unasked_join_that_leaves_nothing_is_left_out(parks: AnswerLoop) -> None:
    ans = parks.answer_sql("What is the budget of Birch?",
                           "SELECT H.budget FROM Hut AS H JOIN Ranger AS R ON R.postedAt = H.iri "
                           "WHERE H.label = 'Birch'")
    assert ans.state == "answered" and "unasked_join_dropped" in ans.repairs and values(ans) == ["90000"]


def test_a_join_the_question_names_stays(parks: AnswerLoop) -> None:
    ans = parks.answer_sql("What is the budget of Birch, where a ranger is posted?",
                           "SELECT H.budget FROM Hut AS H JOIN Ranger AS R ON R.postedAt = H.iri "
                           "WHERE H.label = 'Birch'")
    assert ans.state != "answered" and "unasked_join_dropped" not in ans.repairs


def test_a_name_of_the_other_table_of_the_query_is_compared_there(parks: AnswerLoop) -> None:
    """`named_on_its_source` (repairs.py, before the plan runs): no ranger is named 'Birch', the query's other
    table has a row of that name; compared there, the join leaves nothing, and the unasked join is left out."""
    ans = parks.answer_sql("What is the budget of Birch?",
                           "SELECT H.budget FROM Hut AS H JOIN Ranger AS R ON R.postedAt = H.iri "
                           "WHERE R.label = 'Birch'")
    assert ans.state == "answered" and "named_on_its_source" in ans.repairs and values(ans) == ["90000"]


def test_two_different_things_joined_as_one_are_joined_by_their_link(parks: AnswerLoop) -> None:
    ans = parks.answer_sql("Which rangers work in Reeds?",
                           "SELECT R.iri FROM Ranger AS R JOIN Hut AS H ON R.iri = H.iri WHERE H.label = 'Reeds'")
    assert ans.state == "answered" and "joined_by_the_link" in ans.repairs
    assert values(ans) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]


OFFICE = HEAD + """@prefix : <http://example.org/office#> .
:Binder a owl:Class . :Sheet a owl:Class .
:holds a owl:ObjectProperty . :filedIn a owl:ObjectProperty .
:b1 a :Binder ; rdfs:label "Blue binder" ; :holds :s1, :s2 .
:b2 a :Binder ; rdfs:label "Grey binder" .
:s1 a :Sheet ; rdfs:label "Tax form" . :s2 a :Sheet ; rdfs:label "Lease" .
:s3 a :Sheet ; rdfs:label "Invoice 7" ; :filedIn :b2 ."""


def test_a_join_by_the_link_the_data_does_not_state_that_way_takes_the_other() -> None:
    """The binders link to their sheets (`holds`), and one sheet to its binder (`filedIn`): a join by `filedIn`
    finds no binder of the tax form; by `holds` it does."""
    store, schema = view(OFFICE)
    office = AnswerLoop(store, NoModel(), schema=schema)
    ans = office.answer_sql("Which binders hold the Tax form?",
                            "SELECT B.iri FROM Binder AS B JOIN Sheet AS S ON B.iri = S.filedIn "
                            "WHERE S.label = 'Tax form'")
    assert ans.state == "answered" and "joined_by_the_link" in ans.repairs and values(ans) == ["Blue binder"]


def test_a_value_the_question_names_left_out_is_compared_where_it_is(parks: AnswerLoop) -> None:
    """named_values_used's repair: the question names the hut, the plan reads the ranger only; compared on the
    hut's table of the plan, nothing is found, which for a yes/no question is the answer no."""
    ans = parks.answer_sql("Does Ada Quill work in Reeds?",
                           "SELECT H.label FROM Ranger AS R JOIN Hut AS H ON R.postedAt = H.iri "
                           "WHERE R.label = 'Ada Quill'")
    assert ans.state == "answered" and "named_values_used" in ans.repairs and ans.boolean is False
    ans = parks.answer_sql("Does Ada Quill work in Pinewood?",
                           "SELECT H.label FROM Ranger AS R JOIN Hut AS H ON R.postedAt = H.iri "
                           "WHERE R.label = 'Ada Quill'")
    assert ans.state == "answered" and ans.boolean is True
