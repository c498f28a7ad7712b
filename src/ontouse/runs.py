"""`ontoask QUESTION` and `ontoask --questions FILE`: one question, or a batch into an outcome folder.

A batch writes answers.json (one row per question: the answer, the result table, SPARQL, plan, support with
each triple's source, cost), answers.log (a JSONL trace of every model exchange and query), report.html (report.py)
and stats.json, each atomically."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable, Iterable

from ontocore.errors import InputError, ModelServerError, ModelUnavailable, OntoError
from ontocore.folders import OutcomeFolder, outcome_folder, write_json
from ontocore.llm import ChatModel
from ontocore.progress import Progress

from .answer import Answer
from .api import Answerer
from .report import write_answers_report
from .storage.store import Source

log = logging.getLogger(__name__)


def _load_questions(path: Path) -> Any:
    """The data of a questions file: YAML for .yml/.yaml (safe loading, a bounded number of anchors), else JSON."""
    from ontocore.files import read_json_file, read_text_file

    if path.suffix.lower() not in (".yml", ".yaml"):
        return read_json_file(path)
    import yaml

    text = read_text_file(path)
    if text.count("&") > 1000 or (text.count("*") > 1000 and "&" in text):
        raise InputError(f"{path} uses too many YAML anchors and aliases for a questions file.")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as e:
        raise InputError(f"{path} is not valid YAML: {' '.join(str(e).split())[:300]}.") from None


def read_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions file (JSON, or YAML for .yml/.yaml): a list of questions, each a string or an object with its
    text in "question" (or "query") and optionally "expected"; or an object whose "questions" is that list. The
    TEXT2SPARQL challenge's questions.yaml is read too: {"dataset": {"id": IRI}, "questions": [{"question": {"en":
    ..., "de": ...}, "query": {"sparql": ...}}]}, one question per language (its "language", "dataset" and the
    gold "sparql" kept with it)."""
    path = Path(path)
    data = _load_questions(path)
    dataset = None
    if isinstance(data, dict) and isinstance(data.get("questions"), list):
        ds = data.get("dataset")
        dataset = ds.get("id") if isinstance(ds, dict) else ds if isinstance(ds, str) else None
        data = data["questions"]
    if not isinstance(data, list) or not data:
        raise InputError(f"{path} must hold a non-empty list of questions (strings, or objects with a "
                         "\"question\" and optionally \"expected\"), or an object whose \"questions\" is that list.")
    out = []
    for i, item in enumerate(data):
        if isinstance(item, str):
            item = {"query": item}
        if not isinstance(item, dict):
            raise InputError(f"{path}: item {i + 1} is not a question (a string or an object with a \"question\").")
        extra = {k: v for k, v in item.items() if k != "query" and not (k == "question" and not isinstance(v, str))}
        if dataset is not None:
            extra.setdefault("dataset", dataset)
        gold = item.get("query") if "question" in item else None  # TEXT2SPARQL: "query" is the gold SPARQL
        if isinstance(gold, dict):
            gold = gold.get("sparql")
        if isinstance(gold, str) and gold.strip():
            extra["sparql"] = gold.strip()
        text = item.get("question", item.get("query"))
        texts = text.items() if isinstance(text, dict) else [(None, text)]  # {"en": ..., "de": ...}: each language
        for language, q in texts:
            if not isinstance(q, str) or not q.strip():
                raise InputError(f"{path}: item {i + 1} has no question text"
                                 f"{f' in {language!r}' if language else ''}.")
            out.append({**extra, **({"language": language} if language else {}), "query": " ".join(q.split())})
    return out


def _score(answer: Answer, expected: Any) -> bool:
    """Whether the answer gives the expected value (ontouse.scoring.answer_is_correct: its yes/no and state fields,
    else its text's values)."""
    from .scoring import answer_is_correct

    return bool(answer_is_correct(answer, expected))


def summary_line(rows: list[dict[str, Any]]) -> str:
    n = len(rows)
    if not n:
        return "no questions"
    calls = sum(r["llm_calls"] for r in rows) / n
    pt = sum(r["prompt_tokens"] for r in rows) / n
    evaluated = sum(r.get("prompt_evaluated", r["prompt_tokens"]) for r in rows) / n
    ct = sum(r["completion_tokens"] for r in rows) / n
    secs = sum(r["seconds"] for r in rows) / n
    answered = sum(1 for r in rows if r.get("state") == "answered")
    scored = [r["correct"] for r in rows if r.get("correct") is not None]
    head = f"{sum(scored)}/{len(scored)} correct (expected given)" if scored else f"{answered}/{n} answered"
    failed = sum(1 for r in rows if r.get("state") == "error")
    unsure = sum(1 for r in rows if r.get("state") == "unsure")
    if unsure:
        head += f", {unsure} unsure"
    if failed:
        head += f", {failed} failed"
    kept = f" ({evaluated:.0f} evaluated)" if evaluated < pt else ""
    return (f"{head}, {calls:.1f} calls, {pt:.0f} prompt{kept} + {ct:.0f} completion tokens, {secs:.1f} s per "
            "question")


def _source(graph: Source | list[Path]) -> Source:
    return graph if isinstance(graph, Source) else Source(paths=tuple(Path(p) for p in graph))


def _open(source: Source, model: ChatModel | None, llm_options: dict[str, Any] | None,
          examples_path: str | Path | None, trace_path: Path | None = None,
          second_plans: int | None = None) -> Answerer:
    """The public answerer (ontouse.api) over `source`, with the command's model options (`second_plans`: see
    ontouse.Answerer; None: its default)."""
    options = {k: v for k, v in (llm_options or {}).items() if v is not None}
    renamed = {"timeout": "model_timeout", "retries": "model_retries"}
    settings = {renamed.get(k, k): v for k, v in options.items() if k != "model"}
    return Answerer(source=source, model=model or options.get("model"), examples=examples_path,
                    trace=trace_path, second_plans=second_plans, **settings)


def _fatal(e: OntoError) -> bool:
    """Errors that would fail every following question too: the model server is gone or not configured."""
    return isinstance(e, (ModelServerError, ModelUnavailable))


def run_question(graph_paths: Source | list[Path], question: str, llm_options: dict[str, Any] | None = None,
                 out: str | Path | None = None, examples_path: str | Path | None = None, force: bool = False,
                 keep_partial: bool = False, second_plans: int | None = None) -> Answer:
    """Answer one question (and write an outcome folder with `out`, only if it succeeds)."""
    if not question or not question.strip():
        raise InputError("The question is empty.")
    source = _source(graph_paths)
    if out is None:
        with _open(source, None, llm_options, examples_path, second_plans=second_plans) as answerer:
            return answerer.ask(question)
    with outcome_folder(out=out, force=force, inputs=source.paths, keep_partial=keep_partial) as folder:
        with _open(source, None, llm_options, examples_path, folder.path / "answers.log", second_plans) as answerer:
            ans = answerer.ask(question)
            _write_outcome(folder, [ans.to_dict()], answerer, source)
    return ans


def run_batch(graph_paths: Source | list[Path], questions_path: str | Path, out: str | Path | None = None,
              llm_options: dict[str, Any] | None = None, model: ChatModel | None = None,
              examples_path: str | Path | None = None, limit: int | None = None,
              progress: Progress | None = None, force: bool = False, keep_partial: bool = False,
              second_plans: int | None = None) -> str:
    """Answer every question of a file into an outcome folder; returns the summary line.

    A question that fails (the model's output could not be used) is recorded with state "error" and counted;
    a model server that fails stops the batch; a batch in which every question failed is a failure. In both
    cases OntoError is raised and no outcome folder is left."""
    progress = progress or Progress()
    questions = read_questions(questions_path)[:limit] if limit else read_questions(questions_path)
    source = _source(graph_paths)
    with outcome_folder(out=out, force=force, inputs=[*source.paths, Path(questions_path)],
                        keep_partial=keep_partial) as folder:
        progress.begin("open", "opening the graph, building its view, loading the model")
        answerer = _open(source, model, llm_options, examples_path, folder.path / "answers.log", second_plans)
        progress.end("open")
        progress.begin("ask", f"answering {len(questions)} question(s)", total=len(questions))
        rows: list[dict[str, Any]] = []
        try:
            for i, item in enumerate(questions, 1):
                try:
                    ans = answerer.ask(item["query"])
                except OntoError as e:
                    if _fatal(e):  # same class, so the exit code stays (2: configuration, 1: the server)
                        raise type(e)(f"Stopped at question {i} of {len(questions)}: {e}") from None
                    log.warning("question failed: %s", e)  # e.g. the prompt does not fit: record it and go on
                    ans = Answer(question=item["query"], answer=f"Error: {e}", state="error", error=str(e))
                has_expected = "expected" in item
                row = ans.to_dict(item.get("expected"), with_expected=has_expected)
                if has_expected:
                    row["correct"] = _score(ans, item["expected"])
                for key, name in (("language", "language"), ("dataset", "dataset"), ("id", "id"),
                                  ("sparql", "gold_sparql")):  # what the questions file said of it (TEXT2SPARQL)
                    if key in item and name not in row:
                        row[name] = item[key]
                rows.append(row)
                log.info("%s -> %s", item["query"], ans.answer)
                progress.advance("ask", f"question {i} of {len(questions)}: {ans.state}, {ans.llm_calls} call(s), "
                                        f"{ans.seconds:.1f} s")
        finally:
            answerer.close()
        progress.end("ask")
        failed = [r for r in rows if r.get("state") == "error"]
        if rows and len(failed) == len(rows):
            raise OntoError(f"Every question failed ({len(rows)}); the first: {failed[0]['error']}")
        summary = summary_line(rows)
        _write_outcome(folder, rows, answerer, source, summary)
    return f"{summary}\noutcome: {folder.final}"


def run_chat(graph_paths: Source | list[Path], lines: Iterable[str], out: str | Path | None = None,
             llm_options: dict[str, Any] | None = None, model: ChatModel | None = None,
             examples_path: str | Path | None = None, show: Callable[[str], None] = print,
             force: bool = False, keep_partial: bool = False, second_plans: int | None = None) -> Path:
    """A conversation: each line is a question (follow-ups rewritten into standalone questions, chat.py); every
    answer is shown as it comes and the transcript, with support sets, is rewritten into the unfinished outcome
    folder after each turn; the folder is put in place when the conversation ends (also when the model server
    fails: the turns answered are kept, then the error is raised). Returns the outcome folder."""
    from .chat import Conversation

    source = _source(graph_paths)
    stopped: OntoError | None = None
    with outcome_folder(out=out, force=force, inputs=source.paths, keep_partial=keep_partial) as folder:
        answerer = _open(source, model, llm_options, examples_path, folder.path / "answers.log", second_plans)
        conversation = Conversation(answerer)
        rows: list[dict[str, Any]] = []
        try:
            for line in lines:
                question = " ".join(line.split())
                if not question:
                    continue
                if question.lower() in ("exit", "quit"):
                    break
                try:
                    answer = conversation.ask(question).answer
                except OntoError as e:
                    if _fatal(e):
                        stopped = e
                        break
                    show(f"Error: {e}")  # the model failed on this one: say so and go on
                    continue
                show(answer.render())
                rows.append(answer.to_dict())
                _write_outcome(folder, rows, answerer, source, f"chat: {len(rows)} question(s)")
        finally:
            answerer.close()
        if stopped is not None and not rows:  # nothing to keep: no folder
            raise type(stopped)(f"The conversation stopped: {stopped}")
        if not rows:
            _write_outcome(folder, rows, answerer, source, "chat: no question answered")
    if stopped is not None:
        raise type(stopped)(f"The conversation stopped (transcript of {len(rows)} answer(s): {folder.final}): "
                            f"{stopped}")
    return folder.final


def _write_outcome(folder: OutcomeFolder, rows: list[dict[str, Any]], answerer: Answerer, source: Source,
                   summary: str | None = None) -> None:
    outdir = folder.path

    write_json(outdir / "answers.json", rows)
    stats: dict[str, Any] = {"outcome": str(folder.final), "ontology": source.describe(),
                             "questions": len(rows), "answered": sum(1 for r in rows if r.get("state") == "answered"),
                             "unsure": sum(1 for r in rows if r.get("state") == "unsure"),
                             "failed": sum(1 for r in rows if r.get("state") == "error"),
                             "view_seconds": round(answerer.view_seconds, 2),
                             "tables": len(answerer.schema.tables), "llm": answerer.model.usage.as_dict()}
    cache = getattr(answerer.model, "prefix_cache", None)
    if cache is not None:
        stats["llm"]["prefix_cache"] = cache.stats()
    if summary:
        stats["summary"] = summary
    write_answers_report(outdir, rows, stats, name=folder.final.name)
    write_json(outdir / "stats.json", stats)


def answer_json(ans: Answer) -> str:
    return json.dumps(ans.to_dict(), ensure_ascii=False, indent=2)
