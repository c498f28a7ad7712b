"""report.html of build and answer outcomes, the pictures in it (Graphviz or grandalf), and the provenance of
support triples; rendered in headless Chromium (Debian's package) when it is installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ontocore import drawing
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.outputs.outcome import write_index_outcome
from ontouse.provenance import Provenance, describe
from ontouse.report import evidence_diagram, write_answers_report
from ontouse.storage.store import Source

NODE_FILL = (0xEE, 0xF4, 0xFB)  # drawing: the fill of a thing's box
NOTE_FILL = (0xFF, 0xF7, 0xE0)  # drawing: the fill of a literal value


def library() -> EntitiesIndex:
    idx = EntitiesIndex(base_iri="http://example.org/library#")
    idx.add_class("Work")
    idx.add_class("Novel", superclasses=["Work"])
    idx.add_class("Author")
    idx.add_property("writtenBy", "object", domain=["Work"], range="Author")
    idx.add_property("pages", "datatype", domain=["Work"], range="xsd:integer")
    idx.add_individual("Dune", classes=["Novel"], label="Dune", source={"file": "books.json", "path": "$[0]"})
    idx.add_individual("Herbert", classes=["Author"], label="Frank Herbert", source={"file": "books.json", "path": "$[0]"})
    idx.add_fact("Dune", Fact("pages", literal="412", datatype="xsd:integer",
                              source={"chunk": "notes.txt#2", "sentence": "Dune runs to 412 pages."}))
    idx.add_fact("Dune", Fact("writtenBy", object="Herbert", source={"file": "books.json", "path": "$[0]['author']"}))
    return idx


def fleet() -> EntitiesIndex:
    idx = EntitiesIndex(base_iri="http://example.org/fleet#")
    idx.add_class("Vehicle")
    idx.add_class("Truck", superclasses=["Vehicle"])
    idx.add_class("Depot")
    idx.add_property("basedAt", "object", domain=["Vehicle"], range="Depot")
    idx.add_property("payloadT", "datatype", domain=["Truck"], range="xsd:decimal", unit="t")
    idx.add_individual("T7", classes=["Truck"], label="Truck 7", source={"file": "fleet.csv", "path": "row 3"})
    idx.add_individual("North", classes=["Depot"], label="North depot", source={"file": "depots.csv", "path": "row 1"})
    idx.add_fact("T7", Fact("payloadT", literal="18", datatype="xsd:decimal", unit="t",
                            source={"file": "fleet.csv", "path": "row 3, column payload"}))
    idx.add_fact("T7", Fact("basedAt", object="North", source={"file": "fleet.csv", "path": "row 3, column depot"}))
    return idx


DOMAINS = [(library, "Dune", "pages", "412", "Frank Herbert"), (fleet, "T7", "payloadT", "18", "North depot")]


@pytest.mark.parametrize("make,subject,prop,value,other", DOMAINS)
def test_build_report_has_pictures_and_sources(make, subject, prop, value, other, tmp_path: Path) -> None:
    idx = make()
    stats = write_index_outcome(idx, tmp_path, reason=False,
                                coverage={"json_leaves": {"total": 3, "covered": 2, "skipped": 1},
                                          "json": [{"file": "x.json", "path": "$[9]", "value": "??",
                                                    "status": "skipped", "reason": "no record shape"}],
                                          "references": [{"reference": "a.csv 'x_id' -> b.csv 'id'", "confirmed": False,
                                                          "property": "toB", "inverse": ""}]})
    html = (tmp_path / "report.html").read_text("utf-8")
    assert "report" in stats["seconds"] and (tmp_path / "stats.json").is_file()
    for picture in ("class hierarchy", "class relations"):
        start = html.index(f'data-picture="{picture}"')
        assert "<svg" in html[start:start + 300]
    assert "http://" not in html.replace(idx.base_iri, "").replace(stats["ontology_iri"], "") \
        .replace("http://www.w3.org/2000/svg", "") \
        .replace("http://www.w3.org/1999/xlink", "")  # nothing fetched: no external address
    assert other in html and value in html and "no record shape" in html  # individuals, facts, skipped + why
    assert "References between record sets" in html and "rejected" in html
    src = next(f.source for f in idx.individuals[subject].facts if f.property == prop)
    assert describe(src).split(" ")[0] in html


def test_grandalf_draws_without_graphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drawing.shutil, "which", lambda name: None)
    d = drawing.Diagram()
    for name in ("Vehicle", "Truck", "Depot", "Work", "Novel"):
        d.node(name, name)
    d.edge("Truck", "Vehicle")
    d.edge("Novel", "Work")
    d.edge("Truck", "Depot", "basedAt", dashed=True)
    svg = drawing.to_svg(d)
    assert drawing.engine() == "grandalf" and svg.startswith("<svg") and svg.count("<rect") == 5
    assert "basedAt" in svg and "stroke-dasharray" in svg


@pytest.mark.parametrize("make,subject,prop,value,other", DOMAINS)
def test_provenance_of_support_triples(make, subject, prop, value, other, tmp_path: Path) -> None:
    idx = make()
    write_index_outcome(idx, tmp_path, reason=False)
    store = Source(paths=(tmp_path,)).open()
    prov = Provenance.find([tmp_path])
    assert prov is not None
    fact_of = {f.property: f for f in idx.individuals[subject].facts}
    obj = next(f for f in idx.individuals[subject].facts if f.object is not None)
    support = [[f":{subject}", "rdf:type", f":{idx.individuals[subject].classes[0]}"],
               [f":{subject}", f":{prop}", value if "." in value else value + ".0"],  # as the store may show it
               [f":{subject}", f":{obj.property}", f":{obj.object}"],
               [f":{subject}", f":{prop}", "999"],  # no such fact: no source
               [f":{idx.individuals[subject].classes[0]}", "rdfs:subClassOf", ":Thing"]]
    sources = prov.sources(support, store.prefixes)
    assert sources[0] == idx.individuals[subject].source
    assert sources[1] == fact_of[prop].source
    assert sources[2] == obj.source
    assert sources[3] == {} and sources[4] == {}
    assert Provenance.find([tmp_path / "ontology.ttl"]) is not None  # a file inside an outcome folder too


def test_answer_render_shows_sources() -> None:
    from ontouse.answer import Answer

    ans = Answer(question="q", answer="412", state="answered",
                 support=[[":Dune", ":pages", "412"], [":Dune", "rdf:type", ":Novel"]],
                 sources=[{"chunk": "notes.txt#2", "sentence": "Dune runs to 412 pages."}, {}])
    text = ans.render()
    assert "from notes.txt#2: \u201cDune runs to 412 pages.\u201d" in text
    assert ans.to_dict()["sources"][0]["chunk"] == "notes.txt#2"


def test_evidence_diagram_kinds() -> None:
    d = evidence_diagram([[":T7", "rdf:type", ":Truck"], [":T7", ":basedAt", ":North"],
                          [":T7", ":payloadT", "18.0"], [":T7", "rdfs:label", "Truck 7: heavy, 18 t"]])
    shapes = {label: shape for label, shape in d.nodes.values()}
    assert shapes == {":T7": "box", ":Truck": "ellipse", ":North": "box", "18.0": "note",
                      "Truck 7: heavy, 18 t": "note"}


# ---- rendered in a real browser -----------------------------------------------------------------------
def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("headless Chromium is not installed (Debian: apt-get install chromium)")


def screenshot(browser: str, html_path: Path, png: Path, height: int = 1600) -> tuple[set[tuple[int, ...]], int]:
    """Render the page in headless Chromium; (the colours seen, the number of non-white pixels)."""
    image_mod = pytest.importorskip("PIL.Image")
    proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                           "--no-first-run", "--disable-background-networking", "--disable-component-update",
                           "--disable-sync", f"--user-data-dir={png.parent / 'chromium-profile'}",
                           "--hide-scrollbars", f"--window-size=1300,{height}", f"--screenshot={png}",
                           html_path.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    assert png.is_file(), proc.stderr[-2000:]
    with image_mod.open(png) as im:
        raw = im.convert("RGB").tobytes()
    pixels = [tuple(raw[i:i + 3]) for i in range(0, len(raw), 3)]
    return set(pixels), sum(1 for p in pixels if p != (255, 255, 255))


@pytest.mark.parametrize("engine", ["installed", "grandalf"])
def test_reports_render_in_chromium(engine: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    browser = _chromium()
    if engine == "grandalf":
        monkeypatch.setattr(drawing.shutil, "which", lambda name: None)
    build = tmp_path / "build"
    write_index_outcome(fleet(), build, reason=False)
    colours, inked = screenshot(browser, build / "report.html", tmp_path / "build.png")
    assert inked > 50_000 and NODE_FILL in colours  # not blank, and the class pictures' boxes are drawn

    rows = [{"question": "Where is Truck 7 based?", "answer": "North depot", "state": "answered", "llm_calls": 1,
             "support": [[":T7", ":basedAt", ":North"], [":T7", ":payloadT", "18.0"]],
             "sources": [{"file": "fleet.csv", "path": "row 3, column depot"}, {}],
             "sparql": ["SELECT ?d WHERE { :T7 :basedAt ?d }"]}]
    answers = tmp_path / "answers"
    answers.mkdir()
    write_answers_report(answers, rows, {"ontology": [str(build)], "llm": {}})
    colours, inked = screenshot(browser, answers / "report.html", tmp_path / "answers.png", 900)
    assert inked > 20_000 and NODE_FILL in colours and NOTE_FILL in colours  # the evidence picture
    assert "row 3, column depot" in (answers / "report.html").read_text("utf-8")
    json.dumps(rows)  # rows stay plain data
