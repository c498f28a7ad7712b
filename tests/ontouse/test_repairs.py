"""Named repairs of a plan (ontouse.repairs): value_spelling, name_spelling, and value_elsewhere (the error that
says where a text is a value); a repair only replaces what has exactly one reading, and never loosens a plan."""

from __future__ import annotations

from functools import lru_cache

import pytest

from ontouse.linking import ValueIndex
from ontouse.sqlplan.plan import Cmp, Col, InList, InQuery, Lit, PlanError
from ontouse.repairs import repair_plan
from ontouse.sqlplan.plan import transform
from ontouse.sqlplan.schema_build import build_schema
from ontouse.sqlplan.reader import read_sql
from ontouse_graphs import CATALOG, GROVE, HEAD, PARKS, store_of, view

CAFES = HEAD + """@prefix : <http://example.org/cafe#> .
:c1 a :Cafe ; :town "Zürich" ; :colour "Red" . :c2 a :Cafe ; :town "Genève" ; :colour "red" .
:c3 a :Cafe ; :town "Bern" ; :colour "Blue" ."""


@lru_cache(maxsize=None)
def _index(ttl: str):
    if ttl == CAFES:
        store = store_of(ttl)
        schema = build_schema(store)
    else:
        store, schema = view(ttl)
    return schema, ValueIndex.build(schema, store)


def repair(ttl: str, sql: str):
    schema, index = _index(ttl)
    return repair_plan(read_sql(schema, sql)[0], schema, index)


def repaired_value(ttl: str, sql: str) -> tuple[object, list[str]]:
    plan, applied = repair(ttl, sql)
    return plan.where.right.value, applied


def error(ttl: str, sql: str) -> str:
    with pytest.raises(PlanError) as e:
        repair(ttl, sql)
    return str(e.value)


# ---- value_spelling ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("ttl, sql, value", [
    (PARKS, "SELECT iri FROM Ranger WHERE label = 'ada quill'", "Ada Quill"),  # case
    (GROVE, "SELECT iri FROM Grower WHERE home_farm = 'FERNHILL'", "Fernhill"),
    (GROVE, "SELECT iri FROM Tree WHERE fruit = 'Figs'", "fig"),  # regular plural
    (GROVE, "SELECT iri FROM Tree WHERE fruit = 'quinces'", "quince"),
    (CAFES, "SELECT iri FROM Cafe WHERE town = 'zurich'", "Zürich"),  # accents
    (CAFES, "SELECT iri FROM Cafe WHERE town = 'Geneve'", "Genève"),
    (PARKS, "SELECT iri FROM Ranger WHERE fullName = 'Quill'", "Ada Quill"),  # the only value with the word
    (CATALOG, "SELECT iri FROM Product WHERE label = 'iron rake'", "Iron rake R-220"),
])
def test_value_spelling(ttl: str, sql: str, value: str) -> None:
    assert repaired_value(ttl, sql) == (value, ["value_spelling"])


def test_value_spelling_on_the_left_side_and_in_lists() -> None:
    plan, applied = repair(GROVE, "SELECT iri FROM Tree WHERE 'Apples' = fruit")
    assert plan.where == Cmp("=", Lit("apple"), Col("Tree", "Tree", "fruit")) and applied == ["value_spelling"]
    plan, applied = repair(PARKS, "SELECT iri FROM Ranger WHERE label IN ('ada quill', 'Dan Ferro', 'BEN ARBOR')")
    assert plan.where == InList(Col("Ranger", "Ranger", "label"),
                                (Lit("Ada Quill"), Lit("Dan Ferro"), Lit("Ben Arbor")))


def test_value_spelling_inside_subqueries() -> None:
    plan, applied = repair(GROVE, "SELECT given_name FROM Grower WHERE grower_id IN (SELECT h.tc_grower FROM "
                                  "TreeCare h JOIN Tree p ON p.tree_id = h.tc_tree WHERE p.fruit = 'FIG')")
    assert isinstance(plan.where, InQuery) and plan.where.query.where.right == Lit("fig")
    assert applied == ["value_spelling"]


def test_exact_values_and_other_comparisons_are_left_alone() -> None:
    for ttl, sql in [(GROVE, "SELECT iri FROM Tree WHERE fruit = 'fig' AND tree_age > 3"),
                     (GROVE, "SELECT iri FROM Tree WHERE harvest = '4.5'"),  # a TEXT value the data holds
                     (PARKS, "SELECT iri FROM Ranger WHERE salary = '5200'"),  # not a TEXT column
                     (PARKS, "SELECT iri FROM Ranger WHERE label LIKE '%quil%'"),
                     (PARKS, "SELECT iri FROM Ranger WHERE label < 'b'")]:
        schema, index = _index(ttl)
        plan = read_sql(schema, sql)[0]
        repaired, applied = repair_plan(plan, schema, index)
        assert repaired == plan and applied == []


def test_several_values_fit_is_an_error() -> None:
    assert error(CAFES, "SELECT iri FROM Cafe WHERE colour = 'RED'") == (
        "'RED' is not a value of Cafe.colour; several values fit: 'red', 'Red'. Use the one the question means, "
        "or LIKE.")


def test_unknown_value_lists_values_of_that_column() -> None:
    assert error(GROVE, "SELECT iri FROM Tree WHERE fruit = 'lemon'") == (
        "'lemon' is not a value of Tree.fruit (values look like 'fig', 'apple', 'quince'). Use a value the data "
        "holds, or LIKE '%word%' for a part of a value.")
    # rdfs:label is shared by all tables: the examples are this table's (bug fixed: they were any table's)
    msg = error(PARKS, "SELECT iri FROM Ranger WHERE label = 'Zed Null'")
    assert "(values look like 'Ada Quill', 'Ben Arbor', 'Cleo Vance')" in msg


# ---- name_spelling -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("ttl, sql, value", [
    (PARKS, "SELECT label FROM Ranger WHERE postedAt = 'pinewood'", "Pinewood"),
    (PARKS, "SELECT label FROM Ranger WHERE hasWarden = 'mira stone'", "Mira Stone"),
    (PARKS, "SELECT label FROM Ranger WHERE iri = 'OLAF BRAND'", "Olaf Brand"),  # the row itself
    (CATALOG, "SELECT label FROM Product WHERE inCategory = 'garden tool'", "Garden tools"),
])
def test_name_spelling(ttl: str, sql: str, value: str) -> None:
    assert repaired_value(ttl, sql) == (value, ["name_spelling"])


def test_repaired_plan_answers() -> None:
    store, schema = view(PARKS)
    from ontouse.sqlplan.compile import compile_plan

    plan, _ = repair(PARKS, "SELECT label FROM Ranger WHERE postedAt = 'reed'")
    rows = store.select(compile_plan(schema, plan).sparql).rows
    assert sorted(str(r[0]) for r in rows) == ["Cleo Vance", "Dan Ferro", "Olaf Brand"]


def test_name_not_found_lists_names_of_the_linked_table() -> None:
    msg = error(PARKS, "SELECT label FROM Ranger WHERE postedAt = 'Summit'")
    assert msg.startswith("'Summit' is not a value of the names of Hut (values look like 'Birch', "
                          "'Pinewood', 'Reeds')")
    msg = error(CATALOG, "SELECT label FROM Product WHERE inCategory = 'Kitchen'")
    assert "the names of Category (values look like 'Desk lamps', 'Garden tools')" in msg


def test_links_to_things_without_names_are_left_alone() -> None:
    plan, applied = repair(GROVE, "SELECT tc_tree FROM TreeCare WHERE ref_tc_grower = 'g1'")
    assert plan.where.right == Lit("g1") and applied == []


# ---- value_elsewhere ---------------------------------------------------------------------------------------
def test_value_elsewhere_names_the_column_that_holds_it() -> None:
    assert error(GROVE, "SELECT iri FROM Tree WHERE fruit = 'Fernhill'") == (
        "'Fernhill' is not a value of Tree.fruit. It is a value of Grower.home_farm: compare that column instead "
        "(join its table if needed).")
    assert "It is a value of Tree.fruit" in error(GROVE, "SELECT iri FROM Grower WHERE given_name = 'Fig'")
    # a key compared with the name its referred row holds is compared there by code (referred.py), not reported
    plan, applied = repair(CATALOG, "SELECT iri FROM Product WHERE supplier = 'Polux'")
    assert applied == ["value_of_referred"] and plan.where.left.column == "sup_name"


def test_value_elsewhere_names_the_table_whose_rows_hold_it() -> None:
    """rdfs:label is a column of every table; 'Reeds' is the label of a hut, not of an ranger."""
    msg = error(PARKS, "SELECT iri FROM Ranger WHERE fullName = 'Reeds'")
    assert msg.startswith("'Reeds' is not a value of Ranger.fullName. It is a value of Hut.label")


# ---- transform ---------------------------------------------------------------------------------------------
def test_transform_rebuilds_only_what_changes() -> None:
    schema, _ = _index(GROVE)
    plan = read_sql(schema, "SELECT p.tree_id FROM Tree p WHERE p.fruit = 'apple' AND p.tree_age > 1")[0]
    assert transform(plan, lambda n: n) is plan
    bumped = transform(plan, lambda n: Lit(n.value + 1) if isinstance(n, Lit) and isinstance(n.value, int) else n)
    assert bumped.where.items[1].right == Lit(2) and bumped.where.items[0] is plan.where.items[0]


DEPOTS = HEAD + """
@prefix : <http://example.org/depot#> .
:d1 a :Depot ; rdfs:label "North Yard" ; :depotCode "NY" .
:d2 a :Depot ; rdfs:label "South Yard" ; :depotCode "SY" .
:t1 a :Truck ; :plate "AB-1" ; :depot :d1 .
:t2 a :Truck ; :plate "CD-2" ; :depot :d2 .
"""


def test_a_link_compared_with_the_linked_rows_key_is_kept() -> None:
    assert repaired_value(DEPOTS, "SELECT plate FROM Truck WHERE depot = 'NY'") == ("NY", [])
    assert repaired_value(DEPOTS, "SELECT plate FROM Truck WHERE depot = 'North Yard'") == ("North Yard", [])


# ---- joined_as_link_target ---------------------------------------------------------------------------------
@pytest.mark.parametrize("sql, moved", [
    # Ranger.postedAt links to Hut rows, not Warden rows: the Hut has the name the query reads
    ("SELECT H.label FROM Ranger AS R JOIN Warden AS H ON R.postedAt = H.iri WHERE R.label = 'Ada Quill'", True),
    ("SELECT R.label FROM Ranger AS R JOIN Warden AS H ON R.postedAt = H.iri WHERE H.label = 'Reeds'", True),
    # a name only the joined table holds: the model may have meant that table, so its message decides
    ("SELECT R.label FROM Ranger AS R JOIN Warden AS H ON R.postedAt = H.iri WHERE H.label = 'Mira Stone'", False),
    # a column the link's table lacks; a joined table of the same kind (a Warden is a Ranger)
    ("SELECT H.salary FROM Ranger AS R JOIN Warden AS H ON R.postedAt = H.iri", False),
    ("SELECT W.salary FROM Ranger AS R JOIN Ranger AS W ON R.hasWarden = W.iri", False),
])
def test_a_table_joined_by_a_link_that_points_elsewhere_is_the_links_table_when_it_holds_what_is_asked(
        sql: str, moved: bool) -> None:
    from ontouse.sqlplan.compile import compile_plan

    plan, applied = repair(PARKS, sql)
    assert ("joined_as_link_target" in applied) == moved
    assert [s.table for s in plan.sources][1] == ("Hut" if moved else ("Ranger" if "AS W" in sql else "Warden"))
    if moved:
        store, schema = view(PARKS)
        names = sorted(str(row[0]) for row in store.select(compile_plan(schema, plan).sparql).rows)
        assert names == (["Pinewood"] if "Ada Quill" in sql else ["Cleo Vance", "Dan Ferro", "Olaf Brand"])
