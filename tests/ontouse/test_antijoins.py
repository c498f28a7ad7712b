"""Things that have no rows of another table (the reader's `anti_join` fix, sqlplan/sqlfixes.py, and
ontouse.exclusions.excluded_by_rows, a repair of repairs.repair_plan): an inner join keeps
only the things that have some joined row, so "the vessels that made no sailing" written as a JOIN with `IS NULL`
finds nothing, and "the huts that do not have X posted" written as a JOIN with `!=` keeps every hut with anyone else
posted and drops the huts with nobody. Three made-up domains of tests/ontouse_graphs.py: a harbour's vessels and
sailings (key columns), a park's huts and rangers (links), a grove's growers, trees and care rows (both)."""

from __future__ import annotations

from ontouse.answerer import AnswerLoop


def _names(ans) -> list[str]:
    """The local names of the things an answer lists, sorted."""
    return sorted(v.rsplit("#", 1)[-1] for v in ans.values())


def test_a_join_whose_rows_must_be_missing_is_read_as_the_things_without_rows(harbour_loop: AnswerLoop,
                                                                              grove_loop: AnswerLoop) -> None:
    ans = harbour_loop.answer_sql("Which vessels made no sailing?",
                             "SELECT v.vessel_no FROM Vessel v JOIN Sailing s ON v.vessel_no = s.vessel "
                             "WHERE s.sailing_no IS NULL")
    assert ans.state == "answered" and ans.values() == ["3"]
    assert "anti_join" in ans.repairs
    ans = grove_loop.answer_sql("Which growers care for no tree?",
                           "SELECT g.given_name FROM Grower g JOIN TreeCare c ON g.grower_id = c.tc_grower "
                           "WHERE c.tc_tree IS NULL")
    assert ans.state == "answered" and ans.values() == ["Runa"]


def test_the_rows_a_link_points_from_are_missing_too(parks_loop: AnswerLoop) -> None:
    ans = parks_loop.answer_sql("Which huts have no ranger posted at them?",
                           "SELECT h.iri FROM Hut h JOIN Ranger r ON r.postedAt = h.iri WHERE r.iri IS NULL")
    assert ans.state == "answered" and _names(ans) == ["birch"]


def test_a_missing_value_that_some_joined_rows_lack_is_a_condition_on_those_rows(parks_loop: AnswerLoop) -> None:
    """Not every ranger has a warden: the huts where some ranger has none is an inner join's own reading."""
    ans = parks_loop.answer_sql("Which huts have a ranger without a warden?",
                           "SELECT DISTINCT h.iri FROM Hut h JOIN Ranger r ON r.postedAt = h.iri "
                           "WHERE r.hasWarden IS NULL")
    assert "anti_join" not in ans.repairs
    assert ans.state == "answered" and _names(ans) == ["pinewood", "reeds"]


def test_a_thing_that_does_not_have_a_row_with_a_value_is_excluded_by_those_rows(parks_loop: AnswerLoop,
                                                                                harbour_loop: AnswerLoop) -> None:
    ans = parks_loop.answer_sql("Which huts do not have Ada Quill posted there?",
                           "SELECT h.iri FROM Hut h JOIN Ranger r ON r.postedAt = h.iri "
                           "WHERE r.fullName != 'Ada Quill'")
    assert ans.state == "answered" and _names(ans) == ["birch", "reeds"]
    assert "excluded_by_rows" in ans.repairs
    ans = harbour_loop.answer_sql("Which vessels did not sail from berth 31?",
                             "SELECT v.vessel_no FROM Vessel v JOIN Sailing s ON v.vessel_no = s.vessel "
                             "WHERE s.berth_id != 31")
    assert ans.state == "answered" and ans.values() == ["3"]


def test_a_join_kept_beside_its_own_exclusion_is_dropped(grove_loop: AnswerLoop) -> None:
    """The exclusion is there (NOT IN), but the join beside it still drops the growers who care for nothing."""
    ans = grove_loop.answer_sql("Which growers do not care for tree 11?",
                           "SELECT g.given_name FROM Grower g JOIN TreeCare c ON g.grower_id = c.tc_grower "
                           "WHERE c.tc_tree != 11 AND c.tc_grower NOT IN "
                           "(SELECT tc_grower FROM TreeCare WHERE tc_tree = 11)")
    assert ans.state == "answered" and sorted(ans.values()) == ["Mirko", "Runa"]
    assert "excluded_by_rows" in ans.repairs


def test_a_value_read_further_along_the_joined_rows_goes_into_the_exclusion(grove_loop: AnswerLoop) -> None:
    """The fruit is the tree's, read through the care rows: Edda's apple tree would keep her, although she cares
    for a fig tree too."""
    ans = grove_loop.answer_sql("Which growers do not care for a fig tree?",
                           "SELECT g.given_name FROM Grower g JOIN TreeCare c ON c.tc_grower = g.grower_id "
                           "JOIN Tree t ON c.tc_tree = t.tree_id WHERE t.fruit != 'fig'")
    assert ans.state == "answered" and ans.values() == ["Runa"]
    assert "excluded_by_rows" in ans.repairs


def test_a_negation_on_the_joined_rows_themselves_is_left_to_them(grove_loop: AnswerLoop,
                                                                   parks_loop: AnswerLoop) -> None:
    """"other than" negates the joined thing, not the verb; a joined row the answer shows is not only an
    exclusion."""
    ans = grove_loop.answer_sql("Which trees get care from growers other than grower 1?",
                           "SELECT t.tree_id FROM Tree t JOIN TreeCare c ON t.tree_id = c.tc_tree "
                           "WHERE c.tc_grower != 1")
    assert "excluded_by_rows" not in ans.repairs
    assert ans.state == "answered" and ans.values() == ["12"]
    ans = parks_loop.answer_sql("Which huts do not have Ada Quill posted there, and who is posted there?",
                           "SELECT h.iri, r.fullName FROM Hut h JOIN Ranger r ON r.postedAt = h.iri "
                           "WHERE r.fullName != 'Ada Quill'")
    assert "excluded_by_rows" not in ans.repairs
