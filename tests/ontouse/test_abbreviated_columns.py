"""Column names cut short (ontouse.checks.tables.abbreviation_of): "arrival port" names arrport, "foundation year"
foundyear. The question then names that column, which the plan must read (`named_columns_read`), and its words
name no value of the data even where a value is spelt alike (a city called Foundation, a town called Harvest:
`named_values_used`). Made-up domains written inline: a ferry line's sailings, a realm's nations and cities, farms
and towns."""

from __future__ import annotations

import pytest

from ontouse_graphs import HEAD, NoModel, view
from ontouse.answerer import AnswerLoop
from ontouse.checks.tables import abbreviation_of

FERRY = HEAD + """
@prefix : <http://example.org/ferry#> .
:Sailing a owl:Class ; rdfs:label "sailing"@en .
:s1 a :Sailing ; :sailing_no 501 ; :deptport "Kelmouth" ; :arrport "Brill" .
:s2 a :Sailing ; :sailing_no 502 ; :deptport "Brill" ; :arrport "Oxhaven" .
"""

REALM = HEAD + """
@prefix : <http://example.org/realm#> .
:Nation a owl:Class ; rdfs:label "nation"@en .
:City a owl:Class ; rdfs:label "city"@en .
:lumeria a :Nation ; rdfs:label "Lumeria" ; :foundyear 1204 .
:ostra a :Nation ; rdfs:label "Ostra" ; :foundyear 988 .
:c1 a :City ; rdfs:label "Foundation" ; :inhabitants 5200 .
:c2 a :City ; rdfs:label "Greywater" ; :inhabitants 800 .
"""

FARMS = HEAD + """
@prefix : <http://example.org/farms#> .
:Field a owl:Class ; rdfs:label "field"@en .
:Town a owl:Class ; rdfs:label "town"@en .
:north a :Field ; rdfs:label "North field" ; :harvdate "2024-08-20"^^xsd:date ; :sowdate "2024-03-02"^^xsd:date .
:south a :Field ; rdfs:label "South field" ; :harvdate "2024-09-05"^^xsd:date ; :sowdate "2024-04-11"^^xsd:date .
:t1 a :Town ; rdfs:label "Harvest" .
:t2 a :Town ; rdfs:label "Millbrook" .
"""


def _loop(ttl: str) -> AnswerLoop:
    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


@pytest.fixture(scope="module")
def ferry() -> AnswerLoop:
    return _loop(FERRY)


def test_words_cut_short_spell_a_column() -> None:
    """Two or three words whose beginnings spell the name, one cut short at least; whole words are no
    abbreviation (they name the column as they are), nor are pieces of fewer than three letters."""
    words = "what is the arrival port of sailing 501".split()
    assert abbreviation_of("arrport", words) == (3, 5)
    assert abbreviation_of("deptport", words) is None
    assert abbreviation_of("foundyear", "when is the foundation year".split()) == (3, 5)
    assert abbreviation_of("sailingno", "the sailing no".split()) is None  # the words whole
    assert abbreviation_of("arport", "the arrival port".split()) is None  # "ar": two letters


def test_a_column_named_cut_short_must_be_read(ferry: AnswerLoop) -> None:
    """"The arrival port" answered with the departure port is withheld; with the arrival port it is stated."""
    ans = ferry.answer_sql("What is the arrival port of sailing 501?",
                           "SELECT deptport FROM Sailing WHERE sailing_no = 501")
    assert ans.state != "answered" and "named_columns_read" in str(ans.checks)
    ans = ferry.answer_sql("What is the arrival port of sailing 501?",
                           "SELECT arrport FROM Sailing WHERE sailing_no = 501")
    assert ans.state == "answered" and ans.values() == ["Brill"]


def test_the_words_of_a_column_name_no_value_spelt_alike() -> None:
    """A city called Foundation and a town called Harvest are not what "the foundation year" and "the harvest
    date" name: the plans that read those columns are stated."""
    ans = _loop(REALM).answer_sql("What is the foundation year of Lumeria?",
                                  "SELECT foundyear FROM Nation WHERE label = 'Lumeria'")
    assert ans.state == "answered" and ans.values() == ["1204"]
    ans = _loop(FARMS).answer_sql("What is the harvest date of the North field?",
                                  "SELECT harvdate FROM Field WHERE label = 'North field'")
    assert ans.state == "answered" and ans.values()[0].startswith("2024-08-20")
