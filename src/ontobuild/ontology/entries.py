"""The entries of the entities index: classes, properties, individuals and their facts (each with its provenance),
and which lexical forms a datatype accepts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ..values.numbers import XSD_DECIMAL, XSD_DOUBLE, XSD_INTEGER

DATATYPES = ("xsd:string", "xsd:integer", "xsd:decimal", "xsd:double", "xsd:boolean", "xsd:date",
             "xsd:dateTime", "xsd:anyURI", "xsd:time", "xsd:gYear", "xsd:gMonthDay")


@dataclass
class ClassDef:
    name: str
    label: str = ""
    superclasses: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    iri: str = ""  # its own IRI when it is not base_iri + name (a vocabulary's term)
    disjoint: list[str] = field(default_factory=list)  # classes nothing can be a member of together with this one


@dataclass
class PropertyDef:
    name: str
    kind: str  # "object" | "datatype"
    label: str = ""
    domain: list[str] = field(default_factory=list)
    range: str = ""  # a class name (object) or an xsd datatype (datatype)
    unit: str = ""
    dimension: str = ""  # what its values measure (mass, time, money, ...): a value of another is refused
    roles: list[str] = field(default_factory=list)
    iri: str = ""
    functional: bool = False  # at most one value per subject
    inverse_of: str = ""  # an object property that states the same pairs the other way (owl:inverseOf)


@dataclass
class Fact:
    property: str
    object: str | None = None  # individual name, for object properties
    literal: str | None = None  # lexical form, for datatype properties
    datatype: str = ""
    unit: str = ""
    qualifier: str = ""  # what qualifies the value as the text says it: "at most", "about", "on average"
    source: dict[str, str] = field(default_factory=dict)

    def key(self) -> tuple:
        return (self.property, self.object, self.literal, self.datatype)


@dataclass
class Individual:
    name: str
    label: str = ""
    classes: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    roles: list[str] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    source: dict[str, str] = field(default_factory=dict)
    iri: str = ""


# the lexical forms of the date and time datatypes
_LEXICAL = {
    "xsd:date": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "xsd:time": re.compile(r"([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d+)?"),
    "xsd:gYear": re.compile(r"-?\d{4,}"),
    "xsd:gMonthDay": re.compile(r"--(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"),
    "xsd:dateTime": re.compile(r"-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?"),
}


def check_literal(lexical: str, datatype: str) -> str | None:
    """None when `lexical` is a valid value of `datatype`, else the reason."""
    dt = datatype or "xsd:string"
    if dt not in DATATYPES:
        return f"unknown datatype '{dt}' (use one of {', '.join(DATATYPES)})"
    try:
        if dt == "xsd:integer":
            if not XSD_INTEGER.fullmatch(lexical.strip()):
                raise ValueError
        elif dt == "xsd:decimal":
            if not XSD_DECIMAL.fullmatch(lexical.strip()):
                raise ValueError
            Decimal(lexical)
        elif dt == "xsd:double":
            if not XSD_DOUBLE.fullmatch(lexical.strip()):
                raise ValueError
        elif dt == "xsd:boolean":
            if lexical not in ("true", "false", "1", "0"):
                raise ValueError
        elif dt in _LEXICAL and not _LEXICAL[dt].fullmatch(lexical):
            raise ValueError
    except (ValueError, InvalidOperation):
        return f"'{lexical}' is not a valid {dt}"
    return None
