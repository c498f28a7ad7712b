"""Big graphs without the model: streamed N-Triples and the outcome's persisted store, reasoning on a sample plus
SPARQL constraint queries, and `--load-into` a real Oxigraph server that `ontoask --endpoint` then answers over."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from rdflib import Graph
from rdflib.compare import isomorphic

from ontobuild.outputs.bigoutput import estimate_triples, write_ntriples
from ontocore.storefolder import outcome_store
from ontobuild.cli import main as ontobuild
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.owl import OntologyHeader, to_graph
from ontobuild.outputs.scalecheck import sample_index
from ontouse.cli import main as ontoask
from ontouse.storage.endpoint import wait_ready
from oxigraph_server import free_port, oxigraph_cli

BASE = "http://example.org/garden#"


def garden_index(beds: int = 30, planted_faults: bool = False) -> EntitiesIndex:
    """Beds, plants and gardeners: disjoint classes, functional datatype properties, links, a unit."""
    idx = EntitiesIndex(base_iri=BASE)
    for c in ("Bed", "Plant", "Gardener"):
        idx.add_class(c, roles=[f"a {c.lower()}"])
    idx.add_class("Herb", superclasses=["Plant"])
    idx.classes["Bed"].disjoint = ["Plant", "Gardener"]
    idx.classes["Plant"].disjoint = ["Bed", "Gardener"]
    idx.classes["Gardener"].disjoint = ["Bed", "Plant"]
    idx.add_property("areaM2", "datatype", domain=["Bed"], range="xsd:decimal", unit="m2")
    idx.add_property("seedCount", "datatype", domain=["Plant"], range="xsd:integer")
    idx.add_property("growsIn", "object", domain=["Plant"], range="Bed")
    idx.add_property("tendedBy", "object", domain=["Bed"], range="Gardener")
    for name in ("areaM2", "seedCount"):
        idx.properties[name].functional = True
    idx.add_individual("ana", classes=["Gardener"], label="Ana", aliases=["A."])
    for i in range(beds):
        idx.add_individual(f"bed{i}", classes=["Bed"], label=f"Bed {i}")
        idx.add_fact(f"bed{i}", Fact("areaM2", literal=f"{i + 1}.5", source={"file": "beds.csv", "path": f"/{i}"}))
        idx.add_fact(f"bed{i}", Fact("tendedBy", object="ana"))
        for j in range(2):
            p = f"plant{i}_{j}"
            idx.add_individual(p, classes=["Herb" if j else "Plant"], label=f"Plant {i}.{j}")
            idx.add_fact(p, Fact("seedCount", literal=str(10 + j)))
            idx.add_fact(p, Fact("growsIn", object=f"bed{i}"))
    if planted_faults:
        idx.add_fact("plant3_1", Fact("seedCount", literal="12"))  # a second value of a functional property
        idx.add_fact("plant4_0", Fact("seedCount", literal="a handful", datatype="xsd:string"))  # not an integer
        idx.add_fact("ana", Fact("growsIn", object="bed5"))  # Ana would be a Plant (domain of growsIn)
        idx.add_fact("plant6_0", Fact("tendedBy", object="plant7_0"))  # plant7_0 would be a Gardener (range)
    return idx


def test_ntriples_hold_the_same_graph_as_the_turtle(tmp_path: Path) -> None:
    idx = garden_index(5)
    header = OntologyHeader(label="garden", created="2026-01-01T00:00:00Z", sources=["beds.csv"], generator="t")
    write_ntriples(idx, tmp_path / "o.nt", header)
    streamed = Graph().parse(tmp_path / "o.nt", format="nt")
    made = Graph().parse(data=to_graph(idx, header).serialize(format="nt"), format="nt")  # literals read alike
    assert isomorphic(streamed, made)
    assert abs(estimate_triples(idx) - len(streamed)) <= 12


def test_sample_keeps_each_classs_first_individuals_and_what_they_point_to() -> None:
    idx = garden_index(20)
    sample = sample_index(idx, per_class=3)
    assert sample.classes is idx.classes
    beds = [n for n, i in sample.individuals.items() if "Bed" in i.classes]
    # 3 beds sampled, plus the beds the 6 sampled plants grow in (their classes only, no facts)
    assert {"bed0", "bed1", "bed2"} <= set(beds) and len(sample.individuals) < len(idx.individuals)
    assert all(not sample.individuals[b].facts for b in beds if b not in ("bed0", "bed1", "bed2"))


def _write(idx: EntitiesIndex, path: Path) -> Path:
    path.write_text(idx.to_json(), "utf-8")
    return path


def test_big_build_writes_ntriples_and_store_and_ontoask_opens_it(tmp_path: Path) -> None:
    index = _write(garden_index(30), tmp_path / "idx.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(out),
                                            "--big-graph-triples", "100", "--reason-sample", "4", "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["outputs"]["big_graph"] is True and stats["outputs"]["files"] == ["ontology.nt", "store/"]
    assert "above --big-graph-triples 100" in stats["outputs"]["why"]
    assert (out / "ontology.nt").is_file() and not (out / "ontology.owl").exists()
    assert not (out / "ontology.ttl").exists() and outcome_store(out) is not None
    checks = stats["reasoner"]["checks"]
    assert [c["check"] for c in checks] == ["HermiT", "SPARQL constraint queries"]
    assert "each class's first 4" in checks[0]["on"] and checks[1]["status"] == "consistent"
    assert f"{stats['counts']['triples']} triples" in checks[1]["on"]
    report = (out / "report.html").read_text("utf-8")
    assert "Written: ontology.nt, store/" in report and "SPARQL constraint queries: consistent on" in report
    assert stats["reasoner"]["status"] in ("consistent", "not checked") or checks[0]["status"] == "not checked"
    ask = CliRunner().invoke(ontoask, ["--ontology", str(out), "--json", "--sparql",
                                       f"SELECT (COUNT(*) AS ?n) WHERE {{ ?p <{BASE}growsIn> ?b }}"])
    assert ask.exit_code == 0, ask.output
    assert json.loads(ask.stdout)["results"]["bindings"][0]["n"]["value"] == "60"


def test_small_build_keeps_rdfxml_and_says_why(tmp_path: Path) -> None:
    index = _write(garden_index(2), tmp_path / "idx.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(out), "--no-reason", "--json"])
    assert result.exit_code == 0, result.output
    outputs = json.loads(result.stdout)["outputs"]
    assert outputs["big_graph"] is False and "within --big-graph-triples 200000" in outputs["why"]
    assert (out / "ontology.owl").is_file() and not (out / "store").exists()


def test_constraint_queries_find_every_planted_fault(tmp_path: Path) -> None:
    index = _write(garden_index(30, planted_faults=True), tmp_path / "idx.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(out),
                                            "--big-graph-triples", "100", "--reason-sample", "2", "--json"])
    assert result.exit_code == 0, result.output
    stats = json.loads(result.stdout)
    assert stats["reasoner"]["status"] == "inconsistent"
    sparql = stats["reasoner"]["checks"][1]
    assert sparql["status"] == "inconsistent" and sparql["violations"] >= 4
    text = "\n".join(stats["reasoner"]["details"])
    assert "plant3_1 has 2 values of seedCount" in text
    assert 'plant4_0 has seedCount = "a handful"' in text
    assert "individual ana would be both" in text and "individual plant7_0 would be both" in text
    assert (out / "reasoner.txt").read_text().startswith("inconsistent")


@contextlib.contextmanager
def writable_oxigraph(workdir: Path) -> Iterator[str]:
    """A real Oxigraph server that accepts writes; yields its base URL (…/query, …/store)."""
    cli = oxigraph_cli()
    if cli is None:
        pytest.skip("the oxigraph server (PyPI package `oxigraph`, in the test extra) is not installed")
    port = free_port()
    proc = subprocess.Popen([cli, "serve", "--location", str(workdir / "db"), "--bind", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        if not wait_ready(base + "/query", 30):
            pytest.fail("the oxigraph server did not start")
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _count(endpoint: str, graph: str | None, query: str) -> str:
    args = ["--endpoint", endpoint, "--json", "--sparql", query] + (["--graph", graph] if graph else [])
    result = CliRunner().invoke(ontoask, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["results"]["bindings"][0]["n"]["value"]


def test_load_into_a_real_server_then_ontoask_answers_over_it(tmp_path: Path) -> None:
    index = _write(garden_index(30), tmp_path / "idx.json")
    with writable_oxigraph(tmp_path) as base:
        big = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "big"),
                                             "--no-reason", "--big-graph-triples", "100",
                                             "--load-into", base + "/store", "--load-graph", "urn:x-garden:big"])
        assert big.exit_code == 0, big.output
        assert "loaded into: " in big.stdout and "POST of ontology.nt" in big.stdout
        small = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "small"),
                                               "--no-reason", "--load-into", base + "/store", "--load-replace"])
        assert small.exit_code == 0, small.output
        assert "default graph; PUT of ontology.ttl" in small.stdout
        query = f"SELECT (COUNT(*) AS ?n) WHERE {{ ?p <{BASE}growsIn> ?b }}"
        assert _count(base + "/query", "urn:x-garden:big", query) == "60"
        assert _count(base + "/query", None, query) == "60"  # the default graph (the Turtle)


def test_load_into_errors_are_messages_not_tracebacks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    index = _write(garden_index(2), tmp_path / "idx.json")
    port = free_port()  # nothing listens there
    monkeypatch.setenv("ONTOASK_ENDPOINT_TOKEN", "s3cret-token-value")
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "o"), "--no-reason",
                                            "--load-into", f"http://127.0.0.1:{port}/store"])
    assert result.exit_code == 1 and "cannot be reached" in result.output
    assert "Traceback" not in result.output and "s3cret" not in result.output
    assert (tmp_path / "o" / "ontology.ttl").is_file()  # the outcome is complete; only the load failed
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "p"), "--no-reason",
                                            "--load-graph", "urn:g"])
    assert result.exit_code == 2 and "--load-into" in result.output
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "q"), "--no-reason",
                                            "--load-into", "ftp://example.org/store"])
    assert result.exit_code == 2 and "--load-into must be" in result.output and not (tmp_path / "q").exists()


def test_load_into_a_server_that_refuses(tmp_path: Path) -> None:
    index = _write(garden_index(2), tmp_path / "idx.json")
    with writable_oxigraph(tmp_path) as base:
        result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(tmp_path / "o"),
                                                "--no-reason", "--load-into", base + "/nothing-here"])
    assert result.exit_code == 2 and "refused the POST of ontology.ttl (HTTP 404" in result.output
    assert "Traceback" not in result.output


def test_a_changed_ntriples_file_is_read_instead_of_the_stale_store(tmp_path: Path) -> None:
    index = _write(garden_index(3), tmp_path / "idx.json")
    out = tmp_path / "out"
    result = CliRunner().invoke(ontobuild, ["--from-index", str(index), "--out", str(out), "--no-reason",
                                            "--big-graph-triples", "10"])
    assert result.exit_code == 0, result.output
    with open(out / "ontology.nt", "a", encoding="utf-8") as fh:
        fh.write(f"<{BASE}plant0_0> <{BASE}growsIn> <{BASE}bed2> .\n")
    assert outcome_store(out) is None
    ask = CliRunner().invoke(ontoask, ["--ontology", str(out), "--json", "--sparql",
                                       f"SELECT (COUNT(*) AS ?n) WHERE {{ ?p <{BASE}growsIn> ?b }}"])
    assert ask.exit_code == 0, ask.output
    assert json.loads(ask.stdout)["results"]["bindings"][0]["n"]["value"] == "7"
