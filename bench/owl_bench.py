"""OWL-ontology benchmark: `ontoask` (embedded model) over a small hand-written OWL ontology of a made-up aquarium
(tests/data/owl_aquarium.ttl: a class hierarchy four levels deep, named individuals as values, inverse properties
stated in one direction, owl:sameAs, labels in English and German) and its questions with gold answers
(tests/data/owl_aquarium_questions.json: hierarchy counts, individuals as values, inverse properties, ratios,
comparisons of two named things, "both", most common, superlatives).

    python -m bench.owl_bench --label after                       # this tree's answerer
    PYTHONPATH=/path/to/main/src python -m bench.owl_bench --label before   # another tree's answerer, same questions
    python -m bench.owl_bench --label after --record tests/cassettes/ask_owl_aquarium.json

Results: bench/results/owl.json and owl.md; each label's run is kept beside the others (re-running a label
replaces only that label's run). With --record, every model exchange is written to a cassette that
tests/ontouse/test_owl_answers.py replays.

How it scores (every rule is here): an answer is *stated* when its state is "answered" (an "Unsure: ..." answer,
"No data available" and an error are not). A stated answer is right when bench.score.answer_is_correct accepts it
for the gold answer (yes/no: the answer's machine field `boolean`, in any language of the text; else its text's values:
numbers exact for integers, 1 % otherwise; lists every gold name, at most one other); a stated answer that is not
right is *confident-wrong*."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
ONTOLOGY = REPO / "tests" / "data" / "owl_aquarium.ttl"
QUESTIONS = REPO / "tests" / "data" / "owl_aquarium_questions.json"
RESULTS = REPO / "bench" / "results"


def score(ans: Any, expected: Any) -> dict[str, Any]:
    from bench.score import answer_is_correct

    stated = ans.state == "answered"
    right = stated and answer_is_correct(ans, expected)
    return {"stated": stated, "right": right, "confident_wrong": stated and not right}


def run(model: Any, questions: list[dict[str, Any]], after_each: Any = None) -> list[dict[str, Any]]:
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    answerer = AnswerLoop(GraphStore.from_paths([ONTOLOGY]), model)
    rows = []
    for i, q in enumerate(questions, 1):
        started = time.perf_counter()
        ans = answerer.ask(q["query"])
        row = {"question": q["query"], "type": q.get("type", ""), "expected": q["expected"], "answer": ans.answer,
               "state": ans.state, "boolean": ans.boolean, **score(ans, q["expected"]), "sql": ans.sql, "repairs": ans.repairs,
               "checks": getattr(ans, "checks", None), "support": ans.support[:12], "llm_calls": ans.llm_calls,
               "seconds": round(time.perf_counter() - started, 1)}
        rows.append(row)
        mark = "right" if row["right"] else "WRONG" if row["confident_wrong"] else ans.state
        print(f"[{i}/{len(questions)}] {mark}: {q['query']} -> {ans.answer[:100]!r}", file=sys.stderr, flush=True)
        if after_each is not None:
            after_each(rows)
    return rows


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    types: dict[str, dict[str, int]] = {}
    for r in rows:
        t = types.setdefault(r["type"], {"questions": 0, "right": 0, "confident_wrong": 0, "not_stated": 0})
        t["questions"] += 1
        t["right"] += r["right"]
        t["confident_wrong"] += r["confident_wrong"]
        t["not_stated"] += not r["stated"]
    return {"questions": len(rows), "right": sum(r["right"] for r in rows),
            "confident_wrong": sum(r["confident_wrong"] for r in rows),
            "not_stated": sum(not r["stated"] for r in rows),
            "unsure": sum(r["state"] == "unsure" for r in rows),
            "llm_calls": sum(r["llm_calls"] for r in rows), "per_type": types}


def render_md(results: dict[str, Any]) -> str:
    lines = ["# OWL-ontology benchmark (made-up aquarium)\n",
             "Questions: `tests/data/owl_aquarium_questions.json` over `tests/data/owl_aquarium.ttl` (written by hand "
             "for this project). Embedded model; busy machine (2 cores shared with other work), so seconds are "
             "not comparable across runs. Scoring: the docstring of `bench/owl_bench.py`; *confident-wrong* = an "
             "answer stated (not Unsure / No data) that is wrong.\n",
             "| run | commit | date | right | confident-wrong | not stated (of which Unsure) | LLM calls |",
             "|---|---|---|---|---|---|---|"]
    for label, r in results["runs"].items():
        s = r["summary"]
        lines.append(f"| {label}{' (stopped early)' if r.get('partial') else ''} | "
                     f"{str(r.get('commit', ''))[:10]}{' +changes' if r.get('dirty') else ''} | "
                     f"{r.get('date', '')} | {s['right']}/{s['questions']} | {s['confident_wrong']} | "
                     f"{s['not_stated']} ({s['unsure']}) | {s['llm_calls']} |")
    for label, r in results["runs"].items():
        lines += [f"\n## {label}: per question type\n", "| type | questions | right | confident-wrong | not stated |",
                  "|---|---|---|---|---|"]
        for t, v in sorted(r["summary"]["per_type"].items()):
            lines.append(f"| {t} | {v['questions']} | {v['right']} | {v['confident_wrong']} | {v['not_stated']} |")
        lines += [f"\n## {label}: answers\n", "| question | expected | answer | verdict |", "|---|---|---|---|"]
        for q in r["rows"]:
            verdict = "right" if q["right"] else "**confident-wrong**" if q["confident_wrong"] else q["state"]
            answer = " ".join(str(q["answer"]).split())[:120].replace("|", "\\|")
            lines.append(f"| {q['question']} | {q['expected']} | {answer} | {verdict} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="the name of this run in the results (e.g. before, after)")
    ap.add_argument("--record", type=Path, help="write the model exchanges to this cassette")
    ap.add_argument("--limit", type=int, help="only the first N questions")
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    args = ap.parse_args(argv)
    from bench.report import run_labelled

    questions = json.loads(QUESTIONS.read_text("utf-8"))[:args.limit]
    return run_labelled("owl", questions, args, argv, run, summarize, render_md)


if __name__ == "__main__":
    raise SystemExit(main())
