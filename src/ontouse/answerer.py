"""The answer loop (`AnswerLoop`, under the library's `ontouse.Answerer`): a question in, an answer with its SPARQL
and support triples out.

Per question (every step bounded by counts, never by the clock):
1. the question is read in the ontology's language (reading.py), parsed once (question.py) and linked to the values
   it names (linking.py);
2. the model writes a query plan in SQL over the relational view of the ontology (sqlplan/schema.py, view_prompt.py),
   given the view, the value hints and, optionally, the user's most similar example questions (examples.py);
3. code reads the plan and checks every name against the view (sqlplan/reader.py), repairs what has one
   meaning (repairs.py), compiles it to SPARQL (sqlplan/compile.py) and runs it through the store (storage/);
4. the result is checked against the question (checks/); an error, an empty result or a failed check goes back
   to the model with the precise problem (after the failed check's own bounded repair, when it has one), at most
   `max_attempts` model calls in all (attempt.py: one attempt); a plan that reads one of two links to one table
   is turned round when the model, asked which of them holds what the question names, says so (directions.py);
5. a result that passed every check is asked for again, within the same budget of calls: a second plan, asked
   another way (sampled, then worded differently), must give the same answer (second_plans.py, agreement.py),
   else the plans are arbitrated (arbitration.py) or the answer is "Unsure" with both; a tie or a mixed name the
   data leaves is read last (ambiguity.py);
6. the answer text, the result cells and the support triples come from the results (results.py, support.py);
   without a result the answer is "No data available" with what was looked for; the text's fixed phrases are in
   the question's language (phrases.py), the values in it are the data's own."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable

from .language.crosslingual import CrossLingual
from .language.crosslingual import available as crosslingual_available
from ontocore.embeddings import Embedder
from ontocore.embeddings import available as lexicon_available
from ontocore.errors import InputError, OntoError
from .language.detection import DEFAULT as ENGLISH
from .language.detection import preference
from ontocore.llm import ChatModel, open_model
from .prompts import prompts
from ontocore.text import fold
from ontocore.trace import Trace

from .arbitration import Verdict
from .answer import Answer
from .sqlplan.compile import compile_plan
from .empty_results import empty_repairs
from .sqlplan.diagnose import diagnose_empty
from .examples import Examples
from . import storeview, viewcache
from .linking import ValueIndex
from .sqlplan.plan import PlanError, Query, is_aggregate, to_dict, view_misses
from .question import Question, parse_question
from .repairs import repair_plan
from .phrases import ENGLISH as ENGLISH_WORDS, PhraseBook, Phrases
from .results import answer_text, boolean_of, make_cells, no_data_text, one_label_per_thing, unsure_text
from .sqlplan.bigschema import build_view
from .sqlplan.schema import Schema, english_covered
from .storage.sparql import QueryError
from .sqlplan.reader import read_sql
from .storage.store import GraphStore, Store
from .support import support_set
from .language.glossary import Term
from .relevance import Relevance
from .attempt import MAX_ROWS, MAX_TOKENS, QUERY_TIMEOUT, Attempt, extract_sql, names_quoted
from .reading import QuestionReading
from .second_plans import SECOND_PLANS, SecondPlans
from .ambiguity import AmbiguityProbes
from .directions import LinkDirections
from .checks import Candidate, Outcome, first_problem, repair_for, verify
from .checks.asked import ASKED_CLASS_READ, widened_to_asked
from .checks.named import COMPARISON_SIDES, sides_compared_in
from .written import NAMED_IS_LINKED, kept, linked_yes, written_plans
from .view_prompt import estimate_tokens, examples_prompt, fitting_detail, parts, schema_ddl, shown_tables

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # model calls per question
RETRY_TEMPERATURE = 0.7
FULL_VIEW_TOKENS = 3400  # a system prompt up to this size holds the whole view (cached across questions)
# ... and up to this size when the model keeps an announced prompt start (the local model, llm.LocalChat.keep_prefix):
# the whole view is then evaluated once per ontology and machine, not per question nor per process, so a larger
# whole view costs less than a cut one (whose tables are evaluated with every question); bounded by the context
# (8192 tokens: the view, the question and up to three attempts with their repair notes)
KEPT_VIEW_TOKENS = 6000
PART_VIEW_TOKENS = 1800  # else the part of the view a question is about, up to this size

def _norm(sql: str) -> str:
    return " ".join(sql.split()).rstrip(";").lower()


class AnswerLoop(QuestionReading, SecondPlans, AmbiguityProbes, LinkDirections):
    """Answers questions over one store; the view of the ontology is built once. The question's reading in the
    ontology's language is `QuestionReading`'s (reading.py), the second plans and their agreement `SecondPlans`'
    (second_plans.py), the probes of what a passing result leaves ambiguous `AmbiguityProbes`' (ambiguity.py)."""

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
        self._readings: list[Attempt] = []  # the runs it chose among
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
        runs: list[Attempt] = []
        best: Attempt | None = None
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
        if best is None:  # the plan code writes from the question, when it finds evidence (written.py)
            best = self._written(q, runs, mentions)
        if best is None and runs[-1].zero and all(r.zero for r in runs[-2:]):
            best = runs[-1]  # the model stands by a count of 0 after being told: it is the answer
        if best is not None:  # two links to one table: the question says which way round (directions.py)
            self._direction(q, asked, best, mentions)
        words = self.phrases.get(detection.lang)  # a model call the first time a language is answered in, ever
        budget = min(self.second_plans, self.max_attempts - len(runs))
        reworded = prompts.render("ask_sql_reworded", hints=hints, examples=shots, question=asked)
        doubt = self._doubt(best) if best is not None else ""
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

    # ---- the view shown to the model ----------------------------------------------------------------------
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

    def _run(self, q: Question, sql: str, mentions: list | None = None) -> Attempt:
        run = Attempt(sql=sql)
        mentions = mentions or []
        try:
            read, fixes = read_sql(self.schema, names_quoted(sql, mentions), self.index.embedder)
            plan, more = repair_plan(read, self.schema, self.index, q)
            run.plan, run.fixes = plan, tuple(fixes + more)
            self._execute(q, run, plan)
        except PlanError as e:
            run.problem = str(e)
            run.missing = tuple(e.details.get("missing", ()))
            if self._code_repair(q, run, mentions, COMPARISON_SIDES.name, sides_compared_in(
                    q, sql, self.schema, mentions), "repaired: " + COMPARISON_SIDES.repair_note):
                run.missing = ()  # (a comparison of two named things, by the value the query names)
            return run
        except QueryError as e:
            run.problem = f"the query could not run ({e}). Write a simpler query."
            return run
        if not run.rows and q.kind == "yesno":  # "is there ...?" with nothing found: the answer is no, when the
            candidate = Candidate(q, plan, run.rows, self.schema, mentions, _aggregate_only(plan), self.index)
            run.checks = [COMPARISON_SIDES.judge(candidate)] if COMPARISON_SIDES.applies(candidate) else []
            run.problem = first_problem(run.checks)  # (plan asked it: a comparison must compare its two sides)
            if run.problem:
                self._code_repair(q, run, mentions, COMPARISON_SIDES.name, COMPARISON_SIDES.repair(candidate),
                                  "repaired: " + COMPARISON_SIDES.repair_note)
            elif (linked := linked_yes(q, self.schema, mentions)) is not None and (
                    found := self._trial(q, run, linked, "the named things' link")) is not None and found.rows:
                self._code_repair(q, run, mentions, NAMED_IS_LINKED, linked, "repaired: the two named things are "
                                  "linked as the question says (the plan found nothing)")
            return run
        texts = self.index.table_texts
        if not run.rows and not self._code_repair(
                q, run, mentions, ASKED_CLASS_READ.name, widened_to_asked(q, plan, self.schema, texts),
                "repaired: read from the class the question names, not from a subclass of it") and not any(
                self._code_repair(q, run, mentions, name, self._repaired(repaired, q), note)
                for name, repaired, note in empty_repairs(read, self.schema, q, mentions, texts, self.index)):
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

    def _execute(self, q: Question, run: Attempt, plan) -> None:
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

    def _code_repair(self, q: Question, run: Attempt, mentions: list, check: str, repaired: Any, note: str) -> bool:
        """A bounded repair by code of the plan that failed `check` (the superlative turned the way the question
        asks, the things that have a value rather than the value, the counted things listed, the asked things of a
        named thing, a subclass read as the class the question names when it found nothing): kept only when it
        finds rows (or answers a yes/no question, where nothing found is "no") and every check passes. Whether it
        was kept."""
        if repaired is None:
            return False
        trial = self._trial(q, run, repaired, f"the plan repaired for {check}")
        if trial is None or (not trial.rows and q.kind != "yesno"):  # (nothing found is a yes/no's "no")
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

    def _written(self, q: Question, runs: list[Attempt], mentions: list) -> Attempt | None:
        """When no plan of the model passed, the plan code writes from the question (written.py), kept as a run of
        its own when it finds rows and passes every check."""
        for check, plan, note in written_plans(q, self.schema, mentions, self.index.table_texts, self.index.embedder):
            run = Attempt(sql=runs[-1].sql if runs else "")
            if self._code_repair(q, run, mentions, check, plan(), note) and kept(check, run.rows):
                runs.append(run)
                return run
        return None

    def _repaired(self, plan: Any, q: Question) -> Any:
        """`plan` with the repairs code makes before a plan runs (repairs.py); None when one finds it cannot be
        right."""
        try:
            return repair_plan(plan, self.schema, self.index, q)[0]
        except PlanError:
            return None

    def _trial(self, q: Question, run: Attempt, plan: Any, what: str) -> Attempt | None:
        """`plan` (a repair of the run's plan, or a probe beside it) run on its own; None when it does not run."""
        trial = Attempt(sql=run.sql)
        try:
            self._execute(q, trial, plan)
        except (PlanError, QueryError) as e:
            log.info("%s did not run: %s", what, e)
            return None
        return trial

    def _answer(self, q: Question, best: Attempt | None, runs: list[Attempt], words: Phrases = ENGLISH_WORDS,
                second: Callable[[], list[tuple[str, Attempt, bool | None]]] | None = None) -> Answer:
        """The answer from the best run (None: no attempt passed), its text in `words`' language. `second`: the
        second plans to compare a result that passed every check with (called once, only for such a result)."""
        last = best or runs[-1]
        ans = Answer(question=q.text, answer=words.get("no_data"), sql=last.sql, repairs=list(last.fixes),
                     sparql=[r.compiled.sparql for r in runs if r.compiled])
        ans.plan = to_dict(last.plan) if last.plan is not None else None
        ans.checks = [c.to_dict() for c in last.checks or []]
        ans.view_misses = list(dict.fromkeys(m for r in runs for m in r.missing))
        if best is None:
            return self._unanswered(q, ans, runs, words)
        ans.columns = [c.name for c in best.compiled.columns]
        ans.rows, ans.truncated = best.rows, best.truncated
        if q.kind == "yesno":
            ans.boolean = boolean_of(best.rows)
        if q.kind != "yesno" and not best.zero:
            ambiguous = self._ambiguous(q, ans, best, runs, words)
            if ambiguous is not None:
                return ambiguous
        if not self._backed(ans, best, words):
            return ans
        compared = [(how, run, agrees) for how, run, agrees in (second() if second and not best.zero else [])
                    if agrees is not None]
        verdict = self._verdict if any(agrees is False for _, _, agrees in compared) else None
        if compared and verdict is None:
            ans.checks.append(Outcome("second_plan_agrees", True,
                                      f"{len(compared)} second plan(s) give the same answer").to_dict())
        elif verdict is not None:
            arbitrated = self._arbitrated(q, ans, best, runs, words, compared, verdict)
            if arbitrated is not None:
                return arbitrated
        ans.state = "answered"
        ans.answer = answer_text(q, ans.columns, best.rows, ans.boolean, best.total, words)
        return ans

    def _unanswered(self, q: Question, ans: Answer, runs: list[Attempt], words: Phrases) -> Answer:
        """The answer when no attempt passed: a result that failed a check in every attempt shown as a candidate
        only ("Unsure"), else no data (what the plans looked for, or what the view lacks), or an error when no
        attempt gave a query that could run."""
        last = runs[-1]
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
        if unusable and lacking:  # a name the view has elsewhere was misplaced: the model's message, not "has no"
            absent = [m for m in lacking if not self.schema.has_name(m)]
            ans.state = "no_data"
            ans.error = f"the ontology has no {', '.join(absent[:4])} (nor a table or column of that meaning)" \
                if absent else last.problem
            ans.answer = no_data_text(f"{words.get('looked_for')}: {', '.join(lacking[:4])}", words)
            return ans
        ans.state, ans.error = "error" if unusable else "no_data", last.problem
        ans.answer = no_data_text(reason, words)
        return ans

    def _backed(self, ans: Answer, best: Attempt, words: Phrases) -> bool:
        """The support triples of the result; without any, the answer is no data (False)."""
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
            return False
        return True

    def _arbitrated(self, q: Question, ans: Answer, best: Attempt, runs: list[Attempt], words: Phrases,
                    compared: list[tuple[str, Attempt, bool | None]], verdict: Verdict) -> Answer | None:
        """Plans that disagree, decided by what code can check (arbitration.py): the answer of another plan, or
        "Unsure" with both when no rule decides (returned); None when the first plan's answer stands."""
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
        return None

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
                  second_plans: int = len(SECOND_PLANS)) -> AnswerLoop:
    """An answerer over local RDF files (or a given store), with the configured model; `second_plans`: how many
    second plans a result is compared with before it is stated (0: none, one call for a plan that passes)."""
    if store is None:
        if not graph_paths:
            raise InputError("No ontology given: pass --ontology with an ontobuild outcome folder or an RDF file.")
        store = GraphStore.from_paths(graph_paths)
    model = model or open_model({k: v for k, v in (llm_options or {}).items() if v is not None})
    examples = Examples.load(examples_path) if examples_path else None
    trace = Trace(trace_path) if trace_path else None
    answerer = AnswerLoop(store, model, examples=examples, trace=trace, second_plans=second_plans)
    if examples is not None:
        examples.check(answerer.schema)
    return answerer


__all__ = ["AnswerLoop", "open_answerer", "extract_sql", "OntoError"]
