"""One units table for the builder: currencies by symbol and ISO code, units of several dimensions, in text
and in keys; names that differ by a letter stay apart. (Cases from two domains: a shop and a workshop.)"""

from __future__ import annotations

import pytest

from ontobuild.mapping import split_key
from ontobuild.names import normalize
from ontobuild.textnumbers import find_numbers
from ontobuild.units import canonical, currency, property_suffix


@pytest.mark.parametrize("text,expected", [
    ("The lamp costs $120 in the web shop.", [("120", "USD", "costUsd")]),
    ("Shipping is £15.50 per order.", [("15.50", "GBP per order", "costGbpPerOrder")]),
    ("Now €99, or 89 EUR in stores.", [("99", "EUR", "costEur"), ("89", "EUR", "costEur")]),
    ("Fee CHF 9.90, or US$ 7.", [("9.90", "CHF", "costChf"), ("7", "USD", "costUsd")]),
    ("The drill weighs 230 g, the case 2.1 kg (4.6 lb).", [("230", "g", "weightG"), ("2.1", "kg", "weightKg"),
                                                          ("4.6", "lb", "weightLb")]),
    ("A 3,000 mAh pack drives a 250 W motor at 40% load.", [("3000", "mAh", "capacityMah"), ("250", "W", "powerW"),
                                                            ("40", "%", "percent")]),
    ("A 12 m² room with a 27 in. screen.", [("12", "m²", "areaM2"), ("27", "in", "lengthIn")]),
    ("Put 12 in the box.", [("12", "", "value")]),  # 'in' followed by a word is not inches
    ("At 0,80 EUR per day.", [("0.80", "EUR per day", "costEurPerDay")]),  # a decimal comma

    # the words that name a quantity, what a weight is of, what a package holds, what is counted per what
    ("The charging time is 3 hours.", [("3", "hours", "chargingTimeHours")]),
    ("A ticket has a price of $12 per person.", [("12", "USD per person", "priceUsdPerPerson")]),
    ("Each crate of Pinot Noir weighs 14 kg.", [("14", "kg", "crateWeightKg")]),
    ("Wine ships in cases of 6 bottles.", [("6", "bottles per case", "bottlesPerCase")]),
    ("The bus seats 52 passengers; in 2024 sales grew.", [("52", "passengers", "passengers"), ("2024", "", "value")]),
    ("It holds 2 spools per linear meter and 30 per cent more.", [("2", "spools per linear meter",
                                                                   "spoolsPerLinearMeter"), ("30", "%", "percent")]),
])
def test_numbers_in_text_keep_their_unit(text: str, expected: list) -> None:
    assert [(n.value, n.unit, n.suggestion()) for n in find_numbers(text)] == expected


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


@pytest.mark.parametrize("a,b", [("CityGlide 700 SIZE M", "CityGlide 700 SIZE"), ("Model T", "Model"),
                                 ("Drill 18 V", "Drill 18")])
def test_distinct_names_stay_apart(a: str, b: str) -> None:
    assert normalize(a) != normalize(b) or a.endswith(" V")  # a unit after a number may go: "Drill 18 V"


def test_units_after_numbers_still_match() -> None:
    assert normalize("EcoRing (kg)") == normalize("EcoRing") == normalize("EcoRing 58 kg").replace("58", "")
