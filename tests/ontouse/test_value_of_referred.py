"""A text compared with a key column that refers to another table's rows, where that table holds the text in one
column of its own (ontouse.referred.value_of_referred, a repair of repairs.repair_plan): "sailings from the North
quay" written `WHERE s.berth_id = 'North quay'` (berth_id holds the berth's number) compares the referred berth's
name. Two made-up domains of tests/ontouse_graphs.py: a harbour's sailings and berths, and a grove's tree care rows,
trees and growers."""

from __future__ import annotations

import pytest

from ontouse_graphs import GROVE, HARBOUR, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.referred import value_of_referred
from ontouse.sqlplan.reader import read_sql


@pytest.fixture(scope="module")
def harbour() -> AnswerLoop:
    store, schema = view(HARBOUR)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def grove() -> AnswerLoop:
    store, schema = view(GROVE)
    return AnswerLoop(store, NoModel(), schema=schema)


def test_a_name_compared_with_a_key_is_compared_with_the_referred_rows_name(harbour: AnswerLoop) -> None:
    ans = harbour.answer_sql("Which sailings left from the North quay?",
                             "SELECT s.sailing_no FROM Sailing s WHERE s.berth_id = 'North quay'")
    assert ans.state == "answered" and sorted(ans.values()) == ["501", "503"]
    assert "value_of_referred" in ans.repairs


def test_each_text_goes_to_the_one_column_that_holds_it(grove: AnswerLoop) -> None:
    """A fruit (the trees' `fruit`) and a farm (the growers' `home_farm`) compared with the two keys of one care
    row: each is compared on the table its key refers to."""
    ans = grove.answer_sql("Which trees do growers from Fernhill care for?",
                           "SELECT tc_tree FROM TreeCare WHERE tc_grower = 'Fernhill'")
    assert ans.state == "answered" and sorted(ans.values()) == ["10", "11"]
    assert "value_of_referred" in ans.repairs
    plan, _ = read_sql(grove.schema, "SELECT tc_grower FROM TreeCare WHERE tc_tree = 'fig' AND tc_grower = 'Fernhill'")
    repaired, changed = value_of_referred(plan, grove.schema, grove.index)
    assert changed and {s.table.lower() for s in repaired.sources} == {"treecare", "tree", "grower"}


def test_a_value_the_key_holds_is_left_alone(harbour: AnswerLoop, grove: AnswerLoop) -> None:
    plan, _ = read_sql(harbour.schema, "SELECT s.sailing_no FROM Sailing s WHERE s.berth_id = 31")
    assert value_of_referred(plan, harbour.schema, harbour.index) == (plan, False)
    plan, _ = read_sql(grove.schema, "SELECT tc_grower FROM TreeCare WHERE tc_tree = 'pear'")  # held nowhere
    assert value_of_referred(plan, grove.schema, grove.index) == (plan, False)
