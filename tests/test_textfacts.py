"""Numbers, units and mentions found by code in free text, and facts applied from a model's answer."""

from __future__ import annotations

import re

from ontobuild.index import EntitiesIndex
from ontobuild.ingest import split_text
from ontobuild.textfacts import apply_facts, apply_links
from ontobuild.textmentions import find_mentions, mention_spans
from ontobuild.textnumbers import find_numbers, outside_names

TEXT = ("The EcoRing product, with a unit weight of 58 kg per block, is stored on pallets of 20 pieces. "
        "It covers approximately 2,500 m², average storage time is 20-25 days, at €0.80 per day per pallet.")


def test_find_numbers_with_units() -> None:
    nums = [(n.value, n.unit) for n in find_numbers(TEXT)]
    assert nums == [("58", "kg per block"), ("20", "pieces per pallet"), ("2500", "m²"), ("20", "days"), ("25", "days"),
                    ("0.80", "EUR per day per pallet")]
    assert find_numbers(TEXT)[-1].suggestion() == "costEurPerDayPerPallet"
    assert find_numbers("GrecCurb100 and SP8 have no numbers") == []


def test_apply_facts_attaches_to_existing_individuals() -> None:
    idx = EntitiesIndex()
    idx.add_class("Product")
    idx.add_individual("EcoRing", ["Product"])
    mentions = find_mentions(idx, TEXT)
    assert mentions == ["EcoRing"]
    nums = find_numbers(TEXT)
    used, problems = apply_facts(idx, "t#1", nums, mentions, [
        {"value": "58", "subject": "EcoRing product", "property": "weightKg"},
        {"value": "2500", "subject": "Main Warehouse", "property": "areaM2"},  # new: class from its head noun
        {"value": "20", "subject": "EcoRing", "property": "storageDays"},
        {"value": "7", "subject": "EcoRing", "property": "x"}])
    assert problems == ["no unused number '7' in the chunk"]
    assert [(u["individual"], u["property"], u["value"], u["number"]) for u in used] == [
        ("EcoRing", "weightKg", "58", "n1"), ("MainWarehouse", "areaM2", "2500", "n3"),
        ("EcoRing", "storageDays", "20", "n4")]  # of the two 20s, the one in days
    assert idx.individuals["MainWarehouse"].classes == ["Warehouse"]
    assert idx.properties["weightKg"].range == "xsd:integer"
    text = TEXT + " EcoRing is kept in the Main Warehouse."
    links, problems = apply_links(idx, "t#1", mentions, [
        {"subject": "EcoRing", "property": "storedIn", "object": "Main Warehouse"},
        {"subject": "EcoRing", "property": "storedIn", "object": "Harbor Depot"}], text)
    assert [lk["object"] for lk in links] == ["MainWarehouse"] and idx.properties["storedIn"].kind == "object"
    assert problems == ["link EcoRing storedIn Harbor Depot dropped: Harbor Depot is not in the text"]
    assert idx.dangling() == []


def test_split_text_paragraphs_and_long_ones() -> None:
    assert split_text("a b\nc\n\nd") == ["a b c", "d"]
    long = "Sentence one is here. " * 100
    parts = split_text(long, max_chars=200)
    assert all(len(p) <= 200 for p in parts) and " ".join(parts).split() == long.split()


def _shop() -> EntitiesIndex:
    idx = EntitiesIndex()
    for cls, sup in (("Product", []), ("Frame", ["Product"]), ("Helmet", ["Product"]), ("Warehouse", [])):
        idx.add_class(cls, superclasses=sup)
    for name, label, kind in (("TrailBlazer29", "TrailBlazer 29", "Frame"), ("CityGlide", "CityGlide", "Frame"),
                              ("SkyShell", "SkyShell", "Helmet"), ("UrbanDome", "UrbanDome", "Helmet"),
                              ("KidRider", "KidRider Mini", "Helmet")):
        idx.add_individual(name, ["Product", kind], label=label)
    idx.add_individual("RidgeHall", ["Warehouse"], label="RidgeHall")  # named by the model, CamelCase
    idx.add_individual("HarborDepot", ["Warehouse"], label="Harbor Depot")
    return idx


def _links(idx: EntitiesIndex, text: str, links: list[dict]) -> tuple[set, list[str]]:
    made, problems = apply_links(idx, "t#1", find_mentions(idx, text), links, text)
    return {(m["subject"], m["property"], m["object"]) for m in made}, problems


def test_a_link_is_kept_only_as_one_sentence_states_it() -> None:
    text = ("Helmets (SkyShell, UrbanDome and KidRider Mini) are stored at Ridge Hall in cartons of 10. "
            "All frames are stored at Harbor Depot. The TrailBlazer 29 frame ships in boxes of 4.")
    made, problems = _links(_shop(), text, [
        {"subject": "RidgeHall", "property": "storedIn", "object": "SkyShell"},  # backwards: the text says who
        {"subject": "TrailBlazer 29", "property": "storedIn", "object": "Harbor Depot"},  # "All frames ..."
        {"subject": "SkyShell", "property": "storedIn", "object": "UrbanDome"},  # only listed together
        {"subject": "Harbor Depot", "property": "storedIn", "object": "Ridge Hall"}])  # two sentences apart
    assert made == {("SkyShell", "storedIn", "RidgeHall"), ("UrbanDome", "storedIn", "RidgeHall"),
                    ("KidRider", "storedIn", "RidgeHall"), ("TrailBlazer29", "storedIn", "HarborDepot"),
                    ("CityGlide", "storedIn", "HarborDepot")}
    assert problems == ["link SkyShell storedIn UrbanDome dropped: no sentence of the text states it",
                        "link Harbor Depot storedIn Ridge Hall dropped: no sentence of the text states it"]


def test_a_dropped_link_leaves_no_new_individual() -> None:
    idx = _shop()
    made, problems = _links(idx, "Northwind Cycles operates three warehouses. Harbor Depot covers 1,800 m².",
                            [{"subject": "Harbor Depot", "property": "storedIn", "object": "Northwind Cycles"}])
    assert not made and len(problems) == 1 and "NorthwindCycles" not in idx.individuals


def test_packaging_counts_are_measurements() -> None:
    nums = find_numbers("The TrailBlazer 29 frame ships in boxes of 4, each box weighing about 11 kg; "
                        "helmets come in cartons of 10 and cost €0.35 per carton per day.")
    assert [n.suggestion() for n in nums if n.value in ("4", "10", "0.35")] == [
        "unitsPerBox", "unitsPerCarton", "costEurPerCartonPerDay"]


def test_a_number_goes_to_the_fact_that_fits_it_and_may_serve_two_subjects() -> None:
    idx = _shop()
    text = ("The CityGlide ships in boxes of 3 and is stored 16 days on average. SkyShell and UrbanDome both stay "
            "25 days. A carton of SkyShell weighs 4.1 kg.")
    mentions = find_mentions(idx, text)
    nums = outside_names(find_numbers(text), mention_spans(idx, text, mentions))
    used, problems = apply_facts(idx, "t#1", nums, mentions, [
        {"value": "16", "subject": "CityGlide", "property": "weightKg"},  # the model's slip: 16 is in days
        {"value": "16", "subject": "CityGlide", "property": "storageDays"},
        {"value": "25", "subject": "SkyShell", "property": "storageDays"},
        {"value": "25", "subject": "UrbanDome", "property": "storageDays"},
        {"value": "4.1", "subject": "SkyShell", "property": "cartonWeightKg"},
        {"value": "4.1", "subject": "KidRider Mini", "property": "cartonWeightKg"}], text)  # not said of it
    assert sorted(problems) == ["n4 (4.1) is about SkyShell; its sentence does not speak of KidRider Mini",
                                "no unused number '16' in the chunk"]
    assert [(u["individual"], u["property"], u["value"], u.get("also")) for u in used] == [
        ("CityGlide", "storageDays", "16", None), ("SkyShell", "storageDays", "25", ["UrbanDome"]),
        ("SkyShell", "cartonWeightKg", "4.1", None)]
    assert {f.literal for f in idx.individuals["UrbanDome"].facts} == {"25"}


def test_a_property_in_another_unit_is_not_merged() -> None:
    from ontobuild.textfacts import resolve_property

    idx = _shop()
    idx.add_property("weightG", "datatype", range="xsd:integer", unit="g")
    assert resolve_property(idx, "weightKg") == "weightKg" and resolve_property(idx, "weight_g") == "weightG"


def test_text_facts_keep_their_sentence() -> None:
    """The source of a fact read from text names the chunk and the sentence it came from (two domains)."""
    cases = [("Library", "Dune", "Dune is a long novel. Dune runs to 412 pages. It sold well.", "412", "pages",
              "Dune runs to 412 pages."),
             ("Fleet", "Truck7", "Our depots are busy. Truck7 carries 18 t at most; it is new.", "18", "payloadT",
              "Truck7 carries 18 t at most;")]
    for cls, name, text, value, prop, sentence in cases:
        idx = EntitiesIndex()
        idx.add_class(cls)
        idx.add_individual(name, [cls])
        used, problems = apply_facts(idx, "doc.txt#1", find_numbers(text), find_mentions(idx, text),
                                     [{"value": value, "subject": name, "property": prop}], text)
        assert not problems and used
        fact = idx.individuals[name].facts[0]
        assert fact.source == {"chunk": "doc.txt#1", "sentence": sentence}


def test_a_rate_keeps_its_base_as_a_fact_of_the_same_subject() -> None:
    """'A per N unit': the first number's unit names the base, and when the model takes only the rate, code
    keeps the base too, on the same subject (two domains: food labels, vehicle fleets)."""
    from ontobuild.textfacts import apply_facts

    cases = [("Snack", "OatBar", "The OatBar gives 450 kcal per 100 g and costs $2.", "450", "energyKcal",
              "kcal per 100 g", "weightGForEnergyKcal"),
             ("Van", "Vantage", "Our Vantage uses 9.5 L / 100 km on average.", "9.5", "fuelL", "L per 100 km",
              "lengthKmForFuelL")]
    for cls, name, text, value, prop, unit, base_prop in cases:
        idx = EntitiesIndex()
        idx.add_class(cls)
        idx.add_individual(name, [cls])
        nums = find_numbers(text)
        assert (nums[0].unit, nums[1].base_of) == (unit, nums[0])
        used, problems = apply_facts(idx, "t#1", nums, [name], [{"value": value, "subject": name, "property": prop}],
                                     text)
        assert problems == []
        assert [(u["property"], u["value"], u["individual"]) for u in used] == [
            (prop, value, name), (base_prop, "100", name)]
        assert used[1]["subject_by"] == "code: the base of the rate n1"
        assert {f.property: f.literal for f in idx.individuals[name].facts} == {prop: value, base_prop: "100"}


def test_a_joined_measure_is_about_the_noun_phrase_after_it() -> None:
    """'two 10-ton cranes', 'a 28-cm pan': the number measures what follows it, not the paragraph's subject;
    a known individual there is taken as it is (two domains: a kitchen shop, a computer lab)."""
    from ontobuild.textfacts import class_of_new, subject_hint

    idx = EntitiesIndex()
    idx.add_class("Plan")
    idx.add_individual("GoldPlan", ["Plan"], label="Gold plan")
    cases = [("The Riverside shop is large. It sells a 28-cm frying pan, made of steel.", "FryingPan (new)"),
             ("The east lab is busy: it holds three 2-TB disks.", "Disks (new)"),
             ("The Acme desk sells the 5-year Gold plan to schools.", "GoldPlan")]
    for text, want in cases:
        mentions = find_mentions(idx, text)
        nums = find_numbers(text)
        assert nums[0].joined
        assert subject_hint(text, nums[0], mention_spans(idx, text, mentions)) == want
    assert [class_of_new(m) for m in ("Disks", "Spare Batteries", "Cardboard Boxes", "Glass", "TV Series")] == [
        "Disk", "Battery", "Box", "Glass", "Series"]


def test_what_is_not_a_subject_holds_in_any_domain() -> None:
    """A unit, a quantity word or what the chunk's numbers count is not the thing measured; the opening noun
    phrase of a sentence is, even when a word of it ends in -ing (a car park, a wine cellar)."""
    from ontobuild.textfacts import is_unit_word, sentence_subject

    assert [is_unit_word(w, {"bottles"}) for w in ("Bottles", "bottle", "kg", "Costs", "price", "Pinot Noir")] == [
        True, True, True, True, True, False]
    assert [is_unit_word(w, {"spaces"}) for w in ("Spaces", "Parking garage")] == [True, False]
    cases = [("The parking garage has 300 spaces.", "ParkingGarage (new)"),
             ("The old cellar, built in 1890, holds 4,000 bottles.", "OldCellar (new)"),
             ("Parking fees are low, around $2 per hour.", ""),
             ("The east wing dedicated to prints covers 800 m².", "EastWing (new)")]
    for text, want in cases:
        assert sentence_subject(text, re.search(r"\d", text).start(), []) == want


def test_a_known_thing_is_a_subject_even_when_a_number_counts_it() -> None:
    """'cartons of 10 novels' counts novels, but when Novels is a known individual (a category of the data), the
    model may still name it as the subject; counted words that name nothing known stay unit words (two
    domains: a bookshop, a wine shop)."""
    from ontobuild.build import _counted_words

    for cls, name, text, want in (("Category", "Novels", "Novels ship in cartons of 10 novels and 12 bottles.",
                                   {"carton", "bottles"}),
                                  ("Category", "Red wines", "Red wines come in cases of 6 wines; 40 crates wait.",
                                   {"case", "wines", "crates"})):
        idx = EntitiesIndex()
        idx.add_class(cls)
        idx.add_individual(safe := name.replace(" ", ""), [cls], label=name)
        mentions = find_mentions(idx, text)
        assert mentions == [safe]
        counted = _counted_words(idx, find_numbers(text), mentions)
        assert counted == want, counted


def test_a_relation_is_named_as_its_sentence_states_it() -> None:
    """The model's 'stores' for 'are stored at' reads backwards: the relation takes the sentence's own words
    (storedAt); a name the sentence does not use gives way too; a verb the sentence uses stays (two domains:
    a library, a winery)."""
    from ontobuild.textfacts import stated_name

    assert stated_name(" are shelved in ", "Dune and Emma are shelved in the East Wing.", "shelves") == "shelvedIn"
    assert stated_name(" is shelved in ", "Dune is shelved in the East Wing.", "locatedIn") == "shelvedIn"
    assert stated_name(" was bottled by ", "The 2019 Merlot was bottled by Vinalta.", "producedBy") == "bottledBy"
    assert stated_name(" bottles ", "Vinalta bottles the Merlot.", "bottles") == "bottles"
    assert stated_name(" and ", "Dune and Emma are novels.", "relatedTo") == "relatedTo"
    assert stated_name(" are shelved on ", "Dune and Emma are shelved on floor two.", "shelvedIn") == "shelvedIn"
