"""The `id_of_thing` repair (ontouse.repairs): a question that asks for ids and a plan that selects things (a
link column, or a row's iri) gets the things' id column, since a thing is shown by its name and its name is not
its id. A question that asks for names, or a table without one id column, keeps the plan as written."""

from __future__ import annotations

from functools import lru_cache

from ontouse.answerer import AnswerLoop
from ontouse.linking import ValueIndex
from ontouse.question import parse_question
from ontouse.repairs import repair_plan
from ontouse.sqlplan.reader import read_sql
from ontouse_graphs import HEAD, store_of
from ontouse_graphs import NoModel

CLUB = HEAD + """@prefix : <http://example.org/club#> .
:p1 a :Player ; rdfs:label "Vera" ; :playerId 301 ; :rating 1800 .
:p2 a :Player ; rdfs:label "Tomas" ; :playerId 302 ; :rating 1650 .
:p3 a :Player ; rdfs:label "Vera" ; :playerId 303 ; :rating 1500 .
:m1 a :Game ; rdfs:label "Game 1" ; :winner :p1 ; :loser :p2 .
:m2 a :Game ; rdfs:label "Game 2" ; :winner :p1 ; :loser :p3 .
:m3 a :Game ; rdfs:label "Game 3" ; :winner :p3 ; :loser :p2 .
:m4 a :Game ; rdfs:label "Game 4" ; :loser :p1 .
"""


@lru_cache(maxsize=None)
def _answerer() -> AnswerLoop:
    return AnswerLoop(store_of(CLUB), NoModel())


def table(question: str, sql: str) -> tuple[set[tuple[str, ...]], list[str]]:
    ans = _answerer().answer_sql(question, sql)
    assert ans.state == "answered", ans.error
    return {tuple(r) for r in ans.table("value")}, ans.repairs


def test_the_id_column_of_a_table() -> None:
    schema = _answerer().schema
    assert schema.table("Player").id_column().name == "playerId"
    assert schema.table("Game").id_column() is None  # no column holds its ids


def test_the_id_column_of_a_table_named_in_the_plural() -> None:
    from ontouse.sqlplan.schema_build import build_schema

    store = store_of(HEAD + """@prefix : <http://example.org/kennel#> .
    :b1 a :Boxes ; :boxId 7 ; :size "large" . :b2 a :Boxes ; :boxId 9 ; :size "small" .
    :c1 a :Crates ; :id 1 ; :crateId 50 . :c2 a :Crates ; :id 2 ; :crateId 51 .""")
    schema = build_schema(store)
    assert schema.table("Boxes").id_column().name == "boxId"
    assert schema.table("Crates").id_column().name == "id"  # `id` itself first, before the singular's name


def test_a_grouped_link_gives_the_linked_things_ids() -> None:
    rows, repairs = table("Show the winner ids and the number of games each won.",
                          "SELECT winner, COUNT(*) FROM Game GROUP BY winner")
    assert rows == {("301", "2"), ("303", "1")}  # two players named Vera: their ids tell them apart
    assert "id_of_thing" in repairs


def test_a_row_itself_gives_its_id() -> None:
    rows, _ = table("What are the ids of players rated above 1600?", "SELECT iri FROM Player WHERE rating > 1600")
    assert rows == {("301",), ("302",)}


def test_a_link_missing_on_some_rows_keeps_those_rows() -> None:
    rows, _ = table("List each game with the id of its winner.", "SELECT label, winner FROM Game")
    assert rows == {("Game 1", "301"), ("Game 2", "301"), ("Game 3", "303"), ("Game 4", "")}


def test_names_asked_or_no_id_column_keep_the_plan() -> None:
    ans = _answerer()
    for question, sql in [("Show the names of the winners and their ids.", "SELECT winner FROM Game"),
                          ("Show the ids of the games.", "SELECT iri FROM Game"),
                          ("Which players won a game?", "SELECT winner FROM Game")]:
        plan = read_sql(ans.schema, sql)[0]
        repaired, applied = repair_plan(plan, ans.schema, ans.index, parse_question(question))
        assert repaired == plan and "id_of_thing" not in applied


def test_without_a_question_nothing_changes() -> None:
    ans = _answerer()
    plan = read_sql(ans.schema, "SELECT winner FROM Game")[0]
    assert repair_plan(plan, ans.schema, ValueIndex.build(ans.schema, ans.store))[0] == plan


def test_t_id_reads_the_tables_id_column_and_joins_still_compare_things() -> None:
    """`p.id` of a table without an `id` column but with one id column (`playerId`) is that column, whatever the
    question asks (names and ids here); in a join condition `id` stays the row itself."""
    rows, repairs = table("List the names and ids of the players who won a game.",
                          "SELECT DISTINCT p.label, p.id FROM Player p JOIN Game g ON g.winner = p.id")
    assert rows == {("Vera", "301"), ("Vera", "303")} and "id_column" in repairs


def test_ids_and_names_asked_with_the_names_selected_apart_give_the_things_ids() -> None:
    rows, repairs = table("List the id and the name of the players rated above 1600.",
                          "SELECT iri, label FROM Player WHERE rating > 1600")
    assert rows == {("301", "Vera"), ("302", "Tomas")} and "id_of_thing" in repairs


def test_a_name_in_the_condition_is_not_a_name_asked() -> None:
    rows, repairs = table("What is the id of the winner of the game whose name is Game 3?",
                          "SELECT winner FROM Game WHERE label = 'Game 3'")
    assert rows == {("303",)} and "id_of_thing" in repairs
    rows, _ = table("Find the ids of the losers in games with the name Game 1 or Game 2.",
                    "SELECT loser FROM Game WHERE label IN ('Game 1', 'Game 2')")
    assert rows == {("302",), ("303",)}
