"""Shared helpers of the answering benchmarks (bench.ask_bench, bench.spider): what a results file records about
the run (machine, model, commit, date, command line), asking one question without letting an exception stop a
run, summary statistics, per-group tables, and bench/results/README.md written from every results file there.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable, Iterable

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


# ----------------------------------------------------------------------------------------------- run facts

def machine() -> dict[str, Any]:
    cpu = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cores": os.cpu_count(), "cpu": cpu or platform.processor(), "python": platform.python_version(),
            "platform": platform.platform()}


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def run_info(model: Any = None, argv: list[str] | None = None) -> dict[str, Any]:
    """What a results file records about its run: model, machine, commit (and whether the tree had changes),
    date and time, and the command line."""
    argv = sys.argv[1:] if argv is None else argv
    info: dict[str, Any] = {
        "model": {"backend": getattr(model, "backend", "?"), "model": getattr(model, "model", "?")},
        "machine": machine(), "commit": _git("rev-parse", "HEAD"), "dirty": bool(_git("status", "--porcelain")),
        "date": _dt.datetime.now().isoformat(timespec="seconds"),
        "command": shlex.join(["python", "-m", "bench.ask_bench", *argv])}
    return info


def trace_dir(name: str) -> Path:
    """A fresh folder for the JSONL traces of one run (outcomes/ask_bench_<name>_<time>)."""
    from ontocore.folders import new_outcome_dir

    path = new_outcome_dir(out=REPO / "outcomes" / f"ask_bench_{name}_{time.strftime('%Y%m%d_%H%M%S')}")
    print(f"traces: {path}", file=sys.stderr, flush=True)
    return path


def open_answerer_for(graph_paths: list[Path], model: Any, trace_path: Path | None) -> Any:
    """An answerer over `graph_paths` that uses the already loaded `model` (loaded once per run)."""
    from ontouse.answerer import open_answerer

    return open_answerer(graph_paths=graph_paths, model=model, llm_options=None, examples_path=None,
                         trace_path=trace_path)


def close(answerer: Any) -> None:
    fn = getattr(answerer, "close", None)
    if callable(fn):
        fn()


def ask(answerer: Any, question: str) -> Any:
    """The answerer's Answer; an exception becomes an Answer in state "error" (the run goes on). The wall time
    is filled in when the answerer did not measure it."""
    from ontouse.answer import Answer

    t = time.monotonic()
    try:
        ans = answerer.ask(question)
    except Exception as exc:  # noqa: BLE001 - one failing question must not stop a benchmark
        ans = Answer(question=question, answer="", state="error", error=f"{type(exc).__name__}: {exc}")
    if not ans.seconds:
        ans.seconds = time.monotonic() - t
    return ans


# ----------------------------------------------------------------------------------------------- statistics

def stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians and means of the cost columns (llm_calls, prompt/completion tokens, seconds)."""
    out: dict[str, Any] = {"questions": len(rows)}
    for key in ("llm_calls", "prompt_tokens", "completion_tokens", "seconds"):
        vals = [float(r.get(key) or 0) for r in rows]
        out[f"median_{key}"] = round(statistics.median(vals), 2) if vals else 0
        out[f"mean_{key}"] = round(statistics.mean(vals), 2) if vals else 0
    out["mean_tokens"] = round(out["mean_prompt_tokens"] + out["mean_completion_tokens"], 2)
    return out


def by_group(rows: list[dict[str, Any]], key: str) -> dict[str, dict[str, Any]]:
    """Per value of rows[key]: questions, correct (exact: `correct`, or F1 = 1), accuracy and mean F1."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[str(r.get(key, ""))].append(r)
    out = {}
    for name, rs in sorted(groups.items()):
        exact = [bool(r["correct"]) if "correct" in r else r.get("f1") == 1.0 for r in rs]
        f1s = [float(r["f1"]) for r in rs if r.get("f1") is not None]
        out[name] = {"total": len(rs), "correct": sum(exact), "accuracy": round(sum(exact) / len(rs), 4),
                     "mean_f1": round(statistics.mean(f1s), 4) if f1s else None}
    return out


def unsupported(rows: list[dict[str, Any]]) -> int:
    """Answers given (state "answered") without a support set: must be 0."""
    return sum(1 for r in rows if r.get("state") == "answered" and not r.get("has_support"))


def write_json(path: Path, data: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


# ----------------------------------------------------------------------------------------------- README

def keep_labelled_run(path: Path, md_name: str, label: str, run: dict[str, Any],
                      render_md: Callable[[dict[str, Any]], str], write: bool = True) -> str:
    """Store one label's run in the results file `path` beside the other labels' runs (a re-run of a label
    replaces only that label), and the markdown `render_md` makes of them all as RESULTS/`md_name`; returns the
    markdown. Runs of two labels at once take turns (a file lock); the JSON is replaced atomically."""
    import tempfile

    from filelock import FileLock

    with FileLock(str(Path(tempfile.gettempdir()) / f"{path.stem}_results.lock")):
        results = json.loads(path.read_text("utf-8")) if path.is_file() else {"runs": {}}
        results["runs"][label] = run
        md = render_md(results)
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{label}.tmp")
            tmp.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            tmp.replace(path)
            (path.parent / md_name).write_text(md, encoding="utf-8")
    return md


def run_labelled(name: str, questions: list[dict[str, Any]], args: Any, argv: list[str] | None,
                 run: Callable[..., list[dict[str, Any]]], summarize: Callable[[list[dict[str, Any]]], Any],
                 render_md: Callable[[dict[str, Any]], str], extra: dict[str, Any] | None = None) -> int:
    """A labelled question benchmark's run (bench.owl_bench, bench.lang_bench): the embedded model (recording its
    exchanges to args.record when given), `run(model, questions, after_each=...)`, and the results kept as
    RESULTS/<name>.json and <name>.md after each question (a long run that is stopped keeps what it measured)."""
    from ontocore.llm import open_model

    model = open_model({"backend": "local"})
    if args.record:
        from ontocore.cassette import RecordingChat

        model = RecordingChat(model, args.record)
    info = run_info(model, sys.argv[1:] if argv is None else argv)
    info["command"] = info["command"].replace("bench.ask_bench", f"bench.{name}_bench")
    import ontouse

    info.update(extra or {}, answerer=str(Path(ontouse.__file__).resolve().parent))

    def write(rows: list[dict[str, Any]], final: bool = False) -> None:
        this = {**info, "summary": summarize(rows), "rows": rows, **({} if final else {"partial": True})}
        md = keep_labelled_run(RESULTS / f"{name}.json", f"{name}.md", args.label, this, render_md,
                               write=not args.no_write)
        if final:
            print(md)

    write(run(model, questions, after_each=write), final=True)
    return 0


def _load(results: Path, *names: str) -> dict[str, Any] | None:
    for name in names:
        if (results / name).is_file():
            return json.loads((results / name).read_text("utf-8"))
    return None


def _ck25_types(rows: list[dict[str, Any]]) -> None:
    """Fill in the question type of CK25 rows written before rows had one (from the reference SPARQL)."""
    if all("type" in r for r in rows):
        return
    try:
        from bench.ck25 import load_questions
        from bench.qtype import question_type

        types = {q["id"]: question_type(q["sparql"]) for q in load_questions()}
    except Exception:  # noqa: BLE001 - no data or no yaml: the table is left out
        return
    for r in rows:
        r.setdefault("type", types.get(r.get("id", ""), "?"))


def _table(head: list[str], groups: dict[str, dict[str, Any]], cells: Callable[[dict[str, Any]], list[str]]) -> list[str]:
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += [f"| {name} | " + " | ".join(cells(g)) + " |" for name, g in groups.items()]
    return lines


def _ea_cells(g: dict[str, Any]) -> list[str]:
    return [str(g["total"]), f"{g['correct']} ({g['accuracy']:.1%})", f"{g['mean_f1']:.3f}"]


def write_readme(results: Path | None = None) -> Path:
    """README.md from the results files in `results` (default bench/results): dev, CK25 and Spider4SPARQL (the
    full run, or else the last partial run)."""
    results = RESULTS if results is None else results
    dev = _load(results, "ask_dev.json")
    ck25 = _load(results, "ask_ck25.json")
    spider = _load(results, "ask_spider.json", "ask_spider_partial.json")
    some = spider or ck25 or dev or {}
    m, model = some.get("machine", machine()), some.get("model", {})
    lines = ["# ontoask benchmark results", "",
             f"Model: {model.get('model', '?')} ({model.get('backend', '?')} backend); machine: {m.get('cores')} "
             f"cores, {m.get('cpu', '')}. Written by `python -m bench.ask_bench`.", "",
             "| benchmark | questions | score | median calls | mean calls | mean prompt tokens | "
             "mean completion tokens | median s | mean s |", "|---|---|---|---|---|---|---|---|---|"]
    parts: list[tuple[str, dict[str, Any] | None, Callable[[dict[str, Any]], str]]] = [
        ("dev (data/dev_questions.json)", dev, lambda s: f"{s['accuracy']:.1%} correct"),
        ("CK25", ck25, lambda s: f"mean F1 {s['mean_f1']:.3f}"),
        ("Spider4SPARQL" + (" (partial)" if spider and spider.get("partial") else ""), spider,
         lambda s: f"EA {s['ea']:.1%}, mean F1 {s['mean_f1']:.3f}")]
    for name, res, score in parts:
        if res:
            s = res["summary"]
            lines.append(f"| {name} | {s['questions']} | {score(s)} | {s['median_llm_calls']} | {s['mean_llm_calls']} "
                         f"| {s['mean_prompt_tokens']:.0f} | {s['mean_completion_tokens']:.0f} | "
                         f"{s['median_seconds']} | {s['mean_seconds']} |")
    if dev:
        s = dev["summary"]
        lines += ["", f"Dev set over `{dev.get('ontology', '?')}` ({dev.get('date', '?')}); answers without a support "
                  f"set (other than \"No data available\"): {s.get('answers_without_support', '?')}.", "",
                  "| question type | correct |", "|---|---|"]
        lines += [f"| {t} | {v['correct']}/{v['total']} |" for t, v in s["per_type"].items()]
    if ck25:
        s, rows = ck25["summary"], ck25.get("questions", [])
        by_iri = " (things scored by IRI)" if rows and "f1_by_value" in rows[0] else ""
        lines += ["", f"CK25 ({ck25.get('date', '?')}): {s['perfect']} of {s['questions']} questions with F1 = 1"
                  f"{by_iri}; best published systems reach a mean F1 of about 0.44 with large hosted models. "
                  "Question types from the reference SPARQL (bench/qtype.py):"]
        _ck25_types(rows)
        if rows and all("type" in r for r in rows):
            lines += [""] + _table(["question type", "questions", "mean F1", "F1 = 1"], by_group(rows, "type"),
                                   lambda g: [str(g["total"]), f"{g['mean_f1']:.3f}", str(g["correct"])])
    if spider:
        s = spider["summary"]
        lines += ["", f"Spider4SPARQL ({spider.get('date', '?')}, commit {str(spider.get('commit', '?'))[:10]}): "
                  f"execution accuracy (rows as sets, column order ignored, numbers within 1e-6) {s['correct']}/"
                  f"{s['questions']}; without the {s.get('weak', 0)} zero-or-null-only questions {s.get('ea_strong', 0):.1%}. "
                  f"Answers without support: {s['answers_without_support']}; errors: {s.get('errors', 0)}. "
                  "Published systems reach at most about 45% EA.", ""]
        lines += _table(["database", "questions", "EA", "mean value F1"], s["per_db"], _ea_cells)
        lines += [""] + _table(["question type", "questions", "EA", "mean value F1"], s["per_type"], _ea_cells)
    results.mkdir(parents=True, exist_ok=True)
    path = results / "README.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def mean(values: Iterable[float]) -> float:
    vals = list(values)
    return round(sum(vals) / len(vals), 4) if vals else 0.0
