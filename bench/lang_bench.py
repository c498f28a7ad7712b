"""Multilingual benchmark: `ontoask` (embedded model) over questions asked in English, German, French, Spanish,
Italian, Dutch and Portuguese (tests/data/multilingual_questions.json: the same base questions in every language,
with gold answers) about three small ontologies written by hand for this project: the made-up aquarium
(tests/data/owl_aquarium.ttl, labelled in English and German), a made-up network of lighthouses
(tests/data/owl_lighthouses.ttl, labelled in French and English, French first) and made-up mountain huts
(tests/data/owl_huts.ttl, labelled in Italian and English, Italian first).

    python -m bench.lang_bench --label after                 # this tree's answerer, every question
    python -m bench.lang_bench --label after --limit 14      # the first 14 questions (two base questions)
    python -m bench.lang_bench --label after --lang de fr    # only some languages (English is the reference)
    python -m bench.lang_bench --label after --resume        # go on with a stopped run of that label

Results: bench/results/lang.json and lang.md; each label's run is kept beside the others (re-running a label
replaces only that label's run). Per language and per question type: right / confident-wrong / not stated, and
each language's points behind (or ahead of) English on the same base questions.

The language of a question is detected by a language identifier when one is installed (py3langid); without one
the detection falls back on the ontology's labels and English function words (ontouse.language.detection), so a run
records which identifier it had (`identifier` in the results).

How it scores (every rule is in bench.owl_bench.score): an answer is *stated* when its state is "answered" (an
"Unsure: ..." answer, "No data available" and an error are not); a stated answer is right when
bench.score.answer_is_correct accepts it for the gold answer (yes/no: the answer's machine field `boolean`, whatever
the language of its text, which is the question's; else the text's values, the data's own: numbers exact for
integers, 1 % otherwise; lists every gold name, at most one other); a stated answer that is not right is
*confident-wrong*."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data"
QUESTIONS = DATA / "multilingual_questions.json"
RESULTS = REPO / "bench" / "results"
REFERENCE = "en"


def base_id(question: dict[str, Any]) -> str:
    return question["id"].rsplit("-", 1)[0]


def run(model: Any, questions: list[dict[str, Any]], after_each: Any = None) -> list[dict[str, Any]]:
    """Every question through one answerer per ontology (the view of each is built once)."""
    from bench.owl_bench import score
    from ontouse.answerer import AnswerLoop
    from ontouse.storage.store import GraphStore

    answerers: dict[str, AnswerLoop] = {}
    rows = []
    for i, q in enumerate(questions, 1):
        if q["ontology"] not in answerers:
            answerers[q["ontology"]] = AnswerLoop(GraphStore.from_paths([DATA / q["ontology"]]), model)
        started = time.perf_counter()
        ans = answerers[q["ontology"]].ask(q["question"])
        row = {"id": q["id"], "base": base_id(q), "lang": q["lang"], "question": q["question"],
               "type": q.get("type", ""), "ontology": q["ontology"], "expected": q["gold"], "answer": ans.answer,
               "state": ans.state, "boolean": ans.boolean, **score(ans, q["gold"]), "detected": ans.language,
               "translation": ans.translation, "sql": ans.sql, "repairs": ans.repairs, "checks": ans.checks,
               "llm_calls": ans.llm_calls, "seconds": round(time.perf_counter() - started, 1)}
        rows.append(row)
        mark = "right" if row["right"] else "WRONG" if row["confident_wrong"] else ans.state
        print(f"[{i}/{len(questions)}] {q['lang']} {mark}: {q['question']} -> {ans.answer[:100]!r}",
              file=sys.stderr, flush=True)
        if after_each is not None:
            after_each(rows)
    return rows


def _tally(rows: list[dict[str, Any]]) -> dict[str, int]:
    return {"questions": len(rows), "right": sum(r["right"] for r in rows),
            "confident_wrong": sum(r["confident_wrong"] for r in rows),
            "not_stated": sum(not r["stated"] for r in rows),
            "unsure": sum(r["state"] == "unsure" for r in rows),
            "detected_right": sum(r["detected"] == r["lang"] for r in rows),
            "translated": sum(bool((r.get("translation") or {}).get("used")) for r in rows),
            "llm_calls": sum(r["llm_calls"] for r in rows)}


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_lang: dict[str, list] = {}
    by_type: dict[str, list] = {}
    for r in rows:
        by_lang.setdefault(r["lang"], []).append(r)
        by_type.setdefault(r["type"], []).append(r)
    per_lang = {lang: _tally(rs) for lang, rs in by_lang.items()}
    reference = {r["base"]: r["right"] for r in by_lang.get(REFERENCE, [])}
    for lang, rs in by_lang.items():  # points behind English on the base questions both ran
        same = [r for r in rs if r["base"] in reference]
        if same and lang != REFERENCE:
            mine = 100.0 * sum(r["right"] for r in same) / len(same)
            theirs = 100.0 * sum(reference[r["base"]] for r in same) / len(same)
            per_lang[lang]["points_vs_english"] = round(mine - theirs, 1)
    return {**_tally(rows), "per_language": per_lang, "per_type": {t: _tally(rs) for t, rs in by_type.items()}}


def _resumed(run: dict[str, Any]) -> str:
    earlier = run.get("resumed_from")
    if not earlier or not earlier.get("answers"):
        return ""
    return f" (the first {earlier['answers']} answers at {str(earlier.get('commit', ''))[:10]})"


def render_md(results: dict[str, Any]) -> str:
    lines = ["# Multilingual benchmark (made-up aquarium, lighthouses and mountain huts)\n",
             "Questions: `tests/data/multilingual_questions.json` over `tests/data/owl_aquarium.ttl` (English and "
             "German labels), `tests/data/owl_lighthouses.ttl` (French and English labels) and `tests/data/owl_huts.ttl` "
             "(Italian and English labels), written by hand for "
             "this project; the same base questions in every language. Embedded model; busy machine, so seconds "
             "are not comparable across runs. Scoring: the docstring of `bench/lang_bench.py`; *confident-wrong* "
             "= an answer stated (not Unsure / No data) that is wrong.\n",
             "| run | commit | date | identifier | right | confident-wrong | not stated (of which Unsure) "
             "| LLM calls |",
             "|---|---|---|---|---|---|---|---|"]
    for label, r in results["runs"].items():
        s = r["summary"]
        lines.append(f"| {label}{' (stopped early)' if r.get('partial') else ''} | "
                     f"{str(r.get('commit', ''))[:10]}{' +changes' if r.get('dirty') else ''}{_resumed(r)} | "
                     f"{r.get('date', '')} | "
                     f"{r.get('identifier') or 'none'} | {s['right']}/{s['questions']} | {s['confident_wrong']} | "
                     f"{s['not_stated']} ({s['unsure']}) | {s['llm_calls']} |")
    for label, r in results["runs"].items():
        s = r["summary"]
        lines += [f"\n## {label}: per language\n",
                  "| language | questions | right | confident-wrong | not stated | vs English (points) | "
                  "language detected | translated | LLM calls |", "|---|---|---|---|---|---|---|---|---|"]
        for lang, v in sorted(s["per_language"].items(), key=lambda kv: (kv[0] != REFERENCE, kv[0])):
            vs = v.get("points_vs_english")
            lines.append(f"| {lang} | {v['questions']} | {v['right']} | {v['confident_wrong']} | {v['not_stated']} | "
                         f"{'' if vs is None else f'{vs:+.1f}'} | {v['detected_right']} | {v['translated']} | "
                         f"{v['llm_calls']} |")
        lines += [f"\n## {label}: per question type\n",
                  "| type | questions | right | confident-wrong | not stated |", "|---|---|---|---|---|"]
        for t, v in sorted(s["per_type"].items()):
            lines.append(f"| {t} | {v['questions']} | {v['right']} | {v['confident_wrong']} | {v['not_stated']} |")
        lines += [f"\n## {label}: answers\n", "| id | question | expected | answer | verdict | detected |",
                  "|---|---|---|---|---|---|"]
        for q in r["rows"]:
            verdict = "right" if q["right"] else "**confident-wrong**" if q["confident_wrong"] else q["state"]
            answer = " ".join(str(q["answer"]).split())[:120].replace("|", "\\|")
            lines.append(f"| {q['id']} | {q['question']} | {q['expected']} | {answer} | {verdict} | "
                         f"{q['detected']} |")
    return "\n".join(lines) + "\n"


def crosslingual_available() -> bool:
    """The optional multilingual embedding model is installed (the translation prompt then gets a glossary)."""
    from ontouse.language.crosslingual import available

    return available()


def dictionaries_installed() -> list[str]:
    """The languages with a bilingual dictionary into English installed (ontouse.language.bilingual)."""
    from ontouse.language.bilingual import open_dictionary
    from ontouse.language.detection import SUPPORTED

    return [lang for lang in SUPPORTED if open_dictionary(lang) is not None]


def identifier_name() -> str:
    """The language identifier this run has ("" for none: clues only)."""
    from ontouse.language.detection import _identifier

    ident = _identifier()
    return "" if ident is None else type(ident).__module__.split(".")[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--label", required=True, help="the name of this run in the results (e.g. before, after)")
    ap.add_argument("--limit", type=int, help="only the first N questions (after --lang)")
    ap.add_argument("--lang", nargs="+", help="only questions in these languages (ISO 639-1 codes)")
    ap.add_argument("--ids", nargs="+", help="only the questions with these ids (a development subset)")
    ap.add_argument("--record", type=Path, help="write the model exchanges to this cassette")
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    ap.add_argument("--resume", action="store_true",
                    help="keep the answers of this label's earlier (stopped) run and ask only the questions it did not "
                         "reach (the run records the commit of the earlier answers as resumed_from)")
    args = ap.parse_args(argv)
    from bench.report import run_labelled

    questions = json.loads(QUESTIONS.read_text("utf-8"))
    if args.lang:
        questions = [q for q in questions if q["lang"] in set(args.lang)]
    if args.ids:
        questions = [q for q in questions if q["id"] in set(args.ids)]
    questions = questions[:args.limit]
    extra: dict[str, Any] = {"identifier": identifier_name(), "crosslingual": crosslingual_available(),
                             "dictionaries": dictionaries_installed()}
    prior: list[dict[str, Any]] = []
    if args.resume and (RESULTS / "lang.json").is_file():
        earlier = json.loads((RESULTS / "lang.json").read_text("utf-8"))["runs"].get(args.label, {})
        wanted = {q["id"] for q in questions}
        prior = [r for r in earlier.get("rows", []) if r["id"] in wanted]
        done = {r["id"] for r in prior}
        questions = [q for q in questions if q["id"] not in done]
        extra["resumed_from"] = {"commit": earlier.get("commit", ""), "date": earlier.get("date", ""),
                                 "answers": len(prior)}

    def resumed(model: Any, asked: list[dict[str, Any]], after_each: Any = None) -> list[dict[str, Any]]:
        more = None if after_each is None else (lambda rows: after_each(prior + rows))
        return prior + run(model, asked, after_each=more)

    return run_labelled("lang", questions, args, argv, resumed, summarize, render_md, extra=extra)


if __name__ == "__main__":
    raise SystemExit(main())
