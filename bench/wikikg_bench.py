"""WikiKG benchmark: `ontoask` (embedded model) over a Wikidata-shaped OWL graph made by others
(../shared/data/wikikg: the README there; ten vocabularies in one graph, individuals as values, many-valued object
properties, typed dates, one class hierarchy) and its development questions with gold answers (lookup, reverse
"which things have X as R", counts, yes/no, class counts, comparisons of two named things, "both X and Y").

    python -m bench.wikikg_bench --label after                      # all 200 questions
    python -m bench.wikikg_bench --label after --per-type 4         # the first 4 questions of each type
    python -m bench.wikikg_bench --label after --ids wikikg-dev-001,wikikg-dev-117
    python -m bench.wikikg_bench --label replay --replay after      # no model: the plans of run "after" again
    python -m bench.wikikg_bench --label oracle --oracle            # no model: plans written from the gold

`--oracle` answers each question with a plan code writes from the question's gold relation and the things it
names (the plan a model that read the view right would write): it measures the code between the plan and the
answer (reading, repairs, checks, SPARQL, scoring) on every question shape, not the model.

Scoring is the data set's own scorer (../shared/data/wikikg/score.py, `judge`): sets by every row matching a gold
item and every gold item matched; yes/no by the answer's `boolean`; counts by the number. An answer is *stated*
when its state is "answered"; stated and not right is *stated but wrong*.

Besides right / stated but wrong per type, a run counts the plans that reached the store naming a table or a column
that is not in the view (`view_misses_at_store`: read from each answer's final plan against the answerer's view; it
must be 0), and the names the model wrote that the view lacks (`view_misses_written`, from the answer records: each
repaired by code, re-asked, or ended in "No data available").

Results: bench/results/wikikg.json and wikikg.md (each label's run beside the others), and the answers in the
scorer's format in outcomes/wikikg_<label>/answers.json (`python3 ../shared/data/wikikg/score.py FILE
../shared/data/wikikg/dev/questions.json -v`), the answerer's trace beside them (trace.jsonl). A development
figure: the answerer was improved on this set."""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
WIKIKG = (REPO / ".." / "shared" / "data" / "wikikg").resolve()
GRAPH = WIKIKG / "dev" / "kg.ttl"
QUESTIONS = WIKIKG / "dev" / "questions.json"
RESULTS = REPO / "bench" / "results"


def scorer() -> Any:
    """The data set's own scorer module (standard library only)."""
    spec = importlib.util.spec_from_file_location("wikikg_score", WIKIKG / "score.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def select(questions: list[dict[str, Any]], per_type: int | None, ids: str | None) -> list[dict[str, Any]]:
    if ids:
        wanted = {x.strip() for x in ids.split(",") if x.strip()}
        return [q for q in questions if q["id"] in wanted]
    if per_type:
        seen: dict[str, int] = {}
        out = []
        for q in questions:
            if seen.get(q["type"], 0) < per_type:
                seen[q["type"]] = seen.get(q["type"], 0) + 1
                out.append(q)
        return out
    return questions


def plan_names(plan: Any) -> list[tuple[str, str]]:
    """(table, column) of every name a plan (as data: plan.to_dict) reads; column "" for a table itself."""
    out: list[tuple[str, str]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kind = node.get("node")
            if kind == "Source" and isinstance(node.get("table"), str):
                out.append((node["table"], ""))
            elif kind == "Col" and isinstance(node.get("table"), str):
                out.append((node["table"], node.get("column", "")))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(plan)
    return out


def view_misses(plan: Any, schema: Any) -> list[str]:
    """The names of a plan that the view does not have."""
    missing = []
    for table, column in plan_names(plan):
        t = schema.table(table)
        if t is None:
            missing.append(table)
        elif column and t.column(column) is None:
            missing.append(f"{table}.{column}")
    return sorted(set(missing))


def oracle_plans(questions: list[dict[str, Any]], answerer: Any) -> dict[str, str]:
    """The plan of each question written from its gold relation and named things (see the module docstring)."""
    from rdflib import RDF, URIRef

    schema, graph = answerer.schema, answerer.store.graph

    def of_thing(iri: str) -> Any:
        tables = [schema.by_class(t) for t in graph.objects(URIRef(iri), RDF.type)]
        tables = [t for t in tables if t is not None]
        return min(tables, key=lambda t: t.count) if tables else None

    def text(s: str) -> str:
        return "'" + s.replace("'", "''") + "'"

    plans = {}
    for q in questions:
        sub, rel = q.get("subtype", q["type"]), q.get("relation") or {}
        things = [m for m in q["mentions"] if "#" not in m["iri"]]
        classes = [m for m in q["mentions"] if "#" in m["iri"]]
        prop = URIRef(rel["iri"]) if rel else None
        try:
            if q["type"] == "class_count":
                plans[q["id"]] = f"SELECT COUNT(*) FROM {schema.by_class(URIRef(classes[0]['iri'])).name}"
                continue
            if sub in ("lookup", "count_values", "before", "earlier") or q["type"] == "verify":
                subject = things[-1] if q["type"] == "verify" else things[0]
                t = of_thing(subject["iri"])
            else:
                t = schema.by_class(URIRef(classes[0]["iri"])) if classes else of_thing(things[0]["iri"])
            c = t.column_for(prop)
            v = schema.table(c.target) if c.target else None

            def named(alias: str, label: str) -> tuple[str, str]:
                if v is None:
                    return "", f"X.{c.name} = {text(label)}"
                return f" JOIN {v.name} {alias} ON X.{c.name} = {alias}.iri", f"{alias}.label = {text(label)}"

            if sub == "lookup":
                sql = f"SELECT X.{c.name} FROM {t.name} X WHERE X.label = {text(things[0]['label'])}"
            elif sub == "count_values":
                sql = f"SELECT COUNT(X.{c.name}) FROM {t.name} X WHERE X.label = {text(things[0]['label'])}"
            elif q["type"] == "verify":
                j, w = named("Y", things[0]["label"])
                sql = f"SELECT COUNT(*) FROM {t.name} X{j} WHERE X.label = {text(things[-1]['label'])} AND {w}"
            elif sub == "before":
                sql = (f"SELECT COUNT(*) FROM {t.name} A, {t.name} B WHERE A.label = {text(things[0]['label'])} AND "
                       f"B.label = {text(things[1]['label'])} AND A.{c.name} < B.{c.name}")
            elif sub == "earlier":
                sql = (f"SELECT label FROM {t.name} WHERE label IN ({text(things[0]['label'])}, "
                       f"{text(things[1]['label'])}) ORDER BY {c.name} LIMIT 1")
            elif q["type"] == "intersection":
                (j1, w1), (j2, w2) = named("Y1", things[0]["label"]), named("Y2", things[1]["label"])
                sql = f"SELECT X.iri FROM {t.name} X{j1}{j2} WHERE {w1} AND {w2}"
            else:  # reverse, count_subjects
                j, w = named("Y", things[0]["label"])
                sql = f"SELECT {'COUNT(*)' if q['type'] == 'count' else 'X.iri'} FROM {t.name} X{j} WHERE {w}"
        except (AttributeError, IndexError, KeyError):
            sql = ""
        plans[q["id"]] = sql
    return plans


def run(model: Any, questions: list[dict[str, Any]], after_each: Any = None,
        replay: dict[str, str] | None = None, oracle: bool = False, trace: Path | None = None) -> list[dict[str, Any]]:
    from bench.report import ask
    from ontocore.trace import Trace
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    judge = scorer().judge
    started = time.perf_counter()
    if trace is not None and trace.exists():
        trace.unlink()
    answerer = AnswerLoop(GraphStore.from_paths([GRAPH]), model, trace=Trace(trace) if trace else None)
    print(f"view: {len(answerer.schema.tables)} tables in {time.perf_counter() - started:.1f} s", file=sys.stderr,
          flush=True)
    if oracle:
        replay = oracle_plans(questions, answerer)
    rows = []
    for i, q in enumerate(questions, 1):
        t = time.perf_counter()
        if replay is not None:
            ans = answerer.answer_sql(q["query"], replay.get(q["id"], ""))
        else:
            ans = ask(answerer, q["query"])
        record = ans.to_dict()
        ok, got = judge(q, record)
        misses = view_misses(ans.plan, answerer.schema) if ans.plan and ans.sparql else []
        row = {"id": q["id"], "type": q["type"], "subtype": q.get("subtype", ""), "question": q["query"],
               "gold": (q.get("gold_labels") or q["gold"])[:10], "n_gold": len(q["gold"]), "right": bool(ok),
               "got": got, "answer": ans.answer[:300], "state": ans.state, "boolean": ans.boolean,
               "stated_wrong": ans.state == "answered" and not ok, "rows": record["rows"][:20], "sql": ans.sql,
               "repairs": ans.repairs, "checks": ans.checks, "error": ans.error,
               "view_misses_at_store": misses, "view_misses_written": getattr(ans, "view_misses", []),
               "llm_calls": ans.llm_calls, "prompt_tokens": ans.prompt_tokens,
               "prompt_evaluated": ans.prompt_evaluated, "completion_tokens": ans.completion_tokens,
               "seconds": round(ans.seconds, 2), "wall_seconds": round(time.perf_counter() - t, 2),
               "wait_seconds": round(ans.wait_seconds, 2)}
        if getattr(ans, "arbitration", None):
            row["arbitration"] = {"rule": ans.arbitration["rule"], "chosen": ans.arbitration["chosen"],
                                  "plans": [{"how": p["how"], "sql": p["sql"],
                                             "correct": bool(judge(q, {"rows": p["rows"], "state": "answered",
                                                                       "answer": ""})[0])}
                                            for p in ans.arbitration["plans"]]}
        rows.append(row)
        mark = "right" if ok else "WRONG" if row["stated_wrong"] else ans.state
        print(f"[{i}/{len(questions)}] {q['id']} {q['type']:<12} {mark:<8} {ans.seconds:5.1f}s {ans.llm_calls}c "
              f"{q['query'][:70]} -> {ans.answer[:90]!r}", file=sys.stderr, flush=True)
        if after_each is not None:
            after_each(rows)
    return rows


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    types: dict[str, dict[str, Any]] = {}
    for r in rows:
        t = types.setdefault(r["type"], {"questions": 0, "right": 0, "stated_wrong": 0, "not_stated": 0})
        t["questions"] += 1
        t["right"] += r["right"]
        t["stated_wrong"] += r["stated_wrong"]
        t["not_stated"] += r["state"] != "answered"
    states: dict[str, int] = {}
    for r in rows:
        states[r["state"]] = states.get(r["state"], 0) + 1

    def median(key: str) -> float:
        vals = [float(r.get(key) or 0) for r in rows]
        return round(statistics.median(vals), 2) if vals else 0.0

    from bench.spider import arbitration_summary

    return {"questions": len(rows), "right": sum(r["right"] for r in rows),
            "arbitration": arbitration_summary(rows),
            "stated_wrong": sum(r["stated_wrong"] for r in rows), "states": states,
            "view_misses_at_store": sum(bool(r["view_misses_at_store"]) for r in rows),
            "view_misses_written": sum(bool(r.get("view_misses_written")) for r in rows),
            "median_seconds": median("seconds"), "median_llm_calls": median("llm_calls"),
            "median_prompt_evaluated": median("prompt_evaluated"), "llm_calls": sum(r["llm_calls"] for r in rows),
            "per_type": dict(sorted(types.items()))}


def render_md(results: dict[str, Any]) -> str:
    lines = ["# WikiKG development set (a Wikidata-shaped OWL graph made by others)\n",
             "Questions: `../shared/data/wikikg/dev/questions.json` over `dev/kg.ttl`, scored by the data set's own "
             "`score.py`. Embedded model. *Stated but wrong*: an answer stated (not Unsure / No data / error) that "
             "is wrong. *Misses at the store*: answers whose plan ran naming a table or column the view lacks (must "
             "be 0). Seconds: the answerer's own time (waiting for another process's inference left out); the label "
             "says how loaded the machine was. A development figure.\n",
             "| run | commit | date | right | stated but wrong | states | misses at the store | names the view "
             "lacks, written | median calls | median s | median prompt tokens evaluated |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for label, r in results["runs"].items():
        s = r["summary"]
        n = max(1, s["questions"])
        lines.append(f"| {label}{' (stopped early)' if r.get('partial') else ''} | "
                     f"{str(r.get('commit', ''))[:10]}{' +changes' if r.get('dirty') else ''} | {r.get('date', '')} | "
                     f"{s['right']}/{s['questions']} ({100 * s['right'] / n:.1f}%) | {s['stated_wrong']} "
                     f"({100 * s['stated_wrong'] / n:.1f}%) | "
                     f"{', '.join(f'{k} {v}' for k, v in sorted(s['states'].items()))} | "
                     f"{s['view_misses_at_store']} | {s['view_misses_written']} | {s['median_llm_calls']} | "
                     f"{s['median_seconds']} | {s['median_prompt_evaluated']} |")
    for label, r in results["runs"].items():
        arbitration = r["summary"].get("arbitration")
        if arbitration:
            lines += [f"\n## {label}: plans that disagreed, per arbitration rule\n",
                      "| rule | fired | chose the right plan | chose wrong, another was right | every plan wrong |",
                      "|---|---|---|---|---|"]
            lines += [f"| {k} | {v['fired']} | {v['chose_right']} | {v['chose_wrong_other_right']} | "
                      f"{v['all_wrong']} |" for k, v in sorted(arbitration.items())]
        lines += [f"\n## {label}: per question type\n", "| type | questions | right | stated but wrong | not stated |",
                  "|---|---|---|---|---|"]
        for t, v in r["summary"]["per_type"].items():
            lines.append(f"| {t} | {v['questions']} | {v['right']} | {v['stated_wrong']} | {v['not_stated']} |")
    return "\n".join(lines) + "\n"


def outcome(label: str) -> Path:
    """The folder of a run's answers and trace (outcomes/wikikg_<label>)."""
    return REPO / "outcomes" / f"wikikg_{label.replace(' ', '_').replace('/', '_')}"


def write_answers(rows: list[dict[str, Any]], label: str) -> Path:
    """The answers in the scorer's input format (outcomes/wikikg_<label>/answers.json)."""
    out = outcome(label)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "answers.json"
    path.write_text(json.dumps([{"id": r["id"], "question": r["question"], "answer": r["answer"], "rows": r["rows"],
                                 "boolean": r["boolean"], "state": r["state"]} for r in rows], indent=1,
                               ensure_ascii=False), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="the name of this run in the results (e.g. before, after)")
    ap.add_argument("--per-type", type=int, help="only the first N questions of each type")
    ap.add_argument("--ids", help="only these question ids (comma-separated)")
    ap.add_argument("--replay", help="no model: answer each question with the final plan of this label's run")
    ap.add_argument("--oracle", action="store_true", help="no model: plans written from the gold (module docstring)")
    ap.add_argument("--record", type=Path, help="write the model exchanges to this cassette")
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    args = ap.parse_args(argv)
    from bench.report import keep_labelled_run, run_info, run_labelled

    if not QUESTIONS.is_file():
        print(f"wikikg: no data at {WIKIKG}", file=sys.stderr)
        return 0
    questions = select(json.loads(QUESTIONS.read_text("utf-8")), args.per_type, args.ids)
    if args.replay or args.oracle:
        if args.replay:
            old = json.loads((RESULTS / "wikikg.json").read_text("utf-8"))["runs"][args.replay]["rows"]
            plans = {r["id"]: r["sql"] for r in old}
            questions = [q for q in questions if q["id"] in plans]
            rows = run(None, questions, replay=plans)
        else:
            rows = run(None, questions, oracle=True)
        info = run_info(None, sys.argv[1:] if argv is None else argv)
        info["command"] = info["command"].replace("bench.ask_bench", "bench.wikikg_bench")
        this = {**info, "replay_of": args.replay or "oracle plans (no model)", "summary": summarize(rows), "rows": rows}
        print(keep_labelled_run(RESULTS / "wikikg.json", "wikikg.md", args.label, this, render_md,
                                write=not args.no_write))
        return 0

    def run_and_keep(model: Any, qs: list[dict[str, Any]], after_each: Any = None) -> list[dict[str, Any]]:
        rows = run(model, qs, after_each=after_each, trace=outcome(args.label) / "trace.jsonl")
        print(f"answers: {write_answers(rows, args.label)}", file=sys.stderr)
        return rows

    return run_labelled("wikikg", questions, args, argv, run_and_keep, summarize, render_md)


if __name__ == "__main__":
    raise SystemExit(main())
