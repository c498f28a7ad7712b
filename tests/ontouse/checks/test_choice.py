"""A choice among named things (ontouse.checks.choice, check one_of_the_named): "Which hut has the larger budget,
Pinewood or Reeds?" is answered by one of the huts it names, not by the budgets compared. On the parks graph of
the tests (made up)."""

from __future__ import annotations

import pytest

from ontouse_graphs import PARKS, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.choice import offered
from ontouse.question import parse_question

QUESTION = "Which hut has the larger budget, Pinewood or Reeds?"


@pytest.fixture(scope="module")
def parks() -> AnswerLoop:
    store, schema = view(PARKS)
    return AnswerLoop(store, NoModel(), schema=schema)


def failed(ans) -> list[str]:
    return [c["check"] for c in ans.checks if not c["passed"]]


def test_the_things_offered(parks: AnswerLoop) -> None:
    q = parse_question(QUESTION)
    assert offered(q, parks.index.mentions(q)) == ["Pinewood", "Reeds"]
    for other in ("Does Pinewood have a larger budget than Reeds?", "How many rangers work in Pinewood or Reeds?"):
        q = parse_question(other)
        assert offered(q, parks.index.mentions(q)) == []


def test_the_values_compared_are_no_answer(parks: AnswerLoop) -> None:
    """The budgets of the two fail the check; code ranks them the way "larger" says and names the hut."""
    ans = parks.answer_sql(QUESTION, "SELECT budget FROM Hut WHERE label IN ('Pinewood', 'Reeds')")
    assert ans.state == "answered" and "one_of_the_named" in ans.repairs
    assert [c.label or c.value for row in ans.rows for c in row] == ["Pinewood"]
    # a plan that ranks nothing and reads no number says no way: the model is told
    ans = parks.answer_sql(QUESTION, "SELECT label FROM Hut WHERE label = 'Birch'")
    assert ans.state == "unsure" and "one_of_the_named" in failed(ans)


def test_one_of_the_things_is(parks: AnswerLoop) -> None:
    ans = parks.answer_sql(QUESTION, "SELECT iri FROM Hut WHERE label IN ('Pinewood', 'Reeds') "
                                     "ORDER BY budget DESC LIMIT 1")
    assert ans.state == "answered" and "one_of_the_named" not in failed(ans)
    assert [c.label or c.value for row in ans.rows for c in row] == ["Pinewood"]
