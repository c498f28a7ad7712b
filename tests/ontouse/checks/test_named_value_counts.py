"""Counts that counted the thing the question names (1) instead of the number asked, repaired by code: the things
that link to a named value by the link the question names (not_the_value_itself), and the named thing's own link
the question names (not_the_value_itself, not_the_named_thing_counted). On a tiny made-up graph of a school."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

SCHOOL = HEAD + """@prefix : <http://example.org/school#> .
:Pupil a owl:Class . :Grade a owl:Class . :Course a owl:Class . :Room a owl:Class .
:grade a owl:ObjectProperty . :mentorGrade a owl:ObjectProperty . :nextGrade a owl:ObjectProperty .
:g1 a :Grade ; rdfs:label "Grade One" ; :nextGrade :g2 . :g2 a :Grade ; rdfs:label "Grade Two" .
:p1 a :Pupil ; rdfs:label "Ilse" ; :grade :g1 . :p2 a :Pupil ; rdfs:label "Omar" ; :grade :g1 ; :mentorGrade :g2 .
:p3 a :Pupil ; rdfs:label "Yuki" ; :grade :g2 .
:c1 a :Course ; rdfs:label "Botany" ; :credits 3 ; :room :r1, :r2 . :r1 a :Room ; rdfs:label "Lab A" .
:r2 a :Room ; rdfs:label "Lab B" ."""


@pytest.fixture(scope="module")
def school() -> AnswerLoop:
    store, schema = view(SCHOOL)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_the_things_with_the_value_by_the_link_the_question_names(school: AnswerLoop) -> None:
    """Two links point at grades (grade, mentorGrade); "in the grade" names one; "grade" also names the table of
    grades, so it names no link of the grades' own (nextGrade)."""
    ans = school.answer_sql("How many pupils are in the grade Grade One?",
                            "SELECT COUNT(*) FROM Grade WHERE label = 'Grade One'")
    assert ans.state == "answered" and "not_the_value_itself" in ans.repairs and ans.answer.startswith("2")


def test_the_named_things_own_link_the_question_names_is_counted(school: AnswerLoop) -> None:
    ans = school.answer_sql("How many rooms does Botany use?", "SELECT COUNT(*) FROM Course WHERE label = 'Botany'")
    assert ans.state == "answered" and ans.answer.startswith("2")
    assert "not_the_named_thing_counted" in ans.repairs or "not_the_value_itself" in ans.repairs
