"""The view of an ontology kept between processes (ontouse.viewcache): a second AnswerLoop over the same files
starts from the kept view and answers the same; a changed file gets a new view; a damaged entry is rebuilt."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontouse_graphs import NoModel
from ontouse import viewcache
from ontouse.answerer import AnswerLoop
from ontouse.storage.store import GraphStore

TTL = """@prefix : <http://example.org/mill#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
:m1 a :Mill ; rdfs:label "Lower mill" ; :stones 2 .
:m2 a :Mill ; rdfs:label "Upper mill" ; :stones 3 .
"""


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ONTOBUILD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ONTOBUILD_VIEW_CACHE", "1")
    return tmp_path / "cache" / "views"


def answerer(path: Path) -> AnswerLoop:
    return AnswerLoop(GraphStore.from_paths([path]), NoModel())


def test_second_answerer_starts_from_the_kept_view(tmp_path: Path, kept: Path) -> None:
    ttl = tmp_path / "mills.ttl"
    ttl.write_text(TTL, encoding="utf-8")
    first = answerer(ttl)
    assert len(list(kept.glob("*.pickle"))) == 1
    second = answerer(ttl)
    assert second.schema.tables.keys() == first.schema.tables.keys()
    assert second.index.store is second.store  # the kept index reads this process's store
    sql = "SELECT SUM(stones) FROM Mill WHERE label = 'Upper mill'"
    assert second.answer_sql("How many stones has the upper mill?", sql).answer == \
        first.answer_sql("How many stones has the upper mill?", sql).answer == "3."


def test_a_changed_file_gets_a_new_view(tmp_path: Path, kept: Path) -> None:
    ttl = tmp_path / "mills.ttl"
    ttl.write_text(TTL, encoding="utf-8")
    answerer(ttl)
    ttl.write_text(TTL + ':m3 a :Mill ; rdfs:label "Salt mill" ; :stones 1 .\n', encoding="utf-8")
    again = answerer(ttl)
    assert len(list(kept.glob("*.pickle"))) == 2
    assert again.answer_sql("How many mills are there?", "SELECT COUNT(*) FROM Mill").answer == "3."


def test_a_damaged_entry_is_rebuilt(tmp_path: Path, kept: Path, caplog: pytest.LogCaptureFixture) -> None:
    ttl = tmp_path / "mills.ttl"
    ttl.write_text(TTL, encoding="utf-8")
    answerer(ttl)
    (entry,) = kept.glob("*.pickle")
    entry.write_bytes(b"not a view")
    again = answerer(ttl)
    assert "could not be read" in caplog.text
    assert again.answer_sql("How many mills are there?", "SELECT COUNT(*) FROM Mill").answer == "2."
    assert entry.is_file() and entry.read_bytes() != b"not a view"  # kept again


def test_off_and_without_files(tmp_path: Path, kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ttl = tmp_path / "mills.ttl"
    ttl.write_text(TTL, encoding="utf-8")
    monkeypatch.setenv("ONTOBUILD_VIEW_CACHE", "0")
    answerer(ttl)
    assert not kept.exists()
    assert viewcache.view_key([]) is None


def test_the_command_keeps_the_view_of_its_files(tmp_path: Path, kept: Path) -> None:
    """`ontoask --ontology FILE` (a Source of local files, the default Oxigraph store) opens a store that knows its
    files, so the second run starts from the kept view."""
    from ontouse.storage.store import Source

    ttl = tmp_path / "mills.ttl"
    ttl.write_text(TTL, encoding="utf-8")
    for kind in ("oxigraph", "memory"):
        store = Source(paths=[ttl], kind=kind).open()
        assert store.files == (ttl.resolve(),)
    AnswerLoop(Source(paths=[ttl]).open(), NoModel())
    assert len(list(kept.glob("*.pickle"))) == 1
