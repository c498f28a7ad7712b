"""Numbers as people write them, in one place: thousands and decimal marks of several notations, read in the
way their column writes them (a price list with decimal commas; a fleet export in English notation)."""

from __future__ import annotations

import pytest

from ontobuild.tables.mapping import infer_field
from ontobuild.values.numbers import datatype_of, decimal_comma, read_number


@pytest.mark.parametrize("text,comma,expected", [
    ("1,800", False, ("1800", "integer")), ("1.800,5", False, ("1800.5", "decimal")),
    ("1 800", False, ("1800", "integer")), ("1\u202f800,25", False, ("1800.25", "decimal")),
    ("0,10", False, ("0.10", "decimal")), ("-3.5", False, ("-3.5", "decimal")), (".5", False, ("0.5", "decimal")),
    ("+4", False, ("4", "integer")), ("12,345,678.9", False, ("12345678.9", "decimal")),
    ("1.234.567", False, ("1234567", "integer")),
    ("1.800", False, ("1.800", "decimal")), ("1.800", True, ("1800", "integer")),  # ambiguous: the column decides
    ("1,800", True, ("1.800", "decimal")),
    ("abc", False, None), ("12 kg", False, None), ("1-2", False, None), ("", False, None),
])
def test_read_number(text: str, comma: bool, expected) -> None:
    assert read_number(text, comma) == expected


def test_a_column_decides_its_decimal_mark() -> None:
    prices = ["0,10", "12,5", "1.800", "7"]  # a price list written with decimal commas
    payloads = ["1,800", "12.5", "7"]  # a fleet export in English notation
    assert decimal_comma(prices) and not decimal_comma(payloads)
    assert datatype_of(prices) == "decimal" and datatype_of(payloads) == "decimal"
    plan = infer_field("Price (EUR)", prices)
    assert plan.type == "decimal" and plan.decimal_comma and plan.unit == "EUR"
    assert infer_field("Payload (t)", payloads).decimal_comma is False
    assert datatype_of(["3", "1 200"]) == "integer" and datatype_of(["3", "n/a"]) is None


def test_markdown_is_chunked_by_heading_and_paragraph(tmp_path) -> None:
    from ontobuild.inputs.readers import load_inputs

    (tmp_path / "guide.md").write_text("# Depots\n\nNorthport holds 40 trucks.\n\n## Rules\n\nTrucks rest 11 h.\nEvery "
                                       "night.\n\n# Books\n\nDune has 412 pages.\n", "utf-8")
    chunks = [c.text for c in load_inputs([tmp_path / "guide.md"]).chunks]
    assert chunks == ["Depots: Northport holds 40 trucks.", "Depots > Rules: Trucks rest 11 h. Every night.",
                      "Books: Dune has 412 pages."]


def test_xsd_lexical_forms_have_one_home() -> None:
    """A value already in xsd notation: its number type (a leading zero marks a code), and the same patterns
    check literals in the index (one source for both)."""
    from ontobuild.ontology.entries import check_literal
    from ontobuild.values.numbers import xsd_number_type

    assert [xsd_number_type(v) for v in ("0", "-12", "+3", "0.5", "-0.25", "10.", ".5")] == [
        "xsd:integer", "xsd:integer", "xsd:integer", "xsd:decimal", "xsd:decimal", "xsd:decimal", "xsd:decimal"]
    assert [xsd_number_type(v) for v in ("007", "012.5", "1e5", "1_000", "1,5", "")] == [None] * 6
    assert check_literal("007", "xsd:integer") is None  # valid xsd, even if we would not infer it
    assert check_literal("1_000", "xsd:integer") and check_literal("1e5", "xsd:decimal")
    assert check_literal("1e5", "xsd:double") is None and check_literal("INF", "xsd:double") is None
