"""The answer text in the question's language (ontouse.phrases, results.answer_text): the fixed phrases translated
once per language by the embedded model (its real replies replayed from tests/cassettes/answer_phrases.json; record
again with ONTOBUILD_RECORD=1), kept on disk, checked phrase by phrase with English as the fallback; the values of
the data put in by code, with a thing's label in the question's language; the machine fields the same in every
language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cassette_model
from ontouse_graphs import NoModel
from ontouse import phrases as phrases_mod
from ontouse.answerer import AnswerLoop
from ontouse.phrases import ENGLISH, PHRASES, PhraseBook, Phrases, cache_key, phrase_problem
from ontouse.storage.store import GraphStore

CASSETTE = Path(__file__).resolve().parents[1] / "cassettes" / "answer_phrases.json"
LANGUAGES = ("de", "fr", "es", "it", "nl", "pt")  # the order the cassette was recorded in

# a made-up kennel, labelled in English and (partly) in German
KENNEL = """@prefix k: <http://example.org/kennel#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
k:Dog a owl:Class ; rdfs:label "dog"@en, "Hund"@de .
k:Run a owl:Class ; rdfs:label "run"@en, "Auslauf"@de .
k:inRun a owl:ObjectProperty ; rdfs:domain k:Dog ; rdfs:range k:Run ; rdfs:label "in run"@en .
k:weightKg a owl:DatatypeProperty ; rdfs:domain k:Dog ; rdfs:range xsd:decimal ; rdfs:label "weight kg"@en .
k:north a k:Run ; rdfs:label "North Run"@en, "Nordauslauf"@de .
k:south a k:Run ; rdfs:label "South Run"@en .
k:d1 a k:Dog ; rdfs:label "Biscuit"@en ; k:inRun k:north ; k:weightKg 12.5 .
k:d2 a k:Dog ; rdfs:label "Pepper"@en ; k:inRun k:south ; k:weightKg 8.25 .
k:d3 a k:Dog ; rdfs:label "Tango"@en ; k:inRun k:north ; k:weightKg 20.0 .
"""


@pytest.fixture(scope="module")
def book() -> PhraseBook:
    """The phrases of every language, from the model's recorded replies (in memory only, not kept on disk)."""
    found = PhraseBook(cassette_model(CASSETTE), catalog=False)
    for lang in LANGUAGES:
        found.get(lang)
    return found


@pytest.fixture(scope="module")
def kennel(tmp_path_factory) -> GraphStore:
    path = tmp_path_factory.mktemp("kennel") / "kennel.ttl"
    path.write_text(KENNEL, encoding="utf-8")
    return GraphStore.from_paths([path])


def test_every_language_gets_its_own_yes_and_no_from_the_model(book) -> None:
    for lang in LANGUAGES:
        words = book.get(lang)
        assert words.lang == lang and words.source == "model", lang
        for key, text in words.texts.items():  # a phrase shown is a checked translation or the English one
            assert key in words.english or not phrase_problem(key, text, lang), (lang, key, text)
            assert key not in words.english or text == PHRASES[key], (lang, key)
        assert words.get("yes").casefold() != words.get("no").casefold()
        assert "{n}" not in words.get("more", n=3) and "3" in words.get("more", n=3)
    # what the embedded model made of it: five languages translated; Dutch written back in English twice (asked
    # again once), so all English; a "no" written "No" is left in English (Spanish and Italian rightly, Portuguese not)
    translated = {lang for lang in LANGUAGES if book.get(lang).get("no_data") != PHRASES["no_data"]}
    assert translated == {"de", "fr", "es", "it", "pt"}
    assert set(book.get("nl").english) == set(PHRASES) and book.get("nl").get("yes") == "Yes"
    assert all(book.get(lang).get("yes") not in ("Yes", "") for lang in translated)
    assert book.get("de").get("yes") == book.get("de").get("yes")[:1].upper() + book.get("de").get("yes")[1:]
    assert book.get("en") is ENGLISH and book.get("") is ENGLISH and book.get("xx") is ENGLISH


def test_a_bad_phrase_stays_english() -> None:
    assert phrase_problem("more", "und weitere", "de")  # the number's place lost
    assert phrase_problem("yes", "", "de") and phrase_problem("yes", "Ja\nNein", "de")
    assert phrase_problem("no", "x" * 80, "de")
    assert phrase_problem("no_data", "Aucune donnée disponible pour le moment", "de")  # another language
    assert not phrase_problem("more", "und {n} weitere", "de")


def test_kept_on_disk_and_read_back(book, tmp_path, monkeypatch) -> None:
    """The phrases are kept under a key of the model and the phrase set, written atomically, and read back
    without a model call; a damaged entry is removed and translated again."""
    monkeypatch.setenv("ONTOBUILD_PHRASE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ONTOBUILD_PHRASE_CACHE", "1")

    class NoCalls:
        backend, model = "local", "recorded"

        def chat(self, *a, **k):  # pragma: no cover - must not be reached
            raise AssertionError("the kept phrases must be read without a model call")

    german = book.get("de")
    key = cache_key(NoCalls(), "de")
    phrases_mod.save(key, german)
    assert [p.name for p in tmp_path.iterdir()] == [f"{key}.json"]
    kept = PhraseBook(NoCalls(), catalog=False).get("de")
    assert kept.source == "kept" and kept.texts == german.texts and kept.english == german.english
    assert cache_key(NoCalls(), "fr") != key
    (tmp_path / f"{key}.json").write_text("{", encoding="utf-8")
    assert phrases_mod.load(key, "de") is None and not (tmp_path / f"{key}.json").exists()


def test_answers_in_the_questions_language_with_the_datas_own_values(book, kennel) -> None:
    answerer = AnswerLoop(kennel, model=None)  # type: ignore[arg-type]  # no model call: plans are given
    answerer.phrases = book
    german = book.get("de")
    yes = answerer.answer_sql("Gibt es Hunde im Nordauslauf?",
                              "SELECT COUNT(*) FROM Dog d JOIN Run r ON d.inRun = r.iri WHERE r.label = 'North Run'",
                              lang="de", english="Are there dogs in the North Run?")
    assert yes.answer == f"{german.get('yes')}." and yes.boolean is True and yes.state == "answered"
    runs = answerer.answer_sql("Welche Ausläufe gibt es?", "SELECT label FROM Run", lang="de")
    assert sorted(c.text() for r in runs.rows for c in r) == ["Nordauslauf", "South Run"]  # German label if any
    assert "Nordauslauf" in runs.answer and "South Run" in runs.answer
    heavy = answerer.answer_sql("Wie schwer ist Pepper?", "SELECT weightKg FROM Dog WHERE label = 'Pepper'",
                                lang="de")
    assert heavy.answer == "8.25."  # a value as the data holds it
    none = answerer.answer_sql("Wie viele Hunde wiegen über 100 kg?",
                               "SELECT COUNT(*) FROM Dog WHERE weightKg > 100", lang="de",
                               english="How many dogs weigh more than 100 kg?")
    assert none.state == "no_data" and none.answer.startswith(german.get("no_data"))
    english = answerer.answer_sql("Are there dogs in the North Run?",
                                  "SELECT COUNT(*) FROM Dog d JOIN Run r ON d.inRun = r.iri "
                                  "WHERE r.label = 'North Run'")
    assert english.answer == "Yes." and english.boolean is True  # the same machine fields in every language
    assert {k: v for k, v in yes.to_dict().items() if k in ("boolean", "state")} == {
        k: v for k, v in english.to_dict().items() if k in ("boolean", "state")}


def test_the_rest_of_a_long_list_and_unnamed_columns_are_told_in_the_language() -> None:
    from ontouse.answer import Cell
    from ontouse.question import parse_question
    from ontouse.results import MAX_ROWS_SHOWN, answer_text, no_data_text, unsure_text

    words = Phrases("de", {**PHRASES, "doubt": "das Ergebnis passt vielleicht nicht", "more": "und {n} weitere", "column": "Spalte {n}", "unsure": "Unsicher",
                           "best_candidate": "bester Kandidat", "no_data": "Keine Daten verfügbar"})
    rows = [[Cell(value=f"v{i}")] for i in range(MAX_ROWS_SHOWN)]
    q = parse_question("Welche?")
    assert answer_text(q, ["x"], rows, None, MAX_ROWS_SHOWN + 4, words).endswith("(und 4 weitere).")
    assert answer_text(q, ["", "y"], [[Cell("a"), Cell("b")]], None, 1, words) == "Spalte 1: a; y: b"
    assert unsure_text("grund.", "7.", words) == "Unsicher: grund; bester Kandidat: 7."
    assert no_data_text("", words) == "Keine Daten verfügbar"
    assert answer_text(q, ["x"], rows, None, MAX_ROWS_SHOWN + 4).endswith("(and 4 more).")  # English as before
    assert unsure_text("a reason.", "7.") == "Unsure: a reason; best candidate: 7."
    # a reason: its gist in another language, its own precise words in English
    assert words.reason("doubt", "the question asks how many") == "das Ergebnis passt vielleicht nicht"
    assert ENGLISH.reason("doubt", "the question asks how many") == "the question asks how many"
    assert json.dumps(words.to_dict())


@pytest.mark.live
def test_live_a_german_conversation_stays_german(kennel, tmp_path, monkeypatch) -> None:
    """The embedded model: a German question and a German follow-up; the follow-up is rewritten in German and the
    answer's phrases are the written German ones, with the same machine fields as any answer."""
    from conftest import local_model_or_skip
    from ontouse.language.detection import detect
    from ontouse.chat import Conversation

    monkeypatch.setenv("ONTOBUILD_PHRASE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ONTOBUILD_PHRASE_CACHE", "1")
    answerer = AnswerLoop(kennel, local_model_or_skip(n_ctx=8192))
    chat = Conversation(answerer)
    first = chat.ask("Wie viel wiegt der Hund Pepper?").answer
    assert first.language == "de" and first.text_language in ("de", "en")
    assert first.state in ("answered", "unsure", "no_data", "error")
    second = chat.ask("Und in welchem Auslauf lebt er?")
    assert second.asked == second.question or detect(second.asked, answerer.schema.languages).lang == "de"
    assert second.answer.language == "de"
    assert answerer.phrases.get("de").source == "catalog"  # the written German phrases, no model call for them


def test_the_written_phrases_need_no_model_call() -> None:
    """Every supported language but English has its phrases written (CATALOG): each phrase of the English set,
    with the same `{n}` places, on one line, and "yes" and "no" apart; the book gives them without a model call."""
    from ontouse.language.detection import SUPPORTED

    book = PhraseBook(NoModel())
    for lang in SUPPORTED[1:]:
        words = book.get(lang)
        english = {**PHRASES, **phrases_mod.CATALOG_ONLY}
        assert words.source == "catalog" and set(phrases_mod.CATALOG[lang]) == set(english), lang
        for key, text in phrases_mod.CATALOG[lang].items():
            assert sorted(phrases_mod._PLACEHOLDER.findall(text)) == sorted(phrases_mod._PLACEHOLDER.findall(
                english[key])) and "\n" not in text and text.strip() == text, (lang, key)
        assert words.get("yes") != words.get("no") and "3" in words.get("more", n=3)
