"""What an answer must hold of what was asked: a value the question names by its column's words ("hire fee") that
the plan reads from no table (it answered from another table's value); "no data" said only of what the view lacks;
a long list kept whole. Made-up domains: a harbour, a records office, a tag store."""

from __future__ import annotations

import pytest
from ontouse_graphs import HEAD, NoModel, view

from ontouse.answerer import AnswerLoop

HARBOUR = HEAD + """
@prefix : <http://example.org/harbour#> .
:Berth a owl:Class ; rdfs:label "berth" .
:Crane a owl:Class ; rdfs:label "crane" .
:Booking a owl:Class ; rdfs:label "booking" .
:atBerth a owl:ObjectProperty .
:b1 a :Berth ; rdfs:label "North Quay" ; :berth_fee 120 ; :depth_m 9 .
:b2 a :Berth ; rdfs:label "Fish Pier" ; :berth_fee 80 ; :depth_m 5 .
:c1 a :Crane ; rdfs:label "Gantry A" ; :hire_fee 450 ; :lift_tons 40 ; :atBerth :b1 .
:c2 a :Crane ; rdfs:label "Jib 2" ; :hire_fee 200 ; :lift_tons 12 ; :atBerth :b2 .
:k1 a :Booking ; rdfs:label "booking 1" ; :atBerth :b1 ; :nights 3 .
"""

RECORDS = HEAD + """
@prefix : <http://example.org/records#> .
:Box a owl:Class ; rdfs:label "box" .
:Loan a owl:Class ; rdfs:label "loan" .
:ofBox a owl:ObjectProperty .
:x1 a :Box ; rdfs:label "Box 14" ; :shelf "R2" ; :weight_kg 6 .
:x2 a :Box ; rdfs:label "Box 15" ; :shelf "R3" ; :weight_kg 9 .
:n1 a :Loan ; rdfs:label "loan 7" ; :ofBox :x1 ; :late_fee 15 ; :days_out 40 .
:n2 a :Loan ; rdfs:label "loan 8" ; :ofBox :x2 ; :late_fee 0 ; :days_out 10 .
"""


def loop(ttl: str) -> AnswerLoop:
    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def harbour() -> AnswerLoop:
    return loop(HARBOUR)


@pytest.fixture(scope="module")
def records() -> AnswerLoop:
    return loop(RECORDS)


def failed(ans) -> list[str]:
    return [c["check"] for c in ans.checks if not c["passed"]]


def test_a_named_value_of_a_table_the_plan_never_reads(harbour: AnswerLoop, records: AnswerLoop) -> None:
    ans = harbour.answer_sql("How much is the highest hire fee?", "SELECT MAX(berth_fee) FROM Berth")
    assert ans.state == "unsure" and failed(ans) == ["named_columns_read"] and "Crane.hire_fee" in ans.error
    ans = records.answer_sql("What is the largest late fee?", "SELECT MAX(weight_kg) FROM Box")
    assert ans.state == "unsure" and "Loan.late_fee" in ans.error


def test_the_named_value_read_where_it_is_passes(harbour: AnswerLoop, records: AnswerLoop) -> None:
    ans = harbour.answer_sql("How much is the highest hire fee?", "SELECT MAX(hire_fee) FROM Crane")
    assert ans.state == "answered" and ans.values() == ["450"]
    ans = harbour.answer_sql("What is the hire fee of the crane at North Quay?",
                             "SELECT C.hire_fee FROM Crane AS C JOIN Berth AS B ON C.atBerth = B.iri "
                             "WHERE B.label = 'North Quay'")
    assert ans.state == "answered" and ans.values() == ["450"]
    ans = records.answer_sql("Which box has a loan with a late fee?",
                             "SELECT B.label FROM Box AS B JOIN Loan AS L ON L.ofBox = B.iri WHERE L.late_fee > 0")
    assert ans.state == "answered" and ans.values() == ["Box 14"]



GUILD = HEAD + """
@prefix : <http://example.org/guild#> .
:Member a owl:Class ; rdfs:label "member" .
:GuildHall a owl:Class ; rdfs:label "guild hall" .
:mentoredBy a owl:ObjectProperty . :reportsTo a owl:ObjectProperty . :guildHall a owl:ObjectProperty .
:h1 a :GuildHall ; rdfs:label "Tanners Hall" .
:h2 a :GuildHall ; rdfs:label "Dyers Hall" .
:m1 a :Member ; rdfs:label "Ada Quill" ; :guildHall :h1 .
:m2 a :Member ; rdfs:label "Ben Arbor" ; :mentoredBy :m1 ; :reportsTo :m3 ; :guildHall :h1 .
:m3 a :Member ; rdfs:label "Cy Lune" ; :reportsTo :m1 ; :guildHall :h2 .
"""

WORKSHOP = HEAD + """
@prefix : <http://example.org/workshop#> .
:Part a owl:Class ; rdfs:label "part" .
:Maker a owl:Class ; rdfs:label "maker" .
:replacementPart a owl:ObjectProperty . :madeBy a owl:ObjectProperty .
:k1 a :Maker ; rdfs:label "Vossberg" .
:p1 a :Part ; rdfs:label "Valve K5" ; :madeBy :k1 ; :replacementPart :p2 .
:p2 a :Part ; rdfs:label "Valve K6" ; :madeBy :k1 .
:p3 a :Part ; rdfs:label "Seal S1" ; :madeBy :k1 .
"""


@pytest.mark.parametrize("ttl, question, other, right, values", [
    (GUILD, "Which members are mentored by Ada Quill?",
     "SELECT M.label FROM Member AS M JOIN Member AS B ON M.reportsTo = B.iri WHERE B.label = 'Ada Quill'",
     "SELECT M.label FROM Member AS M JOIN Member AS B ON M.mentoredBy = B.iri WHERE B.label = 'Ada Quill'",
     ["Ben Arbor"]),
    (WORKSHOP, "What are the replacement parts of Valve K5?",
     "SELECT O.label FROM Part AS P JOIN Part AS O ON O.madeBy = P.madeBy WHERE P.label = 'Valve K5' "
     "AND O.label != 'Valve K5'",
     "SELECT O.label FROM Part AS P JOIN Part AS O ON P.replacementPart = O.iri WHERE P.label = 'Valve K5'",
     ["Valve K6"]),
])
def test_a_relation_the_question_names_that_the_plan_never_reads(question: str, ttl: str, other: str, right: str,
                                                                 values: list[str]) -> None:
    """A link the question names by its words ("mentored by", "replacement parts") and the plan never reads, from
    either side: the plan answers about another relation."""
    a = loop(ttl)
    ans = a.answer_sql(question, other)
    assert ans.state == "unsure" and "named_columns_read" in failed(ans), ans.answer
    ans = a.answer_sql(question, right)
    assert ans.state == "answered" and ans.values() == values, ans.answer


def test_words_that_name_a_class_name_its_things_not_the_link_of_that_name() -> None:
    ans = loop(GUILD).answer_sql("How many guild halls are there?", "SELECT COUNT(*) FROM GuildHall")
    assert ans.state == "answered" and ans.values() == ["2"], ans.answer


def test_a_value_of_the_same_name_read_from_another_table_passes(harbour: AnswerLoop) -> None:
    # "berth" names the table and "fee" alone names no column: nothing named by two words is left unread
    ans = harbour.answer_sql("What is the fee of the berth North Quay?",
                             "SELECT berth_fee FROM Berth WHERE label = 'North Quay'")
    assert ans.state == "answered" and ans.values() == ["120"]


def test_no_data_is_said_only_of_what_the_view_lacks(records: AnswerLoop) -> None:
    # a colour no table holds: the data cannot answer, and the answer says what was looked for
    ans = records.answer_sql("Which boxes are red?", "SELECT label FROM Box WHERE colour = 'red'")
    assert ans.state == "no_data" and "colour" in ans.answer
    # a shelf is a value of the boxes, not a table: the plan misplaced a name the view has; no claim that the
    # ontology lacks it, the reason says where it is
    ans = records.answer_sql("Which boxes stand on a shelf?", "SELECT label FROM Shelf")
    assert ans.state == "no_data" and "the ontology has no" not in ans.error and "column of Box" in ans.error


def test_a_long_list_is_answered_whole() -> None:
    # a list of a few thousand things is the answer asked for, not its first thousand
    rows = "\n".join(f":t{i} a :Tag ; rdfs:label \"tag {i}\" ; :weight_g {i % 97} ." for i in range(2500))
    tags = loop(HEAD + "@prefix : <http://example.org/tags#> .\n:Tag a owl:Class .\n" + rows)
    ans = tags.answer_sql("Which tags weigh more than 10 g?", "SELECT label FROM Tag WHERE weight_g > 10")
    want = sum(1 for i in range(2500) if i % 97 > 10)
    assert ans.state == "answered" and not ans.truncated and len(ans.values()) == want > 1000


ISLES = HEAD + """
@prefix : <http://example.org/isles#> .
:r1 a :Region ; :code "HRB" ; :region_name "Harbrey" .
:r2 a :Region ; :code "SKL" ; :region_name "Skellan" .
:u1 a :Usage ; :code "HRB" ; :tongue "Norn" ; :official "T" ; :share 61.5 .
:u2 a :Usage ; :code "HRB" ; :tongue "Brythonic" ; :official "F" ; :share 30.0 .
:u3 a :Usage ; :code "SKL" ; :tongue "Brythonic" ; :official "T" ; :share 88.0 .
:u4 a :Usage ; :code "SKL" ; :tongue "Norn" ; :official "F" ; :share 12.0 .
"""

PANTRY = HEAD + """
@prefix : <http://example.org/pantry#> .
:c1 a :Recipe ; :recipe_id 1 ; :title "Green Soup" .
:c2 a :Recipe ; :recipe_id 2 ; :title "Fish Pie" .
:h1 a :Use ; :recipe_id 1 ; :herb "dill" ; :fresh "Y" ; :grams 5 .
:h2 a :Use ; :recipe_id 1 ; :herb "sage" ; :fresh "N" ; :grams 2 .
:h3 a :Use ; :recipe_id 2 ; :herb "dill" ; :fresh "N" ; :grams 3 .
:h4 a :Use ; :recipe_id 2 ; :herb "sage" ; :fresh "Y" ; :grams 4 .
"""


@pytest.mark.parametrize("ttl, question, flag_only, both, values", [
    (ISLES, "Which regions have Norn as an official tongue?",
     "SELECT r.region_name FROM Region r JOIN Usage u ON r.code = u.code WHERE u.official = 'T'",
     "SELECT r.region_name FROM Region r JOIN Usage u ON r.code = u.code WHERE u.official = 'T' "
     "AND u.tongue = 'Norn'", ["Harbrey"]),
    (PANTRY, "Which recipes use fresh dill?",
     "SELECT c.title FROM Recipe c JOIN Use h ON c.recipe_id = h.recipe_id WHERE h.fresh = 'Y'",
     "SELECT c.title FROM Recipe c JOIN Use h ON c.recipe_id = h.recipe_id WHERE h.fresh = 'Y' AND h.herb = 'dill'",
     ["Green Soup"]),
])
def test_another_value_of_the_row_that_holds_a_named_value_is_no_name_of_it(
        ttl: str, question: str, flag_only: str, both: str, values: list[str]) -> None:
    """A flag or a share beside the named value in a table of pairs does not name it: a plan that compares only
    the flag leaves the named value out (repaired by code: the value compared where it is)."""
    a = loop(ttl)
    ans = a.answer_sql(question, flag_only)
    named = next(c for c in ans.checks if c["check"] == "named_values_used")
    assert ans.state == "answered" and ans.values() == values and "repaired" in named.get("detail", ""), ans.answer
    ans = a.answer_sql(question, both)
    assert ans.state == "answered" and ans.values() == values, ans.answer
