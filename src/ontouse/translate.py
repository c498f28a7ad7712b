"""The question in the ontology's label language: one small constrained model call before linking and planning.

A question asked in another language than the one the ontology is labelled in is translated by the model into
that language (and into English when neither is English, because the question's kind — a count, a yes/no, a
superlative — is read from English grammar by question.py and verify.py). The call's output is held to a JSON
Schema through the tool rails (ontocore.agent): the language the question is written in, one of
ontocore.language.SUPPORTED, and one text per target language.

The prompt names the ontology's own words in each target language (`vocabulary`: the labels of its classes, of its
properties and of the few named things used as values, in that language), so that the model translates a noun into
the word the data uses ("Haie" -> "sharks" rather than a word of its own) instead of guessing.

With the optional multilingual sentence-embedding model installed (ontocore.crosslingual, the `multilingual`
extra), the prompt also names the words of the question that probably name one of those words (`glossary`:
"Haie": "shark").

The guard: a translation is used only when every quoted name or value of the question and every number in it
comes through unchanged; otherwise (or when the call gives nothing usable) the original question is used. The
original question always stays the question of the answer."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ontocore.agent import run_agent
from ontocore.embeddings import split_name
from ontocore.errors import ToolArgumentError
from ontocore.language import NAMES, SUPPORTED, base_code, detect
from ontocore.llm import ChatModel
from ontocore.prompts import ask as prompts
from ontocore.text import quoted
from ontocore.tools import Tool
from ontocore.trace import Trace

from .storage.querycheck import QueryError

log = logging.getLogger(__name__)

TOOL = "translated"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MAX_TOKENS_PER_CHAR = 0.6  # a generous bound of a translation's tokens per character of the question, per target
MIN_TOKENS = 60
MAX_TERMS = 60  # words of the ontology named per target language in the prompt
MAX_VALUE_ROWS = 25  # a class whose labelled members are named as words: at most this many members


@dataclass
class Translation:
    source: str  # the language the question is written in (detected, or as the model reported it when unknown)
    texts: dict[str, str] = field(default_factory=dict)  # language -> the question in that language (used ones)
    reported: str = ""  # the language the model says the question is written in
    rejected: str = ""  # why the model's translation was not used ("" when it was, or no call was made)

    def get(self, lang: str, default: str) -> str:
        return self.texts.get(lang, default)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"from": self.source, "texts": dict(self.texts)}
        if self.reported and self.reported != self.source:
            out["reported"] = self.reported
        if self.rejected:
            out["rejected"] = self.rejected
        return out


def _field(lang: str) -> str:
    return NAMES[lang].lower()


def guard_problem(original: str, translated: str) -> str:
    """Why a translation cannot stand in for the question ("" when it can): a quoted name or value changed or is
    missing, a number changed, or the text is empty or far longer than the question."""
    text = " ".join((translated or "").split())
    if not text:
        return "the translation is empty"
    if len(text) > 3 * len(original) + 100:
        return "the translation is far longer than the question"
    lost = [v for v in quoted(original) if v not in text]
    if lost:
        return "quoted value(s) changed in the translation: " + ", ".join(repr(v) for v in lost)
    if sorted(_NUMBER.findall(original)) != sorted(_NUMBER.findall(text)):
        return "the numbers of the translation differ from the question's"
    return ""


@dataclass
class Term:
    """One of the ontology's words: a class, a shown property or a named value, with its labels by language."""

    iri: Any
    name: str = ""  # the view's name for it ("" for a named value)
    labels: dict[str, list[str]] = field(default_factory=dict)  # ISO 639-1 code ("" untagged) -> labels

    def word(self, lang: str, main: str) -> str:
        """Its word in `lang` ("" when it has none; in the main label language the view's name stands in)."""
        found = self.labels.get(lang) or ([split_name(self.name).lower()] if lang == main and self.name else [])
        return found[0] if found else ""

    def texts(self) -> list[str]:
        """Every label it has, in any language, and the view's name."""
        out = [t for texts in self.labels.values() for t in texts] + ([split_name(self.name)] if self.name else [])
        return list(dict.fromkeys(out))


def ontology_terms(store: Any, schema: Any) -> list[Term]:
    """The ontology's words: its classes (largest first), the properties the view shows, and the members of small
    classes that other things link to (the named values: a status, a colour), each with its labels by language."""
    items: list[tuple[Any, str]] = []  # (IRI, the view's name for it)
    values: set[Any] = set()
    tables = sorted(schema.tables.values(), key=lambda t: (-t.count, t.name))
    for t in tables:
        items.append((t.cls, t.name))
    for t in tables:
        for c in t.columns.values():
            if c.kind != "id" and c.prop is not None and not c.hidden and not c.is_label:
                items.append((c.prop, c.name))
                target = schema.tables.get(c.target.lower()) if c.kind == "link" and c.target else None
                if target is not None and 0 < target.count <= MAX_VALUE_ROWS:
                    values.add(target.cls)
    terms = {iri: Term(iri, name) for iri, name in reversed(items)}  # the first name of an IRI wins
    terms = {iri: terms[iri] for iri in dict.fromkeys(i for i, _ in items)}
    props = " ".join(p.n3() for p in schema.label_props) or "<http://www.w3.org/2000/01/rdf-schema#label>"
    query = ("SELECT ?x ?l WHERE { { VALUES ?x { %s } VALUES ?p { %s } ?x ?p ?l } UNION "
             "{ VALUES ?c { %s } VALUES ?p { %s } ?x a ?c ; ?p ?l } }")
    try:
        rows = store.select(query % (" ".join(i.n3() for i in terms), props,
                                     " ".join(c.n3() for c in sorted(values)) or "<urn:x-none>", props),
                            max_rows=20 * (len(terms) + len(values) * MAX_VALUE_ROWS) + 100).rows
    except QueryError as e:
        log.info("the ontology's words were not read: %s", e)
        rows = []
    for x, label in rows:
        term = terms.setdefault(x, Term(x))
        texts = term.labels.setdefault(base_code(getattr(label, "language", None)), [])
        text = " ".join(str(label).split())
        if text and text not in texts:
            texts.append(text)
    return list(terms.values())


def vocabulary(terms: list[Term], lang: str, main: str, limit: int = MAX_TERMS) -> list[str]:
    """The ontology's words in `lang` (ontology_terms' order; in the main label language the view's own names stand
    in for a thing without a label in it), each once, at most `limit`."""
    first: dict[str, str] = {}
    for term in terms:
        w = term.word(lang, main)
        if w:
            first.setdefault(w.casefold(), w)
    return list(first.values())[:limit]


def glossary(linker: Any, question: str, terms: list[Term], lang: str, main: str) -> list[tuple[str, str]]:
    """(words of the question, the ontology's word in `lang` they name) by a multilingual sentence-embedding model
    (ontocore.crosslingual), for the terms that have a word in `lang`; words the question already uses as they are
    need no telling ("Tier" in a German question names the animal, whose German label it is: it is told as "animal"
    for English, and left out for German)."""
    named = [t for t in terms if t.word(lang, main)]
    found = [(span, named[i].word(lang, main)) for span, i in linker.links(question, [t.texts() for t in named])]
    return [(span, word) for span, word in found if span.casefold() != word.casefold()]


def _fold_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


_REASK = "Translate the words; keep names and quoted texts."


def not_in(text: str, lang: str, original: str) -> bool:
    """The text is not in `lang`: the question copied as it was, or read as another language by the identifier
    (quoted names left out, which are in any language)."""
    if " ".join(text.split()).casefold() == " ".join(original.split()).casefold():
        return True
    if _REASK.casefold() in text.casefold() or f"is not {NAMES[lang]}:".casefold() in text.casefold():
        return True  # the re-ask's words written back, not a translation
    bare = text
    for v in quoted(text):
        bare = bare.replace(v, " ")
    found = detect(bare)
    return found.source == "identifier" and found.lang not in ("", lang)


def translate(model: ChatModel, question: str, source: str, targets: list[str], *,
              trace: Trace | None = None, words: dict[str, list[str]] | None = None,
              hints: dict[str, list[tuple[str, str]]] | None = None) -> Translation:
    """The question in each of `targets` (ISO 639-1 codes), guarded; `source` "" when the language is unknown (the
    model then says it). A target equal to the source language is the question itself. `words`: the ontology's
    words per target language (`vocabulary`), named in the prompt; `hints`: per target language, words of the
    question and the ontology's word they name (`glossary`)."""
    found = Translation(source=source)
    wanted = [t for t in dict.fromkeys(targets) if t in SUPPORTED]
    if not wanted:
        return found
    sink: dict[str, Any] = {}
    tried: list[bool] = []  # one re-ask for a text left in another language

    def translated(**args: Any) -> str:
        sink.clear()
        sink.update(args)
        said = str(args.get("language") or "") or source
        wrong = [f"{_field(t)} is not {NAMES[t]}: write it in {NAMES[t]}" for t in wanted if t != said
                 and not_in(str(args.get(_field(t)) or ""), t, question)]
        if wrong and not tried:
            tried.append(True)
            raise ToolArgumentError("; ".join(wrong) + ". " + _REASK)
        return "ok"

    props: dict[str, Any] = {"language": {"enum": list(SUPPORTED),
                                          "description": "the language the question is written in"}}
    for t in wanted:
        props[_field(t)] = {"type": "string", "description": f"the question in {NAMES[t]}"}
    spec = Tool(TOOL, "The question, translated.", {"type": "object", "additionalProperties": False,
                                                    "required": list(props), "properties": props}, translated,
                terminal=True)
    names = " and ".join(f"{NAMES[t]} ({_field(t)})" for t in wanted)
    known = "".join(f"- in {NAMES[t]}: " + ", ".join(words[t]) + "\n" for t in wanted if (words or {}).get(t))
    if known:
        known = ("The database's own words (use the one the question means, rather than a word of your own):\n"
                 + known + "\n")
    pairs = "".join(f'- "{span}": "{word}" in {NAMES[t]}\n' for t in wanted for span, word in (hints or {}).get(t, []))
    if pairs:
        known += "Words of this question that probably name one of them:\n" + pairs + "\n"
    prompt = prompts.render("ask_translate", targets=names, codes=", ".join(SUPPORTED), tool=TOOL,
                            vocabulary=known, question=question)
    budget = max(MIN_TOKENS, int(len(question) * MAX_TOKENS_PER_CHAR * len(wanted)) + 40)
    result = run_agent(model, [{"role": "user", "content": prompt}], [spec], max_turns=2, trace=trace,
                       label="translate", max_tokens=budget)
    if result.state != "answered":
        found.rejected = f"the translation call gave no usable answer ({result.state})"
        return found
    reported = str(sink.get("language") or "")
    if reported in SUPPORTED:
        found.reported = reported
        found.source = source or reported
    problems = []
    for t in wanted:
        if t == found.source:
            continue  # the question is already in this language
        text = " ".join(str(sink.get(_field(t)) or "").split())
        echoed = _fold_words(text) in {_fold_words(spec.description),
                                       *(_fold_words(v["description"]) for v in props.values())}
        problem = ("the call's own description written back, not a translation" if echoed else
                   guard_problem(question, text) or (f"not written in {NAMES[t]}" if not_in(text, t, question) else ""))
        if problem:
            problems.append(f"{NAMES[t]}: {problem}")
            continue
        found.texts[t] = text
    found.rejected = "; ".join(problems)
    if problems:
        log.info("translation not used: %s", found.rejected)
    return found


__all__ = ["Term", "Translation", "glossary", "guard_problem", "ontology_terms", "translate", "vocabulary"]
