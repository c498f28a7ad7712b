"""How the closed question on two links to one table (ontouse.directions) did in a recorded Spider4SPARQL run: per
question whose trace holds a `direction` record, whether the model agreed with the plan, turned it round (both
orders of the columns agreeing, the turned plan passing every check) or disagreed with itself, and whether the
answer was right. Read from bench/results/ask_spider.json and its trace folder (`traces`, under outcomes/: traces
are not committed, so this runs where the benchmark ran).

    python -m bench.direction_figures                  # the recorded run's trace folder
    python -m bench.direction_figures --results bench/results/ask_spider_3db.json

Writes bench/results/directions.md (with --write); prints the table."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


def direction_records(trace: Path) -> dict[str, dict]:
    """question text -> its `direction` record, from every trace file of a run's folder."""
    out: dict[str, dict] = {}
    for path in sorted(trace.glob("*.log")) + sorted(trace.glob("*.jsonl")):
        question = ""
        for line in path.read_text("utf-8").splitlines():
            rec = json.loads(line)
            if rec.get("kind") == "question":
                question = rec["question"]
            elif rec.get("kind") == "direction" and question:
                out[question] = rec
    return out


def outcome(rec: dict, repaired: bool) -> str:
    chosen = rec.get("chosen") or []
    if not chosen or not chosen[0]:
        return "no choice"
    if chosen[0] == rec["used"]:
        return "agreed with the plan"
    if len(set(chosen)) != 1:
        return "disagreed with itself: kept"
    return "turned round" if repaired else "named the other: turned plan failed a check, kept"


def figures(results: Path, trace: Path | None = None) -> tuple[str, dict]:
    run = json.loads(results.read_text("utf-8"))
    folder = trace or Path(run["traces"])
    found = direction_records(folder)
    counts: Counter[tuple[str, str]] = Counter()
    for q in run["questions"]:
        rec = found.get(q["question"])
        if rec is None:
            continue
        state = "right" if q["correct"] else "stated wrong" if q["state"] == "answered" else q["state"]
        counts[(outcome(rec, "direction" in (q.get("repairs") or [])), state)] += 1
    kinds = sorted({k for k, _ in counts})
    shown = results.relative_to(REPO) if results.is_relative_to(REPO) else results
    states = ["right", "stated wrong", "unsure", "no_data", "error"]
    lines = [f"# The closed question on two links to one table: {results.name} at {run.get('commit', '?')}", "",
             f"Questions asked it: {sum(counts.values())} of {len(run['questions'])}. "
             f"Command: `python -m bench.direction_figures --results {shown}`.", "",
             "| the model's choice | " + " | ".join(states) + " |", "|---" * (len(states) + 1) + "|"]
    for k in kinds:
        lines.append(f"| {k} | " + " | ".join(str(counts[(k, s)]) for s in states) + " |")
    return "\n".join(lines) + "\n", {f"{k} / {s}": n for (k, s), n in sorted(counts.items())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", type=Path, default=RESULTS / "ask_spider.json")
    ap.add_argument("--trace", type=Path, default=None, help="the run's trace folder (default: the one it records)")
    ap.add_argument("--write", action="store_true", help="write bench/results/directions.md")
    args = ap.parse_args(argv)
    text, _ = figures(args.results.resolve(), args.trace)
    print(text)
    if args.write:
        (RESULTS / "directions.md").write_text(text, "utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
