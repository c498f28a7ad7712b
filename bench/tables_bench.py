"""End to end on data nobody here wrote: build an ontology from each Spider4SPARQL database's table exports
(one JSON file per table, and again as CSV), then ask that database's questions over the built ontology.

Per database and format it records: the cell values retained (every non-empty cell of the exports is either in
the ontology or skipped with a reason; retained = covered / non-empty), the references the build made between
tables against the database's real foreign keys, the build's cost (LLM calls, completion tokens, seconds) and
the reasoner's verdict; then, over the JSON build (or --ask-format), the answers scored on their values as
bench/spider.py scores them (a built ontology has its own IRIs, so values are compared, never IRIs).

    python -m bench.tables_bench                       # all ten databases, JSON and CSV, then ask
    python -m bench.tables_bench --db pets_1 --no-ask  # builds only
Results: bench/results/tables.json (tables_partial.json for part of the databases)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from bench import spider
from bench.report import REPO, RESULTS, ask, close, open_answerer_for, run_info, stats, write_json

TABLES = spider.SPIDER_DIR / "tables"
OUT = REPO / "outcomes" / "tables_bench"


def real_foreign_keys(db: str) -> set[tuple[str, str, str, str]]:
    data = json.loads((TABLES / db / "foreign_keys.json").read_text("utf-8"))
    return {(f["table"].lower(), f["column"].lower(), f["ref_table"].lower(), f["ref_column"].lower()) for f in data}


def _parse_reference(text: str) -> tuple[str, str, str, str]:
    """"a.csv 'col' -> b.csv 'key'" -> ('a', 'col', 'b', 'key')."""
    left, right = text.split(" -> ")
    (lf, lc), (rf, rc) = (part.split(" ", 1) for part in (left, right))
    stem = lambda f: f.rsplit(".", 1)[0].lower()  # noqa: E731
    return stem(lf), lc.strip("'").lower(), stem(rf), rc.strip("'").lower()


def cells(files: list[Path]) -> int:
    """Non-empty cells of the exports, counted independently of the builder."""
    from ontobuild.inputs.readers import load_inputs

    n = 0
    for _, rows in load_inputs(files).json_docs:
        n += sum(1 for row in rows for v in row.values() if v is not None and str(v).strip() != "")
    return n


def build(db: str, fmt: str, model: Any) -> dict[str, Any]:
    from ontobuild.pipeline import run_build

    files = sorted((TABLES / db / fmt).iterdir())
    out = OUT / f"{db}_{fmt}"
    before = model.usage.snapshot()
    started = time.monotonic()
    try:
        st = run_build(files=files, out=out, model=model, force=True)
    except Exception as e:  # noqa: BLE001 - a failed build is a result too
        return {"db": db, "format": fmt, "error": f"{type(e).__name__}: {e}"}
    now = model.usage.snapshot()
    coverage = json.loads((out / "coverage.json").read_text("utf-8"))
    covered = coverage["json_leaves"]["covered"]
    non_empty = cells(files)
    real = real_foreign_keys(db)
    made = {_parse_reference(r["reference"]) for r in coverage.get("references", []) if r.get("confirmed")}
    candidates = {_parse_reference(r["reference"]) for r in coverage.get("references", []) if "confirmed" in r}
    # two tables that share ids (one-to-one) are linked in one direction with its inverse: either direction
    # states the declared key
    made |= {(t, k, s, c) for s, c, t, k in made if (t, k, s, c) in real}
    candidates |= {(t, k, s, c) for s, c, t, k in candidates if (t, k, s, c) in real}
    extra = {x for x in made - real if (x[2], x[3], x[0], x[1]) not in real}
    return {"db": db, "format": fmt, "outcome": str(out), "cells": non_empty, "retained": covered,
            "retained_pct": round(100 * covered / non_empty, 2) if non_empty else 100.0,
            "fk_real": len(real), "fk_found": len(made & real), "fk_candidates_of_real": len(candidates & real),
            "fk_extra": sorted(" ".join(x) for x in extra), "fk_missing": sorted(" ".join(x) for x in real - made),
            "llm_calls": now[0] - before[0], "completion_tokens": now[2] - before[2],
            "seconds": round(time.monotonic() - started, 1), "reasoner": st["reasoner"]["status"],
            "counts": st["counts"]}


def ask_db(db: str, outcome: Path, model: Any, limit: int | None) -> list[dict[str, Any]]:
    questions = spider.load_questions([db])[:limit] if limit else spider.load_questions([db])
    answerer = open_answerer_for([outcome], model, outcome / "bench_answers.log")
    rows = []
    try:
        for q in questions:
            row = spider.score_answer(ask(answerer, q["question"]), q)
            rows.append(row)
            print(f"  {q['id']} {'OK ' if row['correct'] else 'BAD'} f1={row['f1']:.2f} {row['seconds']:.1f}s",
                  file=sys.stderr, flush=True)
    finally:
        close(answerer)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db", default=None, help="comma-separated databases (default: all)")
    ap.add_argument("--formats", default="json,csv")
    ap.add_argument("--ask-format", default="json", help="the build whose ontology is asked")
    ap.add_argument("--no-ask", action="store_true")
    ap.add_argument("--limit", type=int, default=None, help="questions per database")
    ap.add_argument("--out", default=None, help="results file (default: tables.json, or tables_partial.json)")
    args = ap.parse_args(argv)
    if not TABLES.is_dir():
        print(f"no table exports at {TABLES}", file=sys.stderr)
        return 2
    dbs = args.db.split(",") if args.db else sorted(p.name for p in TABLES.iterdir() if p.is_dir())
    from ontocore.llm import open_model

    model = open_model(None)
    info = run_info(model, argv)
    info["command"] = "python -m bench.tables_bench " + " ".join(argv if argv is not None else sys.argv[1:])
    builds, answers = [], []
    for db in dbs:
        for fmt in args.formats.split(","):
            b = build(db, fmt, model)
            builds.append(b)
            print(json.dumps({k: v for k, v in b.items() if k not in ("fk_extra", "fk_missing", "counts")}),
                  file=sys.stderr, flush=True)
        asked = next((b for b in builds if b["db"] == db and b["format"] == args.ask_format and "outcome" in b), None)
        if asked and not args.no_ask:
            answers += ask_db(db, Path(asked["outcome"]), model, args.limit)
    summary = {"builds": len(builds), "failed_builds": sum(1 for b in builds if "error" in b),
               "cells": sum(b.get("cells", 0) for b in builds), "retained": sum(b.get("retained", 0) for b in builds),
               "fk_real": sum(b.get("fk_real", 0) for b in builds if "error" not in b),
               "fk_found": sum(b.get("fk_found", 0) for b in builds)}
    if answers:
        summary["ask"] = {**spider.summarize(answers), **stats(answers)}
    result = {"benchmark": "tables_end_to_end", **info, "summary": summary, "builds": builds, "questions": answers}
    partial = bool(args.db or args.limit or args.no_ask)
    path = write_json(Path(args.out) if args.out else RESULTS / ("tables_partial.json" if partial else "tables.json"),
                      result)
    print(f"wrote {path}")
    print(json.dumps(summary.get("ask", {}).get("per_db", {}), indent=0)[:2000] if answers else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
