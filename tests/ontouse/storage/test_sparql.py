from __future__ import annotations

from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef

from ontocore.errors import InputError, ToolArgumentError
from ontouse.storage.graph import load_graph
from ontouse.storage.sparql import QueryError, format_table, run_query, shorten, to_json

DATA = """
@prefix : <http://example.org/s#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
:Product a owl:Class .
:p1 a :Product ; rdfs:label "Lantern one" ; :weightKg 12.5 .
:p2 a :Product ; rdfs:label "Lantern two"@en ; :weightKg 40 .
:p3 a :Product ; rdfs:label "Lamp" .
"""


@pytest.fixture
def graph() -> Graph:
    return Graph(bind_namespaces="core").parse(data=DATA, format="turtle")


def test_select(graph: Graph) -> None:
    r = run_query(graph, "SELECT ?p ?w WHERE { ?p :weightKg ?w } ORDER BY ?w")
    assert r.vars == ["p", "w"] and r.total == 2 and not r.truncated
    assert r.rows[0] == [URIRef("http://example.org/s#p1"), Literal("12.5", datatype=r.rows[0][1].datatype)]
    table = format_table(r)
    assert table.splitlines()[0].split() == ["?p", "|", "?w"]
    assert ":p1" in table and "12.5" in table and table.endswith("(2 rows)")


def test_unbound_and_lang(graph: Graph) -> None:
    r = run_query(graph, "SELECT ?l ?w WHERE { ?p rdfs:label ?l OPTIONAL { ?p :weightKg ?w } } ORDER BY ?l")
    assert r.rows[0][1] is None
    assert "Lantern two@en" in format_table(r)
    js = to_json(r)
    assert js["results"]["bindings"][0] == {"l": {"type": "literal", "value": "Lamp"}}
    assert js["results"]["bindings"][2]["l"] == {"type": "literal", "value": "Lantern two", "xml:lang": "en"}


def test_ask(graph: Graph) -> None:
    r = run_query(graph, "ASK { :p1 a :Product }")
    assert r.kind == "ASK" and r.boolean is True
    assert format_table(r) == "true"
    assert to_json(run_query(graph, "ASK { :p1 a owl:Thing }")) == {"head": {}, "boolean": False}


def test_row_cap(graph: Graph) -> None:
    r = run_query(graph, "SELECT ?s ?p ?o WHERE { ?s ?p ?o }", max_rows=3)
    assert len(r.rows) == 3 and r.truncated and r.total == len(graph)
    assert f"3 of {len(graph)} rows shown" in format_table(r)
    assert to_json(r)["truncated"] is True


@pytest.mark.parametrize("query, needle", [
    ("INSERT DATA { :a :b :c }", "INSERT is not allowed"),
    ("PREFIX x: <http://x/> DELETE WHERE { ?s ?p ?o }", "DELETE is not allowed"),
    ("LOAD <http://example.org/data.ttl>", "LOAD is not allowed"),
    ("CLEAR ALL", "CLEAR is not allowed"),
    ("SELECT * WHERE { SERVICE <http://dbpedia.org/sparql> { ?s ?p ?o } }", "SERVICE is not allowed"),
    ("SELECT * FROM <http://example.org/g> WHERE { ?s ?p ?o }", "FROM / FROM NAMED are not allowed"),
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "CONSTRUCT queries are not supported"),
    ("DESCRIBE :p1", "DESCRIBE queries are not supported"),
    ("   ", "empty"),
])
def test_refused(graph: Graph, query: str, needle: str) -> None:
    with pytest.raises(QueryError, match=needle) as e:
        run_query(graph, query)
    assert isinstance(e.value, ToolArgumentError)


def test_keywords_inside_strings_are_fine(graph: Graph) -> None:
    r = run_query(graph, 'SELECT ?insert WHERE { ?insert rdfs:label ?l FILTER(?l != "DELETE FROM SERVICE") }')
    assert r.total == 3


def test_syntax_error_message(graph: Graph) -> None:
    with pytest.raises(QueryError) as e:
        run_query(graph, "SELECT ?p WHERE {\n  ?p a :Product\n  ?p :weightKg ?w }")
    msg = str(e.value)
    assert msg.startswith("SPARQL syntax error at line 3, column") and "Hint:" in msg
    assert "\n" not in msg
    with pytest.raises(QueryError, match="braces are unbalanced"):
        run_query(graph, "SELECT ?p WHERE { ?p a :Product ")
    with pytest.raises(QueryError, match="prefix 'ex:' is not declared.*rdfs:"):
        run_query(graph, "SELECT ?p WHERE { ?p a ex:Product }")


def test_timeout(graph: Graph) -> None:
    big = Graph()
    for i in range(300):
        big.add((URIRef(f"http://e/{i}"), URIRef("http://e/p"), Literal(i)))
    with pytest.raises(QueryError, match="longer than 0.2 s"):
        run_query(big, "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i }", timeout_s=0.2)


def test_shorten() -> None:
    prefixes = {"": "http://example.org/s#", "ex": "http://example.org/"}
    assert shorten(URIRef("http://example.org/s#p1"), prefixes) == ":p1"
    assert shorten(URIRef("http://example.org/x"), prefixes) == "ex:x"
    assert shorten(URIRef("http://other.org/a b"), prefixes) == "<http://other.org/a b>"
    assert shorten(Literal("two\nlines"), prefixes) == "two\\nlines"
    assert shorten(None, prefixes) == ""


def test_load_graph_files_and_folder(tmp_path: Path, tiny_index) -> None:
    from ontobuild.outputs.outcome import write_index_outcome

    ttl = tmp_path / "a.ttl"
    ttl.write_text(DATA)
    xml = tmp_path / "b.rdf"
    Graph().parse(data="<http://e/x> <http://e/p> 1 .", format="turtle").serialize(xml, format="xml")
    g = load_graph([ttl, xml])
    assert len(g) == 10
    outdir = tmp_path / "outcome"
    write_index_outcome(tiny_index, outdir, reason=False)
    g2 = load_graph(outdir)
    assert len(g2) == 45  # 35 of the index, 6 of the ontology's header, 4 of QUDT units (see test_outcome)
    assert ("", URIRef("http://example.org/t#")) in {(p, n) for p, n in g2.namespaces()}


@pytest.mark.parametrize("name, content, needle", [
    ("missing.ttl", None, "no such file"),
    ("bad.ttl", "this is not turtle", "could not be read as Turtle"),
    ("bad.owl", "<rdf:RDF>", "could not be read as RDF/XML"),
    ("empty.nt", "", "is empty"),
])
def test_load_graph_errors(tmp_path: Path, name: str, content: str | None, needle: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=needle) as e:
        load_graph([path])
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_load_graph_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="folder without ontology.ttl or ontology.owl"):
        load_graph(tmp_path)
