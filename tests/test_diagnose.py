"""Why a plan finds nothing (ontouse.sqlplan.diagnose): the join or the condition that empties the result, or the side of
a set operation; a few bounded probes, each the plan with one part left out."""

from __future__ import annotations

from ontouse.sqlplan.diagnose import MAX_PROBES, diagnose_empty
from ontouse.sqlplan.reader import read_sql
from ontouse_graphs import CATALOG, COMPANY, PETS, view


def why(ttl: str, sql: str, store=None) -> str:
    own_store, schema = view(ttl)
    plan, _ = read_sql(schema, sql)
    return diagnose_empty(schema, store or own_store, plan)


# ---- joins -------------------------------------------------------------------------------------------------
def test_join_on_columns_that_never_match_names_the_right_join() -> None:
    assert why(PETS, "SELECT o.first_name FROM Owner o JOIN PetOwnership h ON h.po_pet = o.owner_id") == (
        "the join h.po_pet = o.owner_id matches no pair of rows. PetOwnership and Owner join on "
        "PetOwnership.po_owner = Owner.owner_id.")
    assert why(COMPANY, "SELECT d.label FROM Department d JOIN Employee e ON e.salary = d.budget") == (
        "the join e.salary = d.budget matches no pair of rows. Employee and Department join on "
        "Employee.memberOf = Department.iri.")


def test_the_failing_join_among_several() -> None:
    msg = why(PETS, "SELECT o.first_name FROM Owner o JOIN PetOwnership h ON h.po_owner = o.owner_id "
                    "JOIN Pet p ON p.pet_id = h.po_owner")
    assert msg == ("the join p.pet_id = h.po_owner matches no pair of rows. Pet and PetOwnership join on "
                   "Pet.pet_id = PetOwnership.po_pet.")


def test_tables_without_a_direct_link() -> None:
    msg = why(PETS, "SELECT o.first_name FROM Owner o JOIN Pet p ON p.pet_id = o.owner_id")
    assert msg == ("the join p.pet_id = o.owner_id matches no pair of rows. Pet and Owner have no direct link: "
                   "join them through another table.")


# ---- conditions --------------------------------------------------------------------------------------------
def test_the_condition_that_leaves_nothing() -> None:
    assert why(COMPANY, "SELECT e.label FROM Employee e WHERE e.salary > 9000 AND e.memberOf = 'Sales' "
                        "AND e.hired > '2000-01-01'") == (
        "with the condition e.salary > 9000 nothing is left (without it 2 rows match): check that it compares the "
        "right column with a value the data holds.")
    assert why(PETS, "SELECT p.pet_id FROM Pet p WHERE p.pet_age > 10 AND p.pet_type = 'dog'").startswith(
        "with the condition p.pet_age > 10 nothing is left (without it 2 rows match)")


def test_a_single_condition_cannot_be_blamed_on_another() -> None:
    assert why(PETS, "SELECT p.pet_id FROM Pet p WHERE p.pet_type = 'lizard'") == ""
    assert why(COMPANY, "SELECT label FROM Employee WHERE salary > 99999") == ""


def test_having() -> None:
    assert why(COMPANY, "SELECT d.label, COUNT(*) FROM Employee e JOIN Department d ON e.memberOf = d.iri "
                        "GROUP BY d.label HAVING COUNT(*) > 5") == "no group passes the HAVING condition."
    assert why(PETS, "SELECT pet_type FROM Pet GROUP BY pet_type HAVING AVG(pet_age) > 20") == (
        "no group passes the HAVING condition.")


# ---- set operations ----------------------------------------------------------------------------------------
def test_intersect_of_disjoint_sides() -> None:
    assert why(COMPANY, "SELECT label FROM Employee WHERE salary > 5000 INTERSECT SELECT label FROM Department") == (
        "each SELECT finds rows (3 and 3) but none is in both: make both select the same kind of value (the same "
        "column of the same table).")
    assert why(PETS, "SELECT first_name FROM Owner INTERSECT SELECT pet_type FROM Pet").startswith(
        "each SELECT finds rows (3 and 4) but none is in both")


def test_the_empty_side_of_a_set_operation() -> None:
    assert why(COMPANY, "SELECT label FROM Employee WHERE salary > 99999 UNION "
                        "SELECT label FROM Department WHERE budget < 0") == (
        "the first SELECT (before UNION) finds no rows: check its conditions.")
    msg = why(PETS, "SELECT home_town FROM Owner INTERSECT SELECT o.home_town FROM Owner o WHERE o.age > 60 "
                    "AND o.home_town = 'Harbor'")
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
    store, _ = view(PETS)
    counting = CountingStore(store)
    conds = " AND ".join(f"p.pet_id != {100 + n}" for n in range(20))
    msg = why(PETS, f"SELECT p.pet_id FROM Pet p WHERE p.pet_type = 'lizard' AND {conds}", store=counting)
    assert msg.startswith("with the condition p.pet_type = 'lizard' nothing is left (without it 4 rows match)")
    counting.calls = 0
    why(PETS, f"SELECT p.pet_id FROM Pet p WHERE p.pet_age > 50 AND {conds}", store=counting)
    assert counting.calls <= MAX_PROBES + 1


def test_a_joined_table_nothing_uses_is_blamed_when_it_empties_the_result() -> None:
    """A join the question does not need (no column of it is used) that leaves no rows."""
    for ttl, sql, blamed in (
            (COMPANY, "SELECT e.label FROM Employee e JOIN Department d ON e.memberOf = d.iri "
                      "JOIN Employee m ON m.hasManager = e.iri WHERE d.label = 'Research' AND e.salary < 6000",
             "Employee AS m"),
            (PETS, "SELECT o.first_name FROM Owner o JOIN PetOwnership h ON h.po_owner = o.owner_id "
                   "WHERE o.home_town = 'Millbrook' AND o.age > 50 AND o.first_name = 'Lena'", None)):
        msg = why(ttl, sql)
        if blamed:
            assert msg.startswith(f"joining {blamed} leaves no rows")
        else:
            assert "joining" not in msg


def test_ordering_by_a_column_the_kept_rows_lack() -> None:
    assert why(COMPANY, "SELECT label FROM Employee WHERE label = 'Dan Ferro' ORDER BY hired LIMIT 1") == (
        "ordering by Employee.hired leaves no rows: none of the rows the conditions keep has a value there. "
        "Order by a column those rows have.")
    assert why(CATALOG, "SELECT label FROM Product WHERE price < 30 ORDER BY stock DESC, discontinued").startswith(
        "ordering by Product.stock, Product.discontinued leaves no rows")
