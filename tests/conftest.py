"""Shared fixtures: paths to the shared sample data and a tiny index."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ontobuild.ontology.entries import Fact

from ontobuild.ontology.index import EntitiesIndex

REPO = Path(__file__).resolve().parents[1]
# the prefixes of the made-up beekeeping vocabularies of the vocabulary tests (Turtle)
HIVES_PREFIXES = """@prefix hx: <https://hives.example/voc#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix qudt: <http://qudt.org/schema/qudt/> .
@prefix unit: <http://qudt.org/vocab/unit/> .
"""
POC_INDEX = REPO / "../shared/data/poc/reference_outcome/entities_index.json"
# every test builds the views it asks over (tests/ontouse/test_viewcache.py turns the kept views on for itself)
os.environ.setdefault("ONTOBUILD_VIEW_CACHE", "0")
# ... and keeps the answer phrases it translates in memory (tests/ontouse/test_phrases.py turns the disk cache on for itself)
os.environ.setdefault("ONTOBUILD_PHRASE_CACHE", "0")


@pytest.fixture
def poc_index_path() -> Path:
    if not POC_INDEX.is_file():
        pytest.skip(f"shared sample data not found: {POC_INDEX}")
    return POC_INDEX


def make_tiny_index() -> EntitiesIndex:
    """Two classes, an object and a datatype property, two individuals, three facts."""
    idx = EntitiesIndex(base_iri="http://example.org/t#")
    idx.add_class("Product", roles=["Something we sell"])
    idx.add_class("Lantern", superclasses=["Product"], label="Lantern model")
    idx.add_class("Crate")
    idx.add_property("weightKg", "datatype", domain=["Product"], range="xsd:decimal", unit="kg")
    idx.add_property("storedOn", "object", domain=["Product"], range="Crate")
    idx.add_individual("P1", classes=["Lantern"], label="Lantern one", roles=["A lantern"])
    idx.add_individual("Cr1", classes=["Crate"])
    idx.add_fact("P1", Fact("weightKg", literal="12.5", unit="kg", source={"file": "a.json", "path": "/0/w"}))
    idx.add_fact("P1", Fact("weightKg", literal="12500", unit="g"))
    idx.add_fact("P1", Fact("storedOn", object="Cr1"))
    return idx


@pytest.fixture
def tiny_index() -> EntitiesIndex:
    return make_tiny_index()


def cassette_model(path: Path):
    """The model of a cassette test: recorded real exchanges replayed, or with ONTOBUILD_RECORD=1 the real local
    model, recorded to `path`."""
    import os

    from ontocore.cassette import RecordingChat, ReplayChat

    if os.environ.get("ONTOBUILD_RECORD"):
        from ontocore.llm import LocalChat

        return RecordingChat(LocalChat(), path)
    if not path.is_file():
        pytest.skip("no cassette recorded yet (ONTOBUILD_RECORD=1)")
    return ReplayChat(path)


def local_model_or_skip(n_ctx: int = 2048):
    """The embedded local model for a live test, or the test skipped with the reason it is unavailable."""
    from ontocore.errors import ModelUnavailable
    from ontocore.llm import LocalChat

    try:
        return LocalChat(n_ctx=n_ctx)
    except ModelUnavailable as e:
        pytest.skip(str(e))


# answer loops over the made-up graphs of tests/ontouse_graphs.py, built once per test session, for the tests that
# answer recorded plans with `answer_sql` (no model)
@pytest.fixture(scope="session")
def parks_loop():
    from ontouse_graphs import PARKS, loop_of

    return loop_of(PARKS)


@pytest.fixture(scope="session")
def grove_loop():
    from ontouse_graphs import GROVE, loop_of

    return loop_of(GROVE)


@pytest.fixture(scope="session")
def harbour_loop():
    from ontouse_graphs import HARBOUR, loop_of

    return loop_of(HARBOUR)
