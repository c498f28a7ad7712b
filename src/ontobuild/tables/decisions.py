"""The model's mapping decision for a record shape, checked: every problem said so that the model can fix it
(`check_decision`), and the code's own proposal standing in for what it could not fix (`repair_decision`)."""

from __future__ import annotations

import re
from typing import Any

from ontocore.embeddings import split_name
from ontocore.text import singular

from .mapping import Shape, file_stem, file_stem_as_written, parse_number, part_groups, split_key
from ..ontology.names import safe_name


_NAME_WORDS = ("name", "title", "label")


def proposed_name_key(shape: Shape, id_key: str = "") -> str:
    """The column that names the records, if it names them well enough for `check_decision` (given the table's key
    column `id_key`); else "@key" (names made by code). In this order: a column called name, title or label; one
    called so after the table's own word or "full" (harbour_name of harbours, FullName); a column of text called
    as the table's thing itself (tide of tides)."""
    table = [_word(w) for w in split_name(file_stem_as_written(shape.file)).split()]
    ranked = []
    for position, k in enumerate(shape.keys):
        words = [_word(w) for w in split_name(split_key(k)[0]).split()]
        if words in (["name"], ["title"], ["label"], ["product", "name"], ["full", "name"]):
            rank = 0
        elif len(words) == 1 and any(words[0] == t + n for t in [*table, "full"] for n in _NAME_WORDS):
            rank = 1  # harbourname, fullname written as one word
        elif len(words) > 1 and words[-1] in _NAME_WORDS and set(words[:-1]) <= {*table, "full"}:
            rank = 1
        elif len(words) == 1 and words[0] in table and k != id_key:  # the key column identifies, not names
            rank = 2
        else:
            continue
        ranked.append((rank, position, k))
    for rank, _, k in sorted(ranked):
        values = [r.fields.get(k) for r in shape.records]
        if rank and not all(isinstance(v, str) and v.strip() and not parse_number(v.strip()) for v in values):
            continue  # a name is text
        if not _naming_problem(shape, k, id_key):
            return k
    return "@key"


def _word(word: str) -> str:
    return singular(word) if len(word) > 3 else word


def _naming_problem(shape: Shape, key: str, id_key: str) -> str:
    """Why the values of `key` cannot name the records ("" if they can): empty in some record, or shared by
    several records. A few shared values are fine when the table has a key column `id_key` to tell them apart."""
    values = [str(r.fields.get(key, "")).strip() for r in shape.records]
    if any(not v for v in values):
        return f"name_key {key!r} is empty in some records; use \"@key\" or another key"
    if len(set(values)) < len(values) and not (id_key and len(set(values)) * 3 >= len(values) * 2):
        return f"name_key {key!r} repeats the same value in several records; use a key that names each record uniquely"
    return ""


def proposed_record_class(shape: Shape) -> str:
    """The class a table's own name proposes for its rows ("spare_parts.csv" -> SparePart, "OrderLines.jsonl" ->
    OrderLine): the user's word for what a record is. "" for records inside a JSON tree (the file names the
    document, not its records) and for names that are no words."""
    if shape.pattern != "$[*]" or shape.n_levels or shape.records[0].parent is not None:
        return ""
    raw = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", file_stem_as_written(shape.file))
    words = re.findall(r"[A-Za-z][A-Za-z0-9]*", raw)
    if not words:
        return ""
    words[-1] = singular(words[-1].lower())
    return safe_name(" ".join(w.lower() for w in words))


def default_levels(shape: Shape, record_class: str) -> list[dict[str, str]]:
    """Grouping levels of a JSON tree are usually categories: HiveCategory / inHiveCategory (records of class Hive)."""
    names = [f"{record_class}Category"] + [f"{record_class}Group{i}" for i in range(2, shape.n_levels + 1)]
    return [{"class": n, "property": "in" + n} for n in names[: shape.n_levels]]


def _used_properties(shape: Shape) -> dict[str, str]:
    """Property name -> the JSON key it maps, for every key of the shape and every field inside its parts."""
    used = {p.property: k for k, p in shape.plans.items()}
    for k, p in shape.plans.items():
        used.update({q.property: f"{k} / {sk}" for sk, q in p.sub.items()})
    return used


def _used_classes(shape: Shape) -> dict[str, str]:
    """Class name -> what it already holds (the values of a key, or the variants of the records)."""
    out = {p.range_class: f"the values of key {k!r}" for k, p in shape.plans.items()
           if p.type == "individual" and p.range_class}
    if part_groups(shape):
        out["Variant"] = "the records' variants"
    return out


def repair_decision(shape: Shape, args: dict[str, Any], mapped: list[Shape] | None = None,
                    id_key: str = "") -> dict[str, Any]:
    """The decision with every problem check_decision finds replaced by the code's proposal."""
    args = dict(args)
    if _other_table(shape, args["record_class"], mapped or []) is not None:
        stem = file_stem(shape.file)
        args["record_class"] = safe_name(singular(stem)) if safe_name(singular(stem)) != args["record_class"] \
            else args["record_class"] + "Record"
    defaults = default_levels(shape, args["record_class"])
    used, taken = _used_properties(shape), _used_classes(shape)
    args["levels"] = [lv if lv["class"] not in (args["record_class"], *taken) and lv["property"] not in used else d
                      for lv, d in zip(args.get("levels", defaults), defaults)]
    if any("name_key" in p for p in check_decision(shape, {**args, "levels": [], "changes": []}, id_key=id_key)):
        args["name_key"] = proposed_name_key(shape, id_key)
    args["changes"] = [ch for ch in args.get("changes", []) if not (
        ch.get("key") == args["name_key"] != "@key" and ch.get("type") == "individual") and not _unparts(shape, ch)]
    return args


def _unparts(shape: Shape, change: dict[str, Any]) -> bool:
    """Does a change turn a key that code reads as parts ("Size S": "weight 1.2 kg; length 40 cm") into another
    type (one text, an individual named by the whole value, skipped)?"""
    plan = shape.plans.get(change.get("key", ""))
    return plan is not None and plan.type == "parts" and change.get("type") not in (None, "parts")


def _other_table(shape: Shape, cls: str, mapped: list[Shape]) -> Shape | None:
    """Another file's shape whose records already have class `cls` and share few keys with `shape` (a
    different table: its records must not be confused with these)."""
    for other in mapped:
        if other.record_class == cls and other.file != shape.file:
            common = set(other.keys) & set(shape.keys)
            if len(common) * 2 < min(len(other.keys), len(shape.keys)) + 1:
                return other
    return None


def check_decision(shape: Shape, args: dict[str, Any], mapped: list[Shape] | None = None,
                   id_key: str = "") -> list[str]:
    """Problems with a mapping decision, each said so that the model can fix it. `mapped`: the shapes mapped
    before this one (a record class of another table is refused). `id_key`: the table's key column, if it has
    one; records then may share a name (two people called the same), since the key tells them apart."""
    problems = []
    cls = args.get("record_class", "")
    other = _other_table(shape, cls, mapped or [])
    if other is not None:
        problems.append(f"record_class {cls} is already the class of the records of {other.file} (keys "
                        f"{', '.join(other.keys[:6])}); the records of {shape.file} are other things and need "
                        "their own class")
    used = _used_properties(shape)
    taken = _used_classes(shape)
    for i, lv in enumerate(args.get("levels", [])):
        if lv["class"] == cls:
            problems.append(f"levels[{i}].class must differ from record_class {cls}: a level groups records "
                            f"(for example {cls}Category), it is not a record itself")
        elif lv["class"] in taken:
            problems.append(f"levels[{i}].class {lv['class']} is already the class of {taken[lv['class']]}; a level "
                            f"groups records into categories (for example {cls}Category)")
        if lv["property"] in used:
            problems.append(f"levels[{i}].property {lv['property']} already maps key {used[lv['property']]!r}; "
                            f"use a new name such as in{lv['class']}")
    key = args.get("name_key", "@key")
    for ch in args.get("changes", []):
        if key != "@key" and ch.get("key") == key and ch.get("type") == "individual":
            problems.append(f"changes: key {key!r} is the name_key, so its values are the records' own names; they "
                            "cannot also be individuals of another class (leave it out of changes)")
    parts = part_groups(shape)
    for ch in args.get("changes", []):
        if _unparts(shape, ch):
            problems.append(f"changes: key {ch['key']!r} is one of the keys whose values code reads field by field "
                            f"as parts of each record ({', '.join(repr(k) for k in parts[:4])}); changing its type "
                            "would keep its fields as one unread text (leave it out of changes)")
    if key != "@key":
        values = [str(r.fields.get(key, "")).strip() for r in shape.records]
        if naming := _naming_problem(shape, key, id_key):
            problems.append(naming)
        elif all(parse_number(v) for v in values) and proposed_name_key(shape, id_key) not in ("@key", key):
            problems.append(f"name_key {key!r} holds numbers; name records by {proposed_name_key(shape, id_key)!r} "
                            "(identifiers stay a property)")
    return problems
