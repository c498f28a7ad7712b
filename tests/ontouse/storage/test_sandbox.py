"""Nothing leaks out, nothing hangs: hostile queries and files against a library and a fleet of trucks.

A real HTTP server on 127.0.0.1 records every request: SERVICE queries (in many spellings and places), remote
JSON-LD contexts, XML external entities and owl:imports point at it, and none may reach it. Slow queries (a
catastrophic regex, a huge cross join, a query too long to parse) must end within a second of their time limit,
and leave no child process behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest
from click.testing import CliRunner
from rdflib import BNode, Graph, Literal, URIRef
from rdflib.namespace import XSD
from rdflib.plugins.sparql import prepareQuery

from ontocore.errors import InputError
from ontouse.cli import main
from ontouse.storage.endpoint import EndpointStore
from ontouse.storage.graph import load_graph, new_graph
from ontouse.storage.persist import open_persisted
from ontouse.storage.querycheck import check_algebra
from ontouse.storage.sandbox import call_isolated
from ontouse.storage.sparql import QueryError, run_query
from ontouse.storage.store import GraphStore
from recording_server import Recorder, recording_server

LIB = "http://library.example/"
FLEET = "http://fleet.example/"
LIBRARY_TTL = f"""
@prefix lib: <{LIB}> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
lib:b1 a lib:Book ; lib:title "Dune"@en ; lib:pages 412 ; lib:shelf "A-3" ; lib:by lib:a1 .
lib:b2 a lib:Book ; lib:title "Solaris" ; lib:pages 204 ; lib:shelf "B-1" ; lib:by [ lib:name "anonymous" ] .
lib:a1 a lib:Author ; lib:name "Frank" ; lib:born "1920-10-08"^^xsd:date .
"""


@pytest.fixture
def recorder() -> Iterator[Recorder]:
    with recording_server() as server:
        yield server


def children() -> set[int]:
    """The live child processes of this process (from /proc)."""
    out: set[int] = set()
    for task in os.listdir("/proc/self/task"):
        try:
            out |= {int(p) for p in Path(f"/proc/self/task/{task}/children").read_text().split()}
        except OSError:
            pass
    return out


@pytest.fixture
def library(tmp_path: Path) -> Path:
    path = tmp_path / "library.ttl"
    path.write_text(LIBRARY_TTL, "utf-8")
    return path


def fleet_graph(kind: str, trucks: int = 40) -> Graph:
    g = new_graph(kind)
    g.bind("fleet", FLEET)
    for i in range(trucks):
        truck = URIRef(f"{FLEET}truck{i}")
        g.add((truck, URIRef(f"{FLEET}plate"), Literal("a" * (24 + i % 3) + "b")))
        g.add((truck, URIRef(f"{FLEET}depot"), URIRef(f"{FLEET}depot{i % 4}")))
    return g


# ---- queries: the algebra decides -----------------------------------------------------------------------
SERVICE_QUERIES = [
    "SELECT * WHERE {{ SERVICE <{u}/a> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ SERV\\u0049CE <{u}/b> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ \\u0053ERVICE <{u}/c> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ \\U00000053\\u0045RVICE <{u}/d> {{ ?s ?p ?o }} }}",
    "select * where {{ service silent <{u}/e> {{ ?s ?p ?o }} }}",
    "SELECT * WHERE {{ ?s ?p ?o {{ SELECT ?s WHERE {{ SERVICE <{u}/f> {{ ?s ?p ?o }} }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o OPTIONAL {{ SERVICE <{u}/g> {{ ?s ?q ?r }} }} }}",
    "SELECT * WHERE {{ {{ ?s ?p ?o }} UNION {{ SERVICE <{u}/h> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o MINUS {{ SERVICE <{u}/i> {{ ?s ?p ?o }} }} }}",
    "SELECT * WHERE {{ ?s ?p ?o FILTER NOT EXISTS {{ SERVICE <{u}/j> {{ ?s ?p ?o }} }} }}",
    "SELECT (EXISTS {{ SERVICE <{u}/k> {{ ?s ?p ?o }} }} AS ?e) WHERE {{ ?s ?p ?o }}",
    "SELECT * WHERE {{ VALUES ?e {{ <{u}/l> }} SERVICE ?e {{ ?s ?p ?o }} }}",
    "ASK {{ SERVICE <{u}/m> {{ ?s ?p ?o }} }}",
]


@pytest.mark.parametrize("kind", ["oxigraph", "memory"])
@pytest.mark.parametrize("template", SERVICE_QUERIES)
def test_service_refused_in_every_spelling_and_place(recorder: Recorder, library: Path, kind: str,
                                                     template: str) -> None:
    store = GraphStore(load_graph(library, store=kind))
    with pytest.raises(QueryError, match="^SERVICE is not allowed"):
        store.select(template.format(u=recorder.url), timeout_s=5)
    store.close()
    assert recorder.requests == []


def test_the_algebra_decides_without_the_text_filter(recorder: Recorder) -> None:
    """The parsed algebra refuses SERVICE and FROM even where no text filter ran (escapes decoded by rdflib)."""
    for text in (f"SELECT * WHERE {{ ?s ?p ?o FILTER EXISTS {{ SERV\\u0049CE <{recorder.url}> {{ ?s ?p ?o }} }} }}",
                 f"SELECT * FR\\u004FM NAMED <{recorder.url}/g> WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}"):
        with pytest.raises(QueryError, match="SERVICE is not allowed|FROM / FROM NAMED are not allowed"):
            check_algebra(prepareQuery(text))
    assert recorder.requests == []


@pytest.mark.parametrize("query, needle", [
    ("SELECT * FR\\u004FM <{u}/g> WHERE {{ ?s ?p ?o }}", "FROM / FROM NAMED are not allowed"),
    ("\\u0049NSERT DATA {{ <{u}/x> <{u}/y> <{u}/z> }}", "INSERT is not allowed.*updates .* are refused"),
    ("LOAD <{u}/data.ttl>", "LOAD is not allowed.*are refused"),
    ("WITH <{u}/g> DELETE {{ ?s ?p ?o }} WHERE {{ ?s ?p ?o }}", "DELETE is not allowed"),
    ("CONSTRUCT {{ ?s ?p ?o }} WHERE {{ SERVICE <{u}/c> {{ ?s ?p ?o }} }}", "SERVICE is not allowed"),
    ("SELECT * WHERE {{ \\u005Cu0053ERVICE <{u}/x> {{ ?s ?p ?o }} }}", "escapes spell another"),
    ("SELECT * WHERE {{ ?s ?p \\uD800 }}", "not a character"),
])
def test_other_refusals(recorder: Recorder, library: Path, query: str, needle: str) -> None:
    store = GraphStore(load_graph(library))
    with pytest.raises(QueryError, match=needle):
        store.select(query.format(u=recorder.url))
    store.close()
    assert recorder.requests == []


def test_escapes_are_decoded_once_and_run_as_checked(library: Path) -> None:
    store = GraphStore(load_graph(library))
    r = store.select('SELECT ?b WHERE { ?b lib:t\\u0069tle "D\\u0075ne"@en }')
    assert r.rows == [[URIRef(f"{LIB}b1")]]
    store.close()


def test_endpoint_checks_before_sending_and_sends_the_checked_text(recorder: Recorder) -> None:
    store = EndpointStore(recorder.url + "/sparql")
    with pytest.raises(QueryError, match="SERVICE is not allowed"):
        store.select(f"SELECT * WHERE {{ SERV\\u0049CE <{recorder.url}/x> {{ ?s ?p ?o }} }}")
    assert recorder.requests == []
    store.select(f"SELECT ?t WHERE {{ ?b <{LIB}t\\u0069tle> ?t }}")
    (method, path, body), = recorder.requests
    assert method == "POST" and path == "/sparql"
    assert "title" in body.replace("%3A", ":") and "%5Cu0069" not in body and "\\u0069" not in body


# ---- queries: time limits and child processes ------------------------------------------------------------
def test_catastrophic_regex_stops_at_the_timeout(library: Path) -> None:
    before = children()
    g = fleet_graph("memory")  # rdflib's evaluator uses Python's backtracking regex engine
    query = 'SELECT ?t WHERE { ?t fleet:plate ?p FILTER(REGEX(STR(?p), "^(a+)+$")) }'
    for run in (lambda: GraphStore(g).select(query, timeout_s=2), lambda: run_query(g, query, timeout_s=2)):
        start = time.monotonic()
        with pytest.raises(QueryError, match="took longer than 2 s and was abandoned"):
            run()
        assert time.monotonic() - start < 3
        assert children() == before


def test_cross_join_stops_and_the_worker_comes_back() -> None:
    before = children()
    store = GraphStore(fleet_graph("oxigraph"))
    assert store.select("ASK { ?t fleet:depot fleet:depot1 }").boolean is True
    start = time.monotonic()
    with pytest.raises(QueryError, match="took longer than 2 s"):
        store.select("SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o }",
                     timeout_s=2)
    assert time.monotonic() - start < 3
    assert children() == before  # the worker was killed and reaped
    r = store.select("SELECT (COUNT(*) AS ?n) WHERE { ?t fleet:plate ?p }")
    assert int(r.rows[0][0]) == 40 and len(children() - before) == 1  # a new worker
    store.close()
    assert children() == before


def test_a_query_too_long_to_parse_stops_too(library: Path) -> None:
    before = children()
    store = GraphStore(load_graph(library))
    query = "SELECT * WHERE { ?s ?p ?o FILTER(?o IN (" + ",".join(str(i) for i in range(60000)) + ")) }"
    start = time.monotonic()
    with pytest.raises(QueryError, match="took longer than 1 s"):
        store.select(query, timeout_s=1)
    assert time.monotonic() - start < 2
    store.close()
    assert children() == before


def test_persisted_store_in_the_child(tmp_path: Path, library: Path) -> None:
    store = GraphStore(open_persisted([library], tmp_path / "store"))
    assert [str(t) for t, in store.select("SELECT ?t WHERE { ?b lib:shelf 'B-1' ; lib:title ?t }").rows] == ["Solaris"]
    start = time.monotonic()
    with pytest.raises(QueryError, match="took longer than 1 s"):
        store.select("SELECT (COUNT(*) AS ?n) WHERE { " + " . ".join(f"?s{i} ?p{i} ?o{i}" for i in range(9)) + " }",
                     timeout_s=1)
    assert time.monotonic() - start < 2
    assert store.select("ASK { ?b lib:pages 412 }").boolean is True
    store.close()


@pytest.mark.parametrize("kind", ["oxigraph", "memory"])
def test_terms_round_trip_exactly(library: Path, kind: str) -> None:
    g = load_graph(library, store=kind)
    store = GraphStore(g)
    r = store.select("SELECT ?s ?p ?o WHERE { ?s ?p ?o }", max_rows=100)
    got = {tuple(row) for row in r.rows}
    assert got == set(g) and r.total == len(g)
    kinds = {type(t) for row in got for t in row}
    assert {URIRef, Literal, BNode} <= kinds
    literals = {t for row in got for t in row if isinstance(t, Literal)}
    assert Literal("Dune", lang="en") in literals and Literal("1920-10-08", datatype=XSD.date) in literals
    bound = store.select("SELECT ?b ?t WHERE { ?b lib:title ?t }", bindings={"b": URIRef(f"{LIB}b2")})
    assert [(b, str(t)) for b, t in bound.rows] == [(URIRef(f"{LIB}b2"), "Solaris")]
    store.close()


def test_a_million_rows_stream_through_the_child() -> None:
    store = GraphStore(fleet_graph("oxigraph", trucks=1))
    values = " ".join(str(i) for i in range(1000))
    before = children()
    store.select("ASK {}")
    (worker,) = children() - before
    status = Path(f"/proc/{worker}/status")
    rss = int(next(ln for ln in status.read_text().splitlines() if ln.startswith("VmHWM")).split()[1])
    r = store.select(f"SELECT * WHERE {{ VALUES ?a {{ {values} }} VALUES ?b {{ {values} }} }}", max_rows=50)
    assert r.total == 1_000_000 and len(r.rows) == 50 and r.truncated
    peak = int(next(ln for ln in status.read_text().splitlines() if ln.startswith("VmHWM")).split()[1])
    assert peak - rss < 100_000  # kB: the rows are counted, not kept (keeping them took ~800 MB)
    store.close()


def test_the_child_cannot_use_the_network(recorder: Recorder) -> None:
    with pytest.raises(PermissionError, match="network access is not allowed"):
        call_isolated(lambda: urllib.request.urlopen(recorder.url + "/from-child", timeout=2).read(), 5)
    assert recorder.requests == []


def test_the_child_has_no_network_even_for_native_code(recorder: Recorder) -> None:
    """Behind the query check: Oxigraph's own SERVICE client, called directly in the child, cannot connect."""
    if call_isolated(lambda: os.readlink("/proc/self/ns/net"), 5) == os.readlink("/proc/self/ns/net"):
        pytest.skip("user namespaces are not allowed here: only the query check and the audit hook apply")
    inner = fleet_graph("oxigraph").store._inner  # type: ignore[attr-defined]
    with pytest.raises(OSError, match="unreachable"):
        call_isolated(lambda: list(inner.query(f"SELECT * WHERE {{ SERVICE <{recorder.url}/ox> {{ ?s ?p ?o }} }}")),
                      5)
    assert recorder.requests == []


def test_the_worker_dies_with_its_parent(tmp_path: Path) -> None:
    path = tmp_path / "fleet.ttl"
    fleet_graph("memory").serialize(path, format="turtle")
    script = ("import sys; from ontouse.storage.store import GraphStore; from ontouse.storage.graph import load_graph\n"
              "store = GraphStore(load_graph(sys.argv[1])); store.select('ASK { ?s ?p ?o }')\n"
              "print(store._worker.pid, flush=True)\n"  # then a query of hours: the worker is busy, not waiting
              "store.select('SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l . ?m ?n2 ?o "
              ". ?q ?r ?t }', timeout_s=120)\n")
    proc = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        worker = int(proc.stdout.readline())  # type: ignore[union-attr]
        time.sleep(0.3)
        assert Path(f"/proc/{worker}").exists()
    finally:
        proc.send_signal(signal.SIGKILL)  # no cleanup runs in the parent
        proc.wait(10)
    deadline = time.monotonic() + 3
    while Path(f"/proc/{worker}").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    alive = Path(f"/proc/{worker}").exists()
    if alive:
        os.kill(worker, signal.SIGKILL)
    assert not alive


# ---- the command line ------------------------------------------------------------------------------------
@pytest.mark.parametrize("query, needle", [
    ("SELECT * WHERE {{ SERV\\u0049CE <{u}/cli> {{ ?s ?p ?o }} }}", "SERVICE is not allowed"),
    ("SELECT ?b WHERE {{ ?b lib:title }}", "SPARQL syntax error"),
    ("SELECT ?b WHERE {{ ?b lib:title ?t FILTER(REGEX(CONCAT('{a}', ?t), '^(a+)+$')) }}", "took longer than 1 s"),
])
def test_cli_exit_code_2(recorder: Recorder, library: Path, query: str, needle: str) -> None:
    before = children()
    start = time.monotonic()
    r = CliRunner().invoke(main, ["--ontology", str(library), "--store", "memory", "--timeout", "1",
                                  "--sparql", query.format(u=recorder.url, a="a" * 28 + "b")])
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith("Error: ") and needle in r.stderr and "Traceback" not in r.stderr
    assert time.monotonic() - start < 5 and children() == before and recorder.requests == []


# ---- files: nothing is fetched, nothing explodes ---------------------------------------------------------
RDF_XML = ('<?xml version="1.0"?>\n{doctype}\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
           f'xmlns:f="{FLEET}"><rdf:Description rdf:about="{FLEET}truck1"><f:plate>{{value}}</f:plate>'
           '</rdf:Description></rdf:RDF>')
LAUGHS = "\n".join(['<!ENTITY t0 "truck truck truck truck truck truck truck truck">'] +
                   [f'<!ENTITY t{i} "{f"&t{i - 1};" * 10}">' for i in range(1, 10)])


@pytest.mark.parametrize("doctype, value, needle", [
    ("<!DOCTYPE rdf:RDF [\n" + LAUGHS + "\n]>", "&t9;", "refers to other entities"),
    ('<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "{u}/xxe">]>', "&x;", "external entity &x;"),
    ('<!DOCTYPE rdf:RDF [<!ENTITY x SYSTEM "file:///etc/passwd">]>', "&x;", "external entity &x;"),
    ('<!DOCTYPE rdf:RDF SYSTEM "{u}/fleet.dtd">', "x", "external DTD"),
    ('<!DOCTYPE rdf:RDF [<!ENTITY % p SYSTEM "{u}/p.dtd"> %p;]>', "x", "parameter entit"),
    ('<!DOCTYPE rdf:RDF [<!ENTITY a "{long}">]>', "&a;" * 20000, "would expand it by more than"),
])
@pytest.mark.parametrize("persisted", [False, True])
def test_hostile_rdf_xml_refused_fast(recorder: Recorder, tmp_path: Path, doctype: str, value: str, needle: str,
                                      persisted: bool) -> None:
    path = tmp_path / "fleet.rdf"
    path.write_text(RDF_XML.format(doctype=doctype.format(u=recorder.url, long="z" * 4000), value=value), "utf-8")
    start = time.monotonic()
    with pytest.raises(InputError, match=needle) as e:
        open_persisted([path], tmp_path / "store") if persisted else load_graph(path)
    assert time.monotonic() - start < 1
    assert str(path) in str(e.value) and e.value.exit_code == 2 and "\n" not in str(e.value)
    assert recorder.requests == []


@pytest.mark.parametrize("kind", ["oxigraph", "memory"])
def test_plain_internal_entities_still_load(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "fleet.owl"
    doctype = f'<!DOCTYPE rdf:RDF [\n  <!ENTITY fleet "{FLEET}" >\n  <!ENTITY xsd "{XSD}" >\n]>'
    path.write_text(RDF_XML.format(doctype=doctype, value="&fleet;").replace(
        "<f:plate>", '<f:plate rdf:datatype="&xsd;string">'), "utf-8")
    assert set(load_graph(path, store=kind).objects()) == {Literal(FLEET, datatype=XSD.string)}


@pytest.mark.parametrize("context", [
    "{u}/context.jsonld",
    [{"title": f"{LIB}title"}, "{u}/more.jsonld"],
    {"@version": 1.1, "@import": "{u}/import.jsonld"},
    {"@version": 1.1, "by": {"@id": f"{LIB}by", "@context": "{u}/scoped.jsonld"}},
    "context.jsonld",  # relative: a file beside it, or wherever the base points
])
def test_jsonld_remote_context_refused(recorder: Recorder, tmp_path: Path, context: object) -> None:
    text = json.dumps({"@context": context, "@id": f"{LIB}b1", "title": "Dune"}).replace("{u}", recorder.url)
    path = tmp_path / "library.jsonld"
    path.write_text(text, "utf-8")
    with pytest.raises(InputError, match="JSON-LD @context refers to .*put the context inline") as e:
        load_graph(path)
    assert str(path) in str(e.value)
    nested = tmp_path / "nested.jsonld"
    nested.write_text(json.dumps({"@context": {"title": f"{LIB}title"}, "@graph": [
        {"@context": f"{recorder.url}/n.jsonld", "@id": f"{LIB}b2"}]}), "utf-8")
    with pytest.raises(InputError, match="n.jsonld"):
        load_graph(nested)
    assert recorder.requests == []
    inline = tmp_path / "inline.jsonld"
    inline.write_text(json.dumps({"@context": {"title": f"{LIB}title"}, "@id": f"{LIB}b1", "title": "Dune"}))
    assert len(load_graph(inline)) == 1


def test_owl_imports_never_followed(recorder: Recorder, tmp_path: Path) -> None:
    ttl = tmp_path / "library.ttl"
    ttl.write_text(f"@prefix owl: <http://www.w3.org/2002/07/owl#> .\n<{LIB}onto> a owl:Ontology ; "
                   f"owl:imports <{recorder.url}/more.ttl> .\n", "utf-8")
    owl = tmp_path / "fleet.owl"
    owl.write_text(f'<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" '
                   f'xmlns:owl="http://www.w3.org/2002/07/owl#"><owl:Ontology rdf:about="{FLEET}onto">'
                   f'<owl:imports rdf:resource="{recorder.url}/more.owl"/></owl:Ontology></rdf:RDF>', "utf-8")
    for graph in (load_graph([ttl, owl]), load_graph([ttl, owl], store="memory"),
                  open_persisted([ttl, owl], tmp_path / "store")):
        store = GraphStore(graph)
        r = store.select("SELECT ?o WHERE { ?s owl:imports ?o }")
        assert {str(row[0]) for row in r.rows} == {f"{recorder.url}/more.ttl", f"{recorder.url}/more.owl"}
        assert store.select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").rows[0][0].toPython() == 4
        store.close()
    assert recorder.requests == []
