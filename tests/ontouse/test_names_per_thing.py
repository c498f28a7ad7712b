""""The names of the X and how many Y each has" answered by one count over all the X (the repair of the
`names_returned` check, ontouse.checks.shape.names_per_thing): the count becomes one per X, shown with the X's
name. Three made-up domains of tests/ontouse_graphs.py: a park's huts, wardens and rangers; a grove's growers and
care rows; a harbour's vessels and sailings."""

from __future__ import annotations

from ontouse.answerer import AnswerLoop


def _rows(ans) -> list[list[str]]:
    return sorted([c.value for c in r] for r in ans.rows)


def test_one_count_of_all_becomes_one_per_thing_with_its_name(parks_loop: AnswerLoop, grove_loop: AnswerLoop) -> None:
    ans = parks_loop.answer_sql("What are the names of the huts and how many rangers are posted at each?",
                           "SELECT COUNT(r.iri) FROM Hut h JOIN Ranger r ON r.postedAt = h.iri")
    assert ans.state == "answered" and _rows(ans) == [["Pinewood", "3"], ["Reeds", "3"]]
    assert "names_returned" in ans.repairs
    ans = parks_loop.answer_sql("Show the names of the wardens and the number of rangers each supervises.",
                           "SELECT COUNT(*) FROM Warden w JOIN Ranger r ON r.hasWarden = w.iri")
    assert ans.state == "answered" and _rows(ans) == [["Mira Stone", "2"], ["Olaf Brand", "1"]]


def test_a_column_that_ends_in_name_is_the_things_name(grove_loop: AnswerLoop) -> None:
    ans = grove_loop.answer_sql("What are the names of the growers and how many trees do they care for?",
                           "SELECT COUNT(c.tc_tree) FROM Grower g JOIN TreeCare c ON c.tc_grower = g.grower_id")
    assert ans.state == "answered" and _rows(ans) == [["Edda", "2"], ["Mirko", "1"]]


def test_things_without_a_name_column_or_counted_alone_are_left_to_the_model(harbour_loop: AnswerLoop,
                                                                            parks_loop: AnswerLoop) -> None:
    """The vessels have no column of their name by that word; a count of the huts themselves per hut would be 1
    each; a ranking asks for the top one, not one per thing."""
    ans = harbour_loop.answer_sql("What are the names of the vessels and how many sailings did each make?",
                             "SELECT COUNT(*) FROM Vessel v JOIN Sailing s ON s.vessel = v.vessel_no")
    assert "names_returned" not in ans.repairs
    ans = parks_loop.answer_sql("What are the names of the huts and how many are there?", "SELECT COUNT(*) FROM Hut h")
    assert "names_returned" not in ans.repairs
    ans = parks_loop.answer_sql("What is the name of the hut with the most rangers, and how many are posted there?",
                           "SELECT COUNT(r.iri) FROM Hut h JOIN Ranger r ON r.postedAt = h.iri")
    assert "names_returned" not in ans.repairs and ans.state != "answered"
