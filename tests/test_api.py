"""The library API: `ontobuild.build(...)`, `ontouse.Answerer(...)` / `ontouse.ask(...)`, and the example script.

Answers come from real exchanges with the embedded model, recorded on the orchard fixture
(`tests/cassettes/api_orchard.json`; re-record with `ONTOBUILD_RECORD=1 pytest tests/test_api.py -k record`
or `python tests/test_api.py --record`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

import pytest

import ontobuild.errors  # the public path of the README (same classes as ontocore.errors)

from api_fixture import DATASET, FOLDER, QUESTIONS  # noqa: F401 - DATASET used by the server tests
from conftest import make_tiny_index

REPO = Path(__file__).resolve().parents[1]
CASSETTE = REPO / "tests" / "cassettes" / "api_orchard.json"


def replay():
    from ontocore.cassette import ReplayChat

    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet (python tests/test_api.py --record)")
    return ReplayChat(CASSETTE)


def check_first_answer(record: dict) -> None:
    """The recorded answer to QUESTIONS[0] (the tree with the highest yield): the Bramley apple tree, with the
    SPARQL that found it and the triples that back it, each with its source in the index."""
    assert record["state"] == "answered", record
    assert "Bramley" in record["answer"]
    assert record["sparql"] and "SELECT" in record["sparql"][-1]
    support = [" ".join(t) for t in record["support"]]
    assert any("BramleyAppleTree" in t and "yieldKg" in t and "42.5" in t for t in support), support
    sources = record.get("sources") or []
    assert any(s.get("file") == "trees.json" and s.get("path") == "$[0]['yield_kg']" for s in sources), sources


# ---- ontobuild.build -----------------------------------------------------------------------------------------

def test_build_from_an_index_returns_the_outcome_and_its_figures(tmp_path: Path) -> None:
    import ontobuild

    index = tmp_path / "index.json"
    index.write_text(make_tiny_index().to_json(), encoding="utf-8")
    result = ontobuild.build(from_index=index, out=tmp_path / "out", reason=False)
    assert isinstance(result, ontobuild.BuildResult)
    assert result.outcome == tmp_path / "out" and result.ontology.is_file() and result.index.is_file()
    assert result.counts["individuals"] == 2 and result.consistent is None
    assert json.loads((result.outcome / "stats.json").read_text())["counts"] == result.counts
    with pytest.raises(ontobuild.errors.InputError):  # the public path of the README
        ontobuild.build(["a.json"], from_index=index)


def test_build_with_the_model_passes_the_settings_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`build(files, model=..., backend=...)` is the command's build: the same call of the builder."""
    import ontobuild

    calls = {}

    def fake_run_build(**kwargs):
        calls.update(kwargs)
        return {"outcome": str(tmp_path / "o"), "counts": {"classes": 3}}

    fake = types.ModuleType("ontobuild.pipeline")
    fake.run_build = fake_run_build
    monkeypatch.setitem(sys.modules, "ontobuild.pipeline", fake)
    result = ontobuild.build(["a.json"], out=tmp_path / "o", model="m", backend="openai", model_timeout=5)
    assert result.outcome == tmp_path / "o" and result.counts == {"classes": 3}
    assert calls["files"] == [Path("a.json")] and calls["llm_options"]["model"] == "m"
    assert calls["llm_options"]["backend"] == "openai" and calls["llm_options"]["timeout"] == 5
    with pytest.raises(TypeError, match="unknown model setting"):
        ontobuild.build(["a.json"], temperature=1)


def test_public_functions_survive_their_submodules_import() -> None:
    """`ontobuild.build` and `ontouse.ask` are functions, also after the builder's steps and the question loop's
    module (of the same name) load."""
    import ontobuild
    import ontobuild.pipeline  # noqa: F401 - the builder's steps
    import ontouse
    import ontouse.answerer  # noqa: F401 - the question loop's module
    from ontobuild.pipeline import run_build
    from ontouse.answerer import open_answerer

    assert callable(run_build) and callable(open_answerer)
    assert isinstance(ontobuild.build, types.FunctionType) and ontobuild.build.__module__ == "ontobuild.api"
    assert isinstance(ontouse.ask, types.FunctionType) and ontouse.ask.__module__ == "ontouse.api"
    assert ontouse.Answerer.__module__ == "ontouse.api" and ontouse.Answer.__name__ == "Answer"
    assert sys.modules["ontobuild.pipeline"].run_build is run_build


# ---- ontouse.Answerer ----------------------------------------------------------------------------------------

def test_answerer_answers_with_sparql_support_and_sources() -> None:
    import ontouse
    from ontocore.errors import InputError

    model = replay()
    with ontouse.Answerer(FOLDER, model=model) as answerer:
        answer = answerer.ask(QUESTIONS[0])
        check_first_answer(answer.to_dict())
        schema = answerer.describe_schema()
        classes = {c["name"]: c for c in schema["classes"]}
        assert classes["Tree"]["instances"] == 4 and classes["Plot"]["instances"] == 2
        yields = next(p for p in classes["Tree"]["properties"] if p["name"] == "yieldKg")
        assert yields["kind"] == "value" and yields["type"] == "REAL" and yields["subjects"] == 4
        grows = next(p for p in classes["Tree"]["properties"] if p["name"] == "growsIn")
        assert grows["kind"] == "link" and grows["links_to"] == "Plot"
        result = answerer.sparql("SELECT (COUNT(?t) AS ?n) WHERE { ?t a <http://orchard.example/onto#Tree> }")
        assert str(result.rows[0][0]) == "4"
        with pytest.raises(InputError, match="(?i)refused|update|read-only|not allowed"):
            answerer.sparql("DELETE WHERE { ?s ?p ?o }")
        with pytest.raises(InputError, match="empty"):
            answerer.ask("  ")


def test_ask_convenience_opens_asks_and_closes() -> None:
    import ontouse

    answer = ontouse.ask(QUESTIONS[0], FOLDER, model=replay())
    check_first_answer(answer.to_dict())


def test_example_script_runs_on_an_outcome_folder() -> None:
    """examples/api_example.py, as a user runs it, with an OpenAI-compatible server that replays the cassette."""
    from cassette_server import CassetteServer

    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet")
    with CassetteServer(CASSETTE) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "test-key",
               "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
        proc = subprocess.run([sys.executable, str(REPO / "examples" / "api_example.py"), str(FOLDER),
                               QUESTIONS[0]], capture_output=True, text=True, timeout=300, env=env)
        assert not server.mismatches, server.mismatches
    assert proc.returncode == 0, proc.stderr
    assert "classes: " in proc.stdout and "Tree (4)" in proc.stdout
    assert "A: " in proc.stdout and "Bramley" in proc.stdout and "SELECT" in proc.stdout
    assert "from trees.json" in proc.stdout and "SPARQL count of" in proc.stdout


def record() -> None:
    """Record the cassette with the embedded model: the questions in the order the tests ask them."""
    import ontouse
    from ontocore.cassette import RecordingChat
    from ontocore.llm import LocalChat

    from api_fixture import write_fixture

    write_fixture()
    if CASSETTE.exists():
        CASSETTE.unlink()
    model = RecordingChat(LocalChat(), CASSETTE)
    with ontouse.Answerer(FOLDER, model=model) as answerer:
        for question in QUESTIONS:
            answer = answerer.ask(question)
            print(f"{question}\n  -> {answer.answer}\n  sql: {answer.sql}\n  calls: {answer.llm_calls}")


if __name__ == "__main__":
    if "--record" in sys.argv:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        record()
