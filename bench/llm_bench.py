"""LLM layer figures for the embedded local model: cold start, generation and prompt speed, seconds per
tool call. Run on a quiet machine (the local model takes both cores):

    python -m bench.llm_bench        # writes bench/results/llm.json

Cold start is measured in a fresh process (imports, model assembly check, load, first tool call)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLD = """
import time, json
t0 = time.perf_counter()
from ontobuild.check import check_model
r = check_model({"backend": "local"})
r["cold_start_seconds"] = round(time.perf_counter() - t0 - r["wait_seconds"], 2)  # without lock waits
print(json.dumps(r))
"""


def main() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", COLD], capture_output=True, text=True, env=env, check=True)
    cold = json.loads(out.stdout.strip().splitlines()[-1])
    cold["process_seconds"] = round(time.perf_counter() - t, 2)

    from ontobuild.check import record_weight
    from ontocore.agent import run_agent
    from ontocore.llm import LocalChat, inference_lock

    model = LocalChat()
    llm = model._llm
    prompt = "<|im_start|>user\nWrite a 200-word description of a concrete retaining wall block.<|im_end|>\n<|im_start|>assistant\n"

    def timed(text: str, max_tokens: int) -> tuple[dict, float]:
        """A completion from an empty cache, alone on the machine, and its seconds."""
        with inference_lock():
            llm.reset()
            t = time.perf_counter()
            res = llm.create_completion(text, max_tokens=max_tokens, temperature=0.0)
            return res, time.perf_counter() - t

    res, gen_s = timed(prompt, 256)
    n_gen = res["usage"]["completion_tokens"]
    long_prompt = "<|im_start|>user\n" + " ".join(["The EcoRing block weighs 58 kg and is stored 14 days."] * 60) + "<|im_end|>\n<|im_start|>assistant\n"
    res2, pe_s = timed(long_prompt, 1)
    n_prompt = res2["usage"]["prompt_tokens"]
    calls = []
    for i in range(5):
        before = model.usage.seconds
        msgs = [{"role": "system", "content": "You record facts by calling tools."},
                {"role": "user", "content": f"The EcoRing block number {i} weighs {50 + i} kg. Record it."}]
        result = run_agent(model, msgs, [record_weight], max_turns=2)
        calls.append({"seconds": round(model.usage.seconds - before, 2), "state": result.state})
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "model": model.model,
        "cold_start": cold,
        "generation_tokens_per_second": round(n_gen / gen_s, 1),
        "generation_tokens": n_gen,
        "prompt_tokens_per_second": round(n_prompt / pe_s, 1),
        "prompt_tokens": n_prompt,
        "tool_calls": calls,
        "seconds_per_tool_call_median": sorted(c["seconds"] for c in calls)[len(calls) // 2],
    }
    path = ROOT / "bench" / "results" / "llm.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1) + "\n")
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
