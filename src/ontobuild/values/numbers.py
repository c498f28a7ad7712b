"""Numbers as people write them, recognised in one place for the whole builder (keys of structured data, table
cells, numbers in text): `1,800` and `1 800` (thousands), `1.800,5` and `0,10` (a decimal comma), `-3.5`, `.5`.

A lone `1.800` or `1,800` is ambiguous; it is read the way the rest of its column writes numbers
(`decimal_comma`), and by default as English writes them (1.8 and 1800). The datatype follows the lexical form:
integer when there is no fractional part written, else decimal."""

from __future__ import annotations

import re
from typing import Iterable

_SPACES = re.compile(r"[\u00a0\u202f\u2009 ]")  # no-break, narrow no-break, thin and plain spaces
_PLAIN = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)")
_EN_THOUSANDS = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d+)?")
_EU_THOUSANDS = re.compile(r"[+-]?\d{1,3}(\.\d{3})+(,\d+)?")
_SPACE_THOUSANDS = re.compile(r"[+-]?\d{1,3}(\s\d{3})+([.,]\d+)?")
_COMMA_DECIMAL = re.compile(r"[+-]?\d+,\d+")
# the lexical forms of XML Schema (what a typed literal holds once read)
XSD_INTEGER = re.compile(r"[+-]?[0-9]+")  # int() would also take "1_000"
XSD_DECIMAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)")  # no exponent
XSD_DOUBLE = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN")


def xsd_number_type(lexical: str) -> str | None:
    """'xsd:integer' | 'xsd:decimal' for a value already in xsd notation, else None. A leading zero ("007")
    marks a code, not a number."""
    if re.match(r"[+-]?0[0-9]", lexical):
        return None
    if XSD_INTEGER.fullmatch(lexical):
        return "xsd:integer"
    if XSD_DECIMAL.fullmatch(lexical):
        return "xsd:decimal"
    return None


def read_number(text: str, decimal_comma: bool = False) -> tuple[str, str] | None:
    """(lexical form in xsd notation, 'integer' | 'decimal'), or None when `text` is not one number."""
    t = text.strip()
    if not t or len(t) > 64:
        return None
    if _SPACE_THOUSANDS.fullmatch(_SPACES.sub(" ", t)):
        t = _SPACES.sub("", t)
        t = t.replace(",", ".") if "," in t else t
    elif _EN_THOUSANDS.fullmatch(t) and not decimal_comma:
        t = t.replace(",", "")
    elif _EU_THOUSANDS.fullmatch(t) and (decimal_comma or "," in t or t.count(".") > 1):
        t = t.replace(".", "").replace(",", ".")
    elif _COMMA_DECIMAL.fullmatch(t) and (decimal_comma or not re.fullmatch(r"[+-]?\d{1,3},\d{3}", t)):
        t = t.replace(",", ".")
    if not _PLAIN.fullmatch(t):
        return None
    if t.endswith("."):
        t = t[:-1]
    if t.startswith(("+.", "-.", ".")):
        t = t.replace(".", "0.", 1)
    t = t.lstrip("+")
    return (t, "decimal") if "." in t else (t, "integer")


def decimal_comma(values: Iterable[str]) -> bool:
    """Whether a column writes its fractions with a comma: some value has a comma that can only be decimal
    (`0,10`, `12,5`, `1.800,5`) and none a point that can only be decimal (`0.10`, `12.5`)."""
    comma = point = False
    for v in values:
        v = v.strip()
        if re.fullmatch(r"[+-]?\d+,(\d{1,2}|\d{4,})", v) or re.fullmatch(r"[+-]?\d{1,3}(\.\d{3})+,\d+", v):
            comma = True
        elif re.fullmatch(r"[+-]?\d*\.(\d{1,2}|\d{4,})", v) or re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+\.\d+", v):
            point = True
    return comma and not point


def datatype_of(values: Iterable[str]) -> str | None:
    """'integer' | 'decimal' when every value is a number (read with the column's decimal mark), else None."""
    values = [str(v) for v in values]
    comma = decimal_comma(values)
    kinds = [read_number(v, comma) for v in values]
    if not kinds or not all(kinds):
        return None
    return "integer" if all(k[1] == "integer" for k in kinds if k) else "decimal"
