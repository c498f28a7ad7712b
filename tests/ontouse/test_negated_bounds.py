"""A bound the question's verb negates, over rows joined to each thing (ontouse.checks.conditions): "which members
have not paid more than 50 for a session?" asks for the members with no session over 50; `sessions.fee <= 50` over
the joined sessions keeps every member with one cheap session, also those with another one over 50, and is sent back.
Two made-up domains written inline: a climbing gym's members and their sessions, a library's readers and loans."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

GYM = HEAD + """
@prefix : <http://example.org/gym#> .
:Member a owl:Class ; rdfs:label "member"@en .
:Session a owl:Class ; rdfs:label "session"@en .
:bookedBy a owl:ObjectProperty ; rdfs:label "booked by"@en .
:ivo a :Member ; rdfs:label "Ivo" .
:lena a :Member ; rdfs:label "Lena" .
:s1 a :Session ; :bookedBy :ivo ; :fee 20 .
:s2 a :Session ; :bookedBy :ivo ; :fee 80 .
:s3 a :Session ; :bookedBy :lena ; :fee 30 .
:s4 a :Session ; :bookedBy :lena ; :fee 45 .
"""

LIBRARY = HEAD + """
@prefix : <http://example.org/library#> .
:Reader a owl:Class ; rdfs:label "reader"@en .
:Loan a owl:Class ; rdfs:label "loan"@en .
:borrowedBy a owl:ObjectProperty ; rdfs:label "borrowed by"@en .
:noor a :Reader ; rdfs:label "Noor" .
:pim a :Reader ; rdfs:label "Pim" .
:l1 a :Loan ; :borrowedBy :noor ; :days_late 2 .
:l2 a :Loan ; :borrowedBy :pim ; :days_late 3 .
:l3 a :Loan ; :borrowedBy :pim ; :days_late 25 .
"""


@pytest.fixture(scope="module")
def gym() -> AnswerLoop:
    store, schema = view(GYM)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def library() -> AnswerLoop:
    store, schema = view(LIBRARY)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_the_opposite_comparison_over_joined_rows_is_sent_back(gym: AnswerLoop, library: AnswerLoop) -> None:
    """Ivo paid 20 and 80: `fee <= 50` over his sessions keeps him, and the answer is withheld with the reason;
    Pim was 3 and 25 days late: the same for "never been more than 10 days late"."""
    ans = gym.answer_sql("Which members have not paid more than 50 for a session?",
                         "SELECT M.label FROM Member AS M JOIN Session AS S ON S.bookedBy = M.iri WHERE S.fee <= 50")
    assert ans.state != "answered" and "bound_over_rows" in str(ans.checks)
    ans = library.answer_sql("Which readers have never been more than 10 days late?",
                             "SELECT R.label FROM Reader AS R JOIN Loan AS L ON L.borrowedBy = R.iri "
                             "WHERE L.days_late <= 10")
    assert ans.state != "answered" and "bound_over_rows" in str(ans.checks)


def test_the_things_without_a_row_beyond_the_bound_are_stated(gym: AnswerLoop, library: AnswerLoop) -> None:
    """The same questions answered by excluding the things with a row beyond the bound: Lena; Noor."""
    ans = gym.answer_sql("Which members have not paid more than 50 for a session?",
                         "SELECT label FROM Member WHERE iri NOT IN (SELECT bookedBy FROM Session WHERE fee > 50)")
    assert ans.state == "answered" and ans.values() == ["Lena"]
    ans = library.answer_sql("Which readers haven't been more than 10 days late?",
                             "SELECT label FROM Reader WHERE iri NOT IN "
                             "(SELECT borrowedBy FROM Loan WHERE days_late > 10)")
    assert ans.state == "answered" and ans.values() == ["Noor"]


def test_a_bound_on_the_things_own_value_is_left_alone(gym: AnswerLoop) -> None:
    """A bound that is not negated ("paid at most 50") compared on the joined rows is another question: not this
    check's."""
    ans = gym.answer_sql("Which members paid at most 50 for a session?",
                         "SELECT M.label FROM Member AS M JOIN Session AS S ON S.bookedBy = M.iri WHERE S.fee <= 50")
    assert "bound_over_rows" not in str(ans.checks)
