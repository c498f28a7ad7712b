"""The answer checks on recorded plans, without a model: every Spider4SPARQL question's final plan (the SQL in
bench/results/ask_spider.json, written by the embedded model in that run) is answered again through the code on
PYTHONPATH (`AnswerLoop.answer_sql`, or the same steps in a tree without it), once, and scored like
bench.ask_bench --only spider (execution accuracy against the gold table).

    PYTHONPATH=/path/to/main/src python -m bench.recheck_bench --label before
    python -m bench.recheck_bench --label after

What it measures: how many of those plans' answers are stated and right, stated and wrong (confident-wrong),
or not stated (Unsure / No data), by one tree's code. What it does not: the model's next attempt after a failed
check (the answerer re-asks the model, up to 3 calls; here a failed check ends the question), so the figures
after the checks are a lower bound for right answers and an upper bound for what the checks cost.
Results: bench/results/recheck.json and recheck.md (each label's run kept beside the others)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"


class NoModel:
    """A model that is never called: the checks are replayed on recorded plans (also bench.replay_plans)."""

    backend, model = "none", "none"

    def __init__(self) -> None:
        from ontocore.llm import Usage

        self.usage = Usage(backend="none", model="none")

    def chat(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the recheck never calls a model")


def answer_plan(answerer: Any, question: str, sql: str) -> Any:
    if hasattr(answerer, "answer_sql"):
        return answerer.answer_sql(question, sql)
    from ontouse.question import parse_question

    q = parse_question(question)
    run = answerer._run(q, sql)
    best = run if not run.problem or run.zero else None
    return answerer._answer(q, best, [run])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args(argv)
    from bench.report import run_info
    from bench.spider import execution_match, kg_path, load_questions
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    recorded = json.loads((RESULTS / "ask_spider.json").read_text("utf-8"))
    gold = {q["id"]: q for q in load_questions()}
    answerers: dict[str, Any] = {}
    rows = []
    for r in recorded["questions"]:
        q = gold.get(r["id"])
        if q is None or not r.get("sql"):
            rows.append({"id": r["id"], "stated": False, "right": False, "state": "no plan"})
            continue
        if q["db"] not in answerers:
            answerers[q["db"]] = AnswerLoop(GraphStore.from_paths([kg_path(q["db"])]), NoModel())
        try:
            ans = answer_plan(answerers[q["db"]], q["question"], r["sql"])
        except Exception as e:  # noqa: BLE001 - a plan that no longer reads is recorded, not fatal
            rows.append({"id": r["id"], "stated": False, "right": False, "state": f"error: {e}"})
            continue
        stated = ans.state == "answered"
        right = stated and execution_match(ans, q)
        rows.append({"id": r["id"], "type": q["type"], "question": q["question"], "sql": r["sql"],
                     "state": ans.state, "stated": stated, "right": right, "answer": ans.answer[:200],
                     "checks": [c for c in getattr(ans, "checks", []) if not c.get("passed")],
                     "recorded_correct": r.get("correct")})
        if len(rows) % 50 == 0:
            print(f"{len(rows)} of {len(recorded['questions'])}", file=sys.stderr, flush=True)
    summary = {"questions": len(rows), "right": sum(r["right"] for r in rows),
               "confident_wrong": sum(r["stated"] and not r["right"] for r in rows),
               "not_stated": sum(not r["stated"] for r in rows),
               "unsure": sum(r["state"] == "unsure" for r in rows)}
    info = run_info(None, sys.argv[1:] if argv is None else argv)
    info["command"] = info["command"].replace("bench.ask_bench", "bench.recheck_bench")
    import ontouse

    info["answerer"] = str(Path(ontouse.__file__).resolve().parent)  # the code that ran (commit: this tree's)
    path = RESULTS / "recheck.json"
    results = json.loads(path.read_text("utf-8")) if path.is_file() else {"runs": {}}
    results["runs"][args.label] = {**info, "plans_from": recorded.get("commit", ""), "summary": summary,
                                   "rows": rows}
    md = render_md(results)
    print(md)
    if not args.no_write:
        path.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        (RESULTS / "recheck.md").write_text(md, encoding="utf-8")
    return 0


def render_md(results: dict[str, Any]) -> str:
    lines = ["# The answer checks on recorded Spider4SPARQL plans (no model)\n",
             "Each question's final plan from `bench/results/ask_spider.json` answered once more by a tree's code "
             "(see the docstring of `bench/recheck_bench.py`: a failed check ends the question here, where the "
             "answerer would re-ask the model).\n",
             "| run | code that ran | right | confident-wrong | not stated (of which Unsure) |", "|---|---|---|---|---|"]
    for label, r in results["runs"].items():
        s = r["summary"]
        code = r.get("answerer") or f"this tree at {str(r.get('commit', ''))[:10]}"
        if "/wt/" in code:
            code = f"this tree at {str(r.get('commit', ''))[:10]}{' +changes' if r.get('dirty') else ''}"
        lines.append(f"| {label} | {code} | "
                     f"{s['right']}/{s['questions']} | {s['confident_wrong']} | {s['not_stated']} ({s['unsure']}) |")
    runs = results["runs"]
    if "before" in runs and "after" in runs:
        before = {r["id"]: r for r in runs["before"]["rows"]}
        lost = [r for r in runs["after"]["rows"] if before.get(r["id"], {}).get("right") and not r["right"]]
        caught = [r for r in runs["after"]["rows"]
                  if before.get(r["id"], {}).get("stated") and not before[r["id"]]["right"] and not r["stated"]]
        lines += [f"\nConfident-wrong answers the checks withhold: {len(caught)}; right answers they withhold or "
                  f"change: {len(lost)}.\n", "| question | plan | after | failed check |", "|---|---|---|---|"]
        for r in lost + caught:
            what = "right before, " + r["state"] if r in lost else "wrong before, " + r["state"]
            failed = "; ".join(c["check"] for c in r.get("checks") or [])
            lines.append(f"| {r.get('question', r['id'])} | `{r.get('sql', '')[:120]}` | {what} | {failed} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())
