"""The recorded final plans of four benchmark runs answered again by one tree's code, without a model: the
Spider4SPARQL development run (bench/results/ask_spider.json), CK25 (ask_spider's sibling ask_ck25.json), the OWL set
(the newest run of owl.json) and the multilingual set (the newest run of lang.json). Each recorded SQL plan goes
through the answerer's code once (`answer_sql`: view, compile, run, checks, answer text); what is kept of each answer
is its state and its text. Two trees that print the same fingerprints answer every recorded plan alike, which is how a
restructure is shown not to change answers.

    PYTHONPATH=/path/to/tree/src python -m bench.replay_plans          # that tree's answerer
    python -m bench.replay_plans --only owl lang                        # some sets

Prints, per set, the number of plans, the count of each answer state and the SHA-256 of all (id, state, answer).
A multilingual plan is answered with its language and the English reading the run recorded (`translation`)."""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any, Callable, Iterator

Plan = tuple[str, str, str, list[Path], dict[str, str]]  # id, question, SQL, graph files, answer_sql's options
REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "bench" / "results"
DATA = REPO / "tests" / "data"


def _loop_class() -> Any:
    """The question loop of the tree on the path (its module was renamed by issue 50)."""
    try:
        from ontouse.answerer import AnswerLoop

        return AnswerLoop
    except ImportError:
        from ontouse.ask import Answerer  # type: ignore[no-redef]

        return Answerer


def _newest_run(name: str) -> dict[str, Any]:
    """The newest of the runs with the most plans recorded (a stopped run records fewer)."""
    runs = list(json.loads((RESULTS / name).read_text("utf-8"))["runs"].values())
    most = max(sum(bool(r.get("sql")) for r in run["rows"]) for run in runs)
    return [run for run in runs if sum(bool(r.get("sql")) for r in run["rows"]) == most][-1]


def _spider() -> Iterator[Plan]:
    from bench.spider import kg_path, load_questions

    gold = {q["id"]: q for q in load_questions()}
    for r in json.loads((RESULTS / "ask_spider.json").read_text("utf-8"))["questions"]:
        q = gold.get(r["id"])
        if q is not None and r.get("sql"):
            yield r["id"], q["question"], r["sql"], [kg_path(q["db"])], {}


def _ck25() -> Iterator[Plan]:
    from bench.ck25 import GRAPH_FILES

    for r in json.loads((RESULTS / "ask_ck25.json").read_text("utf-8"))["questions"]:
        if r.get("sql"):
            yield r["id"], r["question"], r["sql"], list(GRAPH_FILES), {}


def _owl() -> Iterator[Plan]:
    for i, r in enumerate(_newest_run("owl.json")["rows"]):
        if r.get("sql"):
            yield str(i), r["question"], r["sql"], [DATA / "owl_aquarium.ttl"], {}


def _lang() -> Iterator[Plan]:
    for r in _newest_run("lang.json")["rows"]:
        if r.get("sql"):
            english = (r.get("translation") or {}).get("used") or ""
            yield r["id"], r["question"], r["sql"], [DATA / r["ontology"]], {"lang": r.get("lang", ""), "english": english}


SETS: dict[str, Callable[[], Iterator[Plan]]] = {
    "spider": _spider, "ck25": _ck25, "owl": _owl, "lang": _lang}


def replay(name: str) -> dict[str, Any]:
    """Every recorded plan of one set answered by this tree's code: counts of states and one fingerprint."""
    from bench.recheck_bench import NoModel
    from ontouse.storage.store import GraphStore

    loop = _loop_class()
    answerers: dict[tuple[str, ...], Any] = {}
    digest = hashlib.sha256()
    states: Counter[str] = Counter()
    for qid, question, sql, graphs, options in SETS[name]():
        key = tuple(map(str, graphs))
        if key not in answerers:
            if name == "ck25":
                from bench.ck25 import register_integer_casts

                register_integer_casts()
            answerers[key] = loop(GraphStore.from_paths(graphs), NoModel())
        try:
            ans = answerers[key].answer_sql(question, sql, **options)
            state, text = ans.state, ans.answer
        except Exception as e:  # noqa: BLE001 - a plan that no longer reads is an answer of its own
            state, text = "error", f"{type(e).__name__}: {e}"
        states[state] += 1
        if state == "error":
            print(f"{name} {qid}: {text[:300]}", file=sys.stderr)
        digest.update(json.dumps([qid, state, text], ensure_ascii=False).encode("utf-8"))
    return {"plans": sum(states.values()), "states": dict(sorted(states.items())), "sha256": digest.hexdigest()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", choices=list(SETS), default=list(SETS))
    args = ap.parse_args(argv)
    for name in args.only:
        r = replay(name)
        print(f"{name}: {r['plans']} plans, {r['states']}, sha256 {r['sha256']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
