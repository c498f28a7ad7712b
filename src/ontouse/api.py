"""The answerer as a library: `ontouse.Answerer(...)` and `ontouse.ask(...)` return answer records.

    import ontouse

    with ontouse.Answerer("outcomes/catalog") as answerer:   # an outcome folder, RDF files, or endpoint=URL
        answer = answerer.ask("Which product is the lightest?")
        print(answer.answer)          # the text
        print(answer.sparql[-1])      # the SPARQL that produced it
        print(answer.support)         # [subject, predicate, object] triples that back it
        print(answer.to_dict())       # the whole record (what `ontoask --json` prints)

    ontouse.ask("How many products are there?", "my.ttl")   # one question, opened and closed

The `ontoask` command (one question, batches, conversations, `serve`, `mcp`) is a layer over `Answerer`.
Every query, the answerer's and `Answerer.sparql`'s, goes through the store's read-only check and sandbox."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ontocore.errors import InputError
from ontocore.llm import model_settings

from .answer import Answer
from .storage.store import Source

if TYPE_CHECKING:
    from ontocore.llm import ChatModel

    from .answerer import AnswerLoop
    from .sqlplan.schema import Schema
    from .storage.sparql import QueryResult
    from .storage.store import Store

log = logging.getLogger(__name__)


class Answerer:
    """Answers questions about one ontology, from SPARQL results only, with the triples that back each answer.

    - `ontology`: an ontobuild outcome folder or RDF files (.owl .rdf .ttl .nt .n3 .jsonld), one or several;
      or `endpoint`: a SPARQL 1.1 endpoint's query URL (read-only), restricted to named graph `graph`;
      or `source`: an `ontouse.storage.store.Source` that says either.
    - `store`: "oxigraph" (default) or "memory" for local files; `store_path`: keep the Oxigraph store on disk.
    - `model`: a model name on an OpenAI-compatible server, or an open model object (anything with the
      `ChatModel.chat` method); with `backend`, `base_url`, `api_key`, `model_path`, `threads`,
      `model_timeout`, `model_retries` as keywords (default: the environment, as for the command).
    - `examples`: a JSON/YAML file of example questions with their SQL plans; `trace`: a JSONL trace file.
    - `second_plans`: how many second plans, asked another way, an answer must agree with before it is stated
      (default 2, within the budget of 3 model calls per question; 0: none, the fastest).

    The view of the ontology is built once, here; `ask` can then be called any number of times (from one
    thread at a time: the model and the store are not shared between concurrent calls). `close()` (or a
    `with` block) stops the query process."""

    def __init__(self, ontology: str | Path | Iterable[str | Path] = (), *, endpoint: str | None = None,
                 graph: str | None = None, store: str = "oxigraph", store_path: str | Path | None = None,
                 source: Source | None = None, model: "str | ChatModel | None" = None,
                 examples: str | Path | None = None, trace: str | Path | None = None,
                 second_plans: int | None = None, **model_options: Any) -> None:
        from .answerer import open_answerer
        from .second_plans import SECOND_PLANS

        if source is None:
            paths = [ontology] if isinstance(ontology, (str, Path)) else list(ontology or ())
            source = Source(paths=tuple(Path(p) for p in paths), endpoint=endpoint, graph=graph, kind=store,
                            store_path=Path(store_path) if store_path is not None else None)
        elif ontology or endpoint:
            raise InputError("give either source or ontology / endpoint, not both.")
        chat_model, options = model_settings(model, **model_options)
        self.source = source
        opened = source.open()
        try:
            self.core: AnswerLoop = open_answerer(store=opened, model=chat_model, llm_options=options,
                                            examples_path=examples, trace_path=trace,
                                            second_plans=len(SECOND_PLANS) if second_plans is None else second_plans)
        except BaseException:
            _close(opened)
            raise
        from .provenance import Provenance

        self._provenance = None if source.endpoint else Provenance.find(source.paths)

    # ---- what the answerer holds ---------------------------------------------------------------------------
    @property
    def store(self) -> "Store":
        """The graph (every query through it is checked read-only and sandboxed)."""
        return self.core.store

    @property
    def model(self) -> "ChatModel":
        return self.core.model

    @property
    def schema(self) -> "Schema":
        """The relational view of the ontology: a table per class, a column per property."""
        return self.core.schema

    @property
    def view_seconds(self) -> float:
        return self.core.view_seconds

    # ---- questions ------------------------------------------------------------------------------------------
    def ask(self, question: str) -> Answer:
        """The answer record of one question: `answer` (text), `rows`, `sparql` (every query that ran, the
        last one produced the answer), `support` (triples) with their `sources` (where each came from, when the
        ontology was built by ontobuild), `state` ("answered", "no_data" or "error") and the cost.

        Raises `InputError` for an empty question, and `OntoError`s when the model server fails."""
        if not question or not question.strip():
            raise InputError("The question is empty.")
        return self.add_sources(self.core.ask(question.strip()))

    def add_sources(self, answer: Answer) -> Answer:
        """Record where each support triple came from (the entities index beside the ontology), in place."""
        if self._provenance is not None and answer.support:
            answer.sources = self._provenance.sources(answer.support, self.store.prefixes)
        return answer

    # ---- without the model ---------------------------------------------------------------------------------
    def answer_sql(self, question: str, sql: str, *, lang: str = "", english: str = "") -> Answer:
        """The answer a given plan (SQL over the relational view) gives to the question, with no model call: the
        same reading, repairs, checks and support as a plan the model wrote (`AnswerLoop.answer_sql`)."""
        return self.add_sources(self.core.answer_sql(question, sql, lang=lang, english=english))

    def sparql(self, query: str, max_rows: int = 50, timeout_s: float = 10.0) -> "QueryResult":
        """Run one read-only SPARQL query (SELECT or ASK; checked and sandboxed like every query). A refused,
        malformed or too slow query raises `InputError` with the reason."""
        return run_sparql(self.store, query, max_rows=max_rows, timeout_s=timeout_s)

    def describe_schema(self, samples: int = 3) -> dict[str, Any]:
        """The classes of the ontology with their instance counts and the properties their instances use
        (kind, datatype, linked class, triples, things with a value, a few sample values), as plain data."""
        return describe_schema(self.schema, samples=samples)

    # ---- life cycle -----------------------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the query process and close the trace (the answerer cannot be used afterwards)."""
        try:
            self.core.trace.close()
        finally:
            _close(self.core.store)

    def __enter__(self) -> "Answerer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def ask(question: str, ontology: str | Path | Iterable[str | Path] = (), **options: Any) -> Answer:
    """Answer one question: open an `Answerer` with `options` (its keywords), ask, close. For several
    questions keep one `Answerer`: the view of the ontology and the model are loaded once."""
    with Answerer(ontology, **options) as answerer:
        return answerer.ask(question)


def run_sparql(store: "Store", query: str, max_rows: int = 50, timeout_s: float = 10.0) -> "QueryResult":
    """One read-only query through the store's check and sandbox; a refused, malformed or too slow query is
    the caller's input to change: InputError."""
    from .storage.sparql import QueryError

    if not query or not query.strip():
        raise InputError("The query is empty.")
    try:
        return store.select(query, max_rows=max_rows, timeout_s=timeout_s)
    except QueryError as e:
        raise InputError(str(e)) from None


def describe_schema(schema: "Schema", samples: int = 3) -> dict[str, Any]:
    """The relational view as data: per class (table) its IRI, label, instances and properties (columns)."""
    classes = []
    for table in schema.tables.values():
        properties = []
        for column in table.columns.values():
            if column.kind == "id":
                continue
            item: dict[str, Any] = {"name": column.name, "iri": str(column.prop) if column.prop else "",
                                    "kind": "link" if column.kind == "link" else "value",
                                    "triples": column.count, "subjects": column.subjects,
                                    "distinct": column.distinct}
            if column.kind == "link":
                item["links_to"] = column.target
            else:
                item["type"] = column.sql_type
                if column.datatype:
                    item["datatype"] = column.datatype
            if column.key_of:
                item["refers_to"] = column.key_of
            if column.label:
                item["label"] = column.label
            if column.is_label:
                item["is_label"] = True
            if samples and column.samples:
                item["samples"] = column.samples[:samples]
            properties.append(item)
        entry: dict[str, Any] = {"name": table.name, "iri": str(table.cls), "instances": table.count,
                                 "properties": properties}
        if table.label:
            entry["label"] = table.label
        if table.comment:
            entry["comment"] = table.comment
        if table.parents:
            entry["parents"] = list(table.parents)
        classes.append(entry)
    return {"classes": classes}


def _close(store: Any) -> None:
    close = getattr(store, "close", None)
    if close is not None:
        close()


__all__ = ["Answer", "Answerer", "ask", "describe_schema", "run_sparql"]
