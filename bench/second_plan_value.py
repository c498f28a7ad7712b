"""What second plans change: for every question of a recorded run that asked one, the answer its first passing plan
gives alone (replayed by this tree's code, no model) against the answer the run stated after its second plans,
counted per shape of that first plan. The run's trace gives the first plan; the sets' own scorers say which answers
are right. Which shapes are worth a second plan (ontouse.second_plans `_doubt`) is read from these counts.

    python -m bench.second_plan_value            # every set whose recorded run and trace are here
    python -m bench.second_plan_value --only spider

Sets: Spider4SPARQL dev (bench/results/ask_spider.json, its trace folder `traces`), CK25 (ask_ck25.json, the newest
outcomes/ask_bench_ck25_*/answers.log) and the wikikg development set (the newest full run of wikikg.json with its
outcomes/wikikg_<label>/trace.jsonl). Traces are not committed: a set without one is skipped. Writes
bench/results/second_plan_value.json and .md; progress on stderr."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Callable, Iterator

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
OUTCOMES = REPO / "outcomes"

# one question of a recorded run: id, question, its trace's records, the graphs, the state and whether it was right,
# and a function that says whether an answer is right
Case = tuple[str, str, dict[str, Any], list[Path], str, bool, Callable[[Any], bool]]
RUN_COMMITS: dict[str, str] = {}  # the commit each set's recorded run was made at (filled as a set is read)


def trace_groups(path: Path) -> list[dict[str, Any]]:
    """The records of a trace file, one group per question (in the order asked)."""
    out: list[dict[str, Any]] = []
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if rec["kind"] == "question":
            out.append({"question": rec["question"], "attempts": [], "second": []})
        elif out and rec["kind"] == "attempt":
            out[-1]["attempts"].append(rec)
        elif out and rec["kind"] == "second_plan":
            out[-1]["second"].append(rec)
    return out


def matched(questions: list[tuple[str, str]], groups: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(id, trace group) for the questions, in order, each matched to the next group that asks it."""
    i = 0
    for qid, text in questions:
        while i < len(groups) and groups[i]["question"].strip() != text.strip():
            i += 1
        if i >= len(groups):
            return
        yield qid, groups[i]
        i += 1


def _spider() -> Iterator[Case]:
    from bench.spider import execution_match, kg_path, load_questions

    run = json.loads((RESULTS / "ask_spider.json").read_text("utf-8"))
    traces = Path(run.get("traces") or "")
    RUN_COMMITS["spider"] = run["commit"]
    gold = {q["id"]: q for q in load_questions()}
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in run["questions"]:
        by_db[r["db"]].append(r)
    for db, rows in by_db.items():
        log = traces / f"answers_{db}.log"
        if not log.is_file():
            continue
        rec = {r["id"]: r for r in rows}
        for qid, group in matched([(r["id"], gold[r["id"]]["question"]) for r in rows], trace_groups(log)):
            q, r = gold[qid], rec[qid]
            yield qid, q["question"], group, [kg_path(db)], r["state"], bool(r["correct"]), \
                lambda ans, q=q: execution_match(ans, q)


def _ck25() -> Iterator[Case]:
    from bench.ask_bench import ck25_values
    from bench.ck25 import GRAPH_FILES, load_gold, load_questions, register_integer_casts
    from bench.score import answer_set_f1

    logs = sorted(OUTCOMES.glob("ask_bench_ck25_*/answers.log"))
    if not logs:
        return
    register_integer_casts()
    gold = load_gold()
    run = json.loads((RESULTS / "ask_ck25.json").read_text("utf-8"))
    RUN_COMMITS["ck25"] = run["commit"]
    rec = {r["id"]: r for r in run["questions"]}
    qs = [(q["id"], q["question"]) for q in load_questions() if q["id"] in rec]
    for qid, group in matched(qs, trace_groups(logs[-1])):
        r = rec[qid]
        yield qid, r["question"], group, list(GRAPH_FILES), r["state"], r["f1"] == 1.0, \
            lambda ans, qid=qid: answer_set_f1(ck25_values(ans), gold.get(qid, set())) == 1.0


def _wikikg() -> Iterator[Case]:
    from bench.wikikg_bench import GRAPH, WIKIKG, outcome, scorer

    runs = json.loads((RESULTS / "wikikg.json").read_text("utf-8"))["runs"]
    full = [(label, r) for label, r in runs.items() if len(r["rows"]) >= 200 and not r.get("oracle")
            and (outcome(label) / "trace.jsonl").is_file()]
    if not full:
        return
    label, run = full[-1]
    RUN_COMMITS["wikikg"] = f"{run['commit']} ({label})"
    judge = scorer().judge
    qs = {q["id"]: q for q in json.loads((WIKIKG / "dev" / "questions.json").read_text("utf-8"))}
    rec = {r["id"]: r for r in run["rows"]}
    for qid, group in matched([(r["id"], qs[r["id"]]["query"]) for r in run["rows"]],
                              trace_groups(outcome(label) / "trace.jsonl")):
        q = qs[qid]
        yield qid, q["query"], group, [GRAPH], rec[qid]["state"], bool(rec[qid]["right"]), \
            lambda ans, q=q: bool(judge(q, ans.to_dict())[0])


SETS: dict[str, Callable[[], Iterator[Case]]] = {"spider": _spider, "ck25": _ck25, "wikikg": _wikikg}


def shape(plan: Any, failed_before: bool) -> str:
    """The first passing plan's shape: what it does beyond one table read with plain conditions."""
    from ontouse.sqlplan.plan import Query, excludes_rows, nested

    if not isinstance(plan, Query):
        return "combined results"
    parts = [name for name, present in (
        ("nested", nested(plan)), ("grouped", bool(plan.group_by) or plan.having is not None),
        ("ranked", bool(plan.order_by) or plan.limit is not None),
        ("joined", len(plan.sources) > 1 or bool(plan.joins)), ("negated", excludes_rows(plan.where))) if present]
    return " + ".join(parts or ["plain"]) + (" (after a failed attempt)" if failed_before else "")


def outcome_of(state: str, right: bool) -> str:
    return "right" if right else "wrong" if state == "answered" else "withheld"


def value(name: str) -> dict[str, Any]:
    """Per shape: the questions that asked second plans, and how their answers moved from the first plan's own."""
    from bench.recheck_bench import NoModel
    from ontouse.answerer import AnswerLoop
    from ontouse.question import parse_question
    from ontouse.storage.store import GraphStore

    loops: dict[tuple[str, ...], Any] = {}
    moves: dict[str, Counter[str]] = defaultdict(Counter)
    doubted: Counter[str] = Counter()
    for qid, text, group, graphs, state, right, is_right in SETS[name]():
        passing = [a for a in group["attempts"] if not a["problem"]]
        if not group["second"] or not passing:
            continue
        key = tuple(map(str, graphs))
        if key not in loops:
            loops[key] = AnswerLoop(GraphStore.from_paths(graphs), NoModel())
        loop = loops[key]
        first = passing[0]
        try:
            q = parse_question(text)
            run = loop._run(q, first["sql"], loop.index.mentions(q))
            alone = loop.answer_sql(text, first["sql"])
            before = outcome_of(alone.state, is_right(alone))
        except Exception as e:  # noqa: BLE001 - a recorded plan this tree no longer reads is counted apart
            print(f"{name} {qid}: {type(e).__name__}: {e}", file=sys.stderr)
            moves["(not replayed)"]["-"] += 1
            continue
        kind = shape(run.plan, len(group["attempts"]) > 1)
        moves[kind][f"{before} -> {outcome_of(state, right)}"] += 1
        if loop._doubt(run):
            doubted[kind] += 1
    return {"shapes": {k: dict(sorted(v.items())) for k, v in sorted(moves.items())},
            "asked_by_this_tree": dict(sorted(doubted.items()))}


def changed(moves: dict[str, int]) -> tuple[int, int, int]:
    """(asked, changed for the better, changed for the worse): better is wrong -> right or withheld, withheld ->
    right; worse is the reverse."""
    rank = {"wrong": 0, "withheld": 1, "right": 2}
    better = worse = 0
    for move, n in moves.items():
        if "->" not in move:
            continue
        a, b = (s.strip() for s in move.split("->"))
        better += n if rank[b] > rank[a] else 0
        worse += n if rank[b] < rank[a] else 0
    return sum(moves.values()), better, worse


def render_md(results: dict[str, Any]) -> str:
    lines = ["# What second plans change", "",
             f"{results['date']}, replayed at commit {results['commit'][:10]}; `{results['command']}`", "",
             "Per set and per shape of the first passing plan: the questions whose recorded run asked second plans, "
             "and how the answer moved from what the first plan gives alone (replayed, no model) to what the run "
             "stated. *better*: wrong -> withheld or right, withheld -> right; *worse*: the reverse. *asked now*: "
             "how many of them this tree would still ask a second plan for (`_doubt`). Development sets.", ""]
    for name, r in results["sets"].items():
        lines += [f"## {name} (the run at {r['run_commit']})", "", "| shape | asked | better | worse | moves | asked now |",
                  "|---|---|---|---|---|---|"]
        for kind, moves in r["shapes"].items():
            n, better, worse = changed(moves)
            lines.append(f"| {kind} | {n} | {better} | {worse} | "
                         f"{', '.join(f'{m}: {c}' for m, c in moves.items() if m.split(' -> ')[0] != m.split(' -> ')[-1])} "
                         f"| {r['asked_by_this_tree'].get(kind, 0)} |")
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from bench.report import run_info, write_json

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=list(SETS), default=list(SETS))
    args = ap.parse_args(argv)
    info = {**run_info(None, argv), "command": " ".join(["python", "-m", "bench.second_plan_value", *(argv or [])])}
    sets: dict[str, Any] = {}
    for name in args.only:
        r = value(name)
        if not r["shapes"]:
            print(f"{name}: no recorded run with its trace here", file=sys.stderr)
            continue
        sets[name] = {"run_commit": RUN_COMMITS.get(name, "?"), **r}
        total = [changed(m) for m in r["shapes"].values()]
        print(f"{name}: {sum(t[0] for t in total)} asked, {sum(t[1] for t in total)} better, "
              f"{sum(t[2] for t in total)} worse", flush=True)
    results = {**info, "sets": sets}
    write_json(RESULTS / "second_plan_value.json", results)
    (RESULTS / "second_plan_value.md").write_text(render_md(results) + "\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
