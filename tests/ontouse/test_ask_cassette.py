"""Replay of real exchanges with the embedded local model (recorded cassettes), on ontologies of two domains.

The cassette holds the model's real replies to the real prompts; replay checks that every request is the one
recorded, so a change to the prompts, the view or the linking shows up as a CassetteMismatch: then re-record with

    .venv/bin/python tests/ontouse/test_ask_cassette.py --record

What is asserted is what code computed from those replies: the answer values, the support triples (each one in
the graph), the SPARQL that ran.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from ontocore.cassette import RecordingChat, ReplayChat

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data"
CASSETTE = REPO / "tests" / "cassettes" / "ask_two_domains.json"

# (ontology files, question, what the answer's values must include): two small ontologies made up for this
# project's tests (tests/data), questions written by hand for them
CASES = [
    (("owl_aquarium.ttl",), "What is the weight of Bruno in kilograms?", ["95"]),
    (("owl_aquarium.ttl",), "Which animal is the heaviest?", None),
    (("owl_aquarium.ttl",), "How many animals does each keeper care for?", None),
    (("owl_lighthouses.ttl",), "How many lighthouses are automated?", ["3"]),
    (("owl_lighthouses.ttl",), 'In which year was the lighthouse "Trévaneg" built?', ["1865"]),
    (("owl_lighthouses.ttl",), "Who is the director of the company?", None),
]


def _paths(files: tuple[str, ...]) -> list[Path]:
    return [DATA / f for f in files]


def _run(model) -> list:
    from ontouse.answerer import open_answerer

    answers, answerers = [], {}
    for files, question, _ in CASES:
        if files not in answerers:
            answerers[files] = open_answerer(_paths(files), model=model)
        answers.append((answerers[files], answerers[files].ask(question)))
    return answers


def test_replay_two_domains() -> None:
    if not all(p.is_file() for files, _, _ in CASES for p in _paths(files)):
        pytest.skip(f"test ontologies not found under {DATA}")
    if not CASSETTE.is_file():
        pytest.skip(f"no cassette recorded yet: {CASSETTE}")
    model = ReplayChat(CASSETTE)
    results = _run(model)
    assert model.position == len(model.entries)  # every recorded exchange was asked for, in order
    for (answerer, ans), (_, question, expected) in zip(results, CASES):
        assert ans.question == question and ans.llm_calls >= 1
        if ans.state == "answered":
            assert ans.support, f"{question}: an answer without support"
            assert ans.sparql and ans.sql
        elif ans.state == "unsure":  # a candidate that failed a check: never stated, no support
            assert ans.answer.startswith("Unsure: ") and "best candidate: " in ans.answer and not ans.support
            assert any(not c["passed"] for c in ans.checks)
        else:
            assert ans.answer.startswith("No data available") and not ans.rows
        if expected is not None:
            text = " ".join(ans.values()) + " " + " ".join(c.label for r in ans.rows for c in r)
            assert all(e in text for e in expected), (question, ans.answer)


def _tail(term: str) -> str:
    """A rendered term without its prefix or namespace."""
    return re.split(r"[#/:]", term.rstrip(">"))[-1]


def _numbered(queries: list[str]) -> list[str]:
    """Queries with their generated variables' numbers left out."""
    return [re.sub(r"(\?[A-Za-z_]+?)\d+\b", r"\1", q) for q in queries]


def test_replay_over_a_sparql_endpoint_gives_the_same_answers(tmp_path: Path) -> None:
    """The last ontology's cases again, with the graph behind a real Oxigraph server: the same requests to the model (so the
    same recorded replies serve), the same answers and support."""
    from ontouse.answerer import open_answerer
    from ontouse.storage.store import Source
    from oxigraph_server import oxigraph_server

    files = CASES[-1][0]
    if not CASSETTE.is_file() or not all(p.is_file() for p in _paths(files)):
        pytest.skip("no cassette or no test ontology")
    local_model = ReplayChat(CASSETTE)
    local = _run(local_model)
    first = next(i for i, (f, _, _) in enumerate(CASES) if f == files)
    start = sum(a.llm_calls for _, a in local[:first])
    with oxigraph_server({None: _paths(files)}, tmp_path) as url:
        model = ReplayChat(CASSETTE)
        model.position = start
        answerer = open_answerer(store=Source(endpoint=url).open(), model=model)
        for (_, here), (_, question, _) in zip(local[first:], CASES[first:]):
            there = answerer.ask(question)
            # the same query, up to the numbering of its label variables
            assert _numbered(there.sparql) == _numbered(here.sparql), (there.sparql, here.sparql)
            assert sorted(there.values()) == sorted(here.values())
            # the same triples (in any order: no ORDER BY); only the prefixes differ (an endpoint does not send
            # the files' prefixes)
            assert sorted(tuple(map(_tail, t)) for t in there.support) == \
                sorted(tuple(map(_tail, t)) for t in here.support)
    assert model.position == len(model.entries)


def record() -> None:
    from ontocore.llm import open_model

    model = RecordingChat(open_model({"backend": "local"}), CASSETTE)
    for _, ans in _run(model):
        print(f"{ans.question}\n  -> {ans.answer[:200]}\n  sql: {ans.sql}")


if __name__ == "__main__":
    if "--record" in sys.argv:
        record()


@pytest.mark.live
def test_live_question_and_batch_through_the_cli(tmp_path: Path) -> None:
    """The embedded model, through the console script: one question (JSON out) and a batch into an outcome."""
    import json
    import shutil
    import subprocess

    kg = DATA / "owl_aquarium.ttl"
    exe = shutil.which("ontoask", path=str(Path(sys.executable).parent))
    if not kg.is_file() or not exe:
        pytest.skip("the test ontology or the console script is missing")
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    proc = subprocess.run([exe, "--ontology", str(kg), "--json", "How many animals weigh more than 50 kilograms?"],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    ans = json.loads(proc.stdout)
    assert ans["state"] == "answered" and ans["support"] and ans["rows"][0][0]["value"] == "4"
    questions = tmp_path / "q.json"
    questions.write_text(json.dumps(["How many sharks are there?", "What is the weight of the heaviest animal?"]))
    out = tmp_path / "out"
    proc = subprocess.run([exe, "--ontology", str(kg), "--questions", str(questions), "--out", str(out)],
                          capture_output=True, text=True, timeout=900, env=env)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads((out / "answers.json").read_text())
    assert [r["state"] for r in rows] == ["answered", "answered"] and all(r["support"] for r in rows)
    assert (out / "stats.json").is_file() and (out / "answers.log").is_file()
