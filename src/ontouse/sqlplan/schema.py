"""The relational view of an ontology: one table per class, one column per property its instances use.

A small coder model writes SQL far better than SPARQL, and every ontology has a faithful relational reading:
a class is a table whose rows are its instances (with its subclasses' instances), a property used by those
instances is a column (a datatype property holds values, an object property holds links to rows of another
table), and `id` is the instance itself. This module holds the view (Schema, Table, Column) and its names; the view
is built from the data with a handful of aggregate SPARQL queries through the store (schema_build.py; not by walking
the graph), so it works the same on any store.

Names: a table is named by its class's local name, a column by its property's local name, both turned into SQL
identifiers and made unique; the view keeps the IRI behind every name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from rdflib import URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS, XSD

from ontocore.text import fold, singular

from ..language.detection import LabelLanguages, preference

META_NAMESPACES = (str(RDF), str(RDFS), str(OWL), str(XSD))
# Standard label properties of the RDF world, most preferred first (what a thing is called, in any domain).
LABEL_PROPERTIES = (RDFS.label, SKOS.prefLabel, URIRef("http://xmlns.com/foaf/0.1/name"),
                    URIRef("http://schema.org/name"), URIRef("http://purl.org/dc/terms/title"), SKOS.altLabel)

_INT = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger", "negativeInteger",
        "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte", "gYear"}
_REAL = {"decimal", "double", "float"}
_TIME = {"date": "DATE", "dateTime": "TIMESTAMP", "dateTimeStamp": "TIMESTAMP", "time": "TIME"}


def local_name(iri: str) -> str:
    """The last segment of an IRI (after '#', else after the last '/' or ':')."""
    text = str(iri).rstrip("/#")
    for sep in ("#", "/", ":"):
        if sep in text:
            tail = text.rsplit(sep, 1)[1]
            if tail:
                return tail
    return text


def sql_ident(name: str) -> str:
    """`name` as a plain SQL identifier: letters, digits and '_', not starting with a digit."""
    ident = re.sub(r"[^0-9A-Za-z_]+", "_", name).strip("_") or "x"
    return f"c_{ident}" if ident[0].isdigit() else ident


def sql_type(datatype: str) -> str:
    """The SQL type shown for an XSD datatype IRI ('' for plain strings)."""
    local = local_name(datatype) if datatype else "string"
    if local in _INT:
        return "INTEGER"
    if local in _REAL:
        return "REAL"
    if local == "boolean":
        return "BOOLEAN"
    return _TIME.get(local, "TEXT")


def unique_name(name: str, taken: set[str]) -> str:
    """`name`, else `name_2`, `name_3`... the first whose lower case is not in `taken` (which it joins)."""
    base, n = name, 2
    while name.lower() in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name.lower())
    return name


def is_meta(iri: URIRef) -> bool:
    """A term of the RDF, RDFS, OWL or XSD vocabularies (never a table or a column of the view)."""
    return str(iri).startswith(META_NAMESPACES)


def iri_list(iris: Iterable[URIRef]) -> str:
    """The IRIs as SPARQL terms, for a VALUES block."""
    return " ".join(f"<{i}>" for i in iris)


_MISSING = frozenset(("", "null", "none", "n/a", "na", "nan", "-", "?", "unknown"))


def is_number_text(text: str) -> bool:
    """Does a text read as a number ("150", "2.5")?"""
    try:
        float(text)
        return True
    except ValueError:
        return False


@dataclass
class Column:
    name: str
    prop: URIRef | None  # None for `id`
    kind: str  # "id" | "value" | "link"
    sql_type: str = "TEXT"
    datatype: str = ""  # the most common datatype of the values ("" for plain strings, links and id)
    target: str = ""  # for links: the table the linked things belong to
    count: int = 0  # triples
    distinct: int = 0  # distinct values
    subjects: int = 0  # rows with a value
    label: str = ""
    comment: str = ""
    english: str = ""  # its English label when the view's labels are in another language (schema_labels)
    samples: list[str] = field(default_factory=list)  # most frequent values (lexical forms or target labels)
    is_label: bool = False  # the column holds what the rows are called
    key_of: str = ""  # "" or "table.column" this value column refers to (a foreign key found in the data)
    hidden: bool = False  # not shown in prompts (a link that a shown foreign key column already expresses)
    # how the column is read when it is not `row prop value`: "inverse" (the graph states `value inverse row`:
    # a declared owl:inverseOf partner that the data never states), "same" (`row owl:sameAs x . x prop value`:
    # a fact of a record the row is the same as)
    via: str = ""
    via_prop: URIRef | None = None
    inverse: str = ""  # for links: "table.column" of the link that states the same pairs backwards, if any
    plain: bool = False  # a value column whose every value is a plain string (no language tag, no other datatype)
    canonical: bool = False  # an INTEGER column whose every value is an xsd:integer in canonical form (a big view's)

    @property
    def numeric(self) -> bool:
        return self.sql_type in ("INTEGER", "REAL")

    @property
    def numbers_as_text(self) -> bool:
        """A text column whose values are numbers written as text, some of them missing ("150", "98", "null"):
        its most frequent values, but for words of a missing value, all read as numbers."""
        said = [s for s in self.samples if s.strip().lower() not in _MISSING]
        return self.sql_type == "TEXT" and self.kind == "value" and bool(said) and all(is_number_text(s) for s in said)

    def triples(self, row: str, value: str, mid: str = "") -> list[tuple[str, str, str]]:
        """The triple patterns that read this column of `row` into `value` (SPARQL terms; `mid`: a fresh
        variable for a column read through another node)."""
        if self.via == "inverse":
            return [(value, URIRef(self.via_prop).n3(), row)]
        if self.via == "same":
            return [(row, OWL.sameAs.n3(), mid or value + "_same"), (mid or value + "_same", URIRef(self.prop).n3(),
                                                                     value)]
        return [(row, URIRef(self.prop).n3(), value)]


@dataclass
class Table:
    name: str
    cls: URIRef
    classes: tuple[URIRef, ...]  # the class and its subclasses
    typed_all: bool  # every instance of a subclass is also typed with `cls` (a plain `?x a cls` finds them all)
    count: int = 0
    direct: int = 0  # rows typed with `cls` itself
    label: str = ""
    comment: str = ""
    english: str = ""  # its English label when the view's labels are in another language (schema_labels)
    parents: list[str] = field(default_factory=list)
    # the names of its rows, when they are few things that serve as values of other things (a status, a genre, a
    # language: named individuals with nothing but names, that links point at), for the prompt (schema_labels)
    values: list[str] = field(default_factory=list)
    columns: dict[str, Column] = field(default_factory=dict)  # lower-cased name -> Column
    named_only: bool = False  # its rows are the named ones only (a TBox's classes: not its anonymous class expressions)

    def column(self, name: str) -> Column | None:
        return self.columns.get(name.lower())

    def column_for(self, prop: URIRef) -> Column | None:
        return next((c for c in self.columns.values() if c.prop == prop), None)

    def label_column(self) -> Column | None:
        cols = [c for c in self.columns.values() if c.is_label]
        return cols[0] if cols else None

    def id_column(self) -> Column | None:
        """The one column that holds the rows' ids: a value column named `id`, `<table>Id`, `<table>_id` or
        `<table>Identifier` (case and `_` ignored; then the same with the table's name in the singular: "crates":
        crateid) with a different value on every row; None when there is none or more than one."""
        name = fold(self.name).replace("_", "")
        one = singular(name)
        for wanted in ({"id", name + "id", name + "identifier", "identifier"}, {one + "id", one + "identifier"}):
            found = [c for c in self.columns.values() if c.prop is not None
                     and fold(c.name).replace("_", "") in wanted and self.tells_rows_apart(c)]
            if found:
                return found[0] if len(found) == 1 else None
        return None

    def tells_rows_apart(self, column: Column | None) -> bool:
        """Does a value column of this table hold a different value on every row (the rows are known by it)?"""
        return (column is not None and column.kind == "value" and self.count > 0
                and column.subjects == self.count and column.distinct == self.count)

    def key_columns(self) -> list[Column]:
        """Text columns that hold a different value on every row: the codes the rows are known by besides their
        names (a thing compared with text may be meant by either)."""
        return [c for c in self.columns.values() if c.sql_type == "TEXT" and c.prop is not None
                and not c.is_label and self.count > 1 and self.tells_rows_apart(c)]


@dataclass
class Schema:
    tables: dict[str, Table] = field(default_factory=dict)  # lower-cased name -> Table
    values: dict[URIRef, dict[str, int]] = field(default_factory=dict)  # property -> lexical form -> count
    label_props: tuple[URIRef, ...] = ()  # label properties present in the data
    languages: LabelLanguages = field(default_factory=LabelLanguages)  # the language tags of the labels
    # text properties whose `values` are a part of their values (a big graph's names and codes: bigschema.py); a
    # value of one is looked up in the store (linking.ValueIndex)
    open_values: frozenset[URIRef] = frozenset()
    sampled: int = 0  # made from a sample of this many rows per class (bigschema.py; 0: from the whole graph)

    @property
    def label_order(self) -> tuple[str, ...]:
        """The label languages the view prefers: the ontology's main label language, then untagged labels."""
        return preference("", self.languages.main)

    def table(self, name: str) -> Table | None:
        return self.tables.get(name.lower())

    def has_name(self, name: str) -> bool:
        """Is `name` (or the column of `table.column`) a table or a column of any table of the view?"""
        last = name.rsplit(".", 1)[-1]
        return self.table(last) is not None or any(t.column(last) is not None for t in self.tables.values())

    def by_class(self, cls: URIRef) -> Table | None:
        return next((t for t in self.tables.values() if t.cls == cls), None)

    def columns_of(self, prop: URIRef) -> list[tuple[Table, Column]]:
        return [(t, c) for t in self.tables.values() for c in t.columns.values() if c.prop == prop]



def english_covered(schema: Schema) -> bool:
    """Every class of the view and every property it shows has an English label (so an English question links
    to the view's words without a translation into the main label language)."""
    things: list[Table | Column] = []
    for t in schema.tables.values():
        things.append(t)
        things += [c for c in t.columns.values() if c.kind != "id" and c.prop is not None and not c.hidden
                   and not c.is_label and not c.via]
    return bool(things) and all(x.english for x in things)
