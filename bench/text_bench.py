"""Text benchmark: ontobuild (embedded model) on public text -> facts benchmarks written by others
(../shared/data/textbench, development parts; README there), scored by their own scorers.

    python -m bench.text_bench                         # both parts
    python -m bench.text_bench --only t2k              # Text2KGBench: 10 vocabularies x the first 50 sentences
    python -m bench.text_bench --only mine             # MINE: the 31 essays
    python -m bench.text_bench --only t2k --vocab ont_4_book --limit 10   # a slice, for development
    python -m bench.text_bench --reuse                 # score the outcome folders already built, no build
    python -m bench.text_bench --label "before the rewrite"

Text2KGBench: one build per vocabulary, its sentences as one text file (one sentence per paragraph, as the
benchmark's make_text.py writes them) with the vocabulary's ontology.ttl given as --schema; scored with the
benchmark's score.py (micro precision, recall, F1 over all gold triples and all predicted facts).
MINE: one build per essay, no vocabulary; scored with its score.py (coverage of the 15 reference facts).
Every build is also checked for names a person cannot ask for (`bench.names_check`): classes named by a
verb, a function word or Thing, properties with a cut word.

Outcome folders: outcomes/textbench/<vocabulary> and outcomes/mine/<essay>. Results: bench/results/text.json
and text.md. The figures are development figures: these are the development parts."""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench.names_check import check_index

ROOT = Path(__file__).resolve().parents[1]
TEXTBENCH = ROOT / "../shared/data/textbench"
T2K = TEXTBENCH / "text2kgbench"
MINE = TEXTBENCH / "mine"
RESULTS = ROOT / "bench" / "results"


def _git_commit() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                               capture_output=True, text=True).stdout.strip()
        return head + (" (with local changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _load_scorer(path: Path, name: str) -> Any:
    """The benchmark's own scorer, imported from its file (standard library only)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(files: list[Path], out: Path, model: Any, schema: list[Path] | None) -> dict[str, Any]:
    from ontobuild.pipeline import run_build
    t0 = time.perf_counter()
    try:
        stats = run_build(files, out=out, model=model, force=True, schema=schema, reason=False)
        error = ""
    except Exception as e:  # a failed build is a result of the benchmark, recorded, never a crash of it
        stats, error = {}, f"{type(e).__name__}: {e}"
    return {"seconds": round(time.perf_counter() - t0, 1), "error": error,
            "llm_calls": (stats.get("llm") or {}).get("calls"),
            "prompt_tokens": (stats.get("llm") or {}).get("prompt_tokens"),
            "completion_tokens": (stats.get("llm") or {}).get("completion_tokens")}


def _built(out: Path) -> dict[str, Any]:
    """What a build already in `out` cost, from its stats.json (for --reuse): seconds of all its steps, calls and
    tokens."""
    try:
        stats = json.loads((out / "stats.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    llm = stats.get("llm") or {}
    return {"seconds": round(sum((stats.get("seconds") or {}).values()), 1), "error": "", "reused": True,
            "llm_calls": llm.get("calls"), "prompt_tokens": llm.get("prompt_tokens"),
            "completion_tokens": llm.get("completion_tokens")}


def _rows(path: Path, limit: int) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]
    return rows[:limit] if limit else rows


def run_t2k(model: Any, vocabs: list[str], limit: int, reuse: bool) -> dict[str, Any]:
    scorer = _load_scorer(T2K / "score.py", "t2k_score")
    out_root = ROOT / "outcomes" / "textbench"
    per: dict[str, Any] = {}
    totals = {"gold": 0, "matched": 0, "predicted": 0, "predicted_correct": 0, "predicted_in_ontology": 0}
    for vocab in vocabs:
        folder = T2K / "dev" / vocab
        rows = _rows(folder / "sentences.jsonl", limit)
        out = out_root / vocab
        build: dict[str, Any] = {}
        if not reuse:
            out_root.mkdir(parents=True, exist_ok=True)
            text = out_root / f"{vocab}.txt"  # as the benchmark's make_text.py writes it
            text.write_text("\n\n".join(r["text"] for r in rows) + "\n", encoding="utf-8")
            build = _build([text], out, model, [folder / "ontology.ttl"])
        else:
            build = _built(out)
        index_path = out / "entities_index.json"
        if not index_path.is_file():
            per[vocab] = {"build": build, "error": build.get("error") or "no index"}
            continue
        index = json.loads(index_path.read_text(encoding="utf-8"))
        ontology = json.loads((folder / "ontology.json").read_text(encoding="utf-8"))
        counts, scores, results, unmatched = scorer.score(index, rows, ontology)
        for k in totals:
            totals[k] += counts[k]
        per[vocab] = {"sentences": len(rows), "counts": counts, "scores": scores, "build": build,
                      "names": check_index(index),
                      "missed": [f"{r['gold']['s']} | {r['gold']['rel']} | {r['gold']['o']}" for r in results
                                 if r["status"] != "MATCHED"][:60],
                      "unmatched": [f"{p['subject']} | {p['property']} | {p['object']}" for p in unmatched][:60]}
        s = scores
        print(f"{vocab}: P {s['precision']:.3f} R {s['recall']:.3f} F1 {s['f1']:.3f} "
              f"(predicted {counts['predicted']}, gold {counts['gold']}, matched {counts['matched']})"
              + (f" [{build['seconds']} s, {build['llm_calls']} calls]" if build else ""), flush=True)
    p = totals["predicted_correct"] / totals["predicted"] if totals["predicted"] else 0.0
    r = totals["matched"] / totals["gold"] if totals["gold"] else 0.0
    micro = {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
             "conformance": round(totals["predicted_in_ontology"] / totals["predicted"], 4) if totals["predicted"]
             else 0.0}
    print(f"Text2KGBench micro: P {micro['precision']:.3f} R {micro['recall']:.3f} F1 {micro['f1']:.3f}", flush=True)
    return {"limit": limit, "vocabularies": per, "totals": totals, "micro": micro}


def run_mine(model: Any, essays: list[str], reuse: bool) -> dict[str, Any]:
    scorer = _load_scorer(MINE / "score.py", "mine_score")
    out_root = ROOT / "outcomes" / "mine"
    per: dict[str, Any] = {}
    covered = total = 0
    for essay in essays:
        out = out_root / essay
        build: dict[str, Any] = {}
        if not reuse:
            out_root.mkdir(parents=True, exist_ok=True)
            build = _build([MINE / "dev" / "docs" / f"{essay}.txt"], out, model, None)
        gold = json.loads((MINE / "dev" / "gold" / f"{essay}.json").read_text(encoding="utf-8"))
        index_path = out / "entities_index.json"
        index = json.loads(index_path.read_text(encoding="utf-8")) if index_path.is_file() else {}
        rows, n = scorer.score_doc(index, gold)
        k = sum(r["covered"] for r in rows)
        covered, total = covered + k, total + len(rows)
        per[essay] = {"covered": k, "facts": len(rows), "statements": n, "build": build,
                      "names": check_index(index) if index else {},
                      "missed": [r["fact"] for r in rows if not r["covered"]]}
        print(f"{essay}: {k}/{len(rows)} covered, {n} statements"
              + (f" [{build['seconds']} s, {build['llm_calls']} calls]" if build else ""), flush=True)
    coverage = covered / total if total else 0.0
    print(f"MINE coverage {coverage:.3f} ({covered}/{total})", flush=True)
    return {"essays": per, "covered": covered, "facts": total, "coverage": round(coverage, 4)}


def _names_total(parts: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, list[str]] = {"verb_classes": [], "function_word_classes": [], "thing_classes": [],
                                 "cut_properties": []}
    for part in parts:
        for k in out:
            out[k] += part.get(k, [])
    return {k: sorted(set(v)) for k, v in out.items()}


def write_markdown(results: dict[str, Any], path: Path) -> None:
    lines = ["# Text benchmark (development parts of Text2KGBench and MINE)", "",
             "Command: `python -m bench.text_bench`; the docstring of bench/text_bench.py says how each part is "
             "built and scored. Development figures: these sets are the benchmarks' development parts.", ""]
    for run in results.get("runs", []):
        lines += [f"## {run['label']}", "", f"Commit {run['commit']}; {run['date']}; machine {run['machine']}; "
                  f"model {run['model']}.", ""]
        if run.get("note"):  # what the run's figures mean, written by hand into text.json (kept when rewritten)
            lines += [run["note"], ""]
        t2k = run.get("t2k")
        if t2k:
            m = t2k["micro"]
            lines += [f"Text2KGBench, first {t2k['limit']} sentences of each vocabulary, one build per vocabulary "
                      f"with --schema: micro precision {m['precision']:.3f}, recall {m['recall']:.3f}, "
                      f"F1 {m['f1']:.3f}, conformance {m['conformance']:.3f}.", "",
                      "| vocabulary | precision | recall | F1 | predicted | gold | matched | seconds | LLM calls |",
                      "|---|---|---|---|---|---|---|---|---|"]
            for v, d in t2k["vocabularies"].items():
                if "scores" not in d:
                    lines.append(f"| {v} | error: {d.get('error', '')} | | | | | | | |")
                    continue
                s, c, b = d["scores"], d["counts"], d.get("build") or {}
                lines.append(f"| {v} | {s['precision']:.3f} | {s['recall']:.3f} | {s['f1']:.3f} | {c['predicted']} "
                             f"| {c['gold']} | {c['matched']} | {b.get('seconds', '')} | {b.get('llm_calls', '')} |")
            lines.append("")
        mine = run.get("mine")
        if mine:
            lines += [f"MINE, {len(mine['essays'])} essays, one build each: coverage {mine['coverage']:.3f} "
                      f"({mine['covered']}/{mine['facts']} reference facts; the benchmark's lexical proxy scorer).",
                      ""]
        names = run.get("names")
        if names is not None:
            bad = {k: v for k, v in names.items() if v}
            lines += ["Names a person cannot ask for, over every build of this run (bench/names_check.py): " +
                      ("none." if not bad else "; ".join(f"{k}: {', '.join(v[:20])}" for k, v in bad.items())), ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["t2k", "mine"], action="append")
    ap.add_argument("--vocab", action="append", help="a Text2KGBench vocabulary folder name (repeatable)")
    ap.add_argument("--essay", action="append", help="a MINE essay id (repeatable)")
    ap.add_argument("--limit", type=int, default=50, help="sentences per vocabulary (default 50)")
    ap.add_argument("--reuse", action="store_true", help="score the outcome folders already built")
    ap.add_argument("--label", default="")
    ap.add_argument("--no-save", action="store_true", help="print only; results files unchanged")
    a = ap.parse_args(argv)
    parts = a.only or ["t2k", "mine"]
    model = None
    if not a.reuse:
        from ontocore.llm import open_model
        model = open_model({"backend": "local"})
    run: dict[str, Any] = {"label": a.label or ("reused builds" if a.reuse else "run"), "commit": _git_commit(),
                           "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
                           "machine": f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores",
                           "model": getattr(model, "model_name", "") or "embedded (local)"}
    checks = []
    if "t2k" in parts:
        vocabs = a.vocab or sorted(p.name for p in (T2K / "dev").iterdir() if p.is_dir())
        run["t2k"] = run_t2k(model, vocabs, a.limit, a.reuse)
        checks += [d["names"] for d in run["t2k"]["vocabularies"].values() if d.get("names")]
    if "mine" in parts:
        essays = a.essay or sorted(p.stem for p in (MINE / "dev" / "docs").glob("*.txt"))
        run["mine"] = run_mine(model, essays, a.reuse)
        checks += [d["names"] for d in run["mine"]["essays"].values() if d.get("names")]
    run["names"] = _names_total(checks)
    bad = {k: v for k, v in run["names"].items() if v}
    print("names check: " + ("clean" if not bad else json.dumps(bad)[:2000]))
    if not a.no_save:
        RESULTS.mkdir(parents=True, exist_ok=True)
        path = RESULTS / "text.json"
        saved = json.loads(path.read_text()) if path.is_file() else {"runs": []}
        saved["runs"].append(run)
        path.write_text(json.dumps(saved, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        write_markdown(saved, RESULTS / "text.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
