"""`ontoask QUESTION` and `ontoask --questions FILE`: the question-answering agent.

Per question: code links the question to candidate entities (catalog.link); the model calls `query` once with
a structured plan whose names are restricted to those candidates; code compiles the plan to SPARQL, runs it
and shows the model a compact result; the model calls `answer`; code checks that the answer states what the
results say (numbers, names, yes/no) and otherwise asks once more, then writes the answer itself. An empty
result twice, or a plan of kind "none", gives "No data available (looked for: ...)", written by code. The
support set is the triples of the executed queries' results, checked to be in the graph.

With a hosted model (OpenAI-compatible backend) the agent also gets a raw `sparql` tool, `search_entities` and
`describe`."""

from __future__ import annotations

import json
import logging
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.term import Node

from ontobuild import prompts
from ontobuild.agent import run_agent
from ontobuild.errors import InputError, OntoError, ToolArgumentError
from ontobuild.llm import ChatModel, open_model
from ontobuild.tools import Tool
from ontobuild.trace import Trace

from .catalog import STOP, Candidates, Catalog, load_catalog, words
from .graph import load_graph
from .plan import (KINDS, MAX_WITH, Executor, Plan, PlanError, QueryRun, Result, cue_hint, cue_variants, fmt_number,
                   repairs, tidy_plan, unused_mention, without_class)
from .sparql import QueryError, format_table, run_query
from .support import support_set, value_strings
from .validate import check_answer, code_answer, no_data_text, uncovered_words

log = logging.getLogger(__name__)

NO_DATA = "No data available"
MAX_TURNS = 5
MAX_TOKENS = 200
RESULT_CHARS = 1500
REPAIR_SECONDS = 6.0


class _Metered:
    """The model, counting the seconds its calls waited for another process's inference (the local backend
    runs one inference at a time per machine), so that an answer's seconds are its own."""

    def __init__(self, inner: ChatModel) -> None:
        self.inner, self.backend, self.model, self.usage = inner, inner.backend, inner.model, inner.usage
        self.waited = 0.0

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        reply = self.inner.chat(*args, **kwargs)
        self.waited += float(getattr(reply, "wait_seconds", 0.0) or 0.0)
        return reply


class _Finish(Exception):
    """Raised inside a tool to end the loop with an answer written by code."""

    def __init__(self, text: str, state: str) -> None:
        super().__init__(text)
        self.text, self.state = text, state


@dataclass
class Answer:
    question: str
    answer: str
    support: list[list[str]] = field(default_factory=list)
    sparql: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)  # the answer set (IRIs / literals), for answer-set scoring
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0  # wall time, without waiting for another process's inference
    wait_seconds: float = 0.0
    state: str = ""  # answered | code_answer | no_data | gave_up | error
    plan: dict[str, Any] | None = None

    def to_dict(self, expected: Any = None, with_expected: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"question": self.question, "answer": self.answer, "support": self.support,
                               "sparql": self.sparql, "llm_calls": self.llm_calls,
                               "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                               "seconds": round(self.seconds, 2), "values": self.values, "plan": self.plan,
                               "state": self.state}
        if self.wait_seconds:
            out["wait_seconds"] = round(self.wait_seconds, 2)
        if with_expected:
            out["expected"] = expected
        return out

    def render(self) -> str:
        lines = [self.answer]
        if self.support:
            lines.append("Support:")
            lines += [f"  {s} {p} {o}" for s, p, o in self.support]
        return "\n".join(lines)


# ---- per-question state -----------------------------------------------------------------------------------
@dataclass
class _State:
    question: str
    cands: Candidates
    results: list[Result] = field(default_factory=list)
    empty: int = 0
    bad_answers: int = 0
    looked_for: list[str] = field(default_factory=list)

    @property
    def found(self) -> list[Result]:
        return [r for r in self.results if r.accepted]


def _enum(values: list[str], allow_empty: bool = True) -> dict[str, Any]:
    vals = list(dict.fromkeys(values))
    return {"type": "string", "enum": vals + ([""] if allow_empty else [])} if vals else {"type": "string", "enum": [""]}


def _candidate_lines(cat: Catalog, cands: Candidates) -> tuple[str, str, str]:
    def line(ent, extra: str) -> str:
        label = ent.label if ent.label != ent.key else ""
        bits = [b for b in (label, extra) if b]
        text = f"- {ent.key}" + (": " + "; ".join(bits) if bits else "")
        role = ent.role(50)
        return text + (f" ({role})" if role and ent.kind != "individual" else "")

    inds = "\n".join(line(s.entity, cat.kind_label(s.entity)) for s in cands.individuals) or "(none)"
    classes = "\n".join(line(s.entity, f"{s.entity.uses} members") for s in cands.classes) or "(none)"
    props = "\n".join(line(s.entity, cat.kind_label(s.entity)) for s in cands.properties) or "(none)"
    return inds, classes, props


class Asker:
    """Answers questions over one loaded graph with one model."""

    def __init__(self, graph: Graph, catalog: Catalog, model: ChatModel, trace: Trace | None = None,
                 timeout_s: float = 10.0, full_tools: bool | None = None) -> None:
        self.graph, self.cat, self.trace = graph, catalog, trace
        self.model = _Metered(model)
        self.ex = Executor(graph, catalog, timeout_s=timeout_s)
        self.full_tools = (model.backend != "local") if full_tools is None else full_tools
        self.system = prompts.render("ask_system")
        self._n = 0

    # ---- tools -----------------------------------------------------------------------------------
    def _query_tool(self, st: _State) -> Tool:
        c = st.cands
        props = c.keys("property")
        inds, classes = c.keys("individual"), c.keys("class")
        # the order of the fields matters to a small model: it fills them in this order
        fields: dict[str, Any] = {"kind": {"type": "string", "enum": list(KINDS)}}
        if inds:  # a slot without candidates is left out (an empty enum would leave the model no valid call)
            fields["about"] = _enum(inds)
        if classes:
            fields["class"] = _enum(classes)
        if inds:
            fields["with"] = {"type": "array", "items": _enum(inds, allow_empty=False), "maxItems": MAX_WITH}
        if props:
            fields["property"] = _enum(props)
        fields["value"] = {"type": "string", "maxLength": 60}
        if props:
            fields["then"] = _enum(props)
        params = {"type": "object", "properties": fields, "required": ["kind"], "additionalProperties": False}

        def query(**args: Any) -> str:
            plan = Plan.from_args(args)
            if plan.kind == "none":
                st.looked_for.append(", ".join(st.cands.question_words) or st.question)
                raise _Finish(no_data_text(st.looked_for), "no_data")
            res = self._run_with_repairs(plan, st)  # PlanError goes back to the model
            what = plan.describe(self.cat)
            if res is None:
                st.empty += 1
                if st.empty >= 2:
                    raise _Finish(no_data_text(st.looked_for), "no_data")
                return (f"No results for {what}. Try another property or individual from the lists, or kind none "
                        "if nothing listed fits the question.")
            done = res.plan.describe(self.cat)
            text = "\n".join(res.facts) or "(results found)"
            if len(text) > RESULT_CHARS:
                text = text[:RESULT_CHARS] + " …"
            return (f"Results for {done}:\n{text}\n"
                    'Now call answer: {"text": "<one short sentence stating these results>"}')

        return Tool("query", "Run a query plan over the ontology (names from the candidate lists only).",
                    params, query, False)

    def _run_with_repairs(self, plan: Plan, st: _State) -> Result | None:
        """Run the plan; when it finds nothing, or nothing the question speaks of, run the repaired plans
        (plan.repairs) in order; the first result that passes is kept (and recorded as found)."""
        c = st.cands
        props = c.keys("property") + [s.entity.key for s in c.more_properties]
        plan = tidy_plan(plan, st.question, self.cat)
        recast, first = cue_variants(plan, st.question, self.cat, props)
        if recast and recast[0].kind == "yesno":  # a yes/no question: only yes/no plans answer it
            plan, recast = recast[0], []
        tries = recast + [plan] if first else [plan] + recast
        missed, first = unused_mention(plan, c, self.cat)
        if missed is not None:
            at = 0 if first else tries.index(plan) + 1
            tries.insert(at, missed)
            loose = without_class(missed)
            if loose is not None:
                tries.insert(at + 1, loose)
        for base in [plan] + ([missed] if missed is not None else []):  # the plan's repairs, then those of the
            # plan about what the question names ("size S of the CityGlide 700", planned about its size M)
            tries += [p for p in repairs(base, self.cat, c.keys("individual"), props, question=st.question)
                      if all(p.to_args() != t.to_args() for t in tries)]
        deadline = time.perf_counter() + REPAIR_SECONDS
        for i, p in enumerate(tries):
            try:
                res = self.ex.execute(p)
            except PlanError:
                if p is plan:
                    raise
                continue
            st.results.append(res)
            if p is plan:
                st.looked_for.append(p.describe(self.cat))
            if not res.empty:
                missing = uncovered_words(st.question, p, self.cat, res)
                if not missing:
                    res.accepted = True
                    if p is not plan:
                        res.note = (res.note + "; " if res.note else "") + f"repaired from {plan.describe(self.cat)}"
                    return res
                if p is plan:
                    st.looked_for[-1] = f"{', '.join(missing)} ({p.describe(self.cat)})"
            if time.perf_counter() > deadline:
                break
        return None

    def _answer_tool(self, st: _State) -> Tool:
        def answer(text: str) -> str:
            if not st.found:
                if st.results:  # the model gives up after an empty query: nothing backs an answer
                    raise _Finish(no_data_text(st.looked_for), "no_data")
                raise ToolArgumentError("Call query first: the answer must come from its results.")
            error = check_answer(text, st.found, self.ex, st.question)
            if error:
                st.bad_answers += 1
                if st.bad_answers >= 2:
                    raise _Finish(code_answer(st.found[-1], self.ex), "code_answer")
                raise ToolArgumentError(error)
            return text

        params = {"type": "object", "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 600}},
                  "required": ["text"], "additionalProperties": False}
        return Tool("answer", "Give the final answer: a short sentence stating the query results.", params,
                    answer, True)

    def _extra_tools(self, st: _State) -> list[Tool]:
        """Raw SPARQL, entity search and describe, for models that can use them well."""
        cat, ex = self.cat, self.ex

        def sparql(query: str) -> str:
            try:
                out = run_query(self.graph, query, max_rows=50, timeout_s=ex.timeout_s)
            except QueryError as e:
                raise ToolArgumentError(str(e)) from None
            res = raw_result(self.graph, ex, query, out)
            res.accepted = not res.empty
            st.results.append(res)
            if res.empty:
                st.empty += 1
                if st.empty >= 3:
                    raise _Finish(no_data_text(st.looked_for or [st.question]), "no_data")
                return "No rows. Check the names with search_entities or describe, or try another pattern."
            return format_table(out, max_cell=80)

        def search_entities(text: str, kind: str = "", page: int = 1) -> str:
            return json.dumps(cat.search(text, kind or None, page), ensure_ascii=False)

        def describe(entity: str) -> str:
            ent = cat.by_key.get(entity) or next((e for e in cat.entities if str(e.iri) == entity), None)
            if ent is None:
                raise ToolArgumentError(f"'{entity}' is not a known entity key or IRI; use search_entities.")
            return describe_entity(self.graph, ex, ent.iri)

        return [
            Tool("sparql", "Run a read-only SPARQL SELECT or ASK query (prefixes rdf rdfs owl xsd skos and the "
                 "ontology's own are declared). Updates, LOAD and SERVICE are refused.",
                 {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"],
                  "additionalProperties": False}, sparql, False),
            Tool("search_entities", "Search classes, properties and individuals by name or role (10 per page).",
                 {"type": "object", "properties": {"text": {"type": "string"},
                                                   "kind": {"type": "string",
                                                            "enum": ["", "class", "property", "individual"]},
                                                   "page": {"type": "integer", "minimum": 1}},
                  "required": ["text"], "additionalProperties": False}, search_entities, False),
            Tool("describe", "The triples around one entity (by key or IRI).",
                 {"type": "object", "properties": {"entity": {"type": "string"}}, "required": ["entity"],
                  "additionalProperties": False}, describe, False),
        ]

    # ---- one question --------------------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        self._n += 1
        label = f"q{self._n}"
        start = time.perf_counter()
        before = self.model.usage.snapshot()
        waited = self.model.waited
        cands = self.cat.link(question)
        st = _State(question, cands)
        self.ex.question_words = set(words(question)) - STOP
        inds, classes, props = _candidate_lines(self.cat, cands)
        user = prompts.render("ask_question", question=question, individuals=inds, classes=classes,
                              properties=props, hint=cue_hint(question))
        messages = [{"role": "system", "content": self.system}, {"role": "user", "content": user}]
        tools = [self._answer_tool(st), self._query_tool(st)]
        if self.full_tools:
            tools += self._extra_tools(st)
        if self.trace:
            self.trace.write("question", label=label, question=question,
                             candidates={k: cands.keys(k) for k in ("individual", "class", "property")})
        text, state = "", ""
        try:
            result = run_agent(self.model, messages, tools, max_turns=MAX_TURNS, trace=self.trace,
                               max_tokens=MAX_TOKENS, label=label, result_chars=RESULT_CHARS + 300)
            if result.state == "answered":
                text, state = str(result.output), "answered"
            else:
                state = result.state
        except _Finish as f:
            text, state = f.text, f.state
        found = st.found
        if not text:  # the model gave up or ran out of turns: write the answer from what was found
            if found:
                text, state = code_answer(found[-1], self.ex), "code_answer"
            else:
                text, state = no_data_text(st.looked_for or [", ".join(cands.question_words) or question]), "no_data"
        used = _results_for(text, found) if state not in ("no_data",) else []
        triples = [t for r in used for t in r.triples]
        support = support_set(self.graph, triples)
        if state != "no_data" and not support:
            text, state = no_data_text(st.looked_for or [question]), "no_data"
            used = []
        if state == "no_data":
            support = []
        values: list[Node] = [v for r in used for v in r.answer_values]
        after = self.model.usage.snapshot()
        ans = Answer(question=question, answer=text, support=support,
                     sparql=[q.display() for r in st.results for q in r.queries],
                     values=value_strings(values), llm_calls=after[0] - before[0],
                     prompt_tokens=after[1] - before[1], completion_tokens=after[2] - before[2],
                     seconds=time.perf_counter() - start - (self.model.waited - waited),
                     wait_seconds=self.model.waited - waited, state=state,
                     plan=st.results[-1].plan.to_args() if st.results else None)
        if self.trace:
            self.trace.write("answer", label=label, answer=ans.answer, state=state, support=ans.support,
                             values=ans.values[:50], seconds=round(ans.seconds, 2))
        return ans


def _results_for(text: str, found: list[Result]) -> list[Result]:
    """The results an answer rests on: the last one, plus earlier ones whose facts the answer repeats."""
    if not found:
        return []
    used = [found[-1]]
    low = text.lower()
    for r in found[:-1]:
        if any(str(v).lower() in low for v in r.values if len(str(v)) > 2):
            used.insert(0, r)
    return used


# ---- raw SPARQL results -------------------------------------------------------------------------------------
_IRI_IN_QUERY = re.compile(r"<([^<>\"{}|^`\\\s]+)>|(?<![\w?$])([A-Za-z][\w-]*)?:([A-Za-z_][\w.-]*)")


def raw_result(graph: Graph, ex: Executor, query: str, out: Any) -> Result:
    """A Result for a raw SPARQL query: all bound values, and the graph triples that connect them (and the
    IRIs written in the query) as the support."""
    res = Result(plan=Plan(kind="list"))
    res.queries.append(QueryRun(text=query, bindings={}, rows=out.total if out.kind == "SELECT" else 1))
    if out.kind == "ASK":
        res.boolean = bool(out.boolean)
        res.values = [Literal(res.boolean)]
        res.facts.append("ASK: " + ("true" if out.boolean else "false"))
        res.plan = Plan(kind="yesno")
        return res
    terms: list[Node] = []
    for row in out.rows:
        terms += [t for t in row if t is not None]
    res.values = list(dict.fromkeys(terms))
    if len(out.rows) == 1 and len(out.vars) == 1 and isinstance(out.rows[0][0], Literal):
        res.number = out.rows[0][0]
    consts: set[Node] = set()
    for m in _IRI_IN_QUERY.finditer(query):
        if m.group(1):
            consts.add(URIRef(m.group(1)))
        elif m.group(3) and (m.group(2) or "") in ex.prefixes:
            consts.add(URIRef(ex.prefixes[m.group(2) or ""] + m.group(3)))
    triples = []
    for row in out.rows[:25]:
        nodes = [t for t in row if t is not None]
        pool = set(nodes) | consts
        for s in nodes + list(consts):
            if isinstance(s, Literal):
                continue
            for p, o in graph.predicate_objects(s):
                if o in pool and o != s:
                    triples.append((s, p, o))
    res.triples = triples
    res.facts.append(format_table(out, max_cell=60))
    return res


def describe_entity(graph: Graph, ex: Executor, iri: URIRef, limit: int = 40) -> str:
    lines = []
    for p, o in list(graph.predicate_objects(iri))[:limit]:
        lines.append(f"{ex.short(iri)} {ex.short(p)} {ex.short(o) if not isinstance(o, Literal) else json.dumps(str(o))}")
    for s, p in list(graph.subject_predicates(iri))[: max(0, limit - len(lines))]:
        lines.append(f"{ex.short(s)} {ex.short(p)} {ex.short(iri)}")
    return "\n".join(lines) or "(no triples)"


# ---- entry points ---------------------------------------------------------------------------------------------
def _load(graph_paths: list[Path] | list[str], index_path: str | Path | None) -> tuple[Graph, Catalog]:
    if not graph_paths:
        raise InputError("no ontology given: pass --ontology with an ontobuild outcome folder or an RDF file.")
    graph = load_graph(graph_paths)
    if index_path is not None and not Path(index_path).is_file():
        raise InputError(f"{index_path}: no such index file.")
    return graph, load_catalog(graph, index_path)


def _open(llm_options: dict[str, Any] | None) -> ChatModel:
    return open_model({k: v for k, v in (llm_options or {}).items() if v is not None})


def run_question(graph_paths: list[Path], index_path: str | Path | None, question: str,
                 llm_options: dict[str, Any] | None = None, out: str | Path | None = None) -> str:
    """Answer one question; the answer and its support lines (an outcome folder too, with `out`)."""
    if not question or not question.strip():
        raise InputError("the question is empty.")
    graph, cat = _load(graph_paths, index_path)
    model = _open(llm_options)
    outdir = None
    trace = None
    if out is not None:
        from ontobuild.outcome import new_outcome_dir

        outdir = new_outcome_dir(out=out)
        trace = Trace(outdir / "answers.log")
    try:
        ans = Asker(graph, cat, model, trace=trace).ask(question.strip())
    finally:
        if trace:
            trace.close()
    if outdir is not None:
        _write_outcome(outdir, [ans.to_dict()], model, graph_paths)
    return ans.render()


def read_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions file: a JSON list of {"query": str, "expected": any (optional)}."""
    from ontobuild.index import read_json_file

    path = Path(path)
    data = read_json_file(path)
    if isinstance(data, dict) and isinstance(data.get("questions"), list):
        data = data["questions"]
    if not isinstance(data, list) or not data:
        raise InputError(f"{path} must be a non-empty JSON list of {{\"query\": ..., \"expected\": ...}} objects.")
    out = []
    for i, item in enumerate(data):
        if isinstance(item, str):
            item = {"query": item}
        if not isinstance(item, dict):
            raise InputError(f"{path}: item {i + 1} is not an object with a \"query\".")
        q = item.get("query", item.get("question"))
        if not isinstance(q, str) or not q.strip():
            raise InputError(f"{path}: item {i + 1} has no \"query\" text.")
        out.append({**item, "query": q.strip()})
    return out


def _scorer() -> Any:
    """bench.score.is_correct, the repository's scorer (importable from a checkout), or None."""
    try:
        from bench.score import is_correct
        return is_correct
    except ImportError:
        pass
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "bench" / "score.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_ontoask_bench_score", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - scoring is optional
        return None
    return getattr(module, "is_correct", None)


def _score(answer: str, expected: Any) -> bool | None:
    fn = _scorer()
    return None if fn is None else bool(fn(answer, expected))


def summary_line(rows: list[dict[str, Any]]) -> str:
    n = len(rows)
    if not n:
        return "no questions"
    calls = sum(r["llm_calls"] for r in rows) / n
    pt = sum(r["prompt_tokens"] for r in rows) / n
    ct = sum(r["completion_tokens"] for r in rows) / n
    secs = sum(r["seconds"] for r in rows) / n
    scored = [r["correct"] for r in rows if r.get("correct") is not None]
    head = f"{sum(scored)}/{len(scored)} correct (expected given)" if scored else f"{n} answered"
    return (f"{head}, {calls:.1f} calls, {pt:.0f} prompt + {ct:.0f} completion tokens, {secs:.1f} s per question")


def run_batch(graph_paths: list[Path], index_path: str | Path | None, questions_path: str | Path,
              out: str | Path | None = None, llm_options: dict[str, Any] | None = None,
              model: ChatModel | None = None, limit: int | None = None) -> str:
    """Answer every question of a file into an outcome folder; returns the summary line."""
    from ontobuild.outcome import new_outcome_dir

    questions = read_questions(questions_path)
    if limit:
        questions = questions[:limit]
    graph, cat = _load(graph_paths, index_path)
    model = model or _open(llm_options)
    outdir = new_outcome_dir(out=out)
    rows: list[dict[str, Any]] = []
    with Trace(outdir / "answers.log") as trace:
        trace.write("start", ontology=[str(p) for p in graph_paths], questions=str(questions_path),
                    backend=model.backend, model=model.model)
        asker = Asker(graph, cat, model, trace=trace)
        for item in questions:
            try:
                ans = asker.ask(item["query"])
            except OntoError as e:  # e.g. the prompt does not fit: record it and go on
                log.warning("question failed: %s", e)
                ans = Answer(question=item["query"], answer=f"{NO_DATA} (error: {e})", state="error")
            has_expected = "expected" in item
            row = ans.to_dict(item.get("expected"), with_expected=has_expected)
            if has_expected:
                row["correct"] = _score(ans.answer, item["expected"])
            rows.append(row)
            log.info("%s -> %s", item["query"], ans.answer)
    summary = summary_line(rows)
    _write_outcome(outdir, rows, model, graph_paths, summary)
    return f"{summary}\noutcome: {outdir}"


def _write_outcome(outdir: Path, rows: list[dict[str, Any]], model: ChatModel, graph_paths: list,
                   summary: str | None = None) -> None:
    from ontobuild.outcome import write_json

    write_json(outdir / "answers.json", rows)
    stats: dict[str, Any] = {"outcome": str(outdir), "ontology": [str(p) for p in graph_paths],
                             "questions": len(rows), "llm": model.usage.as_dict()}
    if summary:
        stats["summary"] = summary
    write_json(outdir / "stats.json", stats)


__all__ = ["Answer", "Asker", "run_question", "run_batch", "read_questions", "summary_line", "fmt_number",
           "PlanError", "words"]
