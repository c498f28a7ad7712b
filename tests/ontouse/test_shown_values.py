"""A value the answer only shows, which some things lack (ontouse.sqlplan.compile `_shown_only`, ask `_execute`,
results `answer_text`): the thing is still in the answer, its empty cell shown as a dash; a row with nothing to
show is no row, so a lookup of a value the thing lacks says "No data available"."""

from __future__ import annotations

from functools import lru_cache

from ontouse.answerer import AnswerLoop
from ontouse.results import MISSING
from ontouse_graphs import HEAD, NoModel, store_of

LENDING = HEAD + """@prefix : <http://example.org/lending#> .
:m1 a :Member ; rdfs:label "Rosa Ibarra" ; :parkingBay "Bay 2" ; :joinedYear 2019 .
:m2 a :Member ; rdfs:label "Jon Okafor" ; :joinedYear 2021 .
:m3 a :Member ; rdfs:label "Lea Marsh" ; :parkingBay "Bay 5" ; :joinedYear 2021 .
:t1 a :Tool ; rdfs:label "Hedge trimmer" ; :borrowedBy :m2 ; :deposit 40 .
:t2 a :Tool ; rdfs:label "Tile cutter" ; :borrowedBy :m3 .
"""


@lru_cache(maxsize=None)
def _answerer() -> AnswerLoop:
    return AnswerLoop(store_of(LENDING), NoModel())


def test_a_member_without_a_parking_bay_is_in_the_list() -> None:
    ans = _answerer().answer_sql("List the members who joined in 2021 with their parking bay.",
                                 "SELECT label, parkingBay FROM Member WHERE joinedYear = 2021 ORDER BY label")
    assert ans.state == "answered", ans.error
    assert ans.table("value") == [["Jon Okafor", ""], ["Lea Marsh", "Bay 5"]]
    assert ans.answer.splitlines()[0].endswith(f"parkingBay: {MISSING}")
    support = {tuple(t) for t in ans.support}
    assert (":m2", "rdfs:label", "Jon Okafor") in support
    assert not any(t[0] == ":m1" for t in support)


def test_a_lookup_of_a_value_the_thing_lacks_is_no_data() -> None:
    ans = _answerer().answer_sql("Which parking bay does Jon Okafor use?",
                                 "SELECT parkingBay FROM Member WHERE label = 'Jon Okafor'")
    assert ans.state == "no_data"


def test_a_value_reached_through_a_join_is_shown_or_missing() -> None:
    ans = _answerer().answer_sql("Which tools are borrowed, by whom, and what deposit do they need?",
                                 "SELECT t.label, m.label, t.deposit FROM Tool t JOIN Member m ON t.borrowedBy = m.iri")
    assert ans.state == "answered", ans.error
    assert sorted(ans.table("value")) == [["Hedge trimmer", "Jon Okafor", "40"], ["Tile cutter", "Lea Marsh", ""]]


def test_rows_with_nothing_to_show_are_not_counted_twice() -> None:
    """The "and N more" of a long list counts the rows left after the empty ones are dropped, once."""
    members = "\n".join(f':n{i} a :Member ; rdfs:label "Member {i}" ; :joinedYear 2020'
                        + (f' ; :parkingBay "Bay {i}" .' if i < 28 else " .") for i in range(31))
    answerer = AnswerLoop(store_of(HEAD + "@prefix : <http://example.org/lending#> .\n" + members), NoModel())
    ans = answerer.answer_sql("Which parking bays are used?", "SELECT parkingBay FROM Member")
    assert ans.state == "answered", ans.error
    assert len(ans.rows) == 28 and ans.answer.endswith("(and 3 more).")



def test_a_list_of_things_names_each_thing_once_but_keeps_equal_values() -> None:
    """A plan that meets one welder twice (two of her jobs joined, no DISTINCT) names her once; two welders' equal
    start years both stay."""
    from ontouse.answer import Cell
    from ontouse.question import parse_question
    from ontouse.results import answer_text

    ines, tom = "http://example.org/workshop#w1", "http://example.org/workshop#w2"
    rows = [[Cell(ines, is_iri=True, entity=ines, label="Ines Varga")],
            [Cell(ines, is_iri=True, entity=ines, label="Ines Varga")],
            [Cell(tom, is_iri=True, entity=tom, label="Tom Reyes")]]
    assert answer_text(parse_question("Which welders have done a job?"), ["w"], rows, None, 3) == \
        "Ines Varga; Tom Reyes."
    years = [[Cell("2020", datatype="http://www.w3.org/2001/XMLSchema#integer")]] * 2
    assert answer_text(parse_question("List the start years of the welders."), ["y"], years, None, 2) == \
        "2020; 2020."
