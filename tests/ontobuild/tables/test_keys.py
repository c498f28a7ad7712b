"""Tables that refer to each other: CSV/TSV/JSON Lines inputs, candidate keys, candidate references, link
tables, the links made once a reference is confirmed, and records that never merge. Two domains: a small
library (members, books, loans) and a fleet (depots, trucks, trips)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ontocore.errors import InputError
from ontobuild.ontology.index import EntitiesIndex
from ontobuild.inputs.readers import load_inputs
from ontobuild.tables.references.proposing import apply_references, candidate_keys, find_references, ordered_for_mapping
from ontobuild.tables.mapping import Coverage, Decision, apply_mapping, find_records, group_shapes

LIBRARY = {
    "members.csv": "member_id,name,joined\n1,Ada Byron,2019\n2,Alan Grey,2020\n3,Ada Byron,2021\n",
    "books.tsv": "book_id\ttitle\tpages\n10\tDune\t412\n11\tEmma\t320\n12\tUlysses\t730\n",
    "loans.jsonl": '{"member_id": 1, "book_id": 10}\n{"member_id": 2, "book_id": 12}\n{"member_id": 1, "book_id": 11}\n',
}
FLEET = {
    "depots.json": json.dumps([{"depot_code": "N", "city": "Northport"}, {"depot_code": "S", "city": "Southam"}]),
    "trucks.csv": "id;plate;depot_code;payload\n1;AB-1;N;18\n2;CD-2;S;12\n3;EF-3;N;12\n",
    "trips.csv": "trip_id,truck_id,km\n100,1,340\n101,3,120\n102,1,80\n",
}


def dataset(tmp_path: Path, files: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).write_text(text, "utf-8")
    inputs = load_inputs([tmp_path / n for n in files])
    return [s for f, d in inputs.json_docs for s in group_shapes(find_records(f, d))]


def refs(plan) -> set[tuple[str, str, str, str]]:
    return {(r.source.file, r.column, r.target.file, r.key) for r in plan.references}


def test_tables_are_read_with_their_dialect(tmp_path: Path) -> None:
    shapes = {s.file: s for s in dataset(tmp_path, {**LIBRARY, **FLEET})}
    assert shapes["trucks.csv"].records[0].fields == {"id": "1", "plate": "AB-1", "depot_code": "N", "payload": "18"}
    assert shapes["books.tsv"].records[2].fields["title"] == "Ulysses"
    assert shapes["loans.jsonl"].records[1].fields == {"member_id": 2, "book_id": 12}
    assert shapes["trucks.csv"].plans["payload"].type == "integer"


@pytest.mark.parametrize("name,text,message", [
    ("a.csv", "x,y\n1,2,3\n", "row 2 has 3 cells"),
    ("c.csv", "x,y\n", "no data rows"),
    ("d.jsonl", '{"a": 1}\n[1, 2]\n', "line 2 is not a JSON object"),
    ("e.jsonl", '{"a": 1}\n{"a": \n', "line 2 is not valid JSON"),
    ("f.jsonl", '{"a": 1, "a": 2}\n', "appears twice"),
])
def test_broken_tables_are_refused(tmp_path: Path, name: str, text: str, message: str) -> None:
    (tmp_path / name).write_text(text, "utf-8")
    with pytest.raises(InputError, match=message):
        load_inputs([tmp_path / name])


def test_candidate_keys(tmp_path: Path) -> None:
    shapes = {s.file: s for s in dataset(tmp_path, {**LIBRARY, **FLEET})}
    assert candidate_keys(shapes["members.csv"])[0] == "member_id"  # name repeats: not a key
    assert "name" not in candidate_keys(shapes["members.csv"])
    assert candidate_keys(shapes["depots.json"])[0] == "depot_code"
    assert candidate_keys(shapes["trips.csv"])[0] == "trip_id"


@pytest.mark.parametrize("files,expected", [
    (LIBRARY, {("loans.jsonl", "member_id", "members.csv", "member_id"),
               ("loans.jsonl", "book_id", "books.tsv", "book_id")}),
    (FLEET, {("trucks.csv", "depot_code", "depots.json", "depot_code"), ("trips.csv", "truck_id", "trucks.csv", "id")}),
])
def test_references_are_found_by_values(tmp_path: Path, files: dict[str, str], expected: set) -> None:
    plan = find_references(dataset(tmp_path, files))
    assert refs(plan) == expected  # ids numbered 1..n in several tables are not taken for each other


def test_link_tables_and_mapping_order(tmp_path: Path) -> None:
    shapes = dataset(tmp_path, LIBRARY)
    plan = find_references(shapes)
    loans = next(s for s in shapes if s.file == "loans.jsonl")
    assert plan.is_link_table(loans)
    assert ordered_for_mapping(shapes, plan)[-1] is loans


def _map(idx: EntitiesIndex, shapes, plan, classes: dict[str, str], cov: Coverage) -> dict[int, str]:
    for shape in ordered_for_mapping(shapes, plan):
        decision = Decision(record_class=classes[shape.file], id_key=(plan.keys[id(shape)] or [""])[0])
        apply_mapping(idx, shape, decision, cov)
    return {id(s): s.record_class for s in shapes}


def test_confirmed_references_become_links(tmp_path: Path) -> None:
    shapes = dataset(tmp_path, FLEET)
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    classes = _map(idx, shapes, plan, {"depots.json": "Depot", "trucks.csv": "Truck", "trips.csv": "Trip"}, cov)
    for ref in plan.references:
        ref.confirmed = ref.column == "depot_code"  # the model rejects the other one
        ref.property, ref.inverse = "basedAt", "hosts"
    made = apply_references(idx, plan, cov, classes)
    assert made == [{"reference": "trucks.csv 'depot_code' -> depots.json 'depot_code'", "property": "basedAt",
                     "inverse": "hosts", "linked": 3, "unmatched": 0}]
    truck = idx.individuals["Truck1"]
    depot = next(f.object for f in truck.facts if f.property == "basedAt")
    assert any(f.literal == "Northport" for f in idx.individuals[depot].facts)
    assert sorted(f.object for f in idx.individuals[depot].facts if f.property == "hosts") == ["Truck1", "Truck3"]
    # the linked id is the link, not also a value of the truck; the depot keeps it as its own key value
    assert not any(f.literal == "N" for f in truck.facts)
    assert any(f.property == "depotCode" and f.literal == "N" for f in idx.individuals[depot].facts)
    assert idx.properties["depotCode"].domain == ["Depot"]
    assert cov.totals()["skipped"] == 0
    entry = next(e for e in cov.entries if e["file"] == "trucks.csv" and e["path"] == "$[0]['depot_code']")
    assert (entry["status"], entry["property"], entry["object"]) == ("covered", "basedAt", depot)
    # the link and its inverse state the same pairs: declared so in the OWL
    from rdflib import Namespace
    from rdflib.namespace import OWL

    from ontobuild.ontology.owl import to_graph

    assert idx.properties["basedAt"].inverse_of == "hosts"
    ns = Namespace(idx.base_iri)
    assert (ns.basedAt, OWL.inverseOf, ns.hosts) in to_graph(idx)


def test_link_table_pairs_become_direct_links(tmp_path: Path) -> None:
    shapes = dataset(tmp_path, LIBRARY)
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    classes = _map(idx, shapes, plan, {"members.csv": "Member", "books.tsv": "Book", "loans.jsonl": "Loan"}, cov)
    for ref in plan.references:
        ref.confirmed, ref.property = True, "of" + ref.target.record_class
    made = apply_references(idx, plan, cov, classes)
    assert made[-1] == {"link_table": "loans.jsonl", "property": "loans", "pairs": 3}
    ada = next(n for n, i in idx.individuals.items() if {"Ada Byron", "2019"} <= {f.literal for f in i.facts})
    titles = [next(g.literal for g in idx.individuals[f.object].facts if g.property == "title")
              for f in idx.individuals[ada].facts if f.property == "loans"]
    assert sorted(titles) == ["Dune", "Emma"]


def test_records_never_merge(tmp_path: Path) -> None:
    """Two members share a name, and two tables' rows would get the same fallback names: all stay apart."""
    shapes = dataset(tmp_path, {**LIBRARY, **FLEET})
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    names = {"members.csv": "Member", "books.tsv": "Book", "loans.jsonl": "Member", "depots.json": "Depot",
             "trucks.csv": "Truck", "trips.csv": "Truck"}
    _map(idx, shapes, plan, names, cov)
    n_records = sum(len(s.records) for s in shapes)
    assert len(cov.records) == n_records == len({n for n in cov.records})
    members = [i for i in idx.individuals.values() if any(f.literal == "Ada Byron" for f in i.facts)]
    assert len(members) == 2  # same name, two people
    by_name = Decision(record_class="Member", name_key="name")  # named by a column whose values repeat
    idx2, cov2 = EntitiesIndex(), Coverage()
    apply_mapping(idx2, next(s for s in shapes if s.file == "members.csv"), by_name, cov2)
    assert sorted(idx2.individuals) == ["AdaByron", "AdaByron_2", "AlanGrey"]
    with_key = Decision(record_class="Member", name_key="name", id_key="member_id")  # the key tells them apart
    idx3 = EntitiesIndex()
    apply_mapping(idx3, next(s for s in shapes if s.file == "members.csv"), with_key, Coverage())
    assert sorted(idx3.individuals) == ["AdaByron1", "AdaByron3", "AlanGrey"]
    assert idx3.individuals["AdaByron3"].label == "Ada Byron"


def test_a_name_column_whose_values_repeat_names_records_when_the_table_has_a_key(tmp_path: Path) -> None:
    """People may share a name: with a key column the name column still names the records (and is proposed);
    without one it is refused. The name column is never also turned into individuals of another class."""
    from ontobuild.tables.decisions import check_decision, proposed_name_key, repair_decision

    members = next(s for s in dataset(tmp_path, LIBRARY) if s.file == "members.csv")
    args = {"record_class": "Member", "name_key": "name", "changes": []}
    assert check_decision(members, args, id_key="member_id") == []
    assert proposed_name_key(members, "member_id") == "name"
    assert any("repeats" in p for p in check_decision(members, args))
    assert proposed_name_key(members) == "@key"
    as_things = {**args, "changes": [{"key": "name", "type": "individual"}]}
    assert any("cannot also be individuals" in p for p in check_decision(members, as_things, id_key="member_id"))
    repaired = repair_decision(members, as_things, id_key="member_id")
    assert repaired["name_key"] == "name" and repaired["changes"] == []


APIARY = {
    "yards.csv": "yard_id,name,keepers\n1,North,12\n2,East,9\n3,West,7\n",
    "hives.csv": "hive_id,queen,nearest_yard_miles,yard_id,start_date\n1,Ana,2,1,2021-03-01\n"
                 "2,Bo,3,2,2021-04-01\n3,Cy,1,3,2021-05-01\n",
}


def test_a_measurement_is_never_a_link_and_a_named_id_needs_no_model(tmp_path: Path) -> None:
    """Evidence code weighs: "nearest_yard_miles" shares values with yard ids but is a distance; a column
    named after the target, into its own key, is a reference without asking the model."""
    from ontobuild.tables.references.proposing import measurement, weigh

    plan = find_references(dataset(tmp_path, APIARY))
    verdicts = {r.column: weigh(r, plan) for r in plan.references}
    assert verdicts["nearest_yard_miles"][0] == "no" and "measurement" in verdicts["nearest_yard_miles"][1]
    assert verdicts["yard_id"][0] == "yes"
    assert measurement("number of beekeepers", ["3", "4"]) and measurement("Payload (kg)", ["1"])
    assert "date" in measurement("start_date", ["2021-03-01", "2021-04-01"])
    assert measurement("begin", ["2021-03-01"]) and not measurement("depot_code", ["N", "S"])
    assert measurement("weeks", ["4", "2"]) and measurement("lease months", ["12"])  # durations, never ids
    assert not measurement("member_no", ["1", "2"])


def test_dirty_headers_keep_every_column_and_rfc4180_quotes_are_read(tmp_path: Path) -> None:
    """A repeated or empty header name keeps both columns under distinct names; a quoted cell with an escaped
    quote and a comma is one cell."""
    from ontobuild.inputs.tabular import read_table

    path = tmp_path / "parts.csv"
    path.write_text('name,name,,note\nbolt,M8,7,"1"" pipe, steel"\nnut,M6,9,plain\n', "utf-8")
    rows = read_table(path)
    assert rows[0] == {"name": "bolt", "name_2": "M8", "column_3": "7", "note": '1" pipe, steel'}


def test_a_link_takes_the_name_its_id_column_had_and_link_tables_get_no_inverse(tmp_path: Path) -> None:
    shapes = dataset(tmp_path, FLEET)
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    classes = _map(idx, shapes, plan, {"depots.json": "Depot", "trucks.csv": "Truck", "trips.csv": "Trip"}, cov)
    assert "truckId" in idx.properties and idx.properties["truckId"].kind == "datatype"
    for ref in plan.references:
        ref.confirmed = ref.column == "truck_id"
        ref.property, ref.inverse = "truckId", "hasTrip"
    made = apply_references(idx, plan, cov, classes)
    assert made[0]["property"] == "truckId" and idx.properties["truckId"].kind == "object"
    assert "truckIdLink" not in idx.properties
    trip = next(i for i in idx.individuals.values() if "Trip" in i.classes and any(f.literal == "340" for f in i.facts))
    assert [f.object for f in trip.facts if f.property == "truckId"] == ["Truck1"]

    shapes = dataset(tmp_path, LIBRARY)
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    classes = _map(idx, shapes, plan, {"members.csv": "Member", "books.tsv": "Book", "loans.jsonl": "Loan"}, cov)
    for ref in plan.references:
        ref.confirmed, ref.property, ref.inverse = True, "of" + ref.target.record_class, "hasLoan"
    made = apply_references(idx, plan, cov, classes)
    assert all(m.get("inverse", "") == "" for m in made) and "hasLoan" not in idx.properties


def test_a_link_decided_by_code_is_named_after_its_target_when_the_column_abbreviates_it(tmp_path: Path) -> None:
    from ontobuild.tables.references.confirming import confirm_all
    from ontocore.trace import Trace

    shapes = dataset(tmp_path, {"members.csv": "mem_id,name\n1,Ana\n2,Bo\n3,Cy\n",
                                "bookings.csv": "bkg_no,mem_id,court\n10,1,A\n11,3,B\n12,3,A\n"})
    plan = find_references(shapes)
    classes = {id(s): ("Member" if s.file == "members.csv" else "Booking") for s in shapes}
    decided = confirm_all(None, plan, classes, Trace(None))  # type: ignore[arg-type] - code decides, no model
    assert [(d["confirmed"], d["decided_by"], d["property"]) for d in decided] == [(True, "code", "member")]


# a plant nursery: tables numbered 1..n, a count column of small numbers, a one-to-one pair of tables that share
# ids, and a column named by the head word of the target's name
NURSERY = {
    "greenhouses.csv": "gh_id,title\n1,East\n2,West\n3,North\n4,South\n5,Annex\n6,Roof\n7,Cellar\n",
    "plant_kinds.csv": "kind_id,kind\n1,fern\n2,palm\n3,cactus\n",
    "seedlings.csv": "id,label,benches\n1,S-1,2\n2,S-2,3\n3,S-3,2\n4,S-4,1\n",
    "seedling_care.csv": "care_id,water_ml\n1,40\n2,55\n3,30\n4,25\n",
    "trays.csv": "tray_no,kind\n1,2\n2,3\n3,3\n4,1\n",
}


def test_ids_of_tables_numbered_alike_and_small_counts_are_not_links(tmp_path: Path) -> None:
    """A table's own numbering is not a reference to another table numbered 1..n, unless both hold the same
    ids (a one-to-one pair, kept in one direction only); a column of a few small numbers that neither names the
    target nor says it is an identifier ("benches") is not a link; "kind" names plant_kinds by its head word."""
    from ontobuild.tables.references.proposing import weigh

    plan = find_references(dataset(tmp_path, NURSERY))
    verdicts = {(r.source.file, r.column, r.target.file): weigh(r, plan)[0] for r in plan.references}
    assert verdicts.get(("seedlings.csv", "benches", "greenhouses.csv"), "no") == "no"
    assert all(v == "no" for (src, col, _), v in verdicts.items() if src == "greenhouses.csv")
    assert verdicts[("trays.csv", "kind", "plant_kinds.csv")] == "yes"
    shared = [k for k in verdicts if {k[0], k[2]} == {"seedlings.csv", "seedling_care.csv"}]
    assert len(shared) == 1 and verdicts[shared[0]] == "ask"  # the model decides the pair, once
    assert shared[0][0] == "seedling_care.csv"  # into the bare 'id' that numbers seedlings' own records


def test_code_proposes_the_column_that_names_a_tables_records(tmp_path: Path) -> None:
    """name/title first; then a name called after the table's own word or 'full'; then a text column called as
    the table's thing itself; never the key column, a number or a column whose values repeat too often."""
    from ontobuild.tables.decisions import proposed_name_key

    shapes = {s.file: s for s in dataset(tmp_path, {
        "harbours.csv": "harbour_id,harbour_name,depth_m\n1,Kellby,12\n2,Ostmoor,9\n3,Riva,7\n",
        "ferries.csv": "ferry_no,FullName,built\n7,Morning Star,1999\n8,Grey Gull,2004\n9,Tern,2011\n",
        "tides.csv": "tide_id,tide,height\n1,spring,4\n2,neap,2\n3,king,5\n",
        "crews.csv": "crew,crew_name\nC1,1\nC2,2\nC3,3\n",
        "docks.csv": "dock_id,label,area\n1,North,10\n2,North,12\n3,North,9\n",
    })}
    assert proposed_name_key(shapes["harbours.csv"], "harbour_id") == "harbour_name"
    assert proposed_name_key(shapes["ferries.csv"], "ferry_no") == "FullName"
    assert proposed_name_key(shapes["tides.csv"], "tide_id") == "tide"
    assert proposed_name_key(shapes["crews.csv"], "crew") == "@key"  # the key identifies; numbers name nothing
    assert proposed_name_key(shapes["docks.csv"], "dock_id") == "@key"  # one value for every record


def test_a_link_whose_name_a_kept_value_column_holds_is_named_after_the_class_it_links_to(tmp_path: Path) -> None:
    shapes = dataset(tmp_path, {"labels.csv": "label_no,title\n1,Oak Press\n2,Fern Sound\n",
                                "records.csv": "rec_no,label,label_no\n10,Oak Press Vinyl,1\n11,Fern Tapes,2\n"
                                               "12,Fern Live,2\n"})
    plan = find_references(shapes)
    idx, cov = EntitiesIndex(), Coverage()
    classes = _map(idx, shapes, plan, {"labels.csv": "RecordLabel", "records.csv": "Album"}, cov)
    for ref in plan.references:
        ref.confirmed, ref.property, ref.inverse = True, "label", "hasAlbum"
    made = apply_references(idx, plan, cov, classes)
    assert [m["property"] for m in made] == ["recordLabel"]  # not `labelLink` beside the text `label`
    assert idx.properties["recordLabel"].range == "RecordLabel" and idx.properties["label"].kind == "datatype"


def test_individuals_keyed_by_a_number_are_named_after_their_class(tmp_path: Path) -> None:
    """A name taken from a number (a numeric name column, a value that becomes an individual) is Class_N, never a
    bare `_1`; a person and a visit both numbered 1 are Guest_1 and Visit_1, not `_1` and `_1_2`."""
    shapes = {s.file: s for s in dataset(tmp_path, {
        "guests.csv": "guest_no,name\n1,Ada\n2,Bo\n",
        "visits.csv": "visit_no,room,guest\n1,12,Ada\n2,14,Bo\n"})}
    idx, cov = EntitiesIndex(), Coverage()
    apply_mapping(idx, shapes["guests.csv"], Decision(record_class="Guest", name_key="guest_no"), cov)
    visits = shapes["visits.csv"]
    visits.plans["room"].type, visits.plans["room"].range_class = "individual", "Room"
    apply_mapping(idx, visits, Decision(record_class="Visit", name_key="visit_no"), cov)
    assert {"Guest_1", "Guest_2", "Visit_1", "Visit_2", "Room_12", "Room_14"} <= set(idx.individuals)
    assert not any(n.startswith("_") for n in idx.individuals)
    assert idx.individuals["Guest_1"].label == "1" and "Room" in idx.individuals["Room_12"].classes
    plaza = EntitiesIndex()
    apply_mapping(plaza, shapes["guests.csv"], Decision(record_class="Guest", name_key="name"), Coverage())
    assert sorted(plaza.individuals) == ["Ada", "Bo"]  # a name with letters stays the name
