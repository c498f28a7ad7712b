"""The multi-table build benchmark: every multi-table export we have built end to end, where an internal error fails it.

Exports: the ten Spider4SPARQL databases' CSV exports (../shared/data/spider4sparql/tables/DB/csv: data others
wrote), the tables of our own three domains (bench/domains: development data) and the made-up exports of
bench/exports (shared reference names: several tables referring to one table under the name of its own id column;
composite keys; a repeated header). Code decides what it can (keys, references named after their target, names); the
model decides the rest (each table's mapping, the references code cannot decide) and its real replies are recorded in
bench/recordings/multitable/EXPORT.jsonl (ontocore.savedcalls: keyed by the whole request), so the benchmark runs
without a model, in CI (tests/bench/test_multitable_bench.py): a request that was not recorded fails the export as clearly
as an internal error does.

    python -m bench.multitable_bench                 # replay every export; bench/results/multitable.{json,md}
    python -m bench.multitable_bench --record        # the embedded model answers what is not recorded (appended)
    python -m bench.multitable_bench --export rentals --no-write

Per export: the tables and rows read, the references found and how each was decided, the links made (property,
records linked) and the link tables' pairs, model calls asked and replayed, seconds, and the error of a failed build
("internal" for anything that is not an OntoError: a bug)."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
RECORDINGS = REPO / "bench" / "recordings" / "multitable"
SPIDER_TABLES = (REPO / ".." / "shared" / "data" / "spider4sparql" / "tables").resolve()
SPIDER_DBS = ("battle_death", "car_1", "course_teach", "dog_kennels", "flight_2", "museum_visit", "network_1",
              "pets_1", "student_transcripts_tracking", "world_1")
TABLE_SUFFIXES = (".csv", ".tsv", ".json", ".jsonl")


@dataclass
class Export:
    name: str
    origin: str  # "spider4sparql" (others' data) | "domain" | "made-up"
    files: list[Path] = field(default_factory=list)

    @property
    def recording(self) -> Path:
        return RECORDINGS / f"{self.name}.jsonl"


def exports() -> list[Export]:
    """Every multi-table export we have; the Spider4SPARQL ones only when ../shared is there."""
    out = []
    for db in SPIDER_DBS:
        folder = SPIDER_TABLES / db / "csv"
        if folder.is_dir():
            out.append(Export(db, "spider4sparql", sorted(folder.glob("*.csv"))))
    for kind, root in (("domain", REPO / "bench" / "domains"), ("made-up", REPO / "bench" / "exports")):
        for folder in sorted(p for p in root.iterdir() if p.is_dir()):
            files = sorted(p for p in folder.iterdir() if p.suffix in TABLE_SUFFIXES and p.name != "gold.json")
            out.append(Export(folder.name, kind, files))
    return out


_LOCAL: list[Any] = []  # the embedded model, opened once for every export recorded


def _local_model() -> Any:
    if not _LOCAL:
        from ontocore.llm import LocalChat

        _LOCAL.append(LocalChat())
    return _LOCAL[0]


def build_model(export: Export, record: bool) -> Any:
    """The model of an export's build: its recorded exchanges, answered by key; with `record`, the embedded model
    answers what is not recorded and the exchange is appended (also of a decision the model failed to take)."""
    from ontocore.llm.localmodel import MODEL_NAME
    from ontocore.savedcalls import SavedCalls, SavingChat, refuse_to_ask

    RECORDINGS.mkdir(parents=True, exist_ok=True)
    calls = SavedCalls(export.recording)
    if record:
        return SavingChat(calls, opener=_local_model, backend="local", name=MODEL_NAME, keep_undecided=True)
    return SavingChat(calls, opener=refuse_to_ask(f"bench/recordings/multitable/{export.name}.jsonl"),
                      backend="local", name=MODEL_NAME)


def run_export(export: Export, out_root: Path, record: bool = False, reason: bool = False) -> dict[str, Any]:
    """Build one export; its row of the results."""
    from ontobuild.pipeline import run_build
    from ontocore.errors import OntoError

    model = build_model(export, record)
    row: dict[str, Any] = {"export": export.name, "origin": export.origin, "files": [f.name for f in export.files]}
    started = time.perf_counter()
    try:
        stats = run_build(export.files, out=out_root / export.name, model=model, reason=reason)
    except OntoError as e:
        row.update(status="error", error=f"{type(e).__name__}: {' '.join(str(e).split())[:400]}")
    except Exception as e:  # noqa: BLE001 - an internal error is what this benchmark looks for
        row.update(status="internal error", error=f"{type(e).__name__}: {' '.join(str(e).split())[:400]}",
                   traceback=traceback.format_exc()[-2000:])
    else:
        coverage = json.loads((out_root / export.name / "coverage.json").read_text("utf-8"))
        row.update(status="ok", tables=stats.get("inputs", {}).get("tables", {}),
                   warnings=stats.get("inputs", {}).get("warnings", []), counts=stats.get("counts", {}),
                   cells=coverage["json_leaves"], references=_references(coverage["references"]),
                   reasoner=(stats.get("reasoner") or {}).get("status"))
    row["calls"] = {"asked": model.usage.calls, "replayed": model.usage.replayed}
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def _references(entries: list[dict[str, Any]]) -> dict[str, Any]:
    """What the references step decided and linked, from coverage.json `references`."""
    decided = [e for e in entries if "confirmed" in e]
    links = [{"reference": e["reference"], "property": e["property"], "inverse": e.get("inverse", ""),
              "linked": e["linked"], "unmatched": e["unmatched"]} for e in entries if "linked" in e]
    pairs = [{"link_table": e["link_table"], "property": e["property"], "pairs": e["pairs"]}
             for e in entries if "link_table" in e]
    return {"candidates": len(decided), "confirmed": sum(1 for e in decided if e["confirmed"]),
            "by_code": sum(1 for e in decided if e.get("decided_by") == "code"),
            "by_model": sum(1 for e in decided if e.get("decided_by") == "model"),
            "rejected": [e["reference"] for e in decided if not e["confirmed"]], "links": links,
            "link_tables": pairs}


def run(names: list[str] | None = None, record: bool = False, reason: bool = False,
        out_root: Path | None = None) -> list[dict[str, Any]]:
    chosen = [e for e in exports() if not names or e.name in names]
    with tempfile.TemporaryDirectory(prefix="multitable-") as tmp:
        root = out_root or Path(tmp)
        rows = []
        for export in chosen:
            rows.append(run_export(export, root, record, reason))
            r = rows[-1]
            print(f"{export.name}: {r['status']} ({r['seconds']} s, {r['calls']['asked']} asked, "
                  f"{r['calls']['replayed']} replayed){' ' + r['error'] if r.get('error') else ''}", file=sys.stderr)
    return rows


def markdown(rows: list[dict[str, Any]], info: dict[str, Any]) -> str:
    lines = ["# Multi-table builds: every export we have, built end to end",
             "",
             f"Command: `{info['command']}` at {info['commit'][:7]}{' (uncommitted changes)' if info['dirty'] else ''}"
             f", {info['date']}. Model decisions replayed from bench/recordings/multitable (recorded with the "
             "embedded model); code decides the rest. The reasoner is not run (--reason runs it).",
             "",
             "| export | origin | status | tables | rows | references (by code / model) | links | cells kept | "
             "calls asked / replayed | s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        refs = r.get("references") or {}
        links = sum(x["linked"] for x in refs.get("links", [])) + sum(x["pairs"] for x in refs.get("link_tables", []))
        cells = r.get("cells") or {}
        lines.append(f"| {r['export']} | {r['origin']} | {r['status']} | {len(r.get('tables') or {})} | "
                     f"{sum((r.get('tables') or {}).values())} | {refs.get('confirmed', '-')} of "
                     f"{refs.get('candidates', '-')} ({refs.get('by_code', '-')} / {refs.get('by_model', '-')}) | "
                     f"{links} | {cells.get('covered', '-')} of {cells.get('total', '-')} | "
                     f"{r['calls']['asked']} / {r['calls']['replayed']} | {r['seconds']} |")
    lines += ["", "Links each export got (column -> the table it refers to: the property, records linked):", ""]
    for r in rows:
        refs = r.get("references") or {}
        got = [f"{x['reference']}: `{x['property']}` ({x['linked']})" for x in refs.get("links", [])]
        got += [f"{x['link_table']} pairs: `{x['property']}` ({x['pairs']})" for x in refs.get("link_tables", [])]
        lines.append(f"- {r['export']}: " + ("; ".join(got) if got else "none") +
                     (f" — error: {r['error']}" if r.get("error") else ""))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--export", action="append", help="only this export (repeatable)")
    ap.add_argument("--record", action="store_true", help="ask the embedded model what is not recorded")
    ap.add_argument("--reason", action="store_true", help="run the reasoner too")
    ap.add_argument("--no-write", action="store_true", help="print the results, do not write bench/results")
    args = ap.parse_args(argv)
    rows = run(args.export, record=args.record, reason=args.reason)
    sys.path.insert(0, str(REPO))
    from bench.report import run_info, write_json

    info = run_info(None, sys.argv[1:] if argv is None else argv)
    info["command"] = shlex.join(["python", "-m", "bench.multitable_bench", *(sys.argv[1:] if argv is None else argv)])
    if not args.no_write and not args.export:
        write_json(RESULTS / "multitable.json", {"run": info, "exports": rows})
        (RESULTS / "multitable.md").write_text(markdown(rows, info), "utf-8")
    print(markdown(rows, info))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
