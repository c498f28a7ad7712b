"""The plans code writes from the question alone (src/ontouse/written.py), measured without a model: every question of
three development sets is answered as if no plan of the model had passed (the loop's last step, `AnswerLoop._written`,
after a plan that names nothing the view has), and the answer code states is scored with the set's own scorer.

    python -m bench.written_bench                 # wikikg dev, Spider4SPARQL dev, CK25
    python -m bench.written_bench --only wikikg

What it measures: per kind of written plan (the check it answers for), how often code states an answer and how often
that answer is right: the precision of the last resort, which a real run reaches only after every plan of the model
failed. What it does not: how often a real run reaches it (bench.wikikg_bench, bench.ask_bench). Development figures:
the rules were written with these sets at hand (their examples come from made-up domains).
Results: bench/results/written.json and written.md."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
FAILING = "SELECT nothing FROM nowhere"  # a plan that names nothing the view has: every attempt failed


def last_resort(loop: Any, text: str) -> Any:
    """The answer the loop states when no plan of the model passed, or None when code writes none."""
    q, _ = loop._parse(text, text, "en")
    mentions = loop.index.mentions(q)
    runs = [loop._run(q, FAILING, mentions)]
    best = loop._written(q, runs, mentions)
    return None if best is None else loop._answer(q, best, runs)


def wikikg() -> Iterator[tuple[str, Any, Callable[[Any], bool]]]:
    from bench.recheck_bench import NoModel
    from bench.wikikg_bench import GRAPH, QUESTIONS, scorer
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    loop, judge = AnswerLoop(GraphStore.from_paths([GRAPH]), NoModel()), scorer().judge
    for q in json.loads(QUESTIONS.read_text("utf-8")):
        yield q["query"], loop, (lambda ans, q=q: bool(judge(q, ans.to_dict())[0]))


def spider() -> Iterator[tuple[str, Any, Callable[[Any], bool]]]:
    import bench.spider as S
    from bench.recheck_bench import NoModel
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    loops: dict[str, Any] = {}
    for q in S.load_questions():
        if q["db"] not in loops:
            loops[q["db"]] = AnswerLoop(GraphStore.from_paths([S.kg_path(q["db"])]), NoModel())
        yield q["question"], loops[q["db"]], (lambda ans, q=q: bool(S.score_answer(ans, q)["correct"]))


def ck25() -> Iterator[tuple[str, Any, Callable[[Any], bool]]]:
    from bench.ask_bench import ck25_values
    from bench.ck25 import GRAPH_FILES, load_gold, load_questions, register_integer_casts
    from bench.recheck_bench import NoModel
    from bench.score import answer_set_f1
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    register_integer_casts()
    loop, gold = AnswerLoop(GraphStore.from_paths(list(GRAPH_FILES)), NoModel()), load_gold()
    for q in load_questions():
        yield q["question"], loop, (lambda ans, q=q: answer_set_f1(ck25_values(ans), gold.get(q["id"], set())) == 1.0)


SETS = {"wikikg": wikikg, "spider": spider, "ck25": ck25}


def measure(name: str) -> dict[str, Any]:
    started = time.perf_counter()
    fired: Counter[str] = Counter()
    right: Counter[str] = Counter()
    wrong: list[dict[str, str]] = []
    total = 0
    for text, loop, is_right in SETS[name]():
        total += 1
        ans = last_resort(loop, text)
        if ans is None or ans.state != "answered":
            continue
        rule = next((r for r in ans.repairs if r in RULES), ans.repairs[-1] if ans.repairs else "?")
        fired[rule] += 1
        if is_right(ans):
            right[rule] += 1
        else:
            wrong.append({"question": text, "rule": rule, "answer": ans.answer[:200]})
    return {"questions": total, "fired": dict(fired), "right": dict(right), "wrong": wrong,
            "seconds": round(time.perf_counter() - started, 1)}


RULES = ("both_values", "asked_table", "named_is_linked", "counted_by_code")


def render(results: dict[str, Any], info: dict[str, Any]) -> str:
    lines = ["# Plans written by code from the question alone (no model)", "",
             "Every question answered as if no plan of the model had passed (`python -m bench.written_bench`): how "
             "often code states an answer and how often it is right. A development figure.", "",
             f"Commit {info['commit']}{' +changes' if info.get('dirty') else ''}, {info['date']}.", "",
             "| set | questions | stated by code | right | wrong |", "|---|---|---|---|---|"]
    for name, r in results.items():
        stated, ok = sum(r["fired"].values()), sum(r["right"].values())
        lines.append(f"| {name} | {r['questions']} | {stated} | {ok} | {stated - ok} |")
    lines += ["", "| set | rule | stated | right |", "|---|---|---|---|"]
    for name, r in results.items():
        for rule, n in sorted(r["fired"].items()):
            lines.append(f"| {name} | `{rule}` | {n} | {r['right'].get(rule, 0)} |")
    for name, r in results.items():
        if r["wrong"]:
            lines += ["", f"Stated and scored wrong on {name}:", ""]
            lines += [f"- `{w['rule']}`: {w['question']} -> {w['answer']}" for w in r["wrong"]]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=list(SETS), default=list(SETS))
    args = ap.parse_args(argv)
    from bench.report import run_info

    info = run_info(None, sys.argv[1:] if argv is None else argv)
    info["command"] = info["command"].replace("bench.ask_bench", "bench.written_bench")
    results = {name: measure(name) for name in args.only}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "written.json").write_text(json.dumps({**info, "results": results}, indent=1, ensure_ascii=False),
                                          "utf-8")
    text = render(results, info)
    (RESULTS / "written.md").write_text(text, "utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
