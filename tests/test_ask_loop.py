"""The question loop with a scripted model (no LLM): plan -> results -> answer, checks and fallbacks,
batch mode and the CLI wiring."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rdflib import Graph

from ontobuild.errors import InputError
from ontobuild.llm import ChatReply, ToolCall, Usage
from ontouse import ask as ask_mod
from ontouse.ask import Asker, read_questions, run_batch
from ontouse.catalog import Catalog

from test_ask_plan import TTL


class Scripted:
    """A model that replies with the given tool calls, in order."""

    backend, model = "local", "scripted"

    def __init__(self, calls: list[tuple[str, dict[str, Any]]]) -> None:
        self.calls = list(calls)
        self.usage = Usage(self.backend, self.model)
        self.seen: list[list[dict[str, Any]]] = []

    def chat(self, messages, tools=None, tool_choice="required", max_tokens=1024) -> ChatReply:
        self.seen.append(list(messages))
        name, args = self.calls.pop(0)
        reply = ChatReply(None, [ToolCall(f"c{len(self.seen)}", name, json.dumps(args))], prompt_tokens=100,
                          completion_tokens=10, seconds=0.01)
        self.usage.add(reply)
        return reply


@pytest.fixture(scope="module")
def graph() -> Graph:
    return Graph().parse(data=TTL, format="turtle")


def asker(graph: Graph, calls) -> tuple[Asker, Scripted]:
    model = Scripted(calls)
    return Asker(graph, Catalog(graph), model), model


def test_plan_then_answer(graph: Graph) -> None:
    a, model = asker(graph, [("query", {"kind": "min", "class": "Helmet", "property": "weightG"}),
                             ("answer", {"text": "The lightest helmet is the KidRider Mini (230 g)."})])
    ans = a.ask("Which helmet is the lightest?")
    assert ans.state == "answered" and ans.answer.startswith("The lightest helmet")
    assert [":KidRider", ":weightG", "230"] in ans.support
    assert ans.llm_calls == 2 and ans.prompt_tokens == 200 and ans.sparql
    assert "KidRider Mini" in model.seen[1][-1]["content"]  # the model saw the result
    assert "Which helmet is the lightest?" in model.seen[0][1]["content"]


def test_wrong_answer_is_corrected_then_written_by_code(graph: Graph) -> None:
    a, model = asker(graph, [("query", {"kind": "count", "class": "Helmet"}),
                             ("answer", {"text": "There are 5 helmets."}),
                             ("answer", {"text": "There are 7 helmets."})])
    ans = a.ask("How many helmets are there?")
    assert "not in the results" in model.seen[2][-1]["content"]
    assert ans.state == "code_answer" and ans.answer.startswith("3 ")
    assert ans.support


def test_empty_twice_gives_no_data(graph: Graph) -> None:
    a, _ = asker(graph, [("query", {"kind": "lookup", "about": "Red", "property": "priceEur"}),
                         ("query", {"kind": "lookup", "about": "Blue", "property": "priceEur"})])
    ans = a.ask("What is the price of red or blue?")
    assert ans.answer.startswith("No data available (looked for:") and ans.state == "no_data"
    assert ans.support == []


def test_kind_none_and_uncovered_words(graph: Graph) -> None:
    a, _ = asker(graph, [("query", {"kind": "none"})])
    assert a.ask("Who founded the company?").answer.startswith("No data available")
    a, _ = asker(graph, [("query", {"kind": "lookup", "about": "UrbanDome", "property": "storedAt"}),
                         ("query", {"kind": "lookup", "about": "UrbanDome", "property": "priceEur"})])
    ans = a.ask("Who is the supplier of the UrbanDome?")
    assert ans.answer.startswith("No data available") and "supplier" in ans.answer


def test_answer_before_query_is_refused(graph: Graph) -> None:
    a, model = asker(graph, [("answer", {"text": "It costs 10 EUR."}),
                             ("query", {"kind": "lookup", "about": "SkyShell Aero", "property": "priceEur"}),
                             ("answer", {"text": "The SkyShell Aero costs 139 EUR."})])
    ans = a.ask("What is the price of the SkyShell Aero?")
    assert "Call query first" in model.seen[1][-1]["content"]
    assert ans.answer == "The SkyShell Aero costs 139 EUR." and ans.support == [[":SkyShell", ":priceEur", "139"]]


def test_plan_error_goes_back_to_the_model(graph: Graph) -> None:
    a, model = asker(graph, [("query", {"kind": "lookup", "about": "SkyShell Aero"}),
                             ("query", {"kind": "lookup", "about": "SkyShell Aero", "property": "priceEur"}),
                             ("answer", {"text": "The SkyShell Aero costs 139 EUR."})])
    ans = a.ask("What does the SkyShell Aero cost?")
    assert "lookup needs the property" in model.seen[1][-1]["content"]
    assert ans.state == "answered" and ans.support


def test_raw_sparql_tool_is_read_only(graph: Graph) -> None:
    a, model = asker(graph, [("sparql", {"query": "DELETE WHERE { ?s ?p ?o }"}),
                             ("sparql", {"query": "SELECT ?p WHERE { :SkyShell :priceEur ?p }"}),
                             ("answer", {"text": "It costs 139 EUR."})])
    a.full_tools = True
    ans = a.ask("What does the SkyShell Aero cost?")
    assert "not allowed" in model.seen[1][-1]["content"]
    assert ans.answer == "It costs 139 EUR." and [":SkyShell", ":priceEur", "139"] in ans.support
    assert len(graph) > 0


def test_batch_outcome(graph: Graph, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ttl = tmp_path / "shop.ttl"
    ttl.write_text(TTL)
    qfile = tmp_path / "q.json"
    qfile.write_text(json.dumps([{"query": "Which helmet is the lightest?", "expected": "KidRider Mini"},
                                 {"query": "Who founded the shop?"}]))
    model = Scripted([("query", {"kind": "min", "class": "Helmet", "property": "weightG"}),
                      ("answer", {"text": "The KidRider Mini (230 g)."}),
                      ("query", {"kind": "none"})])
    line = run_batch([ttl], None, qfile, out=tmp_path / "out", model=model)
    assert line.startswith("1/1 correct (expected given), 1.5 calls")
    rows = json.loads((tmp_path / "out" / "answers.json").read_text())
    assert set(rows[0]) >= {"question", "answer", "support", "sparql", "llm_calls", "prompt_tokens",
                            "completion_tokens", "seconds", "expected"}
    assert rows[0]["correct"] is True and rows[0]["support"]
    assert "expected" not in rows[1] and rows[1]["answer"].startswith("No data available")
    stats = json.loads((tmp_path / "out" / "stats.json").read_text())
    assert stats["llm"]["calls"] == 3 and stats["llm"]["backend"] == "local"
    kinds = [json.loads(l)["kind"] for l in (tmp_path / "out" / "answers.log").read_text().splitlines()]
    assert kinds[0] == "start" and "llm" in kinds and "answer" in kinds


def test_bad_questions_file(tmp_path: Path) -> None:
    bad = tmp_path / "q.json"
    bad.write_text('{"query": 1')
    with pytest.raises(InputError):
        read_questions(bad)
    bad.write_text('[{"expected": 3}]')
    with pytest.raises(InputError, match="no \"query\""):
        read_questions(bad)


def test_cli_question_and_bad_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ontouse.cli import main

    ttl = tmp_path / "shop.ttl"
    ttl.write_text(TTL)
    model = Scripted([("query", {"kind": "lookup", "about": "SkyShell Aero", "property": "priceEur"}),
                      ("answer", {"text": "The SkyShell Aero costs 139 EUR."})])
    monkeypatch.setattr(ask_mod, "_open", lambda opts: model)
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "What does the SkyShell Aero cost?"])
    assert r.exit_code == 0, r.output
    assert r.stdout.splitlines()[0] == "The SkyShell Aero costs 139 EUR."
    assert "Support:" in r.stdout and ":SkyShell :priceEur 139" in r.stdout
    bad = tmp_path / "q.json"
    bad.write_text("not json")
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "--questions", str(bad)])
    assert r.exit_code == 2 and "Error:" in r.output and "Traceback" not in r.output


def test_yes_no_planned_about_a_part_is_repaired_about_what_the_question_names() -> None:
    """The 1.5B model's plan for "Is the CityGlide 700 available in size S?": about its size M variant, property
    hasColor. Code tries the product the question names, with its other properties: no, with its variants."""
    g = Graph().parse(data=TTL + """
:Variant a owl:Class . :hasVariant a owl:ObjectProperty .
:CityGlide a :Product ; rdfs:label "CityGlide 700" ; :hasColor :Blue ; :hasVariant :CityGlideM, :CityGlideL .
:CityGlideM a :Variant ; rdfs:label "CityGlide 700 SIZE M" .
:CityGlideL a :Variant ; rdfs:label "CityGlide 700 SIZE L" .
:SkyShell :hasVariant :SkyShellS . :SkyShellS a :Variant ; rdfs:label "SkyShell Aero SIZE S" .
""", format="turtle")
    a, _ = asker(g, [("query", {"kind": "lookup", "about": "CityGlide 700 SIZE M", "property": "hasColor",
                                "value": "S"}),
                     ("answer", {"text": "No, the CityGlide 700 comes in sizes M and L."})])
    ans = a.ask("Is the CityGlide 700 available in size S?")
    assert ans.state == "answered" and ans.answer.startswith("No")
    assert [":CityGlide", ":hasVariant", ":CityGlideM"] in ans.support
