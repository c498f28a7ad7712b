"""Embedded-model backends on this machine: llama-cpp-python (built from source by pip: what the `local` extra installs
today) against a backend from a prebuilt wheel (xllamacpp: llama.cpp's server in process), on the same GGUF file,
the same prompt, the same threads, greedy, end of text suppressed so that both decode the same number of tokens.

    python -m bench.backend_bench                                   # both, 3 rounds each, alternating
    python -m bench.backend_bench --python /tmp/xl/bin/python       # xllamacpp from another venv (its own wheel)
    python -m bench.backend_bench --rounds 5 --tokens 128 --label quiet

Each measurement runs in its own process (one library loaded at a time) and reads llama.cpp's own counters: prompt
tokens evaluated per second and generated tokens per second (llama-cpp-python: `llama_perf_context`; xllamacpp: the
server's `timings`). The rounds alternate the backends, so that a change in the machine's load hits both. The
conditions (load average before and after, other llama.cpp processes, cores) are recorded with the figures in
bench/results/backends.json and backends.md. The inference lock of the project (`ontocore.llm.inference_lock`) is
held during each measurement, so that other users of the embedded model on this machine wait instead of sharing
the cores."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

# a builder-like prompt: the system turn, a text chunk, the opening of the assistant's turn (Qwen's chat format)
PROMPT = ("<|im_start|>system\nYou read a passage of a company's handbook and list every fact it states as "
          "subject, property, value and unit, one per line.<|im_end|>\n<|im_start|>user\n"
          + " ".join(["The north kiln fires at 1240 to 1280 °C and holds 36 shelves of tiles.",
                      "Its burners are serviced every 4 months; the east kiln is smaller and holds 20 shelves.",
                      "Glaze batches are mixed in 80 L drums and must rest at least 12 hours before use.",
                      "The drying room is kept between 18 and 24 °C at 40 to 55 % relative humidity."] * 6)
          + "<|im_end|>\n<|im_start|>assistant\n")

CHILD = r'''
import json, sys, time
backend, model, tokens, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
prompt = sys.stdin.read()
if backend == "llama-cpp-python":
    import llama_cpp
    from llama_cpp import Llama
    t = time.perf_counter()
    llm = Llama(model_path=model, n_ctx=4096, n_threads=threads, n_threads_batch=threads, n_batch=512, seed=0,
                verbose=False)
    load = time.perf_counter() - t
    eos = llm.token_eos()
    llm.create_completion(prompt, max_tokens=4, temperature=0.0)  # warm-up (first-call allocations)
    llm.reset()
    llama_cpp.llama_perf_context_reset(llm.ctx)
    t = time.perf_counter()
    out = llm.create_completion(prompt, max_tokens=tokens, temperature=0.0, logit_bias={eos: -1e9}, stop=[])
    wall = time.perf_counter() - t
    perf = llama_cpp.llama_perf_context(llm.ctx)
    result = {"prompt_tokens": perf.n_p_eval, "prompt_per_s": perf.n_p_eval / (perf.t_p_eval_ms / 1000),
              "generated": perf.n_eval, "generated_per_s": perf.n_eval / (perf.t_eval_ms / 1000),
              "version": llama_cpp.__version__}
else:
    import xllamacpp as xlc
    params = xlc.CommonParams()
    params.model.path = model
    params.n_ctx = 4096
    params.n_batch = 512
    params.n_parallel = 1
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.warmup = True
    t = time.perf_counter()
    server = xlc.Server(params)
    load = time.perf_counter() - t
    def ask(n):
        request = {"prompt": prompt, "n_predict": n, "temperature": 0.0, "ignore_eos": True, "cache_prompt": False,
                   "seed": 0}
        reply = server.handle_completions(request)  # the reply as a dict (this version's API: no callbacks)
        reply = json.loads(reply) if isinstance(reply, (str, bytes)) else reply
        if not isinstance(reply, dict) or "error" in reply:
            raise SystemExit(f"xllamacpp error: {reply}")
        return reply
    ask(4)  # warm-up
    t = time.perf_counter()
    reply = ask(tokens)
    wall = time.perf_counter() - t
    timings = reply["timings"]
    result = {"prompt_tokens": timings["prompt_n"], "prompt_per_s": timings["prompt_per_second"],
              "generated": timings["predicted_n"], "generated_per_s": timings["predicted_per_second"],
              "version": getattr(xlc, "__version__", "") or __import__("importlib.metadata").metadata.version("xllamacpp")}
result.update(backend=backend, load_s=round(load, 2), wall_s=round(wall, 2))
print(json.dumps(result))
'''


def _conditions() -> dict:
    load = Path("/proc/loadavg").read_text().split()[:3]
    others = subprocess.run(["pgrep", "-fc", "llama|ontobuild|ontoask|pytest"], capture_output=True, text=True)
    return {"loadavg": " ".join(load), "other_processes": int(others.stdout.strip() or 0) - 1,
            "cores": os.cpu_count()}


def measure(python: str, backend: str, model: str, tokens: int, threads: int) -> dict:
    sys.path.insert(0, str(ROOT / "src"))
    from ontocore.llm import inference_lock

    with inference_lock():
        before = _conditions()
        proc = subprocess.run([python, "-c", CHILD, backend, model, str(tokens), str(threads)], input=PROMPT,
                              capture_output=True, text=True, timeout=1800)
        after = _conditions()
    if proc.returncode != 0:
        raise SystemExit(f"{backend} failed: {proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result.update(before=before, after=after)
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", default=sys.executable, help="the Python whose environment has xllamacpp")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--label", default="", help="what the machine was doing (quiet, busy, ...)")
    ap.add_argument("--model", default="")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(ROOT / "src"))
    from ontocore.llm.localmodel import default_model_path

    model = args.model or str(default_model_path())
    runs: list[dict] = []
    for r in range(args.rounds):
        for backend, python in (("llama-cpp-python", sys.executable), ("xllamacpp", args.python)):
            result = measure(python, backend, model, args.tokens, args.threads)
            result["round"] = r + 1
            runs.append(result)
            print(f"round {r + 1} {backend}: prompt {result['prompt_per_s']:.1f} tok/s, generation "
                  f"{result['generated_per_s']:.2f} tok/s ({result['generated']} tokens), load "
                  f"{result['before']['loadavg']} -> {result['after']['loadavg']}", file=sys.stderr)
    summary = {}
    for backend in ("llama-cpp-python", "xllamacpp"):
        mine = [x for x in runs if x["backend"] == backend]
        summary[backend] = {"version": mine[0]["version"],
                            "prompt_per_s_median": round(statistics.median(x["prompt_per_s"] for x in mine), 2),
                            "generated_per_s_median": round(statistics.median(x["generated_per_s"] for x in mine), 2)}
    base, other = summary["llama-cpp-python"], summary["xllamacpp"]
    ratio = other["generated_per_s_median"] / base["generated_per_s_median"]
    record = {"when": time.strftime("%Y-%m-%d %H:%M:%S"), "label": args.label, "model": Path(model).name,
              "tokens": args.tokens, "threads": args.threads, "prompt_tokens": runs[0]["prompt_tokens"],
              "summary": summary, "generation_ratio": round(ratio, 3),
              "within_10_percent": ratio >= 0.9, "runs": runs}
    RESULTS.mkdir(parents=True, exist_ok=True)
    out = RESULTS / "backends.json"
    history = json.loads(out.read_text("utf-8")) if out.is_file() else []
    history.append(record)
    out.write_text(json.dumps(history, indent=2) + "\n", encoding="utf-8")
    lines = ["# Embedded-model backends: tokens/s on this machine", "",
             "`python -m bench.backend_bench` (see its docstring). Medians of the rounds; generation is the figure that "
             "decides (a build's and an answer's time is mostly generated tokens).", "",
             "| when | label | backend | version | prompt tok/s | generated tok/s | xllamacpp / llama-cpp-python | "
             "load before -> after |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for rec in history:
        loads = f"{rec['runs'][0]['before']['loadavg']} -> {rec['runs'][-1]['after']['loadavg']}"
        for backend, s in rec["summary"].items():
            lines.append(f"| {rec['when']} | {rec['label']} | {backend} | {s['version']} | {s['prompt_per_s_median']} | "
                         f"{s['generated_per_s_median']} | {rec['generation_ratio']} | {loads} |")
    (RESULTS / "backends.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(json.dumps({"summary": summary, "generation_ratio": record["generation_ratio"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
