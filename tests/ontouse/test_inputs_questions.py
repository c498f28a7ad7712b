"""Inputs and questions a user meets next (issue 48, item 5): YAML question files (the TEXT2SPARQL challenge's
questions.yaml too), questions over an ontology that is mostly a schema (its class hierarchy, its properties'
domains), API errors as the documented error types, each warning once. Made-up domains: a brewery, a ropewalk."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ontocore.errors import InputError, OntoError
from ontouse.runs import read_questions

BREWERY = """@prefix br: <https://brewery.example/o#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
br:Vessel a owl:Class ; rdfs:label "vessel" .
br:Fermenter a owl:Class ; rdfs:label "fermenter" ; rdfs:subClassOf br:Vessel .
br:BrightTank a owl:Class ; rdfs:label "bright tank" ; rdfs:subClassOf br:Vessel .
br:Recipe a owl:Class ; rdfs:label "recipe" ;
    rdfs:subClassOf [ a owl:Restriction ; owl:onProperty br:brewedIn ; owl:someValuesFrom br:Fermenter ] .
br:capacityL a owl:DatatypeProperty ; rdfs:label "capacity (L)" ; rdfs:domain br:Vessel ; rdfs:range xsd:decimal .
br:brewedIn a owl:ObjectProperty ; rdfs:label "brewed in" ; rdfs:domain br:Recipe ; rdfs:range br:Fermenter .
"""
ROPEWALK = """@prefix rw: <https://ropewalk.example/terms/> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
rw:Rope a rdfs:Class ; rdfs:label "rope" .
rw:Hawser a rdfs:Class ; rdfs:label "hawser" ; rdfs:subClassOf rw:Rope .
rw:Spool a rdfs:Class ; rdfs:label "spool" .
rw:woundOn a rdf:Property ; rdfs:label "wound on" ; rdfs:domain rw:Rope ; rdfs:range rw:Spool .
rw:Hemp a rw:Fibre ; rdfs:label "hemp" .
"""


def _answerer(tmp_path: Path, name: str, text: str):
    from ontouse.answerer import AnswerLoop
    from ontouse.sqlplan.schema_build import build_schema
    from ontouse.storage.store import GraphStore

    from ontouse_graphs import NoModel

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    store = GraphStore.from_paths([path])
    return AnswerLoop(store, NoModel(), schema=build_schema(store))


@pytest.mark.parametrize("name,text,question,sql,expected", [
    ("brewery.ttl", BREWERY, "Which classes are subclasses of vessel?",
     "SELECT c.label FROM Class AS c JOIN Class AS p ON c.subClassOf = p.iri WHERE p.label = 'vessel'",
     "bright tank; fermenter"),
    ("brewery.ttl", BREWERY, "How many classes are there?", "SELECT COUNT(*) FROM Class", "4"),  # not the restriction
    ("brewery.ttl", BREWERY, "Which properties apply to vessels?",
     "SELECT p.label FROM Property AS p JOIN Class AS c ON p.domain = c.iri WHERE c.label = 'vessel'", "capacity (L)"),
    ("ropewalk.ttl", ROPEWALK, "Which class is the range of the property wound on?",
     "SELECT c.label FROM Property AS p JOIN Class AS c ON p.range = c.iri WHERE p.label = 'wound on'", "spool"),
    ("ropewalk.ttl", ROPEWALK, "Which kinds of rope are there?",
     "SELECT c.label FROM Class AS c JOIN Class AS p ON c.subClassOf = p.iri WHERE p.label = 'rope'", "hawser"),
])
def test_an_ontology_that_is_mostly_a_schema_is_asked_about_its_classes_and_properties(
        tmp_path: Path, name: str, text: str, question: str, sql: str, expected: str) -> None:
    """Its view has a Class and a Property table (the named classes, not class expressions), so a plan over its
    hierarchy and its properties' domains and ranges answers with support (before: "no typed individuals")."""
    answerer = _answerer(tmp_path, name, text)
    assert {"class", "property"} <= set(answerer.schema.tables)
    ans = answerer.answer_sql(question, sql)
    assert ans.state == "answered" and ans.answer.startswith(expected), (ans.answer, ans.error)
    assert ans.support


def test_yaml_questions_and_the_text2sparql_questions_file(tmp_path: Path) -> None:
    plain = tmp_path / "q.yml"
    plain.write_text("- How many fermenters are there?\n- question: Which vessel holds the most?\n"
                     "  expected: [Tank 3]\n", encoding="utf-8")
    assert read_questions(plain) == [{"query": "How many fermenters are there?"},
                                     {"question": "Which vessel holds the most?", "expected": ["Tank 3"],
                                      "query": "Which vessel holds the most?"}]
    challenge = tmp_path / "questions.yaml"
    challenge.write_text("""---
dataset:
  id: https://brewery.example/datasets/main/
questions:

  - question:
      en: In which tank is the stout brewed?
      de: In welchem Tank wird das Stout gebraut?
    query:
      sparql: SELECT ?t WHERE { ?t a <https://brewery.example/o#Fermenter> }

  - question:
      de: Wie viele Rezepte gibt es?
""", encoding="utf-8")
    items = read_questions(challenge)
    assert [(q["query"], q.get("language")) for q in items] == [
        ("In which tank is the stout brewed?", "en"), ("In welchem Tank wird das Stout gebraut?", "de"),
        ("Wie viele Rezepte gibt es?", "de")]
    assert {q["dataset"] for q in items} == {"https://brewery.example/datasets/main/"}
    assert items[0]["sparql"].startswith("SELECT ?t") and "sparql" not in items[2]
    (tmp_path / "bad.yaml").write_text("questions: [unclosed\n", encoding="utf-8")
    with pytest.raises(InputError, match="not valid YAML"):
        read_questions(tmp_path / "bad.yaml")


def test_the_cli_takes_a_yaml_questions_file(tmp_path: Path) -> None:
    """`ontoask --questions q.yml` reads it (it was refused as "not valid JSON"); a dead model server stops the
    batch with the usual error after the file was read."""
    from click.testing import CliRunner

    from fake_openai import dead_url
    from ontouse.cli import main

    (tmp_path / "brewery.ttl").write_text(BREWERY, encoding="utf-8")
    (tmp_path / "q.yml").write_text("- Which classes are subclasses of vessel?\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["--ontology", str(tmp_path / "brewery.ttl"), "--questions",
                                       str(tmp_path / "q.yml"), "--out", str(tmp_path / "out"), "--backend", "openai",
                                       "--base-url", dead_url(), "--model-retries", "0"])
    assert "JSON" not in result.output and "Cannot reach the model server" in result.output, result.output


def test_api_errors_are_the_documented_error_types(tmp_path: Path) -> None:
    """Through the Python API a missing, misplaced or unsupported input is an InputError (an OntoError), never a
    bare FileNotFoundError, whatever the reader."""
    import ontobuild
    import ontouse

    (tmp_path / "plans.dwg").write_bytes(b"AC1032\x00\x00")
    calls = [lambda: ontobuild.build([tmp_path / "missing.csv"], out=tmp_path / "o1"),
             lambda: ontobuild.build([tmp_path / "missing.pdf"], out=tmp_path / "o2"),
             lambda: ontobuild.build([tmp_path], out=tmp_path / "o3"),
             lambda: ontobuild.build([tmp_path / "plans.dwg"], out=tmp_path / "o4"),
             lambda: ontobuild.build(from_index=tmp_path / "missing.json", out=tmp_path / "o5"),
             lambda: ontouse.Answerer(tmp_path / "missing.ttl")]
    for call in calls:
        with pytest.raises(OntoError) as e:
            call()
        assert isinstance(e.value, InputError), repr(e.value)
    assert not any(tmp_path.glob("o*"))


def test_each_warning_is_printed_once(tmp_path: Path) -> None:
    """A dry run over a table with a repeated header and a text in cp1252: each warning once (it was logged to
    stderr and printed again with the plan); and the command-line logging lets the same warning through once."""
    from click.testing import CliRunner

    from ontobuild.cli import main
    from ontocore.cliutil import setup_logging

    (tmp_path / "ropes.csv").write_text("rope,rope,length\nA,B,40\nC,D,55\n", encoding="utf-8")
    (tmp_path / "memo.txt").write_bytes("The caf\xe9 spool holds 40 m.".encode("cp1252"))
    result = CliRunner().invoke(main, ["--dry-run", str(tmp_path / "ropes.csv"), str(tmp_path / "memo.txt")])
    assert result.exit_code == 0, result.output
    assert result.output.count("repeats 'rope'") == 1 and result.output.count("read as Windows-1252") == 1, \
        result.output

    setup_logging(0)
    handler = logging.getLogger().handlers[0]
    records = [logging.LogRecord("ontobuild.x", logging.WARNING, __file__, 1, "spool %s is empty", ("S1",), None)
               for _ in range(3)]
    assert [handler.filter(r) for r in records] == [True, False, False]
    other = logging.LogRecord("ontobuild.x", logging.WARNING, __file__, 1, "spool %s is empty", ("S2",), None)
    assert handler.filter(other)
