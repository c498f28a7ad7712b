"""The answerer: a question in, an answer with its SPARQL and support triples out.

Per question (every step bounded by counts, never by the clock):
1. the question is parsed once (question.py) and linked to the values it names (linking.py);
2. the model writes a query plan in SQL over the relational view of the ontology (sqlplan/schema.py, view_prompt.py),
   given the view, the value hints and, optionally, the user's most similar example questions (examples.py);
3. code reads the plan and checks every name against the view (sqlplan/reader.py), repairs what has one
   meaning (repairs.py), compiles it to SPARQL (sqlplan/compile.py) and runs it through the store (storage/);
4. an error, an empty result or a result of the wrong shape goes back to the model with the precise problem,
   at most `max_attempts` model calls in all;
5. a result that passed every check is asked for again, within the same budget of calls: a second plan, asked
   another way (sampled, then worded differently), must give the same answer (agreement.py), else the answer is
   "Unsure" with both;
6. the answer text, the result cells and the support triples come from the results (results.py, support.py);
   without a result the answer is "No data available" with what was looked for; the text's fixed phrases are in
   the question's language (phrases.py), the values in it are the data's own."""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

from rdflib import URIRef

from ontocore.bilingual import open_dictionary
from ontocore.crosslingual import MARGIN, MIN_SIMILARITY, CrossLingual
from ontocore.crosslingual import available as crosslingual_available
from ontocore.embeddings import Embedder
from ontocore.embeddings import available as lexicon_available
from ontocore.errors import InputError, ModelBehaviorError, ModelServerError, OntoError
from ontocore.language import DEFAULT as ENGLISH
from ontocore.language import Detection, detect, preference
from ontocore.llm import ChatModel, open_model
from ontocore.prompts import ask as prompts
from ontocore.text import fold
from ontocore.trace import Trace

from .agreement import same_answer
from .arbitration import Reading, Verdict, arbitrate, majority
from .answer import Answer
from .sqlplan.compile import Compiled, compile_plan
from .sqlplan.diagnose import diagnose_empty
from .examples import Examples
from . import storeview, viewcache
from .linking import MAX_HINTS, ValueIndex
from .sqlplan.plan import PlanError, Query, excludes_rows, is_aggregate, nested, to_dict, view_misses
from .question import Question, asks_several, parse_question
from .repairs import repair_plan
from .phrases import ENGLISH as ENGLISH_WORDS, PhraseBook, Phrases
from .results import answer_text, boolean_of, make_cells, no_data_text, one_label_per_thing, unsure_text
from .sqlplan.bigschema import build_view
from .sqlplan.schema import Schema, english_covered
from .storage.sparql import QueryError
from .sqlplan.reader import read_sql
from .storage.store import GraphStore, Store
from .support import support_set
from .translate import (Term, Translation, contradicted, dictionary_glossary, glossary, label_glossary, label_glosses,
                        model_reading_counts, ontology_terms, spelling_glossary, translate, translate_text, vocabulary)
from .relevance import Relevance
from .ambiguity import name_probes, tie_probes, tied_rows
from .checks import Candidate, Outcome, first_problem, registry, repair_for, verify
from .checks.asked import ASKED_CLASS_READ, widened_to_asked
from .view_prompt import estimate_tokens, examples_prompt, fitting_detail, parts, schema_ddl, shown_tables

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # model calls per question
MAX_TOKENS = 300
MAX_ROWS = 1000
QUERY_TIMEOUT = 20.0
RETRY_TEMPERATURE = 0.7
# the second plans of a result that passed every check, in this order, each while the budget of calls lasts:
# the first request sampled, then the request worded another way (the model first says what the answer is about)
SECOND_PLANS = ("sampled", "reworded")
SECOND_TEMPERATURE = 0.8
# the repairs by code that change what a plan reads (the checks' repairs, kept when every check then passes, and
# repairs.py's both_joined): a result that needed one is worth a second plan
CODE_REPAIRS = frozenset({c.name for c in registry() if c.repair is not None} | {"both_joined"})
REASON_TOKENS = 80  # the reworded request's one line before the query
FULL_VIEW_TOKENS = 3400  # a system prompt up to this size holds the whole view (cached across questions)
# ... and up to this size when the model keeps an announced prompt start (the local model, llm.LocalChat.keep_prefix):
# the whole view is then evaluated once per ontology and machine, not per question nor per process, so a larger
# whole view costs less than a cut one (whose tables are evaluated with every question); bounded by the context
# (8192 tokens: the view, the question and up to three attempts with their repair notes)
KEPT_VIEW_TOKENS = 6000
PART_VIEW_TOKENS = 1800  # else the part of the view a question is about, up to this size

_SQL_BLOCK = re.compile(r"```(?:sqlite|sql)?\s*(.*?)(?:```|$)", re.DOTALL | re.IGNORECASE)


def extract_sql(text: str) -> str:
    """The SQL in a model reply: the first fenced block, else the text from the first SELECT / WITH."""
    text = text or ""
    m = _SQL_BLOCK.search(text)
    if m and m.group(1).strip():
        return m.group(1).strip()
    m = re.search(r"\b(SELECT|WITH)\b.*", text, re.DOTALL | re.IGNORECASE)
    return m.group(0).strip() if m else text.strip()


def _norm(sql: str) -> str:
    return " ".join(sql.split()).rstrip(";").lower()


@dataclass
class _Run:
    sql: str
    plan: Any = None
    compiled: Compiled | None = None
    rows: list = None  # type: ignore[assignment]
    total: int = 0
    truncated: bool = False
    problem: str = ""
    fixes: tuple[str, ...] = ()
    zero: bool = False  # an aggregate of nothing (a count of 0)
    raw: list = None  # type: ignore[assignment]  # the result rows as RDF terms
    checks: list = None  # type: ignore[assignment]  # the checks.Outcome list of this result
    missing: tuple[str, ...] = ()  # the tables / columns the plan names that the view does not have


class Answerer:
    """Answers questions over one store; the view of the ontology is built once."""

    def __init__(self, store: Store, model: ChatModel, *, schema: Schema | None = None,
                 examples: Examples | None = None, trace: Trace | None = None,
                 max_attempts: int = MAX_ATTEMPTS, second_plans: int = len(SECOND_PLANS)) -> None:
        self.store = store
        self.model = model
        started = time.perf_counter()
        folder = getattr(store, "folder", None) if schema is None else None
        key = viewcache.view_key(getattr(store, "files", ())) if schema is None and folder is None else None
        kept = viewcache.load(key)
        if kept is not None:  # the view of these files, built by this code in an earlier process
            self.schema, self.index = kept
            self.index.store = store
        elif folder is not None:  # a persisted store: the view saved beside it (by ontobuild, or a first ontoask)
            self.schema = storeview.load(folder)
            if self.schema is None:
                self.schema = build_view(store)
                storeview.save(folder, self.schema)
            self.index = ValueIndex.build(self.schema, store, shown={t.name for t in shown_tables(self.schema)})
        else:
            self.schema = schema or build_view(store)
            self.index = ValueIndex.build(self.schema, store, shown={t.name for t in shown_tables(self.schema)})
            viewcache.save(key, self.schema, self.index)
        self.index.embedder = Embedder() if lexicon_available() else None
        self.view_seconds = time.perf_counter() - started
        if not self.schema.tables:
            raise InputError("The ontology has no typed individuals (no rdf:type to a class), so there is nothing "
                             "to ask about.")
        self.shown = shown_tables(self.schema)
        self._examples_text = examples_prompt(self.schema)
        self.relevance: Relevance | None = None
        self._terms: list[Term] | None = None  # the ontology's words, for translations (read at the first one)
        self._linker = CrossLingual() if crosslingual_available() else None  # the multilingual model, if installed
        # the view names its classes and properties in English too (labels in another main language): an English
        # question is planned as asked, and the English reading of any other, with no second translation
        self._english_view = english_covered(self.schema)
        keep = getattr(model, "keep_prefix", None)
        self._keep = keep if callable(keep) else None
        budget = KEPT_VIEW_TOKENS if callable(keep) else FULL_VIEW_TOKENS
        # the view, whole, at the most detail that fits the budget; a view of several unconnected parts that is
        # larger than a small whole view is shown part by part (the part a question is about); a view that fits
        # neither way is cut per question
        self.detail = fitting_detail(self._render, budget) or 0
        self.system = self._render(self.detail)
        self.parts: list[list] = []
        self._part_prompts: dict[int, str] = {}
        split = parts(self.schema, shown_tables(self.schema, small_parts=True))
        if len(split) > 1 and estimate_tokens(self._render(0)) > FULL_VIEW_TOKENS and all(
                fitting_detail(lambda level, p=p: self._render(level, p), PART_VIEW_TOKENS) is not None
                for p in split):
            self.parts = split
            self.relevance = Relevance(self.schema, [t for part in split for t in part])
            self.index.shown |= {t.name for part in split for t in part}  # every part's values are hinted
            log.info("the view is shown part by part (%d unconnected parts)", len(split))
        elif fitting_detail(self._render, budget) is None:  # too large to show whole: cut per question
            self.relevance = Relevance(self.schema, self.shown)
            log.info("the view (%d tokens) is cut per question to about %d tokens",
                     estimate_tokens(self.system), PART_VIEW_TOKENS)
        if self._keep is not None:  # the local model keeps the evaluated stable start in memory and on disk
            self._keep(self.system if self.relevance is None else self._stable_start())
        self.examples = examples
        self.trace = trace or Trace(None)
        self.phrases = PhraseBook(model, self.trace)  # the answer text's fixed phrases per language
        self.max_attempts = max_attempts
        self.second_plans = second_plans  # how many second plans a result may be compared with (0: none)
        self._known: dict[str, set[str]] = {}  # a thing's IRI -> the values it is known by (_identifiers)
        self._verdict: Verdict | None = None  # the last arbitration between plans (_second_plans)
        self._readings: list[_Run] = []  # the runs it chose among
        log.info("view of the ontology: %d tables in %.1f s", len(self.schema.tables), self.view_seconds)

    # ---- one question --------------------------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        text = " ".join((question or "").split())
        if not text:
            raise InputError("The question is empty.")
        started = time.perf_counter()
        before = self.model.usage.snapshot()
        reuse_before = reuse_counts(self.model)
        waited0 = getattr(self.model.usage, "wait_seconds", 0.0)
        detection, translation, asked, english = self._language(text)
        q, linked = self._parse(asked, english, detection.lang)
        mentions = self._mentions(linked, text, english)
        if self.parts:  # a view of unconnected parts: the part the question is about, and the values named in it
            part = self._part_for(asked, mentions)
            inside = {t.name.lower() for t in self.parts[part]}
            mentions = [m for m in mentions if m.table.lower() in inside]
            system = self._part_prompt(part)
        else:
            system = self._system_for(asked, mentions)
        hints = "".join(f"-- {m.hint()}\n" for m in mentions)
        shots = self.examples.prompt_for(asked) if self.examples else ""
        user = prompts.render("ask_sql_question", hints=hints, examples=shots, question=asked)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system},
                                          {"role": "user", "content": user}]
        self.trace.write("question", question=text, hints=[m.hint() for m in mentions],
                         **({"language": detection.to_dict(), "asked": asked} if asked != text else {}))
        runs: list[_Run] = []
        best: _Run | None = None
        for attempt in range(self.max_attempts):
            # after the model wrote the same failing query twice, sample instead of decoding greedily
            repeated = len(runs) >= 2 and _norm(runs[-1].sql) in {_norm(r.sql) for r in runs[:-1]}
            reply = self.model.chat(messages, tools=None, max_tokens=MAX_TOKENS,
                                    temperature=RETRY_TEMPERATURE if repeated else 0.0)
            run = self._run(q, extract_sql(reply.content or ""), mentions)
            runs.append(run)
            self.trace.write("attempt", n=attempt + 1, reply=reply.content, sql=run.sql, problem=run.problem,
                             sparql=run.compiled.sparql if run.compiled else None, fixes=list(run.fixes),
                             rows=run.total, checks=[c.to_dict() for c in run.checks or []])
            if not run.problem:
                best = run
                break
            messages += [{"role": "assistant", "content": reply.content or ""},
                         {"role": "user", "content": prompts.render("ask_sql_repair", problem=run.problem)}]
        if best is None and runs[-1].zero and all(r.zero for r in runs[-2:]):
            best = runs[-1]  # the model stands by a count of 0 after being told: it is the answer
        words = self.phrases.get(detection.lang)  # a model call the first time a language is answered in, ever
        budget = min(self.second_plans, self.max_attempts - len(runs))
        reworded = prompts.render("ask_sql_reworded", hints=hints, examples=shots, question=asked)
        doubt = self._doubt(best, runs) if best is not None else ""
        ans = self._answer(q, best, runs, words, second=lambda: self._second_plans(
            q, best, messages[:2], reworded, mentions, budget) if best is not None and doubt else [])
        ans.question, ans.language = text, detection.lang
        if words is not ENGLISH_WORDS:
            ans.text_language = words.lang if len(words.english) < len(words.texts) else ENGLISH
        if translation is not None:
            ans.translation = {"used": asked if asked != text else "", **translation.to_dict()}
        calls, pt, ct, secs = (a - b for a, b in zip(self.model.usage.snapshot(), before))
        ans.llm_calls, ans.prompt_tokens, ans.completion_tokens = calls, pt, ct
        ans.prompt_evaluated, ans.prompt_reused, ans.prompt_loaded = (
            a - b for a, b in zip(reuse_counts(self.model), reuse_before))
        ans.wait_seconds = getattr(self.model.usage, "wait_seconds", 0.0) - waited0
        ans.seconds = time.perf_counter() - started - ans.wait_seconds
        self.trace.write("answer", **{k: v for k, v in ans.to_dict().items() if k not in ("plan",)})
        return ans

    # ---- the question's language --------------------------------------------------------------------------
    def _language(self, text: str) -> tuple[Detection, Translation | None, str, str]:
        """(the detection, the translation made or None, the question as linked and planned, its English reading)

        Any language is planned as the same question in English would be, so that it differs from English only by
        its translation: a question in another language than English is first translated into English (the kind of
        question is read from English grammar by question.py and ontouse.checks); when the ontology is labelled in
        English (its main label language, or every class and property it shows has an English label, shown in the
        prompt beside its name) that English question is planned, else it goes on exactly as an English question
        would: into the ontology's main label language (`_from_english`). A question asked in the main label
        language is planned as asked, read for its kind in English. Without a usable translation the question stays
        as asked."""
        main = self.schema.languages.main
        found = detect(text, self.schema.languages)
        if found.lang == ENGLISH:
            if main == ENGLISH or self._english_view:
                return found, None, text, text
            translation = self._from_english(text)
            return found, translation, translation.get(main, text), text
        terms, classes = self._words()
        if found.lang:  # a known language: one plain translation into English
            told, hints = self._told(text, found.lang)
            translation = translate_text(self.model, text, found.lang, ENGLISH, trace=self.trace,
                                         words=vocabulary(terms, ENGLISH, main), hints=hints, told=told,
                                         names=label_glossary(text, classes, found.lang, ENGLISH, main),
                                         kinds=vocabulary(classes, ENGLISH, main))
        else:  # not told apart: the translation call also says which language it is
            hints = {ENGLISH: self._hints(text, ENGLISH)} if self._linker else None
            translation = translate(self.model, text, "", [ENGLISH], trace=self.trace, hints=hints,
                                    words={ENGLISH: vocabulary(terms, ENGLISH, main)},
                                    kinds={ENGLISH: vocabulary(classes, ENGLISH, main)})
            if model_reading_counts(found, translation):  # the model reads the language better than clues
                found = Detection(translation.reported, "model", found.probability)
        lang = found.lang or ENGLISH
        english = text if lang == ENGLISH else translation.get(ENGLISH, "")
        if lang == main or not english:
            return found, translation, text, english
        if main == ENGLISH or self._english_view:
            return found, translation, english, english
        onward = self._from_english(english)  # as the English question would be
        translation.texts.update(onward.texts)
        translation.rejected = "; ".join(x for x in (translation.rejected, onward.rejected) if x)
        return found, translation, onward.get(main, english), english

    def _words(self) -> tuple[list[Term], list[Term]]:
        """The ontology's words (read once), and those of its classes."""
        if self._terms is None:
            self._terms = ontology_terms(self.store, self.schema)
        classes = [term for term in self._terms if term.iri in {t.cls for t in self.schema.tables.values()}]
        return self._terms, classes

    def _hints(self, text: str, lang: str) -> list[tuple[str, str]]:
        """Words of the text and the ontology's word in `lang` they probably name, by the multilingual
        model (none without it)."""
        if self._linker is None:
            return []
        terms, _ = self._words()
        return glossary(self._linker, text, terms, lang, self.schema.languages.main)

    def _told(self, text: str, lang: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        """(what the bilingual dictionaries tell, when installed (ontocore.bilingual): the English word of a class
        or named value that a word of the question translates to, for words the multilingual model gave no hint
        for (`dictionary_glossary`), and of one labelled in several words that the question says in other words
        (`label_glosses`); the multilingual model's hints, `_hints`, and the class a word the dictionary lacks
        spells, `spelling_glossary`)."""
        dictionary = open_dictionary(lang)
        terms, classes = self._words()
        main = self.schema.languages.main
        values = [t for t in terms if not t.name]  # the named values (a status, a colour)
        hints = [h for h in self._hints(text, ENGLISH) if not self._doubtful(h, values, dictionary)]
        hinted = {w for span, _ in hints for w in fold(span).split()}
        # the dictionary tells the words the multilingual model found nothing for
        told = [(span, word) for span, word in dictionary_glossary(dictionary, text, classes + values, ENGLISH, main)
                if not hinted & set(fold(span).split())]
        # a class or value of several words that the question says in other words ("pelle de jardin": "pás de jardim")
        said = label_glosses(open_dictionary, text, lang, classes + values, ENGLISH, main)
        inside = [set(fold(span).split()) for span, _ in said]  # a word told as part of such a label goes
        told = said + [(span, word) for span, word in told if not any(set(fold(span).split()) <= s for s in inside)]
        # a class's word that the question spells in a word the dictionary lacks ("veleros": sailboat), as a hint
        named = {w for span, _ in told + hints + label_glossary(text, classes, lang, ENGLISH, main)
                 for w in fold(span).split()}
        hints += [(span, word) for span, word in spelling_glossary(dictionary, text, classes, ENGLISH, main)
                  if not named & set(fold(span).split())]
        if told or dictionary is not None:
            self.trace.write("dictionary", language=lang, told=told, hints=hints)
        return told, hints

    def _doubtful(self, hint: tuple[str, str], values: list[Term], dictionary: Any) -> bool:
        """A hint that the question names a value (a status, a colour) whose link is weak - a cosine within the
        multilingual model's margin of its floor - and that the bilingual dictionary contradicts (`contradicted`):
        two readings disagree and the link is the weaker one."""
        span, word = hint
        term = next((t for t in values if t.word(ENGLISH, self.schema.languages.main) == word), None)
        if term is None or self._linker is None or dictionary is None:
            return False
        cosine = float((self._linker.embed([span]) @ self._linker.embed(term.texts()).T).max())
        if cosine >= MIN_SIMILARITY + MARGIN or not contradicted(dictionary, span, word):
            return False
        log.info('the hint "%s": "%s" (cosine %.2f) is set aside: the dictionary says otherwise', span, word, cosine)
        return True

    def _from_english(self, english: str) -> Translation:
        """An English question in the ontology's main label language (the one way every question takes into it)."""
        main = self.schema.languages.main
        terms, classes = self._words()
        return translate_text(self.model, english, ENGLISH, main, trace=self.trace,
                              words=vocabulary(terms, main, main), hints=self._hints(english, main),
                              names=label_glossary(english, classes, ENGLISH, main, main),
                              kinds=vocabulary(classes, main, main))

    def _parse(self, asked: str, english: str, lang: str) -> tuple[Question, Question]:
        """(the question read for its kind and the checks: its English reading when there is one; the question
        read for linking: as planned, in the ontology's label language)."""
        linked = parse_question(asked)
        q = parse_question(english) if english and english != asked else linked
        q.labels = preference(lang or ENGLISH, self.schema.languages.main)
        linked.labels = q.labels
        return q, linked

    def _mentions(self, linked: Question, text: str, english: str = "") -> list:
        """The values the question names: in the question as planned, and, when that is a translation, the values
        the question as asked and its English reading name whole (a value labelled in the question's language or
        in English, or a name a translation changed), after them; one hint per value and table, at most MAX_HINTS."""
        if " ".join(linked.text.split()) == text and english in ("", text):
            return self.index.mentions(linked)
        readings = dict.fromkeys(r for r in (text, english) if r and r != " ".join(linked.text.split()))
        whole = [m for r in readings for m in self.index.mentions(parse_question(r)) if m.exact]
        planned = self.index.mentions(linked)  # last: the index keeps the question it last linked
        seen = {(m.value, m.table) for m in planned}
        for m in whole:
            if (m.value, m.table) not in seen:
                seen.add((m.value, m.table))
                planned.append(m)
        return planned[:MAX_HINTS]

    def _render(self, detail: int, tables: list | None = None) -> str:
        """The system prompt over `tables` (default: every shown table) at a level of view_prompt.DETAILS."""
        return prompts.render("ask_sql_system", schema=schema_ddl(
            self.schema, self.shown if tables is None else tables, detail=detail), examples=self._examples_text)

    def _part_for(self, question: str, mentions: list) -> int:
        """The part of a view of several unconnected parts a question is about: the one that holds the most of the
        values the question names whole, then the one with the table closest to the question (relevance.py)."""
        where = {t.name.lower(): i for i, part in enumerate(self.parts) for t in part}
        named: dict[int, set[str]] = {}
        for m in mentions:
            i = where.get(m.table.lower())
            if i is not None:
                named.setdefault(i, set()).add(fold(m.value) + ("" if m.exact else "\u0000partial"))
        assert self.relevance is not None
        scores, _ = self.relevance.scores(question)
        closest = {i: max(scores.get(t.name, -1.0) for t in part) for i, part in enumerate(self.parts)}

        def rank(i: int) -> tuple:
            found = named.get(i, set())
            return (sum(1 for v in found if not v.endswith("\u0000partial")), len(found), closest[i])

        return max(range(len(self.parts)), key=rank)

    def _part_prompt(self, i: int) -> str:
        """The system prompt of part `i`: the same for every question about that part, kept by the model."""
        if i not in self._part_prompts:
            part = self.parts[i]
            level = fitting_detail(lambda d: self._render(d, part), PART_VIEW_TOKENS) or 0
            self._part_prompts[i] = self._render(level, part)
            if self._keep is not None:
                self._keep(self._part_prompts[i])
        return self._part_prompts[i]

    def _stable_start(self) -> str:
        """The start every question's system prompt shares when the view is cut per question: the instructions
        and the worked examples, up to the tables."""
        marker = "\u0000tables\u0000"
        whole = prompts.render("ask_sql_system", schema=marker, examples=self._examples_text)
        return whole.split(marker, 1)[0]

    def answer_sql(self, question: str, sql: str, *, lang: str = "", english: str = "") -> Answer:
        """The answer a given plan (SQL over the view) gives to a question, with no model call: the same reading,
        repairs, checks and support as a plan the model wrote (for tests, and for checking your own plans). `lang`:
        the question's language (names and the text's phrases in it; the phrases of a language not answered in
        before are translated by the model once, phrases.py); `english`: its English reading, which gives its kind
        (as a translation does in `ask`)."""
        text = " ".join((question or "").split())
        q = parse_question(" ".join(english.split()) or text)
        if lang:
            q.labels = preference(lang, self.schema.languages.main)
        run = self._run(q, sql, self.index.mentions(q))
        best = run if not run.problem or run.zero else None
        ans = self._answer(q, best, [run], self.phrases.get(lang))
        ans.question, ans.language = text, lang
        return ans

    def _system_for(self, question: str, mentions: list) -> str:
        """The system prompt: the whole view, or the part of a large view the question is about."""
        shown = {t.name for t in self.shown}
        extra = [self.schema.tables[m.table.lower()] for m in mentions
                 if m.table not in shown and m.table.lower() in self.schema.tables]
        extra = list({t.name: t for t in extra}.values())  # a table left out of the view whose value is named
        if self.relevance is None:
            if not extra:
                return self.system
            return self._render(self.detail, self.shown + extra)

        def fits(tables, keep) -> bool:
            return estimate_tokens(schema_ddl(self.schema, tables, keep)) <= PART_VIEW_TOKENS

        tables, keep = self.relevance.select(question, {m.table for m in mentions}, fits)
        tables = tables + [t for t in extra if t not in tables]
        for t in extra:
            keep.setdefault(t.name, {c.name for c in t.columns.values() if c.kind != "id" and not c.hidden})
        return prompts.render("ask_sql_system", schema=schema_ddl(self.schema, tables, keep),
                              examples=self._examples_text)

    def _run(self, q: Question, sql: str, mentions: list | None = None) -> _Run:
        run = _Run(sql=sql)
        mentions = mentions or []
        try:
            plan, fixes = read_sql(self.schema, sql, self.index.embedder)
            plan, more = repair_plan(plan, self.schema, self.index, q)
            run.plan, run.fixes = plan, tuple(fixes + more)
            self._execute(q, run, plan)
        except PlanError as e:
            run.problem = str(e)
            run.missing = tuple(e.details.get("missing", ()))
            return run
        except QueryError as e:
            run.problem = f"the query could not run ({e}). Write a simpler query."
            return run
        if not run.rows and q.kind == "yesno":
            return run  # "is there ...?" with nothing found: the answer is no
        texts = self.index.table_texts
        if not run.rows and not self._code_repair(
                q, run, mentions, ASKED_CLASS_READ.name, widened_to_asked(q, plan, self.schema, texts),
                "repaired: read from the class the question names, not from a subclass of it"):
            run.problem = "the query ran but found no rows: " + (diagnose_empty(self.schema, self.store, plan) or (
                "check that each condition compares the right column with a value the data holds, and that the "
                "joins follow the REFERENCES columns."))
            return run
        if not run.checks:  # (a repair of the empty result above has checked its own rows)
            run.checks = verify(q, plan, run.rows, self.schema, mentions, _aggregate_only(plan), self.index)
            run.problem = first_problem(run.checks)
        check = repair_for(run.checks)  # the failed check whose bounded repair code tries
        if check is not None:
            candidate = Candidate(q, plan, run.rows, self.schema, mentions, _aggregate_only(plan), self.index)
            self._code_repair(q, run, mentions, check.name, check.repair(candidate), "repaired: " + check.repair_note)
        aggregate_only = _aggregate_only(run.plan)
        if not run.problem and aggregate_only and not boolean_of(run.rows) and q.kind != "yesno":
            run.zero = True
            run.problem = "the query counts nothing (the result is 0): " + (
                diagnose_empty(self.schema, self.store, run.plan) or "check that each condition compares the right "
                "column with a value the data holds, and that the joins follow the REFERENCES columns.")
        return run

    def _execute(self, q: Question, run: _Run, plan) -> None:
        missing = view_misses(plan, self.schema)
        if missing:  # (never sent to the store: the reader resolves every name, this only makes sure)
            raise PlanError(f"The view has no {', '.join(missing)}.", details={"missing": missing})
        run.compiled = compile_plan(self.schema, plan, tuple(q.labels or ()))
        result = self.store.select(run.compiled.sparql, max_rows=MAX_ROWS, timeout_s=QUERY_TIMEOUT)
        run.raw = result.rows
        run.rows = make_cells(result.rows, run.compiled.columns, self.store, self.schema, q.asks_names,
                              q.labels or None)
        run.total, run.truncated = result.total, result.truncated
        said = [i for i, cells in enumerate(run.rows)
                if run.compiled.grouped or not cells or any(c.value != "" for c in cells)]
        if len(said) < len(run.rows):  # a row of empty values only (things without the values shown) says nothing
            run.total -= len(run.rows) - len(said)
            run.raw, run.rows = [run.raw[i] for i in said], [run.rows[i] for i in said]
        if len(run.rows) > 1:
            before = len(run.rows)
            run.raw, run.rows = one_label_per_thing(run.raw, run.rows, q.labels or self.schema.label_order)
            run.total -= before - len(run.rows)

    def _code_repair(self, q: Question, run: _Run, mentions: list, check: str, repaired: Any, note: str) -> bool:
        """A bounded repair by code of the plan that failed `check` (the superlative turned the way the question
        asks, the things that have a value rather than the value, the counted things listed, the asked things of a
        named thing, a subclass read as the class the question names when it found nothing): kept only when it
        finds rows and every check passes. Whether it was kept."""
        if repaired is None:
            return False
        trial = self._trial(q, run, repaired, f"the plan repaired for {check}")
        if trial is None or not trial.rows:
            return False
        checks = verify(q, repaired, trial.rows, self.schema, mentions, _aggregate_only(repaired), self.index)
        if first_problem(checks):
            return False
        run.plan, run.compiled, run.raw, run.rows = repaired, trial.compiled, trial.raw, trial.rows
        run.total, run.truncated = trial.total, trial.truncated
        run.fixes = run.fixes + (check,)
        run.checks = [Outcome(c.name, c.passed, note if c.name == check else c.detail) for c in checks]
        if check not in {c.name for c in checks}:
            run.checks.append(Outcome(check, True, note))
        run.problem = ""
        return True

    def _trial(self, q: Question, run: _Run, plan: Any, what: str) -> _Run | None:
        """`plan` (a repair of the run's plan, or a probe beside it) run on its own; None when it does not run."""
        trial = _Run(sql=run.sql)
        try:
            self._execute(q, trial, plan)
        except (PlanError, QueryError) as e:
            log.info("%s did not run: %s", what, e)
            return None
        return trial

    def _tie(self, q: Question, run: _Run) -> tuple[bool, str, list | None]:
        """Does the result keep k things by a ranking that more things share (the question asks for the one with
        the most, and two have it)? (whether the plan ranks at all, the reason of a tie or "", and the rows of all
        the tied things when the tie is in the plan's own result: None when it is in a subquery's pick)."""
        probes = tie_probes(run.plan)
        for probe, width, k, whole in probes:
            # (a subquery that reads its outer query's rows runs only inside it: no probe)
            trial = self._trial(q, run, probe, "a tie probe")
            if trial is None:
                continue
            extra = tied_rows(trial.rows, width, k)
            if extra:
                value = "; ".join(c.text() for c in trial.rows[k - 1][width:])
                if whole and k == 1:
                    reason = (f"the ranking ties: {1 + extra} results share the top ranked value ({value}), and "
                              "LIMIT 1 keeps one of them at random")
                elif whole:
                    reason = (f"the ranking ties: {extra} more result(s) share the ranked value ({value}) of the "
                              f"last of the top {k}, and LIMIT {k} keeps some of them at random")
                else:
                    reason = (f"the ranking in a subquery ties: {k + extra} things share its ranked value "
                              f"({value}), and its LIMIT {k} picks among them at random")
                return True, reason, [r[:width] for r in trial.rows[:k + extra]] if whole else None
        return bool(probes), "", None

    def _mixed_names(self, q: Question, run: _Run) -> tuple[bool, str]:
        """Does a part of a name the question says (LIKE '%Lind%') match several different values, while the
        result has several rows (the answer may mix two people's)? (whether the plan matches a name by a part,
        the reason or "")."""
        probes = name_probes(q, run.plan)
        if len(run.rows) < 2:
            return bool(probes), ""
        for probe, text in probes:
            trial = self._trial(q, run, probe, "a name probe")
            if trial is None:
                continue
            values = sorted({r[0].text() for r in trial.rows if r})
            if len(values) > 1:
                col = probe.select[0].expr
                return True, (f"'{text}' matches {len(values)} different values of {col.table}.{col.column} "
                              f"({'; '.join(values[:5])}{'; ...' if len(values) > 5 else ''}), and the answer may "
                              "mix theirs: say which one")
        return bool(probes), ""

    def _doubt(self, best: _Run, runs: list[_Run]) -> str:
        """Why the result of `best` is worth a second plan ("" when nothing leaves a doubt): an earlier attempt
        failed, a repair by code changed what the plan reads, or the plan is more than one table read with plain
        conditions (it joins, nests a query, groups, ranks, negates or combines results), where the model's reading
        of the question may be another than the asker's."""
        if len(runs) > 1:
            return "an earlier attempt failed"
        if set(best.fixes) & CODE_REPAIRS:
            return "a repair by code changed the plan"
        plan = best.plan
        if not isinstance(plan, Query):
            return "the plan combines results"
        if len(plan.sources) > 1 or plan.joins or plan.group_by or plan.having is not None or plan.order_by \
                or plan.limit is not None or nested(plan):
            return "the plan joins, nests, groups or ranks"
        if excludes_rows(plan.where):
            return "the plan negates"
        return ""

    def _second_plans(self, q: Question, best: _Run, first: list[dict[str, Any]], reworded: str, mentions: list,
                      budget: int) -> list[tuple[str, _Run, bool | None]]:
        """Second plans for the result of `best`, asked another way (SECOND_PLANS: the `first` request sampled,
        then the `reworded` request), while `budget` lasts: (how, its run, whether its answer is the same: None
        when it gave no result to compare). A second plan that disagrees is arbitrated (arbitration.py); a third is
        asked only when no rule decides. Returns the plans asked; `self._verdict` holds the arbitration's."""
        out: list[tuple[str, _Run, bool | None]] = []
        self._verdict = None
        readings = [Reading("first", best.plan, best.rows)]
        self._readings = [best]
        for how in SECOND_PLANS[:max(0, budget)]:
            if how == "sampled":
                messages, temperature, max_tokens = first, SECOND_TEMPERATURE, MAX_TOKENS
            else:
                messages = [first[0], {"role": "user", "content": reworded}]
                temperature, max_tokens = 0.0, MAX_TOKENS + REASON_TOKENS
            try:
                reply = self.model.chat(messages, tools=None, max_tokens=max_tokens, temperature=temperature)
            except (ModelServerError, ModelBehaviorError) as e:  # the first plan's answer is not lost to it
                log.warning("a second plan could not be asked (%s): the answer is not compared", e)
                self.trace.write("second_plan", how=how, error=str(e))
                break
            run = self._run(q, extract_sql(reply.content or ""), mentions)
            agrees = None if run.problem or run.compiled is None else self._agree(q, best, run)
            self.trace.write("second_plan", how=how, reply=reply.content, sql=run.sql, problem=run.problem,
                             rows=run.total, agrees=agrees)
            out.append((how, run, agrees))
            if agrees is None:
                continue  # no evidence: the next way is asked
            if agrees and len(readings) == 1:
                break
            readings.append(Reading(how, run.plan, run.rows))
            self._readings.append(run)
            if len(readings) == 2:
                self._verdict = arbitrate(q, readings, self.schema, self._identifiers)
                if self._verdict.chosen is not None:
                    break
            else:  # a third reading: the answer two of three plans give
                chosen = majority(readings, q.kind == "yesno", self._identifiers)
                first_two = self._verdict.detail if self._verdict is not None else ""
                self._verdict = Verdict("majority", chosen, "two of three plans give this answer") \
                    if chosen is not None else Verdict("undecided", None, first_two)
                break
        return out

    def _identifiers(self, iri: str) -> set[str]:
        """The values a thing is known by: its names and the keys its table holds once per row (its id, a code),
        so that an answer that gives the thing and one that gives its id are the same answer."""
        if iri not in self._known:
            props = set(self.schema.label_props)
            for t in self.schema.tables.values():
                props |= {c.prop for c in t.key_columns() if c.prop is not None}
                key = t.id_column()
                if key is not None and key.prop is not None:
                    props.add(key.prop)
            values: set[str] = set()
            if props:
                query = ("SELECT ?v WHERE { ?x ?p ?v . FILTER(isLiteral(?v)) VALUES ?p { %s } }"
                         % " ".join(URIRef(p).n3() for p in sorted(props)))
                try:
                    values = {str(r[0]) for r in self.store.select(
                        query, max_rows=50, timeout_s=QUERY_TIMEOUT, bindings={"x": URIRef(iri)}).rows}
                except (QueryError, TypeError):
                    values = set()
            self._known[iri] = values
        return self._known[iri]

    def _agree(self, q: Question, one: _Run, other: _Run) -> bool:
        """Do two plans' results give the same answer (agreement.same_answer)? A plan that keeps its top rows by
        a ranking (ORDER BY ... LIMIT k) is read with the values it ranked by beside its rows: "which X is the
        highest" answered with the X by one plan and with the top value by the other agree when that value is the
        X's."""
        if same_answer(one.rows, other.rows, q.kind == "yesno"):
            return True
        if q.kind == "yesno":
            return False
        for ranked, plain in ((one, other), (other, one)):
            rows = self._ranked_rows(q, ranked)
            if rows and same_answer(rows, plain.rows):
                return True
        return False

    def _ranked_rows(self, q: Question, run: _Run) -> list | None:
        """The run's rows with the values its plan ranked them by (its first k rows, each with its ranking keys
        after its own columns): None when the plan keeps no top rows by a ranking, or the probe does not run."""
        probe = next(((p, k) for p, _, k, whole in tie_probes(run.plan) if whole), None)
        if probe is None:
            return None
        trial = self._trial(q, run, probe[0], "a ranking probe")
        return trial.rows[:probe[1]] if trial is not None else None

    def _answer(self, q: Question, best: _Run | None, runs: list[_Run], words: Phrases = ENGLISH_WORDS,
                second: Callable[[], list[tuple[str, _Run, bool | None]]] | None = None) -> Answer:
        """The answer from the best run (None: no attempt passed), its text in `words`' language. `second`: the
        second plans to compare a result that passed every check with (called once, only for such a result)."""
        last = best or runs[-1]
        ans = Answer(question=q.text, answer=words.get("no_data"), sql=last.sql, repairs=list(last.fixes),
                     sparql=[r.compiled.sparql for r in runs if r.compiled])
        ans.plan = to_dict(last.plan) if last.plan is not None else None
        ans.checks = [c.to_dict() for c in last.checks or []]
        ans.view_misses = list(dict.fromkeys(m for r in runs for m in r.missing))
        if best is None:
            doubted = next((r for r in reversed(runs) if r.rows and not r.zero and r.checks
                            and first_problem(r.checks)), None)
            if doubted is not None:  # a result that failed a check in every attempt: shown as a candidate only
                candidate = answer_text(q, [c.name for c in doubted.compiled.columns], doubted.rows, None,
                                        doubted.total, words)
                ans.sql, ans.repairs = doubted.sql, list(doubted.fixes)
                ans.plan = to_dict(doubted.plan)
                ans.checks = [c.to_dict() for c in doubted.checks]
                ans.state, ans.error = "unsure", first_problem(doubted.checks)
                ans.answer = unsure_text(words.reason("doubt", ans.error), candidate, words)
                return ans
            reason = f"{words.get('looked_for')}: " + last.sql.replace("\n", " ")[:200] if last.sql else ""
            # no attempt gave a query that could run: the model failed this question (not: the data has no answer),
            # unless what the plans looked for is not in the view at all: then the data has no answer
            unusable = not any(r.compiled for r in runs)
            lacking = list(dict.fromkeys(m for r in runs for m in r.missing))
            if unusable and lacking:
                ans.state = "no_data"
                ans.error = f"the ontology has no {', '.join(lacking[:4])} (nor a table or column of that meaning)"
                ans.answer = no_data_text(f"{words.get('looked_for')}: {', '.join(lacking[:4])}", words)
                return ans
            ans.state, ans.error = "error" if unusable else "no_data", last.problem
            ans.answer = no_data_text(reason, words)
            return ans
        ans.columns = [c.name for c in best.compiled.columns]
        ans.rows, ans.truncated = best.rows, best.truncated
        if q.kind == "yesno":
            ans.boolean = boolean_of(best.rows)
        if q.kind != "yesno" and not best.zero:
            ranks, tie, tied = self._tie(q, best)
            if ranks:
                ans.checks.append(Outcome("ranking_unique", not tie, tie).to_dict())
            named, mixed = self._mixed_names(q, best)
            if named:
                ans.checks.append(Outcome("one_name_matched", not mixed, mixed).to_dict())
            if tie and not mixed and tied and isinstance(best.plan, Query) and best.plan.limit == 1 \
                    and not best.plan.offset and asks_several(q):
                # a ranking whose top is tied, and the question asks for things, not exactly one ("which rangers
                # earn the most"): every tied thing is stated, and the tie is said
                widened = self._trial(q, best, replace(best.plan, limit=len(tied)), "the tied rows")
                if widened is not None and len(widened.rows) == len(tied):
                    widened.fixes, widened.checks = best.fixes, best.checks
                    said = Outcome("ranking_unique", True, f"the tie is stated whole: {tie}").to_dict()
                    stated = self._answer(q, widened, runs, words)
                    if stated.state == "answered":
                        stated.checks = [c for c in stated.checks if c["check"] != "ranking_unique"] + [said]
                        stated.answer = f"{stated.answer.rstrip('.')} ({words.get('tied', n=len(tied))})."
                    return stated
            if tie or mixed:  # the one with the most, when several have it; a part of a name that two things share
                rows = tied or best.rows
                candidate = answer_text(q, ans.columns, rows, None, len(rows), words)
                ans.state, ans.error, ans.rows = "unsure", tie or mixed, []
                ans.answer = unsure_text(words.reason("doubt", ans.error), candidate, words)
                return ans
        ans.support = support_set(self.store, best.compiled.evidence, answer_rows=best.raw)
        if best.zero:  # an aggregate over no matching rows: nothing to state, and no other things' triples
            ans.checks.append(Outcome("rows_matched", bool(ans.support),
                                    "" if ans.support else "the aggregate ran over no matching rows").to_dict())
        if not ans.support and ans.boolean is False:  # what was checked and did not match: the named things first
            for candidates in best.compiled.candidates:
                ans.support = support_set(self.store, [candidates])
                if ans.support:
                    break
        if not ans.support:
            ans.state, ans.error = "no_data", ("the aggregate ran over no matching rows" if best.zero
                                               else "no triple of the graph backs the result")
            ans.answer = no_data_text(words.reason("no_rows" if best.zero else "no_triples", ans.error), words)
            ans.rows, ans.boolean = [], None
            return ans
        compared = [(how, run, agrees) for how, run, agrees in (second() if second and not best.zero else [])
                    if agrees is not None]
        verdict = self._verdict if any(agrees is False for _, _, agrees in compared) else None
        if compared and verdict is None:
            ans.checks.append(Outcome("second_plan_agrees", True,
                                    f"{len(compared)} second plan(s) give the same answer").to_dict())
        elif verdict is not None:  # plans that disagree: decided by what code can check, or "Unsure" with both
            hows = ["first"] + [how for how, _, agrees in compared][-(len(self._readings) - 1):]
            arbitration = {"rule": verdict.rule, "chosen": hows[verdict.chosen] if verdict.chosen is not None
                           else "", "detail": verdict.detail,
                           "plans": [{"how": h, "sql": r.sql,
                                      "rows": [[c.to_dict() for c in row] for row in r.rows[:20]]}
                                     for h, r in zip(hows, self._readings)]}
            check = Outcome("plans_arbitrated", verdict.chosen is not None, f"{verdict.rule}: {verdict.detail}")
            if verdict.chosen is None:  # two readings of the question, no rule decides: neither is stated
                candidate = answer_text(q, ans.columns, best.rows, ans.boolean, best.total, words)
                ans.checks.append(check.to_dict())
                ans.state, ans.error, ans.rows, ans.boolean, ans.support = "unsure", verdict.detail, [], None, []
                ans.answer = unsure_text(words.reason("doubt", verdict.detail), candidate, words)
                ans.arbitration = arbitration
                return ans
            if verdict.chosen > 0:  # another plan's result answers: stated as that plan's, with its support
                chosen = self._readings[verdict.chosen]
                other = self._answer(q, chosen, runs, words)
                other.checks.append(check.to_dict())
                other.arbitration = arbitration
                return other
            ans.checks.append(check.to_dict())
            ans.arbitration = arbitration
        ans.state = "answered"
        ans.answer = answer_text(q, ans.columns, best.rows, ans.boolean, best.total, words)
        return ans


def reuse_counts(model: ChatModel) -> tuple[int, int, int]:
    """(prompt tokens evaluated, reused, loaded from the prefix cache) so far; a model without these counts (a
    test double) counts every prompt token as evaluated."""
    usage = model.usage
    snap = getattr(usage, "reuse_snapshot", None)
    return snap() if callable(snap) else (usage.prompt_tokens, 0, 0)


def _aggregate_only(plan) -> bool:
    return isinstance(plan, Query) and not plan.group_by and all(is_aggregate(it.expr) for it in plan.select)


def open_answerer(graph_paths: list[Path] | list[str] | None = None, *, store: Store | None = None,
                  model: ChatModel | None = None, llm_options: dict[str, Any] | None = None,
                  examples_path: str | Path | None = None, trace_path: str | Path | None = None,
                  second_plans: int = len(SECOND_PLANS)) -> Answerer:
    """An answerer over local RDF files (or a given store), with the configured model; `second_plans`: how many
    second plans a result is compared with before it is stated (0: none, one call for a plan that passes)."""
    if store is None:
        if not graph_paths:
            raise InputError("No ontology given: pass --ontology with an ontobuild outcome folder or an RDF file.")
        store = GraphStore.from_paths(graph_paths)
    model = model or open_model({k: v for k, v in (llm_options or {}).items() if v is not None})
    examples = Examples.load(examples_path) if examples_path else None
    trace = Trace(trace_path) if trace_path else None
    answerer = Answerer(store, model, examples=examples, trace=trace, second_plans=second_plans)
    if examples is not None:
        examples.check(answerer.schema)
    return answerer


__all__ = ["Answerer", "open_answerer", "extract_sql", "OntoError"]
