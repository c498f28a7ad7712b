"""The builder end to end on recorded real exchanges of the embedded local model (a cassette).

Set ONTOBUILD_RECORD=1 to re-record it with the real local model after changing prompts or tools."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontobuild.pipeline import run_build
from ontocore.cassette import ReplayChat

from conftest import cassette_model

HERE = Path(__file__).resolve().parents[1]
CASSETTE = HERE / "cassettes" / "build_mini.json"
FILES = [HERE / "data" / "mini_fleet.json", HERE / "data" / "mini_fleet_notes.txt"]


def _model():
    return cassette_model(CASSETTE)


def test_build_from_recorded_exchanges(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from ontocore.progress import TerminalProgress

    screen = StringIO()
    progress = TerminalProgress(Console(file=screen, force_terminal=True, width=120))
    stats = run_build(FILES, out=tmp_path / "out", model=_model(), progress=progress)
    progress.close()
    shown = screen.getvalue()
    assert "record shape 1 of" in shown and "text chunk 1 of" in shown and "reasoner (HermiT)" in shown
    out = tmp_path / "out"
    for name in ("entities_index.json", "ontology.owl", "ontology.ttl", "reasoner.txt", "building.log",
                 "stats.json", "coverage.json"):
        assert (out / name).is_file(), name
    assert (out / "reasoner.txt").read_text().splitlines()[0] == "consistent"
    cov = json.loads((out / "coverage.json").read_text())
    leaves = cov["json_leaves"]
    assert leaves == {"total": 17, "covered": 16, "skipped": 1}  # the empty "Notes" is skipped, with its reason
    assert cov["text_chunks"]["covered"] == 1
    index = json.loads((out / "entities_index.json").read_text())
    ind = index["individuals"]

    def facts(name: str) -> dict[str, tuple[str, str]]:
        return {f["property"]: (f.get("literal") or f.get("object"), f.get("qualifier", ""))
                for f in ind[name].get("facts", []) if f["property"] not in ("text", "mentions")}

    kestrel = facts("Kestrel_V2")
    assert kestrel["payloadKg"] == ("900", "")  # JSON and text on the same individual
    # "A Kestrel V2 service costs €340 and takes about 3 hours": the second predicate has its own verb and subject
    assert kestrel["serviceCostEur"] == ("340", "") and kestrel["durationHours"] == ("3", "about")
    # "Both vans must be charged to at least 80 %": a bound, on each van, never on the category "Vans"
    assert facts("OspreyL")["minChargeLevelPct"] == ("80", "at least")
    assert "minChargeLevelPct" not in facts("Vans") and "minChargeLevelPct" not in facts("Heron_T1")
    # "Quarry Yard, a depot of 2,400 m²": the apposition says what Quarry Yard is, and the area is its own
    assert ind["QuarryYard"]["classes"] == ["Depot"] and facts("QuarryYard")["areaM2"] == ("2400", "")
    # "kept in a covered bay of 60 m²": a thing of its own, with its own area (not the trailer's)
    assert facts("CoveredBay")["areaM2"] == ("60", "") and facts("Heron_T1")["keptIn"][0] == "CoveredBay"
    assert "areaM2" not in facts("Heron_T1")
    parked = {s for s, i in ind.items() for f in i.get("facts", []) if f.get("object") == "QuarryYard"
              and f["property"] == "parkedAt"}
    assert parked == {"Kestrel_V2", "OspreyL"}  # "Vans are parked at ...": every van
    assert not any(c == ["Trip"] for c in (i["classes"] for i in ind.values()))  # "before each trip": no individual
    numbers = cov["text"][0]["numbers"]
    assert all(n["status"] == "covered" for n in numbers) and len(numbers) == 5
    llm = stats["llm"]
    assert llm["calls"] >= 2 and llm["completion_tokens"] > 0 and set(llm) == {
        "backend", "model", "calls", "prompt_tokens", "completion_tokens", "prompt_evaluated", "prompt_reused",
        "prompt_loaded", "grammar_retries", "grammar_first", "replayed", "seconds"}
    log = [json.loads(line) for line in (out / "building.log").read_text().splitlines()]
    assert any(r["kind"] == "llm" for r in log) and any(r["kind"] == "mapped" for r in log)


def test_extend_an_existing_index(tmp_path: Path) -> None:
    """The same recorded exchanges, as two builds: the catalog first, then the notes on top of its index."""
    if not CASSETTE.is_file():
        pytest.skip("no cassette recorded yet")
    model = ReplayChat(CASSETTE)
    run_build([FILES[0]], out=tmp_path / "first", model=model)
    first = json.loads((tmp_path / "first" / "entities_index.json").read_text())
    run_build([FILES[1]], out=tmp_path / "second", model=model,
              index_path=tmp_path / "first" / "entities_index.json")
    second = json.loads((tmp_path / "second" / "entities_index.json").read_text())
    assert set(first["individuals"]) < set(second["individuals"])  # everything kept, text entities added
    kestrel = {f.get("literal") for f in second["individuals"]["Kestrel_V2"]["facts"]}
    assert {"900", "31000", "340", "3"} <= kestrel
    assert (tmp_path / "second" / "reasoner.txt").read_text().startswith("consistent")
