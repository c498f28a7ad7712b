"""The reasoner in the loop: structured problems from tiny made-up ontologies, the fixes code proposes, and a
bounded repair round where the embedded model picks a fix (recorded real exchanges) and HermiT re-checks.

Set ONTOBUILD_RECORD=1 to re-record the cassette with the real local model after changing the prompt or tool."""

from __future__ import annotations

from html import escape
import shutil
from pathlib import Path

import pytest

from ontobuild.ontology.consistency import apply_fix, check_index, find_problems, needs_repair, repair_round
from ontobuild.ontology.entries import Fact
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.outputs.report import build_report
from ontocore.trace import Trace

from conftest import cassette_model

HERE = Path(__file__).resolve().parents[2]
CASSETTE = HERE / "cassettes" / "repair_round.json"


def bakery() -> EntitiesIndex:
    """A recipe said to be baked in an oven, and a text fact that puts an oven's temperature on the recipe."""
    idx = EntitiesIndex("http://example.org/bakery#")
    for c in ("Oven", "Recipe", "Flour"):
        idx.add_class(c)
    idx.classes["Oven"].disjoint = ["Recipe"]
    idx.add_property("bakedIn", "object", ["Recipe"], "Oven")
    idx.add_property("temperatureC", "datatype", ["Oven"], "xsd:integer", unit="°C")
    idx.add_individual("Rye", ["Recipe"], label="Rye loaf")
    idx.add_individual("StoneOven", ["Oven"], label="Stone oven")
    idx.add_fact("Rye", Fact("bakedIn", object="StoneOven", source={"file": "recipes.csv", "path": "$[0].oven"}))
    idx.add_fact("StoneOven", Fact("temperatureC", literal="250", source={"file": "ovens.csv", "path": "$[0].temp"}))
    idx.add_fact("Rye", Fact("temperatureC", literal="230", source={
        "chunk": "notes.md#2", "sentence": "The rye loaf goes into the stone oven at 230 °C."}))
    return idx


def kinds(idx: EntitiesIndex) -> list[str]:
    return [p.kind for p in find_problems(idx)]


def test_problems_and_fixes_on_tiny_ontologies() -> None:
    idx = bakery()
    [p] = find_problems(idx)
    assert p.kind == "domain violation" and "Rye loaf would be both an Oven and a Recipe" in p.text
    assert any("230 °C" in line for line in p.involved)
    assert [f.text for f in p.fixes] == ['drop the fact Rye temperatureC "230"', "drop the domain Oven of temperatureC",
                                         "drop the axiom that Oven and Recipe are disjoint"]
    apply_fix(idx, p.fixes[0])
    assert find_problems(idx) == [] and idx.skipped[-1]["value"] == "Rye temperatureC 230"

    idx = bakery()
    idx.individuals["Rye"].facts.pop()
    idx.add_individual("Spelt", ["Flour"])
    idx.add_fact("Rye", Fact("bakedIn", object="Spelt"))  # a flour is no oven... unless Flour and Oven may overlap
    assert kinds(idx) == []
    idx.classes["Flour"].disjoint = ["Oven"]
    assert kinds(idx) == ["range violation"]
    idx.individuals["Rye"].facts.pop()

    idx.properties["temperatureC"].functional = True
    idx.add_fact("StoneOven", Fact("temperatureC", literal="260"))
    [p] = find_problems(idx)
    assert p.kind == "functional clash" and len(p.fixes) == 3
    idx.properties["temperatureC"].functional = False

    idx.add_class("Proofer", superclasses=["Oven", "Recipe"])
    [p] = find_problems(idx)
    assert p.kind == "unsatisfiable class" and "Proofer is not a subclass of Oven" in [f.text for f in p.fixes]
    apply_fix(idx, p.fixes[0])
    assert kinds(idx) == []

    idx.add_individual("Pan", ["Oven", "Recipe"])
    assert kinds(idx) == ["disjoint classes"]


def _model():
    return cassette_model(CASSETTE)


@pytest.mark.skipif(shutil.which("java") is None, reason="HermiT needs Java")
def test_repair_round_with_hermit() -> None:
    idx = bakery()
    before = check_index(idx)
    assert before.status == "inconsistent" and needs_repair(before)
    trace = Trace()
    result = repair_round(_model(), idx, before, trace)
    assert [r["repair"]["fix"] for r in trace.records if r["kind"] == "repair"] == [result["repaired"][0]["fix"]]
    assert result["status"] == "consistent" and result["remaining"] == []
    [done] = result["repaired"]
    assert done["kind"] == "domain violation"
    assert check_index(idx).status == "consistent"
    assert idx.individuals["StoneOven"].facts[0].literal == "250"  # the oven's own value stays
    page = build_report(idx, {"reasoner": {"status": "consistent"}, "repair": result})
    assert "Repair round: 1 repaired, 0 remaining" in page and escape(done["fix"]) in page


def test_repair_round_is_bounded_and_says_what_remains() -> None:
    idx = bakery()
    idx.add_individual("Pan", ["Oven", "Recipe"])

    class Refuses:  # a scripted model that never answers: tests the loop's bound only
        backend, model = "scripted", "none"

        def chat(self, *args, **kwargs):
            from ontocore.llm import ChatReply

            return ChatReply(content="I cannot decide.", tool_calls=[])

    def never_fixed(_: EntitiesIndex):
        from ontobuild.ontology.reason import ReasonerReport

        return ReasonerReport("inconsistent")

    result = repair_round(Refuses(), idx, {"status": "inconsistent"}, check=never_fixed)
    assert result["repaired"] == [] and len(result["remaining"]) == 2
