"""Structured data is mapped, not retyped.

Code finds the records in a JSON tree and groups them by shape (their path pattern); for each shape it
proposes a mapping (a property, datatype and unit per key, which values become individuals); the LLM
decides the meaning (the record class, which key names a record, what the grouping levels are, any
corrections); then code applies the decided mapping to every record of that shape and accounts for every
leaf value: mapped into the ontology, or skipped with a reason."""

from __future__ import annotations

import logging
from collections import Counter
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ..inputs.limits import check_fields
from ..ontology.entries import Fact
from ..ontology.index import EntitiesIndex
from ..ontology.names import safe_name, thing_name, unique_name
from ..values.datatypes import XSD
from ..values.numbers import decimal_comma, read_number
from ..values.units import canonical, currency
from ontocore.text import singular

_URL = re.compile(r"^(https?|ftp)://\S+$", re.I)
_PARTS = re.compile(r"^\s*[^:;]{2,80}:\s*[^;]+(;\s*[^:;]{2,80}:\s*[^;]+)+;?\s*$")
TYPES = ("string", "integer", "decimal", "uri", "boolean", "individual", "parts", "skip")
log = logging.getLogger(__name__)


# a grouping level whose class names kinds of things: each of its keys also becomes a subclass of the records
KIND_LEVEL = re.compile(r"(Category|Type|Kind|Class|Family|Line|Group\d*|Range|Segment|Series)$")


def is_leaf(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def is_leafish(v: Any) -> bool:
    return is_leaf(v) or (isinstance(v, list) and all(is_leaf(x) for x in v))


def pointer(path: list[str | int]) -> str:
    return "$" + "".join([f"[{p}]" if isinstance(p, int) else f"[{p!r}]" for p in path])


@dataclass
class Record:
    file: str
    path: list[str | int]
    pattern: str
    levels: list[str]  # keys of the grouping levels above the record (outermost first)
    own_key: str | None  # the key this record is stored under, if any
    fields: dict[str, Any]
    parent: "Record | None" = None
    link_key: str | None = None  # the parent's key that holds this record
    individual: str = ""


def split_key(key: str) -> tuple[str, str]:
    """('Tank volume', 'L') from 'Tank volume (L):'."""
    text = key.strip().rstrip(":").strip()
    unit = ""
    for m in re.finditer(r"\(([^)]*)\)", text):
        if canonical(m.group(1).strip()):
            unit = currency(m.group(1).strip()) or m.group(1).strip()  # "($)" -> USD
            text = (text[:m.start()] + text[m.end():]).strip()
            break
    return " ".join(text.split()) or key, unit


def file_stem(file: str) -> str:
    """A file's name without its data suffix, lower-cased: what its records are called ("orders.csv" -> "orders");
    for a sheet of a workbook of several sheets, the sheet's name ("shop.xlsx/Orders" -> "orders")."""
    return file_stem_as_written(file).lower()


def file_stem_as_written(file: str) -> str:
    """file_stem with the case the user wrote ("OrderLines.csv" -> "OrderLines")."""
    sheet = re.match(r".+\.(?:xlsx|xlsm|xlsb|xls|ods)/(.+)$", file, flags=re.I)
    if sheet:
        return sheet.group(1).strip()
    return re.sub(r"\.(json|jsonl|ndjson|csv|tsv|tab|xlsx|xlsm|xlsb|xls|ods)$", "", file, flags=re.I)


def parse_number(text: str, decimal_comma: bool = False) -> tuple[str, str] | None:
    """(lexical, 'integer'|'decimal') for a number written as text (numbers.py), else None."""
    return read_number(text, decimal_comma)


def parse_parts(text: str) -> list[tuple[str, str]]:
    return [(k.strip(), v.strip()) for k, v in (p.split(":", 1) for p in text.strip().rstrip(";").split(";"))]


@dataclass
class FieldPlan:
    key: str
    property: str
    type: str  # one of TYPES
    unit: str = ""
    range_class: str = ""  # for individual / parts
    label: str = ""
    reason: str = ""
    sub: dict[str, "FieldPlan"] = field(default_factory=dict)  # for parts: the fields inside
    decimal_comma: bool = False  # the column writes fractions with a comma (numbers.decimal_comma)


_LEADING_ZERO = re.compile(r"[+-]?0[0-9]+")  # "02647", "007": a code whose zeros are part of it (0.5 is a number)


def infer_field(key: str, values: list[Any]) -> FieldPlan:
    label, unit = split_key(key)
    flat = [x for v in values for x in (v if isinstance(v, list) else [v]) if x not in (None, "")]
    strs = [str(x) for x in flat]
    prop = safe_name(label, lower_first=True) + (safe_name(unit) if unit and safe_name(unit) != "_unnamed" else "")
    if not flat:
        return FieldPlan(key, prop, "skip", unit, label=label, reason="no value in any record")
    low = label.lower()
    if low in ("id", "code", "sku", "ean", "gtin", "identifier", "ref") or low.endswith((" id", " code")):
        return FieldPlan(key, prop if not prop.isupper() else prop.lower(), "string", unit, label=label)  # text ids
    if all(isinstance(x, bool) for x in flat):
        return FieldPlan(key, prop, "boolean", unit, label=label)
    if all(_URL.match(s) for s in strs):
        return FieldPlan(key, prop, "uri", unit, label=label)
    comma = decimal_comma(strs)
    nums = [parse_number(s, comma) if not isinstance(x, bool) else None for x, s in zip(flat, strs)]
    if all(nums) and any(_LEADING_ZERO.fullmatch(s.strip()) for s in strs):
        return FieldPlan(key, prop, "string", unit, label=label,
                         reason="digits written with a leading zero: a code, not a number")
    if all(nums):
        kind = "integer" if all(n[1] == "integer" for n in nums if n) else "decimal"
        return FieldPlan(key, prop, kind, unit, label=label, decimal_comma=comma)
    if any(isinstance(v, list) for v in values) and all(len(s) <= 40 and len(s.split()) <= 5 for s in strs):
        cls = safe_name(singular(label))
        return FieldPlan(key, "has" + cls, "individual", unit, range_class=cls, label=label)
    if all(_PARTS.match(s) for s in strs):
        return FieldPlan(key, "hasVariant", "parts", unit, range_class="Variant", label=label)
    return FieldPlan(key, prop, "string", unit, label=label)


@dataclass
class Shape:
    file: str
    pattern: str
    records: list[Record]
    keys: list[str]  # every key seen in the records, in first-seen order
    plans: dict[str, FieldPlan]
    n_levels: int
    record_class: str = ""  # once mapped: the class of its records
    profiles: dict[str, Any] | None = None  # a streamed table's columns as a whole (proposing.Evidence by column)


def find_records(file: str, data: Any) -> list[Record]:
    """Every record (an object holding leaf values) in a JSON tree, with its grouping levels."""
    out: list[Record] = []

    def walk(node: Any, path: list[str | int], pattern: str, levels: list[str], own: str | None,
             parent: Record | None, link_key: str | None) -> None:
        if isinstance(node, dict):
            leafish = [k for k, v in node.items() if is_leafish(v)]
            if leafish and len(leafish) * 2 >= len(node):
                rec = Record(file, path, pattern, levels, own, {k: node[k] for k in leafish}, parent, link_key)
                out.append(rec)
                for k, v in node.items():
                    if k not in rec.fields:
                        if isinstance(v, dict) and all(is_leafish(x) for x in v.values()):
                            for sk, sv in v.items():  # a small object of values: flattened into the record
                                rec.fields[f"{k} / {sk}"] = sv
                        else:
                            walk(v, path + [k], f"{pattern}.{safe_name(k)}", [], None, rec, k)
                return
            for k, v in node.items():
                walk(v, path + [k], pattern + ".*", levels + ([own] if own is not None else []), k, parent, link_key)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if not is_leafish(v):
                    walk(v, path + [i], pattern + "[*]", levels + ([own] if own is not None else []), None,
                         parent, link_key)

    walk(data, [], "$", [], None, None, None)
    return out


def group_shapes(records: list[Record]) -> list[Shape]:
    shapes: dict[tuple[str, str], list[Record]] = {}
    for r in records:
        shapes.setdefault((r.file, r.pattern), []).append(r)
    out = []
    for (file, pattern), recs in shapes.items():
        keys = list(dict.fromkeys(k for r in recs for k in r.fields))  # in order, each once (linear)
        check_fields(f"{file} ({pattern})" if pattern != "$[*]" else file, len(keys))
        plans = {k: infer_field(k, [r.fields.get(k) for r in recs if k in r.fields]) for k in keys}
        for k, plan in plans.items():
            if plan.type == "parts":
                subs: dict[str, list[str]] = {}
                for r in recs:
                    if isinstance(r.fields.get(k), str) and r.fields[k].strip():
                        for sk, sv in parse_parts(r.fields[k]):
                            subs.setdefault(sk, []).append(sv)
                plan.sub = {sk: infer_field(sk, vs) for sk, vs in subs.items()}
        out.append(Shape(file, pattern, recs, keys, plans, len(recs[0].levels)))
    return out


def part_groups(shape: Shape) -> list[str]:
    return [k for k, p in shape.plans.items() if p.type == "parts"]


# ---- applying a decided mapping ------------------------------------------------------------------
@dataclass
class Decision:
    record_class: str
    record_role: str = ""
    superclass: str = ""
    name_key: str = "@key"
    levels: list[dict[str, str]] = field(default_factory=list)  # [{"class", "property"}] outermost first
    id_key: str = ""  # a key column (unique in every record) that names records the name key leaves unnamed
    parts_class: str = "Variant"
    parts_property: str = "hasVariant"


@dataclass
class Coverage:
    entries: list[dict[str, Any]] = field(default_factory=list)
    records: dict[str, str] = field(default_factory=dict)  # individual -> the record it was made from

    def add(self, file: str, path: list[str | int], value: Any, status: str, **where: Any) -> None:
        self.entries.append({"file": file, "path": pointer(path), "value": value, "status": status, **where})

    # the cells of streamed tables, counted instead of listed: (file, column, status, property or reason) -> cells
    tallies: dict[tuple[str, str, str, str], int] = field(default_factory=dict)

    def tally(self, file: str, column: str, status: str, what: str, n: int = 1) -> None:
        key = (file, column, status, what)
        self.tallies[key] = self.tallies.get(key, 0) + n

    def totals(self) -> dict[str, int]:
        covered = sum(e["status"] == "covered" for e in self.entries)
        skipped = sum(e["status"] == "skipped" for e in self.entries)
        counted = {status: sum(n for k, n in self.tallies.items() if k[2] == status) for status in ("covered", "skipped")}
        return {"total": len(self.entries) + sum(self.tallies.values()), "covered": covered + counted["covered"],
                "skipped": skipped + counted["skipped"]}


class CountingCoverage(Coverage):
    """Coverage that counts the cells of a table's column (its path [row, column]) instead of listing each one:
    what a streamed table keeps (tables/streaming/)."""

    def add(self, file: str, path: list[str | int], value: Any, status: str, **where: Any) -> None:
        column = next((str(p) for p in reversed(path) if isinstance(p, str)), "")
        self.tally(file, column, status, where.get("property") or where.get("reason") or "")


def individual_name(rec: Record, decision: Decision, shared: set[str] = frozenset()) -> tuple[str, str]:
    """(name, label) of the record's individual; a name that several records of the shape share (`shared`) takes
    the record's key value in its IRI name, the label stays the name."""
    label = ""
    if decision.name_key != "@key":
        v = rec.fields.get(decision.name_key)
        label = str(v).strip() if is_leaf(v) and v not in (None, "") else ""
        if label in shared and decision.id_key and is_leaf(rec.fields.get(decision.id_key)):
            return thing_name(f"{label} {rec.fields[decision.id_key]}", decision.record_class), label
    if not label:
        label = rec.own_key or ""
    if not label and rec.parent is not None:
        label = f"{rec.parent.individual} {rec.link_key} {rec.path[-1]}"
    if not label and decision.id_key and is_leaf(rec.fields.get(decision.id_key)):
        label = f"{decision.record_class} {rec.fields[decision.id_key]}"
    if not label:
        label = f"{decision.record_class} {rec.path[-1] if rec.path else 1}"
    return thing_name(label, decision.record_class), label




def _literal_fact(idx: EntitiesIndex, subject: str, plan: FieldPlan, value: Any, domain: str, src: dict[str, str],
                  file: str, path: list[str | int], cov: Coverage) -> None:
    text = str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")
    dtype = plan.type
    lexical = text
    if dtype in ("integer", "decimal"):
        num = parse_number(text, plan.decimal_comma)
        if num is None:
            dtype = "string"  # kept as text, never dropped
        else:
            lexical = num[0]
            dtype = "decimal" if dtype == "decimal" or num[1] == "decimal" else "integer"
    if dtype == "uri" and not _URL.match(text):
        dtype = "string"
    role = f"From JSON key '{plan.key}'" + (f" (unit {plan.unit})" if plan.unit else "")
    prop = idx.ensure_datatype_property(plan.property, XSD.get(dtype, "xsd:string"), domain, plan.unit, role,
                                        label=plan.label)
    idx.add_fact(subject, Fact(prop, literal=lexical, datatype=idx.properties[prop].range or XSD[dtype],
                               unit=plan.unit, source=src))
    cov.add(file, path, value, "covered", individual=subject, property=prop)


def apply_mapping(idx: EntitiesIndex, shape: Shape, decision: Decision, cov: Coverage,
                  names: Callable[[Record], tuple[str, str]] | None = None) -> int:
    """Apply a decided mapping to every record of `shape`; returns the number of individuals made. `names`: the
    (name, label) of each record's individual when they were settled already (a streamed table's batch,
    tables/streaming.py), else they are decided here (`individual_name`, two records never one individual)."""
    cls = idx.ensure_class(decision.record_class, decision.record_role, decision.superclass)
    level_info = _grouping_levels(idx, shape, decision, cls)
    shape.record_class = cls
    made = 0
    if names is None:
        counts = Counter(str(rec.fields.get(decision.name_key, "")).strip() for rec in shape.records)
        shared = {n for n, c in counts.items() if c > 1}
    for rec in shape.records:
        src = {"file": rec.file, "path": pointer(rec.path)}
        if names is not None:
            name, label = names(rec)
        else:
            name, label = _record_name(idx, rec, decision, shared, cov)
        rec.individual = idx.ensure_individual(name, label, cls, "", src,
                                               aliases=[rec.own_key] if rec.own_key and rec.own_key != label else [])
        made += 1
        _link_to_parent(idx, rec, cls, src)
        _place_in_levels(idx, rec, cls, level_info, src)
        _add_field_values(idx, shape, decision, rec, cls, label, src, cov)
    return made


def _grouping_levels(idx: EntitiesIndex, shape: Shape, decision: Decision, cls: str) -> list[tuple[str, str] | None]:
    """The (class, property) of each grouping level of the records; None for a level that only wraps the list."""
    level_info: list[tuple[str, str] | None] = []
    for i, lv in enumerate(decision.levels[: shape.n_levels]):
        keys = {rec.levels[i] for rec in shape.records if len(rec.levels) > i}
        if len(shape.records) > 1 and len(keys) == 1 and re.fullmatch(r"[a-z][a-z0-9_]*", next(iter(keys))):
            level_info.append(None)  # {"items": [...]}: a field name every record shares wraps the list, no group
            continue
        lcls = idx.ensure_class(lv["class"], f"Grouping level of {cls} records in {shape.file}")
        lprop = idx.ensure_object_property(lv["property"], cls, lcls, f"Links a {cls} to its {lcls}")
        level_info.append((lcls, lprop))
    return level_info


def _record_name(idx: EntitiesIndex, rec: Record, decision: Decision, shared: set[str],
                 cov: Coverage) -> tuple[str, str]:
    """The (name, label) of a record's individual, made unique when another record has the name already."""
    name, label = individual_name(rec, decision, shared)
    here = f"{rec.file} {pointer(rec.path)}"
    if cov.records.get(name, here) != here:  # two records never become one individual
        taken_by = cov.records[name]
        name = unique_name(name, lambda n: cov.records.get(n, here) != here or n in idx.individuals)
        log.info("%s: %s is also the name of %s; named %s", here, label, taken_by, name)
    cov.records[name] = here
    return name, label


def _link_to_parent(idx: EntitiesIndex, rec: Record, cls: str, src: dict[str, str]) -> None:
    """A nested record is linked from its parent's individual by a property named after its JSON key."""
    if rec.parent is not None and rec.parent.individual:
        link = idx.ensure_object_property(safe_name("has " + singular(split_key(rec.link_key or "")[0])),
                                          "", cls, f"From JSON key '{rec.link_key}'")
        idx.add_fact(rec.parent.individual, Fact(link, object=rec.individual, source=src))


def _place_in_levels(idx: EntitiesIndex, rec: Record, cls: str, level_info: list[tuple[str, str] | None],
                     src: dict[str, str]) -> None:
    """A record's individual is linked to the group of each grouping level it is in; a category's key also makes
    a subclass the individual belongs to."""
    subject = rec.individual
    kind = cls
    for info, key in zip(level_info, rec.levels):
        if info is None:
            continue
        lcls, lprop = info
        if KIND_LEVEL.search(lcls):  # a category's key is also a kind of record: Helmets -> Helmet ⊑ Product
            kind = idx.ensure_class(safe_name(singular(key)), f"A {cls} in the {lcls} {key!r} of {rec.file}",
                                    kind)
            idx.add_individual(subject, classes=[kind])
        lname = idx.ensure_individual(thing_name(key, lcls), key, lcls, "", {"file": rec.file}, [])
        idx.add_fact(subject, Fact(lprop, object=lname, source=src))


def _add_field_values(idx: EntitiesIndex, shape: Shape, decision: Decision, rec: Record, cls: str, label: str,
                      src: dict[str, str], cov: Coverage) -> None:
    """Each value of each field of a record, as its field's plan says: skipped, a link to an individual, variants
    (parts), or a literal fact; each is recorded in `cov`."""
    subject = rec.individual
    for key, value in rec.fields.items():
        plan = shape.plans[key]
        path = rec.path + [key]
        values = value if isinstance(value, list) else [value]
        for i, v in enumerate(values):
            vpath = path + [i] if isinstance(value, list) else path
            if v is None or (isinstance(v, str) and not v.strip()):
                cov.add(rec.file, vpath, v, "skipped", reason="empty value")
            elif plan.type == "skip":
                cov.add(rec.file, vpath, v, "skipped", reason=plan.reason or "skipped by the mapping")
            elif plan.type == "individual":
                rcls = idx.ensure_class(plan.range_class or "Thing")
                prop = idx.ensure_object_property(plan.property, cls, rcls, f"From JSON key '{key}'")
                obj = idx.ensure_individual(thing_name(str(v), rcls), str(v), rcls, "", src)
                idx.add_fact(subject, Fact(prop, object=obj, source={"file": rec.file, "path": pointer(vpath)}))
                cov.add(rec.file, vpath, v, "covered", individual=subject, property=prop, object=obj)
            elif plan.type == "parts" and isinstance(v, str) and _PARTS.match(v):
                _add_variant(idx, decision, rec, cls, label, key, plan, v, vpath, cov)
            else:
                _literal_fact(idx, subject, plan if plan.type != "parts" else
                              FieldPlan(key, plan.property + "Text", "string", label=plan.label),
                              v, cls, {"file": rec.file, "path": pointer(vpath)}, rec.file, vpath, cov)


def _add_variant(idx: EntitiesIndex, decision: Decision, rec: Record, cls: str, label: str, key: str,
                 plan: FieldPlan, v: str, vpath: list[str | int], cov: Coverage) -> None:
    """A value listing parts ("parts" plan) becomes a variant individual of the record with a fact per part."""
    pcls = idx.ensure_class(decision.parts_class or "Variant")
    prop = idx.ensure_object_property(decision.parts_property or "hasVariant", cls, pcls,
                                      "Links a record to its variants")
    plabel = f"{label} {split_key(key)[0]}"
    last = split_key(key)[0].split()[-1]
    part = idx.ensure_individual(safe_name(plabel), plabel, pcls, f"Variant of {label}",
                                 {"file": rec.file, "path": pointer(vpath)},
                                 aliases=[split_key(key)[0], f"{label} {last}"])
    idx.add_fact(rec.individual, Fact(prop, object=part, source={"file": rec.file, "path": pointer(vpath)}))
    for sk, sv in parse_parts(v):
        _literal_fact(idx, part, plan.sub[sk], sv, pcls, {"file": rec.file, "path": pointer(vpath)},
                      rec.file, vpath, Coverage())
    cov.add(rec.file, vpath, v, "covered", individual=part, property=prop)
