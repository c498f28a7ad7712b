"""A table the question does not mention, through which the plan reaches a table that refers to the asked rows
itself (ontouse.checks.joins.bridge_problem, check joins_through_unasked): "people with two teammates" read through
the people they follow. Two made-up domains written inline: a sports club's people, follows and team places, and a
shop's customers, referrals and purchases."""

from __future__ import annotations

from ontouse_graphs import HEAD, view
from ontouse.checks.joins import bridge_problem
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql

CLUB = HEAD + """
@prefix : <http://example.org/club#> .
:Person a owl:Class ; rdfs:label "person"@en .
:Follow a owl:Class ; rdfs:label "follow"@en .
:Teammate a owl:Class ; rdfs:label "teammate"@en .
:a a :Person ; rdfs:label "Ada" .
:b a :Person ; rdfs:label "Bo" .
:c a :Person ; rdfs:label "Cy" .
:f1 a :Follow ; :follower :a ; :followed :b .
:f2 a :Follow ; :follower :b ; :followed :c .
:t1 a :Teammate ; :player :a ; :mate :b .
:t2 a :Teammate ; :player :a ; :mate :c .
:t3 a :Teammate ; :player :b ; :mate :c .
"""

SHOP = HEAD + """
@prefix : <http://example.org/shop#> .
:Customer a owl:Class ; rdfs:label "customer"@en .
:Referral a owl:Class ; rdfs:label "referral"@en .
:Purchase a owl:Class ; rdfs:label "purchase"@en .
:x a :Customer ; rdfs:label "Xia" .
:y a :Customer ; rdfs:label "Yoel" .
:r1 a :Referral ; :referrer :x ; :referred :y .
:p1 a :Purchase ; :buyer :x ; :total 5 .
:p2 a :Purchase ; :buyer :y ; :total 9 .
"""


def test_a_table_reached_through_an_unasked_one_is_found() -> None:
    for ttl, question, sql in (
            (CLUB, "Which people have at least 2 teammates?",
             "SELECT P.label FROM Person P JOIN Follow F ON P.iri = F.follower JOIN Teammate T ON F.followed = T.mate "
             "GROUP BY P.iri HAVING COUNT(*) >= 2"),
            (SHOP, "Which customers made a purchase over 8?",
             "SELECT C.label FROM Customer C JOIN Referral R ON C.iri = R.referrer JOIN Purchase U ON "
             "R.referred = U.buyer WHERE U.total > 8")):
        schema = view(ttl)[1]
        problem = bridge_problem(parse_question(question), read_sql(schema, sql)[0], schema)
        assert "does not mention" in problem and "directly" in problem, question


def test_direct_joins_and_a_named_table_pass() -> None:
    schema = view(CLUB)[1]
    for question, sql in (
            ("Which people have at least 2 teammates?",
             "SELECT P.label FROM Person P JOIN Teammate T ON T.player = P.iri GROUP BY P.iri HAVING COUNT(*) >= 2"),
            ("Which people follow one of their teammates?",  # the question names the table gone through
             "SELECT P.label FROM Person P JOIN Follow F ON P.iri = F.follower JOIN Teammate T ON F.followed = T.mate "
             "WHERE T.player = P.iri")):
        assert bridge_problem(parse_question(question), read_sql(schema, sql)[0], schema) == "", question
