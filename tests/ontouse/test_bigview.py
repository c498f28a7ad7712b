"""ontoask over a big-graph outcome (ontouse.storeview, ontouse.sqlplan.bigschema): the view the first ontoask saves
beside the outcome's store is what the next ones open (no view query runs); a view made from a sample answers as
the whole view does; a text value the sample did not keep is looked up in the store; a stale or damaged saved view is
ignored and made again.

The streamed build is the small related tables of test_tablestream (its cassette of the embedded model), with the
sampling thresholds lowered so that the view is made from a sample of a few rows per class."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from ontouse_graphs import NoModel
from ontouse import storeview
from ontouse.answerer import AnswerLoop
from ontouse.question import parse_question
from ontouse.sqlplan import bigschema
from ontouse.sqlplan.schema_build import build_schema
from ontouse.storage.store import GraphStore, Source
from test_tablestream import _build, _write_tables

ask_module = importlib.import_module("ontouse.answerer")  # the module (the package exports a function `ask`)
SAMPLE_ABOVE, SAMPLE_ROWS = 20, 8  # the loan lines (60) and loans (30) are above: the view is made from a sample

PLANS = [
    ("How many loans were at the north desk?", "SELECT COUNT(*) FROM Loan WHERE desk = 'north'"),
    ("How many copies were lent to member M011?",
     "SELECT SUM(LoanLine.copies) FROM LoanLine JOIN Loan ON LoanLine.loan = Loan.iri "
     "JOIN Member ON Loan.member = Member.iri WHERE Member.memberId = 'M011'"),
    ("Which members live in Turku?", "SELECT name FROM Member WHERE city = 'Turku' ORDER BY name"),
    ("How many copies were lent with loan 7?",
     "SELECT SUM(LoanLine.copies) FROM LoanLine JOIN Loan ON LoanLine.loan = Loan.iri WHERE Loan.loanId = 7"),
    ("How many lines has each loan at the south desk?",
     "SELECT Loan.loanId, COUNT(*) FROM LoanLine JOIN Loan ON LoanLine.loan = Loan.iri WHERE Loan.desk = 'south' "
     "GROUP BY Loan.loanId ORDER BY Loan.loanId"),
]


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the normal path's outcome, the streamed build's outcome with its store and saved view)"""
    mp = pytest.MonkeyPatch()
    mp.setenv("SOURCE_DATE_EPOCH", "1700000000")
    mp.setattr(bigschema, "SAMPLE_ABOVE", SAMPLE_ABOVE)
    mp.setattr(bigschema, "SAMPLE_ROWS", SAMPLE_ROWS)
    tmp = tmp_path_factory.mktemp("bigview")
    files = _write_tables(tmp / "data")
    try:
        normal = tmp / "a" / "lending"
        _build(files, normal, stream_rows=0)
        streamed = tmp / "b" / "lending"
        stats = _build(files, streamed, stream_rows=1)
        assert stats["outputs"]["big_graph"] is True and not (streamed / "store" / storeview.VIEW_FILE).exists()
        mp.setenv("ONTOBUILD_VIEW_CACHE", "0")
        first = _open(streamed)  # the first ontoask makes the view and saves it beside the store
        assert first.schema.sampled == SAMPLE_ROWS and (streamed / "store" / storeview.VIEW_FILE).is_file()
    finally:
        mp.undo()
    return normal, streamed


@pytest.fixture(autouse=True)
def _no_kept_views(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ONTOBUILD_VIEW_CACHE", "0")
    monkeypatch.setattr(bigschema, "SAMPLE_ABOVE", SAMPLE_ABOVE)
    monkeypatch.setattr(bigschema, "SAMPLE_ROWS", SAMPLE_ROWS)


def _no_view_queries(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Make any view building a test failure; the calls it would have made."""
    calls: list[str] = []

    def refuse(*args, **kwargs):
        calls.append("build_view")
        raise AssertionError("the view was built instead of read")

    monkeypatch.setattr(ask_module, "build_view", refuse)
    return calls


def _open(outcome: Path) -> AnswerLoop:
    return AnswerLoop(Source(paths=(outcome,)).open(), NoModel())


def test_the_saved_view_is_opened_and_answers_as_the_whole_view(outcomes, monkeypatch) -> None:
    normal, streamed = outcomes
    saved = streamed / "store" / storeview.VIEW_FILE
    assert saved.is_file() and json.loads(saved.read_text("utf-8"))["format"] == storeview.FORMAT
    _no_view_queries(monkeypatch)
    big = _open(streamed)
    assert big.store.folder == streamed / "store"
    assert big.schema.sampled == SAMPLE_ROWS and big.schema.open_values
    whole_store = GraphStore.from_paths([normal])
    whole = AnswerLoop(whole_store, NoModel(), schema=build_schema(whole_store))
    assert {t.name: t.count for t in big.schema.tables.values()} == \
        {t.name: t.count for t in whole.schema.tables.values()}
    for name, table in whole.schema.tables.items():
        got = big.schema.tables[name]
        assert {(c.name, c.kind, c.target) for c in got.columns.values()} == \
            {(c.name, c.kind, c.target) for c in table.columns.values()}
    for question, sql in PLANS:
        a, b = big.answer_sql(question, sql), whole.answer_sql(question, sql)
        assert a.state == b.state == "answered", (question, a.error, b.error)
        assert a.rows == b.rows and a.answer == b.answer, question
    loan = big.schema.table("Loan")
    assert loan.column("desk").plain and loan.column("loanId").canonical  # checked on the whole store
    bound = [big.answer_sql(q, sql).sparql[-1] for q, sql in PLANS[:2] + PLANS[3:4]]
    assert 'VALUES ?Loan__desk { "north" }' in bound[0] and 'VALUES ?Member__memberId { "M011" }' in bound[1]
    assert "VALUES ?Loan__loanId { " in bound[2] and "7" in bound[2].split("VALUES ?Loan__loanId")[1][:60]


def test_a_value_the_sample_left_out_is_found_in_the_store(outcomes, monkeypatch) -> None:
    _, streamed = outcomes
    _no_view_queries(monkeypatch)
    big = _open(streamed)
    line_id = next(c.prop for c in big.schema.table("LoanLine").columns.values() if c.name == "lineId")
    assert line_id in big.schema.open_values
    kept = big.schema.values.get(line_id, {})
    missing = next(f"L{i}" for i in range(1, 61) if f"L{i}" not in kept)
    hints = [m.hint() for m in big.index.mentions(parse_question(f"How many copies has line {missing}?"))]
    assert any(h.startswith(f"'{missing}' is the lineId of a LoanLine row") for h in hints), hints
    assert missing in big.index.values_of(line_id) and "L999" not in big.index.values_of(line_id)
    sql = f"SELECT SUM(copies) FROM LoanLine WHERE lineId = '{missing}'"
    assert big.answer_sql("How many copies?", sql).state == "answered"
    quoted = big.index.values_of(line_id)
    assert "x' } ?s ?p ?o . { 'y" not in quoted and 'L1" . ?s ?p ?o' not in quoted  # bound terms, not pasted text


@pytest.mark.parametrize("damage", ["key", "format", "text"])
def test_a_stale_or_damaged_saved_view_is_made_again(outcomes, monkeypatch, tmp_path, damage) -> None:
    import shutil

    _, streamed = outcomes
    copy = tmp_path / "lending"
    shutil.copytree(streamed, copy)
    saved = copy / "store" / storeview.VIEW_FILE
    data = json.loads(saved.read_text("utf-8"))
    if damage == "key":  # the view of another store (or of another version of the view's code)
        data["key"] = "0" * 64
        saved.write_text(json.dumps(data), "utf-8")
    elif damage == "format":
        data["format"] = storeview.FORMAT + 1
        saved.write_text(json.dumps(data), "utf-8")
    else:
        saved.write_text(saved.read_text("utf-8")[:100], "utf-8")
    built: list[int] = []
    real = ask_module.build_view

    def counted(store, *args, **kwargs):
        built.append(1)
        return real(store, *args, **kwargs)

    monkeypatch.setattr(ask_module, "build_view", counted)
    again = _open(copy)
    assert built == [1] and again.schema.sampled == SAMPLE_ROWS
    assert json.loads(saved.read_text("utf-8"))["key"] == storeview.store_key(copy / "store")  # saved anew
    _open(copy)
    assert built == [1]  # the saved view from then on


def test_a_view_is_not_a_pickle_and_round_trips(outcomes) -> None:
    _, streamed = outcomes
    store = Source(paths=(streamed,)).open()
    schema = bigschema.build_view(store)
    again = storeview.schema_of(json.loads(json.dumps(storeview.schema_json(schema))))
    assert again == schema


MILLS = """@prefix : <http://example.org/mill#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:m1 a :Mill ; rdfs:label "Lower mill" ; :power "wind" ; :town "Esk"@en .
:m2 a :Mill ; rdfs:label "Upper mill" ; :power "water" ; :town "Esk" .
:m3 a :Mill ; rdfs:label "Salt mill" ; :power "wind" ; :town "Ord" .
"""


def test_a_text_value_is_bound_only_where_every_value_is_a_plain_string(tmp_path: Path) -> None:
    ttl = tmp_path / "mills.ttl"
    ttl.write_text(MILLS, encoding="utf-8")
    answerer = AnswerLoop(GraphStore.from_paths([ttl]), NoModel())
    mill = answerer.schema.table("Mill")
    assert mill.column("power").plain and not mill.column("town").plain
    by_power = answerer.answer_sql("How many mills run on wind?", "SELECT COUNT(*) FROM Mill WHERE power = 'wind'")
    assert by_power.answer == "2." and 'VALUES ?Mill__power { "wind" }' in by_power.sparql[-1]
    by_town = answerer.answer_sql("How many mills are in Esk?", "SELECT COUNT(*) FROM Mill WHERE town = 'Esk'")
    assert by_town.answer == "2." and "VALUES" not in by_town.sparql[-1]  # "Esk"@en is a value of the town too
    either = answerer.answer_sql("How many mills run on wind or are in Ord?",
                                 "SELECT COUNT(*) FROM Mill WHERE power = 'wind' OR town = 'Ord'")
    assert either.answer == "2." and "VALUES" not in either.sparql[-1]  # not a condition every row must meet


def test_an_unchanged_ntriples_file_is_not_read_again_and_a_changed_one_is(outcomes, monkeypatch, tmp_path) -> None:
    import shutil

    from ontocore import storefolder

    _, streamed = outcomes
    copy = tmp_path / "lending"
    shutil.copytree(streamed, copy)  # a copy: another file status than the one noted at the build
    hashed: list[Path] = []
    real = storefolder.sha256_of
    monkeypatch.setattr(storefolder, "sha256_of", lambda p: hashed.append(p) or real(p))
    assert storefolder.outcome_store(copy) == copy / "store" and len(hashed) == 1
    assert storefolder.outcome_store(copy) == copy / "store" and len(hashed) == 1  # noted: not read again
    nt = copy / "ontology.nt"
    text = nt.read_bytes()
    nt.write_bytes(text.replace(b"north", b"nerth", 1))  # the same size, another content
    assert storefolder.outcome_store(copy) is None and len(hashed) == 2
