"""Spider4SPARQL (ten databases as knowledge graphs, 587 questions with gold rows): loading, scoring, sampling
and the benchmark run over the answerer. No LLM is needed for anything but `run_spider`.

Data lives in ../shared/data/spider4sparql/ beside the repository (README.md there): kg/<db>.ttl and
questions/<db>.json. Without it, `available()` is False and the loaders raise FileNotFoundError.

Execution accuracy (EA), `execution_match`: the predicted rows (`ans.table("value")`) equal the gold rows

* as a **set of rows**: row order is ignored (also for questions whose gold is `ordered`: an answerer's table
  order is not part of its answer), and duplicate rows count once;
* each row as a **multiset of values**: column order is ignored (the question rarely fixes it);
* values compared **as numbers when both parse as numbers** ("12" = "12.0"; "11.350000000000001" = "11.35":
  within 1e-6 relative), **else as stripped strings, case-sensitively**: the graph holds the database's values
  verbatim, so a value in other case is another value (Spider's own EA compares execution results exactly);
  "true"/"false" in any case are booleans;
* a yes/no answer (`ans.boolean`) is the one-cell table "true" / "false";
* a `limit_tie` question is also correct with any of its `tie_alternatives`;
* an answer in state no_data or error is the empty table (wrong: every gold answer here is non-empty).

The softer **value-set F1** (`value_f1`, bench.score.answer_set_f1 over all values, case-insensitive) is kept
for diagnosis: it credits a right answer with an extra or missing column.
"""

from __future__ import annotations

import json
import math
import random
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Iterable

from .qtype import TYPES, question_type  # noqa: F401 - question_type is part of this module's interface
from .score import answer_set_f1

REPO_ROOT = Path(__file__).resolve().parents[1]
SPIDER_DIR = (REPO_ROOT / ".." / "shared" / "data" / "spider4sparql").resolve()
QUESTIONS_DIR = SPIDER_DIR / "questions"
KG_DIR = SPIDER_DIR / "kg"
REL_TOL = 1e-6
MAX_ROWS_KEPT = 20


# ----------------------------------------------------------------------------------------------- data

def available() -> bool:
    return QUESTIONS_DIR.is_dir() and KG_DIR.is_dir()


def databases() -> list[str]:
    """The database names (questions/<db>.json), sorted."""
    if not QUESTIONS_DIR.is_dir():
        raise FileNotFoundError(f"{QUESTIONS_DIR}: Spider4SPARQL data is not there")
    return sorted(p.stem for p in QUESTIONS_DIR.glob("*.json"))


def kg_path(db: str) -> Path:
    return KG_DIR / f"{db}.ttl"


def load_questions(dbs: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The questions of `dbs` (default: all), in database order then file order, each with "db" and "type"
    (bench.qtype.question_type of the reference SPARQL) added."""
    names = databases()
    wanted = list(dbs) if dbs else names
    unknown = [d for d in wanted if d not in names]
    if unknown:
        raise ValueError(f"unknown Spider4SPARQL database(s) {unknown}; there are {names}")
    out = []
    for db in wanted:
        for q in json.loads((QUESTIONS_DIR / f"{db}.json").read_text(encoding="utf-8")):
            out.append({**q, "db": q.get("kg", db), "type": question_type(q.get("sparql", ""))})
    return out


def stratified_sample(questions: list[dict[str, Any]], k: int, seed: int = 0, key: str = "db") -> list[dict[str, Any]]:
    """`k` questions spread over the values of q[key] in proportion to their sizes (largest remainders; every
    group gets one when k allows), drawn with a fixed seed per group; in the input's order. Deterministic."""
    if k >= len(questions):
        return list(questions)
    groups: dict[str, list[int]] = defaultdict(list)
    for i, q in enumerate(questions):
        groups[str(q.get(key, ""))].append(i)
    names = sorted(groups)
    exact = {g: k * len(groups[g]) / len(questions) for g in names}
    quota = {g: math.floor(exact[g]) for g in names}
    for g in sorted(names, key=lambda g: (-(exact[g] - quota[g]), g))[:k - sum(quota.values())]:
        quota[g] += 1
    if k >= len(names):  # every group gets at least one, taken from the largest quotas
        for g in [g for g in names if quota[g] == 0]:
            donor = max(names, key=lambda d: (quota[d], d))
            quota[donor] -= 1
            quota[g] = 1
    picked: list[int] = []
    for g in names:
        rng = random.Random(f"{seed}:{g}")
        picked += rng.sample(groups[g], quota[g])
    return [questions[i] for i in sorted(picked)]


# ----------------------------------------------------------------------------------------------- scoring

_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def canon(value: Any) -> tuple[int, Any]:
    """(0, float) for a number, (1, bool) for true/false, (2, stripped string) otherwise."""
    s = str(value).strip()
    if _NUMBER.fullmatch(s):
        x = float(s)
        if math.isfinite(x):
            return (0, x)
    if s.lower() in ("true", "false"):
        return (1, s.lower() == "true")
    return (2, s)


def _row(row: Iterable[Any]) -> tuple[tuple[int, Any], ...]:
    return tuple(sorted(canon(v) for v in row))


def _key(row: tuple[tuple[int, Any], ...]) -> tuple[tuple[int, Any], ...]:
    """An exact key of a canonical row (numbers to 9 significant digits): equal keys are equal rows."""
    return tuple((k, float(f"{v:.9g}")) if k == 0 else (k, v) for k, v in row)


def _close(a: tuple[tuple[int, Any], ...], b: tuple[tuple[int, Any], ...], rel_tol: float) -> bool:
    if len(a) != len(b):
        return False
    for (ka, va), (kb, vb) in zip(a, b):
        if ka != kb:
            return False
        if ka == 0:
            if va != vb and abs(va - vb) > rel_tol * max(abs(va), abs(vb)):
                return False
        elif va != vb:
            return False
    return True


def _covered(rows: set, others: set, other_keys: set, rel_tol: float) -> bool:
    """Is every row of `rows` equal (within tolerance) to some row of `others`?"""
    for r in rows:
        if _key(r) in other_keys:
            continue
        if not any(_close(r, o, rel_tol) for o in others):
            return False
    return True


def rows_match(predicted: Iterable[Iterable[Any]], gold: Iterable[Iterable[Any]], rel_tol: float = REL_TOL) -> bool:
    """Are the two tables equal as sets of rows, each row a multiset of values? (See the module docstring.)"""
    p = {_row(r) for r in predicted}
    g = {_row(r) for r in gold}
    return (_covered(p, g, {_key(r) for r in g}, rel_tol)
            and _covered(g, p, {_key(r) for r in p}, rel_tol))


def predicted_rows(ans: Any, prefer: str = "value") -> list[list[str]]:
    """The answer as a table: a yes/no answer is [["true"|"false"]], no data or an error is []."""
    if ans.boolean is not None:
        return [["true" if ans.boolean else "false"]]
    if ans.state != "answered":
        return []
    return ans.table(prefer)


def gold_alternatives(q: dict[str, Any]) -> list[list[list[str]]]:
    """The acceptable gold tables: the gold, and for a limit_tie question every tie alternative."""
    alts = [q.get("gold") or []]
    if q.get("limit_tie"):
        alts += [a for a in q.get("tie_alternatives") or [] if a not in alts]
    return alts


def execution_match(ans: Any, q: dict[str, Any]) -> bool:
    """Execution accuracy of one answer (see the module docstring)."""
    rows = predicted_rows(ans)
    return any(rows_match(rows, alt) for alt in gold_alternatives(q))


def value_f1(ans: Any, q: dict[str, Any]) -> float:
    """Set F1 of all predicted values against all gold values (the best over tie alternatives)."""
    values = {v for row in predicted_rows(ans) for v in row}
    return max(answer_set_f1(values, {v for row in alt for v in row}) for alt in gold_alternatives(q))


def score_answer(ans: Any, q: dict[str, Any]) -> dict[str, Any]:
    """The record of one answered question in ask_spider.json."""
    rows = predicted_rows(ans)
    return {
        "id": q["id"], "db": q["db"], "type": q["type"], "question": q["question"],
        "correct": execution_match(ans, q), "f1": round(value_f1(ans, q), 4),
        "predicted": rows[:MAX_ROWS_KEPT], "n_predicted": len(rows),
        "gold": q["gold"][:MAX_ROWS_KEPT], "n_gold": len(q["gold"]), "limit_tie": bool(q.get("limit_tie")),
        "weak": bool(q.get("zero_or_null_only")), "answer": ans.answer[:300], "state": ans.state,
        "error": ans.error, "has_support": bool(ans.support), "llm_calls": ans.llm_calls,
        "prompt_tokens": ans.prompt_tokens, "completion_tokens": ans.completion_tokens,
        "seconds": round(ans.seconds, 2), "sql": ans.sql, "sparql": ans.sparql, "repairs": ans.repairs,
        **({"arbitration": arbitration_record(ans.arbitration, q)} if getattr(ans, "arbitration", None) else {})}


def arbitration_record(arbitration: dict[str, Any], q: dict[str, Any]) -> dict[str, Any]:
    """How code decided between plans that disagreed (ontouse.arbitration), with whether each plan's own result
    matches the gold (so a rule's choices can be counted right or wrong)."""
    plans = []
    for p in arbitration.get("plans", []):
        rows = [[c.get("value", "") for c in row] for row in p.get("rows", [])]
        plans.append({"how": p["how"], "sql": p["sql"],
                      "correct": any(rows_match(rows, alt) for alt in gold_alternatives(q))})
    return {"rule": arbitration["rule"], "chosen": arbitration["chosen"], "plans": plans}


def arbitration_summary(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per arbitration rule: how often it fired, how often the plan it chose was right, how often another plan was
    right when the chosen one was not (and, for "undecided", how often some plan was right)."""
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        a = r.get("arbitration")
        if not a:
            continue
        s = out.setdefault(a["rule"], {"fired": 0, "chose_right": 0, "chose_wrong_other_right": 0,
                                       "all_wrong": 0})
        s["fired"] += 1
        right = {p["how"] for p in a["plans"] if p["correct"]}
        if a["chosen"] and a["chosen"] in right:
            s["chose_right"] += 1
        elif right:
            s["chose_wrong_other_right"] += 1
        else:
            s["all_wrong"] += 1
    return out


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall, per-database and per-type EA and value F1, costs, and the answers without support (must be 0)."""
    from .report import by_group, mean, stats, unsupported

    n = len(rows)
    strong = [r for r in rows if not r.get("weak")]
    return {
        "correct": sum(r["correct"] for r in rows), "ea": round(sum(r["correct"] for r in rows) / n, 4) if n else 0,
        "mean_f1": mean(r["f1"] for r in rows), "weak": n - len(strong),
        "ea_strong": round(sum(r["correct"] for r in strong) / len(strong), 4) if strong else 0,
        "per_db": by_group(rows, "db"), "per_type": by_group(rows, "type"),
        "answers_without_support": unsupported(rows),
        "no_data": sum(1 for r in rows if r["state"] == "no_data"),
        "errors": sum(1 for r in rows if r["state"] == "error"),
        "stated_wrong": sum(1 for r in rows if r["state"] == "answered" and not r["correct"]),
        "unsure": sum(1 for r in rows if r["state"] == "unsure"),
        "arbitration": arbitration_summary(rows), **stats(rows)}


# ----------------------------------------------------------------------------------------------- the run

def select(dbs: list[str] | None = None, limit: int | None = None, sample: int | None = None,
           seed: int = 0) -> list[dict[str, Any]]:
    """The questions of a run: of `dbs`, a stratified `sample` of them, then the first `limit`."""
    questions = load_questions(dbs)
    if sample:
        questions = stratified_sample(questions, sample, seed)
    return questions[:limit] if limit else questions


def run_spider(model: Any, questions: list[dict[str, Any]], argv: list[str] | None = None) -> dict[str, Any]:
    """Answer `questions` with one answerer per database (all sharing `model`), score them; the results dict
    of ask_spider.json. Ctrl-C stops early and keeps what was answered (marked "interrupted")."""
    from .report import ask, close, open_answerer_for, run_info, trace_dir

    info = run_info(model, argv)
    traces = trace_dir("spider")
    by_db: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for q in questions:
        by_db[q["db"]].append(q)
    rows: list[dict[str, Any]] = []
    interrupted = False
    started = time.monotonic()
    try:
        for db, qs in by_db.items():
            answerer = open_answerer_for([kg_path(db)], model, traces / f"answers_{db}.log")
            try:
                for q in qs:
                    row = score_answer(ask(answerer, q["question"]), q)
                    rows.append(row)
                    print(f"[{len(rows):3d}/{len(questions)}] {q['id']} {db} {q['type']:<16} "
                          f"{'OK ' if row['correct'] else 'BAD'} f1={row['f1']:.2f} {row['seconds']:6.1f}s "
                          f"{row['llm_calls']}c {row['state']}", file=sys.stderr, flush=True)
            finally:
                close(answerer)
    except KeyboardInterrupt:
        interrupted = True
        print(f"interrupted after {len(rows)} questions", file=sys.stderr, flush=True)
    return {"benchmark": "spider4sparql", **info, "interrupted": interrupted,
            "run_seconds": round(time.monotonic() - started, 1), "traces": str(traces),
            "summary": {"questions": len(rows), **summarize(rows)}, "questions": rows}


def summary_line(result: dict[str, Any]) -> str:
    s = result["summary"]
    types = ", ".join(f"{t} {v['correct']}/{v['total']}" for t, v in s["per_type"].items())
    return (f"spider: EA {s['correct']}/{s['questions']} ({s['ea']:.1%}), mean F1 {s['mean_f1']:.3f}, median "
            f"{s['median_llm_calls']} calls, median {s['median_seconds']} s, mean {s['mean_tokens']:.0f} tokens, "
            f"{s['answers_without_support']} answers without support; stated but wrong {s.get('stated_wrong')}, "
            f"unsure {s.get('unsure')}; arbitration per rule: {s.get('arbitration')}; per type: {types}")
