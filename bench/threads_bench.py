"""Speed of the embedded model on a quiet machine and with one other process keeping one core busy:

    python -m bench.threads_bench        # writes bench/results/threads.json

Three conditions, each in the same process, model loaded once: quiet (threads chosen per call: all free cores);
one busy core with threads chosen per call (the default: the busy core is left alone); one busy core with
threads fixed to every core (what the model did before, and what `--threads N` with N = all cores still does).
The busy process is a plain Python loop, not pinned. Tokens/s = completion tokens / seconds of the call
(prompt evaluation of a short prompt and the core sampling included). Run it alone: any other work on the
machine is counted as busy."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "threads.json"
PROMPT = [{"role": "user", "content": "Write a long, detailed paragraph about how a library catalogues books."}]
TOKENS, REPEATS = 96, 3


def speed(model, fixed: int | None) -> dict:
    model.fix_threads(fixed)
    rates, threads = [], []
    for _ in range(REPEATS):
        reply = model.chat(PROMPT, tools=None, tool_choice="none", max_tokens=TOKENS)
        threads.append(model.threads)
        rates.append(reply.completion_tokens / max(reply.seconds, 1e-6))
    return {"tokens_per_second": round(statistics.median(rates), 1), "runs": [round(r, 1) for r in rates],
            "threads": threads}


def main() -> None:
    from ontocore.llm import cores
    from ontocore.llm import LocalChat

    model = LocalChat()
    all_cores = len(cores.usable_cores())
    model.chat(PROMPT, tools=None, tool_choice="none", max_tokens=8)  # warm up
    results = {"machine": f"{platform.machine()}, {os.cpu_count()} cores", "model": model.model,
               "date": time.strftime("%Y-%m-%d"), "completion_tokens": TOKENS}
    results["quiet"] = speed(model, None)
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(1.0)
        results["one_busy_core_adaptive"] = speed(model, None)
        results["one_busy_core_all_threads"] = speed(model, all_cores)
    finally:
        busy.kill()
        busy.wait()
    quiet = results["quiet"]["tokens_per_second"]
    results["busy_over_quiet"] = round(results["one_busy_core_adaptive"]["tokens_per_second"] / quiet, 2)
    results["busy_all_threads_over_quiet"] = round(results["one_busy_core_all_threads"]["tokens_per_second"] / quiet, 2)
    OUT.write_text(json.dumps(results, indent=1) + "\n", "utf-8")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
