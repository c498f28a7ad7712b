"""One rename, everywhere: a property or class renamed (or merged) by any step of a build is renamed in the facts,
the inverses, and every record outside the index that names it (coverage entries, link records, merges,
alignments), because the index does it (EntitiesIndex.rename / merge_property / merge_class and `track`).

The case that broke: several tables refer to one table under the same column name, and that name is also the
referred table's own id column, so every reference shares one link name `xLink` (beside the value property `x`);
the link is renamed once (after the class it links to), and every reference's record must follow. Two made-up
domains: a permit office (permits, inspections, fees) and an instrument rental (instruments, rentals, repairs)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ontobuild.ontology.entries import Fact

from ontobuild.ontology.index import EntitiesIndex
from ontobuild.tables.references.proposing import apply_references, find_references, weigh
from ontobuild.tables.mapping import Coverage
from ontobuild.tables.references.confirming import link_names

from test_keys import _map, dataset

PERMITS = {
    "permits.csv": "permit_number,holder,issued\nP-100,Ana Ruiz,2021-02-01\nP-101,Bo Lind,2021-03-05\n"
                   "P-102,Cy Hart,2022-01-10\n",
    "inspections.csv": "inspection_id,permit_number,inspector,result\n7,P-100,Dee,pass\n8,P-100,Eli,fail\n"
                       "9,P-102,Dee,pass\n",
    "fees.csv": "fee_id,permit_number,amount_eur\n51,P-101,40\n52,P-101,15\n53,P-102,40\n",
}
INSTRUMENTS = {
    "instruments.csv": "serial,maker,tuned\nS-1,Holt,yes\nS-2,Varga,no\nS-3,Holt,yes\n",
    "rentals.csv": "rental_no,serial,weeks\n100,S-1,2\n101,S-1,4\n102,S-3,1\n",
    "repairs.csv": "repair_no,serial,part\n500,S-2,bridge\n501,S-2,peg\n502,S-3,string\n",
}


@pytest.mark.parametrize("files,classes,column,link,target", [
    (PERMITS, {"permits.csv": "Permit", "inspections.csv": "Inspection", "fees.csv": "Fee"}, "permit_number",
     "permit", "Permit"),
    (INSTRUMENTS, {"instruments.csv": "Instrument", "rentals.csv": "Rental", "repairs.csv": "Repair"}, "serial",
     "instrument", "Instrument"),
])
def test_tables_that_refer_to_one_table_by_its_own_id_column_name_are_all_linked(
        tmp_path: Path, files: dict[str, str], classes: dict[str, str], column: str, link: str, target: str) -> None:
    shapes = dataset(tmp_path, files)
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    made_classes = _map(idx, shapes, plan, classes, cov)
    assert sorted((r.source.file, r.column) for r in plan.references) == sorted(
        (f, column) for f in files if classes[f] != target)
    for ref in plan.references:  # code decides: the column is named after the key that numbers the target
        verdict, _ = weigh(ref, plan)
        assert verdict == "yes"
        ref.confirmed = True
        ref.property, ref.inverse = link_names(ref, made_classes)
    made = apply_references(idx, plan, cov, made_classes)  # KeyError: 'permitNumberLink' before
    # one link, named after the class it links to (the value property of the id column stays the target's own)
    assert [m["property"] for m in made] == [link, link]
    assert not any(p.endswith("Link") for p in idx.properties)
    assert idx.properties[link].kind == "object" and idx.properties[link].range == target
    assert idx.properties[link].inverse_of == ""  # two references share it: two inverses, neither its inverse
    inverses = {m["inverse"] for m in made}
    assert len(inverses) == 2 and inverses <= set(idx.properties)
    # every linked cell's coverage entry names the link as it is now, in both referring tables
    linked = [e for e in cov.entries if e["path"].endswith(f"['{column}']") and classes[e["file"]] != target]
    assert len(linked) == 6 and {e["property"] for e in linked} == {link}
    assert all(e["object"] in idx.individuals for e in linked)
    facts = [f for _, f in idx.iter_facts() if f.property == link]
    assert len(facts) == 6 and all(f.object in idx.individuals for f in facts)
    assert idx.dangling() == []


def test_a_rename_or_merge_reaches_every_tracked_record() -> None:
    idx = EntitiesIndex()
    idx.add_class("Kiln")
    idx.add_class("Oven")
    idx.add_property("firedIn", "object", domain=["Kiln"], range="Kiln")
    idx.add_property("fires", "object", domain=["Kiln"], range="Kiln")
    idx.add_property("maxTempC", "datatype", domain=["Kiln"], range="xsd:integer")
    idx.add_property("topTempC", "datatype", domain=["Oven"], range="xsd:integer")
    idx.properties["firedIn"].inverse_of = "fires"
    idx.add_individual("K1", ["Kiln"])
    idx.add_individual("O1", ["Oven"])
    idx.add_fact("K1", Fact("fires", object="K1"))
    idx.add_fact("O1", Fact("topTempC", literal="900"))
    entries = [{"property": "fires", "individual": "K1"}, {"property": "topTempC", "class": "Oven"}]
    links = [{"property": "firedIn", "inverse": "fires"}]
    idx.track(entries, "property", "individual", "class")
    idx.track(lambda: iter(links), "property", "inverse")  # a function giving the records is read at each rename
    idx.rename("fires", "heats")
    assert entries[0]["property"] == "heats" and links[0]["inverse"] == "heats"
    assert idx.properties["firedIn"].inverse_of == "heats" and idx.current("fires") == "heats"
    idx.merge_property("topTempC", "maxTempC")
    idx.merge_class("Oven", "Kiln")
    assert entries[1] == {"property": "maxTempC", "class": "Kiln"}
    assert idx.current("topTempC") == "maxTempC" and idx.current("maxTempC") == "maxTempC"
    idx.merge_property("heats", "firedIn")  # a link merged into its own inverse: no property is its own inverse
    assert links[0] == {"property": "firedIn", "inverse": "firedIn"} and idx.properties["firedIn"].inverse_of == ""
    assert idx.dangling() == []
