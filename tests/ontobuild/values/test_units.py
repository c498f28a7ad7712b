"""One units table for the builder: currencies by symbol and ISO code, units of several dimensions, in text
and in keys; names that differ by a letter stay apart. (Cases from two domains: a shop and a workshop.)"""

from __future__ import annotations

import pytest

from ontobuild.tables.mapping import split_key
from ontobuild.ontology.names import normalize
from ontobuild.text.concepts import propose
from ontobuild.text.quantities import find_quantities, unit_text
from ontobuild.values.units import canonical, currency, property_suffix


@pytest.mark.parametrize("text,expected", [
    ("The lamp costs $120 in the web shop.", [("120", "USD", "costUsd")]),
    ("Shipping is £15.50 per order.", [("15.50", "GBP per order", "priceGbpPerOrder")]),
    ("Now €99, or 89 EUR in stores.", [("99", "EUR", "priceEur"), ("89", "EUR", "priceEur")]),
    ("Fee CHF 9.90, or US$ 7.", [("9.90", "CHF", "priceChf"), ("7", "USD", "priceUsd")]),
    ("The drill weighs 230 g.", [("230", "g", "weightG")]),
    ("A 3,000 mAh pack drives a 250 W motor at 40% load.", [("3000", "mAh", "capacityMah"), ("250", "W", "powerW"),
                                                            ("40", "%", "loadPct")]),
    ("A 12 m² room with a 27 in. screen.", [("12", "m²", "areaM2"), ("27", "in", "lengthIn")]),
    ("At 0,80 EUR per day.", [("0.80", "EUR per day", "priceEurPerDay")]),  # a decimal comma
    # the words that name a quantity, what a package holds, what is counted per what
    ("The charging time is 3 hours.", [("3", "h", "chargingTimeHours")]),
    ("A ticket has a price of $12 per person.", [("12", "USD per person", "priceUsdPerPerson")]),
    ("Each crate of Pinot Noir weighs 14 kg.", [("14", "kg", "packageWeightKg")]),
    ("Wine ships in cases of 6 bottles.", [("6", "bottle per case", "unitsPerPackage")]),
    ("The bus seats 52 passengers.", [("52", "passenger", "capacityPassengers")]),
    ("It holds 2 spools per linear meter and 30 per cent more.", [("2", "spool per linear meter",
                                                                   "capacitySpoolsPerLinearMeter"),
                                                                  ("30", "%", "sharePct")]),
])
def test_numbers_in_text_keep_their_unit(text: str, expected: list) -> None:
    found = [(q.value, unit_text(q), propose(q, {"case", "crate"}).name) for q in find_quantities(text)]
    assert found == expected


@pytest.mark.parametrize("key,expected", [
    ("Weight (lb):", ("Weight", "lb")), ("Price ($)", ("Price", "USD")), ("Price (GBP)", ("Price", "GBP")),
    ("Battery (mAh)", ("Battery", "mAh")), ("Power (W)", ("Power", "W")), ("Screen (in)", ("Screen", "in")),
    ("Area (m²)", ("Area", "m²")), ("Share (%)", ("Share", "%")), ("Name (short)", ("Name (short)", "")),
])
def test_units_in_keys(key: str, expected: tuple) -> None:
    assert split_key(key) == expected


def test_the_table() -> None:
    assert (currency("$"), currency("€"), currency("£"), currency("usd"), currency("kg")) == \
        ("USD", "EUR", "GBP", "USD", "")
    assert (canonical("lbs"), canonical("Inches"), canonical("m2"), canonical("short")) == ("lb", "in", "m²", "")
    assert (property_suffix("m²"), property_suffix("%"), property_suffix("km/h")) == ("M2", "Pct", "KmPerH")


@pytest.mark.parametrize("a,b", [("MetroLoop 500 SIZE M", "MetroLoop 500 SIZE"), ("Model T", "Model"),
                                 ("Drill 18 V", "Drill 18")])
def test_distinct_names_stay_apart(a: str, b: str) -> None:
    assert normalize(a) != normalize(b) or a.endswith(" V")  # a unit after a number may go: "Drill 18 V"


def test_units_after_numbers_still_match() -> None:
    assert normalize("SunDial (kg)") == normalize("SunDial") == normalize("SunDial 7 kg").replace("7", "")


@pytest.mark.parametrize("a,b", [("mPa", "MPa"), ("mW", "MW"), ("µg/L", "g/L"), ("µm", "m")])
def test_units_that_differ_by_a_prefix_get_different_names(a: str, b: str) -> None:
    """A milli- or micro-unit is never named like the mega- or bare unit its letters fold to."""
    assert property_suffix(a) != property_suffix(b)
    assert property_suffix("mL") == "Ml" and property_suffix("mg/L") == "MgPerL"  # no clash: names as before


def test_a_viscosity_keeps_its_unit() -> None:
    q, = find_quantities("The resin has a viscosity of 850 mPa·s at 25 degrees.")[:1]
    assert (q.value, unit_text(q), q.dimension) == ("850", "mPa·s", "viscosity")


@pytest.mark.parametrize("text,name,expected", [
    ("Each crate weighs 1.2 t.", "weight", "weightT"),  # "weight" does not end in the unit "t"
    ("Each crate weighs 1.2 t.", "weightT", "weightT"),
    ("The glue sets in 3 days.", "setTime", "setTimeDays"),
    ("The glue sets in 3 days.", "settimedays", "settimeDays"),
    ("The glue sets in 3 days.", "days", "days"),  # the unit alone stays
    ("The beam is 4 m long.", "item", "itemM"),  # a one-letter unit is never cut out of a word
])
def test_a_unit_is_a_whole_word_of_a_name(text: str, name: str, expected: str) -> None:
    from ontobuild.text.concepts import with_unit

    assert with_unit(name, find_quantities(text)[0], set()) == expected


@pytest.mark.parametrize("text,written,value,approx", [
    ("Nearly two thirds of the seedlings survived the frost.", "two thirds", "66.7", True),
    ("Half of the trailers were empty.", "Half", "50", False),
    ("One in four invoices is paid late.", "One in four", "25", False),
    ("Three quarters of the drivers hold a permit.", "Three quarters", "75", False),
])
def test_a_share_written_in_words_is_a_percentage(text: str, written: str, value: str, approx: bool) -> None:
    """"two thirds of", "half of", "one in four": a share, as a percentage (never a count of thirds, never "one in"
    read as an inch); approximate when it is no whole number or the text says so."""
    q = find_quantities(text)[0]
    assert (q.written, q.value, q.unit, q.dimension) == (written, value, "%", "ratio")
    assert q.approx == approx


def test_a_bound_word_of_the_sentence_before_bounds_nothing() -> None:
    """"... for 30 min. About 40 crates ...": the "min." that ends a sentence is no minimum of the next one's value."""
    q = find_quantities("Rinse the drums for 30 min. About 40 drums are rinsed a day.")[1]
    assert (q.value, q.bound, q.approx) == ("40", "", True)


@pytest.mark.parametrize("text,unit", [("The lounge seats up to 30 people.", "person"),
                                       ("The crèche takes 12 children.", "child")])
def test_a_count_of_a_noun_with_an_irregular_plural(text: str, unit: str) -> None:
    q, = find_quantities(text)
    assert (q.unit, q.dimension) == (unit, "count")
