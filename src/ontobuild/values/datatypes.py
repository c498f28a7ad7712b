"""Datatypes of literal values, in one place for the whole builder: the XSD datatype of a value kind, of a
lexical form, and the widening of several datatypes to one that every value fits."""

from __future__ import annotations

import re
from typing import Iterable

from .numbers import xsd_number_type

# the XSD datatype of each value kind a mapping or a number reader names
XSD = {"string": "xsd:string", "integer": "xsd:integer", "decimal": "xsd:decimal", "uri": "xsd:anyURI",
       "boolean": "xsd:boolean"}

_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_URL = re.compile(r"https?://\S+", re.IGNORECASE)


def literal_type(value: str) -> str:
    """The most specific xsd datatype the lexical form `value` fits."""
    number = xsd_number_type(value)
    if number:
        return number
    if value in ("true", "false"):
        return "xsd:boolean"
    if _DATE.fullmatch(value):
        return "xsd:date"
    if _URL.fullmatch(value):
        return "xsd:anyURI"
    return "xsd:string"


def widen(types: Iterable[str]) -> str:
    """The one datatype every value of `types` fits: the same one, decimal for integers and decimals mixed, else
    string (also for none at all)."""
    found = set(types)
    if not found:
        return "xsd:string"
    if len(found) == 1:
        return found.pop()
    if found <= {"xsd:integer", "xsd:decimal"}:
        return "xsd:decimal"
    return "xsd:string"
