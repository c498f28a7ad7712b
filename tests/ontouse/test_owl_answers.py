"""Replay of the embedded model's real replies (recorded by `python -m bench.owl_bench --label after --record
tests/cassettes/ask_owl_aquarium.json`) on the hand-written OWL ontology of a made-up aquarium
(tests/data/owl_aquarium.ttl) and its 24 questions with gold answers.

What is asserted is what code computed from those replies: the same figures as the bench's recorded run (right,
confident-wrong, not stated), every stated answer backed by triples of the graph, every answer's checks recorded,
and no "Unsure" or "No data" answer with support. A change to the prompts, the view or the linking shows up as a
CassetteMismatch: then re-record with the command above."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontocore.cassette import ReplayChat

REPO = Path(__file__).resolve().parents[2]
CASSETTE = REPO / "tests" / "cassettes" / "ask_owl_aquarium.json"
RESULTS = REPO / "bench" / "results" / "owl.json"


def test_replay_owl_questions() -> None:
    if not CASSETTE.is_file() or not RESULTS.is_file():
        pytest.skip("no cassette or bench result recorded yet")
    from bench.owl_bench import QUESTIONS, run, summarize
    from ontouse.storage.store import GraphStore

    runs = json.loads(RESULTS.read_text("utf-8"))["runs"]
    recorded = runs[list(runs)[-1]]  # the cassette is recorded with the latest run (--record)
    model = ReplayChat(CASSETTE)
    questions = json.loads(QUESTIONS.read_text("utf-8"))[:recorded["summary"]["questions"]]
    rows = run(model, questions)
    assert model.position == len(model.entries)  # every recorded exchange was asked for, in order
    got = summarize(rows)
    for key in ("right", "confident_wrong", "not_stated", "unsure"):
        assert got[key] == recorded["summary"][key], key
    store = GraphStore.from_paths([REPO / "tests" / "data" / "owl_aquarium.ttl"])
    for r in rows:
        assert r["checks"] is not None
        if r["stated"]:
            assert r["support"], r["question"]
            for s, p, o in r["support"]:
                assert _in_graph(store, s, p, o), (r["question"], (s, p, o))
        else:
            assert not r["support"], r["question"]  # Unsure, No data, error: no evidence shown


def _in_graph(store, s: str, p: str, o: str) -> bool:
    from rdflib import Literal, URIRef

    def iri(name: str) -> URIRef:
        prefix, _, local = name.partition(":")
        return URIRef(store.prefixes[prefix] + local) if prefix in store.prefixes else URIRef(name.strip("<>"))

    pred = iri(p) if p != "a" else URIRef("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
    return any((isinstance(x, Literal) and o in (str(x), f"{x}@{x.language}")) or (isinstance(x, URIRef) and x == iri(o))
               for x in store.graph.objects(iri(s), pred))
