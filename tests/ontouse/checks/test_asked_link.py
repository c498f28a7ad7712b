"""asked_table (ontouse.checks.asked): "which X ..." answered by a link of X's rows to other things selects those
things, not X's rows. On a tiny made-up graph of an office."""

from __future__ import annotations

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop

OFFICE = HEAD + """@prefix : <http://example.org/office#> .
:Binder a owl:Class . :Sheet a owl:Class .
:holds a owl:ObjectProperty . :filedIn a owl:ObjectProperty .
:b1 a :Binder ; rdfs:label "Blue binder" ; :holds :s1, :s2 .
:b2 a :Binder ; rdfs:label "Grey binder" ; :holds :s3 .
:s1 a :Sheet ; rdfs:label "Tax form" . :s2 a :Sheet ; rdfs:label "Lease" .
:s3 a :Sheet ; rdfs:label "Invoice 7" ; :filedIn :b2 ."""


def test_a_link_of_the_asked_rows_to_other_things_is_not_the_asked_rows() -> None:
    store, schema = view(OFFICE)
    office = AnswerLoop(store, NoModel(), schema=schema)
    ans = office.answer_sql("Which binder holds the Lease?",
                            "SELECT B.holds FROM Binder AS B WHERE B.label = 'Blue binder'")
    assert ans.state != "answered" and any(c["check"] == "asked_table" and not c["passed"] for c in ans.checks)
    ans = office.answer_sql("Which binder holds the Lease?",
                            "SELECT B.iri FROM Binder AS B JOIN Sheet AS S ON B.holds = S.iri WHERE S.label = 'Lease'")
    assert ans.state == "answered" and [c.label or c.value for row in ans.rows for c in row] == ["Blue binder"]
