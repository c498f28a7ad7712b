"""Unit tests for the Spider4SPARQL benchmark harness (bench.spider, bench.qtype, bench.report) and the CK25
per-type scoring: execution accuracy on hand-made answers, question types of real reference queries, the
stratified sampler, and a whole run with a stand-in answerer. No model, no answerer: fast."""

import json
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # bench/ is a package at the repository root, not an installed one
    sys.path.insert(0, str(ROOT))

from bench import report, spider  # noqa: E402
from bench.qtype import TYPES, question_type  # noqa: E402
from ontouse.answer import Answer, Cell  # noqa: E402

CK25 = (ROOT / ".." / "shared" / "data" / "ck25").resolve()
needs_spider = pytest.mark.skipif(not spider.available(), reason="shared/data/spider4sparql is not there")
needs_ck25 = pytest.mark.skipif(not (CK25 / "questions.yml").exists(), reason="shared/data/ck25 is not there")


def answer(rows=None, boolean=None, state="answered", support=True, **kw) -> Answer:
    cells = [[Cell(value=str(v)) for v in row] for row in (rows or [])]
    return Answer(question="q", answer="a", rows=cells, boolean=boolean, state=state,
                  support=[["s", "p", "o"]] if support else [], **kw)


def question(gold, **kw) -> dict:
    return {"id": "t1", "db": "d", "type": "lookup", "question": "q", "gold": gold, **kw}


# ----------------------------------------------------------------------------------------------- execution accuracy

def test_column_and_row_order_are_ignored():
    q = question([["France", "12"], ["Italy", "7"]], ordered=True)
    assert spider.execution_match(answer([["7", "Italy"], ["12", "France"]]), q)
    assert spider.execution_match(answer([["France", "12"], ["Italy", "7"]]), q)


@pytest.mark.parametrize("pred, gold", [("12.0", "12"), ("11.350000000000001", "11.35"), ("1e3", "1000"),
                                        ("2861.8055555555557", "2861.805555555555555555"), (" x ", "x"),
                                        ("0.1", ".1"), ("TRUE", "true")])
def test_equal_values(pred, gold):
    assert spider.execution_match(answer([[pred]]), question([[gold]]))


@pytest.mark.parametrize("pred, gold", [("11.36", "11.35"), ("1.000002", "1"), ("france", "France"),
                                        ("12 kg", "12"), ("1,800", "1800"), ("", "0")])
def test_different_values(pred, gold):
    assert not spider.execution_match(answer([[pred]]), question([[gold]]))


def test_numbers_within_one_millionth():
    assert spider.rows_match([["1000000.4"]], [["1000000"]])
    assert not spider.rows_match([["1000002"]], [["1000000"]])


def test_duplicates_compare_as_sets():
    q = question([["a"], ["a"], ["b"]])
    assert spider.execution_match(answer([["b"], ["a"]]), q)
    assert spider.execution_match(answer([["a"], ["b"], ["b"], ["a"]]), q)
    assert not spider.execution_match(answer([["a"]]), q)


def test_rows_are_multisets_of_values():
    assert spider.rows_match([["1", "1", "2"]], [["2", "1", "1"]])
    assert not spider.rows_match([["1", "2", "2"]], [["1", "1", "2"]])
    assert not spider.rows_match([["a", "b"]], [["a"], ["b"]])  # one row of two values is not two rows


def test_extra_or_missing_rows_and_columns_are_wrong_but_partly_credited_by_f1():
    q = question([["Lisa", "3"], ["Tom", "5"]])
    extra_row, missing_col = answer([["Lisa", "3"], ["Tom", "5"], ["Ann", "1"]]), answer([["Lisa"], ["Tom"]])
    assert not spider.execution_match(extra_row, q)
    assert not spider.execution_match(missing_col, q)
    assert spider.value_f1(missing_col, q) == pytest.approx(2 * 1.0 * 0.5 / 1.5)
    assert spider.value_f1(answer([["5", "Tom"], ["lisa", "3.0"]]), q) == 1.0  # F1: case-insensitive


def test_limit_ties_accept_any_alternative():
    q = question([["pontiac"]], limit_tie=True, tie_alternatives=[[["amc"]], [["pontiac"]]])
    assert spider.execution_match(answer([["amc"]]), q)
    assert spider.execution_match(answer([["pontiac"]]), q)
    assert not spider.execution_match(answer([["amc"], ["pontiac"]]), q)
    assert spider.value_f1(answer([["amc"]]), q) == 1.0
    assert not spider.execution_match(answer([["amc"]]), question([["pontiac"]], tie_alternatives=[[["amc"]]]))


def test_empty_answers():
    q = question([["0"]])
    assert not spider.execution_match(answer(state="no_data", support=False), q)
    assert not spider.execution_match(answer([["0"]], state="error"), q)  # an error has no table
    assert not spider.execution_match(answer([]), q)
    assert spider.execution_match(answer([["0"]]), q)
    assert spider.execution_match(answer([], state="no_data"), question([]))
    assert spider.value_f1(answer(state="no_data"), q) == 0.0


def test_yes_no_answers():
    assert spider.execution_match(answer(boolean=True), question([["true"]]))
    assert spider.execution_match(answer(boolean=False), question([["False"]]))
    assert not spider.execution_match(answer(boolean=True), question([["false"]]))
    assert spider.predicted_rows(answer(boolean=False)) == [["false"]]


def test_entity_cells_are_scored_by_value():
    ans = Answer(question="q", answer="a", state="answered",
                 rows=[[Cell(value="Aruba", entity="http://x/country/1", label="Aruba")]])
    assert spider.execution_match(ans, question([["Aruba"]]))


def test_score_record_keeps_twenty_rows():
    gold = [[str(i)] for i in range(30)]
    rec = spider.score_answer(answer(gold, llm_calls=2, sql="SELECT 1", repairs=["r"]), question(gold))
    assert rec["correct"] and rec["f1"] == 1.0
    assert len(rec["predicted"]) == len(rec["gold"]) == 20 and rec["n_gold"] == 30
    assert rec["llm_calls"] == 2 and rec["sql"] == "SELECT 1" and rec["repairs"] == ["r"] and rec["has_support"]


# ----------------------------------------------------------------------------------------------- question types

SPIDER_TYPES = {
    "dev_0121": "lookup",            # two columns of one table
    "dev_0383": "lookup",            # ORDER BY without LIMIT
    "dev_0496": "filter",            # FILTER(?tonnage = 't')
    "dev_0387": "filter",            # != against a constant is a condition, not a negation
    "dev_0153": "multi-constraint",  # weight > 3000 && weight < 4000
    "dev_0962": "multi-constraint",  # state = 'Hawaii' || state = 'Wisconsin'
    "dev_0087": "aggregate",         # count(*)
    "dev_0159": "aggregate",         # count of cars faster than the one with the most horsepower
    "dev_0089": "group",             # GROUP BY
    "dev_0107": "group",             # GROUP BY + ORDER BY + LIMIT 1
    "dev_0954": "group",             # GROUP BY in a subquery (the rarest breed)
    "dev_0095": "superlative",       # ORDER BY + LIMIT 1
    "dev_0101": "superlative",       # FILTER(?year = min year of a subquery)
    "dev_0097": "comparison",        # weight < average weight of a subquery
    "dev_0746": "comparison",        # FILTER(?name IN (?name2)): an INTERSECT
    "dev_0583": "comparison",        # UNION
    "dev_0173": "negation",          # MINUS
    "dev_0978": "negation",          # FILTER NOT EXISTS
}
CK25_TYPES = {"ck25:1-en": "lookup", "ck25:5-en": "filter", "ck25:10-en": "multi-constraint",
              "ck25:9-en": "aggregate", "ck25:36-en": "group", "ck25:29-en": "superlative",
              "ck25:44-en": "comparison", "ck25:27-en": "negation", "ck25:33-en": "yes/no", "ck25:16-en": "yes/no"}


@needs_spider
def test_question_types_of_spider_reference_queries():
    questions = {q["id"]: q for q in spider.load_questions()}
    assert len(questions) == 587
    got = {i: question_type(questions[i]["sparql"]) for i in SPIDER_TYPES}
    assert got == SPIDER_TYPES
    assert all(q["type"] in TYPES for q in questions.values())
    negated = [q for q in questions.values() if any(k in q["sparql"].upper() for k in ("NOT EXISTS", "MINUS"))]
    assert Counter(q["type"] for q in questions.values())["negation"] == len(negated)


@needs_ck25
def test_question_types_of_ck25_reference_queries_agree_with_their_features():
    pytest.importorskip("yaml")
    from bench.ck25 import load_questions

    questions = load_questions()
    types = {q["id"]: question_type(q["sparql"]) for q in questions}
    assert {i: types[i] for i in CK25_TYPES} == CK25_TYPES
    for q in questions:
        f, t = set(q["features"]), types[q["id"]]
        assert ("ASK" in f) == (t == "yes/no"), q["id"]
        if "GROUP" in f:
            assert t == "group", q["id"]
        if {"ORDER", "LIMIT"} <= f and "GROUP" not in f:
            assert t == "superlative", q["id"]
        if "COUNT" in f and "GROUP" not in f:
            assert t == "aggregate", q["id"]


@pytest.mark.parametrize("sparql, expected", [
    ("ASK { ?s ?p ?o }", "yes/no"),
    ("SELECT ?x WHERE { ?x :p ?y . OPTIONAL { ?x :q ?z } FILTER(!BOUND(?z)) }", "negation"),
    ("SELECT ?x WHERE { ?x :p ?y . FILTER(?y NOT IN ('a', 'b')) }", "negation"),
    ("SELECT ?x WHERE { ?x :p ?y . FILTER(?y != ?m) { SELECT (MAX(?v) AS ?m) WHERE { ?z :p ?v } } }", "negation"),
    ("SELECT ?x WHERE { ?x :name 'MINUS' . }  # GROUP BY ?x", "filter"),  # keywords in a string, a comment
    ("SELECT ?x WHERE { ?x a :T ; :p ?y . FILTER(?y IN ('a', 'b')) }", "filter"),
    ("SELECT ?x WHERE { ?x rdf:type :T ; :p <http://x/a> , <http://x/b> }", "multi-constraint"),
    ("SELECT ?x WHERE { ?x :p ?y FILTER regex(?y, 'a') FILTER(?y > 3) }", "multi-constraint"),
    ("SELECT (AVG(?y) AS ?a) WHERE { ?x :p ?y }", "aggregate"),
    ("SELECT ?x WHERE { ?x :p ?y } ORDER BY DESC(?y) LIMIT 3 OFFSET 2", "superlative"),
    ("SELECT ?x WHERE { ?x :p ?m { SELECT (MAX(?v) AS ?m) WHERE { ?z :p ?v } } }", "superlative"),
    ("SELECT ?x WHERE { ?x :p ?y . FILTER(?y > ?avg) { SELECT (AVG(?v) AS ?avg) WHERE { ?z :p ?v } } }", "comparison"),
    ("SELECT ?x WHERE { { ?x :p 1 } UNION { ?x :p 2 } }", "comparison"),
    ("", "lookup"),
    ("this is not { SPARQL ((", "lookup"),
])
def test_question_types_of_query_shapes(sparql, expected):
    assert question_type(sparql, "the question text is not used") == expected


# ----------------------------------------------------------------------------------------------- sampler

def _fake_questions() -> list[dict]:
    sizes = {"a": 50, "b": 30, "c": 15, "d": 4, "e": 1}
    return [{"id": f"{db}{i}", "db": db} for db, n in sizes.items() for i in range(n)]


def test_sampler_is_deterministic_and_stratified():
    qs = _fake_questions()
    one, again = spider.stratified_sample(qs, 20, seed=3), spider.stratified_sample(qs, 20, seed=3)
    assert one == again and len(one) == 20
    counts = Counter(q["db"] for q in one)
    assert set(counts) == {"a", "b", "c", "d", "e"}  # every group is there
    for db, n in Counter(q["db"] for q in qs).items():
        assert abs(counts[db] - 20 * n / len(qs)) <= 1.5, db
    assert [qs.index(q) for q in one] == sorted(qs.index(q) for q in one)  # input order kept
    assert spider.stratified_sample(qs, 20, seed=4) != one
    assert spider.stratified_sample(qs, 500, seed=3) == qs
    assert len(spider.stratified_sample(qs, 3, seed=0)) == 3


@needs_spider
def test_sampler_on_the_real_questions():
    first = spider.select(sample=30, seed=7)
    assert [q["id"] for q in first] == [q["id"] for q in spider.select(sample=30, seed=7)]
    assert len(first) == 30 and set(q["db"] for q in first) == set(spider.databases())
    assert [q["id"] for q in spider.select(["pets_1"], limit=3)] == \
        [q["id"] for q in spider.load_questions(["pets_1"])[:3]]
    with pytest.raises(ValueError):
        spider.load_questions(["no_such_db"])


# ----------------------------------------------------------------------------------------------- run, summary, README

class _Oracle:
    """Stands in for the answerer: answers each question with its gold table (the first one wrong)."""

    def __init__(self, gold: dict[str, list]) -> None:
        self.gold, self.n = gold, 0

    def ask(self, text: str) -> Answer:
        self.n += 1
        if self.n == 1:
            raise RuntimeError("boom")
        return answer(self.gold[text], llm_calls=2, prompt_tokens=100, completion_tokens=10, seconds=1.5)


@needs_spider
def test_run_with_a_stand_in_answerer(tmp_path, monkeypatch, capsys):
    questions = spider.select(["pets_1", "battle_death"], sample=6, seed=1)
    oracle = _Oracle({q["question"]: q["gold"] for q in questions})
    opened = []
    monkeypatch.setattr(report, "trace_dir", lambda name: tmp_path)
    monkeypatch.setattr(report, "open_answerer_for", lambda paths, model, trace: opened.append(paths) or oracle)
    model = type("M", (), {"backend": "fake", "model": "oracle"})()
    result = spider.run_spider(model, questions, ["--only", "spider"])
    assert [p[0].name for p in opened] == ["pets_1.ttl", "battle_death.ttl"]  # one answerer per database
    s = result["summary"]
    assert s["questions"] == 6 and s["correct"] == 5 and s["errors"] == 1
    assert s["answers_without_support"] == 0 and s["median_llm_calls"] == 2
    assert sum(g["total"] for g in s["per_db"].values()) == sum(g["total"] for g in s["per_type"].values()) == 6
    assert result["model"] == {"backend": "fake", "model": "oracle"} and len(result["commit"]) in (0, 40)
    assert result["command"] == "python -m bench.ask_bench --only spider"
    assert len(capsys.readouterr().err.strip().splitlines()) == 6  # one progress line per question
    result["partial"] = True
    report.write_json(tmp_path / "ask_spider_partial.json", result)
    text = report.write_readme(tmp_path).read_text()
    assert "Spider4SPARQL (partial)" in text and "| pets_1 |" in text and "| question type | questions | EA |" in text


def test_by_group_and_unsupported():
    rows = [{"type": "a", "correct": True, "f1": 1.0, "state": "answered", "has_support": True},
            {"type": "a", "correct": False, "f1": 0.5, "state": "answered", "has_support": False},
            {"type": "b", "f1": 1.0, "state": "no_data", "has_support": False}]
    groups = report.by_group(rows, "type")
    assert groups["a"] == {"total": 2, "correct": 1, "accuracy": 0.5, "mean_f1": 0.75}
    assert groups["b"]["correct"] == 1  # without "correct", exact means F1 = 1
    assert report.unsupported(rows) == 1


def test_ck25_answer_sets():
    from bench.ask_bench import ck25_values

    thing = Answer(question="q", answer="a", state="answered",
                   rows=[[Cell(value="Kevin", entity="http://x/empl-1")], [Cell(value="42")]])
    assert ck25_values(thing) == {"http://x/empl-1", "42"}
    assert ck25_values(thing, "value") == {"Kevin", "42"}
    assert ck25_values(answer(boolean=True)) == {"true"}
    assert ck25_values(answer(boolean=False)) == set()
    assert ck25_values(answer([["x"]], state="no_data")) == set()


def test_readme_from_results_files(tmp_path):
    rows = [{"id": "ck25:1-en", "type": "lookup", "f1": 1.0}, {"id": "ck25:2-en", "type": "filter", "f1": 0.5}]
    summary = {**report.stats([]), "questions": 2, "mean_f1": 0.75, "perfect": 1}
    (tmp_path / "ask_ck25.json").write_text(json.dumps({"summary": summary, "questions": rows, "date": "d"}))
    text = report.write_readme(tmp_path).read_text()
    assert "| CK25 | 2 | mean F1 0.750 |" in text
    assert "| lookup | 1 | 1.000 | 1 |" in text and "| filter | 1 | 0.500 | 0 |" in text
    assert "Spider4SPARQL" not in text


class _Fixed:
    """Stands in for the answerer: the same yes/no answer to every question."""

    def ask(self, text: str) -> Answer:
        return answer(boolean=False, llm_calls=1)


@pytest.fixture
def no_model(tmp_path, monkeypatch):
    """The CLI without a model or answerer: results, traces and README go to tmp_path."""
    import ontocore.llm

    from bench import ask_bench

    model = type("M", (), {"backend": "fake", "model": "fixed"})()
    monkeypatch.setattr(ontocore.llm, "open_model", lambda opts: model)
    for mod in (report, ask_bench):
        monkeypatch.setattr(mod, "trace_dir", lambda name: tmp_path)
        monkeypatch.setattr(mod, "open_answerer_for", lambda paths, model, trace: _Fixed())
        monkeypatch.setattr(mod, "RESULTS", tmp_path)
    return tmp_path


@needs_spider
def test_cli_spider_partial_run(no_model, capsys):
    from bench.ask_bench import main

    assert main(["--only", "spider", "--db", "pets_1,museum_visit", "--sample", "4", "--seed", "2"]) == 0
    data = json.loads((no_model / "ask_spider_partial.json").read_text())
    assert data["partial"] and data["selection"]["sample"] == 4 and len(data["questions"]) == 4
    assert {q["db"] for q in data["questions"]} == {"pets_1", "museum_visit"}
    assert data["summary"]["correct"] == 0 and data["command"].endswith("--sample 4 --seed 2")
    assert "spider: EA 0/4" in capsys.readouterr().out
    assert "| museum_visit |" in (no_model / "README.md").read_text()


@needs_ck25
def test_cli_ck25_per_type(no_model):
    pytest.importorskip("yaml")
    from bench.ask_bench import main

    assert main(["--only", "ck25", "--limit", "33"]) == 0
    data = json.loads((no_model / "ask_ck25.json").read_text())
    per_type = data["summary"]["per_type"]
    assert sum(g["total"] for g in per_type.values()) == 33
    assert per_type["yes/no"]["correct"] == 1  # ck25:33 is a false ASK: "no" is right; ck25:16, 28 are true
    assert "| yes/no | 3 | 0.333 | 1 |" in (no_model / "README.md").read_text()
