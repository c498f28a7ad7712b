"""Scale figures for the builder on table exports, with the model: `ontobuild` over generated CSV exports of four
related tables (customers, products, orders, order lines; foreign keys between them) at a given number of rows in
all, built with the embedded model (the default backend) in a child process.

    python -m bench.export_bench --rows 10000,100000,1000000          # writes bench/results/scale_export.{json,md}
    python -m bench.export_bench --rows 10000 --no-write --label "busy machine"

Per size: the build's seconds and rows per second, its peak memory (the child's VmHWM, read from /proc while it
runs), the model calls and tokens (stats.json `llm`: they must not grow with the rows), the cells kept (coverage
covered + skipped = every cell of the four files), the foreign keys linked (each reference's `linked` against the
rows that hold one), and the seconds of a few `ontoask --ontology OUT --sparql` queries and of model-answered
questions over the outcome (one `ontoask --questions` process: its seconds, the seconds it took to open the
ontology's relational view, and each answer's own seconds, without waiting for the shared model). The model is shared through a file lock and the machine has two cores, so the figures
carry the label given with --label (default "busy machine")."""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench.scale_bench import _peak_watch, _size_mb

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SHARE = {"customers": 0.05, "products": 0.01, "orders": 0.24, "order_lines": 0.70}
# made-up towns (no data set's names); the same count as before, so the seeded choices fall alike
CITIES = ["Arnmoor", "Velbrook", "Ostrana", "Kelvie", "Dunmarrow", "Sollent", "Paxhaven", "Ilderby", "Quenfort",
          "Morrowick"]
CATEGORIES = ["garden", "kitchen", "tools", "toys", "books", "sports", "office", "audio"]
FIRST = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jo", "Kai", "Lea"]
LAST = ["Moss", "Hart", "Ng", "Okafor", "Berg", "Silva", "Kowal", "Dune", "Rossi", "Quinn"]
STATUS = ["placed", "paid", "shipped", "returned"]


def sizes(rows: int) -> dict[str, int]:
    """Rows per table for `rows` in all (the order lines take what rounding leaves)."""
    out = {t: max(20, round(rows * share)) for t, share in SHARE.items() if t != "order_lines"}
    out["order_lines"] = max(20, rows - sum(out.values()))
    return out


def generate(rows: int, folder: Path, seed: int = 7) -> dict[str, Any]:
    """Write customers.csv, products.csv, orders.csv, order_lines.csv with `rows` rows in all; what was written
    (rows, cells and foreign-key cells per table)."""
    rnd = random.Random(seed)
    n = sizes(rows)
    folder.mkdir(parents=True, exist_ok=True)
    info: dict[str, Any] = {"rows": n, "cells": {}, "fk_cells": {}}

    def write(name: str, header: list[str], body) -> None:
        with open(folder / f"{name}.csv", "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh)
            w.writerow(header)
            w.writerows(body)
        info["cells"][name] = n[name] * len(header)

    write("customers", ["customer_id", "name", "city", "email", "signup_date"],
          ((f"C{i}", f"{rnd.choice(FIRST)} {rnd.choice(LAST)}", rnd.choice(CITIES), f"c{i}@example.org",
            f"20{rnd.randrange(15, 25)}-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}")
           for i in range(1, n["customers"] + 1)))
    write("products", ["product_id", "title", "category", "price", "weight_kg"],
          ((f"P{i}", f"{rnd.choice(CATEGORIES).title()} item {i}", rnd.choice(CATEGORIES),
            f"{rnd.uniform(1, 500):.2f}", f"{rnd.uniform(0.05, 40):.2f}") for i in range(1, n["products"] + 1)))
    write("orders", ["order_id", "customer_id", "order_date", "status"],
          ((i, f"C{rnd.randrange(1, n['customers'] + 1)}",
            f"2025-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}", rnd.choice(STATUS))
           for i in range(1, n["orders"] + 1)))
    write("order_lines", ["line_id", "order_id", "product_id", "quantity", "unit_price"],
          ((f"L{i}", rnd.randrange(1, n["orders"] + 1), f"P{rnd.randrange(1, n['products'] + 1)}",
            rnd.randrange(1, 12), f"{rnd.uniform(1, 500):.2f}") for i in range(1, n["order_lines"] + 1)))
    info["fk_cells"] = {"orders.customer_id": n["orders"], "order_lines.order_id": n["order_lines"],
                        "order_lines.product_id": n["order_lines"]}
    info["mb"] = round(sum((folder / f"{t}.csv").stat().st_size for t in n) / 1e6, 1)
    return info


SPARQL = {
    "count order lines": "SELECT (COUNT(?x) AS ?n) WHERE {{ ?x a <{ns}OrderLine> }}",
    "orders of one customer": "SELECT (COUNT(?o) AS ?n) WHERE {{ ?o ?p ?c . ?c <http://www.w3.org/2000/01/rdf-schema#label> "
                              "?l FILTER(STR(?l) = \"C7\" || STRENDS(STR(?c), \"C7\")) }}",
    "quantity by category": "SELECT ?cat (SUM(?q) AS ?total) WHERE {{ ?l ?toProduct ?p . ?p ?hasCat ?cat . "
                            "?l ?hasQty ?q FILTER(isNumeric(?q) && ?hasCat != ?hasQty && isLiteral(?cat) && "
                            "?cat IN (\"garden\", \"tools\")) }} GROUP BY ?cat",
}
QUESTIONS = ["How many customers live in Velbrook?", "How many orders have the status returned?"]


def _env(src: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    return env


def _run(cmd: list[str], env: dict[str, str], timeout: float) -> tuple[int, str, str, float, int]:
    t = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak: dict[str, int] = {}
    watcher = threading.Thread(target=_peak_watch, args=(proc, peak), daemon=True)
    watcher.start()
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        stdout, stderr = proc.communicate()
    watcher.join()
    return proc.returncode, stdout, stderr, time.monotonic() - t, peak.get("peak_mb", 0)


def run_size(rows: int, workdir: Path, src: Path | None, questions: bool, extra: list[str],
             save=lambda row: None) -> dict[str, Any]:
    """One size: generate, build, query, ask; `save(row)` after each part (a long run is usable when cut short)."""
    data = workdir / f"data_{rows}"
    t = time.monotonic()
    info = generate(rows, data)
    gen_s = time.monotonic() - t
    out = workdir / f"out_{rows}"
    py = sys.executable
    env = _env(src)
    files = [str(data / f"{t}.csv") for t in SHARE]
    cmd = [py, "-m", "ontobuild", *files, "--out", str(out), "--json", "-q", "--max-input-mb", "5000",
           "--ontology-iri", "http://example.org/shopdata", *extra]
    code, stdout, stderr, build_s, peak = _run(cmd, env, timeout=4 * 3600)
    if code != 0:
        return {"rows": rows, "failed": code, "stderr": stderr[-3000:], "build_s": round(build_s, 1),
                "peak_mb": peak}
    stats = json.loads(stdout)
    cov = stats.get("coverage", {}).get("json_leaves", {})
    refs = json.loads((out / "coverage.json").read_text("utf-8")).get("references", [])
    linked = {r["reference"]: {"linked": r.get("linked"), "unmatched": r.get("unmatched"), "property": r["property"]}
              for r in refs if "linked" in r}
    streamed = (stats.get("outputs") or {}).get("streamed") or {}
    row: dict[str, Any] = {
        "rows": rows, "tables": info["rows"], "input_mb": info["mb"], "generate_s": round(gen_s, 1),
        "build_s": round(build_s, 1), "rows_per_s": round(rows / build_s), "peak_mb": peak,
        "llm": {k: stats["llm"].get(k) for k in ("calls", "prompt_tokens", "completion_tokens", "prompt_evaluated",
                                                 "prompt_reused") if k in stats["llm"]},
        "cells": {"expected": sum(info["cells"].values()), **cov},
        "fks": {"expected": info["fk_cells"], "linked": linked},
        "counts": stats.get("counts"), "streamed": bool(streamed), "write_rows_per_s": streamed.get("rows_per_second"),
        "seconds": stats.get("seconds"), "stream_seconds": streamed.get("seconds"),
        "reasoner": {"status": stats["reasoner"]["status"], "checks": [
            {k: c.get(k) for k in ("check", "status", "seconds", "violations")} for c in
            stats["reasoner"].get("checks", [])]},
        "files_mb": {f.name: _size_mb(f) for f in sorted(out.iterdir()) if not f.name.startswith(".")},
    }
    ns = stats.get("ontology_iri", "").rstrip("#") + "#"
    row["sparql"], row["questions"] = {}, {}
    save(row)
    for name, query in SPARQL.items():
        code, q_out, q_err, q_s, _ = _run([py, "-m", "ontouse", "--ontology", str(out), "--json", "--timeout", "600",
                                          "--sparql", query.format(ns=ns)], env, timeout=900)
        value: Any = q_err[-300:]
        if code == 0:
            bindings = json.loads(q_out)["results"]["bindings"]
            value = [{k: v["value"] for k, v in b.items()} for b in bindings[:4]]
        row["sparql"][name] = {"seconds": round(q_s, 1), "result": value}
    save(row)
    if questions:
        ask_questions(row, out, workdir / f"asked_{rows}", env)
        save(row)
    return row


def ask_questions(row: dict[str, Any], outcome: Path, folder: Path, env: dict[str, str]) -> None:
    """QUESTIONS answered by one `ontoask --questions` process over `outcome` (answers in `folder`): into `row`,
    the process's seconds (`questions_s`: loading the model, opening the store and its view, the questions), the
    view's own seconds (`view_s`: opening the ontology's relational view, stats.json) and per question the answer
    and its own seconds (the answer record's: without waiting for the shared model)."""
    qfile = folder.with_suffix(".json")
    qfile.parent.mkdir(parents=True, exist_ok=True)
    qfile.write_text(json.dumps([{"query": q} for q in QUESTIONS]), "utf-8")
    shutil.rmtree(folder, ignore_errors=True)
    code, _, q_err, q_s, q_peak = _run([sys.executable, "-m", "ontouse", "--ontology", str(outcome), "--questions",
                                        str(qfile), "--out", str(folder), "-q"], env, timeout=3600)
    row["questions_s"], row["questions_peak_mb"] = round(q_s, 1), q_peak
    if code != 0 or not (folder / "answers.json").is_file():
        row["questions"] = {q: {"seconds": round(q_s, 1), "error": q_err[-300:]} for q in QUESTIONS}
        return
    stats = json.loads((folder / "stats.json").read_text("utf-8"))
    row["view_s"] = stats.get("view_seconds")
    for rec in json.loads((folder / "answers.json").read_text("utf-8")):
        answer = {"answer": str(rec.get("answer"))[:200], "rows": (rec.get("rows") or [])[:3],
                  "sparql": " | ".join(rec.get("sparql") or [])[:400] if isinstance(rec.get("sparql"), list)
                  else str(rec.get("sparql", ""))[:400]}
        row["questions"][rec.get("question", "")] = {
            "seconds": rec.get("seconds"), "wait_seconds": rec.get("wait_seconds", 0),
            "llm_calls": rec.get("llm_calls"), "state": rec.get("state"),
            "prompt": [rec.get(k, 0) for k in ("prompt_evaluated", "prompt_reused", "prompt_loaded")],
            **({"answer": answer} if rec.get("state") != "error" else {"error": str(rec.get("error"))[:300]})}


def _prompt_state(q: dict[str, Any]) -> str:
    """How the answer's prompt was had: evaluated (cold), reused in the process, or loaded from the prefix cache."""
    evaluated, reused, loaded = (q.get("prompt") or [0, 0, 0])[:3]
    if not (evaluated or reused or loaded):
        return ""
    return " (prompt evaluated)" if evaluated > reused else " (prompt cached)" if loaded else " (prompt reused)"


def table(rows: list[dict[str, Any]], label: str, commit: str) -> str:
    out = [f"# Scale: `ontobuild` on generated table exports with the embedded model ({label})", "",
           f"Command: `python -m bench.export_bench --rows {','.join(str(r['rows']) for r in rows)}` (see its "
           "docstring; each row names its commit). Four related CSV tables (customers, products, orders, order lines).",
           "",
           "| rows | commit | input MB | build s | rows/s (build; rows pass) | peak MB | LLM calls | prompt + completion tokens | cells kept | "
           "FKs linked | streamed | reasoner | SPARQL s (3 queries) | questions s | view open s | s per question (own) |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "failed" in r:
            out.append(f"| {r['rows']} | {r.get('commit', '')} | | {r['build_s']} | | {r['peak_mb']} | "
                       f"failed ({r['failed']}) | | | | | | | | | |")
            continue
        llm = r["llm"]
        cells = r["cells"]
        kept = f"{cells.get('covered', 0) + cells.get('skipped', 0)}/{cells['expected']}"
        fks = sum(v["linked"] or 0 for v in r["fks"]["linked"].values())
        fk_expected = sum(r["fks"]["expected"].values())
        checks = "; ".join(f"{c['check']}: {c['status']}" for c in r["reasoner"]["checks"]) or r["reasoner"]["status"]
        sparql = ", ".join(str(q["seconds"]) for q in r["sparql"].values())
        if "questions_s" in r:  # one ontoask process for the questions: its seconds, the view's, each answer's
            questions = f"{r['questions_s']} (one process)"
            own = ", ".join(f"{q['seconds']}{' (failed)' if 'error' in q else ''}{_prompt_state(q)}"
                            for q in r["questions"].values())
        else:  # a process per question (rows measured before)
            questions = ", ".join(f"{q['seconds']}{' (failed)' if 'error' in q else ''}"
                                  for q in r["questions"].values()) or "-"
            own = "-"
        out.append(f"| {r['rows']} | {r.get('commit', '')} | {r['input_mb']} | {r['build_s']} | {r['rows_per_s']}"
                   f"{'; ' + str(r['write_rows_per_s']) if r.get('write_rows_per_s') else ''} | {r['peak_mb']} | "
                   f"{llm.get('calls')} | {llm.get('prompt_tokens')} + {llm.get('completion_tokens')} | {kept} | "
                   f"{fks}/{fk_expected} | {'yes' if r['streamed'] else 'no'} | {checks} | {sparql} | {questions} | "
                   f"{r.get('view_s', '-')} | {own or '-'} |")
    out += ["", "build s: the child process from start to end (loading the model, waiting for it: the machine and the "
            "model are shared); rows pass: the rows written per second by a streamed build (tablestream). cells kept: "
            "coverage covered + skipped against the cells of the four files; FKs linked: the cells linked by the "
            "references against the foreign-key cells generated. LLM calls and tokens: stats.json `llm`. questions s: "
            "the `ontoask` process(es) from start to end (loading the model, opening the store and its view, waiting "
            "for the shared model); view open s: opening the relational view (stats.json `view_seconds`); s per "
            "question (own): each answer's `seconds` (its model calls and queries, without waiting for the model), and "
            "whether the stable start of its prompt (the view) was evaluated, reused in the process or loaded from "
            "the model's prefix cache (a question's seconds depend on it far more than on the rows).",
            "", "Seconds by step (stats.json `seconds`, and the streamed tables' own):", ""]
    out += [f"- {r['rows']} rows: {json.dumps(r.get('seconds'))}; streamed: {json.dumps(r.get('stream_seconds'))}; "
            f"files (MB): {json.dumps(r.get('files_mb'))}" for r in rows if "failed" not in r]
    out += ["", "Answers:", ""]
    for r in rows:
        for q, a in (r.get("sparql") or {}).items():
            out.append(f"- {r['rows']} rows, SPARQL {q}: {json.dumps(a['result'])[:200]} ({a['seconds']} s)")
        for q, a in (r.get("questions") or {}).items():
            out.append(f"- {r['rows']} rows, {q!r}: {json.dumps(a.get('answer') or a.get('error'))[:300]} "
                       f"({a['seconds']} s)")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", default="10000,100000,1000000", help="comma-separated sizes (rows in all)")
    ap.add_argument("--label", default="busy machine")
    ap.add_argument("--src", default=None, help="the package sources to run (PYTHONPATH of the children)")
    ap.add_argument("--commit", default=None, help="the commit those sources are (default: this checkout's HEAD)")
    ap.add_argument("--workdir", default=None, help="keep the data and outcomes here (default: a temporary folder)")
    ap.add_argument("--no-questions", action="store_true", help="only the SPARQL queries, no model-answered ones")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--name", default="scale_export", help="the results' file name (NAME.json, NAME.md)")
    ap.add_argument("--append", action="store_true", help="add to the rows of the results written before (each row "
                                                          "names its commit)")
    ap.add_argument("--no-reason", action="store_true")
    ap.add_argument("--merge", default="", help="only gather the rows of these results (comma-separated names, "
                                                "each run with its own --name) into --name")
    args = ap.parse_args()
    if args.merge:
        rows = [r for name in args.merge.split(",") for r in
                json.loads((RESULTS / f"{name}.json").read_text("utf-8"))["rows"]]
        rows.sort(key=lambda r: r["rows"])
        label = "; ".join(sorted({r.get("label", "") for r in rows}))
        result = {"label": label, "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                  "rows": rows}
        (RESULTS / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")
        (RESULTS / f"{args.name}.md").write_text(table(rows, label, ""), "utf-8")
        return
    commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                           cwd=ROOT).stdout.strip()
    rows = []
    if args.append and (RESULTS / f"{args.name}.json").is_file():
        rows = json.loads((RESULTS / f"{args.name}.json").read_text("utf-8"))["rows"]
    src = Path(args.src).resolve() if args.src else ROOT / "src"
    tmp = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="export-bench-"))
    tmp.mkdir(parents=True, exist_ok=True)
    def save(row: dict[str, Any]) -> None:
        row["commit"], row["label"] = commit, args.label
        if row not in rows:
            rows.append(row)
        result = {"label": args.label, "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
                  "rows": rows}
        if not args.no_write:  # after each part of each size: a partial run is usable
            RESULTS.mkdir(parents=True, exist_ok=True)
            (RESULTS / f"{args.name}.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")
            (RESULTS / f"{args.name}.md").write_text(table(rows, args.label, commit), "utf-8")

    try:
        for size in [int(s) for s in args.rows.split(",")]:
            row = run_size(size, tmp, src, not args.no_questions, ["--no-reason"] if args.no_reason else [], save)
            save(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
        print(table(rows, args.label, commit))
    finally:
        if not args.workdir:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
