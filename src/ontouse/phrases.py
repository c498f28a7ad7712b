"""The fixed phrases of an answer text in the question's language: "Yes", "No", "No data available", "Unsure",
"best candidate", "looked for", "and N more", and the gist of why there is no answer.

The phrases are written here in English (`PHRASES`) and, by people, in every other language ontouse.language.detection
supports (`CATALOG`): those are used as written. For a language without them the model translates the whole set
in one call held to a JSON Schema through the tool rails (ontocore.agent: one string field per phrase), and the
result is kept on disk, so each language costs one model call per model and phrase set, ever (a reply mostly left in
English is asked again once). A phrase without a usable translation (empty, several lines, far longer than the
English, with text around it, a lost or added `{n}`, left in English, "yes" and "no" alike, or read by the language
identifier as another language) stays in English, as does the whole set when the call fails: a wrong translation
never breaks an answer, it only leaves a phrase in English. The precise reasons of an answer (its `error` field and
its checks' details) stay in English; in another language the text gives their gist (`doubt`, `no_rows`,
`no_triples`).

Only these phrases are translated. Everything the data says (names, numbers, dates, labels) is put into the text by
code (ontouse.results), never through a model; a thing's name is its label in the question's language when it has
one. The machine fields of the answer (`Answer.boolean`, `Answer.state`) do not depend on the language.

Files: `<cache dir>/phrases/<key>.json` (cache dir: $ONTOBUILD_CACHE, else $XDG_CACHE_HOME/ontobuild, else
~/.cache/ontobuild; or the folder $ONTOBUILD_PHRASE_CACHE_DIR), written atomically. Key: SHA-256 over the model's
backend and name, the English phrase set, the prompt and the language. ONTOBUILD_PHRASE_CACHE=0 keeps the
translations in memory only."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ontocore.agent import run_agent
from ontocore.errors import OntoError, ToolArgumentError
from ontocore.folders import atomic_write
from ontocore.llm import ChatModel
from ontocore.tools import Tool
from ontocore.trace import Trace

from .language.detection import DEFAULT, NAMES, SUPPORTED, detect
from .prompts import prompts

log = logging.getLogger(__name__)

FORMAT = 1
TOOL = "phrases"
MAX_LENGTH_FACTOR = 3  # a translated phrase may be at most this many times as long as the English (+ SLACK)
SLACK = 20
_PLACEHOLDER = re.compile(r"\{[a-z]+\}")

# the English phrases, as the answer text uses them: "Yes.", "No data available (looked for: SELECT ...)",
# "Unsure: <reason>; best candidate: 42.", "A; B; C (and 3 more)."; the reasons (`doubt`, `no_rows`, `no_triples`)
# stand in another language for the precise English reason of the answer's `error` field, which stays English
PHRASES: dict[str, str] = {
    "yes": "Yes",
    "no": "No",
    "no_data": "No data available",
    "unsure": "Unsure",
    "best_candidate": "best candidate",
    "looked_for": "looked for",
    "more": "and {n} more",
    "column": "column {n}",
    "doubt": "the result may not fit the question",
    "no_rows": "no matching rows",
    "no_triples": "no fact in the data backs the result",
}
# phrases written for the catalog's languages only: another language shows them in English (the model's set above
# stays as its kept translations were made)
CATALOG_ONLY: dict[str, str] = {"tied": "tied: {n} share the ranked value"}
# the same phrases written by people for the languages ontouse.language.detection supports: used as they are, no model
# call (the model translates the set only for a language missing here)
CATALOG: dict[str, dict[str, str]] = {
    "de": {"yes": "Ja", "no": "Nein", "no_data": "Keine Daten vorhanden", "unsure": "Unsicher",
           "best_candidate": "bester Kandidat", "looked_for": "gesucht", "more": "und {n} weitere",
           "column": "Spalte {n}", "doubt": "das Ergebnis passt womöglich nicht zur Frage",
           "no_rows": "keine passenden Zeilen", "no_triples": "keine Aussage in den Daten stützt das Ergebnis",
           "tied": "gleichauf: {n} teilen den Rangwert"},
    "fr": {"yes": "Oui", "no": "Non", "no_data": "Aucune donnée disponible", "unsure": "Incertain",
           "best_candidate": "meilleur candidat", "looked_for": "cherché", "more": "et {n} de plus",
           "column": "colonne {n}", "doubt": "le résultat ne répond peut-être pas à la question",
           "no_rows": "aucune ligne correspondante", "no_triples": "aucun fait des données n'étaye le résultat",
           "tied": "ex aequo : {n} partagent la valeur classée"},
    "es": {"yes": "Sí", "no": "No", "no_data": "No hay datos disponibles", "unsure": "Incierto",
           "best_candidate": "mejor candidato", "looked_for": "buscado", "more": "y {n} más",
           "column": "columna {n}", "doubt": "puede que el resultado no responda a la pregunta",
           "no_rows": "ninguna fila coincide", "no_triples": "ningún hecho de los datos respalda el resultado",
           "tied": "empate: {n} comparten el valor clasificado"},
    "it": {"yes": "Sì", "no": "No", "no_data": "Nessun dato disponibile", "unsure": "Incerto",
           "best_candidate": "miglior candidato", "looked_for": "cercato", "more": "e altri {n}",
           "column": "colonna {n}", "doubt": "il risultato potrebbe non rispondere alla domanda",
           "no_rows": "nessuna riga corrispondente", "no_triples": "nessun fatto nei dati sostiene il risultato",
           "tied": "pari merito: {n} condividono il valore in classifica"},
    "pt": {"yes": "Sim", "no": "Não", "no_data": "Não há dados disponíveis", "unsure": "Incerto",
           "best_candidate": "melhor candidato", "looked_for": "procurado", "more": "e mais {n}",
           "column": "coluna {n}", "doubt": "o resultado pode não responder à pergunta",
           "no_rows": "nenhuma linha correspondente", "no_triples": "nenhum fato nos dados sustenta o resultado",
           "tied": "empate: {n} partilham o valor classificado"},
    "nl": {"yes": "Ja", "no": "Nee", "no_data": "Geen gegevens beschikbaar", "unsure": "Onzeker",
           "best_candidate": "beste kandidaat", "looked_for": "gezocht", "more": "en nog {n}",
           "column": "kolom {n}", "doubt": "het resultaat past mogelijk niet bij de vraag",
           "no_rows": "geen overeenkomende rijen", "no_triples": "geen feit in de gegevens onderbouwt het resultaat",
           "tied": "gelijk: {n} delen de gerangschikte waarde"},
}
OPENING = ("yes", "no", "no_data", "unsure")  # the phrases that start an answer text
MOSTLY_ENGLISH = 0.5  # a reply with at least this share of its phrases left in English is asked again once


@dataclass
class Phrases:
    """The fixed phrases in one language (each one in English where no usable translation was made)."""

    lang: str
    texts: dict[str, str] = field(default_factory=lambda: dict(PHRASES))
    english: list[str] = field(default_factory=list)  # keys left in English although another language was asked
    source: str = "english"  # english | catalog | model | kept (read from the disk cache)

    def get(self, key: str, **values: Any) -> str:
        """The phrase `key` with its `{n}` filled in; one that starts the answer text (yes, no, no data, unsure)
        with a capital letter, as the English does."""
        text = self.texts.get(key) or PHRASES.get(key) or CATALOG_ONLY.get(key, key)
        if key in OPENING:
            text = text[:1].upper() + text[1:]
        return _PLACEHOLDER.sub(lambda m: str(values.get(m.group(0)[1:-1], m.group(0))), text)

    def reason(self, key: str, detail: str) -> str:
        """A reason in the answer text: in English its own precise words (`detail`, the answer's `error`); in
        another language the translated phrase `key` (its gist), else the English words."""
        if self.lang == DEFAULT or key in self.english or key not in self.texts:
            return detail
        return self.texts[key]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"language": self.lang, "source": self.source}
        if self.english:
            out["english"] = list(self.english)
        return out


ENGLISH = Phrases(DEFAULT)


def enabled() -> bool:
    return (os.environ.get("ONTOBUILD_PHRASE_CACHE") or "1").strip().lower() not in ("0", "off", "false", "no")


def folder() -> Path:
    """$ONTOBUILD_PHRASE_CACHE_DIR, else `phrases` in the cache folder."""
    if os.environ.get("ONTOBUILD_PHRASE_CACHE_DIR"):
        return Path(os.environ["ONTOBUILD_PHRASE_CACHE_DIR"]).expanduser()
    from ontocore.folders import cache_dir

    return cache_dir() / "phrases"


def _prompt(lang: str) -> str:
    lines = "\n".join(f"- {key}: {text}" for key, text in PHRASES.items())
    return prompts.render("ask_phrases", language=NAMES[lang], phrases=lines, tool=TOOL, n="{n}")


def cache_key(model: ChatModel, lang: str) -> str:
    """The key of one language's phrases for a model: its backend and name, the phrase set, the prompt, the
    language."""
    blob = json.dumps([FORMAT, getattr(model, "backend", ""), getattr(model, "model", ""), PHRASES, _prompt(lang),
                       lang], ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def phrase_problem(key: str, text: Any, lang: str) -> str:
    """Why a translated phrase cannot be shown ("" when it can)."""
    if not isinstance(text, str) or not text.strip():
        return "empty"
    english = PHRASES[key]
    if "\n" in text.strip():
        return "several lines"
    if len(text) > MAX_LENGTH_FACTOR * len(english) + SLACK:
        return "far longer than the English"
    marks = [ch for ch in "():;" if ch in text and ch not in english]
    if marks:  # seen: a phrase written with the text around it ("(looked for: SELECT ...)")
        return "more than the phrase: " + " ".join(marks)
    if sorted(_PLACEHOLDER.findall(text)) != sorted(_PLACEHOLDER.findall(english)) or "{" in _PLACEHOLDER.sub(
            "", text) or "}" in _PLACEHOLDER.sub("", text):
        return "the number's place {n} was lost or changed"
    found = detect(_PLACEHOLDER.sub(" ", text))
    if found.source == "identifier" and found.lang not in (lang, DEFAULT) and text.strip() != english:
        return f"read as {NAMES.get(found.lang, found.lang)}"
    return ""


def _clean(text: str) -> str:
    """A phrase as shown: one line, without the quotes or the closing full stop the model may add."""
    text = " ".join(text.split()).strip("\"'“”„«»")
    return text[:-1].rstrip() if text.endswith(".") and not text.endswith("..") else text


def translate_phrases(model: ChatModel, lang: str, *, trace: Trace | None = None) -> Phrases:
    """The phrase set in `lang` by one constrained model call; any phrase without a usable translation (or all of
    them, when the call fails) stays in English."""
    out = Phrases(lang, source="model")
    sink: dict[str, Any] = {}

    asked_again: list[bool] = []

    suffix = "_" + NAMES[lang].lower()  # a field named for the language ("yes_german") primes the language

    def take(**args: Any) -> str:
        sink.clear()
        sink.update(args)
        same = [k for k in PHRASES if _clean(str(args.get(k + suffix) or "")).casefold() == PHRASES[k].casefold()]
        if not asked_again and (len(same) >= MOSTLY_ENGLISH * len(PHRASES) or "yes" in same):
            asked_again.append(True)
            raise ToolArgumentError(f"These are still in English: {', '.join(same)}. Write each phrase in "
                                    f"{NAMES[lang]}.")
        return "ok"

    props = {key + suffix: {"type": "string", "description": f'"{text}" in {NAMES[lang]}'}
             for key, text in PHRASES.items()}
    spec = Tool(TOOL, "The phrases, translated.", {"type": "object", "additionalProperties": False,
                                                   "required": list(props), "properties": props}, take, terminal=True)
    budget = 60 + sum(len(text) + 8 for text in PHRASES.values())
    try:
        result = run_agent(model, [{"role": "user", "content": _prompt(lang)}], [spec], max_turns=2, trace=trace,
                           label="phrases", max_tokens=budget)
    except OntoError as e:  # a failed call (the model or its server) leaves the phrases in English, not the answer
        log.warning("the answer's phrases were not translated into %s: %s", NAMES.get(lang, lang), e)
        return Phrases(lang, english=list(PHRASES), source="english")
    if result.state != "answered":
        log.info("the answer's phrases were not translated into %s (%s)", NAMES.get(lang, lang), result.state)
        return Phrases(lang, english=list(PHRASES), source="english")
    for key in PHRASES:
        text = _clean(str(sink.get(key + suffix) or ""))
        why = phrase_problem(key, text, lang) or ("left in English" if text.casefold() == PHRASES[key].casefold()
                                                  else "")
        if why:
            log.info("phrase %r not used in %s (%s): %r", key, NAMES.get(lang, lang), why, text[:80])
            out.english.append(key)
            continue
        out.texts[key] = text
    if out.texts["yes"].casefold() == out.texts["no"].casefold():
        for key in ("yes", "no"):
            out.texts[key] = PHRASES[key]
            if key not in out.english:
                out.english.append(key)
    return out


class PhraseBook:
    """The phrases per language for one model: from memory, else from the disk cache, else translated once."""

    def __init__(self, model: ChatModel, trace: Trace | None = None, catalog: bool = True) -> None:
        self.model = model
        self.trace = trace
        self.catalog = catalog  # False: every language's phrases from the model (to test and compare that path)
        self._known: dict[str, Phrases] = {}

    def get(self, lang: str) -> Phrases:
        """The phrases in `lang` (English for English, for no language and for a language not supported); a
        language of `CATALOG` takes its written phrases, without a model call."""
        if not lang or lang == DEFAULT or lang not in SUPPORTED:
            return ENGLISH
        if lang in self._known:
            return self._known[lang]
        if self.catalog and lang in CATALOG:
            self._known[lang] = Phrases(lang, {**PHRASES, **CATALOG[lang]}, source="catalog")
            return self._known[lang]
        key = cache_key(self.model, lang)
        found = load(key, lang)
        if found is None:
            found = translate_phrases(self.model, lang, trace=self.trace)
            if found.source == "model":  # a failed call is tried again in the next process, not kept
                save(key, found)
        self._known[lang] = found
        return found


def load(key: str, lang: str) -> Phrases | None:
    """The phrases kept under `key`, or None (a damaged entry is removed)."""
    if not enabled():
        return None
    path = folder() / f"{key}.json"
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("key") != key or data.get("language") != lang:
            raise ValueError("the entry holds another key")
        texts = {k: str(v) for k, v in data["texts"].items() if k in PHRASES}
        english = [k for k in PHRASES if k not in texts or k in data.get("english", [])]
        return Phrases(lang, {**PHRASES, **{k: v for k, v in texts.items() if k not in english}}, english, "kept")
    except Exception as e:  # noqa: BLE001 - a damaged entry is translated again, never fatal
        log.warning("the kept phrases %s could not be read (%s): translating them again", path.name, e)
        path.unlink(missing_ok=True)
        return None


def save(key: str, phrases: Phrases) -> None:
    if not enabled():
        return
    target = folder() / f"{key}.json"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, json.dumps({"key": key, "language": phrases.lang, "texts": phrases.texts,
                                         "english": phrases.english}, ensure_ascii=False, indent=1) + "\n")
    except OSError as e:  # a set that cannot be kept is only translated again next time
        log.warning("the answer's phrases could not be kept in %s: %s", target.parent, e)


__all__ = ["PHRASES", "CATALOG", "ENGLISH", "Phrases", "PhraseBook", "translate_phrases", "phrase_problem", "cache_key",
           "folder", "enabled"]
