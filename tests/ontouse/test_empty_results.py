"""Repairs by code of a plan that found no rows (ontouse.empty_results): a name compared on the wrong table of the
plan moves to the table whose row it names; a joined table the question does not name, unused and leaving no
rows, is left out. On the parks graph of the tests (made up)."""

from __future__ import annotations

import pytest

from ontouse_graphs import PARKS, NoModel, view
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
