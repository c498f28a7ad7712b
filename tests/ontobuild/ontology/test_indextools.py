"""The builder agent's index tools, called the way the loop calls them (JSON arguments, validated)."""

from __future__ import annotations

import pytest

from ontocore.errors import ToolArgumentError
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.ontology.indextools import make_index_tools


def tools_for(idx: EntitiesIndex) -> dict:
    return {t.name: t for t in make_index_tools(idx)}


def test_add_update_remove_and_errors_the_model_can_act_on() -> None:
    idx = EntitiesIndex()
    t = tools_for(idx)
    assert t["add_class"]('{"name": "Product", "role": "what we sell"}') == "ok: class Product"
    t["add_property"]('{"name": "weightKg", "kind": "datatype", "domain": "Product", "range": "xsd:integer"}')
    t["add_individual"]('{"name": "SunDial", "classes": ["Product"]}')
    assert t["add_fact"]('{"subject": "SunDial", "property": "weightKg", "value": "7"}') == "ok"
    with pytest.raises(ToolArgumentError, match="Unknown class 'Prodcut'. Did you mean: Product"):
        t["add_individual"]('{"name": "X", "classes": ["Prodcut"]}')
    with pytest.raises(ToolArgumentError, match="'7.5' is not a valid xsd:integer"):
        t["add_fact"]('{"subject": "SunDial", "property": "weightKg", "value": "7.5"}')
    with pytest.raises(ToolArgumentError, match="kind: 'both' is not one of"):
        t["add_property"]('{"name": "p", "kind": "both"}')
    assert "range xsd:decimal" in t["update_property"]('{"name": "weightKg", "range": "xsd:decimal"}')
    assert t["add_fact"]('{"subject": "SunDial", "property": "weightKg", "value": "7.5"}') == "ok"
    t["rename"]('{"old": "SunDial", "new": "SunDialFrame"}')
    assert "SunDialFrame" in t["find_entity"]('{"mention": "sun dial frame"}')
    assert t["remove"]('{"name": "weightKg"}') == "removed property 'weightKg'"
    assert idx.individuals["SunDialFrame"].facts == [] and idx.dangling() == []


def test_lists_are_paged() -> None:
    idx = EntitiesIndex()
    idx.add_class("C")
    for i in range(40):
        idx.add_individual(f"I{i:02d}", ["C"])
    t = tools_for(idx)
    page1 = t["list_entities"]('{"kind": "individual"}')
    assert page1.startswith("individual page 1/3") and len(page1.splitlines()) == 16
    assert "I39" in t["list_entities"]('{"kind": "individual", "page": 3}')
