"""Reading SQL over the relational view into a plan (ontouse.sqlplan.reader): every construct of the plan language, the
precise PlanError messages the model gets back, and the three fixes (id_is_iri, column_owner, bare_table)."""

from __future__ import annotations

import pytest

from ontouse.sqlplan.plan import (Agg, And, Arith, Between, Cmp, Col, Exists, Func, InList, InQuery, IsNull, Item, Join,
                          Like, Lit, Not, Or, Order, PlanError, Query, Scalar, SetQuery, Source, from_dict, to_dict, walk)
from ontouse.sqlplan.reader import read_sql
from ontouse_graphs import CATALOG, GROVE, HARBOUR, HEAD, PARKS, view

E = lambda c: Col("e", "Ranger", c)  # noqa: E731 - short names for the expected plans
D = lambda c: Col("d", "Hut", c)  # noqa: E731


def pk(sql: str):
    return read_sql(view(PARKS)[1], sql)


def grove(sql: str):
    return read_sql(view(GROVE)[1], sql)


def cat(sql: str):
    return read_sql(view(CATALOG)[1], sql)


def error(schema_ttl: str, sql: str) -> str:
    with pytest.raises(PlanError) as e:
        read_sql(view(schema_ttl)[1], sql)
    return str(e.value)


# ---- constructs --------------------------------------------------------------------------------------------
def test_select_from_where() -> None:
    plan, fixes = pk("SELECT e.label AS who, e.salary FROM Ranger AS e WHERE e.salary > 5000")
    assert plan == Query(select=(Item(E("label"), "who"), Item(E("salary"))), sources=(Source("Ranger", "e"),),
                         where=Cmp(">", E("salary"), Lit(5000)))
    assert fixes == []


def test_unqualified_columns_and_default_alias() -> None:
    plan, _ = grove("SELECT given_name FROM grower WHERE age >= 30.5")
    o = lambda c: Col("Grower", "Grower", c)  # noqa: E731
    assert plan.sources == (Source("Grower", "Grower"),)  # the table's own spelling
    assert plan.select == (Item(o("given_name")),) and plan.where == Cmp(">=", o("age"), Lit(30.5))


def test_joins_and_left_joins() -> None:
    plan, _ = pk("SELECT e.label FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                 "LEFT JOIN Warden m ON e.hasWarden = m.iri WHERE d.label = 'Reeds'")
    assert plan.sources == (Source("Ranger", "e"), Source("Hut", "d"), Source("Warden", "m", True))
    assert plan.joins == (Join(E("postedAt"), D("iri")),
                          Join(E("hasWarden"), Col("m", "Warden", "iri"), optional=True))
    assert plan.where == Cmp("=", D("label"), Lit("Reeds"))


def test_comma_join_with_condition_in_where() -> None:
    plan, _ = grove("SELECT o.given_name FROM Grower o, TreeCare h WHERE h.tc_grower = o.grower_id AND o.age < 40")
    assert plan.joins == (Join(Col("h", "TreeCare", "tc_grower"), Col("o", "Grower", "grower_id")),)
    assert plan.where == Cmp("<", Col("o", "Grower", "age"), Lit(40))


def test_conditions() -> None:
    plan, _ = pk("SELECT e.label FROM Ranger e WHERE (e.salary BETWEEN 4000 AND 6000 OR e.label LIKE 'B%') "
                 "AND e.label NOT LIKE '%x%' AND e.salary IN (1, 2.5) AND e.salary NOT IN (3) "
                 "AND e.hasWarden IS NULL AND e.hired IS NOT NULL AND NOT e.salary = 7 AND NOT (e.salary < 0)")
    assert plan.where == And((
        Or((Between(E("salary"), Lit(4000), Lit(6000)), Like(E("label"), "B%"))),
        Like(E("label"), "%x%", negated=True), InList(E("salary"), (Lit(1), Lit(2.5))),
        InList(E("salary"), (Lit(3),), negated=True), IsNull(E("hasWarden")), IsNull(E("hired"), negated=True),
        Cmp("!=", E("salary"), Lit(7)), Not(Cmp("<", E("salary"), Lit(0)))))


def test_ilike_and_not_between() -> None:
    plan, _ = grove("SELECT tree_id FROM Tree WHERE fruit NOT ILIKE 'D%' AND tree_age NOT BETWEEN 2 AND 5")
    p = lambda c: Col("Tree", "Tree", c)  # noqa: E731
    assert plan.where == And((Like(p("fruit"), "D%", negated=True),
                              Between(p("tree_age"), Lit(2), Lit(5), negated=True)))


def test_aggregates_group_having_order() -> None:
    plan, _ = pk("SELECT d.label, COUNT(*) AS n, COUNT(DISTINCT e.hasWarden), AVG(e.salary) FROM Ranger e "
                 "JOIN Hut d ON e.postedAt = d.iri GROUP BY d.label HAVING n > 1 "
                 "ORDER BY n DESC, 1 LIMIT 5 OFFSET 2")
    assert [it.expr for it in plan.select] == [D("label"), Agg("count"), Agg("count", E("hasWarden"), True),
                                               Agg("avg", E("salary"))]
    assert plan.group_by == (D("label"),)
    assert plan.having == Cmp(">", Agg("count"), Lit(1))  # the select alias, resolved
    assert plan.order_by == (Order(Agg("count"), desc=True), Order(D("label")))
    assert (plan.limit, plan.offset) == (5, 2)


def test_functions_arithmetic_and_distinct() -> None:
    plan, _ = pk("SELECT DISTINCT LOWER(label), UPPER(label), LENGTH(label), ROUND(salary / 12), ABS(-salary), "
                 "CAST(salary AS TEXT), CAST(label AS INTEGER), YEAR(hired), strftime('%Y', hired), salary * 2 + 1 "
                 "FROM Ranger e")
    exprs = [it.expr for it in plan.select]
    assert plan.distinct
    assert exprs[:4] == [Func("lower", (E("label"),)), Func("upper", (E("label"),)),
                         Func("length", (E("label"),)), Func("round", (Arith("/", E("salary"), Lit(12)),))]
    assert exprs[4] == Func("abs", (Arith("-", Lit(0), E("salary")),))
    assert exprs[5:9] == [Func("text", (E("salary"),)), Func("number", (E("label"),)),
                          Func("year", (E("hired"),)), Func("year", (E("hired"),))]
    assert exprs[9] == Arith("+", Arith("*", E("salary"), Lit(2)), Lit(1))


def test_subqueries() -> None:
    plan, _ = pk("SELECT d.label FROM Hut d WHERE d.iri IN (SELECT postedAt FROM Ranger) "
                 "AND d.iri NOT IN (SELECT x.postedAt FROM Ranger x WHERE x.salary > 9000) "
                 "AND NOT EXISTS (SELECT 1 FROM Warden m WHERE m.postedAt = d.iri) "
                 "AND d.budget > (SELECT AVG(budget) FROM Hut)")
    ins, not_in, exists, scalar = plan.where.items
    assert isinstance(ins, InQuery) and not ins.negated and ins.expr == D("iri")
    assert ins.query.select == (Item(Col("Ranger", "Ranger", "postedAt")),)
    assert isinstance(not_in, InQuery) and not_in.negated
    assert isinstance(exists, Exists) and exists.negated
    assert exists.query.where == Cmp("=", Col("m", "Warden", "postedAt"), D("iri"))  # the outer alias, resolved
    assert isinstance(scalar, Cmp) and isinstance(scalar.right, Scalar)
    assert scalar.right.query.select == (Item(Agg("avg", Col("Hut", "Hut", "budget"))),)


def test_set_operations() -> None:
    plan, _ = grove("SELECT home_farm AS town FROM Grower WHERE age < 30 UNION ALL SELECT home_farm FROM Grower "
                    "ORDER BY town DESC LIMIT 3 OFFSET 1")
    assert isinstance(plan, SetQuery) and plan.op == "union" and plan.all
    assert plan.order_by == (Order(Lit(0), desc=True),) and (plan.limit, plan.offset) == (3, 1)
    for op in ("INTERSECT", "EXCEPT", "UNION"):
        plan, _ = pk(f"SELECT label FROM Ranger {op} SELECT label FROM Warden ORDER BY 1")
        assert plan.op == op.lower() and not plan.all and plan.order_by == (Order(Lit(0)),)


def test_star_expands_to_shown_columns() -> None:
    plan, _ = grove("SELECT * FROM TreeCare")
    assert [it.expr.column for it in plan.select] == ["tc_grower", "tc_tree"]  # no iri, no hidden ref_ links
    plan, _ = pk("SELECT d.* FROM Ranger e JOIN Hut d ON e.postedAt = d.iri")
    assert [it.expr for it in plan.select] == [D("label"), D("budget")]


def test_plan_as_json_data_round_trip() -> None:
    for sql in ("SELECT d.label, COUNT(*) FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                "WHERE e.label NOT LIKE 'A%' GROUP BY d.label ORDER BY 2 DESC LIMIT 1",
                "SELECT label FROM Ranger WHERE salary > (SELECT AVG(salary) FROM Ranger) EXCEPT "
                "SELECT label FROM Warden"):
        plan, _ = pk(sql)
        data = to_dict(plan)
        assert data["node"] in ("Query", "SetQuery") and from_dict(data) == plan


# ---- errors ------------------------------------------------------------------------------------------------
def test_unknown_table() -> None:
    assert error(PARKS, "SELECT label FROM Rangr") == (
        "There is no table `Rangr`. Did you mean Ranger? Tables: Ranger, Hut, Warden.")
    assert error(GROVE, "SELECT * FROM fruit") == (
        "There is no table `fruit`. `fruit` is a column of Tree. Tables: Tree, Grower, TreeCare.")


def test_reach_column_follows_the_only_link_to_the_column() -> None:
    """`reach_column`: e.budget, where budget is a column of the hut an ranger is a member of."""
    plan, fixes = pk("SELECT e.budget FROM Ranger e")
    assert fixes == ["reach_column"]
    assert plan.sources[-1].table == "Hut" and len(plan.joins) == 1
    j = plan.joins[0]
    assert (j.left.alias, j.left.column, j.right.table, j.right.column) == ("e", "postedAt", "Hut", "iri")
    assert plan.select[0].expr == Col(plan.sources[-1].alias, "Hut", "budget")
    # two hops through key columns, in a database-shaped graph
    plan, fixes = grove("SELECT o.given_name FROM Grower o WHERE o.fruit = 'apple'")
    assert fixes == ["reach_column"] and [s.table for s in plan.sources] == ["Grower", "TreeCare", "Tree"]


def test_misspelt_column_and_unknown_alias() -> None:
    assert "Did you mean e.salary?" in error(PARKS, "SELECT e.salry FROM Ranger e")
    assert "Did you mean Grower.home_farm?" in error(GROVE, "SELECT homefarm FROM Grower")
    assert error(PARKS, "SELECT x.label FROM Ranger e") == (
        "`x.label`: there is no alias or table x in this query (the query has e (Ranger)).")
    assert "There is no column `nothing`" in error(CATALOG, "SELECT nothing FROM Product")


@pytest.mark.parametrize("sql, needle", [
    ("", "The SQL query is empty."),
    ("SELECT label FROM Ranger; SELECT 1 FROM Ranger", "Write exactly one SQL query"),
    ("SELECT FROM WHERE", "The SQL does not parse"),
    ("DELETE FROM Ranger", "Only SELECT queries can be answered, not DELETE."),
    ("SELECT 1", "The query has no FROM clause"),
    ("WITH x AS (SELECT label FROM Ranger) SELECT * FROM x", "WITH (common table expressions) is not supported"),
    ("SELECT label FROM (SELECT label FROM Ranger)", "A subquery in FROM is not supported"),
    ("SELECT e.label FROM Ranger e RIGHT JOIN Hut d ON e.postedAt = d.iri", "RIGHT JOIN is not supported"),
    ("SELECT e.label FROM Ranger e FULL JOIN Hut d ON e.postedAt = d.iri", "FULL JOIN is not supported"),
    ("SELECT e.label FROM Ranger e JOIN Warden m USING (salary)", "JOIN ... USING is not supported"),
    ("SELECT e.label FROM Ranger e LEFT JOIN Hut d ON e.postedAt = d.iri AND d.budget > 1",
     "A LEFT JOIN's ON clause may only equate columns"),
    ("SELECT e.label FROM Ranger e, Ranger e", "The alias e is used twice in one FROM clause"),
    ("SELECT SUM(*) FROM Ranger", "SUM(*) is not valid: give a column."),
    ("SELECT label FROM Ranger LIMIT 'ten'", "LIMIT and OFFSET take a whole number."),
    ("SELECT label FROM Ranger WHERE label LIKE fullName", "LIKE needs a text pattern"),
    ("SELECT label FROM Ranger WHERE salary IN (salary, 3)", "IN (...) takes a list of constant values"),
    ("SELECT label FROM Ranger WHERE salary IS 3", "`salary IS 3` is not supported in the plan language."),
    ("SELECT COALESCE(label, 'x') FROM Ranger", "`COALESCE(label, 'x')` is not supported in the plan language."),
    ("SELECT label FROM Ranger WHERE strftime('%m', hired) = '03'", "only strftime('%Y', x) (the year) is"),
    ("SELECT label FROM Ranger UNION SELECT label, salary FROM Warden",
     "The two sides of UNION select a different number of columns (1 and 2)."),
    ("SELECT label FROM Ranger ORDER BY 2", "ORDER BY 2: the query selects only 1 column(s)."),
    ("SELECT label FROM Ranger UNION SELECT label FROM Warden ORDER BY salary",
     "ORDER BY after UNION / INTERSECT / EXCEPT must name a selected column."),
])
def test_unsupported_constructs(sql: str, needle: str) -> None:
    assert needle in error(PARKS, sql)


def test_unsupported_constructs_grove() -> None:
    assert "RIGHT JOIN is not supported" in error(
        GROVE, "SELECT o.given_name FROM Grower o RIGHT JOIN TreeCare h ON h.tc_grower = o.grower_id")
    assert "A subquery in FROM is not supported" in error(GROVE, "SELECT n FROM (SELECT COUNT(*) AS n FROM Tree)")


# ---- fixes -------------------------------------------------------------------------------------------------
def test_fix_id_is_iri() -> None:
    plan, fixes = pk("SELECT e.id FROM Ranger e WHERE e.salary > 9000")
    assert plan.select == (Item(E("iri")),) and fixes == ["id_is_iri"]
    plan, fixes = grove("SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = o.grower_id "
                        "WHERE h.id IS NOT NULL")  # a table no other table refers to
    assert plan.where == IsNull(Col("h", "TreeCare", "iri"), negated=True) and fixes == ["id_is_iri"]


def test_fix_key_name() -> None:
    """`id` of a table without one is the key other tables refer to; a key's name means the column referring to it."""
    plan, fixes = grove("SELECT id FROM Tree")
    assert plan.select == (Item(Col("Tree", "Tree", "tree_id")),) and fixes == ["key_name"]
    plan, fixes = grove("SELECT grower_id FROM TreeCare")
    assert plan.select == (Item(Col("TreeCare", "TreeCare", "tc_grower")),) and fixes == ["key_name"]
    plan, fixes = cat("SELECT sup_code FROM Product")
    assert plan.select == (Item(Col("Product", "Product", "supplier")),) and fixes == ["key_name"]


def test_fix_column_owner() -> None:
    plan, fixes = pk("SELECT e.label, e.budget FROM Ranger e JOIN Hut d ON e.postedAt = d.iri")
    assert plan.select[1] == Item(D("budget")) and fixes == ["column_owner"]
    plan, fixes = grove("SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = o.grower_id "
                        "JOIN Tree p ON p.tree_id = h.tc_tree WHERE o.fruit = 'fig'")
    assert plan.where == Cmp("=", Col("p", "Tree", "fruit"), Lit("fig")) and fixes == ["column_owner"]


def test_column_owner_is_not_applied_in_join_conditions_nor_when_ambiguous() -> None:
    # in a join condition the column is reached through the grower's care rows, never moved to p
    plan, fixes = grove("SELECT p.tree_id FROM Tree p JOIN Grower o ON o.tree_id = p.tree_id")
    assert fixes == ["reach_column"] and all(j.left.alias != "p" or j.right.alias != "p" for j in plan.joins)
    # label is a column of both other tables: no single owner
    assert "has no column `label`" in error(
        CATALOG, "SELECT s.label FROM Supplier s JOIN Product p ON p.supplier = s.sup_code "
                 "JOIN Category c ON p.inCategory = c.iri")


def test_fix_bare_table() -> None:
    plan, fixes = pk("SELECT Ranger.label FROM Ranger e WHERE e.salary > 9000")
    assert plan.select == (Item(E("label")),) and fixes == ["bare_table"]
    plan, fixes = grove("SELECT Grower.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = Grower.grower_id")
    assert plan.joins == (Join(Col("h", "TreeCare", "tc_grower"), Col("o", "Grower", "grower_id")),)
    assert fixes == ["bare_table"]


def test_no_fixes_for_a_correct_query() -> None:
    for sql in ("SELECT e.label FROM Ranger e JOIN Hut d ON e.postedAt = d.iri",
                "SELECT p.tree_id FROM Tree p WHERE p.fruit = 'apple'"):
        assert read_sql(view(PARKS if "Ranger" in sql else GROVE)[1], sql)[1] == []


def test_fix_column_meaning() -> None:
    """`column_meaning`: a name that clearly means one column of the table (sentence embeddings)."""
    from ontocore.embeddings import Embedder

    emb = Embedder()
    plan, fixes = read_sql(view(PARKS)[1], "SELECT e.label FROM Ranger e WHERE e.hut = 'Reeds'", emb)
    assert plan.where.left == E("postedAt") and fixes == ["column_meaning"]
    plan, fixes = read_sql(view(GROVE)[1], "SELECT AVG(age) FROM Tree", emb)
    assert plan.select[0].expr.arg == Col("Tree", "Tree", "tree_age") and fixes == ["column_meaning"]
    with pytest.raises(PlanError):  # nothing close: no guess
        read_sql(view(GROVE)[1], "SELECT shoe_size FROM Tree", emb)


def test_fix_link_direction_same_link_on_both_sides() -> None:
    """`X.link = Y.link` where only Y has the link and it points at X's rows: X.iri = Y.link."""
    plan, fixes = pk("SELECT m.label FROM Ranger m JOIN Ranger e ON m.hasWarden = e.hasWarden "
                     "WHERE e.label = 'Ada Quill'")
    assert fixes == [] and plan.joins[0].left.column == "hasWarden"  # both have the column: nothing to fix
    plan, fixes = pk("SELECT d.label FROM Hut d JOIN Ranger e ON d.postedAt = e.postedAt "
                     "WHERE e.label = 'Ada Quill'")
    assert fixes == ["link_direction"] and plan.joins == (Join(D("iri"), E("postedAt")),)
    plan, fixes = cat("SELECT c.label FROM Category c JOIN Product p ON c.inCategory = p.inCategory")
    assert fixes == ["link_direction"] and plan.joins[0].left == Col("c", "Category", "iri")


@pytest.mark.parametrize("ttl, text", [
    (GROVE, "The answer is in the `Tree` table. The '"),  # prose with an unclosed quote where SQL should be
    (PARKS, 'SELECT "label FROM Ranger'),
])
def test_untokenizable_text_is_a_plan_error(ttl: str, text: str) -> None:
    _, schema = view(ttl)
    with pytest.raises(PlanError, match="cannot be read"):
        read_sql(schema, text)


UNIONS = """
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix : <http://example.org/labour#> .
:dockers a :Union ; rdfs:label "Dockers" ; :founded 1911 .
:weavers a :Union ; rdfs:label "Weavers" ; :founded 1890 .
:ines a :Member ; rdfs:label "Ines Roth" ; :belongsTo :dockers .
:piet a :Member ; rdfs:label "Piet Maas" ; :belongsTo :weavers .
"""


def test_a_table_named_with_an_sql_word_is_quoted_where_it_stands_as_a_table() -> None:
    """A class called `Union` is a table the model writes bare (`FROM Union`): quoted there and before a dot, the
    plan reads; the same word as an operator elsewhere is untouched."""
    schema = view(UNIONS)[1]
    plan, fixes = read_sql(schema, "SELECT count(*) FROM Member AS m JOIN Union AS u ON m.belongsTo = u.iri "
                                   "WHERE u.label = 'Dockers'")
    assert Source("Union", "u") in plan.sources
    assert fixes == ["quoted a table whose name is an SQL word"]
    plan, _ = read_sql(schema, "SELECT Union.label FROM Union WHERE Union.founded < 1900 "
                               "UNION SELECT label FROM Member WHERE label LIKE 'P%'")
    assert isinstance(plan, SetQuery) and plan.op == "union"
    assert "Union" in error(UNIONS, "SELECT nothing FROM Union")
    from ontouse.sqlplan.reader import quote_word_tables
    assert quote_word_tables("SELECT label FROM Union WHERE label = 'left from Union'", ["Union"]) == \
        "SELECT label FROM \"Union\" WHERE label = 'left from Union'"  # a string literal is never changed


def test_fix_exists_count() -> None:
    """A yes/no written as SELECT EXISTS (subquery) with no FROM is the subquery's count."""
    plan, fixes = pk("SELECT EXISTS (SELECT 1 FROM Ranger e WHERE e.salary > 9000) AS answer")
    expected, _ = pk("SELECT COUNT(*) FROM Ranger e WHERE e.salary > 9000")
    assert plan == expected and fixes == ["exists_count"]


# `key_thing`: key numbers where the thing is meant. Sailings hold their vessel's number (`vessel`, keyed by the
# vessels' `vessel_no`) and their berth's number (`berth_id`); vessels and berths have a name column of that name.


def harbour(sql: str):
    return read_sql(view(HARBOUR)[1], sql)


def test_key_thing_reads_the_name_of_the_thing_a_key_number_stands_for() -> None:
    plan, fixes = harbour("SELECT vessel FROM Sailing WHERE minutes > 30")
    assert fixes == ["key_thing"]
    (item,) = plan.select
    assert item.expr.table == "Vessel" and item.expr.column == "vessel"
    assert Join(Col("Sailing", "Sailing", "vessel"), Col(item.expr.alias, "Vessel", "vessel_no")) in plan.joins
    plan, fixes = harbour("SELECT COUNT(*) FROM Sailing WHERE vessel = 'Kittiwake'")
    assert fixes == ["key_thing"] and plan.where.left.table == "Vessel"
    plan, fixes = harbour("SELECT vessel, COUNT(*) FROM Sailing GROUP BY vessel")  # grouped by the thing
    assert plan.group_by[0] == Col("Sailing", "Sailing", "vessel") and plan.group_by[1].table == "Vessel"


def test_key_thing_keeps_the_numbers_where_numbers_are_meant() -> None:
    plan, fixes = harbour("SELECT sailing_no FROM Sailing WHERE vessel = 2")
    assert fixes == [] and plan.where == Cmp("=", Col("Sailing", "Sailing", "vessel"), Lit(2))
    plan, fixes = harbour("SELECT vessel FROM Vessel WHERE vessel_no IN "
                          "(SELECT vessel FROM Sailing WHERE minutes < 30)")  # compared with keys in a subquery
    assert fixes == [] and plan.where.query.select == (Item(Col("Sailing", "Sailing", "vessel")),)


def test_key_thing_reads_a_missing_column_through_the_key_named_after_it() -> None:
    plan, fixes = harbour("SELECT sailing_no, berth FROM Sailing")
    assert fixes == ["key_thing"] and plan.select[1].expr.table == "Berth"


def test_group_key_shown_when_only_numbers_are_selected() -> None:
    """One number per group and nothing saying which group: the group is shown first (by its thing's name)."""
    plan, fixes = harbour("SELECT AVG(minutes) FROM Sailing GROUP BY vessel")
    assert fixes == ["group_key_shown", "key_thing", "group_by_thing"]  # two vessels share a name
    assert plan.select[0].expr.table == "Vessel" and plan.select[0].expr.column == "vessel"
    assert plan.select[1] == Item(Agg("avg", Col("Sailing", "Sailing", "minutes")))
    plan, fixes = harbour("SELECT COUNT(*) FROM Sailing GROUP BY berth_id ORDER BY COUNT(*) DESC LIMIT 1")
    assert fixes == [] and len(plan.select) == 1  # a superlative's number: the model chose what to show


def test_group_by_a_name_keeps_things_that_share_the_name_apart() -> None:
    """Two vessels are called the same: grouped by the name, each is still its own group."""
    plan, fixes = harbour("SELECT vessel, SUM(crew) FROM Vessel GROUP BY vessel")
    assert fixes == ["group_by_thing"] and plan.group_by == (Col("Vessel", "Vessel", "vessel"),
                                                             Col("Vessel", "Vessel", "iri"))
    plan, fixes = harbour("SELECT minutes, COUNT(*) FROM Sailing GROUP BY minutes")  # a value rows share
    assert fixes == [] and plan.group_by == (Col("Sailing", "Sailing", "minutes"),)


def test_an_apostrophe_inside_a_text_value_is_escaped() -> None:
    """`escaped_apostrophe`: a model writes 'O'Neill's Hut' unescaped; an apostrophe between two letters is never a
    quote of SQL, so it is doubled and the query reads; a query that already doubles it is read as it is."""
    plan, fixes = pk("SELECT budget FROM Hut WHERE label = 'O'Neill's Hut'")
    assert "escaped an apostrophe inside a text value" in fixes
    assert "O'Neill's Hut" in [n.value for n in walk(plan) if isinstance(n, Lit)]
    plan, fixes = pk("SELECT budget FROM Hut WHERE label = 'O''Neill''s Hut'")
    assert "O'Neill's Hut" in [n.value for n in walk(plan) if isinstance(n, Lit)] and not fixes
    assert "cannot be read" in error(PARKS, "SELECT budget FROM Hut WHERE label = 'Reeds")


def test_an_unknown_table_joined_by_a_link_is_the_table_the_link_points_at() -> None:
    """`unknown_table_as_link_target`: no table Station, but Ranger.postedAt links to Hut rows."""
    plan, fixes = pk("SELECT S.budget FROM Ranger AS R JOIN Station AS S ON R.postedAt = S.iri "
                     "WHERE R.label = 'Ada Quill'")
    assert "unknown_table_as_link_target" in fixes
    assert [s.table for s in plan.sources] == ["Ranger", "Hut"]
    assert "There is no table `Station`" in error(PARKS, "SELECT S.budget FROM Ranger AS R JOIN Station AS S "
                                                         "ON R.label = S.iri")


SLIPWAY = HEAD + """
@prefix : <http://example.org/slipway#> .
:Skipper a owl:Class . :Boat a owl:Class . :Repair a owl:Class .
:ofBoat a owl:ObjectProperty ; rdfs:domain :Repair ; rdfs:range :Boat .
:s1 a :Skipper ; rdfs:label "Ada Vik" ; :skipper_id 1 . :s2 a :Skipper ; rdfs:label "Bo Lie" ; :skipper_id 2 .
:b1 a :Boat ; rdfs:label "Tern" ; :boat_id 10 ; :skipper_id 1 .
:b2 a :Boat ; rdfs:label "Gull" ; :boat_id 11 ; :skipper_id 1 .
:b3 a :Boat ; rdfs:label "Auk" ; :boat_id 12 ; :skipper_id 2 .
:r1 a :Repair ; :ofBoat :b1 ; :cost 300 . :r2 a :Repair ; :ofBoat :b2 ; :cost 50 . :r3 a :Repair ; :ofBoat :b3 ; :cost 90 .
"""


def test_a_value_of_the_linked_thing_is_reached_through_the_link_not_taken_for_it() -> None:
    # the boats' skipper_id is shared by a skipper's boats: a repair's "skipper_id" is its boat's, not its boat
    plan, fixes = read_sql(view(SLIPWAY)[1], "SELECT S.label FROM Skipper S JOIN Repair R ON S.skipper_id = "
                                              "R.skipper_id JOIN Boat B ON R.ofBoat = B.iri")
    assert fixes == ["reach_column"]
    assert Join(Col("S", "Skipper", "skipper_id"), Col("R", "Repair", "ofBoat")) not in plan.joins
    assert any(j.left == Col("S", "Skipper", "skipper_id") and j.right.table == "Boat" for j in plan.joins)
    # the boats' own id tells them apart: a repair's "boat_id" is its boat
    plan, fixes = read_sql(view(SLIPWAY)[1], "SELECT R.cost FROM Repair R JOIN Boat B ON R.boat_id = B.boat_id")
    assert fixes == ["key_name"] and plan.joins == (Join(Col("R", "Repair", "ofBoat"), Col("B", "Boat", "boat_id")),)


# ---- a column the plan's own table holds is read there, not through a join a fix added -----------------------
def _chain(prefix: str, a: str, b: str, c: str, shared: str, far: str) -> str:
    """Three tables keyed by numbers (a database export): `a` rows, `b` rows referring to an `a`, `c` rows referring
    to a `b`; `b` and `c` both hold a text column `shared`, only `c` the number `far`."""
    rows = [f":{a}1 a :{a} ; :{a}_id 1 ; :{a}_name \"North\" .",
            f":{a}2 a :{a} ; :{a}_id 2 ; :{a}_name \"South\" ."]
    for i, (owner, text) in enumerate([(1, "matte"), (1, "gloss"), (2, "matte")], start=1):
        rows.append(f":{b}{i} a :{b} ; :{b}_id {i} ; :{b}_{a} {owner} ; :{shared} \"{text}\" ; "
                    f"<{prefix}ref-{b}_{a}> :{a}{owner} .")
    for i, (owner, text, n) in enumerate([(1, "matte", 80), (2, "gloss", 140), (3, "satin", 200)], start=1):
        rows.append(f":{c}{i} a :{c} ; :{c}_id {i} ; :{c}_{b} {owner} ; :{shared} \"{text}\" ; :{far} {n} ; "
                    f"<{prefix}ref-{c}_{b}> :{b}{owner} .")
    return HEAD + f"@prefix : <{prefix}> .\n" + "\n".join(rows) + "\n"


@pytest.mark.parametrize("ttl, sql, alias, table, column", [
    # a print shop: presses, their runs (a paper), the sheets of a run (a paper and a weight)
    (_chain("http://example.org/press#", "press", "run", "sheet", "paper", "gsm"),
     "SELECT DISTINCT p.paper FROM press AS p JOIN run AS r ON p.press_id = r.run_press WHERE r.gsm > 100",
     "r", "run", "paper"),
    # a clinic: wards, their beds (a kind), the stays in a bed (a kind and a number of nights)
    (_chain("http://example.org/clinic#", "ward", "bed", "stay", "kind", "nights"),
     "SELECT w.ward_name, w.kind FROM ward AS w JOIN bed AS b ON w.ward_id = b.bed_ward WHERE b.nights > 3",
     "b", "bed", "kind"),
])
def test_a_column_of_a_table_the_plan_joined_is_read_there_not_through_a_join_a_fix_added(
        ttl: str, sql: str, alias: str, table: str, column: str) -> None:
    """The WHERE reaches `far` through the third table (a join the plan did not write, which also holds `shared`);
    the SELECT's `shared`, asked of the first table that lacks it, is the column of the second table the plan joined
    itself, not of a new copy of it joined to the first (which would read every row of the first's, not the one
    joined)."""
    plan, fixes = read_sql(view(ttl)[1], sql)
    assert fixes == ["reach_column", "column_owner"]
    assert Col(alias, table, column) in [it.expr for it in plan.select]
    assert [s.table for s in plan.sources].count(table) == 1


@pytest.mark.parametrize("ttl, question, sql, expected", [
    (_chain("http://example.org/press#", "press", "run", "sheet", "paper", "gsm"),
     "Which press printed the heaviest sheet?",
     "SELECT press_name FROM press WHERE press_id = (SELECT press_id FROM sheet ORDER BY gsm DESC LIMIT 1)",
     "South"),
    (_chain("http://example.org/clinic#", "ward", "bed", "stay", "kind", "nights"),
     "Which wards had a stay of more than 150 nights?",
     "SELECT ward_name FROM ward WHERE ward_id IN (SELECT ward_id FROM stay WHERE nights > 150)",
     "South"),
])
def test_a_column_a_subquerys_table_lacks_is_reached_from_it_not_read_around_it(
        ttl: str, question: str, sql: str, expected: str) -> None:
    """Inside a subquery that gives one value or a set (which may not read the tables around it), a column its
    own table lacks but reaches through one chain of keys is read there (`reach_column`), not taken from the query
    around it (which could only be refused)."""
    from ontouse.answerer import AnswerLoop
    from ontouse_graphs import NoModel

    store, schema = view(ttl)
    ans = AnswerLoop(store, NoModel(), schema=schema).answer_sql(question, sql)
    assert ans.state == "answered", ans.error
    assert ans.answer == f"{expected}."


@pytest.mark.parametrize("read, sql, ranked", [
    (grove, "SELECT o.given_name FROM Grower o JOIN TreeCare c ON c.tc_grower = o.grower_id "
            "JOIN Tree t ON c.tc_tree = t.tree_id GROUP BY o.given_name ORDER BY t.tree_age DESC LIMIT 1",
     Agg("max", Col("t", "Tree", "tree_age"))),
    (pk, "SELECT d.label FROM Hut d JOIN Ranger e ON e.postedAt = d.iri GROUP BY d.label ORDER BY e.salary LIMIT 1",
     Agg("min", Col("e", "Ranger", "salary"))),
])
def test_groups_ranked_by_a_column_they_do_not_group_are_ranked_by_its_top_value(read, sql, ranked) -> None:
    """`ranked_group`: a grouped query ordered by a column it neither groups nor aggregates would rank each group by
    the value of one of its rows, taken at random; the group of the top row is meant, so DESC ranks by the
    group's MAX and ASC by its MIN (a value the group holds once is its own MAX and MIN)."""
    plan, fixes = read(sql)
    assert "ranked_group" in fixes and plan.order_by[0].expr == ranked


def test_groups_ranked_by_what_they_group_or_count_are_left_as_written() -> None:
    for sql in ("SELECT d.label, COUNT(*) FROM Hut d JOIN Ranger e ON e.postedAt = d.iri GROUP BY d.label "
                "ORDER BY COUNT(*) DESC LIMIT 1",
                "SELECT d.label FROM Hut d JOIN Ranger e ON e.postedAt = d.iri GROUP BY d.label ORDER BY d.label",
                "SELECT e.label FROM Ranger e ORDER BY e.salary DESC LIMIT 1"):
        plan, fixes = pk(sql)
        assert "ranked_group" not in fixes, sql
