from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ontouse.cli import main

DATA = """
@prefix : <http://example.org/s#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:p1 a :Product ; rdfs:label "Lantern one" .
:p2 a :Product ; rdfs:label "Lantern two" .
"""


@pytest.fixture
def ttl(tmp_path: Path) -> Path:
    path = tmp_path / "g.ttl"
    path.write_text(DATA)
    return path


def test_table(ttl: Path) -> None:
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "--sparql",
                                  "SELECT ?p ?l WHERE { ?p a :Product ; rdfs:label ?l } ORDER BY ?l"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert lines[0].split() == ["?p", "|", "?l"] and ":p1" in lines[2] and lines[-1] == "(2 rows)"


def test_json_and_ask(ttl: Path) -> None:
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "--json", "--sparql", "SELECT ?p WHERE { ?p a :Product }"])
    data = json.loads(r.stdout)
    assert data["head"]["vars"] == ["p"] and len(data["results"]["bindings"]) == 2
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "--sparql", "ASK { :p1 a :Product }"])
    assert r.stdout.strip() == "true"


def test_query_from_file_and_max_rows(ttl: Path, tmp_path: Path) -> None:
    q = tmp_path / "q.rq"
    q.write_text("SELECT ?p WHERE { ?p a :Product }")
    r = CliRunner().invoke(main, ["--ontology", str(ttl), "--sparql", f"@{q}", "--max-rows", "1"])
    assert r.exit_code == 0 and "1 of 2 rows shown" in r.stdout


@pytest.mark.parametrize("args, code, needle", [
    (["--sparql", "DELETE WHERE { ?s ?p ?o }"], 2, "DELETE is not allowed"),
    (["--sparql", "SELECT ?p WHERE { ?p a }"], 2, "SPARQL syntax error"),
    (["--ontology", "missing.ttl", "--sparql", "ASK {}"], 2, "no such file"),
])
def test_errors(ttl: Path, args: list[str], code: int, needle: str) -> None:
    if "--ontology" not in args:
        args = ["--ontology", str(ttl), *args]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == code
    assert r.stderr.startswith("Error: ") and needle in r.stderr and "Traceback" not in r.stderr


def test_usage(ttl: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, []).exit_code == 2
    assert runner.invoke(main, ["--sparql", "ASK {}"]).exit_code == 2  # no ontology
    assert runner.invoke(main, ["--ontology", str(ttl), "--sparql", "ASK {}", "a question"]).exit_code == 2


def test_console_script(ttl: Path) -> None:
    exe = shutil.which("ontoask", path=str(Path(sys.executable).parent))
    if not exe:
        pytest.skip("console script not installed")
    proc = subprocess.run([exe, "--ontology", str(ttl), "--sparql", "SELECT ?p WHERE { ?p a :Product }"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "(2 rows)" in proc.stdout


@pytest.mark.parametrize("extra", [[], ["--json"], ["--max-rows", "1"]])
def test_the_sparql_command_prints_what_the_flag_prints(ttl: Path, extra: list[str]) -> None:
    query = "SELECT ?p ?l WHERE { ?p a :Product ; rdfs:label ?l } ORDER BY ?l"
    flag = CliRunner().invoke(main, ["--ontology", str(ttl), *extra, "--sparql", query])
    command = CliRunner().invoke(main, ["sparql", "--ontology", str(ttl), *extra, query])
    assert command.exit_code == flag.exit_code == 0 and command.stdout == flag.stdout


def test_the_mode_commands_refuse_what_the_flags_refuse(tmp_path: Path) -> None:
    """Without a graph each mode command stops where the flag does, before any model is opened."""
    for args in (["sparql", "ASK { ?s ?p ?o }"], ["questions", str(tmp_path / "q.yml")], ["chat"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and "no ontology given" in result.output, args
