"""Build benchmark: ontobuild with the embedded local model on the bundled example data, on the proof of
concept's inputs, and on synthetic catalogs of 1x, 10x and 100x the PoC records (same shapes).

    python -m bench.build_bench                 # everything, writes bench/results/build.json and build.md
    python -m bench.build_bench --only poc      # one part: example | poc | scaling

Figures: LLM calls, prompt/completion tokens, seconds, counts, JSON leaf coverage, reasoner verdict, and the
share of logistics.json's numeric facts found as typed literals on the right individuals (gold list in
bench/gold/logistics_numeric_facts.json)."""

from __future__ import annotations

import argparse
import copy
import json
import platform
import re
import tempfile
import time
from pathlib import Path
from typing import Any

from ontobuild.pipeline import run_build
from ontocore.llm import open_model

ROOT = Path(__file__).resolve().parents[1]
POC = ROOT / "../shared/data/poc"
RESULTS = ROOT / "bench" / "results"


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def numeric_fact_score(outcome: Path, gold_path: Path = ROOT / "bench/gold/logistics_numeric_facts.json",
                       file: str = "logistics.json") -> dict[str, Any]:
    """Each number the build took from a text chunk (coverage.json) that is, in entities_index.json, a numeric
    typed literal of that individual, compared with the gold list."""
    index = json.loads((outcome / "entities_index.json").read_text())
    coverage = json.loads((outcome / "coverage.json").read_text())
    gold = json.loads(gold_path.read_text())["facts"]
    found: list[tuple[str, list[str], float]] = []  # a number put on several things: right only if all are
    for chunk in coverage["text"]:
        for e in chunk["numbers"]:
            if e["status"] != "covered" or not e["chunk"].startswith(file + "#"):
                continue
            names = []
            for name in e.get("individuals") or [e.get("individual", "")]:
                ind = index["individuals"].get(name)
                typed = ind is not None and any(
                    f["property"] == e["property"] and f.get("literal") is not None and
                    f.get("datatype") in ("xsd:integer", "xsd:decimal", "xsd:double") and
                    float(f["literal"]) == float(e["value"]) for f in ind.get("facts", []))
                if typed:
                    names.append(_norm(name + " " + ind.get("label", "")))
            if names:
                found.append((e["chunk"].split("#")[1], names, float(e["value"])))
    rows = []
    for g in gold:
        ok = any(c == str(g["chunk"]) and abs(v - g["value"]) < 1e-9 and
                 all(any(s in n for s in g["subjects"]) and not any(x in n for x in g.get("not", [])) for n in ns)
                 for c, ns, v in found)
        rows.append({**g, "found": ok})
    main = [r for r in rows if not r.get("other")]
    return {"total": len(main), "found": sum(r["found"] for r in main),
            "share": round(sum(r["found"] for r in main) / len(main), 3),
            "other_found": sum(r["found"] for r in rows if r.get("other")),
            "missed": [f"chunk {r['chunk']}: {r['what']} = {r['value']}" for r in main if not r["found"]]}


def synthetic_catalog(factor: int) -> dict[str, Any]:
    """The PoC catalog with every product repeated `factor` times under new names (same shapes)."""
    data = json.loads((POC / "product_data.json").read_text())
    out: dict[str, Any] = {}
    for category, products in data.items():
        out[category] = {}
        for name, record in products.items():
            for k in range(factor):
                rec = copy.deepcopy(record)
                new = name if k == 0 else f"{name} Mk{k + 1}"
                rec["Name"] = new
                rec["ID"] = str(int(rec["ID"]) * 1000 + k)
                out[category][new] = rec
    return out


def build(files: list[Path], model: Any, label: str) -> dict[str, Any]:
    out = Path(tempfile.mkdtemp(prefix=f"bench_{label}_"))
    before = model.usage.snapshot()
    t = time.perf_counter()
    stats = run_build(files, out=out / "outcome", model=model)
    calls, pt, ct, secs = (a - b for a, b in zip(model.usage.snapshot(), before))
    return {"label": label, "outcome": str(out / "outcome"), "seconds": round(time.perf_counter() - t, 1),
            "llm": {"calls": calls, "prompt_tokens": pt, "completion_tokens": ct, "seconds": round(secs, 1)},
            "counts": stats["counts"], "coverage": stats["coverage"], "reasoner": stats["reasoner"]["status"]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", choices=["example", "poc", "scaling"], action="append")
    ap.add_argument("--factors", default="1,10,100")
    args = ap.parse_args()
    parts = args.only or ["example", "poc", "scaling"]
    t0 = time.perf_counter()
    model = open_model({"backend": "local"})
    load_seconds = round(time.perf_counter() - t0, 1)
    results: dict[str, Any] = {"machine": f"{platform.machine()}, {__import__('os').cpu_count()} cores, "
                                          f"Python {platform.python_version()}",
                               "model": model.model, "model_load_seconds": load_seconds}
    prev = RESULTS / "build.json"
    if prev.is_file():
        results = {**json.loads(prev.read_text()), **results}
    if "example" in parts:
        results["example"] = build([ROOT / "data/example/catalog.json", ROOT / "data/example/guidelines.txt"],
                                   model, "example")
    if "poc" in parts:
        r = build([POC / "product_data.json", POC / "logistics.json"], model, "poc")
        r["logistics_numeric_facts"] = numeric_fact_score(Path(r["outcome"]))
        results["poc"] = r
    if "scaling" in parts:
        rows = []
        tmp = Path(tempfile.mkdtemp(prefix="bench_scaling_"))
        for factor in [int(f) for f in args.factors.split(",")]:
            path = tmp / f"catalog_x{factor}.json"
            path.write_text(json.dumps(synthetic_catalog(factor)))
            r = build([path], model, f"x{factor}")
            r["factor"] = factor
            rows.append(r)
        base = rows[0]["llm"]["completion_tokens"] or 1
        for r in rows:
            r["completion_tokens_vs_1x"] = round(r["llm"]["completion_tokens"] / base, 3)
        results["scaling"] = rows
    RESULTS.mkdir(parents=True, exist_ok=True)
    prev.write_text(json.dumps(results, indent=1) + "\n")
    (RESULTS / "build.md").write_text(render_md(results))
    print(render_md(results))


def render_md(r: dict[str, Any]) -> str:
    lines = [f"# Build benchmark\n\nMachine: {r['machine']}; model: {r['model']} (embedded, llama-cpp-python); "
             f"model load {r['model_load_seconds']} s. Command: `python -m bench.build_bench`.\n",
             "| run | LLM calls | prompt tok | completion tok | seconds | classes | properties | individuals | facts "
             "| JSON leaves covered/skipped/total | text chunks covered/total | reasoner |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    runs = [r[k] for k in ("example", "poc") if k in r] + r.get("scaling", [])
    for x in runs:
        c, cov, llm = x["counts"], x["coverage"], x["llm"]
        jl, tc = cov["json_leaves"], cov["text_chunks"]
        lines.append(f"| {x['label']} | {llm['calls']} | {llm['prompt_tokens']} | {llm['completion_tokens']} | "
                     f"{x['seconds']} | {c['classes']} | {c['properties']} | {c['individuals']} | {c['facts']} | "
                     f"{jl['covered']}/{jl['skipped']}/{jl['total']} | {tc['covered']}/{tc['total']} | {x['reasoner']} |")
    if "poc" in r:
        n = r["poc"]["logistics_numeric_facts"]
        lines.append(f"\nlogistics.json numeric facts as typed literals on the right individuals: "
                     f"{n['found']}/{n['total']} ({n['share']:.1%}); missed: {', '.join(n['missed']) or 'none'}.")
    if r.get("scaling"):
        lines.append("\nScaling (completion tokens relative to 1x): " + ", ".join(
            f"{x['label']}: {x['completion_tokens_vs_1x']}x ({x['counts']['individuals']} individuals)"
            for x in r["scaling"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
