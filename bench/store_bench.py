"""Store figures for the answerer, without the model: rdflib's memory store vs an embedded Oxigraph store (parsed
per run, or persisted on disk) vs a SPARQL endpoint (an Oxigraph server on 127.0.0.1), on generated graphs of
10k, 100k and 1M triples and on CK25.

    python -m bench.store_bench                          # writes bench/results/store.json and store.md
    python -m bench.store_bench --sizes 10000 --stores oxigraph,memory --no-write

Per store and graph: seconds to load (parse or connect), seconds to build the view and the value index (what
`ontoask` does before its first question), seconds until ready; per question the seconds of what the answerer
does after the model has written its plan (linking, reading and compiling the plan, the answer query, the support
set), and the median time of the answer queries; peak memory (the process's, plus the server's for the
endpoint). Every store runs in its own process; a query that builds the view has a 20 s limit, an answer query
60 s (a query over the limit counts as 60 s). The generated graph is a plain sales dataset (suppliers, products, customers, purchases) with links
and values of every kind; its plans are written for it here, not taken from any benchmark."""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
SHARED = ROOT / ".." / "shared" / "data"
QUERY_LIMIT_S = 60.0  # per answer query
VIEW_QUERY_LIMIT_S = 20.0  # per query that builds the view

QUESTIONS = [  # (question, plan) over the generated graph
    ("What is the email of Customer 4242?", "SELECT email FROM Customer WHERE label = 'Customer 4242'"),
    ("How many purchases have a quantity above 8?", "SELECT COUNT(*) FROM Purchase WHERE quantity > 8"),
    ("Which customers bought Product 17?",
     "SELECT DISTINCT c.label FROM Purchase o JOIN Customer c ON o.customer = c.iri "
     "JOIN Product p ON o.product = p.iri WHERE p.label = 'Product 17'"),
    ("How many purchases were made in each city?",
     "SELECT c.city, COUNT(*) FROM Purchase o JOIN Customer c ON o.customer = c.iri GROUP BY c.city"),
    ("Which product is the most expensive?", "SELECT label FROM Product ORDER BY price DESC LIMIT 1"),
    ("Which products were never bought?",
     "SELECT label FROM Product WHERE iri NOT IN (SELECT product FROM Purchase)"),
    ("What is the average quantity of a purchase?", "SELECT AVG(quantity) FROM Purchase"),
    ("Which suppliers in Country 3 supply products priced over 900?",
     "SELECT DISTINCT s.label FROM Product p JOIN Supplier s ON p.supplier = s.iri "
     "WHERE s.country = 'Country 3' AND p.price > 900"),
]
CK25_QUESTIONS = [
    ("What is the email of Karen Brant?", "SELECT email FROM Employee WHERE name = 'Karen Brant'"),
    ("How many employees are there?", "SELECT COUNT(*) FROM Employee"),
]


def generate(triples: int, path: Path, seed: int = 7) -> int:
    """A Turtle file of about `triples` triples; the exact count."""
    rnd = random.Random(seed)
    n = max(10, round(triples / 15.5))
    products, suppliers = max(5, n // 10), max(3, n // 100)
    count = 0
    with path.open("w", encoding="utf-8") as f:
        f.write("@prefix : <http://example.org/sales#> .\n@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
                "@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n")
        for i in range(suppliers):
            f.write(f':s{i} a :Supplier ; rdfs:label "Supplier {i}" ; :country "Country {i % 25}" .\n')
            count += 3
        for i in range(products):
            f.write(f':p{i} a :Product ; rdfs:label "Product {i}" ; :price {rnd.randint(1, 1000)}.{rnd.randint(0, 99):02d}'
                    f' ; :supplier :s{rnd.randrange(suppliers)} ; :category "Category {i % 40}" .\n')
            count += 5
        for i in range(n):
            f.write(f':c{i} a :Customer ; rdfs:label "Customer {i}" ; :city "City {rnd.randrange(300)}" ; '
                    f':email "customer{i}@example.org" ; :age {rnd.randint(18, 90)} .\n')
            count += 5
        bought = max(1, int(products * 0.9))  # the last tenth of the products is never bought
        for i in range(2 * n):
            f.write(f':o{i} a :Purchase ; :customer :c{rnd.randrange(n)} ; :product :p{rnd.randrange(bought)} ; '
                    f':quantity {rnd.randint(1, 10)} ; :date "2024-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"'
                    '^^xsd:date .\n')
            count += 5
    return count


# ---- one store, in its own process --------------------------------------------------------------------------
def measure(kind: str, files: list[str], endpoint: str | None, store_path: str | None,
            questions: list[tuple[str, str]]) -> dict[str, Any]:
    from ontouse.answerer import AnswerLoop
    from ontouse.sqlplan.compile import compile_plan
    from ontouse.question import parse_question
    from ontouse.storage.sparql import QueryError
    from ontouse.sqlplan.reader import read_sql
    from ontouse.storage.store import Source
    from ontouse.support import support_set

    out: dict[str, Any] = {"store": kind}
    t = time.perf_counter()
    if kind == "endpoint":
        source = Source(endpoint=endpoint)
    else:
        source = Source(paths=tuple(Path(f) for f in files), kind="memory" if kind == "memory" else "oxigraph",
                        store_path=Path(store_path) if store_path else None)
    store = source.open()
    out["load_s"] = round(time.perf_counter() - t, 2)
    from ontouse.sqlplan.schema_build import build_schema

    t = time.perf_counter()
    try:
        schema = build_schema(store, timeout_s=VIEW_QUERY_LIMIT_S)
        answerer = AnswerLoop(store, model=None, schema=schema)  # type: ignore[arg-type] - no model before a question
        out["catalog_s"] = round(time.perf_counter() - t, 2)
        out["ready_s"] = round(out["load_s"] + out["catalog_s"], 2)
    except QueryError:  # a query of the view is over the limit: the questions still run, on the view built
        # over an Oxigraph copy, so that the answer queries are compared side by side
        out["catalog_s"] = out["ready_s"] = f"a view query over {VIEW_QUERY_LIMIT_S:.0f} s"
        schema = build_schema(Source(paths=tuple(Path(f) for f in files)).open())
        answerer = AnswerLoop(store, model=None, schema=schema)  # type: ignore[arg-type]
    out["tables"] = len(answerer.schema.tables)
    per_question, query_times = [], []
    for text, sql in questions:
        t = time.perf_counter()
        q = parse_question(text)
        answerer.index.mentions(q)
        plan, _ = read_sql(answerer.schema, sql)
        compiled = compile_plan(answerer.schema, plan)
        tq = time.perf_counter()
        try:
            rows = store.select(compiled.sparql, max_rows=1000, timeout_s=QUERY_LIMIT_S)
            query_times.append(time.perf_counter() - tq)
            support = support_set(store, compiled.evidence)
            status = f"{rows.total} rows, {len(support)} support triples"
        except QueryError as e:
            query_times.append(QUERY_LIMIT_S)
            status = f"failed: {str(e)[:80]}"
        per_question.append({"question": text, "seconds": round(time.perf_counter() - t, 3), "result": status})
    out["questions"] = per_question
    out["median_query_s"] = round(statistics.median(query_times), 3)
    out["median_question_s"] = round(statistics.median(p["seconds"] for p in per_question), 3)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    return out


def _child(args: list[str], timeout: float) -> dict[str, Any]:
    try:
        proc = subprocess.run([sys.executable, "-m", "bench.store_bench", "--child", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"did not finish within {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["failed"])[-1][:300]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _server(files: list[Path], workdir: Path) -> tuple[subprocess.Popen, str, float]:
    from ontouse.storage.endpoint import wait_ready

    cli = Path(sys.executable).parent / "oxigraph"
    exe = str(cli) if cli.exists() else shutil.which("oxigraph")
    if exe is None:
        raise SystemExit("the oxigraph server is not installed (pip install oxigraph)")
    db = workdir / "server-db"
    t = time.perf_counter()
    subprocess.run([exe, "load", "--location", str(db), "--file", *map(str, files)], check=True,
                   capture_output=True)
    load_s = time.perf_counter() - t
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([exe, "serve-read-only", "--location", str(db), "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    if not wait_ready(url, 60):
        raise SystemExit("the oxigraph server did not start")
    return proc, url, load_s


def _peak_mb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024)
    except OSError:
        pass
    return 0


def run_graph(name: str, files: list[Path], triples: int, stores: list[str], questions: str,
              workdir: Path, timeout: float) -> list[dict[str, Any]]:
    rows = []
    common = ["--files", *map(str, files), "--questions", questions]
    for kind in stores:
        print(f"{name}: {kind} ...", file=sys.stderr, flush=True)
        if kind == "persisted":
            store_dir = workdir / f"store-{name}"
            first = _child(["--kind", kind, "--store-path", str(store_dir), *common], timeout)
            row = _child(["--kind", kind, "--store-path", str(store_dir), *common], timeout)
            row["first_load_s"] = first.get("load_s")
            shutil.rmtree(store_dir, ignore_errors=True)
        elif kind == "endpoint":
            proc, url, load_s = _server(files, workdir)
            try:
                row = _child(["--kind", kind, "--endpoint", url, *common], timeout)
                row["server_load_s"] = round(load_s, 2)
                row["server_peak_rss_mb"] = _peak_mb(proc.pid)
            finally:
                proc.terminate()
                proc.wait(timeout=30)
                shutil.rmtree(workdir / "server-db", ignore_errors=True)
        else:
            row = _child(["--kind", kind, *common], timeout)
        row.update({"graph": name, "triples": triples, "store": kind})
        print(f"  {json.dumps({k: v for k, v in row.items() if k != 'questions'})}", file=sys.stderr, flush=True)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    head = ("| graph | triples | store | load s | view s | ready s | median query s | median question s "
            "(no model) | peak MB |\n|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['graph']} | {r['triples']:,} | {r['store']} | {r['error']} ||||||")
            continue
        load = f"{r['load_s']}" + (f" (first run {r['first_load_s']})" if r.get("first_load_s") is not None else "")
        load += f" (server load {r['server_load_s']})" if "server_load_s" in r else ""
        peak = f"{r['peak_rss_mb']}" + (f" + server {r['server_peak_rss_mb']}" if "server_peak_rss_mb" in r else "")
        lines.append(f"| {r['graph']} | {r['triples']:,} | {r['store']} | {load} | {r['catalog_s']} | {r['ready_s']} "
                     f"| {r['median_query_s']} | {r['median_question_s']} | {peak} |")
    return "\n".join(lines)


def speedups(rows: list[dict[str, Any]]) -> str:
    """Per graph, how many times faster Oxigraph runs the answer queries than rdflib's memory store (medians and
    sums over the same questions, in the same run)."""
    lines = []
    for graph in dict.fromkeys(r["graph"] for r in rows):
        by = {r["store"]: r for r in rows if r["graph"] == graph and "error" not in r}
        if "memory" in by and "oxigraph" in by:
            mem = sum(q["seconds"] for q in by["memory"]["questions"])
            ox = sum(q["seconds"] for q in by["oxigraph"]["questions"])
            med = by["memory"]["median_query_s"] / max(by["oxigraph"]["median_query_s"], 1e-3)
            lines.append(f"- {graph}: Oxigraph {med:.0f}x faster than rdflib's memory store on the median answer "
                         f"query, {mem / max(ox, 1e-3):.0f}x on all the questions' work ({mem:.1f} s vs {ox:.1f} s)")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--stores", default="memory,oxigraph,persisted,endpoint")
    ap.add_argument("--no-ck25", action="store_true")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per store and graph")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--kind", help=argparse.SUPPRESS)
    ap.add_argument("--files", nargs="*", default=[], help=argparse.SUPPRESS)
    ap.add_argument("--endpoint", help=argparse.SUPPRESS)
    ap.add_argument("--store-path", help=argparse.SUPPRESS)
    ap.add_argument("--questions", default="generated", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        qs = CK25_QUESTIONS if a.questions == "ck25" else QUESTIONS
        print(json.dumps(measure(a.kind, a.files, a.endpoint, a.store_path, qs)))
        return
    stores = a.stores.split(",")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="store_bench_") as tmp:
        work = Path(tmp)
        for size in [int(s) for s in a.sizes.split(",") if s]:
            path = work / f"sales_{size}.ttl"
            triples = generate(size, path)
            rows += run_graph(f"sales {size // 1000}k", [path], triples, stores, "generated", work, a.timeout)
        ck25 = [SHARED / "ck25" / "prod-vocab.ttl", SHARED / "ck25" / "prod-inst.ttl"]
        if not a.no_ck25 and all(p.is_file() for p in ck25):
            from ontouse.storage.graph import load_graph

            n = len(load_graph(ck25))
            rows += run_graph("ck25", ck25, n, stores, "ck25", work, a.timeout)
    md = (f"# Store benchmark (`python -m bench.store_bench`)\n\nMachine: {platform.machine()}, {os.cpu_count()} cores; "
          f"{time.strftime('%Y-%m-%d')}. Without the model. Answer queries over {QUERY_LIMIT_S:.0f} s count as "
          f"{QUERY_LIMIT_S:.0f} s; a view query over {VIEW_QUERY_LIMIT_S:.0f} s stops the view (the questions then "
          f"run on the view built over Oxigraph).\n\n{table(rows)}\n\n{speedups(rows)}\n")
    print(md)
    if not a.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "store.json").write_text(json.dumps(rows, indent=1) + "\n", "utf-8")
        (RESULTS / "store.md").write_text(md, "utf-8")


if __name__ == "__main__":
    main()
