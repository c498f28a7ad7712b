"""Two links from one table to another (directions.py): which column of the pair a plan reads is asked of the
model, and a plan read backwards is turned round. Two made-up domains: a courier's shipments between depots (key
numbers beside `ref-` links, as a database export keeps them) and mentorships between people (object properties).

The model's part is a recorded real exchange with the embedded model (tests/cassettes/ask_directions.json); re-record
with `ONTOBUILD_RECORD=1 .venv/bin/python -m pytest tests/ontouse/test_directions.py`."""

from __future__ import annotations

from pathlib import Path

from ontouse.directions import LISTED, direction_questions, parallel_columns, turned
from ontouse.sqlplan.plan import Col, walk
from ontouse.sqlplan.reader import read_sql
from tests.conftest import cassette_model
from tests.ontouse_graphs import HEAD, view

CASSETTE = Path(__file__).resolve().parents[1] / "cassettes" / "ask_directions.json"

COURIER = HEAD + """
@prefix : <http://example.org/courier#> .
@prefix d: <http://example.org/courier/depot#> .
@prefix s: <http://example.org/courier/shipment#> .
:d1 a :Depot ; d:depot_code "HWK" ; d:town "Harwick" .
:d2 a :Depot ; d:depot_code "LMB" ; d:town "Lambourne" .
:d3 a :Depot ; d:depot_code "OSW" ; d:town "Oswick" .
:p1 a :Shipment ; s:shipment_no 71 ; s:kilos 12 ; s:from_depot "HWK" ; s:to_depot "LMB" ;
    s:ref-from_depot :d1 ; s:ref-to_depot :d2 .
:p2 a :Shipment ; s:shipment_no 72 ; s:kilos 3 ; s:from_depot "HWK" ; s:to_depot "OSW" ;
    s:ref-from_depot :d1 ; s:ref-to_depot :d3 .
:p3 a :Shipment ; s:shipment_no 73 ; s:kilos 40 ; s:from_depot "LMB" ; s:to_depot "HWK" ;
    s:ref-from_depot :d2 ; s:ref-to_depot :d1 .
:p4 a :Shipment ; s:shipment_no 74 ; s:kilos 8 ; s:from_depot "OSW" ; s:to_depot "LMB" ;
    s:ref-from_depot :d3 ; s:ref-to_depot :d2 .
"""

MENTORING = HEAD + """
@prefix : <http://example.org/guild#> .
:Person a owl:Class ; rdfs:label "Person" .
:Mentorship a owl:Class ; rdfs:label "Mentorship" .
:mentor a owl:ObjectProperty ; rdfs:label "mentor" ; rdfs:comment "The person who gives the guidance." .
:mentee a owl:ObjectProperty ; rdfs:label "mentee" ; rdfs:comment "The person who is guided." .
:reportsTo a owl:ObjectProperty ; rdfs:label "reports to" .
:oversees a owl:ObjectProperty ; rdfs:label "oversees" .
:ana a :Person ; rdfs:label "Ana Falk" ; :oversees :ivo .
:ivo a :Person ; rdfs:label "Ivo Lenz" ; :reportsTo :ana ; :oversees :uma .
:uma a :Person ; rdfs:label "Uma Roth" ; :reportsTo :ivo .
:m1 a :Mentorship ; :mentor :ana ; :mentee :ivo ; :since 2019 .
:m2 a :Mentorship ; :mentor :ana ; :mentee :uma ; :since 2021 .
:m3 a :Mentorship ; :mentor :ivo ; :mentee :uma ; :since 2023 .
"""


def _plan(ttl: str, sql: str):
    _, schema = view(ttl)
    return read_sql(schema, sql)[0], schema


def test_pairs_of_columns_that_refer_to_one_table() -> None:
    _, courier = view(COURIER)
    _, guild = view(MENTORING)
    assert parallel_columns(courier.table("shipment")) == {
        "from_depot": ("from_depot", "to_depot"), "to_depot": ("from_depot", "to_depot")}
    assert set(parallel_columns(guild.table("mentorship"))) == {"mentor", "mentee"}
    assert parallel_columns(courier.table("depot")) == {}


def test_what_the_question_names_that_the_column_holds() -> None:
    plan, schema = _plan(COURIER, "SELECT shipment_no FROM shipment WHERE to_depot = 'HWK'")
    [use] = direction_questions(plan, schema)
    assert (use.table, use.used, use.options, use.target, use.anchor) == (
        "Shipment", "to_depot", ("from_depot", "to_depot"), "Depot", "HWK")
    plan, schema = _plan(COURIER, "SELECT T1.shipment_no FROM shipment AS T1 JOIN depot AS T2 "
                                  "ON T1.from_depot = T2.depot_code WHERE T2.town = 'Harwick'")
    [use] = direction_questions(plan, schema)
    assert (use.used, use.anchor) == ("from_depot", "Harwick")
    # the joined row is what the query lists: no value names it
    plan, schema = _plan(MENTORING, "SELECT T2.label FROM mentorship AS T1 JOIN person AS T2 ON T1.mentee = T2.iri")
    [use] = direction_questions(plan, schema)
    assert (use.used, use.anchor) == ("mentee", LISTED)
    # both columns read: the one compared with a value (here through a nested query) is asked about
    plan, schema = _plan(MENTORING, "SELECT T2.label FROM mentorship AS T1 JOIN person AS T2 ON T1.mentee = T2.iri "
                                    "WHERE T1.mentor = (SELECT iri FROM person WHERE label = 'Ana Falk')")
    [use] = direction_questions(plan, schema)
    assert (use.used, use.anchor) == ("mentor", "Ana Falk")
    # the row itself is named too: the question is asked of that row
    plan, schema = _plan(MENTORING, "SELECT T1.iri FROM person AS T1 JOIN person AS T2 ON T1.oversees = T2.iri "
                                    "WHERE T1.label = 'Uma Roth' AND T2.label = 'Ivo Lenz'")
    [use] = direction_questions(plan, schema)
    assert (use.used, use.options, use.anchor, use.row) == ("oversees", ("oversees", "reportsto"), "Ivo Lenz",
                                                            "Uma Roth")
    assert "the Person named 'Ivo Lenz', in the row of the Person named 'Uma Roth'" in use.prompt("?", schema)
    # a table without a pair, or a pair the query reads with nothing that anchors it: nothing to ask
    plan, schema = _plan(COURIER, "SELECT COUNT(*) FROM shipment")
    assert direction_questions(plan, schema) == []


def test_turned_swaps_the_pair_in_that_query_only() -> None:
    plan, schema = _plan(MENTORING, "SELECT T2.label FROM mentorship AS T1 JOIN person AS T2 ON T1.mentee = T2.iri "
                                    "WHERE T1.mentor = (SELECT iri FROM person WHERE label = 'Ana Falk')")
    [use] = direction_questions(plan, schema)
    round_ = turned(plan, use, "mentee")
    read = sorted(n.column for n in walk(round_) if isinstance(n, Col) and n.alias == "T1")
    assert read == ["mentee", "mentor"]
    again = direction_questions(round_, schema)[0]
    assert (again.used, again.anchor) == ("mentee", "Ana Falk")
    assert turned(round_, again, "mentor") == plan


def _loop(ttl: str, model):
    from ontouse.answerer import AnswerLoop

    store, schema = view(ttl)
    return AnswerLoop(store, model, schema=schema)


def test_a_plan_read_backwards_is_turned_round() -> None:
    """The model is asked which column holds what the question names (twice, the columns in either order, when it
    disagrees with the plan); the plan is turned round and its rows are the ones the question asks for."""
    model = cassette_model(CASSETTE)
    cases = [
        (COURIER, "Which shipments left the depot HWK? Give their numbers.",
         "SELECT shipment_no FROM shipment WHERE to_depot = 'HWK'", {"71", "72"}, True),
        (MENTORING, "Who are the people that Ivo Lenz mentors?",  # (read backwards: Ivo's own mentor)
         "SELECT T2.label FROM mentorship AS T1 JOIN person AS T2 ON T1.mentor = T2.iri "
         "WHERE T1.mentee = (SELECT iri FROM person WHERE label = 'Ivo Lenz')", {"Uma Roth"}, True),
        (COURIER, "How many shipments arrived at the depot in Lambourne?",  # read the right way: stands
         "SELECT COUNT(*) FROM shipment AS T1 JOIN depot AS T2 ON T1.to_depot = T2.depot_code "
         "WHERE T2.town = 'Lambourne'", {"2"}, False),
        (MENTORING, "Does Uma Roth report to Ivo Lenz?",  # the row is named too (read backwards: nothing found)
         "SELECT T1.iri FROM person AS T1 JOIN person AS T2 ON T1.oversees = T2.iri "
         "WHERE T1.label = 'Uma Roth' AND T2.label = 'Ivo Lenz'", {"Uma Roth"}, True),
    ]
    for ttl, question, sql, wanted, repaired in cases:
        loop = _loop(ttl, model)
        q, _ = loop._parse(question, question, "en")
        run = loop._run(q, sql)
        assert not run.problem, run.problem
        loop._direction(q, question, run, [])
        assert {c.label or c.value for row in run.rows for c in row} == wanted, question
        assert ("direction" in run.fixes) == repaired, question
    if hasattr(model, "position"):
        assert model.position == len(model.entries)
