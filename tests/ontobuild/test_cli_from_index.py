from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rdflib.namespace as ns
from click.testing import CliRunner
from rdflib import Graph

from ontobuild.cli import main
from ontocore.cliutil import friendly_errors
from ontocore.errors import ModelUnavailable


FIRST_LINES = ("consistent", "inconsistent")


def _script(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if not found:
        pytest.skip(f"console script {name} is not installed (pip install -e .)")
    return found


def test_poc_from_index_subprocess(poc_index_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    proc = subprocess.run([_script("ontobuild"), "--from-index", str(poc_index_path), "--out", str(out)],
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stderr
    assert f"outcome: {out}" in proc.stdout and "62 individuals" in proc.stdout
    g = Graph().parse(out / "ontology.owl", format="xml")
    assert len(set(g.subjects(ns.RDF.type, ns.OWL.NamedIndividual))) == 62
    assert len(set(g.subjects(ns.RDF.type, ns.OWL.Class))) == 46  # 45 declared + Product
    first = (out / "reasoner.txt").read_text().splitlines()[0]
    assert first in FIRST_LINES or first.startswith("not checked: ")
    stats = json.loads((out / "stats.json").read_text())
    assert stats["counts"]["individuals"] == 62 and stats["reasoner"]["status"] in ("consistent", "not checked")


def test_from_index_no_reason(tiny_index, tmp_path: Path) -> None:
    path = tmp_path / "idx.json"
    path.write_text(tiny_index.to_json())
    result = CliRunner().invoke(main, ["--from-index", str(path), "--out", str(tmp_path / "o"), "--no-reason"])
    assert result.exit_code == 0, result.output
    assert "reasoner: not checked: disabled with --no-reason" in result.stdout
    assert (tmp_path / "o" / "reasoner.txt").read_text().startswith("not checked: ")


def test_from_index_json_prints_the_stats_object(tiny_index, tmp_path: Path) -> None:
    path = tmp_path / "idx.json"
    path.write_text(tiny_index.to_json())
    result = CliRunner().invoke(main, ["--from-index", str(path), "--out", str(tmp_path / "o"), "--no-reason",
                                       "--json"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)  # one JSON object, nothing else on stdout
    stats = json.loads((tmp_path / "o" / "stats.json").read_text())
    assert printed["counts"] == stats["counts"] and "total_seconds" in printed


@pytest.mark.parametrize("content, needle", [
    ("{\"format\": ", "is not valid JSON"),
    ("[]", "is not an entities index"),
    ("{\"format\": \"ontobuild-index/1\", \"classes\": {}, \"properties\": {}, "
     "\"individuals\": {\"x\": {\"name\": \"x\", \"classes\": [\"Ghost\"]}}}", "unknown class 'Ghost'"),
    ("", "is empty"),
])
def test_invalid_index_exit_2(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    result = CliRunner().invoke(main, ["--from-index", str(path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ") and needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.stderr
    assert not (tmp_path / "o").exists()


def test_invalid_index_subprocess(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text("{oops")
    proc = subprocess.run([_script("ontobuild"), "--from-index", str(path)], capture_output=True, text=True,
                          cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("Error: ") and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and proc.stdout == ""


def test_missing_index_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["--from-index", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "no such file" in result.stderr


def test_the_from_index_subcommand_writes_what_the_flag_writes(tiny_index, tmp_path: Path) -> None:
    path = tmp_path / "idx.json"
    path.write_text(tiny_index.to_json())
    printed = []
    for args in (["--from-index", str(path)], ["from-index", str(path)]):
        out = tmp_path / f"out{len(printed)}"
        result = CliRunner().invoke(main, [*args, "--out", str(out), "--no-reason", "--json"])
        assert result.exit_code == 0, result.output
        stats = json.loads(result.stdout)
        printed.append((stats["counts"], (out / "ontology.ttl").exists()))
    assert printed[0] == printed[1] and printed[0][1]
    result = CliRunner().invoke(main, ["from-index", str(path), "--load-graph", "urn:g"])
    assert result.exit_code == 2 and "--load-graph and --load-replace go with --load-into URL" in result.output


def test_usage_errors(tmp_path: Path) -> None:
    runner = CliRunner()
    assert runner.invoke(main, []).exit_code == 2
    assert runner.invoke(main, ["a.json", "--from-index", "b.json"]).exit_code == 2
    assert runner.invoke(main, ["--backend", "nope", "a.json"]).exit_code == 2


def test_files_path_calls_run_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("ONTOBUILD_MAX_INPUT_MB", raising=False)
    calls = {}

    def fake_run_build(**kwargs):
        from ontobuild.inputs.limits import max_input_bytes

        calls.update(kwargs, max_input_bytes=max_input_bytes())
        return {"outcome": "x", "counts": {"classes": 1}}

    import types
    fake = types.ModuleType("ontobuild.pipeline")
    fake.run_build = fake_run_build
    monkeypatch.setitem(sys.modules, "ontobuild.pipeline", fake)
    result = CliRunner().invoke(main, ["a.json", "b.md", "--out", "o", "--no-reason", "--backend", "openai",
                                       "--model", "m", "--base-url", "http://h/v1", "--api-key", "k",
                                       "--model-timeout", "5", "--model-retries", "0", "--force",
                                       "--max-input-mb", "7"])
    assert result.exit_code == 0, result.output
    assert type(calls.pop("progress")).__name__ == "Progress"  # not a terminal: silent
    assert calls.pop("max_input_bytes") == 7_000_000  # an argument of the build, not an environment variable
    assert "ONTOBUILD_MAX_INPUT_MB" not in os.environ
    assert calls == {"files": [Path("a.json"), Path("b.md")], "out": Path("o"), "index_path": None,
                     "reason": False, "force": True, "keep_partial": False, "schema": [], "ontology_iri": None,
                     "big_graph_triples": None, "sample_per_class": None, "stream_rows": None, "resume": False,
                     "encoding": None,
                     "llm_options": {"backend": "openai", "model": "m", "base_url": "http://h/v1", "api_key": "k",
                                     "model_path": None, "threads": None, "timeout": 5.0, "retries": 0}}
    assert "outcome: x" in result.stdout


def _command(exc: BaseException):
    import click

    @click.command()
    @click.option("-v", "--verbose", count=True)
    @friendly_errors
    def cmd(verbose: int) -> None:
        raise exc

    return cmd


def test_friendly_errors() -> None:
    runner = CliRunner()
    r = runner.invoke(_command(ModelUnavailable("no model\n  here")))
    assert r.exit_code == 2 and r.stderr == "Error: no model here\n"
    r = runner.invoke(_command(KeyboardInterrupt()))
    assert r.exit_code == 130 and r.stderr == "Interrupted (Ctrl-C).\n"
    r = runner.invoke(_command(ValueError("boom")))
    assert r.exit_code == 1
    assert r.stderr == "Internal error: ValueError: boom (run with -v for details)\n"
    r = runner.invoke(_command(ValueError("boom")), ["-v"])
    assert r.exit_code == 1 and "Traceback" in r.stderr
