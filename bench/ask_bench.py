"""Benchmark of the question answerer (ontoask) with the embedded local model (or any backend).

(a) dev: answers data/dev_questions.json over an ontobuild outcome (default: outcomes/bench_example, built
    first with `ontobuild data/example/catalog.json data/example/guidelines.txt` when it is missing) and scores
    each answer text with bench.score.is_correct;
(b) CK25: answers the 50 TEXT2SPARQL'25 corporate questions over prod-vocab.ttl + prod-inst.ttl and scores the
    answer sets with bench.score.answer_set_f1 (things by IRI: `prefer="entity"`; ASK by `ans.boolean`), per
    question type (bench/qtype.py);
(c) spider: answers Spider4SPARQL (587 questions over 10 database graphs, bench/spider.py), scored by
    execution accuracy and value F1, per database and per question type.

The model is loaded once and shared by every answerer. Writes bench/results/ask_dev.json, ask_ck25.json,
ask_spider.json (ask_spider_partial.json for a run over part of the questions, unless --out says otherwise) and
bench/results/README.md; the JSONL traces go to outcomes/ask_bench_*_<time>/. Progress goes to stderr.

    python -m bench.ask_bench                                   # all three parts
    python -m bench.ask_bench --only dev --limit 10 --ontology outcomes/bench_example
    python -m bench.ask_bench --only spider --db world_1,pets_1 --limit 20
    python -m bench.ask_bench --only spider --sample 40 --seed 1  # stratified over the databases
    python -m bench.ask_bench --only spider --ids dev_0001,dev_0002 --no-write
    python -m bench.ask_bench --readme                          # only rewrite README.md from the results files
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.report import (RESULTS, ask, by_group, close, open_answerer_for, run_info, stats, trace_dir, unsupported,
                          write_json, write_readme)

REPO = Path(__file__).resolve().parents[1]
DEV_QUESTIONS = REPO / "data" / "dev_questions.json"
DEFAULT_OUTCOME = REPO / "outcomes" / "bench_example"
BUILD_INPUTS = [REPO / "data" / "example" / "catalog.json", REPO / "data" / "example" / "guidelines.txt"]


def ensure_outcome(path: Path, rebuild: bool = False) -> Path:
    """The outcome folder to answer over; built with ontobuild when it has no ontology yet."""
    if not rebuild and ((path / "ontology.ttl").is_file() or (path / "ontology.owl").is_file()):
        return path
    print(f"building {path} with ontobuild (a few minutes) ...", file=sys.stderr)
    exe = Path(sys.executable).with_name("ontobuild")
    cmd = [str(exe) if exe.exists() else "ontobuild", *map(str, BUILD_INPUTS), "--out", str(path),
           *(["--force"] if path.exists() else [])]  # an old outcome is replaced only when the build succeeded
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

    from ontobuild.ontology.entries import Fact

    from ontobuild.ontology.index import EntitiesIndex
    from ontobuild.ontology.names import safe_name

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
    from ontobuild.outputs.outcome import write_index_outcome

    write_index_outcome(reference_index(), path, reason=False)
    return path



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


def _graph_of(answerer: Any, paths: list[Path]):
    """The rdflib graph the answerer reads (its own when it shows it, else loaded here)."""
    graph = getattr(answerer, "graph", None)
    if graph is not None:
        return graph
    from ontouse.storage.graph import load_graph

    return load_graph(paths)


def run_dev(outcome: Path, model: Any, limit: int | None, argv: list[str] | None = None) -> dict[str, Any]:
    from bench.score import answer_is_correct, name_in_text

    questions = json.loads(DEV_QUESTIONS.read_text("utf-8"))[:limit or None]
    info = run_info(model, argv)
    answerer = open_answerer_for([outcome], model, trace_dir("dev") / "answers.log")
    graph = _graph_of(answerer, [outcome])
    rows = []
    for i, q in enumerate(questions, 1):
        ans = ask(answerer, q["query"])
        # strict: naming another thing of the expected answer's kind (not in the question) makes it wrong
        ok = bool(answer_is_correct(ans, q["expected"], max_extra=0,
                             candidates=[c for c in rivals(graph, q["expected"]) if not name_in_text(c, q["query"])]))
        rows.append({"n": i, "type": q.get("type", ""), "question": q["query"], "expected": q["expected"],
                     "answer": ans.answer, "correct": ok, "state": ans.state, "error": ans.error, "plan": ans.plan,
                     "support": ans.support, "has_support": bool(ans.support), "llm_calls": ans.llm_calls,
                     "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens,
                     "seconds": round(ans.seconds, 2), "wait_seconds": round(ans.wait_seconds, 2), "sql": ans.sql,
                     "sparql": ans.sparql, "repairs": ans.repairs})
        print(f"[{i:2d}] {'OK ' if ok else 'BAD'} {ans.seconds:5.1f}s {ans.llm_calls}c {q['query']} -> "
              f"{ans.answer[:110]}" + ("" if ok else f"  (expected {q['expected']})"), file=sys.stderr, flush=True)
        if ans.state == "answered" and not ans.support:
            print("      !! answer without support", file=sys.stderr, flush=True)
    close(answerer)
    summary = {"accuracy": round(sum(r["correct"] for r in rows) / len(rows), 4) if rows else 0,
               "correct": sum(r["correct"] for r in rows), "per_type": by_group(rows, "type"),
               "answers_without_support": unsupported(rows), **stats(rows)}
    return {"benchmark": "dev", "ontology": str(outcome.relative_to(REPO) if outcome.is_relative_to(REPO) else outcome),
            **info, "summary": summary, "questions": rows}


def ck25_values(ans: Any, prefer: str = "entity") -> set[str]:
    """The answer set in the TEXT2SPARQL convention: a yes/no answer is {"true"} or the empty set; things are
    given by IRI with prefer="entity" (the gold lists IRIs for things)."""
    if ans.boolean is not None:
        return {"true"} if ans.boolean else set()
    if ans.state != "answered":
        return set()
    return set(ans.values(prefer))


def run_ck25(model: Any, limit: int | None, argv: list[str] | None = None) -> dict[str, Any]:
    from bench.ck25 import GRAPH_FILES, load_gold, load_questions, register_integer_casts
    from bench.qtype import question_type
    from bench.score import answer_set_f1

    questions = load_questions()[:limit or None]
    gold = load_gold()
    register_integer_casts()
    info = run_info(model, argv)
    answerer = open_answerer_for(list(GRAPH_FILES), model, trace_dir("ck25") / "answers.log")
    rows = []
    for q in questions:
        ans = ask(answerer, q["question"])
        predicted = ck25_values(ans)
        expected = gold.get(q["id"], set())
        f1 = answer_set_f1(predicted, expected)
        qtype = question_type(q["sparql"])
        rows.append({"id": q["id"], "type": qtype, "question": q["question"], "features": q["features"],
                     "answer": ans.answer, "f1": round(f1, 4),
                     "f1_by_value": round(answer_set_f1(ck25_values(ans, "value"), expected), 4),
                     "predicted": sorted(predicted)[:50], "n_predicted": len(predicted), "n_gold": len(expected),
                     "state": ans.state, "error": ans.error, "plan": ans.plan, "support": ans.support[:10],
                     "has_support": bool(ans.support), "llm_calls": ans.llm_calls, "prompt_tokens": ans.prompt_tokens,
                     "completion_tokens": ans.completion_tokens, "seconds": round(ans.seconds, 2),
                     "wait_seconds": round(ans.wait_seconds, 2), "sql": ans.sql, "sparql": ans.sparql,
                     "repairs": ans.repairs})
        if getattr(ans, "arbitration", None):  # each plan's own answer set scored, for the rules' counts
            plans = [{"how": p["how"], "sql": p["sql"], "correct": answer_set_f1(
                {c.get("entity") or c.get("value", "") for row in p["rows"] for c in row}, expected) == 1.0}
                for p in ans.arbitration["plans"]]
            rows[-1]["arbitration"] = {"rule": ans.arbitration["rule"], "chosen": ans.arbitration["chosen"],
                                       "plans": plans}
        print(f"{q['id']:>11} {qtype:<16} f1={f1:.2f} {ans.seconds:5.1f}s {q['question'][:60]} -> {ans.answer[:70]}",
              file=sys.stderr, flush=True)
    close(answerer)
    from bench.spider import arbitration_summary

    summary = {"mean_f1": round(sum(r["f1"] for r in rows) / len(rows), 4) if rows else 0,
               "perfect": sum(1 for r in rows if r["f1"] == 1.0), "per_type": by_group(rows, "type"),
               "stated_not_exact": sum(1 for r in rows if r["state"] == "answered" and r["f1"] < 1.0),
               "arbitration": arbitration_summary(rows),
               "answers_without_support": unsupported(rows), **stats(rows)}
    return {"benchmark": "ck25", **info, "summary": summary, "questions": rows}


def _per_type(s: dict[str, Any], f1: bool = False) -> str:
    return ", ".join(f"{t} {v['mean_f1']:.2f}" if f1 else f"{t} {v['correct']}/{v['total']}"
                     for t, v in s["per_type"].items())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ontology", type=Path, default=None,
                    help=f"ontobuild outcome folder for the dev set (default: build {DEFAULT_OUTCOME.name}); "
                         "'reference': a hand-checked ontology of the example data (no builder)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the default outcome even if it exists")
    ap.add_argument("--only", choices=["dev", "ck25", "spider"], default=None)
    ap.add_argument("--limit", type=int, default=None, help="answer only the first N questions (of each part)")
    ap.add_argument("--db", default=None, help="spider: comma-separated databases (default: all ten)")
    ap.add_argument("--sample", type=int, default=None, help="spider: K questions, stratified over the databases")
    ap.add_argument("--seed", type=int, default=0, help="spider: seed of --sample")
    ap.add_argument("--ids", default=None, help="spider: only these comma-separated question ids (dev_0001,...)")
    ap.add_argument("--out", type=Path, default=None, help="spider: results file (default: bench/results/"
                    "ask_spider.json for all questions, ask_spider_partial.json otherwise)")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--model", default=None)
    ap.add_argument("--base-url", default=None)
    ap.add_argument("--model-path", default=None)
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    ap.add_argument("--readme", action="store_true", help="only rewrite bench/results/README.md")
    args = ap.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    if args.readme:
        print(f"wrote {write_readme(RESULTS)}")
        return 0
    import logging

    from bench import spider

    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    logging.getLogger("ontocore.llm").setLevel(logging.INFO)  # shows the grammar retries
    spider_questions = None
    if args.only in (None, "spider"):  # check the selection before loading the model
        if not spider.available():
            print(f"spider: skipped, no data at {spider.SPIDER_DIR}", file=sys.stderr)
            if args.only == "spider":
                return 0
        else:
            dbs = [d.strip() for d in args.db.split(",") if d.strip()] if args.db else None
            spider_questions = spider.select(dbs, args.limit, args.sample, args.seed)
            if args.ids:
                wanted = {i.strip() for i in args.ids.split(",") if i.strip()}
                spider_questions = [q for q in spider_questions if q["id"] in wanted]
    from ontocore.llm import open_model

    opts = {"backend": args.backend, "model": args.model, "base_url": args.base_url, "model_path": args.model_path}
    model = open_model({k: v for k, v in opts.items() if v is not None})
    if args.only in (None, "dev"):
        if args.ontology is not None and str(args.ontology) == "reference":
            outcome = reference_outcome(REPO / "outcomes" / "ask_bench_reference")
        else:
            outcome = args.ontology.resolve() if args.ontology else ensure_outcome(DEFAULT_OUTCOME, args.rebuild)
        dev = run_dev(outcome, model, args.limit, argv)
        s = dev["summary"]
        print(f"dev: {s['correct']}/{s['questions']} correct ({s['accuracy']:.1%}), median {s['median_llm_calls']} "
              f"calls, median {s['median_seconds']} s, mean {s['mean_prompt_tokens']:.0f}+"
              f"{s['mean_completion_tokens']:.0f} tokens per question; per type: {_per_type(s)}")
        if not args.no_write:
            write_json(RESULTS / "ask_dev.json", dev)
    if args.only in (None, "ck25"):
        ck25 = run_ck25(model, args.limit, argv)
        s = ck25["summary"]
        print(f"ck25: mean F1 {s['mean_f1']:.3f} over {s['questions']} questions, median {s['median_llm_calls']} "
              f"calls, median {s['median_seconds']} s per question; mean F1 per type: {_per_type(s, f1=True)}")
        if not args.no_write:
            write_json(RESULTS / "ask_ck25.json", ck25)
    if spider_questions is not None:
        result = spider.run_spider(model, spider_questions, argv)
        partial = bool(args.db or args.limit or args.sample or args.ids or result["interrupted"])
        result["partial"] = partial
        result["selection"] = {"db": args.db, "limit": args.limit, "sample": args.sample, "seed": args.seed,
                               "ids": args.ids}
        print(spider.summary_line(result))
        if not args.no_write:
            out = args.out or RESULTS / ("ask_spider_partial.json" if partial else "ask_spider.json")
            print(f"wrote {write_json(out, result)}")
    if not args.no_write:
        print(f"wrote {write_readme(RESULTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
