"""Benchmark of the question-answering agent (ontoask) with the embedded local model (or any backend).

(a) dev set: answers data/dev_questions.json over an ontobuild outcome (default: outcomes/bench_example, built
    first with `ontobuild data/example/catalog.json data/example/guidelines.txt` when it is missing) and scores
    each answer with bench.score.is_correct;
(b) CK25: answers the 50 TEXT2SPARQL'25 corporate questions over prod-vocab.ttl + prod-inst.ttl and scores the
    answer sets with bench.score.answer_set_f1 against the gold sets.

Writes bench/results/ask_dev.json, bench/results/ask_ck25.json and bench/results/README.md (a table), and the
JSONL traces under outcomes/ask_bench_*_<time>/answers.log.

    python -m bench.ask_bench                 # both parts
    python -m bench.ask_bench --only dev --limit 10 --ontology outcomes/bench_example
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
DEV_QUESTIONS = REPO / "data" / "dev_questions.json"
DEFAULT_OUTCOME = REPO / "outcomes" / "bench_example"
BUILD_INPUTS = [REPO / "data" / "example" / "catalog.json", REPO / "data" / "example" / "guidelines.txt"]


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


def ensure_outcome(path: Path, rebuild: bool = False) -> Path:
    """The outcome folder to answer over; built with ontobuild when it has no ontology yet."""
    if not rebuild and ((path / "ontology.ttl").is_file() or (path / "ontology.owl").is_file()):
        return path
    print(f"building {path} with ontobuild (a few minutes) ...", file=sys.stderr)
    exe = Path(sys.executable).with_name("ontobuild")
    cmd = [str(exe) if exe.exists() else "ontobuild", *map(str, BUILD_INPUTS), "--out", str(path)]
    t = time.monotonic()
    subprocess.run(cmd, check=True, cwd=REPO)
    print(f"built in {time.monotonic() - t:.0f} s", file=sys.stderr)
    return path


# The facts of data/example/guidelines.txt, transcribed by hand for the reference ontology:
# product -> (warehouse, units per box/carton, box/carton weight kg, average storage days, storage cost EUR/box/day)
_GUIDELINE_FACTS = {
    "TrailBlazer 29": ("Harbor Depot", 4, 11, 12, 0.60), "CityGlide 700": ("Harbor Depot", 3, None, 16, None),
    "GravelKing Carbon": ("Harbor Depot", 1, 3.2, 20, 1.10),
    "SkyShell Aero": ("Ridge Hall", 10, 4.1, 9, 0.35), "UrbanDome": ("Ridge Hall", 10, None, 9, 0.35),
    "TrailGuard MX": ("Ridge Hall", 10, None, 9, 0.35), "KidRider Mini": ("Ridge Hall", 10, None, 9, 0.35),
    "BeamPro": ("Ridge Hall", None, None, 15, None), "GlowTail R": ("Ridge Hall", None, None, 15, None),
    "SteelKnot U-Lock": ("Mill Lane Store", 6, 8.5, 25, 0.20), "CargoMate Pannier": ("Mill Lane Store", 8, None, 25, 0.20),
}
_WAREHOUSES = {"Harbor Depot": (1800, 900), "Ridge Hall": (650, 320), "Mill Lane Store": (420, 150)}


def reference_index():
    """A hand-checked ontology of the example data (catalog.json + guidelines.txt), built without a model: it
    measures the answering agent apart from the builder (`--ontology reference`)."""
    import re as _re

    from ontobuild.index import EntitiesIndex, Fact
    from ontobuild.names import safe_name

    catalog = json.loads(BUILD_INPUTS[0].read_text("utf-8"))
    idx = EntitiesIndex(base_iri="http://example.org/northwind#")
    idx.add_class("Product", roles=["Something Northwind Cycles sells"])
    for sub, role in (("Frame", "A bicycle frame"), ("Helmet", "A bicycle helmet"), ("Accessory", "A bicycle accessory")):
        idx.add_class(sub, superclasses=["Product"], roles=[role])
    for c, role in (("Category", "A product category of the catalog"), ("Color", "A color a product is available in"),
                    ("Feature", "A product feature"), ("Variant", "A size variant of a frame"),
                    ("Warehouse", "A warehouse that stores products"), ("Company", "A company")):
        idx.add_class(c, roles=[role])
    num = lambda name, unit, role, dt="xsd:decimal", dom="Product": idx.add_property(  # noqa: E731
        name, "datatype", domain=[dom], range=dt, unit=unit, roles=[role])
    num("priceEur", "EUR", "Price in EUR")
    num("weightG", "g", "Weight in grams")
    num("warrantyYears", "years", "Warranty in years", "xsd:integer")
    num("ventilationOpenings", "", "Number of ventilation openings of a helmet", "xsd:integer")
    num("batteryRuntimeH", "h", "Battery runtime in hours")
    num("brightnessLumen", "lumen", "Brightness in lumen", "xsd:integer")
    num("shackleLengthCm", "cm", "Shackle length in cm")
    num("capacityL", "L", "Capacity in litres")
    num("wheelSizeIn", "in", "Wheel size in inches")
    num("unitsPerBox", "", "How many units are packed in one box or carton", "xsd:integer")
    num("boxWeightKg", "kg", "Weight of one box or carton in kg")
    num("averageStorageDays", "days", "Average storage time in days")
    num("storageCostEurPerBoxDay", "EUR", "Storage cost in EUR per box or carton per day")
    num("frameWeightKg", "kg", "Frame weight of a size variant in kg", dom="Variant")
    num("seatTubeCm", "cm", "Seat tube length of a size variant in cm", dom="Variant")
    num("areaM2", "m2", "Floor area in square metres", dom="Warehouse")
    num("capacityPallets", "pallets", "Capacity in pallets", "xsd:integer", dom="Warehouse")
    idx.add_property("size", "datatype", domain=["Variant"], range="xsd:string", roles=["Size of a variant (S, M, L)"])
    idx.add_property("material", "datatype", domain=["Product"], range="xsd:string", roles=["Frame material"])
    idx.add_property("description", "datatype", domain=["Product"], range="xsd:string", roles=["Short description"])
    for name, rng, role in (("hasCategory", "Category", "The catalog category of a product"),
                            ("hasColor", "Color", "A color the product is available in"),
                            ("hasFeature", "Feature", "A feature of the product"),
                            ("hasVariant", "Variant", "A size variant of a frame"),
                            ("storedAt", "Warehouse", "The warehouse where the product is stored")):
        idx.add_property(name, "object", domain=["Product"], range=rng, roles=[role])
    idx.add_property("operates", "object", domain=["Company"], range="Warehouse", roles=["A warehouse the company operates"])
    idx.add_individual("NorthwindCycles", ["Company"], label="Northwind Cycles")
    for wh, (area, pallets) in _WAREHOUSES.items():
        w = safe_name(wh)
        idx.add_individual(w, ["Warehouse"], label=wh)
        idx.add_fact(w, Fact("areaM2", literal=str(area), datatype="xsd:decimal"))
        idx.add_fact(w, Fact("capacityPallets", literal=str(pallets), datatype="xsd:integer"))
        idx.add_fact("NorthwindCycles", Fact("operates", object=w))
    klass = {"Frames": "Frame", "Helmets": "Helmet", "Accessories": "Accessory"}
    keys = {"Price (EUR):": "priceEur", "Weight (g):": "weightG", "Warranty (years):": "warrantyYears",
            "Ventilation openings:": "ventilationOpenings", "Battery runtime (h):": "batteryRuntimeH",
            "Brightness (lumen):": "brightnessLumen", "Shackle length (cm):": "shackleLengthCm",
            "Capacity (L):": "capacityL", "Wheel size (in):": "wheelSizeIn"}
    for group, products in catalog.items():
        idx.add_individual(group, ["Category"], label=group)
        for pname, rec in products.items():
            n = safe_name(pname)
            idx.add_individual(n, [klass[group]], label=pname, roles=[rec.get("Short description", "")])
            idx.add_fact(n, Fact("hasCategory", object=group))
            idx.add_fact(n, Fact("description", literal=rec.get("Short description", "")))
            for color in rec.get("Colors", []):
                idx.add_individual(safe_name(color), ["Color"], label=color)
                idx.add_fact(n, Fact("hasColor", object=safe_name(color)))
            for feat in rec.get("Features", []):
                idx.add_individual(safe_name(feat), ["Feature"], label=feat)
                idx.add_fact(n, Fact("hasFeature", object=safe_name(feat)))
            if "Material:" in rec:
                idx.add_fact(n, Fact("material", literal=rec["Material:"]))
            for key, prop in keys.items():
                if key in rec:
                    dt = idx.properties[prop].range
                    idx.add_fact(n, Fact(prop, literal=rec[key], datatype=dt))
            for key, value in rec.items():
                m = _re.match(r"SIZE (\w+):", key)
                if not m:
                    continue
                v = f"{n}_{m.group(1)}"
                idx.add_individual(v, ["Variant"], label=f"{pname} size {m.group(1)}")
                idx.add_fact(n, Fact("hasVariant", object=v))
                idx.add_fact(v, Fact("size", literal=m.group(1)))
                fw = _re.search(r"Frame weight \(kg\): ([\d.]+)", value)
                st = _re.search(r"Seat tube \(cm\): ([\d.]+)", value)
                if fw:
                    idx.add_fact(v, Fact("frameWeightKg", literal=fw.group(1), datatype="xsd:decimal"))
                if st:
                    idx.add_fact(v, Fact("seatTubeCm", literal=st.group(1), datatype="xsd:decimal"))
            wh, per_box, box_kg, days, cost = _GUIDELINE_FACTS[pname]
            idx.add_fact(n, Fact("storedAt", object=safe_name(wh)))
            for prop, value, dt in (("unitsPerBox", per_box, "xsd:integer"), ("boxWeightKg", box_kg, "xsd:decimal"),
                                    ("averageStorageDays", days, "xsd:decimal"),
                                    ("storageCostEurPerBoxDay", cost, "xsd:decimal")):
                if value is not None:
                    idx.add_fact(n, Fact(prop, literal=str(value), datatype=dt))
    return idx


def reference_outcome(path: Path) -> Path:
    from ontobuild.outcome import write_index_outcome

    write_index_outcome(reference_index(), path, reason=False)
    return path


def _trace_dir(name: str) -> Path:
    """A fresh folder for the JSONL trace of one run (outcomes/ask_bench_<name>_<time>)."""
    from ontobuild.outcome import new_outcome_dir

    path = new_outcome_dir(out=REPO / "outcomes" / f"ask_bench_{name}_{time.strftime('%Y%m%d_%H%M%S')}")
    print(f"trace: {path / 'answers.log'}", file=sys.stderr)
    return path


def _stats(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def col(key: str) -> list[float]:
        return [float(r[key]) for r in rows]

    out: dict[str, Any] = {"questions": len(rows)}
    for key in ("llm_calls", "prompt_tokens", "completion_tokens", "seconds"):
        vals = col(key)
        out[f"median_{key}"] = round(statistics.median(vals), 2) if vals else 0
        out[f"mean_{key}"] = round(statistics.mean(vals), 2) if vals else 0
    return out


def _asker(graph_paths: list[Path] | None, llm_options: dict[str, Any], trace_path: Path, graph=None,
           index: Path | None = None):
    from ontobuild.llm import open_model
    from ontobuild.trace import Trace
    from ontouse.ask import Asker
    from ontouse.catalog import load_catalog
    from ontouse.graph import load_graph

    if graph is None:
        graph = load_graph(graph_paths)
    t = time.monotonic()
    cat = load_catalog(graph, index)
    catalog_s = time.monotonic() - t
    model = open_model({k: v for k, v in llm_options.items() if v is not None})
    trace = Trace(trace_path)
    return Asker(graph, cat, model, trace=trace), model, trace, catalog_s


def rivals(graph, expected: Any) -> list[str]:
    """Names of the individuals that share a class with the expected answer's individuals: an answer that names
    one of them besides the expected one (outside the question) is hedging, and scored wrong."""
    from rdflib import OWL, RDF, RDFS

    from bench.score import as_number, name_in_text

    def names_of(node) -> list[str]:
        local = str(node).rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        return [str(o) for o in graph.objects(node, RDFS.label)] + [local]

    items = expected if isinstance(expected, list) else [expected]
    items = [v for v in items if isinstance(v, str) and as_number(v) is None]
    inds = {s for s in graph.subjects(RDF.type, OWL.NamedIndividual)}
    hits = {i for i in inds for v in items if any(name_in_text(v, n) and name_in_text(n, v) for n in names_of(i))}
    kinds = {c for i in hits for c in graph.objects(i, RDF.type)} - {OWL.NamedIndividual, OWL.Thing}
    return sorted({names_of(i)[0] for k in kinds for i in graph.subjects(RDF.type, k) if i in inds and i not in hits})


def run_dev(outcome: Path, llm_options: dict[str, Any], limit: int | None, index: Path | None) -> dict[str, Any]:
    from bench.score import is_correct, name_in_text

    questions = json.loads(DEV_QUESTIONS.read_text("utf-8"))
    if limit:
        questions = questions[:limit]
    trace_dir = _trace_dir("dev")
    asker, model, trace, catalog_s = _asker([outcome], llm_options, trace_dir / "answers.log", index=index)
    rows = []
    for i, q in enumerate(questions, 1):
        ans = asker.ask(q["query"])
        # strict: naming another thing of the expected answer's kind (not in the question) makes it wrong
        ok = bool(is_correct(ans.answer, q["expected"], max_extra=0,
                             candidates=[c for c in rivals(asker.graph, q["expected"]) if not name_in_text(c, q["query"])]))
        no_data = ans.state == "no_data"
        row = {"n": i, "type": q.get("type", ""), "question": q["query"], "expected": q["expected"],
               "answer": ans.answer, "correct": ok, "state": ans.state, "plan": ans.plan,
               "support": ans.support, "has_support": bool(ans.support), "llm_calls": ans.llm_calls,
               "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens,
               "seconds": round(ans.seconds, 2), "wait_seconds": round(ans.wait_seconds, 2), "sparql": ans.sparql}
        rows.append(row)
        print(f"[{i:2d}] {'OK ' if ok else 'BAD'} {ans.seconds:5.1f}s {ans.llm_calls}c {q['query']} -> "
              f"{ans.answer[:110]}" + ("" if ok else f"  (expected {q['expected']})"), file=sys.stderr)
        if not ans.support and not no_data:
            print("      !! answer without support", file=sys.stderr)
    trace.close()
    by_type: dict[str, list[bool]] = defaultdict(list)
    for r in rows:
        by_type[r["type"]].append(r["correct"])
    summary = {
        "accuracy": round(sum(r["correct"] for r in rows) / len(rows), 4) if rows else 0,
        "correct": sum(r["correct"] for r in rows),
        "per_type": {t: {"correct": sum(v), "total": len(v), "accuracy": round(sum(v) / len(v), 3)}
                     for t, v in sorted(by_type.items())},
        "answers_without_support": sum(1 for r in rows if not r["has_support"] and r["state"] != "no_data"),
        **_stats(rows),
        "catalog_seconds": round(catalog_s, 2),
    }
    return {"benchmark": "dev", "ontology": str(outcome.relative_to(REPO) if outcome.is_relative_to(REPO) else outcome),
            "model": {"backend": model.backend, "model": model.model}, "machine": machine(),
            "date": _dt.date.today().isoformat(), "summary": summary, "questions": rows}


def _ck25_values(ans) -> set[str]:
    """The answer set in the TEXT2SPARQL convention: a yes/no answer is {"true"} or the empty set."""
    if ans.state == "no_data":
        return set()
    if ans.plan and ans.plan.get("kind") == "yesno":
        return {"true"} if ans.values and ans.values[0].lower() == "true" else set()
    return set(ans.values)


def run_ck25(llm_options: dict[str, Any], limit: int | None) -> dict[str, Any]:
    from bench.ck25 import load_gold, load_graph, load_questions
    from bench.score import answer_set_f1

    questions = load_questions()
    if limit:
        questions = questions[:limit]
    gold = load_gold()
    graph = load_graph()
    trace_dir = _trace_dir("ck25")
    asker, model, trace, catalog_s = _asker(None, llm_options, trace_dir / "answers.log", graph=graph)
    rows = []
    for q in questions:
        ans = asker.ask(q["question"])
        predicted = _ck25_values(ans)
        f1 = answer_set_f1(predicted, gold.get(q["id"], set()))
        rows.append({"id": q["id"], "question": q["question"], "features": q["features"], "answer": ans.answer,
                     "f1": round(f1, 4), "predicted": sorted(predicted)[:50], "n_predicted": len(predicted),
                     "n_gold": len(gold.get(q["id"], set())), "state": ans.state, "plan": ans.plan,
                     "support": ans.support[:10], "llm_calls": ans.llm_calls, "prompt_tokens": ans.prompt_tokens,
                     "completion_tokens": ans.completion_tokens, "seconds": round(ans.seconds, 2),
                     "wait_seconds": round(ans.wait_seconds, 2),
                     "sparql": ans.sparql})
        print(f"{q['id']:>11} f1={f1:.2f} {ans.seconds:5.1f}s {q['question'][:70]} -> {ans.answer[:80]}",
              file=sys.stderr)
    trace.close()
    summary = {"mean_f1": round(sum(r["f1"] for r in rows) / len(rows), 4) if rows else 0,
               "perfect": sum(1 for r in rows if r["f1"] == 1.0), **_stats(rows),
               "catalog_seconds": round(catalog_s, 2)}
    return {"benchmark": "ck25", "model": {"backend": model.backend, "model": model.model}, "machine": machine(),
            "date": _dt.date.today().isoformat(), "summary": summary, "questions": rows}


def write_readme(dev: dict[str, Any] | None, ck25: dict[str, Any] | None) -> Path:
    if dev is None and (RESULTS / "ask_dev.json").is_file():
        dev = json.loads((RESULTS / "ask_dev.json").read_text("utf-8"))
    if ck25 is None and (RESULTS / "ask_ck25.json").is_file():
        ck25 = json.loads((RESULTS / "ask_ck25.json").read_text("utf-8"))
    some = dev or ck25
    m = (some or {}).get("machine", machine())
    model = (some or {}).get("model", {})
    lines = ["# ontoask benchmark results", "",
             f"Model: {model.get('model', '?')} ({model.get('backend', '?')} backend); machine: {m.get('cores')} "
             f"cores, {m.get('cpu', '')}. Written by `python -m bench.ask_bench`.", "",
             "| benchmark | questions | score | median calls | mean calls | mean prompt tokens | "
             "mean completion tokens | median s | mean s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, res, score in (("dev (data/dev_questions.json)", dev, "accuracy"), ("CK25", ck25, "mean_f1")):
        if not res:
            continue
        s = res["summary"]
        value = f"{s[score]:.1%} correct" if score == "accuracy" else f"mean F1 {s[score]:.3f}"
        lines.append(f"| {name} | {s['questions']} | {value} | {s['median_llm_calls']} | {s['mean_llm_calls']} | "
                     f"{s['mean_prompt_tokens']:.0f} | {s['mean_completion_tokens']:.0f} | {s['median_seconds']} | "
                     f"{s['mean_seconds']} |")
    if dev:
        s = dev["summary"]
        lines += ["", f"Dev set over `{dev['ontology']}` ({dev['date']}); answers without a support set (other than "
                  f"\"No data available\"): {s['answers_without_support']}.", "",
                  "| question type | correct |", "|---|---|"]
        lines += [f"| {t} | {v['correct']}/{v['total']} |" for t, v in s["per_type"].items()]
    if ck25:
        s = ck25["summary"]
        lines += ["", f"CK25 ({ck25['date']}): {s['perfect']} of {s['questions']} questions with F1 = 1; best published "
                  "systems reach a mean F1 of about 0.44 with large hosted models."]
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / "README.md"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ontology", type=Path, default=None,
                    help=f"ontobuild outcome folder for the dev set (default: build {DEFAULT_OUTCOME.name}); "
                         "'reference': a hand-checked ontology of the example data (no builder)")
    ap.add_argument("--index", type=Path, default=None, help="entities index for the dev ontology")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the default outcome even if it exists")
    ap.add_argument("--only", choices=["dev", "ck25"], default=None)
    ap.add_argument("--limit", type=int, default=None, help="answer only the first N questions")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--model", default=None)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--model-path", default=None)
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    args = ap.parse_args(argv)
    import logging

    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    logging.getLogger("ontobuild.llm").setLevel(logging.INFO)  # shows the grammar retries
    opts = {"backend": args.backend, "model": args.model, "base_url": args.base_url, "model_path": args.model_path}
    dev = ck25 = None
    RESULTS.mkdir(parents=True, exist_ok=True)
    if args.only in (None, "dev"):
        if args.ontology is not None and str(args.ontology) == "reference":
            outcome = reference_outcome(REPO / "outcomes" / "ask_bench_reference")
        else:
            outcome = args.ontology.resolve() if args.ontology else ensure_outcome(DEFAULT_OUTCOME, args.rebuild)
        dev = run_dev(outcome, opts, args.limit, args.index)
        s = dev["summary"]
        print(f"dev: {s['correct']}/{s['questions']} correct ({s['accuracy']:.1%}), median {s['median_llm_calls']} "
              f"calls, median {s['median_seconds']} s, mean {s['mean_prompt_tokens']:.0f}+"
              f"{s['mean_completion_tokens']:.0f} tokens per question; per type: "
              + ", ".join(f"{t} {v['correct']}/{v['total']}" for t, v in s["per_type"].items()))
        if not args.no_write:
            (RESULTS / "ask_dev.json").write_text(json.dumps(dev, indent=1, ensure_ascii=False) + "\n", "utf-8")
    if args.only in (None, "ck25"):
        ck25 = run_ck25(opts, args.limit)
        s = ck25["summary"]
        print(f"ck25: mean F1 {s['mean_f1']:.3f} over {s['questions']} questions, median {s['median_llm_calls']} "
              f"calls, median {s['median_seconds']} s per question")
        if not args.no_write:
            (RESULTS / "ask_ck25.json").write_text(json.dumps(ck25, indent=1, ensure_ascii=False) + "\n", "utf-8")
    if not args.no_write:
        print(f"wrote {write_readme(dev, ck25)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
