"""Value mentions in a question (ontouse.linking): a run of words that is a whole value (case, accents and
regular plurals ignored), a rarer run inside a few values (partial), where the value is, and `closest`."""

from __future__ import annotations

from functools import lru_cache

from rdflib import URIRef

from ontouse.linking import Mention, ValueIndex
from ontouse.question import parse_question
from ontouse.sqlplan.schema_build import build_schema
from ontouse_graphs import CATALOG, GROVE, HEAD, PARKS, store_of, view

PARTS = HEAD + """@prefix : <http://example.org/parts#> .
:a a :Part ; :title "Valve X-100 red" ; :note "spare" . :b a :Part ; :title "Valve X-100 blue" .
:c a :Part ; :title "Hose Q7" ; :note "the" . :d a :Part ; :title "Gasket" ; :code "12345" .
:e a :Part ; :title "Pump Ärö" . :f a :Part ; :title "Filter FX2000 " ."""


@lru_cache(maxsize=None)
def index(ttl: str) -> ValueIndex:
    if ttl == PARTS:
        store = store_of(ttl)
        return ValueIndex.build(build_schema(store), store)
    store, schema = view(ttl)
    return ValueIndex.build(schema, store)


def mentions(ttl: str, text: str) -> list[tuple[str, str, str, bool]]:
    return [(m.value, m.table, m.column, m.exact) for m in index(ttl).mentions(parse_question(text))]


# ---- exact mentions ----------------------------------------------------------------------------------------
def test_exact_mention() -> None:
    assert mentions(PARKS, "Who works in Pinewood?") == [("Pinewood", "Hut", "label", True)]
    assert mentions(GROVE, "Which growers live at Reedmoor?") == [("Reedmoor", "Grower", "home_farm", True)]


def test_case_and_plural() -> None:
    assert mentions(GROVE, "How many FIGS grow at fernhill?") == [("fig", "Tree", "fruit", True),
                                                                  ("Fernhill", "Grower", "home_farm", True)]
    assert mentions(CATALOG, "Which products are desk lamp?") == [("Desk lamps", "Category", "label", True)]


def test_accents_are_ignored() -> None:
    assert mentions(PARTS, "Is the pump aro in stock?") == [("Pump Ärö", "Part", "title", True)]


def test_one_mention_per_table_most_specific_table_first() -> None:
    """A thing's name and its label give one hint, by the most specific table (Warden: the Ranger table includes
    its rows, so it is not named again)."""
    found = mentions(PARKS, "Which rangers report to mira stone?")
    assert found == [("Mira Stone", "Warden", "fullName", True)]


def test_the_name_of_a_thing_says_which_links_point_at_it() -> None:
    for ttl, question, table, link in ((PARKS, "Who works in Reeds?", "Hut", "Ranger.postedAt"),
                                       (CATALOG, "Which products are desk lamps?", "Category", "Product.inCategory")):
        hint = next(m.hint() for m in index(ttl).mentions(parse_question(question)) if m.table == table)
        assert link in hint and f"points to {table} rows" in hint


def test_longest_mention_wins() -> None:
    """Bug fixed: a two-word value inside a longer mention ('Desk lamps' in 'Lumo desk lamp') was kept."""
    assert mentions(CATALOG, "Where is the Lumo desk lamp sold?") == [("Lumo desk lamp", "Lamp", "label", True)]
    assert mentions(GROVE, "Which apples and figs are older than 5?") == [("apple", "Tree", "fruit", True),
                                                                          ("fig", "Tree", "fruit", True)]


def test_stop_words_and_numbers_are_no_mentions() -> None:
    assert mentions(PARTS, "Which part is the one with code 12345?") == []  # "the" is a value, a stop word
    assert mentions(GROVE, "Which trees are older than 3?") == []


def test_hint_text() -> None:
    exact = Mention("figs", "fig", "Tree", "fruit", True)
    assert exact.hint() == "'fig' is a value of Tree.fruit"
    partial = Mention("x 100", "Valve X-100 red", "Part", "title", False, 2)
    assert partial.hint() == "'x 100' occurs inside 2 value(s) of Part.title, e.g. 'Valve X-100 red'"


# ---- partial mentions --------------------------------------------------------------------------------------
def test_partial_mention_inside_few_values() -> None:
    found = index(PARTS).mentions(parse_question("What do the X-100 valves cost?"))
    assert [(m.text, m.value, m.table, m.column, m.exact, m.count) for m in found] == [
        ("x 100", "Valve X-100 red", "Part", "title", False, 2)]
    found = index(CATALOG).mentions(parse_question("What does the R-220 cost?"))
    assert [(m.value, m.table, m.exact, m.count) for m in found] == [("Iron rake R-220", "Product", False, 1)]


def test_single_words_are_partial_only_with_digits() -> None:
    assert mentions(PARTS, "Do you sell the FX2000?") == [("Filter FX2000 ", "Part", "title", False)]
    assert mentions(PARTS, "Is there a Q7?") == []  # 'q7' is shorter than 4 characters
    assert mentions(CATALOG, "What does the rake cost?") == []  # one plain word inside a value: too vague


# ---- where the value is, and closest -----------------------------------------------------------------------
def test_tables_with() -> None:
    idx = index(CATALOG)
    tables = idx.tables_with(URIRef("http://www.w3.org/2000/01/rdf-schema#label"), "Lumo desk lamp")
    assert [t.name for t in tables] == ["Lamp", "Product"]
    idx = index(GROVE)
    assert [t.name for t in idx.tables_with(URIRef("http://example.org/grove#home_farm"), "Fernhill")] == ["Grower"]


def test_closest() -> None:
    idx = index(GROVE)
    fruit = URIRef("http://example.org/grove#fruit")
    assert idx.closest(fruit, "fig") == ["fig"]
    assert idx.closest(fruit, "Quinces") == ["quince"]
    assert idx.closest(fruit, "walnut") == []
    title = URIRef("http://example.org/parts#title")
    assert index(PARTS).closest(title, "gasket") == ["Gasket"]
    assert index(PARTS).closest(title, "hose") == ["Hose Q7"]  # the only value with the word
    assert sorted(index(PARTS).closest(title, "valve")) == []  # two values have it: no single reading


def test_index_skips_numbers_and_non_text_columns() -> None:
    idx = index(PARTS)
    assert "12345" not in {v for _, v, _ in idx.entries}
    assert not any(p == URIRef("http://example.org/grove#tree_age") for _, _, p in index(GROVE).entries)


def test_a_misspelt_value_is_linked_to_the_one_value_it_nearly_spells() -> None:
    assert mentions(GROVE, "How old is the oldest qunce?") == [("quince", "Tree", "fruit", True)]
    assert mentions(PARKS, "Who works in Pinewod?") == [("Pinewood", "Hut", "label", True)]
    assert index(GROVE).closest(URIRef("http://example.org/grove#fruit"), "qunce") == ["quince"]
    assert mentions(GROVE, "How old is the oldest pirate?") == []  # not close enough to anything


SITES = HEAD + """@prefix : <http://example.org/sites#> .
:Site a owl:Class . :Kiosk a owl:Class . :Machine a owl:Class .
:locatedAt a owl:ObjectProperty ; rdfs:domain :Kiosk ; rdfs:range :Site .
:site a owl:ObjectProperty ; rdfs:domain :Machine ; rdfs:range :Site .
:s9 a :Site ; rdfs:label "Quarry Nine" . :s4 a :Site ; rdfs:label "Quarry Four" .
:k1 a :Kiosk ; rdfs:label "kiosk one" ; :locatedAt :s9 .
:m1 a :Machine ; rdfs:label "crusher" ; :site :s9 . :m2 a :Machine ; rdfs:label "sieve" ; :site :s4 ."""


def test_the_link_hint_comes_from_the_table_the_question_names() -> None:
    hint = next(m.hint() for m in index(SITES).mentions(parse_question("How many machines are installed at Quarry "
                                                                       "Nine?")) if m.table == "Site")
    assert "Machine.site" in hint


FLEET = HEAD + """@prefix : <http://example.org/fleet#> .
:Vehicle a owl:Class . :Truck a owl:Class ; rdfs:subClassOf :Vehicle . :Depot a owl:Class . :Driver a owl:Class .
:parks a owl:ObjectProperty ; rdfs:domain :Depot ; rdfs:range :Vehicle .
:fuel a owl:ObjectProperty . :approvedBy a owl:ObjectProperty . :loggedBy a owl:ObjectProperty .
:v1 a :Vehicle ; rdfs:label "Blue Van" ; :fuel :diesel . :v2 a :Vehicle ; rdfs:label "Red Hauler" .
:t1 a :Vehicle, :Truck ; rdfs:label "Grey Hauler" ; :fuel :diesel ; :approvedBy :d1 ; :loggedBy :d2 .
:t2 a :Truck ; rdfs:label "Red Hauler" ; :fuel :biogas ; :loggedBy :d1 .
:diesel rdfs:label "diesel" . :biogas rdfs:label "biogas" .
:d1 a :Driver ; rdfs:label "Ola Berg" . :d2 a :Driver ; rdfs:label "Ines Roy" .
:north a :Depot ; rdfs:label "North Yard" ; :parks :v1, :t1, :t2 ."""


def test_a_thing_is_named_once_by_its_most_specific_table() -> None:
    """'Grey Hauler' is a Truck: the Vehicle table includes the Truck rows, so one hint names it, by Truck; 'Red
    Hauler' names a truck and a vehicle that is no truck, so both tables are named."""
    assert mentions(FLEET, "Which depot parks Grey Hauler?") == [("Grey Hauler", "Truck", "label", True)]
    assert sorted(mentions(FLEET, "Which depot parks Red Hauler?")) == [("Red Hauler", "Truck", "label", True),
                                                                       ("Red Hauler", "Vehicle", "label", True)]


def test_a_named_thing_of_no_class_is_a_value_of_the_links_that_hold_it() -> None:
    """'biogas' is a thing with a name and no class, the fuel of a truck: the hint names the link column."""
    found = index(FLEET).mentions(parse_question("Which trucks run on biogas?"))
    assert [(m.value, m.table, m.column, m.exact) for m in found] == [("biogas", "Truck", "fuel", True)]
    assert found[0].hint() == "'biogas' is a value of Truck.fuel"


def test_the_link_hint_prefers_a_link_named_by_a_word_of_the_question() -> None:
    """Two links of Truck point at Driver; 'approved' shares its root with approvedBy."""
    hint = next(m.hint() for m in index(FLEET).mentions(parse_question("Which trucks were approved by Ola Berg?")))
    assert "Truck.approvedBy" in hint or "Vehicle.approvedBy" in hint
