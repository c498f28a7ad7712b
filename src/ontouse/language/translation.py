"""The question in English and in the ontology's label language: small model calls before linking and planning.

A question asked in a known language other than English is translated into English by one plain chat call whose
reply is the translation (`translate_text`); an English question, and the English translation of any other, is
translated the same way into the ontology's main label language when that is not English and the ontology does not
name its classes and properties in English too (ontouse.reading: every language goes the English question's
way; with English names the view shows them and the English question is planned). The question's kind - a count, a yes/no, a superlative - is read
from English grammar by question.py and the checks (ontouse/checks/). A question whose language was not told apart (no identifier
installed) goes through `translate`, one call held to a JSON Schema through the tool rails (ontocore.agent), which
also names the language the question is written in, one of ontouse.language.detection.SUPPORTED.

Each call is told the ontology's own words and the question's words that name them (glossary.py).

The guard: a translation is used only when every quoted name or value of the question and every number in it
comes through unchanged, and a question's question mark too (a reply that answers the question, or states it, is
no translation of it). A quoted name the model changed is first put back by code (`restore_quoted`); a text that
still fails, or is left in another language, or repeats the call's own descriptions, is asked again once; after
that (or when the call gives nothing usable) the original question is used. The original question always stays
the question of the answer."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Any, Callable

from ontocore.agent import run_agent
from ontocore.errors import ToolArgumentError
from ontocore.llm import ChatModel
from ontocore.text import QUOTED, fold, quoted
from ontocore.tools import Tool
from ontocore.trace import Trace

from ..prompts import prompts
from .detection import NAMES, SUPPORTED, Detection, detect
from .glossary import keeps_part, missing_words, swapped_words

log = logging.getLogger(__name__)

TOOL = "translated"
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MAX_TOKENS_PER_CHAR = 0.6  # a generous bound of a translation's tokens per character of the question, per target
MIN_TOKENS = 60
RESTORE_LIKENESS = 0.6  # how alike a span of the translation must spell a lost quoted value to be put back


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
    if "?" in original and "?" not in text:
        return "the translation is no question (the question mark is missing)"
    return ""


def restore_quoted(original: str, translated: str) -> str:
    """The translation with the question's quoted names and values put back where the model changed them: when it
    has as many quoted texts as the question, each one that is not one of the question's is replaced by the
    question's in the same place ("Jonas Reef" written "Jonas Riff" is a name, not a word to translate); else one
    that the translation lost is put back over the span of as many words that spells it most alike (at least
    RESTORE_LIKENESS of its letters). Anything else is left for the guard."""
    values = quoted(original)
    lost = [v for v in values if v not in translated]
    if not lost:
        return translated
    found = list(QUOTED.finditer(translated))
    if len(found) == len(values):
        out, end = [], 0
        for m, v in zip(found, values):
            g = next(i for i in range(1, len(m.groups()) + 1) if m.group(i))
            out += [translated[end:m.start(g)], v]
            end = m.end(g)
        return "".join(out) + translated[end:]
    for v in lost:
        n = len(v.split())
        words = list(re.finditer(r"\S+", translated))
        best, where = RESTORE_LIKENESS, None
        for i in range(len(words) - n + 1):
            start, stop = words[i].start(), words[i + n - 1].end()
            span = translated[start:stop].strip("\"'“”„«»‘’.,;:!?¿¡()")
            likeness = SequenceMatcher(None, fold(span), fold(v)).ratio()
            if likeness >= best:
                best, where = likeness, translated.index(span, start)
                where = (where, where + len(span))
        if where is not None:
            translated = translated[:where[0]] + v + translated[where[1]:]
    return translated



def _fold_words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


_REASK = "Translate the words; keep names and quoted texts."
NOT_IN = "not written in %s"


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


def model_reading_counts(found: Detection, translation: Translation) -> bool:
    """The language the translation call says the question is in replaces the detection: when the identifier was
    not sure and the call's own texts do not contradict it. A language the call translated the question into (a
    text kept by the guard, so not the question copied) is not the question's language: seen with the embedded
    model, an Italian question reported as English next to its English translation, after which the translation was
    dropped and the Italian question planned as if it were English."""
    reported = translation.reported
    if not reported or found.source == "identifier" or reported == found.lang:
        return False
    return reported not in translation.texts


def _known_words(wanted: list[str], words: dict[str, list[str]] | None,
                 hints: dict[str, list[tuple[str, str]]] | None) -> str:
    """The prompt's part that names the ontology's own words per target language (`words`) and the words of the
    question that probably name one of them (`hints`); "" when there are none."""
    known = "".join(f"- in {NAMES[t]}: " + ", ".join(words[t]) + "\n" for t in wanted if (words or {}).get(t))
    if known:
        known = ("The database's own words (use the one the question means, rather than a word of your own):\n"
                 + known + "\n")
    pairs = "".join(f'- "{span}": "{word}" in {NAMES[t]}\n' for t in wanted for span, word in (hints or {}).get(t, []))
    if pairs:
        known += "Words of this question that probably name one of them:\n" + pairs + "\n"
    return known


def _keep_texts(found: Translation, sink: dict[str, Any], source: str, wanted: list[str], question: str,
                problem: Callable[[str, Any], str]) -> None:
    """What the translation call answered, kept in `found`: the language it says the question is in (when the
    detection did not know it), and each target's text that passes `problem` (the guard); why the others do not,
    in `found.rejected`."""
    reported = str(sink.get("language") or "")
    if reported in SUPPORTED:
        found.reported = reported
        found.source = source or reported
    problems = []
    for t in wanted:
        if t == found.source:
            continue  # the question is already in this language
        text = restore_quoted(question, " ".join(str(sink.get(_field(t)) or "").split()))
        why = problem(t, text)
        if why:
            problems.append(f"{NAMES[t]}: {why}")
            continue
        found.texts[t] = text
    found.rejected = "; ".join(problems)
    if problems:
        log.info("translation not used: %s", found.rejected)


def translate(model: ChatModel, question: str, source: str, targets: list[str], *,
              trace: Trace | None = None, words: dict[str, list[str]] | None = None,
              hints: dict[str, list[tuple[str, str]]] | None = None,
              names: dict[str, list[tuple[str, str]]] | None = None,
              kinds: dict[str, list[str]] | None = None, reask: bool = True) -> Translation:
    """The question in each of `targets` (ISO 639-1 codes), guarded; `source` "" when the language is unknown (the
    model then says it). A target equal to the source language is the question itself. `words`: the ontology's
    words per target language (`vocabulary`), named in the prompt; `hints`: per target language, words of the
    question and the ontology's word they probably name (`glossary`); `names`: the same, read from the ontology's
    own labels (`label_glossary`, over the classes), so sure that a translation that puts another of the classes'
    words (`kinds`, per target language) in the place of one is asked again once, told the word (seen: a German
    word labelled in German translated as another class's English word); `names` are not named in the first prompt
    (listed there, the embedded model wrote the question back untranslated). A target still without a translation after the re-ask is
    asked once more in a plain call, without `words` and `hints`, and not asked again (`reask`; seen: with the
    ontology's words listed, the embedded model wrote "The question, translated." twice where the plain prompt
    translated the question)."""
    found = Translation(source=source)
    wanted = [t for t in dict.fromkeys(targets) if t in SUPPORTED]
    if not wanted:
        return found
    sink: dict[str, Any] = {}
    tried: list[bool] = [] if reask else [False]  # one re-ask: a text left in another language, a word swapped
    said_again: list[str] = []  # what the re-ask told (written back, it is no translation)

    def problem(t: str, written: Any) -> str:
        """Why the text the call wrote for target `t` is no translation to use ("" when it is one)."""
        text = restore_quoted(question, " ".join(str(written or "").split()))
        if _fold_words(text) in echoes or any(_fold_words(line) in _fold_words(text) for line in said_again):
            return "the call's own description written back, not a translation"
        return guard_problem(question, text) or (NOT_IN % NAMES[t] if not_in(text, t, question) else "")

    def translated(**args: Any) -> str:
        sink.clear()
        sink.update(args)
        asked_in = source or str(args.get("language") or "")
        wrong = [f"{_field(t)} is not {NAMES[t]}: write it in {NAMES[t]}" if p == NOT_IN % NAMES[t] else
                 f"{_field(t)}: {p}" for t in wanted if t != asked_in and (p := problem(t, args.get(_field(t))))]
        lost = [f'{_field(t)}: "{span}" is "{word}" in {NAMES[t]}' for t in wanted if t != asked_in
                for span, word in swapped_words(str(args.get(_field(t)) or ""), question, (names or {}).get(t, []),
                                                (kinds or {}).get(t, []))]
        if (wrong or lost) and not tried:
            tried.append(True)
            said_again.extend(wrong + lost)
            raise ToolArgumentError("; ".join(wrong + lost) + ". " + _REASK)
        return "ok"

    props: dict[str, Any] = {"language": {"enum": list(SUPPORTED),
                                          "description": "the language the question is written in"}}
    for t in wanted:
        props[_field(t)] = {"type": "string", "description": f"the question in {NAMES[t]}"}
    spec = Tool(TOOL, "The question, translated.", {"type": "object", "additionalProperties": False,
                                                    "required": list(props), "properties": props}, translated,
                terminal=True)
    echoes = {_fold_words(spec.description), *(_fold_words(v["description"]) for v in props.values())}
    languages = " and ".join(f"{NAMES[t]} ({_field(t)})" for t in wanted)
    prompt = prompts.render("ask_translate", targets=languages, codes=", ".join(SUPPORTED), tool=TOOL,
                            vocabulary=_known_words(wanted, words, hints), question=question)
    budget = max(MIN_TOKENS, int(len(question) * MAX_TOKENS_PER_CHAR * len(wanted)) + 40)
    result = run_agent(model, [{"role": "user", "content": prompt}], [spec], max_turns=2, trace=trace,
                       label="translate", max_tokens=budget)
    if result.state != "answered":
        found.rejected = f"the translation call gave no usable answer ({result.state})"
        return found
    _keep_texts(found, sink, source, wanted, question, problem)
    left = [t for t in wanted if t != found.source and t not in found.texts]
    if left and (words or hints):  # one plain call more, without the lists the model wrote back
        plain = translate(model, question, found.source, left, trace=trace, names=names, kinds=kinds, reask=False)
        found.texts.update(plain.texts)
        found.rejected = "; ".join(x for x in (found.rejected + " (asked plainly: "
                                               + (plain.rejected or "translated") + ")",) if x)
    return found


_WRAP = "\"'“”„«»‘’`"


def reply_text(reply: str, target: str) -> str:
    """The translation in a plain reply: its first line with text, without a leading "English:" or "Translation:"
    and without quotes around the whole of it (quotes around a name inside stay)."""
    line = next((x.strip() for x in (reply or "").splitlines() if x.strip()), "")
    head = line.split(":", 1)[0].strip().casefold()
    if ":" in line and head in {NAMES[target].casefold(), "translation", f"{NAMES[target]} translation".casefold(),
                                "question", f"{NAMES[target]} question".casefold()}:
        line = line.split(":", 1)[1].strip()
    if len(line) > 1 and line[0] in _WRAP and line[-1] in _WRAP and sum(line.count(c) for c in _WRAP) == 2:
        line = line[1:-1].strip()
    return line


ASK_PLAIN = "Translate:"  # the question is the object of the request, not a question to the model (seen: "Yes.")


def translate_text(model: ChatModel, question: str, source: str, target: str, *, trace: Trace | None = None,
                   words: list[str] | None = None, hints: list[tuple[str, str]] | None = None,
                   names: list[tuple[str, str]] | None = None, kinds: list[str] | None = None,
                   told: list[tuple[str, str]] | None = None) -> Translation:
    """The question, written in the known language `source`, in the one language `target`, by a plain chat call
    whose reply is the translation (no JSON: held to a tool's schema, the embedded model copied German questions
    into the "english" field, and wrote the tool's description back). `words`: the ontology's words in `target`
    (`vocabulary`), named in the prompt, with `hints` (`glossary`: words of the question that probably name one of
    them); `names`: words of the question and the ontology's word in `target` they
    name (`label_glossary`), and `kinds`, the words of its classes in `target`: a translation that puts another
    class's word in the place of one is told the word; `told`: words of the question and the ontology's word in
    `target` a bilingual dictionary translates them to (`dictionary_glossary`, `label_glosses`), named with the
    hints: a translation that does not use one of those words is told it once, and used when it then keeps a part
    of each (else it is not used). The same guard as `translate` (quoted names, numbers, the question mark, a text
    left in another language or the prompt written back); one re-ask in the same conversation, told the problem;
    else no translation (`rejected` says why)."""
    found = Translation(source=source)
    if source == target or target not in SUPPORTED or source not in SUPPORTED:
        return found
    known = f"The database's own words in {NAMES[target]}: " + ", ".join(words) + ". Where a word of the " \
        "question means one of them, use it." if words else ""
    if told or hints:
        known += " Words of this question that probably name one of them: " + ", ".join(
            f'"{span}": "{word}"' for span, word in (told or []) + (hints or [])) + "."
    system = prompts.render("ask_translate_text", source=NAMES[source], target=NAMES[target], vocabulary=known)
    echoes = [_fold_words(part) for part in re.split(r"[.;\n]", system) if len(part.split()) > 3]
    messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                      {"role": "user", "content": f"{ASK_PLAIN} {question}"}]
    budget = max(MIN_TOKENS, int(len(question) * MAX_TOKENS_PER_CHAR) + 40)
    why = ""
    for turn in (1, 2):
        reply = model.chat(messages, tools=None, max_tokens=budget, temperature=0.0)
        content = reply.content or ""
        text = restore_quoted(question, reply_text(content, target))
        folded = _fold_words(text)
        if any(e and e in folded for e in echoes):
            why = "the prompt written back, not a translation"
        else:
            why = guard_problem(question, text) or (NOT_IN % NAMES[target] if not_in(text, target, question) else "")
        swapped = [] if why else swapped_words(text, question, names or [], kinds or [])
        lost = swapped + [pair for pair in ([] if why else missing_words(text, told or [])) if pair not in swapped]
        if lost:
            why = "; ".join(f'"{span}" is "{word}" in {NAMES[target]}' for span, word in lost)
        if trace is not None:
            trace.write("llm", label="translate", turn=turn, reply=reply.to_dict(), text=text, problem=why)
        if not why or (turn == 2 and lost and not swapped and all(keeps_part(text, w) for _, w in lost)):
            found.texts[target] = text  # (a told word of several kept in part again: "shovels" of "garden shovel")
            return found
        messages += [{"role": "assistant", "content": content},
                     {"role": "user", "content": f"{why[0].upper()}{why[1:]}. Reply with the {NAMES[target]} "
                                                 "question only."}]
    found.rejected = f"{NAMES[target]}: {why}"
    log.info("translation not used: %s", found.rejected)
    return found



__all__ = ["Translation", "guard_problem", "model_reading_counts", "not_in", "reply_text", "restore_quoted", "translate",
           "translate_text"]
