"""Where a text speaks of known things: the individuals it names (by label or alias), the members of a class,
and its sentences (a point inside a number does not end one)."""

from __future__ import annotations

import re
import weakref

from ..ontology.index import EntitiesIndex
from ..ontology.names import normalize


def find_mentions(idx: EntitiesIndex, text: str, limit: int = 12, named: bool = False) -> list[str]:
    """Individuals whose label or alias appears in the text (normalized), longest first; `named`: only those the
    data names (`named_by_data`)."""
    norm = normalize(re.sub(r"[()\[\]]", " ", text))  # names in parentheses count too
    hits = []
    for name, ind in idx.individuals.items():
        if named and not named_by_data(idx, name):
            continue
        forms = {normalize(f) for f in [name, ind.label, *ind.aliases] if f}
        best = max((len(f) for f in forms if len(f) >= 4 and f in norm), default=0)
        if best:
            hits.append((best, name))
    hits.sort(reverse=True)
    return [n for _, n in hits[:limit]]


def named_by_data(idx: EntitiesIndex, name: str) -> bool:
    """Whether an individual is one the data names: a table's or a file's record, or a name the text wrote (a
    capital or a digit), not one the text made of a description ("welder" of "X is a welder", "the crane"). A word
    of another sentence is no mention of a described thing: "the night welder" later is no "welder" made before."""
    ind = idx.individuals[name]
    return "chunk" not in ind.source or any(ch.isupper() or ch.isdigit() for ch in ind.label)


def mention_spans(idx: EntitiesIndex, text: str, names: list[str]) -> list[tuple[int, int, str]]:
    """Where each of the named individuals is mentioned in the text: (start, end, name)."""
    spans = []
    low = text.lower()
    for name in names:
        ind = idx.individuals[name]
        for form in {name, ind.label, *ind.aliases, re.sub(r"(?<=[a-z])(?=[A-Z])", " ", ind.label)}:
            form = form.replace("_", " ").lower()
            if len(form) < 3:
                continue
            for m in re.finditer(r"(?<![a-z0-9])" + re.escape(form) + r"(?![a-z0-9])", low):
                spans.append((m.start(), m.end(), name))
    return sorted(spans)


def sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence; a point inside a number ("0.60") does not end one."""
    out, start = [], 0
    for m in re.finditer(r"[.!?;](?=\s|$)", text):
        out.append((start, m.end()))
        start = m.end()
    if text[start:].strip():
        out.append((start, len(text)))
    return out


def sentence_at(text: str, pos: int) -> str:
    """The sentence of `text` around character `pos`, on one line (the provenance of a fact read from it)."""
    a, b = next(((a, b) for a, b in sentences(text) if a <= pos < b), (0, len(text)))
    return " ".join(text[a:b].split())



def members(idx: EntitiesIndex, cls: str) -> list[str]:
    """Individuals of a class or of any of its subclasses (asserted)."""
    kinds = {cls}
    while True:
        more = {c for c, d in idx.classes.items() if set(d.superclasses) & kinds} - kinds
        if not more:
            break
        kinds |= more
    return [n for n, ind in idx.individuals.items() if kinds & set(ind.classes)]


# the last index read: (a reference to it, its size then, category value -> members)
_CATEGORIES: list[tuple[weakref.ref, int, dict[str, list[str]]]] = []


def of_category(idx: EntitiesIndex, kind_label: str) -> list[str]:
    """The records a table's category column puts in a kind the tables have no class for ("vans" where a vehicle's
    category is "Van", "cargo bikes" for "Cargo bike"): the individuals of the data (not of the text) with a
    short text value equal to the kind's words, in the singular. [] when none has. Read once per index and size
    (the same index object, never another one at a reused address)."""
    if not _CATEGORIES or _CATEGORIES[0][0]() is not idx or _CATEGORIES[0][1] != len(idx.individuals):
        found: dict[str, list[str]] = {}
        for name, ind in idx.individuals.items():
            if "chunk" in ind.source:
                continue
            for f in ind.facts:
                value = f.literal
                if isinstance(value, str) and f.datatype in ("", "xsd:string") and \
                        0 < len(value.split()) <= 3 and not any(ch.isdigit() for ch in value):
                    found.setdefault(normalize(value), []).append(name)
        _CATEGORIES[:] = [(weakref.ref(idx), len(idx.individuals), found)]
    return list(dict.fromkeys(_CATEGORIES[0][2].get(normalize(kind_label), []))) if kind_label else []
