"""Questions in other languages, without a model: the language of a question (ontouse.language.detection), the label chosen
by language (the view, display names), the translation step's guard and fallback (ontouse.language.translation) with a
scripted model for the loop mechanics only, and the multilingual question set's gold answers checked against the
data with hand-written plans (AnswerLoop.answer_sql, no model call)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from ontouse.language.crosslingual import CrossLingual, spans
from ontouse.language.crosslingual import available as crosslingual_available
from ontouse.language.detection import Detection, LabelLanguages, detect, pick_label, preference
from ontocore.llm import ChatReply, ToolCall, Usage
from ontocore.text import quoted
from ontouse.answerer import AnswerLoop
from ontouse.scoring import is_correct
from ontouse.sqlplan.schema import english_covered
from ontouse.sqlplan.schema_build import build_schema
from ontouse.storage.store import GraphStore
from ontouse.language.glossary import (glossary, label_glossary, missing_words, ontology_terms, same_word,
                                       swapped_words, vocabulary)
from ontouse.language.translation import Translation, guard_problem, model_reading_counts, restore_quoted, translate
from ontouse.view_prompt import schema_ddl

DATA = Path(__file__).resolve().parents[2] / "data"
QUESTIONS = DATA / "multilingual_questions.json"


class ScriptedModel:
    """Replies with the given replies in order (a ChatReply, or text); records what it was sent."""

    backend, model = "scripted", "fake"

    def __init__(self, *replies) -> None:
        self.replies = list(replies)
        self.usage = Usage(backend=self.backend, model=self.model)
        self.sent: list[dict] = []

    def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024, temperature=0.0) -> ChatReply:
        self.sent.append({"messages": [dict(m) for m in messages], "tools": tools})
        reply = self.replies.pop(0)
        reply = reply if isinstance(reply, ChatReply) else ChatReply(content=reply, tool_calls=[])
        self.usage.add(reply)
        return reply


PHRASES_CASSETTE = Path(__file__).resolve().parents[2] / "cassettes" / "answer_phrases.json"


def phrases(lang: str) -> list[ChatReply]:
    """The embedded model's recorded replies to the call that translates the answer's phrases into `lang` (once per
    language: tests/ontouse/test_phrases.py replays the same cassette); none for a language whose phrases are written
    (ontouse.phrases.CATALOG): no such call is made."""
    from ontouse.language.detection import NAMES
    from ontouse.phrases import CATALOG

    if lang in CATALOG:
        return []

    found: dict[str, list[ChatReply]] = {}
    current = ""
    for entry in json.loads(PHRASES_CASSETTE.read_text("utf-8"))["exchanges"]:
        opening = entry["last_message"]["content"]
        if not opening.startswith("Error:"):
            current = next(code for code, name in NAMES.items() if f"into {name}." in opening)
        found.setdefault(current, []).append(ChatReply.from_dict(entry["reply"]))
    return found[lang]


def translated(**arguments) -> ChatReply:
    return ChatReply(content=None, tool_calls=[ToolCall("c1", "translated", json.dumps(arguments))])


def sql(text: str) -> str:
    return f"```sql\n{text}\n```"


@pytest.fixture(scope="module")
def aquarium() -> GraphStore:
    return GraphStore.from_paths([DATA / "owl_aquarium.ttl"])


@pytest.fixture(scope="module")
def lighthouses() -> GraphStore:
    return GraphStore.from_paths([DATA / "owl_lighthouses.ttl"])


@pytest.fixture(scope="module")
def huts() -> GraphStore:
    return GraphStore.from_paths([DATA / "owl_huts.ttl"])


@pytest.fixture(scope="module")
def lighthouses_fr() -> GraphStore:
    """The lighthouses with their classes and properties named in French only (their named values keep their
    English labels): an English question goes on into French, the ontology's label language."""
    from rdflib import OWL, RDF, RDFS, Graph

    graph = Graph().parse(DATA / "owl_lighthouses.ttl")
    terms = set(graph.subjects(RDF.type, OWL.Class)) | set(graph.subjects(RDF.type, OWL.ObjectProperty)) | set(
        graph.subjects(RDF.type, OWL.DatatypeProperty))
    for s, _, o in list(graph.triples((None, RDFS.label, None))):
        if s in terms and getattr(o, "language", None) == "en":
            graph.remove((s, RDFS.label, o))
    return GraphStore(graph)


# ---- detection -------------------------------------------------------------------------------------------------
def test_label_languages_and_main_language(aquarium, lighthouses) -> None:
    aq, lh = build_schema(aquarium).languages, build_schema(lighthouses).languages
    assert aq.has("de") and aq.has("en") and aq.main == "en"  # as many German labels as English: English
    assert lh.main == "fr" and not lh.has("de")
    assert LabelLanguages().main == "en" and not LabelLanguages().tagged  # an untagged ontology reads as English


@pytest.mark.parametrize("text", ["How many sharks are there?", "Is Mira Stone a warden?", "Count otters.",
                                  "Which exhibit houses Otto?"])
def test_english_questions_stay_english(text, aquarium) -> None:
    assert detect(text, build_schema(aquarium).languages).lang == "en"
    assert detect(text).lang == "en"  # also without any label languages


def test_words_of_one_label_language_name_it(aquarium, lighthouses) -> None:
    aq, lh = build_schema(aquarium).languages, build_schema(lighthouses).languages
    assert detect("Welche Becken haben Schilder auf Spanisch?", aq).lang == "de"
    assert detect("Combien de phares sont automatisés ?", lh).lang == "fr"
    # a quoted name is a value, not the question's language: the English name inside a German question
    assert detect('Wie viele Tiere leben im Becken "Open Ocean"?', aq).lang == "de"


def test_a_question_without_english_words_is_not_english(monkeypatch) -> None:
    import ontouse.language.detection as language

    assert detect("Quanti squali ci sono?").lang == "it"  # the installed identifier knows
    monkeypatch.setattr(language, "identify", lambda text: None)  # without one: not English, language unknown
    found = detect("Quanti squali ci sono?")
    assert found.lang == "" and found.source == "no_english_words"  # unknown: the translation call says which


def test_the_identifier_is_asked_only_for_questions_of_some_words(monkeypatch) -> None:
    import ontouse.language.detection as language

    asked = []
    monkeypatch.setattr(language, "identify", lambda text: asked.append(text) or ("nl", 0.99))
    assert detect("Hoeveel vuurtorens zijn er?").lang == "nl" and asked
    asked.clear()
    assert detect("Haie?").lang == "en" and not asked  # too short to ask: English, the default


def test_quoted_names_skip_apostrophes_and_read_other_quote_marks() -> None:
    assert quoted("Combien d'animaux vivent dans 'Coral Reef' ?") == ["Coral Reef"]
    assert quoted("Wie viele Tiere leben im „Offener Ozean“?") == ["Offener Ozean"]
    assert quoted("Quels phares sont sur la « Côte Sauvage » ?") == ["Côte Sauvage"]


# ---- labels by language ------------------------------------------------------------------------------------------
def test_pick_label_prefers_the_question_language_then_the_main_one_then_untagged() -> None:
    labels = [("Open Ocean", "en"), ("Offener Ozean", "de")]
    assert pick_label(labels, preference("de", "en")) == "Offener Ozean"
    assert pick_label(labels, preference("fr", "en")) == "Open Ocean"  # no French label: the main language
    assert pick_label([("Kerbrume", None), ("x", "nl")], preference("de", "fr")) == "Kerbrume"
    assert pick_label([("only", "nl")], preference("de", "fr")) == "only"  # else any
    assert pick_label([], ("en",)) is None


def test_the_view_speaks_the_ontology_main_language(aquarium, lighthouses) -> None:
    ddl = schema_ddl(build_schema(aquarium))
    assert "Volumen" not in ddl and "'Allesfresser'" not in ddl and "'carnivore'" in ddl
    ddl = schema_ddl(build_schema(lighthouses))
    assert "'rouge'" in ddl and "'red'" not in ddl


def test_the_view_names_its_classes_and_properties_in_english_beside_their_own_names(aquarium, huts,
                                                                                     lighthouses_fr) -> None:
    """Huts labelled in Italian first, and in English: the view's names are the IRIs' (Italian) local names, and
    each table and column says its English label where that is other words; an ontology named in English (or
    whose classes and properties have no English label) shows none."""
    schema = build_schema(huts)
    ddl = schema_ddl(schema)
    assert "CREATE TABLE Bivacco ( -- English: bivouac;" in ddl
    assert "postiLetto INTEGER -- English: beds;" in ddl and "English: run by" in ddl
    assert english_covered(schema) and not english_covered(build_schema(lighthouses_fr))
    assert "English:" not in schema_ddl(build_schema(aquarium)) + schema_ddl(build_schema(lighthouses_fr))


def test_over_a_view_named_in_english_too_a_question_is_planned_in_english(lighthouses) -> None:
    """Every class and property of the lighthouses has an English label: an English question is planned as asked
    (no translation call), and a German one is translated into English only."""
    model = ScriptedModel(sql("SELECT COUNT(*) FROM PhareEnMer"))
    ans = AnswerLoop(lighthouses, model, second_plans=0).ask("How many offshore lighthouses are there?")
    assert ans.answer == "3." and ans.translation is None and len(model.sent) == 1
    assert "-- English: offshore lighthouse;" in model.sent[0]["messages"][0]["content"]
    model = ScriptedModel("How many offshore lighthouses are there?", sql("SELECT COUNT(*) FROM PhareEnMer"),
                          *phrases("de"))
    ans = AnswerLoop(lighthouses, model, second_plans=0).ask("Wie viele Leuchttürme stehen im Meer?")
    assert ans.answer == "3." and ans.translation["texts"] == {"en": "How many offshore lighthouses are there?"}
    assert model.sent[1]["messages"][-1]["content"].endswith("Question: How many offshore lighthouses are there?")


def test_display_names_in_the_question_language(aquarium) -> None:
    """A German question gets the German names of things that have one; the text the model plans with is the
    English translation (the aquarium's main label language), the answer keeps the question as asked."""
    model = ScriptedModel("Which exhibits have signs in Spanish?",
                          sql("SELECT e.label FROM Exhibit e JOIN Language l ON e.signLanguage = l.iri "
                              "WHERE l.label = 'Spanish'"), *phrases("de"))
    ans = AnswerLoop(aquarium, model, second_plans=0).ask("Welche Becken haben Schilder auf Spanisch?")
    assert ans.state == "answered" and ans.language == "de"
    assert sorted(c.text() for r in ans.rows for c in r) == ["Offener Ozean", "Streichelbecken"]
    assert ans.question == "Welche Becken haben Schilder auf Spanisch?"
    assert ans.translation["used"] == "Which exhibits have signs in Spanish?"
    assert model.sent[1]["messages"][-1]["content"].endswith("Question: Which exhibits have signs in Spanish?")
    assert ans.llm_calls == 2 + len(phrases("de")) and ans.to_dict()["language"] == "de"
    assert ans.to_dict()["text_language"] == "de"
    # the same plan for a French question: no French names, so the main language's
    model = ScriptedModel("Which exhibits have signs in Spanish?",
                          sql("SELECT e.label FROM Exhibit e JOIN Language l ON e.signLanguage = l.iri "
                              "WHERE l.label = 'Spanish'"), *phrases("fr"))
    ans = AnswerLoop(aquarium, model, second_plans=0).ask("Quels bassins ont des panneaux en espagnol ?")
    assert ans.language == "fr" and sorted(c.text() for r in ans.rows for c in r) == ["Open Ocean", "Touch Pool"]


def test_english_question_over_english_labels_makes_no_translation_call(aquarium) -> None:
    model = ScriptedModel(sql("SELECT COUNT(*) FROM Shark"))
    ans = AnswerLoop(aquarium, model, second_plans=0).ask("How many sharks are there?")
    assert ans.answer == "3." and ans.llm_calls == 1 and ans.translation is None and ans.language == "en"
    assert "translation" not in ans.to_dict()


# ---- the translation step's guard ----------------------------------------------------------------------------------
def test_guard_keeps_quoted_values_and_numbers() -> None:
    original = 'Wie viele Tiere leben im Becken "Open Ocean" mit mehr als 50 kg?'
    assert guard_problem(original, 'How many animals in the "Open Ocean" exhibit weigh more than 50 kg?') == ""
    assert "quoted" in guard_problem(original, 'How many animals in the "Offener Ozean" weigh more than 50 kg?')
    assert "numbers" in guard_problem(original, 'How many animals in the "Open Ocean" weigh more than fifty kg?')
    assert "empty" in guard_problem(original, "  ")


def test_a_translation_that_loses_a_quoted_value_is_not_used(lighthouses_fr) -> None:
    """A French-labelled ontology, an English question: the translation into French dropped the quoted value, so
    the question stays as asked (and English needs no English translation)."""
    model = ScriptedModel("Combien de phares sont sur la côte ?", "Combien de phares sont sur la côte ?",
                          sql("SELECT COUNT(*) FROM Phare p JOIN Cote c ON p.surCote = c.iri "
                              "WHERE c.label = 'Côte Sauvage'"))
    ans = AnswerLoop(lighthouses_fr, model, second_plans=0).ask('How many lighthouses are on the "Côte Sauvage"?')
    assert ans.answer == "3." and ans.translation["used"] == ""
    assert "Côte Sauvage" in ans.translation["rejected"]
    assert "quoted value(s) changed" in model.sent[1]["messages"][-1]["content"].lower()  # asked again once
    asked = model.sent[2]["messages"][-1]["content"]
    assert asked.endswith('Question: How many lighthouses are on the "Côte Sauvage"?')
    # a plain call (no tool) into French only
    assert model.sent[0]["tools"] is None and "from English into French" in model.sent[0]["messages"][0]["content"]


def test_quoted_values_changed_by_the_translation_are_put_back_by_code(lighthouses_fr) -> None:
    """A quoted name is kept as written: the model's quoted texts are put back in order, or a lost name over the
    words that spell it most alike; a name with nothing like it stays lost (the guard then rejects)."""
    asked = 'Welche Tiere pflegt der Tierpfleger "Jonas Reef" im Becken "Open Ocean"?'
    assert restore_quoted(asked, 'Which animals does the keeper "Jonas Riff" care for in the "Offener Ozean" '
                                 'exhibit?') == ('Which animals does the keeper "Jonas Reef" care for in the '
                                                 '"Open Ocean" exhibit?')
    assert restore_quoted(asked, "Which animals does the keeper Jonas Riff care for in the Open Ocean?") == (
        "Which animals does the keeper Jonas Reef care for in the Open Ocean?")
    assert "quoted" in guard_problem(asked, restore_quoted(asked, "Which animals does the keeper care for?"))
    model = ScriptedModel('Combien de phares sont sur la "Côte sauvage" ?',
                          sql("SELECT COUNT(*) FROM Phare p JOIN Cote c ON p.surCote = c.iri "
                              "WHERE c.label = 'Côte Sauvage'"))
    ans = AnswerLoop(lighthouses_fr, model, second_plans=0).ask('How many lighthouses are on the "Côte Sauvage"?')
    assert ans.answer == "3." and ans.translation["used"] == 'Combien de phares sont sur la "Côte Sauvage" ?'


def test_the_ontologys_own_labels_in_the_questions_language_name_its_words(aquarium, lighthouses) -> None:
    """A word of the question that is (a form of) a label in the question's language is told by the thing's word in
    the target language; short words that merely start alike are not."""
    terms = ontology_terms(aquarium, build_schema(aquarium))
    assert label_glossary("Wie viele Kraken gibt es?", terms, "de", "en", "en") == [("Kraken", "octopus")]
    assert ("Tiere", "animal") in label_glossary('Welche Tiere leben im "Open Ocean"?', terms, "de", "en", "en")
    terms = ontology_terms(lighthouses, build_schema(lighthouses))
    found = label_glossary("Which offshore lighthouses have a white light?", terms, "en", "fr", "fr")
    assert ("offshore lighthouses", "phare en mer") in found and ("white", "blanc") in found
    assert not any(span == "Which" for span, _ in found)
    assert same_word("bivacco", "bivacchi") and same_word("haie", "hai") and not same_word("which", "white")
    assert missing_words("How many sharks are there?", [("Kraken", "octopus")]) == [("Kraken", "octopus")]
    assert missing_words("Which animals does the keeper care for?", [("pflegt", "cares for")]) == []
    schema = build_schema(aquarium)
    classes = {c.cls for c in schema.tables.values()}
    vocab = vocabulary([t for t in ontology_terms(aquarium, schema) if t.iri in classes], "en", "en")  # class words
    assert "shark" in vocab and "lives in" not in vocab
    pairs = [("Kraken", "octopus")]
    assert swapped_words("How many sharks are there?", "Wie viele Kraken gibt es?", pairs, vocab) == pairs
    pairs = [("Tiere", "animal"), ("Becken", "exhibit")]  # "pool" is the translation's own word, not a wrong name
    assert swapped_words('How many animals live in the "Open Ocean" pool?', 'Wie viele Tiere leben im Becken '
                         '"Open Ocean"?', pairs, vocab) == []
    assert swapped_words("How many animals live in the Open Ocean?", 'Wie viele Tiere leben im Becken "Open Ocean"?',
                         pairs, vocab) == []  # the class "ocean" is in the question's quoted name


def test_a_translation_without_the_ontologys_word_is_asked_again_once(aquarium) -> None:
    """Seen with the embedded model: "Kraken" (labelled "Krake"@de) translated "sharks"; the call is told the word."""
    model = ScriptedModel("How many sharks are there?", "How many octopuses are there?",
                          sql("SELECT COUNT(*) FROM Octopus"), *phrases("de"))
    answerer = AnswerLoop(aquarium, model, second_plans=0)
    answerer._linker = None  # the ontology's own labels alone (the multilingual extra would name the word at once)
    ans = answerer.ask("Wie viele Kraken gibt es?")
    assert "Kraken" not in model.sent[0]["messages"][0]["content"].split("Question:")[0]  # told only when missing
    assert '"Kraken" is "octopus" in English' in model.sent[1]["messages"][-1]["content"]
    assert ans.translation["used"] == "How many octopuses are there?" and ans.answer == "2."


def test_the_language_the_model_reports_does_not_override_its_own_translation() -> None:
    """The model reporting English for a question it translated into English is not read as the question's
    language (seen: the Italian question was then planned as asked, as if English)."""
    guess = Detection("it", "identifier_guess", 0.4)
    said_en = Translation(source="it", texts={"en": "Does Kira live in the Coral Reef?"}, reported="en")
    assert not model_reading_counts(guess, said_en)
    assert model_reading_counts(guess, Translation(source="it", texts={}, reported="es"))
    assert not model_reading_counts(Detection("it", "identifier", 0.95), Translation(source="it", reported="es"))
    assert model_reading_counts(Detection("", "no_english_words"), Translation(source="it", reported="it"))


def test_the_translation_prompt_names_the_ontologys_words_in_each_target_language(lighthouses, huts,
                                                                                       lighthouses_fr) -> None:
    """The labels of the classes, properties and named values in the target language, largest classes first;
    the prompt lists them per language, and the answerer reads them once per language."""
    terms = ontology_terms(lighthouses, build_schema(lighthouses))
    fr, en = vocabulary(terms, "fr", "fr"), vocabulary(terms, "en", "fr")
    assert fr[0] == "phare" and {"gardien", "hauteur (m)", "rouge", "automatisé", "Côte Sauvage"} <= set(fr)
    assert en[0] == "lighthouse" and {"keeper", "height (m)", "red", "automated", "Wild Coast"} <= set(en)
    assert "Kerbrume" not in fr  # the lighthouses are not values of a small class
    assert "Val Cresta" not in vocabulary(ontology_terms(huts, build_schema(huts)), "en", "it")  # no English label
    assert len(vocabulary(terms, "fr", "fr", limit=3)) == 3
    assert set(terms[0].texts()) == {"phare", "lighthouse"}  # its labels and its name in the view
    model = ScriptedModel("How many lighthouses are there?", "Combien de phares y a-t-il ?",
                          sql("SELECT COUNT(*) FROM Phare"), *phrases("de"))
    answerer = AnswerLoop(lighthouses_fr, model, second_plans=0)
    ans = answerer.ask("Wie viele Leuchttürme gibt es?")
    # into English first, then on as the English question would go: into French, the ontology's label language
    assert "own words in English: automated, white" in model.sent[0]["messages"][0]["content"]  # its values
    assert model.sent[0]["messages"][-1]["content"] == "Translate: Wie viele Leuchttürme gibt es?"
    assert "own words in French: phare, phare côtier" in model.sent[1]["messages"][0]["content"]
    assert model.sent[1]["messages"][-1]["content"] == "Translate: How many lighthouses are there?"
    assert model.sent[2]["messages"][-1]["content"].endswith("Question: Combien de phares y a-t-il ?")
    assert ans.answer == "7." and answerer._terms is not None
    assert ans.translation["texts"] == {"en": "How many lighthouses are there?", "fr": "Combien de phares y a-t-il ?"}


def test_a_question_in_the_label_language_is_read_for_its_kind_in_english(lighthouses) -> None:
    """A French question over French labels is planned as asked; its English reading tells code it is a yes/no
    question (question.py reads English grammar)."""
    model = ScriptedModel('Is the lighthouse "Beg Loar" kept by "Lucie Marec"?',
                          sql("SELECT p.iri FROM Phare p JOIN Gardien g ON p.gardePar = g.iri "
                              "WHERE p.label = 'Beg Loar' AND g.label = 'Lucie Marec'"), *phrases("fr"))
    answerer = AnswerLoop(lighthouses, model, second_plans=0)
    ans = answerer.ask('Le phare "Beg Loar" est-il gardé par "Lucie Marec" ?')
    assert ans.boolean is True and ans.translation["used"] == ""
    assert ans.answer == f"{answerer.phrases.get('fr').get('yes')}." != "Yes."  # said in French
    assert model.sent[1]["messages"][-1]["content"].endswith('"Lucie Marec" ?')


def test_no_usable_translation_call_leaves_the_question_as_asked(aquarium) -> None:
    model = ScriptedModel("I cannot do that.", "I still cannot.")
    found = translate(model, "Quanti squali ci sono?", "", ["en"])
    assert found.texts == {} and "no usable answer" in found.rejected and len(model.sent) == 2


def test_a_translation_left_in_the_questions_language_is_asked_again_once() -> None:
    copied = translated(language="de", english="Welche Tiere pflegt der Tierpfleger \"Jonas Reef\"?")
    model = ScriptedModel(copied, translated(language="de", english="Which animals does the keeper \"Jonas Reef\" "
                                                                      "care for?"))
    found = translate(model, "Welche Tiere pflegt der Tierpfleger \"Jonas Reef\"?", "de", ["en"])
    assert found.texts == {"en": "Which animals does the keeper \"Jonas Reef\" care for?"}
    assert "english is not English: write it in English" in model.sent[1]["messages"][-1]["content"]
    echoed = translated(language="de", english="Error: english is not English: write it in English. Translate the "
                                               "words; keep names and quoted texts.")
    model = ScriptedModel(copied, echoed)  # the re-ask written back is no translation either
    found = translate(model, "Welche Tiere pflegt der Tierpfleger \"Jonas Reef\"?", "de", ["en"])
    assert found.texts == {} and found.rejected
    from ontouse.language.translation import not_in

    assert not_in("Error: english is not English: write it in English. Translate the words; keep names and quoted "
                  "texts.", "en", "Welche Tiere pflegt der Tierpfleger?")
    model = ScriptedModel(copied, copied)  # copied twice: the question stays as asked
    found = translate(model, "Welche Tiere pflegt der Tierpfleger \"Jonas Reef\"?", "de", ["en"])
    assert found.texts == {} and "not written in English" in found.rejected


def test_unknown_language_is_named_by_the_model(aquarium, monkeypatch) -> None:
    """A language not told apart (no identifier installed): the translation call also names it."""
    model = ScriptedModel(translated(language="it", english="How many sharks are there?"),
                          sql("SELECT COUNT(*) FROM Shark"), *phrases("it"))
    monkeypatch.setattr(importlib.import_module("ontouse.reading"), "detect",
                        lambda text, labels=None: Detection("", "no_english_words"))
    ans = AnswerLoop(aquarium, model, second_plans=0).ask("Quanti squali ci sono?")
    assert ans.language == "it" and ans.answer == "3." and ans.translation["used"] == "How many sharks are there?"


# ---- the multilingual question set -------------------------------------------------------------------------------
PLANS = {  # one hand-written plan per base question: the gold answers are what the data says
    "aq-sharks": "SELECT COUNT(*) FROM Shark",
    "aq-open-ocean": "SELECT COUNT(*) FROM Animal a JOIN Exhibit e ON a.livesIn = e.iri "
                     "WHERE e.label = 'Open Ocean'",
    "aq-jonas": "SELECT a.label FROM Keeper k JOIN Animal a ON k.caresFor = a.iri WHERE k.label = 'Jonas Reef'",
    "aq-bruno-weight": "SELECT weightKg FROM Animal WHERE label = 'Bruno'",
    "aq-heaviest": "SELECT label FROM Animal ORDER BY weightKg DESC LIMIT 1",
    "aq-kira-reef": "SELECT a.iri FROM Animal a JOIN Exhibit e ON a.livesIn = e.iri WHERE a.label = 'Kira' "
                    "AND e.label = 'Coral Reef'",
    "aq-endangered": "SELECT a.label FROM Animal a JOIN ConservationStatus c ON a.conservationStatus = c.iri "
                     "WHERE c.label = 'endangered'",
    "aq-spanish-signs": "SELECT e.label FROM Exhibit e JOIN Language l ON e.signLanguage = l.iri "
                        "WHERE l.label = 'Spanish'",
    "lh-count": "SELECT COUNT(*) FROM Phare",
    "lh-automated": "SELECT COUNT(*) FROM Phare p JOIN Statut s ON p.statut = s.iri WHERE s.label = 'automatisé'",
    "lh-red": "SELECT p.label FROM Phare p JOIN Couleur c ON p.couleurFeu = c.iri WHERE c.label = 'rouge'",
    "lh-trevaneg-year": "SELECT anneeConstruction FROM Phare WHERE label = 'Trévaneg'",
    "lh-tallest": "SELECT label FROM Phare ORDER BY hauteurM DESC LIMIT 1",
    "lh-beg-loar-lucie": "SELECT p.iri FROM Phare p JOIN Gardien g ON p.gardePar = g.iri WHERE p.label = 'Beg Loar' "
                         "AND g.label = 'Lucie Marec'",
    "lh-offshore-height": "SELECT AVG(hauteurM) FROM PhareEnMer",
    "aq-octopuses": "SELECT COUNT(*) FROM Octopus",
    "aq-herbivores": "SELECT a.label FROM Animal a JOIN Diet d ON a.diet = d.iri WHERE d.label = 'herbivore'",
    "aq-finn-exhibit": "SELECT e.label FROM Animal a JOIN Exhibit e ON a.livesIn = e.iri WHERE a.label = 'Finn'",
    "aq-pacific": "SELECT COUNT(*) FROM Animal a JOIN Ocean o ON a.nativeTo = o.iri WHERE o.label = 'Pacific Ocean'",
    "aq-lightest-shark": "SELECT label FROM Shark ORDER BY weightKg ASC LIMIT 1",
    "aq-maria-spanish": "SELECT k.iri FROM Keeper k JOIN Language l ON k.speaks = l.iri WHERE k.label = 'María Soto' "
                        "AND l.label = 'Spanish'",
    "aq-kelp-volume": "SELECT volumeLitres FROM Exhibit WHERE label = 'Kelp Forest'",
    "aq-shark-weight": "SELECT AVG(weightKg) FROM Shark",
    "lh-decommissioned": "SELECT p.label FROM Phare p JOIN Statut s ON p.statut = s.iri WHERE s.label = 'désaffecté'",
    "lh-coastal": "SELECT COUNT(*) FROM PhareCotier",
    "lh-kerbrume-range": "SELECT porteeMilles FROM Phare WHERE label = 'Kerbrume'",
    "lh-paul": "SELECT p.label FROM Phare p JOIN Gardien g ON p.gardePar = g.iri WHERE g.label = 'Paul Kerlann'",
    "lh-oldest": "SELECT label FROM Phare ORDER BY anneeConstruction ASC LIMIT 1",
    "lh-yann-years": "SELECT anneesService FROM Gardien WHERE label = 'Yann Le Goff'",
    "lh-men-du-white": "SELECT p.iri FROM Phare p JOIN Couleur c ON p.couleurFeu = c.iri WHERE p.label = 'Men Du' "
                       "AND c.label = 'blanc'",
    "hu-count": "SELECT COUNT(*) FROM Rifugio",
    "hu-bivouacs": "SELECT COUNT(*) FROM Bivacco",
    "hu-highest": "SELECT label FROM Rifugio ORDER BY altitudineM DESC LIMIT 1",
    "hu-lares-beds": "SELECT postiLetto FROM Rifugio WHERE label = 'Lares'",
    "hu-val-cresta": "SELECT r.label FROM Rifugio r JOIN Valle v ON r.inValle = v.iri WHERE v.label = 'Val Cresta'",
    "hu-shower": "SELECT r.label FROM Rifugio r JOIN Servizio s ON r.offre = s.iri WHERE s.label = 'doccia calda'",
    "hu-marco": "SELECT r.label FROM Rifugio r JOIN Gestore g ON r.gestitoDa = g.iri WHERE g.label = 'Marco Zeni'",
    "hu-bivouac-altitude": "SELECT AVG(altitudineM) FROM Bivacco",
    "hu-oldest": "SELECT label FROM Rifugio ORDER BY annoApertura ASC LIMIT 1",
    "hu-corno-restaurant": "SELECT r.iri FROM Rifugio r JOIN Servizio s ON r.offre = s.iri WHERE r.label = 'Corno Nero' "
                           "AND s.label = 'ristorante'",
}


def test_question_set_shape() -> None:
    questions = json.loads(QUESTIONS.read_text("utf-8"))
    assert len({q["id"] for q in questions}) == len(questions)
    bases = {q["id"].rsplit("-", 1)[0] for q in questions}
    assert bases == set(PLANS) and len(bases) >= 40
    langs = {q["lang"] for q in questions}
    assert {"en", "de", "fr", "es", "it"} <= langs and sum(q["lang"] != "en" for q in questions) >= 48
    for q in questions:
        assert set(q) == {"id", "lang", "question", "gold", "type", "ontology"} and (DATA / q["ontology"]).is_file()
        english = next(e for e in questions if e["id"] == q["id"].rsplit("-", 1)[0] + "-en")
        assert quoted(q["question"]) == quoted(english["question"]), q["id"]  # quoted names are the same in all


@pytest.mark.parametrize("base", sorted(PLANS))
def test_gold_answers_are_what_the_data_says(base, aquarium, lighthouses, huts) -> None:
    questions = [q for q in json.loads(QUESTIONS.read_text("utf-8")) if q["id"].startswith(base + "-")]
    english = next(q for q in questions if q["lang"] == "en")
    store = {"owl_aquarium.ttl": aquarium, "owl_lighthouses.ttl": lighthouses, "owl_huts.ttl": huts}[english["ontology"]]
    ans = AnswerLoop(store, ScriptedModel()).answer_sql(english["question"], PLANS[base])
    assert ans.state == "answered" and is_correct(ans.answer, english["gold"]), (ans.answer, english["gold"])


def test_lang_bench_summary_compares_each_language_with_english() -> None:
    from bench.lang_bench import main, render_md, summarize

    def row(lang: str, base: str, right: bool) -> dict:
        return {"id": f"{base}-{lang}", "base": base, "lang": lang, "question": "q", "type": "count", "expected": 1,
                "answer": "1.", "state": "answered", "stated": True, "right": right, "confident_wrong": not right,
                "detected": lang, "translation": None, "llm_calls": 1}

    rows = [row("en", "a", True), row("en", "b", True), row("de", "a", True), row("de", "b", False)]
    s = summarize(rows)
    assert s["per_language"]["de"]["points_vs_english"] == -50.0 and s["per_type"]["count"]["right"] == 3
    assert "| de | 2 | 1 | 1 | 0 | -50.0 |" in render_md({"runs": {"t": {"summary": s, "rows": rows}}})
    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0


def test_lang_bench_resumes_a_stopped_run(tmp_path, monkeypatch) -> None:
    """--resume keeps the earlier answers of the label and asks only the questions the stopped run did not reach."""
    import bench.lang_bench as lb
    import bench.report as report

    first = {"id": "aq-sharks-en", "base": "aq-sharks", "lang": "en"}
    (tmp_path / "lang.json").write_text(json.dumps({"runs": {"t": {"commit": "abc", "rows": [first]}}}), "utf-8")
    monkeypatch.setattr(lb, "RESULTS", tmp_path)
    asked: list[str] = []
    monkeypatch.setattr(lb, "run", lambda model, qs, after_each=None: [
        {"id": q["id"]} for q in qs if not asked.append(q["id"])])
    seen: dict = {}

    def fake_run_labelled(name, questions, args, argv, run, summarize, render_md, extra=None):
        seen.update(extra=extra, rows=run(None, questions))
        return 0

    monkeypatch.setattr(report, "run_labelled", fake_run_labelled)
    assert lb.main(["--label", "t", "--lang", "en", "--limit", "3", "--resume"]) == 0
    assert asked == ["aq-open-ocean-en", "aq-jonas-en"]
    assert [r["id"] for r in seen["rows"]] == ["aq-sharks-en", "aq-open-ocean-en", "aq-jonas-en"]
    assert seen["extra"]["resumed_from"] == {"commit": "abc", "date": "", "answers": 1}


def test_lang_links_reads_gold_items_from_the_plans() -> None:
    """bench.lang_links: the classes, properties and named values a hand-written plan uses, and the text spans a
    linker scores."""
    from rdflib import URIRef

    from bench.lang_links import Ontology, gold_plans, spans

    aq = "http://example.org/aquarium#"
    onto = Ontology(DATA / "owl_aquarium.ttl")
    assert gold_plans() == PLANS
    assert onto.gold(PLANS["aq-open-ocean"]) == {URIRef(aq + n) for n in ("Animal", "Exhibit", "livesIn", "openOcean")}
    assert onto.gold(PLANS["aq-sharks"]) == {URIRef(aq + "Shark")}
    assert set(onto.texts[URIRef(aq + "Shark")]) == {"shark", "Hai"}  # its name in the view and its labels
    assert spans("Wie viele Haie?") == ["Wie", "viele", "Haie", "Wie viele", "viele Haie", "Wie viele Haie"]


class FixedVectors(CrossLingual):
    """The multilingual model's place taken by fixed vectors (the linking rules are under test, not the model)."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        super().__init__()
        self.vectors = vectors

    def embed(self, texts):
        import numpy as np

        rows = np.asarray([self.vectors.get(t, [0.0, 0.0, 0.0, 1.0]) for t in texts], dtype=np.float32)
        return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_cross_lingual_links_keep_near_unambiguous_pairs_of_content_words() -> None:
    linker = FixedVectors({"Haie": [1, 0, 0, 0], "shark": [0.9, 0.1, 0, 0], "Hai": [1, 0, 0, 0],
                           "fish": [0.7, 0.7, 0, 0], "Becken": [0, 1, 0.05, 0], "exhibit": [0, 0.7, 0.7, 0],
                           "Tank": [0, 0.68, 0.72, 0], "viele": [0, 0, 1, 0]})
    assert spans('Wie viele "Open Ocean" Haie 12') == ["Wie", "viele", "Wie viele", "Haie", "Haie 12"]  # not "12"
    # "Haie" names the shark (its German label is nearest); "Becken" and "viele" are about as near to the exhibit
    # as to the tank: no link; "im" is too short a word to be linked
    found = linker.links("Wie viele Haie im Becken?", [["shark", "Hai"], ["fish"], ["exhibit"], ["Tank"]])
    assert found == [("Haie", 0)]
    assert linker.links("Wie viele Haie?", [["Haie"]]) == [("Haie", 0)]


def test_the_glossary_names_each_linked_thing_by_its_word_in_the_target_language(aquarium) -> None:
    terms = ontology_terms(aquarium, build_schema(aquarium))
    shark = next(t for t in terms if str(t.iri).endswith("#Shark"))
    linker = FixedVectors({"squali": [1, 0, 0, 0], **{t: [1, 0, 0, 0] for t in shark.texts()}})
    assert glossary(linker, "Quanti squali ci sono?", terms, "en", "en") == [("squali", "shark")]
    assert glossary(linker, "Quanti squali ci sono?", terms, "de", "en") == [("squali", "Hai")]
    assert glossary(linker, "Quanti squali ci sono?", terms, "it", "en") == []  # no Italian label
    linker.vectors["shark"] = [1, 0, 0, 0]
    assert glossary(linker, "Wie viele shark?", terms, "en", "en") == []  # the question already says the word
    assert glossary(linker, "Wie viele shark?", terms, "de", "en") == [("shark", "Hai")]
    model = ScriptedModel(translated(language="it", english="How many sharks are there?"))
    translate(model, "Quanti squali ci sono?", "it", ["en"], words={"en": ["shark"]}, hints={"en": [("squali", "shark")]})
    assert '- "squali": "shark" in English' in model.sent[0]["messages"][0]["content"]


@pytest.mark.skipif(not crosslingual_available(), reason="the multilingual extra is not installed")
def test_the_multilingual_model_links_question_words_across_languages(aquarium, lighthouses) -> None:
    linker = CrossLingual()
    terms = ontology_terms(lighthouses, build_schema(lighthouses))
    assert ("rotes", "rouge") in glossary(linker, "Welche Leuchttürme haben ein rotes Licht?", terms, "fr", "fr")
    terms = ontology_terms(aquarium, build_schema(aquarium))
    assert ("squali", "shark") in glossary(linker, "Quanti squali ci sono?", terms, "en", "en")


def test_the_tools_own_description_written_back_is_no_translation() -> None:
    """Seen with the embedded model: the English text was the tool's description; the question then stays as asked."""
    model = ScriptedModel(translated(language="de", english="The question, translated."),
                          translated(language="de", english="The question, translated."))
    found = translate(model, "Welche Tiere sind stark gefährdet?", "de", ["en"])
    assert found.texts == {} and "description" in found.rejected
    model = ScriptedModel(translated(language="de", english="The question, translated."),
                          translated(language="de", english="Which animals are endangered?"))
    found = translate(model, "Welche Tiere sind stark gefährdet?", "de", ["en"])  # asked again once
    assert found.texts == {"en": "Which animals are endangered?"}
    echo = translated(language="de", english="The question, translated.")
    model = ScriptedModel(echo, echo, translated(language="de", english="Which animals are endangered?"))
    found = translate(model, "Welche Tiere sind stark gefährdet?", "de", ["en"], words={"en": ["animal"]})
    assert found.texts == {"en": "Which animals are endangered?"} and len(model.sent) == 3  # then asked plainly
    assert "- in English: animal" in model.sent[0]["messages"][0]["content"]
    assert "- in English" not in model.sent[2]["messages"][0]["content"]


# ---- plain translations (one known language into one other) -----------------------------------------------------
def test_a_plain_reply_is_read_as_the_translation() -> None:
    from ontouse.language.translation import reply_text

    assert reply_text("English: Which animals are endangered?\nNote: ...", "en") == "Which animals are endangered?"
    assert reply_text('"Which animals are endangered?"', "en") == "Which animals are endangered?"
    assert reply_text('Does Kira live in the "Coral Reef"?', "en") == 'Does Kira live in the "Coral Reef"?'
    assert reply_text("\n  Combien de phares ?  ", "fr") == "Combien de phares ?"


def test_a_translation_that_is_no_question_is_asked_again_once() -> None:
    """The question's kind is kept: a question mark lost (an answer written instead: "Kira."), a question copied
    or the prompt written back are told once; a second failure leaves the question as asked."""
    from ontouse.language.translation import translate_text

    asked = 'Lebt Kira im Becken "Coral Reef"?'
    assert "question mark" in guard_problem(asked, 'Kira lives in the "Coral Reef".')
    model = ScriptedModel('Kira lives in the "Coral Reef".', 'Does Kira live in the "Coral Reef" exhibit?')
    found = translate_text(model, asked, "de", "en")
    assert found.texts == {"en": 'Does Kira live in the "Coral Reef" exhibit?'} and not found.rejected
    assert model.sent[0]["tools"] is None and model.sent[0]["messages"][-1]["content"] == "Translate: " + asked
    assert "question mark" in model.sent[1]["messages"][-1]["content"]
    model = ScriptedModel(asked, "You translate questions about a database from German into English?")
    found = translate_text(model, asked, "de", "en")
    assert found.texts == {} and "prompt written back" in found.rejected
    assert "Not written in English" in model.sent[1]["messages"][-1]["content"]


def test_a_plain_translation_is_told_the_ontologys_word_it_swapped(aquarium) -> None:
    from ontouse.language.translation import translate_text

    schema = build_schema(aquarium)
    classes = [t for t in ontology_terms(aquarium, schema) if t.iri in {c.cls for c in schema.tables.values()}]
    names = label_glossary("Wie viele Kraken gibt es?", classes, "de", "en", "en")
    model = ScriptedModel("How many sharks are there?", "How many octopuses are there?")
    found = translate_text(model, "Wie viele Kraken gibt es?", "de", "en", words=["octopus", "shark"], names=names,
                           kinds=vocabulary(classes, "en", "en"))
    assert found.texts == {"en": "How many octopuses are there?"}
    assert "own words in English: octopus, shark" in model.sent[0]["messages"][0]["content"]
    assert '"Kraken" is "octopus" in English' in model.sent[1]["messages"][-1]["content"]


def test_values_are_linked_in_the_question_as_asked_and_in_its_english_reading(lighthouses_fr) -> None:
    """A Portuguese question over French labels is planned in French; a colour the French translation left in
    Portuguese is still linked through the English reading (the colour's English label)."""
    model = ScriptedModel("Which lighthouses have a red light?", "Quels phares ont une luz vermelha ?",
                          sql("SELECT p.label FROM Phare p JOIN Couleur c ON p.couleurFeu = c.iri "
                              "WHERE c.label = 'red'"), *phrases("pt"))
    ans = AnswerLoop(lighthouses_fr, model, second_plans=0).ask("Quais faróis têm uma luz vermelha?")
    assert "'red' is the label of a Couleur row" in model.sent[2]["messages"][-1]["content"]
    assert sorted(c.text() for r in ans.rows for c in r) == ["Enez Tan", "Men Du"]
