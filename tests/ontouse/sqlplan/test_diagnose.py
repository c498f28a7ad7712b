"""Why a plan finds nothing (ontouse.sqlplan.diagnose): the join or the condition that empties the result, or the side of
a set operation; a few bounded probes, each the plan with one part left out."""

from __future__ import annotations

from ontouse.sqlplan.diagnose import MAX_PROBES, diagnose_empty
from ontouse.sqlplan.reader import read_sql
from ontouse_graphs import CATALOG, GROVE, HEAD, PARKS, view


def why(ttl: str, sql: str, store=None) -> str:
    own_store, schema = view(ttl)
    plan, _ = read_sql(schema, sql)
    return diagnose_empty(schema, store or own_store, plan)


# ---- joins -------------------------------------------------------------------------------------------------
def test_join_on_columns_that_never_match_names_the_right_join() -> None:
    assert why(GROVE, "SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_tree = o.grower_id") == (
        "the join h.tc_tree = o.grower_id matches no pair of rows. TreeCare and Grower join on "
        "TreeCare.tc_grower = Grower.grower_id.")
    assert why(PARKS, "SELECT d.label FROM Hut d JOIN Ranger e ON e.salary = d.budget") == (
        "the join e.salary = d.budget matches no pair of rows. Ranger and Hut join on "
        "Ranger.postedAt = Hut.iri.")


def test_the_failing_join_among_several() -> None:
    msg = why(GROVE, "SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = o.grower_id "
                     "JOIN Tree p ON p.tree_id = h.tc_grower")
    assert msg == ("the join p.tree_id = h.tc_grower matches no pair of rows. Tree and TreeCare join on "
                   "Tree.tree_id = TreeCare.tc_tree.")


def test_tables_without_a_direct_link() -> None:
    msg = why(GROVE, "SELECT o.given_name FROM Grower o JOIN Tree p ON p.tree_id = o.grower_id")
    assert msg == ("the join p.tree_id = o.grower_id matches no pair of rows. Tree and Grower have no direct link: "
                   "join them through another table.")


LESSONS = HEAD + """@prefix : <http://example.org/lessons#> .
:ann a :Person ; rdfs:label "Ann" . :bo a :Person ; rdfs:label "Bo" . :cy a :Person ; rdfs:label "Cy" .
:l1 a :Lesson ; :teacher :ann ; :pupil :bo . :l2 a :Lesson ; :teacher :bo ; :pupil :cy .
"""


def test_two_conditions_on_the_same_two_rows_are_blamed_together() -> None:
    """Each condition matches rows; only together they match none (no lesson's teacher is its own pupil): the
    message says so, rather than blaming the first join, which the model would then keep."""
    msg = why(LESSONS, "SELECT p.label FROM Person AS p JOIN Lesson AS l ON p.iri = l.teacher WHERE p.iri = l.pupil")
    assert msg.startswith("p and l are joined on p.iri = l.teacher and p.iri = l.pupil: each condition alone "
                          "matches rows, but no pair of rows matches all of them (one row of Lesson would have to "
                          "be the same in each).")
    assert "join Lesson once per condition" in msg


# ---- conditions --------------------------------------------------------------------------------------------
def test_the_condition_that_leaves_nothing() -> None:
    assert why(PARKS, "SELECT e.label FROM Ranger e WHERE e.salary > 9000 AND e.postedAt = 'Reeds' "
                      "AND e.hired > '2000-01-01'") == (
        "with the condition e.salary > 9000 nothing is left (without it 2 rows match): check that it compares the "
        "right column with a value the data holds.")
    assert why(GROVE, "SELECT p.tree_id FROM Tree p WHERE p.tree_age > 10 AND p.fruit = 'fig'").startswith(
        "with the condition p.tree_age > 10 nothing is left (without it 2 rows match)")


def test_a_single_condition_cannot_be_blamed_on_another() -> None:
    assert why(GROVE, "SELECT p.tree_id FROM Tree p WHERE p.fruit = 'walnut'") == ""
    assert why(PARKS, "SELECT label FROM Ranger WHERE salary > 99999") == ""


def test_having() -> None:
    assert why(PARKS, "SELECT d.label, COUNT(*) FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                      "GROUP BY d.label HAVING COUNT(*) > 5") == "no group passes the HAVING condition."
    assert why(GROVE, "SELECT fruit FROM Tree GROUP BY fruit HAVING AVG(tree_age) > 20") == (
        "no group passes the HAVING condition.")


# ---- set operations ----------------------------------------------------------------------------------------
def test_intersect_of_disjoint_sides() -> None:
    assert why(PARKS, "SELECT label FROM Ranger WHERE salary > 5000 INTERSECT SELECT label FROM Hut") == (
        "each SELECT finds rows (3 and 3) but none is in both: make both select the same kind of value (the same "
        "column of the same table).")
    assert why(GROVE, "SELECT given_name FROM Grower INTERSECT SELECT fruit FROM Tree").startswith(
        "each SELECT finds rows (3 and 4) but none is in both")


def test_the_empty_side_of_a_set_operation() -> None:
    assert why(PARKS, "SELECT label FROM Ranger WHERE salary > 99999 UNION "
                      "SELECT label FROM Hut WHERE budget < 0") == (
        "the first SELECT (before UNION) finds no rows: check its conditions.")
    msg = why(GROVE, "SELECT home_farm FROM Grower INTERSECT SELECT o.home_farm FROM Grower o WHERE o.age > 60 "
                     "AND o.home_farm = 'Fernhill'")
    assert msg.startswith("the second SELECT (after INTERSECT) finds no rows: with the condition o.age > 60 nothing "
                          "is left (without it 2 rows match)")


# ---- bounded -----------------------------------------------------------------------------------------------
class CountingStore:
    def __init__(self, store) -> None:
        self.store, self.calls = store, 0
        self.prefixes = store.prefixes

    def select(self, *args, **kwargs):
        self.calls += 1
        return self.store.select(*args, **kwargs)


def test_probes_are_bounded() -> None:
    store, _ = view(GROVE)
    counting = CountingStore(store)
    conds = " AND ".join(f"p.tree_id != {100 + n}" for n in range(20))
    msg = why(GROVE, f"SELECT p.tree_id FROM Tree p WHERE p.fruit = 'walnut' AND {conds}", store=counting)
    assert msg.startswith("with the condition p.fruit = 'walnut' nothing is left (without it 4 rows match)")
    counting.calls = 0
    why(GROVE, f"SELECT p.tree_id FROM Tree p WHERE p.tree_age > 50 AND {conds}", store=counting)
    assert counting.calls <= MAX_PROBES + 1


def test_a_joined_table_nothing_uses_is_blamed_when_it_empties_the_result() -> None:
    """A join the question does not need (no column of it is used) that leaves no rows."""
    for ttl, sql, blamed in (
            (PARKS, "SELECT e.label FROM Ranger e JOIN Hut d ON e.postedAt = d.iri "
                    "JOIN Ranger m ON m.hasWarden = e.iri WHERE d.label = 'Pinewood' AND e.salary < 6000",
             "Ranger AS m"),
            (GROVE, "SELECT o.given_name FROM Grower o JOIN TreeCare h ON h.tc_grower = o.grower_id "
                    "WHERE o.home_farm = 'Reedmoor' AND o.age > 50 AND o.given_name = 'Edda'", None)):
        msg = why(ttl, sql)
        if blamed:
            assert msg.startswith(f"joining {blamed} leaves no rows")
        else:
            assert "joining" not in msg


def test_ordering_by_a_column_the_kept_rows_lack() -> None:
    assert why(PARKS, "SELECT label FROM Ranger WHERE label = 'Dan Ferro' ORDER BY hired LIMIT 1") == (
        "ordering by Ranger.hired leaves no rows: none of the rows the conditions keep has a value there. "
        "Order by a column those rows have.")
    assert why(CATALOG, "SELECT label FROM Product WHERE price < 30 ORDER BY stock DESC, discontinued").startswith(
        "ordering by Product.stock, Product.discontinued leaves no rows")
