"""Bilingual dictionaries (ontouse.language.bilingual) and what the translation is told from them (ontouse.language.glossary,
ontouse.reading): dictionaries in FreeDict's dictd format written here, with entries of a made-up garden-tool shop, and
the installed FreeDict dictionaries when the machine has them."""

from __future__ import annotations

import gzip
import json
import struct
import zlib
from pathlib import Path

import pytest
from rdflib import Graph

from ontouse.language import bilingual
from ontouse.language.bilingual import Dictionary, open_dictionary, translations_of
from ontouse.answerer import AnswerLoop
from ontouse.storage.store import GraphStore
from ontouse.language.glossary import Term, dictionary_glossary
from test_language import ScriptedModel, phrases

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

ENTRIES = [
    ("regador", "regador /ʁeɡɐˈdoɾ/ <n>\nwatering can <n>\n   Synonym: {regadeira}"),
    ("pá", "pá /pˈa/\n1. shovel, spade\n2. blade [tech.]"),
    ("Mar do Norte", "Mar do Norte\nNorth Sea"),
    ("ser", "ser /sˈeɾ/ <v>\n1. be\n2. being\n see: {foi}"),
    ("foi", "foi\nwas, went"),
    ("estado", "estado\nstate, status"),
    ("caro", "caro /ˈkaɾu/ <adj>\n1. expensive, costly\n2. dear"),
]

TOOLS = """@prefix : <http://example.org/garden#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Tool a owl:Class ; rdfs:label "tool"@en .
:WateringCan a owl:Class ; rdfs:subClassOf :Tool ; rdfs:label "watering can"@en .
:Shovel a owl:Class ; rdfs:subClassOf :Tool ; rdfs:label "shovel"@en .
:c1 a :WateringCan ; rdfs:label "Brass can" .
:c2 a :WateringCan ; rdfs:label "Green can" .
:s1 a :Shovel ; rdfs:label "Long shovel" .
"""


def _number(n: int) -> str:
    out = ""
    while True:
        out, n = _B64[n % 64] + out, n // 64
        if not n:
            return out


def write_dictionary(folder: Path, lang3: str, entries: list[tuple[str, str]], chunk: int = 0) -> None:
    """A dictd dictionary from `lang3` into English: the index, and the entries gzip-compressed whole, or (chunk > 0)
    as dictzip writes them: raw deflate chunks of `chunk` bytes, each flushed, listed in the header's RA field."""
    body, index = b"", []
    for head, text in entries:
        entry = (text + "\n").encode("utf-8")
        index.append(f"{head}\t{_number(len(body))}\t{_number(len(entry))}")
        body += entry
    name = f"freedict-{lang3}-eng"
    (folder / f"{name}.index").write_text("\n".join(sorted(index, key=str.casefold)) + "\n", "utf-8")
    if not chunk:
        (folder / f"{name}.dict.dz").write_bytes(gzip.compress(body))
        return
    sizes, data = [], b""
    for start in range(0, len(body), chunk):
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        part = z.compress(body[start:start + chunk]) + z.flush(zlib.Z_FULL_FLUSH)
        sizes.append(len(part))
        data += part
    ra = struct.pack("<HHH", 1, chunk, len(sizes)) + struct.pack(f"<{len(sizes)}H", *sizes)
    extra = b"RA" + struct.pack("<H", len(ra)) + ra
    header = b"\x1f\x8b\x08\x04" + b"\0\0\0\0" + b"\x02\x03" + struct.pack("<H", len(extra)) + extra
    (folder / f"{name}.dict.dz").write_bytes(header + data + zlib.compress(b"")[-4:] + struct.pack("<I", len(body)))


@pytest.fixture
def shop_dictionary(tmp_path, monkeypatch) -> Path:
    write_dictionary(tmp_path, "por", ENTRIES)
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    return tmp_path


def test_an_entry_gives_its_translations_without_notes_marks_or_numbers() -> None:
    assert translations_of(ENTRIES[0][1]) == ["watering can"]
    assert translations_of(ENTRIES[1][1]) == ["shovel", "spade", "blade"]
    assert translations_of(ENTRIES[3][1]) == ["be", "being"]


@pytest.mark.parametrize("chunk", [0, 16])
def test_a_dictionary_is_read_whole_or_by_its_chunks(tmp_path, chunk) -> None:
    write_dictionary(tmp_path, "por", ENTRIES, chunk=chunk)
    found = Dictionary("pt", tmp_path / "freedict-por-eng.index", tmp_path / "freedict-por-eng.dict.dz").lookup(
        ["Mar do Norte", "pá", "estado", "ancinho"])
    assert found == {"Mar do Norte": ["North Sea"], "pá": ["shovel", "spade", "blade"],
                     "estado": ["state", "status"], "ancinho": None}


def test_a_word_is_looked_up_in_its_dictionary_form_first(shop_dictionary) -> None:
    """A plural has no entry of its own; a word that is a form of another (a verb's past) reads as that word."""
    pytest.importorskip("simplemma")
    found = open_dictionary("pt").lookup(["regadores", "foi"])
    assert found["regadores"] == ["watering can"]
    assert found["foi"] == ["be", "being"]


def test_no_dictionary_installed_is_none(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    assert open_dictionary("pt") is None and open_dictionary("en") is None


def test_the_dictionary_tells_the_ontologys_word_a_question_word_translates_to(shop_dictionary) -> None:
    pytest.importorskip("simplemma")
    terms = [Term("c", "WateringCan", {"en": ["watering can"]}), Term("s", "Shovel", {"en": ["shovel"]}),
             Term("n", "", {"en": ["North Sea"]}), Term("t", "Status", {"en": ["statute"]})]
    dictionary = open_dictionary("pt")
    pairs = dictionary_glossary(dictionary, "Quantas pás e regadores há no Mar do Norte?", terms, "en", "en")
    assert pairs == [("pás", "shovel"), ("regadores", "watering can"), ("Mar do Norte", "North Sea")]
    # a translation only alike in spelling ("status" / "statute") names nothing; no dictionary, nothing told
    assert dictionary_glossary(dictionary, "Qual é o estado?", terms, "en", "en") == []
    assert dictionary_glossary(None, "Quantas pás há?", terms, "en", "en") == []


def test_the_translation_is_told_the_class_a_question_word_translates_to(shop_dictionary) -> None:
    store = GraphStore(Graph().parse(data=TOOLS, format="turtle"))
    model = ScriptedModel("How many watering cans are there?", "```sql\nSELECT COUNT(*) FROM WateringCan\n```",
                          *phrases("pt"))
    ans = AnswerLoop(store, model, second_plans=0).ask("Quantos regadores existem?")
    assert '"regadores": "watering can"' in model.sent[0]["messages"][0]["content"]
    assert ans.answer.startswith("2") and ans.translation["texts"]["en"] == "How many watering cans are there?"


@pytest.mark.skipif(open_dictionary("de") is None, reason="FreeDict's German-English dictionary is not installed")
def test_the_installed_dictionaries_read_in_their_own_format() -> None:
    found = open_dictionary("de").lookup(["Gießkannen", "gibt"])
    assert "watering can" in found["Gießkannen"]
    assert json.dumps(found)  # plain strings only


def test_a_translation_that_leaves_out_a_told_word_is_told_it_once() -> None:
    from ontouse.language.translation import translate_text

    model = ScriptedModel("Which cans are red?", "Which watering cans are red?")
    found = translate_text(model, "Quais regadores são vermelhos?", "pt", "en", told=[("regadores", "watering can")])
    assert found.texts == {"en": "Which watering cans are red?"}
    assert '"regadores": "watering can"' in model.sent[0]["messages"][0]["content"]
    assert '"regadores" is "watering can" in English' in model.sent[1]["messages"][-1]["content"]


def test_a_label_of_several_words_is_found_by_what_its_words_mean(tmp_path, monkeypatch) -> None:
    """A class labelled "pelle de jardin"@fr is said by a Portuguese "pás de jardim": each of the label's words
    (not "de", a function word) has a translation that a word of the question has too, near each other."""
    from ontouse.language.glossary import label_glosses

    pytest.importorskip("simplemma")
    write_dictionary(tmp_path, "por", ENTRIES + [("jardim", "jardim\ngarden"), ("de", "de\nof, from")])
    write_dictionary(tmp_path, "fra", [("pelle", "pelle\nshovel, spade"), ("de", "de\nof, from"),
                                       ("jardin", "jardin\ngarden, yard"), ("mer", "mer\nsea")])
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    terms = [Term("g", "GardenShovel", {"fr": ["pelle de jardin"], "en": ["garden shovel"]}),
             Term("s", "Shovel", {"fr": ["pelle"], "en": ["shovel"]}),
             Term("n", "", {"en": ["North Sea"]})]
    assert label_glosses(open_dictionary, "Quantas pás de jardim há?", "pt", terms, "en", "en") == [
        ("pás de jardim", "garden shovel")]
    # words far apart, or only some of the label's words, say no such label
    assert label_glosses(open_dictionary, "Há pás no jardim?", "pt", terms[:1], "en", "en") == [
        ("pás no jardim", "garden shovel")]
    assert label_glosses(open_dictionary, "Quantas pás há no Mar do Norte?", "pt", terms, "en", "en") == []
    assert label_glosses(open_dictionary, "Há pás e regadores e mais regadores no jardim?", "pt", terms, "en",
                         "en") == []


def test_a_dictionary_contradicts_a_word_none_of_whose_translations_say_it(shop_dictionary) -> None:
    """A weak hint of the multilingual model that a value is named is set aside only when the dictionary knows
    every word of it and none of their translations shares a word with the value (ontouse.reading.QuestionReading._doubtful)."""
    from ontouse.language.glossary import contradicted

    dictionary = open_dictionary("pt")
    assert contradicted(dictionary, "caro", "fragile")
    assert not contradicted(dictionary, "caro", "costly repair")  # a translation's word, in the value
    assert not contradicted(dictionary, "ancinho", "fragile")  # a word it does not know
    assert not contradicted(None, "caro", "fragile")


def test_the_dictionaries_tell_words_in_a_second_domain(tmp_path, monkeypatch) -> None:
    """The same two readings over a bakery: a Dutch question, a class labelled in Spanish and English."""
    from ontouse.language.glossary import label_glosses

    pytest.importorskip("simplemma")
    write_dictionary(tmp_path, "nld", [("brood", "brood\n1. bread\n2. loaf"), ("rogge", "rogge\nrye"),
                                       ("van", "van\nof, from"), ("bakker", "bakker\nbaker")])
    write_dictionary(tmp_path, "spa", [("pan", "pan\nbread"), ("de", "de\nof, from"), ("centeno", "centeno\nrye")])
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    terms = [Term("r", "RyeBread", {"es": ["pan de centeno"], "en": ["rye bread"]}),
             Term("b", "Baker", {"es": ["panadero"], "en": ["baker"]})]
    question = "Welke bakker verkoopt broden van rogge?"
    assert label_glosses(open_dictionary, question, "nl", terms, "en", "en") == [("broden van rogge", "rye bread")]
    assert dictionary_glossary(open_dictionary("nl"), question, terms, "en", "en") == [("bakker", "baker")]


def test_a_damaged_dictionary_is_left_unused_with_a_warning(tmp_path, monkeypatch, caplog) -> None:
    write_dictionary(tmp_path, "por", ENTRIES, chunk=16)
    data = tmp_path / "freedict-por-eng.dict.dz"
    data.write_bytes(data.read_bytes()[:40] + b"\0" * 200)  # the chunks overwritten
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    assert open_dictionary("pt").lookup(["regador"]) == {"regador": None}
    assert "could not be read" in caplog.text


def test_a_translation_that_leaves_out_a_told_word_twice_is_used_only_when_it_keeps_part_of_it() -> None:
    from ontouse.language.translation import translate_text

    told = [("pás de jardim", "garden shovel")]
    model = ScriptedModel("Which shovels are red?", "Which shovels are red?")
    found = translate_text(model, "Quais pás de jardim são vermelhas?", "pt", "en", told=told)
    assert found.texts == {"en": "Which shovels are red?"}
    model = ScriptedModel("Which tools are red?", "Which tools are red?")
    found = translate_text(model, "Quais pás de jardim são vermelhas?", "pt", "en", told=told)
    assert found.texts == {} and '"garden shovel"' in found.rejected


BOATS = """@prefix : <http://example.org/boats#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:Boat a owl:Class ; rdfs:label "barco"@pt, "boat"@en .
:Sailboat a owl:Class ; rdfs:subClassOf :Boat ; rdfs:label "veleiro"@pt, "sailboat"@en .
:Kayak a owl:Class ; rdfs:subClassOf :Boat ; rdfs:label "caiaque"@pt, "kayak"@en .
:s1 a :Sailboat ; rdfs:label "Vento Leste" .
:s2 a :Sailboat ; rdfs:label "Maré Alta" .
:k1 a :Kayak ; rdfs:label "Flecha" .
"""


def test_a_word_no_dictionary_has_is_linked_to_the_class_it_spells(tmp_path, monkeypatch) -> None:
    """A word the dictionary lacks that spells a class's label in another language ("veleros": "veleiro", labelled
    "sailboat" in English) is named with that class's word; a known word, a name written with a capital, a word
    spelled alike two classes, and a word the question says as it is, are not."""
    from ontouse.language.glossary import spelling_glossary

    write_dictionary(tmp_path, "spa", [("barco", "barco\nboat"), ("lago", "lago\nlake"), ("hay", "hay\nthere is")])
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    dictionary = open_dictionary("es")
    terms = [Term("b", "Boat", {"pt": ["barco"], "en": ["boat"]}),
             Term("s", "Sailboat", {"pt": ["veleiro"], "en": ["sailboat"]}),
             Term("k", "Kayak", {"pt": ["caiaque"], "en": ["kayak"]})]
    assert spelling_glossary(dictionary, "¿Cuántos veleros hay en el lago?", terms, "en", "en") == [
        ("veleros", "sailboat")]
    assert spelling_glossary(dictionary, "¿Cuántos barcos hay?", terms, "en", "en") == []  # the dictionary's word
    assert spelling_glossary(dictionary, "¿Dónde está Veleros?", terms, "en", "en") == []  # a name
    assert spelling_glossary(dictionary, "¿Cuántos kayaks hay?", terms, "en", "en") == []  # said as it is
    twins = terms + [Term("t", "TallShip", {"it": ["veliero"], "en": ["tall ship"]})]
    assert spelling_glossary(dictionary, "¿Cuántos veleros hay?", twins, "en", "en") == []  # two classes alike
    assert spelling_glossary(None, "¿Cuántos veleros hay?", terms, "en", "en") == []  # no dictionary


def test_a_run_of_words_is_linked_to_the_label_of_as_many_words_it_spells(tmp_path, monkeypatch) -> None:
    """A second domain, a clinic: "vacinas antigripais" (the dictionary knows "vacina", not "antigripais") spells
    the Spanish label "vacuna antigripal" of the flu vaccine; the known word alone names nothing by spelling, and a
    run whose unknown word spells no word of the label ("vacinas gripadas") is not linked by the run's likeness."""
    from ontouse.language.glossary import spelling_glossary

    write_dictionary(tmp_path, "por", [("vacina", "vacina\nvaccine"), ("clínica", "clínica\nclinic")])
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    dictionary = open_dictionary("pt")
    terms = [Term("v", "Vaccine", {"es": ["vacuna"], "en": ["vaccine"]}),
             Term("f", "FluVaccine", {"es": ["vacuna antigripal"], "en": ["flu vaccine"]}),
             Term("c", "Clinic", {"es": ["clínica"], "en": ["clinic"]})]
    assert spelling_glossary(dictionary, "Quantas vacinas antigripais tem a clínica?", terms, "en", "en") == [
        ("vacinas antigripais", "flu vaccine")]
    assert spelling_glossary(dictionary, "Quantas vacinas tem a clínica?", terms, "en", "en") == []
    assert spelling_glossary(dictionary, "Quantas vacinas gripadas tem a clínica?", terms, "en", "en") == []


def test_the_translation_is_told_the_class_a_word_spells(tmp_path, monkeypatch) -> None:
    write_dictionary(tmp_path, "spa", [("barco", "barco\nboat"), ("hay", "hay\nthere is")])
    monkeypatch.setenv(bilingual.ENV, str(tmp_path))
    store = GraphStore(Graph().parse(data=BOATS, format="turtle"))
    model = ScriptedModel("How many sailboats are there?", "```sql\nSELECT COUNT(*) FROM Sailboat\n```",
                          *phrases("es"))
    answerer = AnswerLoop(store, model, second_plans=0)
    answerer._linker = None  # the spelling alone, without the multilingual model's hints
    ans = answerer.ask("¿Cuántos veleros hay?")
    assert '"veleros": "sailboat"' in model.sent[0]["messages"][0]["content"]
    assert ans.answer.startswith("2")
