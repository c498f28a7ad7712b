"""Names: safe OWL local names from any text, and mention normalization for entity linking."""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Callable

from ontocore.text import LINK_WORDS as _STOP
from ontocore.text import ascii_fold, name_tokens
from ..values.units import currency, unit

_WORD = re.compile(r"[A-Za-z0-9]+")
_PAREN = re.compile(r"\([^)]*\)")


def safe_name(text: str, *, lower_first: bool = False) -> str:
    """A stable OWL local name for `text`: ASCII letters, digits and '_', never starting with a digit.

    Words are joined in CamelCase; an underscore separates two words whose junction would otherwise
    glue letters or digits into something unreadable ("HIVE BX4" -> "HIVE_BX4")."""
    words = _WORD.findall(ascii_fold(text))
    if not words:
        return "_unnamed"
    out = ""
    for w in words:
        piece = w if w[0].isdigit() or w.isupper() or not w[0].isalpha() else w[0].upper() + w[1:]
        acronym = len(piece) > 1 and piece.isupper()
        if out and (acronym or (out[-1].isdigit() or out[-1].isupper()) and (piece[0].isdigit() or piece[0].isupper())):
            out += "_"
        out += piece
    if lower_first and out[0].isupper() and not (len(out) > 1 and out[1].isupper()):
        out = out[0].lower() + out[1:]
    if out[0].isdigit():
        out = "_" + out
    return out


def thing_name(label: str, cls: str) -> str:
    """The name of an individual of class `cls` called `label`: safe_name(label), or, when the label has no letter (a
    number or a code of digits: "1", "2024-05"), the class's name joined to it ("Person_1"): a bare `_1` says nothing
    of what it is, and a person and an event both numbered 1 would take the same name."""
    name = safe_name(label)
    if cls and not re.search(r"[A-Za-z]", ascii_fold(label)):
        return cls + (name if name.startswith("_") else "_" + name)
    return name


def unique_name(name: str, taken: Callable[[str], bool]) -> str:
    """`name`, or name_2, name_3, ... the first that `taken` does not claim (two things never share a name)."""
    n, candidate = 2, name
    while taken(candidate):
        candidate = f"{name}_{n}"
        n += 1
    return candidate


def normalize(text: str) -> str:
    """Case-, spacing-, punctuation- and unit-insensitive key of a mention ("Orion (kg)" ~ "Orion"; units
    after a number are dropped, never a name's own letters)."""
    text = ascii_fold(text)
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", text)  # split camelCase
    tokens = [t.lower() for t in _WORD.findall(_PAREN.sub(" ", text))]
    # a unit word goes only after a number ("12 kg"): "Model T" and "Grade B" keep their letter
    kept = [t for i, t in enumerate(tokens) if t not in _STOP and
            not (i > 0 and tokens[i - 1].isdigit() and (t == "per" or unit(t) or currency(t)))]
    return "".join(kept or tokens)


def similarity(mention: str, candidate: str) -> float:
    """A score in [0, 1]: 1.0 for the same normalized form, high when one contains the other."""
    a, b = normalize(mention), normalize(candidate)
    if not a or not b:
        return 0.0
    if a == b:
        return 1.0
    if a in b or b in a:
        return 0.7 + 0.25 * min(len(a), len(b)) / max(len(a), len(b))
    ta, tb = name_tokens(mention), name_tokens(candidate)
    jacc = len(ta & tb) / len(ta | tb) if ta and tb else 0.0
    return max(0.6 * jacc, 0.6 * SequenceMatcher(None, a, b).ratio())


def participle_noun(participle: str) -> str:
    """The verb of a regular participle, as a noun for a property name: serviced -> service, staffed -> staff,
    planned -> plan, stored -> store."""
    stem = participle[:-2]
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] in "bdgmnpt":
        return stem[:-1]
    if stem[-1:] in ("c", "v", "z", "g", "s") and not stem.endswith(("ss", "ng")) or \
            re.search(r"(?:^|[^aeiou])[aeiou][^aeiouwxy]$", stem) and len(stem) <= 5:
        return stem + "e"
    return stem


def name_bound(name: str) -> str:
    """"min" or "max" when a property's name says it is a lower or an upper bound (minX, xStart, xFrom / maxX,
    xEnd, xUntil), else ""."""
    if name.startswith("min") and name[3:4].isupper() or re.search(r"[a-z](?:Start|From)$", name):
        return "min"
    if name.startswith("max") and name[3:4].isupper() or re.search(r"[a-z](?:End|Until)$", name):
        return "max"
    return ""
