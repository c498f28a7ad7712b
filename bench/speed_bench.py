"""Speed of ontoask with the embedded local model: seconds per question, the first question of a new process with a
cold and with a warm prefix cache, and the prompt tokens evaluated versus reused.

Over an ontobuild outcome of the bundled example (built first when missing:
`ontobuild data/example/catalog.json data/example/guidelines.txt --out OUTCOME`, a few minutes), with questions
written for this benchmark (not the dev set). Every measured run is its own process, as a user's `ontoask` is:

1. cold: an empty prefix cache and no kept view (a fresh folder); the process answers the first question;
2. warm: the same cache, now holding the state the cold run saved; the process answers every question (its first
   question is "the first question in a new process, warm cache"; all of them give the seconds per question);
3. baseline (--baseline): no prefix cache at all (what ontoask did before it kept prefixes: llama-cpp-python's own
   reuse of the previous call's context only), every question in one process.

Timings depend on the machine's load: the results are labelled with --label (e.g. "busy machine" when other
processes run models on the same cores). Writes bench/results/speed.json and speed.md; progress on stderr.

    python -m bench.speed_bench --outcome /tmp/ex --label "busy machine"
    python -m bench.speed_bench --outcome /tmp/ex --baseline --label quiet
    python -m bench.speed_bench --set poc --label quiet    # the proof of concept's GPT-built ontology (42 tables)

`--set poc` asks ten questions of this benchmark's own (not from any question set) over
../shared/data/poc/reference_outcome/ontology.owl, a user's larger ontology, and writes speed_poc.json / .md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
BUILD_INPUTS = [REPO / "data" / "example" / "catalog.json", REPO / "data" / "example" / "guidelines.txt"]

# Questions of this benchmark (own wording, varied shapes: lookup, filter, count, superlative, aggregate, yes/no).
QUESTIONS = [
    "How much does the GravelKing Carbon cost?",
    "List the frames that come in green.",
    "How many helmets are there?",
    "Which frame has the shortest warranty?",
    "What is the capacity in pallets of Mill Lane Store?",
    "What is the highest price among the helmets?",
    "Does the CityGlide 700 come in blue?",
    "Which products are made of carbon fibre?",
]


# Ten questions of this benchmark over the proof of concept's ontology (own wording: lookup, count, superlative,
# filter, a value of a linked thing, and one about a quantity the graph does not hold).
POC_QUESTIONS = [
    "What is the daily storage cost per pallet of EcoRing?",
    "How many products are there?",
    "Which product has the highest unit weight?",
    "How many pieces per pack does SideLine_CURB_SP12 have?",
    "What is the average storage time of WavePave in days?",
    "Which products cost more than 1 euro per pallet and day to store?",
    "How many overhead cranes are there?",
    "Which colors are there?",
    "In which sector is EcoRing stored?",
    "What is the electricity consumption of the electric forklift?",
]
POC_ONTOLOGY = (REPO / ".." / "shared" / "data" / "poc" / "reference_outcome" / "ontology.owl").resolve()
SETS = {"example": QUESTIONS, "poc": POC_QUESTIONS}


def ensure_outcome(path: Path) -> Path:
    if path.is_file() or (path / "ontology.ttl").is_file():
        return path
    print(f"building {path} with ontobuild (a few minutes) ...", file=sys.stderr, flush=True)
    exe = Path(sys.executable).with_name("ontobuild")
    cmd = [str(exe) if exe.exists() else "ontobuild", *map(str, BUILD_INPUTS), "--out", str(path)]
    t = time.monotonic()
    subprocess.run(cmd, check=True, cwd=REPO)
    print(f"built in {time.monotonic() - t:.0f} s", file=sys.stderr, flush=True)
    return path


def p95(values: list[float]) -> float:
    """The 95th percentile by the nearest-rank method (with fewer than 20 values: the largest)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


# ---- one measured process ------------------------------------------------------------------------------------
def child(args: argparse.Namespace) -> None:
    """Runs in its own process: open the answerer over the outcome and answer the questions; prints one JSON line."""
    started = float(args.t0)
    from ontocore.llm import open_model
    from ontouse.answerer import open_answerer

    t = time.monotonic()
    model = open_model({"backend": "local"})
    if args.no_cache:  # as before prefixes were kept: only llama-cpp-python's reuse of the previous context
        model.keep_prefix = lambda text: None  # type: ignore[method-assign]
    answerer = open_answerer([Path(args.outcome)], model=model)
    opened = time.monotonic() - t
    rows = []
    first_latency = None
    for q in json.loads(args.questions):
        ans = answerer.ask(q)
        if first_latency is None:
            first_latency = time.time() - started  # from the process's start: imports, model, view, answer
        rows.append({"question": q, "answer": ans.answer, "state": ans.state, "llm_calls": ans.llm_calls,
                     "seconds": round(ans.seconds, 2), "wait_seconds": round(ans.wait_seconds, 2),
                     "prompt_tokens": ans.prompt_tokens,
                     "prompt_evaluated": ans.prompt_evaluated, "prompt_reused": ans.prompt_reused,
                     "prompt_loaded": ans.prompt_loaded, "completion_tokens": ans.completion_tokens})
    model = answerer.model
    cache = getattr(model, "prefix_cache", None)
    print(json.dumps({"first_question_seconds": round(first_latency or 0.0, 2),
                      "open_seconds": round(opened, 2), "view_seconds": round(answerer.view_seconds, 2),
                      "model_load_seconds": round(getattr(model, "load_seconds", 0.0), 2),
                      "view_tokens": len(model._llm.tokenize(answerer.system.encode("utf-8"), special=True))
                      if hasattr(model, "_llm") else None,
                      "view_cut_per_question": answerer.relevance is not None,
                      "prefix_cache": cache.stats() if cache is not None else None,
                      "llm": model.usage.as_dict(), "questions": rows}), flush=True)


def run_child(outcome: Path, questions: list[str], cache_dir: Path, no_cache: bool = False) -> dict[str, Any]:
    env = {**os.environ, "ONTOBUILD_PREFIX_CACHE_DIR": str(cache_dir), "ONTOBUILD_VIEW_CACHE_DIR": str(cache_dir / "views")}
    env.setdefault("PYTHONPATH", str(REPO / "src"))
    cmd = [sys.executable, "-m", "bench.speed_bench", "--child", "--outcome", str(outcome),
           "--questions", json.dumps(questions), "--t0", repr(time.time())]
    if no_cache:
        cmd.append("--no-cache")
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"the measured process failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def per_question(run: dict[str, Any]) -> dict[str, Any]:
    rows = run["questions"]
    secs = [r["seconds"] for r in rows]
    after_first = [r["prompt_evaluated"] for r in rows[1:]] or [0]
    return {"questions": len(rows), "median_seconds": round(statistics.median(secs), 2),
            "median_llm_calls": statistics.median(r["llm_calls"] for r in rows),
            "median_prompt_evaluated_after_first": statistics.median(after_first),
            "max_prompt_evaluated_after_first": max(after_first),
            "p95_seconds": round(p95(secs), 2), "mean_seconds": round(statistics.fmean(secs), 2),
            "answered": sum(r["state"] == "answered" for r in rows),
            "prompt_tokens": sum(r["prompt_tokens"] for r in rows),
            "prompt_evaluated": sum(r["prompt_evaluated"] for r in rows),
            "prompt_reused": sum(r["prompt_reused"] for r in rows),
            "prompt_loaded": sum(r["prompt_loaded"] for r in rows),
            "completion_tokens": sum(r["completion_tokens"] for r in rows)}


def first(run: dict[str, Any]) -> dict[str, Any]:
    q = run["questions"][0]
    return {"seconds_from_process_start": run["first_question_seconds"], "answer_seconds": q["seconds"],
            "waited_for_other_inference_seconds": q["wait_seconds"],
            "model_load_seconds": run["model_load_seconds"], "view_seconds": run["view_seconds"],
            "prompt_tokens": q["prompt_tokens"], "prompt_evaluated": q["prompt_evaluated"],
            "prompt_reused": q["prompt_reused"], "prompt_loaded": q["prompt_loaded"], "state": q["state"]}


def write_md(result: dict[str, Any], path: Path) -> None:
    lines = [f"# ontoask speed over {Path(result['outcome']).name} ({result['label']})", "",
             f"{result['date']}, commit {result['commit'][:10]}, {result['machine']}; {result['command']}", "",
             f"Ontology: {result['outcome']}; system prompt (instructions, examples, view): "
             f"{result['view_tokens']} tokens"
             f"{', cut per question' if result['view_cut_per_question'] else ', the whole view'}.", "",
             "| run | seconds | prompt tokens | evaluated | reused | from the prefix cache |", "|---|---|---|---|---|---|"]
    for name, key in (("first question, new process, cold cache", "cold_first"),
                      ("first question, new process, warm cache", "warm_first"),
                      ("first question, new process, no prefix cache", "baseline_first")):
        f = result.get(key)
        if f:
            lines.append(f"| {name} | {f['seconds_from_process_start']} (answer {f['answer_seconds']}, waiting for "
                         f"other processes' inference {f['waited_for_other_inference_seconds']}, model load "
                         f"{f['model_load_seconds']}, view {f['view_seconds']}) | {f['prompt_tokens']} | "
                         f"{f['prompt_evaluated']} | {f['prompt_reused']} | {f['prompt_loaded']} |")
    lines += ["", "| questions in one process | n | median s | p95 s | mean s | median calls | answered | prompt tokens "
              "| evaluated | reused | evaluated per question after the first (median / max) |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, key in (("warm prefix cache", "session"), ("no prefix cache (before)", "baseline")):
        s = result.get(key)
        if s:
            lines.append(f"| {name} | {s['questions']} | {s['median_seconds']} | {s['p95_seconds']} | "
                         f"{s['mean_seconds']} | {s.get('median_llm_calls', '')} | {s['answered']} | "
                         f"{s['prompt_tokens']} | {s['prompt_evaluated']} | {s['prompt_reused']} | "
                         f"{s.get('median_prompt_evaluated_after_first', '')} / "
                         f"{s.get('max_prompt_evaluated_after_first', '')} |")
    lines += ["", "Per question (warm prefix cache, one process):", "",
              "| question | s | evaluated / prompt tokens | answer |", "|---|---|---|---|"]
    for r in result["session_questions"]:
        lines.append(f"| {r['question']} | {r['seconds']} | {r['prompt_evaluated']} / {r['prompt_tokens']} | "
                     f"{r['answer'][:60].replace('|', '/')} |")
    lines += ["", "Seconds per question are the answerer's own time: waiting for another process's inference (one "
              "local inference at a time on the machine) is not counted in them, but it is in the seconds from the "
              "process start. p95 by the nearest-rank method: with fewer than 20 questions it is the slowest one. "
              "Timings depend on the load of the machine (see the label)."]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--outcome", default=None, help="an ontobuild outcome of the example (built when missing; "
                    "default /tmp/ex), or an RDF file (--set poc: the proof of concept's ontology)")
    ap.add_argument("--set", choices=sorted(SETS), default="example", help="the questions (and default ontology)")
    ap.add_argument("--label", default="busy machine", help="how loaded the machine was (goes into the results)")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--baseline", action="store_true", help="also run without any prefix cache")
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--questions", help=argparse.SUPPRESS)
    ap.add_argument("--t0", help=argparse.SUPPRESS)
    ap.add_argument("--no-cache", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args)
        return
    from bench.report import _git, machine

    default = POC_ONTOLOGY if args.set == "poc" else Path("/tmp/ex")
    outcome = ensure_outcome(Path(args.outcome or default).resolve())
    questions = SETS[args.set][:args.limit]
    result: dict[str, Any] = {
        "label": args.label, "outcome": str(outcome), "machine": machine(), "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(_git("status", "--porcelain")), "date": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "command": "python -m bench.speed_bench " + " ".join(sys.argv[1:] if argv is None else argv)}
    with tempfile.TemporaryDirectory(prefix="speed_bench_cache_") as tmp:
        cache = Path(tmp)
        print("cold: a new process, empty prefix cache, first question ...", file=sys.stderr, flush=True)
        cold = run_child(outcome, questions[:1], cache)
        print(f"  {cold['first_question_seconds']} s", file=sys.stderr, flush=True)
        print(f"warm: a new process, the same cache, {len(questions)} questions ...", file=sys.stderr, flush=True)
        warm = run_child(outcome, questions, cache)
        print(f"  first {warm['first_question_seconds']} s; per question {per_question(warm)}", file=sys.stderr,
              flush=True)
        result["cache_files_mb"] = round(sum(p.stat().st_size for p in cache.glob("*.state")) / 2 ** 20, 1)
    result.update({"view_tokens": warm["view_tokens"], "view_cut_per_question": warm["view_cut_per_question"],
                   "cold_first": first(cold), "warm_first": first(warm), "session": per_question(warm),
                   "session_questions": warm["questions"], "prefix_cache_warm_process": warm["prefix_cache"]})
    if args.baseline:
        print(f"baseline: no prefix cache, {len(questions)} questions ...", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(prefix="speed_bench_none_") as tmp:
            base = run_child(outcome, questions, Path(tmp), no_cache=True)
        result.update({"baseline_first": first(base), "baseline": per_question(base),
                       "baseline_questions": base["questions"]})
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    name = "speed" if args.set == "example" else f"speed_{args.set}"
    (out / f"{name}.json").write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    write_md(result, out / f"{name}.md")
    print((out / f"{name}.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
