"""Peak memory of a build of big table exports, and where in the build it is reached: `ontobuild` over the generated
exports of bench/export_bench.py (customers, products, orders, order lines: 1M rows in all by default) in a child
process, its resident memory sampled every quarter second (VmRSS, VmHWM from /proc) beside its -v log.

    python -m bench.memory_bench                                   # this checkout; appends to bench/results/memory.json
    python -m bench.memory_bench --src /path/to/other/src --label "main before"

Per run: the peak (VmHWM), the seconds, the model calls, and the highest resident memory while the model was loaded
(profiles and decisions) and after it was released (the rows written, the store loaded, the checks), from the log's
"model released" line. Memory does not depend on the machine's load; seconds do (the label says which it was)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.export_bench import SHARE, generate
from bench.report import RESULTS, run_info, write_json


def _sample(proc: subprocess.Popen, samples: list[tuple[float, int, int]], t0: float) -> None:
    while proc.poll() is None:
        try:
            fields = dict(ln.split(":", 1) for ln in Path(f"/proc/{proc.pid}/status").read_text().splitlines()
                          if ln.startswith(("VmRSS", "VmHWM")))
            samples.append((time.monotonic() - t0, int(fields["VmRSS"].split()[0]) // 1024,
                            int(fields["VmHWM"].split()[0]) // 1024))
        except (OSError, KeyError, ValueError):
            pass
        time.sleep(0.25)


def run(rows: int, src: Path | None, workdir: Path) -> dict[str, Any]:
    data = workdir / f"data_{rows}"
    if not (data / "order_lines.csv").exists():
        generate(rows, data)
    out = workdir / f"out_{rows}"
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, **({"PYTHONPATH": str(src)} if src else {}))
    cmd = [sys.executable, "-m", "ontobuild", *[str(data / f"{t}.csv") for t in SHARE], "--out", str(out), "--json",
           "-v", "--max-input-mb", "5000", "--ontology-iri", "http://example.org/shopdata"]
    log_path = workdir / f"build_{rows}.log"
    t0, started = time.monotonic(), datetime.now()
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=log, text=True, env=env)
        samples: list[tuple[float, int, int]] = []
        watcher = threading.Thread(target=_sample, args=(proc, samples, t0), daemon=True)
        watcher.start()
        stdout, _ = proc.communicate()
        watcher.join()
    seconds = time.monotonic() - t0
    if proc.returncode != 0:
        return {"rows": rows, "failed": proc.returncode, "log": log_path.read_text()[-2000:]}
    stats = json.loads(stdout)
    released = _released_at(log_path.read_text(), started)
    with_model = [s[1] for s in samples if released is None or s[0] < released]
    after = [s[1] for s in samples if released is not None and s[0] >= released]
    return {"rows": rows, "peak_mb": max(s[2] for s in samples), "seconds": round(seconds, 1),
            "llm_calls": stats["llm"]["calls"], "max_rss_mb_with_model": max(with_model, default=0),
            "max_rss_mb_after_release": max(after, default=0), "counts": stats.get("counts"),
            "build_seconds": stats.get("seconds")}


def _released_at(log: str, started: datetime) -> float | None:
    """Seconds from the start when the log says the model was released (its lines carry the clock time)."""
    m = re.search(r"^(\d\d):(\d\d):(\d\d) INFO ontocore.llm: model released", log, re.M)
    if m is None:
        return None
    at = started.replace(hour=int(m.group(1)), minute=int(m.group(2)), second=int(m.group(3)), microsecond=0)
    return (at - started).total_seconds() % 86400


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--src", default=None, help="the package sources to run (PYTHONPATH of the child)")
    ap.add_argument("--label", default="busy machine", help="what the run measures (which code, which machine)")
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="memory-bench-"))
    row = run(args.rows, Path(args.src) if args.src else None, workdir)
    info = run_info(None, sys.argv[1:] if argv is None else argv)
    info["command"] = " ".join(["python", "-m", "bench.memory_bench", *(sys.argv[1:] if argv is None else argv)])
    row.update(label=args.label, run=info)
    print(json.dumps(row, indent=1))
    if not args.no_write:
        path = RESULTS / "memory.json"
        runs = json.loads(path.read_text("utf-8"))["runs"] if path.exists() else []
        write_json(path, {"runs": [*runs, row]})


if __name__ == "__main__":
    main()
