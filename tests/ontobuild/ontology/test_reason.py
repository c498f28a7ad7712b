from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from rdflib import Graph

from ontocore.errors import InputError
from ontobuild.ontology.owl import to_graph, to_rdfxml
from ontobuild.ontology.reason import JAVA_MISSING, ReasonerReport, check

needs_java = pytest.mark.skipif(shutil.which("java") is None, reason="no Java runtime")

PREFIXES = """
@prefix : <http://example.org/r#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
<http://example.org/r> a owl:Ontology .
:Fern a owl:Class . :Moss a owl:Class ; owl:disjointWith :Fern .
"""
INCONSISTENT = PREFIXES + """
:fen a owl:NamedIndividual, :Fern, :Moss .
:age a owl:DatatypeProperty ; rdfs:range xsd:integer .
:moor a owl:NamedIndividual, :Moss ; :age "2.5"^^xsd:decimal .
"""
UNSATISFIABLE = PREFIXES + """
:FernMoss a owl:Class ; rdfs:subClassOf :Fern, :Moss .
:fen a owl:NamedIndividual, :Fern .
"""


def _rdfxml(tmp_path: Path, turtle: str, name: str = "o.owl") -> Path:
    path = tmp_path / name
    Graph().parse(data=turtle, format="turtle").serialize(path, format="xml")
    return path


@needs_java
def test_consistent(tiny_index, tmp_path: Path) -> None:
    path = tmp_path / "tiny.owl"
    path.write_bytes(to_rdfxml(to_graph(tiny_index)))
    report = check(path, timeout_s=60)
    assert report.status == "consistent", report
    assert report.render() == "consistent\n"
    assert report.seconds > 0


@needs_java
def test_inconsistent(tmp_path: Path) -> None:
    report = check(_rdfxml(tmp_path, INCONSISTENT), timeout_s=60)
    assert report.status == "inconsistent"
    text = report.render()
    assert text.splitlines()[0] == "inconsistent"
    assert "individual fen is a member of both Fern and Moss, which are declared disjoint" in text
    assert "individual moor has age = \"2.5\"" in text


@needs_java
def test_unsatisfiable_class(tmp_path: Path) -> None:
    report = check(_rdfxml(tmp_path, UNSATISFIABLE), timeout_s=60)
    assert report.status == "consistent"
    assert report.details == ["class FernMoss can have no members because it is a subclass of both Fern and Moss, "
                              "which are declared disjoint."]


@needs_java
def test_turtle_input(tmp_path: Path) -> None:
    path = tmp_path / "o.ttl"
    path.write_text(INCONSISTENT, encoding="utf-8")
    assert check(path, timeout_s=60).status == "inconsistent"


def test_java_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _rdfxml(tmp_path, PREFIXES)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    report = check(path)
    assert report.status == "not checked" and report.reason == JAVA_MISSING
    assert report.render().splitlines()[0] == f"not checked: {JAVA_MISSING}"


@needs_java
def test_timeout(tmp_path: Path) -> None:
    report = check(_rdfxml(tmp_path, PREFIXES), timeout_s=0.05)
    assert report.status == "not checked"
    assert "did not finish within 0.05 s" in report.reason


def test_unloadable_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.owl"
    path.write_text("<rdf:RDF oops", encoding="utf-8")
    report = check(path, timeout_s=60)
    assert report.status == "not checked"


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        check(tmp_path / "none.owl")


def test_render() -> None:
    r = ReasonerReport(status="inconsistent", details=["a", "b"])
    assert r.render() == "inconsistent\na\nb\n"
    assert ReasonerReport.not_checked("why").render() == "not checked: why\n"
