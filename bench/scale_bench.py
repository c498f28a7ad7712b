"""Scale figures for the builder without the model: `ontobuild --from-index` over a generated index of related
tables (customers, products, orders, order lines with links between them), 1M facts by default.

    python -m bench.scale_bench                       # 1M facts; writes bench/results/scale.json and scale.md
    python -m bench.scale_bench --facts 20000 --no-write

Per size: the seconds of the build (a child process: `ontobuild --from-index INDEX --out OUT --json`), its peak
memory (the child's VmHWM, read from /proc while it runs), what it wrote (ontology.nt and store/ above
--big-graph-triples, sizes), the reasoner's checks (HermiT on the TBox and a sample, SPARQL constraint queries on
the whole store) and the seconds of one `ontoask --ontology OUT --sparql` count over the persisted store. The
machine is shared, so the figures carry the label given with --label."""

from __future__ import annotations

import argparse
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

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
FACTS_PER_ORDER = 11.7  # an order (2), three lines (9), a fifth of a customer (0.6), a tenth of a product (0.2)


def generate_index(facts: int, seed: int = 11):
    """An EntitiesIndex of about `facts` facts: Customer, Product, Order, OrderLine (disjoint classes), functional
    datatype properties, links by object properties, and a source per fact as a table export would give."""
    from ontobuild.ontology.entries import Fact
    from ontobuild.ontology.index import EntitiesIndex

    rnd = random.Random(seed)
    idx = EntitiesIndex(base_iri="http://example.org/shop#")
    tables = ["Customer", "Product", "Order", "OrderLine"]
    for c in tables:
        idx.add_class(c, roles=[f"a row of the {c.lower()} table"])
    for c in tables:
        idx.classes[c].disjoint = [d for d in tables if d != c]
    for name, kind, dom, rng in [("customerName", "datatype", "Customer", "xsd:string"),
                                 ("city", "datatype", "Customer", "xsd:string"),
                                 ("email", "datatype", "Customer", "xsd:string"),
                                 ("price", "datatype", "Product", "xsd:decimal"),
                                 ("weightKg", "datatype", "Product", "xsd:decimal"),
                                 ("placedBy", "object", "Order", "Customer"),
                                 ("orderDate", "datatype", "Order", "xsd:date"),
                                 ("ofOrder", "object", "OrderLine", "Order"),
                                 ("product", "object", "OrderLine", "Product"),
                                 ("quantity", "datatype", "OrderLine", "xsd:integer")]:
        idx.add_property(name, kind, domain=[dom], range=rng)
        if kind == "datatype":
            idx.properties[name].functional = True
    orders = max(1, round(facts / FACTS_PER_ORDER))
    customers, products = max(1, orders // 5), max(1, min(1000, orders // 10))

    def src(table: str, row: int, col: str) -> dict[str, str]:
        return {"file": f"{table}.csv", "path": f"/{row}/{col}"}

    for i in range(customers):
        n = f"customer{i}"
        idx.add_individual(n, classes=["Customer"], label=f"Customer {i}")
        idx.add_fact(n, Fact("customerName", literal=f"Customer {i}", source=src("customers", i, "name")))
        idx.add_fact(n, Fact("city", literal=f"City {rnd.randrange(200)}", source=src("customers", i, "city")))
        idx.add_fact(n, Fact("email", literal=f"c{i}@example.org", source=src("customers", i, "email")))
    for i in range(products):
        n = f"product{i}"
        idx.add_individual(n, classes=["Product"], label=f"Product {i}")
        idx.add_fact(n, Fact("price", literal=f"{rnd.uniform(1, 999):.2f}", source=src("products", i, "price")))
        idx.add_fact(n, Fact("weightKg", literal=f"{rnd.uniform(0.1, 80):.1f}", source=src("products", i, "weight")))
    line = 0
    for i in range(orders):
        n = f"order{i}"
        idx.add_individual(n, classes=["Order"], label=f"Order {i}")
        idx.add_fact(n, Fact("placedBy", object=f"customer{rnd.randrange(customers)}", source=src("orders", i, "customer")))
        idx.add_fact(n, Fact("orderDate", literal=f"2025-{rnd.randrange(1, 13):02d}-{rnd.randrange(1, 29):02d}",
                             source=src("orders", i, "date")))
        for _ in range(3):
            m = f"line{line}"
            idx.add_individual(m, classes=["OrderLine"], label=f"Line {line}")
            idx.add_fact(m, Fact("ofOrder", object=n, source=src("lines", line, "order")))
            idx.add_fact(m, Fact("product", object=f"product{rnd.randrange(products)}", source=src("lines", line, "product")))
            idx.add_fact(m, Fact("quantity", literal=str(rnd.randrange(1, 20)), source=src("lines", line, "qty")))
            line += 1
    return idx


def _script(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if not found:
        raise SystemExit(f"{name} is not installed (pip install -e .)")
    return found


def _peak_watch(proc: subprocess.Popen, out: dict[str, int]) -> None:
    while proc.poll() is None:
        try:
            for ln in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                if ln.startswith("VmHWM:"):
                    out["peak_mb"] = max(out.get("peak_mb", 0), round(int(ln.split()[1]) / 1024))
        except OSError:
            pass
        time.sleep(0.2)


def _size_mb(path: Path) -> float:
    if path.is_file():
        return round(path.stat().st_size / 1e6, 1)
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6, 1)


def run_size(facts: int, workdir: Path, extra: list[str]) -> dict[str, Any]:
    t = time.monotonic()
    idx = generate_index(facts)
    index_path = workdir / f"index_{facts}.json"
    index_path.write_text(idx.to_json(), "utf-8")
    counts = idx.counts()
    gen_s = time.monotonic() - t
    del idx
    out = workdir / f"out_{facts}"
    cmd = [_script("ontobuild"), "--from-index", str(index_path), "--out", str(out), "--json", *extra]
    t = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak: dict[str, int] = {}
    watcher = threading.Thread(target=_peak_watch, args=(proc, peak), daemon=True)
    watcher.start()
    stdout, stderr = proc.communicate()
    build_s = time.monotonic() - t
    watcher.join()
    if proc.returncode != 0:
        raise SystemExit(f"build failed ({proc.returncode}): {stderr[-2000:]}")
    stats = json.loads(stdout)
    t = time.monotonic()
    q = subprocess.run([_script("ontoask"), "--ontology", str(out), "--json", "--timeout", "120", "--sparql",
                        "SELECT (COUNT(*) AS ?n) WHERE { ?x a <http://example.org/shop#OrderLine> }"],
                       capture_output=True, text=True, timeout=600)
    ask_s = time.monotonic() - t
    lines = json.loads(q.stdout)["results"]["bindings"][0]["n"]["value"] if q.returncode == 0 else q.stderr[-300:]
    files = {f.name: _size_mb(f) for f in sorted(out.iterdir()) if not f.name.startswith(".")}
    return {"facts": counts["facts"], "individuals": counts["individuals"], "index_mb": _size_mb(index_path),
            "generate_s": round(gen_s, 1), "build_s": round(build_s, 1), "peak_mb": peak.get("peak_mb", 0),
            "triples": stats["counts"]["triples"], "outputs": stats.get("outputs"), "files_mb": files,
            "seconds": stats.get("seconds"), "reasoner": {"status": stats["reasoner"]["status"],
                                                          "checks": stats["reasoner"].get("checks", [])},
            "ontoask_count_s": round(ask_s, 1), "ontoask_orderlines": lines}


def table(rows: list[dict[str, Any]], label: str) -> str:
    out = [f"# Scale: `ontobuild --from-index` on generated related tables ({label})", "",
           "Command: `python -m bench.scale_bench` (see its docstring). No model calls: the index is generated.", "",
           "| facts | individuals | triples | build s | peak MB | outputs | reasoner | ontoask count s |",
           "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        checks = "; ".join(f"{c['check']}: {c['status']} ({c['seconds']} s)" for c in r["reasoner"]["checks"]) \
            or r["reasoner"]["status"]
        out.append(f"| {r['facts']} | {r['individuals']} | {r['triples']} | {r['build_s']} | {r['peak_mb']} | "
                   f"{', '.join(r['outputs']['files'])} | {checks} | {r['ontoask_count_s']} |")
    out += ["", "Seconds by step (stats.json):", ""]
    out += [f"- {r['facts']} facts: {json.dumps(r['seconds'])}; files (MB): {json.dumps(r['files_mb'])}"
            for r in rows]
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--facts", default="1000000", help="comma-separated sizes (facts)")
    ap.add_argument("--label", default="busy machine")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--no-reason", action="store_true")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="scale-bench-") as tmp:
        for size in [int(s) for s in args.facts.split(",")]:
            row = run_size(size, Path(tmp), ["--no-reason"] if args.no_reason else [])
            print(json.dumps(row), file=sys.stderr)
            rows.append(row)
    result = {"label": args.label, "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
              "rows": rows}
    md = table(rows, args.label)
    print(md)
    if not args.no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / "scale.json").write_text(json.dumps(result, indent=2) + "\n", "utf-8")
        (RESULTS / "scale.md").write_text(md, "utf-8")


if __name__ == "__main__":
    main()
