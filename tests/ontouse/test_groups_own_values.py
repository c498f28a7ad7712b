"""What a grouped query shows (ontouse.checks.grouping): each group's own values. A column of the several rows of a
group that the query neither groups nor aggregates would show one of them at random; code shows the column the rows
are grouped by in its place. Two made-up domains written inline: a hardware shop's items in categories, an orchard's
trees of varieties."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.grouping import loose_columns
from ontouse.sqlplan.reader import read_sql

SHOP = HEAD + """
@prefix : <http://example.org/shop#> .
:Category a owl:Class ; rdfs:label "category"@en .
:Item a owl:Class ; rdfs:label "item"@en .
:hasCategory a owl:ObjectProperty ; rdfs:label "has category"@en .
:fixings a :Category ; rdfs:label "Fixings" .
:hinges a :Category ; rdfs:label "Hinges" .
:i1 a :Item ; :name "Wall plug" ; :weight_g 2 ; :hasCategory :fixings .
:i2 a :Item ; :name "Anchor bolt" ; :weight_g 90 ; :hasCategory :fixings .
:i3 a :Item ; :name "Butt hinge" ; :weight_g 40 ; :hasCategory :hinges .
:i4 a :Item ; :name "Gate hinge" ; :weight_g 310 ; :hasCategory :hinges .
"""

ORCHARD = HEAD + """
@prefix : <http://example.org/orchard#> .
:Variety a owl:Class ; rdfs:label "variety"@en .
:Tree a owl:Class ; rdfs:label "tree"@en .
:ofVariety a owl:ObjectProperty ; rdfs:label "of variety"@en .
:bramley a :Variety ; rdfs:label "Bramley" .
:cox a :Variety ; rdfs:label "Cox" .
:t1 a :Tree ; :tag "R1-04" ; :yield_kg 40 ; :ofVariety :bramley .
:t2 a :Tree ; :tag "R1-05" ; :yield_kg 60 ; :ofVariety :bramley .
:t3 a :Tree ; :tag "R2-01" ; :yield_kg 30 ; :ofVariety :cox .
"""


def _loop(ttl: str) -> AnswerLoop:
    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_a_loose_column_gives_way_to_the_groups_column() -> None:
    """"The smallest and largest weight of the items in each category" grouped by the category and showing an
    item's name shows the category; "the average yield for each variety" showing a tree's tag shows the variety."""
    ans = _loop(SHOP).answer_sql("What is the smallest and the largest weight of the items in each category?",
                                 "SELECT I.name, MIN(I.weight_g), MAX(I.weight_g) FROM Item AS I "
                                 "JOIN Category AS C ON I.hasCategory = C.iri GROUP BY C.label")
    assert ans.state == "answered" and "groups_own_values" in ans.repairs
    assert sorted(tuple(r) for r in ans.table()) == [("Fixings", "2", "90"), ("Hinges", "40", "310")]
    ans = _loop(ORCHARD).answer_sql("What is the average yield for each variety?",
                                    "SELECT T.tag, AVG(T.yield_kg) FROM Tree AS T JOIN Variety AS V "
                                    "ON T.ofVariety = V.iri GROUP BY V.label")
    assert ans.state == "answered" and sorted(tuple(r) for r in ans.table()) == [("Bramley", "50"), ("Cox", "30")]


def test_the_groups_own_values_pass() -> None:
    """The grouped column, a column of the grouped rows, and the one row a grouped row refers to are the group's
    own."""
    store, schema = view(SHOP)
    for sql in ("SELECT C.label, COUNT(*) FROM Item AS I JOIN Category AS C ON I.hasCategory = C.iri GROUP BY C.label",
                "SELECT I.name, C.label, I.weight_g FROM Item AS I JOIN Category AS C ON I.hasCategory = C.iri "
                "GROUP BY I.iri"):
        assert loose_columns(read_sql(schema, sql)[0], schema) == [], sql
