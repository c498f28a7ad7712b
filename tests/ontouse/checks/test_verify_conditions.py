"""The checks of ontouse.checks that compare a plan's conditions and shape with the question, on a tiny graph of
a made-up domain (windmills on rivers, their millers and the storms they logged), without a model:
`AnswerLoop.answer_sql` runs a given plan through the same reading, repairs and checks as a plan the model wrote."""

from __future__ import annotations

import pytest
from ontouse_graphs import HEAD, NoModel, view

from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan.reader import read_sql
from ontouse.question import asks_per_group, both_named
from ontouse.checks.conditions import unused_flags
from ontouse.checks.named import unasked_values

LIGHTS = HEAD + """
@prefix : <http://example.org/lights#> .
:Windmill a owl:Class ; rdfs:label "windmill" .
:Miller a owl:Class ; rdfs:label "miller" .
:Storm a owl:Class ; rdfs:label "storm" .
:keeps a owl:ObjectProperty . :loggedAt a owl:ObjectProperty .

:l1 a :Windmill ; rdfs:label "Gullrock" ; :river "Skerry River" ; :country "Norway" ; :heightM 34 ; :built 1871 ;
    :electrified "yes" .
:l2 a :Windmill ; rdfs:label "Whitecap" ; :river "Skerry River" ; :country "Norway" ; :heightM 21 ; :built 1902 ;
    :electrified "no" .
:l3 a :Windmill ; rdfs:label "Dunmore Head" ; :river "Amber Bay" ; :country "Ireland" ; :heightM 40 ;
    :built 1871 ; :electrified "yes" .
:l4 a :Windmill ; rdfs:label "Saltpan" ; :river "Amber Bay" ; :country "Ireland" ; :heightM 18 ; :built 1935 ;
    :electrified "no" .
:l5 a :Windmill ; rdfs:label "Ashfall" ; :river "Cinder Sound" ; :country "Iceland" ; :heightM 26 ; :built 1902 ;
    :electrified "yes" .
:l1 :is_staffed "T" . :l2 :is_staffed "F" . :l3 :is_staffed "T" . :l4 :is_staffed "F" . :l5 :is_staffed "F" .
:k1 a :Miller ; rdfs:label "Iver Holt" ; :keeps :l1 ; :years 12 ; :since "2012-05-01" .
:k2 a :Miller ; rdfs:label "Orla Finn" ; :keeps :l3 ; :years 7 ; :since "2017-03-15" .
:k3 a :Miller ; rdfs:label "Brede Lund" ; :keeps :l2 ; :years 3 ; :since "2021-09-30" .
:Signal a owl:Class ; rdfs:label "signal" .
:shownBy a owl:ObjectProperty .
:g1 a :Signal ; :shownBy :l1 ; :colour "red" . :g2 a :Signal ; :shownBy :l1 ; :colour "green" .
:g3 a :Signal ; :shownBy :l2 ; :colour "red" . :g4 a :Signal ; :shownBy :l3 ; :colour "white" .
:g5 a :Signal ; :shownBy :l4 ; :colour "green" .
:Posting a owl:Class ; rdfs:label "posting" .
:postedMiller a owl:ObjectProperty . :postedLight a owl:ObjectProperty .
:p1 a :Posting ; :postedMiller :k1 ; :postedLight :l1 . :p2 a :Posting ; :postedMiller :k1 ; :postedLight :l3 .
:p3 a :Posting ; :postedMiller :k2 ; :postedLight :l3 . :p4 a :Posting ; :postedMiller :k3 ; :postedLight :l2 .
:s1 a :Storm ; rdfs:label "storm 1" ; :loggedAt :l1 ; :force 10 ; :loggedOn "2021-01-05"^^xsd:date ; :season 2021 .
:s2 a :Storm ; rdfs:label "storm 2" ; :loggedAt :l1 ; :force 11 ; :loggedOn "2023-11-20"^^xsd:date ; :season 2023 .
:s3 a :Storm ; rdfs:label "storm 3" ; :loggedAt :l3 ; :force 9 ; :loggedOn "2024-02-02"^^xsd:date ; :season 2023 ;
    :storm_damage 4 .
:s1 :storm_damage 8 . :s2 :storm_damage 6 .
"""


@pytest.fixture(scope="module")
def answerer() -> AnswerLoop:
    store, schema = view(LIGHTS)
    return AnswerLoop(store, NoModel(), schema=schema)


def failed(ans) -> list[str]:
    return [c["check"] for c in ans.checks if not c["passed"]]


def extra(answerer: AnswerLoop, question: str, sql: str) -> list[str]:
    q = parse_question(question)
    plan, _ = read_sql(answerer.schema, sql)
    return unasked_values(q, plan, answerer.schema, answerer.index.mentions(q), answerer.index.embedder)


# ---- conditions_asked: a constant the question never writes -----------------------------------------------------
def test_a_condition_nobody_asked_for_is_not_stated(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which windmills are taller than 30 m?",
                              "SELECT label FROM Windmill WHERE heightM > 30 AND built = 1871")
    assert ans.state == "unsure" and "conditions_asked" in failed(ans)
    assert "1871" in ans.answer and "does not ask for" in ans.answer
    ans = answerer.answer_sql("Which windmills are taller than 30 m?",
                              "SELECT label FROM Windmill WHERE heightM > 30 AND river = 'Skerry River'")
    assert ans.state == "unsure" and "conditions_asked" in failed(ans)


def test_the_asked_conditions_pass(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which windmills are taller than 30 m?",
                              "SELECT label FROM Windmill WHERE heightM > 30")
    assert ans.state == "answered" and "conditions_asked" not in failed(ans)
    assert {c.value for row in ans.rows for c in row} == {"Gullrock", "Dunmore Head"}


@pytest.mark.parametrize("question, sql", [
    # the value as written, in another case, or misspelt
    ("Which windmills stand on the skerry river?", "SELECT label FROM Windmill WHERE river = 'Skerry River'"),
    ("Which windmills stand on the Skery River?", "SELECT label FROM Windmill WHERE river = 'Skerry River'"),
    # a word that means the value (a country's adjective), by the sentence-embedding model
    ("Which Norwegian windmills are there?", "SELECT label FROM Windmill WHERE country = 'Norway'"),
    # a yes/no flag the question names by a word, and 0
    ("Which electrified windmills are taller than 20 m?",
     "SELECT label FROM Windmill WHERE electrified = 'yes' AND heightM > 20"),
    ("Which windmills logged storms?",
     "SELECT label FROM Windmill WHERE iri IN (SELECT loggedAt FROM Storm WHERE force > 0)"),
    # a bound on an aggregate is no condition on a value
    ("Which windmills logged more than one storm?",
     "SELECT L.label FROM Windmill AS L JOIN Storm AS S ON S.loggedAt = L.iri GROUP BY L.label HAVING COUNT(*) > 1"),
    # numbers written in words, a percentage as a share, a date counted from a period the question names
    ("Which windmills are taller than twenty metres?", "SELECT label FROM Windmill WHERE heightM > 20"),
    ("Which millers have a share of more than 50%?", "SELECT label FROM Miller WHERE years > 0.5"),
    ("Which millers started in the last five years?", "SELECT label FROM Miller WHERE since >= '2021-11-26'"),
    # the numbers the question writes, in a range
    ("Which windmills were built between 1870 and 1900?",
     "SELECT label FROM Windmill WHERE built BETWEEN 1870 AND 1900"),
])
def test_conditions_the_question_names(answerer: AnswerLoop, question: str, sql: str) -> None:
    assert extra(answerer, question, sql) == []


def test_unasked_values_lists_each_constant_once(answerer: AnswerLoop) -> None:
    assert extra(answerer, "Which millers have kept a light for more than 5 years?",
                 "SELECT K.label FROM Miller AS K JOIN Windmill AS L ON K.keeps = L.iri "
                 "WHERE K.years > 5 AND L.country = 'Ireland' AND L.country = 'Ireland'") == ["Ireland"]


# ---- both_values: "A and B" of one column asked, either kept ----------------------------------------------------
def test_both_values_asked_but_either_kept(answerer: AnswerLoop) -> None:
    """A listing that keeps either value is repaired by code (the rows with each value intersected); a count of
    either goes back to the model (no repair of an aggregate)."""
    q = parse_question("Which windmills show red and green?")
    assert both_named(q, answerer.index.mentions(q)) == [("red", "green")]
    ans = answerer.answer_sql("Which windmills show red and green?",
                              "SELECT DISTINCT L.label FROM Windmill AS L JOIN Signal AS S ON S.shownBy = L.iri "
                              "WHERE S.colour IN ('red', 'green')")
    assert ans.state == "answered" and "both_values" in ans.repairs
    assert [c.value for row in ans.rows for c in row] == ["Gullrock"]
    ans = answerer.answer_sql("How many windmills show red and green?",
                              "SELECT COUNT(DISTINCT shownBy) FROM Signal WHERE colour = 'red' OR colour = 'green'")
    assert ans.state == "unsure" and failed(ans) == ["both_values"]


def test_both_values_kept_by_intersecting(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which windmills show red and green?",
                              "SELECT L.label FROM Windmill AS L JOIN Signal AS S ON S.shownBy = L.iri "
                              "WHERE S.colour = 'red' INTERSECT SELECT L.label FROM Windmill AS L "
                              "JOIN Signal AS S ON S.shownBy = L.iri WHERE S.colour = 'green'")
    assert ans.state == "answered" and "both_values" not in failed(ans)
    assert [c.value for row in ans.rows for c in row] == ["Gullrock"]


def test_one_value_per_thing_means_either(answerer: AnswerLoop) -> None:
    # a windmill stands in one country: "in Norway and Iceland" can only mean the windmills of either
    ans = answerer.answer_sql("What is the total height of the windmills in Norway and Iceland?",
                              "SELECT SUM(heightM) FROM Windmill WHERE country IN ('Norway', 'Iceland')")
    assert ans.state == "answered" and ans.answer.startswith("81")


# ---- names_returned: names asked, one number returned -----------------------------------------------------------
def test_names_asked_but_one_number_returned(answerer: AnswerLoop) -> None:
    sql = "SELECT COUNT(*) FROM Windmill WHERE heightM > 30"
    ans = answerer.answer_sql("What are the names of the windmills that logged storms, and how many storms did "
                              "each log?", sql)
    assert ans.state == "unsure" and "names_returned" in failed(ans)
    # names alone: the count's things are listed by code instead (things_not_counted), and their names shown
    ans = answerer.answer_sql("What are the names of the windmills taller than 30 m?", sql)
    assert ans.state == "answered" and ans.repairs == ["things_not_counted"] and not failed(ans)
    assert not any(c.text().isdigit() for row in ans.rows for c in row)


def test_names_returned_with_their_numbers_pass(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("What are the names of the windmills that logged storms, and how many storms did "
                              "each log?", "SELECT L.label, COUNT(*) FROM Windmill AS L JOIN Storm AS S "
                              "ON S.loggedAt = L.iri GROUP BY L.label")
    assert ans.state == "answered" and "names_returned" not in failed(ans)
    ans = answerer.answer_sql("How many names of millers are there?", "SELECT COUNT(*) FROM Miller")
    assert "names_returned" not in failed(ans)


# ---- exclusion_kept: != on a thing reached through rows that refer to the asked things --------------------------
def test_exclusion_on_a_thing_behind_several_rows_per_asked_thing(answerer: AnswerLoop) -> None:
    question = "Which millers do not work at a windmill in Ireland?"
    # with the windmills shown beside, code cannot rewrite the plan: the check sends it back
    ans = answerer.answer_sql(question, "SELECT DISTINCT K.label, L.label FROM Miller AS K JOIN Posting AS P ON "
                                        "P.postedMiller = K.iri JOIN Windmill AS L ON P.postedLight = L.iri "
                                        "WHERE L.country != 'Ireland'")
    assert ans.state == "unsure" and failed(ans) == ["exclusion_kept"] and "NOT IN" in ans.error
    # the windmills only excluded: rewritten by code as the millers NOT IN those posted at one in Ireland
    ans = answerer.answer_sql(question, "SELECT DISTINCT K.label FROM Miller AS K JOIN Posting AS P ON "
                                        "P.postedMiller = K.iri JOIN Windmill AS L ON P.postedLight = L.iri "
                                        "WHERE L.country != 'Ireland'")
    assert ans.state == "answered" and [c.value for row in ans.rows for c in row] == ["Brede Lund"]
    assert "excluded_by_rows" in ans.repairs
    ans = answerer.answer_sql(question, "SELECT label FROM Miller WHERE iri NOT IN (SELECT P.postedMiller FROM "
                                        "Posting AS P JOIN Windmill AS L ON P.postedLight = L.iri WHERE "
                                        "L.country = 'Ireland')")
    assert ans.state == "answered" and [c.value for row in ans.rows for c in row] == ["Brede Lund"]


# ---- time_rank (repair) and time_ranked (check): "the most recent X" ranks by a date ----------------------------
@pytest.mark.parametrize("question, sql, value", [
    ("What was the force of the most recent storm?", "SELECT MAX(force) FROM Storm", "9"),
    ("Show the force of the most recently logged storm.", "SELECT MAX(force) FROM Storm", "9"),
    ("What was the force of the earliest storm?", "SELECT MIN(force) FROM Storm", "10"),
    # the column's words that name its table are the table's: "the most recent storm" is not its damage
    ("How much damage did the most recent storm do?", "SELECT MAX(storm_damage) FROM Storm", "4"),
])
def test_time_superlative_ranks_by_the_date(answerer: AnswerLoop, question: str, sql: str, value: str) -> None:
    ans = answerer.answer_sql(question, sql)
    assert ans.state == "answered" and "time_rank" in ans.repairs and ans.answer.startswith(value)


def test_a_time_superlative_on_the_column_itself_is_kept(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("What is the latest season of a storm?", "SELECT MAX(season) FROM Storm")
    assert ans.state == "answered" and "time_rank" not in ans.repairs and ans.answer.startswith("2023")


def test_time_superlative_ranked_by_a_number_is_not_stated(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("What was the force of the most recent storm at Gullrock?",
                              "SELECT MAX(S.force) FROM Storm AS S JOIN Windmill AS L ON S.loggedAt = L.iri "
                              "WHERE L.label = 'Gullrock'")
    assert ans.state == "unsure" and failed(ans) == ["time_ranked"] and "loggedOn" in ans.error


# ---- value_per_group: a value per group asked, one over all rows returned ---------------------------------------
@pytest.mark.parametrize("text, want", [
    ("What is the highest storm force for each windmill?", True),
    ("What is the tallest height for the different rivers?", True),
    ("What is the average force in every season?", True),
    ("What is the average number of storms logged each time?", False),  # "each time": no group
    ("How many miles per gallon does it make?", False),  # a unit
])
def test_asks_per_group(text: str, want: bool) -> None:
    assert asks_per_group(parse_question(text)) is want


def test_one_value_for_a_question_per_group_is_not_stated(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("What is the highest storm force for each windmill?", "SELECT MAX(force) FROM Storm")
    assert ans.state == "unsure" and failed(ans) == ["value_per_group"]
    ans = answerer.answer_sql("What is the highest storm force for each windmill?",
                              "SELECT L.label, MAX(S.force) FROM Storm AS S JOIN Windmill AS L "
                              "ON S.loggedAt = L.iri GROUP BY L.label")
    assert ans.state == "answered" and "value_per_group" not in failed(ans)


# ---- second_ask_answered: a second thing asked, one column returned ---------------------------------------------
def test_a_second_thing_asked_needs_its_column(answerer: AnswerLoop) -> None:
    question = "What is the height of the tallest windmill, and which river is it on?"
    ans = answerer.answer_sql(question, "SELECT MAX(heightM) FROM Windmill")
    assert ans.state == "unsure" and failed(ans) == ["second_ask_answered"]
    ans = answerer.answer_sql(question, "SELECT heightM, river FROM Windmill ORDER BY heightM DESC LIMIT 1")
    assert ans.state == "answered" and "second_ask_answered" not in failed(ans)


# ---- ranked_by_amount: a superlative answered by alphabetical order ---------------------------------------------
def test_a_superlative_is_not_an_alphabetical_order(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("Which windmill logged the most storms?",
                              "SELECT label FROM Windmill ORDER BY river DESC LIMIT 1")
    assert ans.state == "unsure" and failed(ans) == ["ranked_by_amount"]


@pytest.mark.parametrize("question, sql", [
    ("Which windmill comes first in alphabetical order?", "SELECT label FROM Windmill ORDER BY label LIMIT 1"),
    ("Which miller started earliest?", "SELECT label FROM Miller ORDER BY since ASC LIMIT 1"),  # a date as text
    ("Show the first two windmills by name.", "SELECT label FROM Windmill ORDER BY label LIMIT 2"),
])
def test_orders_of_names_and_dates_as_text_pass(answerer: AnswerLoop, question: str, sql: str) -> None:
    assert "ranked_by_amount" not in failed(answerer.answer_sql(question, sql))


# ---- flag_used: a yes/no column the question names by its word ---------------------------------------------------
@pytest.mark.parametrize("question, sql, want", [
    ("How many staffed windmills are in Norway?", "SELECT COUNT(*) FROM Windmill WHERE country = 'Norway'",
     [("staffed", "Windmill.is_staffed")]),
    ("Which electrified windmills are in Norway?", "SELECT label FROM Windmill WHERE country = 'Norway'",
     [("electrified", "Windmill.electrified")]),
    ("How many staffed windmills are in Norway?",
     "SELECT COUNT(*) FROM Windmill WHERE country = 'Norway' AND is_staffed = 'T'", []),
    # a word inside a longer name is no flag's name ("count" in "country")
    ("Count the windmills of each country.", "SELECT country, COUNT(*) FROM Windmill GROUP BY country", []),
])
def test_unused_flags(answerer: AnswerLoop, question: str, sql: str, want: list) -> None:
    plan, _ = read_sql(answerer.schema, sql)
    assert unused_flags(parse_question(question), plan, answerer.schema) == want


def test_a_named_flag_left_out_is_not_stated(answerer: AnswerLoop) -> None:
    ans = answerer.answer_sql("How many staffed windmills are in Norway?",
                              "SELECT COUNT(*) FROM Windmill WHERE country = 'Norway'")
    assert ans.state == "unsure" and failed(ans) == ["flag_used"] and "is_staffed" in ans.error
    ans = answerer.answer_sql("How many staffed windmills are in Norway?",
                              "SELECT COUNT(*) FROM Windmill WHERE country = 'Norway' AND is_staffed = 'T'")
    assert ans.state == "answered" and ans.answer.startswith("1")


def test_exclusion_over_a_table_of_pairs(answerer: AnswerLoop) -> None:
    # a windmill shows several colours: != over the signal rows keeps one that shows green and red
    ans = answerer.answer_sql("Which windmills do not show green?",
                              "SELECT shownBy FROM Signal WHERE colour != 'green'")
    assert ans.state == "unsure" and failed(ans) == ["exclusion_kept"] and "NOT IN" in ans.error
    ans = answerer.answer_sql("Which windmills do not show green?",
                              "SELECT label FROM Windmill WHERE iri NOT IN (SELECT shownBy FROM Signal "
                              "WHERE colour = 'green')")
    assert ans.state == "answered"
    assert {c.value for row in ans.rows for c in row} == {"Whitecap", "Dunmore Head", "Ashfall"}


def test_a_number_the_question_says_must_be_used(answerer: AnswerLoop) -> None:
    sql = "SELECT k.label FROM Miller k JOIN Posting p ON p.postedMiller = k.iri GROUP BY k.label"
    ans = answerer.answer_sql("Which millers were posted to 2 windmills?", sql)
    assert ans.state == "unsure" and failed(ans) == ["numbers_used"] and "says 2" in ans.error
    ans = answerer.answer_sql("Which millers were posted to 2 windmills?", sql + " HAVING COUNT(*) = 2")
    assert ans.state == "answered" and ans.values() == ["Iver Holt"]
    # a code the question says must be in a text the plan compares
    from ontouse_graphs import CATALOG

    store, schema = view(CATALOG)
    shop = AnswerLoop(store, NoModel(), schema=schema)
    ans = shop.answer_sql("What does the S-10 spade cost?", "SELECT price FROM Product WHERE label LIKE '%spade%'")
    assert ans.state == "unsure" and failed(ans) == ["numbers_used"] and "says S-10" in ans.error
    ans = shop.answer_sql("What does the S-10 spade cost?", "SELECT price FROM Product WHERE label LIKE '%S-10%'")
    assert ans.state == "answered" and ans.values() == ["31"]
    # a percentage compared as a share
    ans = answerer.answer_sql("Which windmills are more than 90% as high as Dunmore Head?",
                              "SELECT label FROM Windmill WHERE heightM > 0.9 * (SELECT heightM FROM Windmill "
                              "WHERE label = 'Dunmore Head')")
    assert "numbers_used" not in failed(ans)


def test_one_top_value_asked_and_the_top_of_each_group_returned(answerer: AnswerLoop) -> None:
    question = "What is the highest windmill height, and on which river is it?"
    ans = answerer.answer_sql(question, "SELECT river, MAX(heightM) FROM Windmill GROUP BY river")
    assert ans.state == "unsure" and failed(ans) == ["one_top_value"]
    ans = answerer.answer_sql("What is the highest windmill height for each river?",
                              "SELECT river, MAX(heightM) FROM Windmill GROUP BY river")
    assert "one_top_value" not in failed(ans)


def test_a_column_the_question_names_in_words_must_be_read(answerer: AnswerLoop) -> None:
    question = "What was the storm damage of storm 1?"
    ans = answerer.answer_sql(question, "SELECT force FROM Storm WHERE label = 'storm 1'")
    assert ans.state == "unsure" and failed(ans) == ["named_columns_read"] and "Storm.storm_damage" in ans.error
    ans = answerer.answer_sql(question, "SELECT storm_damage FROM Storm WHERE label = 'storm 1'")
    assert ans.state == "answered" and ans.values() == ["8"]


def test_a_superlative_thing_asked_by_a_value_and_per_group(answerer: AnswerLoop) -> None:
    from ontouse_graphs import CATALOG

    store, schema = view(CATALOG)
    shop = AnswerLoop(store, NoModel(), schema=schema)
    sql = ("SELECT p.price FROM Product AS p JOIN Category AS c ON p.inCategory = c.iri "
           "WHERE c.label = 'Garden tools' ORDER BY p.price ASC LIMIT 1")
    # the words after "cheapest" name a category (a value), so a product is asked, not its price
    ans = shop.answer_sql("What is the cheapest Garden tools item?", sql)
    assert ans.state == "unsure" and failed(ans) == ["superlative_thing_returned"]
    ans = shop.answer_sql("What is the cheapest price of the Garden tools?", sql)
    assert ans.state == "answered" and ans.values() == ["24.5"]
    # the same over the windmills: a river (a value) after "tallest" asks for the windmill, "how tall" for the height
    sql = "SELECT heightM FROM Windmill WHERE river = 'Amber Bay' ORDER BY heightM DESC LIMIT 1"
    ans = answerer.answer_sql("What is the tallest Amber Bay mill?", sql)
    assert ans.state == "unsure" and failed(ans) == ["superlative_thing_returned"]
    ans = answerer.answer_sql("How tall is the tallest windmill on Amber Bay?", sql)
    assert ans.state == "answered" and ans.values() == ["40"]
    # "cheapest" ranks downwards: a plan ranked the other way is turned around by code
    ans = shop.answer_sql("Which product is the cheapest?", "SELECT label FROM Product ORDER BY price DESC LIMIT 1")
    assert ans.rows[0][0].text() == "Iron rake R-220" and "superlative_direction" in ans.repairs
    # per group, both ways: the lowest and the tallest windmills are asked, not their heights
    grouped = "SELECT river, MIN(heightM), MAX(heightM) FROM Windmill GROUP BY river"
    ans = answerer.answer_sql("Per river, which are the lowest and the tallest windmills?", grouped)
    assert ans.state == "unsure" and "superlative_thing_returned" in failed(ans)
    ans = answerer.answer_sql("Per river, what are the minimum and maximum windmill heights?", grouped)
    assert "superlative_thing_returned" not in failed(ans)


# ---- "which X has the lowest Y" and "is there a ... X" --------------------------------------------------------
def test_which_thing_has_the_top_value_asks_for_the_thing(answerer) -> None:
    """superlative_thing_returned: the words after the superlative name a column (height), but "which windmill"
    asks for the windmill; the top number alone is no answer to it."""
    ans = answerer.answer_sql("Which windmill has the greatest height?",
                              "SELECT heightM FROM Windmill ORDER BY heightM DESC LIMIT 1")
    assert ans.state == "unsure" and "superlative_thing_returned" in failed(ans)
    assert "asks which Windmill" in ans.error
    ans = answerer.answer_sql("Which windmill has the greatest height?",
                              "SELECT label, heightM FROM Windmill ORDER BY heightM DESC LIMIT 1")
    assert ans.state == "answered" and ans.values() == ["Dunmore Head", "40"]
    ans = answerer.answer_sql("What is the greatest height of a windmill?", "SELECT MAX(heightM) FROM Windmill")
    assert ans.state == "answered" and ans.values() == ["40"]  # the value is asked: no "which X"


def test_is_there_a_thing_reads_that_things_table(answerer) -> None:
    """asked_table: "is there a ... miller" is answered from the millers (or a table linked to them), not from
    another table the condition's value happens to be in."""
    ans = answerer.answer_sql("Is there a miller at a windmill on the Amber Bay?",
                              "SELECT COUNT(*) FROM Windmill WHERE river = 'Amber Bay'")
    assert ans.state == "unsure" and "asked_table" in failed(ans)
    assert "whether there is a Miller" in ans.error
    ans = answerer.answer_sql("Is there a miller at a windmill on the Amber Bay?",
                              "SELECT COUNT(*) FROM Miller AS M JOIN Windmill AS W ON M.keeps = W.iri "
                              "WHERE W.river = 'Amber Bay'")
    assert ans.state == "answered" and ans.boolean is True
    ans = answerer.answer_sql("Are there storms of force 11?", "SELECT COUNT(*) FROM Storm WHERE force = 11")
    assert ans.state == "answered" and ans.boolean is True


def test_a_comparison_of_two_named_things_is_never_a_path_from_one_to_the_other(answerer: AnswerLoop) -> None:
    """"Did A log more storms than B?" names two windmills: a query that needs one storm logged at both (the two
    names on two copies of the table, joined through the storms) finds a path, not the two sides; each side counted
    on its own compares them, and two rows read side by side (no join between them) compare them too."""
    q = "Did Gullrock log more storms than Dunmore Head?"
    ans = answerer.answer_sql(q, "SELECT COUNT(*) FROM Windmill AS w1 JOIN Storm AS s ON s.loggedAt = w1.iri "
                                 "JOIN Windmill AS w2 ON s.loggedAt = w2.iri "
                                 "WHERE w1.label = 'Gullrock' AND w2.label = 'Dunmore Head'")
    outcome = {c["check"]: c for c in ans.checks}["comparison_sides"]
    assert ans.state != "answered" and not outcome["passed"] and "on its own" in outcome["detail"]
    ans = answerer.answer_sql(q, "SELECT (SELECT COUNT(*) FROM Storm AS s JOIN Windmill AS w ON s.loggedAt = w.iri "
                                 "WHERE w.label = 'Gullrock') > (SELECT COUNT(*) FROM Storm AS t JOIN Windmill AS v "
                                 "ON t.loggedAt = v.iri WHERE v.label = 'Dunmore Head') "
                                 "FROM Windmill AS x WHERE x.label = 'Gullrock'")
    assert {c["check"]: c["passed"] for c in ans.checks}["comparison_sides"] and ans.answer == "Yes."
    ans = answerer.answer_sql(q, "SELECT COUNT(*) FROM Storm AS s JOIN Windmill AS w ON s.loggedAt = w.iri "
                                 "WHERE w.label = 'Gullrock' INTERSECT SELECT COUNT(*) FROM Storm AS t "
                                 "JOIN Windmill AS v ON t.loggedAt = v.iri WHERE v.label = 'Dunmore Head'")
    outcome = {c["check"]: c for c in ans.checks}["comparison_sides"]  # two counts side by side compare nothing
    assert ans.state != "answered" and not outcome["passed"] and "compare" in outcome["detail"]
    ans = answerer.answer_sql("Is Gullrock taller than Dunmore Head?",
                              "SELECT a.heightM > b.heightM FROM Windmill AS a, Windmill AS b "
                              "WHERE a.label = 'Gullrock' AND b.label = 'Dunmore Head'")
    assert {c["check"]: c["passed"] for c in ans.checks}["comparison_sides"] and ans.answer == "No."
