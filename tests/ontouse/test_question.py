"""A question parsed once (ontouse.question): words, numbers, quoted and capitalised names, and the kind of
answer it asks for, read from English grammar only."""

from __future__ import annotations

import pytest

from ontocore.text import irregular_singulars, fold, singular, tokens
from ontouse.question import parse_question


@pytest.mark.parametrize("text, kind", [
    ("Is Ada Quill a warden?", "yesno"),
    ("Does Edda tend a quince?", "yesno"),
    ("Were any trees planted before 2015?", "yesno"),
    ("Can the Lumo desk lamp be ordered?", "yesno"),
    ("How many figs grow at Fernhill?", "count"),
    ("What is the number of garden tools in stock?", "count"),
    ("Count the rangers of Reeds.", "count"),
    ("Which rangers work in Pinewood?", "other"),
    ("Who supervises Ben Arbor?", "other"),
    ("List the products of Nordwerk", "other"),
])
def test_kind(text: str, kind: str) -> None:
    assert parse_question(text).kind == kind


@pytest.mark.parametrize("text, grouped", [
    ("How many trees does each grower have?", True),
    ("Average salary per hut", True),
    ("What is the price of every lamp?", True),
    ("How many trees does Edda have?", False),
])
def test_grouped(text: str, grouped: bool) -> None:
    assert parse_question(text).grouped is grouped


def test_numbers() -> None:
    assert parse_question("Which growers are older than 30.5?").numbers == [30.5]
    assert parse_question("Products under 1,200 or over 3,5 kg").numbers == [1200.0, 3.5]
    assert parse_question("Trees aged 2 to 7 years").numbers == [2.0, 7.0]
    assert parse_question("What does the R-220 cost?").numbers == [220.0]
    assert parse_question("Which rooms are free?").numbers == []


def test_quoted_and_capitalised_names() -> None:
    q = parse_question("Is 'Polux' the supplier of the \"Lumo desk lamp\"?")
    assert q.quoted == ["Polux", "Lumo desk lamp"]
    q = parse_question("Does Mira Stone supervise Ben Arbor in Pinewood?")
    assert q.names == ["Mira Stone", "Ben Arbor", "Pinewood"]  # the first word is not a name
    assert parse_question("which figs are old").names == []


def test_words_are_folded_and_content_words_drop_function_words() -> None:
    q = parse_question("Which   rangers work in   Zürich's office?")
    assert q.text == "Which rangers work in Zürich's office?"
    assert q.words == ["which", "rangers", "work", "in", "zurich's", "office"]
    assert q.content_words == ["rangers", "work", "zurich's", "office"]


def test_fold_tokens_and_singular() -> None:
    assert fold("Ärö GENÈVE") == "aro geneve"
    assert tokens("Valve X-100, red!") == ["valve", "x", "100", "red"]
    assert [singular(w) for w in ("figs", "stories", "boxes", "glasses", "bus", "analysis", "fig", "trees")] == [
        "fig", "story", "box", "glass", "bus", "analysis", "fig", "tree"]
    # one singular for both tools: nouns that only look plural stay, "-zes" loses only its "s"
    assert [singular(w) for w in ("series", "species", "sizes", "Boxes", "BATTERIES")] == [
        "series", "species", "size", "Box", "BATTERY"]
    # nouns ending in "s" take "-es" (a bus, two buses), "-sis" nouns "-ses"; a silent "e" stays (fuses, cases)
    assert [singular(w) for w in ("buses", "Gases", "statuses", "lenses", "analyses", "crises", "fuses", "cases",
                                  "houses", "phases", "doses", "status")] == [
        "bus", "Gas", "status", "lens", "analysis", "crisis", "fuse", "case", "house", "phase", "dose", "status"]
    # the few nouns in -f / -fe (loaves, Shelves, bookshelves); every other "-ves" only loses its "s"
    assert [singular(w) for w in ("loaves", "Shelves", "bookshelves", "knives", "valves", "olives", "drives")] == [
        "loaf", "Shelf", "bookshelf", "knife", "valve", "olive", "drive"]
    # a plural that changes the word, or one kept from Latin or Greek, stays; its candidates are tried where the
    # word as it is names nothing (a longer compound too; "-men" only whole: specimen, abdomen)
    assert [singular(w) for w in ("children", "women", "criteria")] == ["children", "women", "criteria"]
    assert [irregular_singulars(w) for w in ("children", "Women", "grandchildren", "men", "specimen", "feet",
                                             "criteria", "indices", "fungi", "formulae", "boxes")] == [
        ["child"], ["woman"], ["grandchild"], ["man"], [], ["foot"], ["criterion", "criterium"], ["index", "indix"],
        ["fungus"], ["formula"], []]


def test_asks_names() -> None:
    assert parse_question("What are the names of the teams?").asks_names
    assert parse_question("Give me each supplier's name and city.").asks_names
    assert not parse_question("Who leads the team?").asks_names


def test_head_noun_of_which_and_what_questions() -> None:
    assert parse_question("Which suppliers deliver lamps?").head == "supplier"
    assert parse_question("In which hut is Ada?").head == "hut"
    assert parse_question("What products are cheap?").head == "product"
    assert parse_question("What is the cheapest lamp?").head == ""
    assert parse_question("Who works here?").head == ""


def test_a_name_in_a_condition_is_not_asked() -> None:
    assert not parse_question("Show the id of the crate whose last name tag is Berg.").asks_names
    assert not parse_question("List the ids of lockers with the name Blue.").asks_names
    assert parse_question("List the name of each locker with a lock.").asks_names
    assert parse_question("What name is used for the east dock?").asks_names


@pytest.mark.parametrize("text, several", [
    ("Which rangers earn the most?", True),
    ("Which ranger earns the most?", False),
    ("Find the names of the boats that carried the most passengers.", True),
    ("What are the names of the boats with the longest hull?", True),
    ("What is the name of the boat with the longest hull?", False),
    ("What are the name and length of the boat launched earliest?", False),
    ("List the titles of the books borrowed most often.", True),
    ("Show the title of the book borrowed most often, and its author.", False),
    ("Give the shelf and the reader of the loan that lasted the longest.", False),
    ("List the most common genre of novels.", False),
    ("Who borrowed the most books?", False),
    ("For the boats of the northern fleet, which boat carried the most passengers?", False),
    ("Show the loan which lasted the longest.", False),
])
def test_asks_several_reads_the_thing_ranked(text: str, several: bool) -> None:
    """The noun phrase nearest before the superlative names what is ranked: plural asks for every tied thing."""
    from ontouse.question import asks_several

    assert asks_several(parse_question(text)) is several


@pytest.mark.parametrize("text, negated", [
    ("Which tenants have not paid any rent?", True),
    ("Which boats haven't left the dock?", True),
    ("Which members do not hold a licence?", True),
    ("Which members have no licence?", True),
    ("Which boats are not red?", False),
    ("Which flights leave from a gate other than A4?", False),
])
def test_a_negated_verb_of_the_things_asked(text: str, negated: bool) -> None:
    from ontouse.question import verb_negated

    assert verb_negated(parse_question(text)) is negated
