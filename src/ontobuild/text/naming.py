"""Names from a rule, never written freely by the model: the property a value may be stored under (what it measures,
from the words of its sentence, and its unit: "capacityPallets", "storageTimeDays", "volumeMl"), the relation a
link may be (the sentence's own verb and preposition: "writtenBy", "goesInto"), and the class a thing's head noun
names ("Bag"). Every word of a name is a whole word: a word of the sentence, an English word of the tagger's
lexicon, or a unit (`whole_words`); a name that fails is not offered."""

from __future__ import annotations

import re

from ontocore.text import singular
from ..values.units import ISO_CODES, unit as unit_of

from .concepts import GENERIC, candidates, concept_problem, propose, unit_suffix, with_unit
from ..ontology.index import EntitiesIndex
from .quantities import Quantity
from ..ontology.names import safe_name
from .tagging import known_word
from .measures import MEASURE_NOUNS
from .reading import Reading, Value

# words of a measure's phrase that qualify the value, not what it measures ("the average storage time")
_HEDGES = {"average", "estimated", "approximate", "typical", "mean", "overall", "current", "usual", "actual",
           "maximum", "minimum", "max", "min", "total", "nominal", "expected", "normal", "standard", "approximately"}
# a value's kind, when no word of the sentence names what it measures
_KIND_WORD = {"mass": "weight", "length": "length", "area": "area", "volume": "volume", "power": "power",
              "energy": "energy", "electric charge": "charge", "voltage": "voltage", "current": "current",
              "temperature": "temperature", "ratio": "share", "data": "size", "frequency": "frequency",
              "speed": "speed", "time": "duration", "money": "price", "pressure": "pressure", "rotation": "speed",
              "flow": "flowRate", "concentration": "concentration", "turbidity": "turbidity",
              "sound level": "soundLevel", "illuminance": "illuminance", "luminous flux": "luminousFlux",
              "torque": "torque", "data rate": "dataRate", "time of day": "time", "date": "date",
              "angular speed": "angularSpeed"}


def name_words(name: str) -> list[str]:
    return re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", name)


def whole_words(name: str, sentence: str) -> bool:
    """Every word of a name is whole: it is written in the sentence, or an English word, or a unit (a currency's
    code and Pct for % too: costEur, minChargeLevelPct), or a number."""
    said = {w.lower() for w in re.findall(r"[A-Za-z]+", sentence)}
    for w in name_words(name):
        low = w.lower()
        if w.isdigit() or len(w) <= 2 or low in said or singular(low) in said or unit_of(w) or unit_of(low) or \
                w.isupper() or w.upper() in ISO_CODES or low == "pct":
            continue
        if known_word(low) or known_word(singular(low)) or any(known_word(low[:-len(s)]) for s in ("s", "es")
                                                              if low.endswith(s)):
            continue
        return False
    return True


def measure_words(value: Value) -> str:
    """What the sentence says the value measures, as lowerCamelCase words ("average storage time" -> storageTime)."""
    words = [w for w in re.findall(r"[A-Za-z]+", value.measure) if w.lower() not in _HEDGES]
    if not words:
        return ""
    return safe_name(" ".join(words[:-1] + [singular(words[-1])]), lower_first=True)


def value_names(idx: EntitiesIndex, value: Value, reading: Reading, packages: set[str], limit: int = 4
                ) -> list[str]:
    """The property names a value may be stored under, best first: the measure the sentence names; code's proposal
    from the words around it; the existing properties of the same kind, unit and bound (one property per concept
    across the dataset, a table column's too); the value's kind with its unit. Each is checked (its words whole, its
    nouns of the value's dimension)."""
    q = value.quantity
    out: list[str] = []
    said = measure_words(value)
    if said:
        out.append(with_unit(said, q, packages))
    opening = next(iter(re.findall(r"[A-Za-z]+", reading.text)), "")
    proposal = propose(q, packages, opening)
    if q.dimension == "count" and proposal.words in ("", "count") and q.unit not in ("", "unit"):
        out.append(counted_name(q, packages))  # "at least 2 sheets": minSheets
    elif not proposal.generic or not out:
        out.append(proposal.name)
    out += candidates(idx, q, out[0] if out else proposal.name, packages)
    kind = _KIND_WORD.get(q.dimension, "")
    if kind:
        out.append(with_unit(kind, q, packages))
    elif q.dimension == "count" and q.unit not in ("", "unit"):
        out.append(counted_name(q, packages))
    seen: list[str] = []
    for name in out:
        if not name or name in seen or concept_problem(name, q):
            continue
        if name not in idx.properties and not whole_words(name, reading.text):
            continue
        seen.append(name)
    return seen[:limit]


def without_holder(name: str, reading: Reading, holder: str, unit: str = "") -> str:
    """A value's name without the holder's own noun at its start: "each crate of cement bags weighs 1.2 t" on the
    crate is its weightT, not crateWeightT or bagsWeightT (the holder's head or a noun inside its phrase); "a
    repair of the X costs 90 EUR" on X, or "an X repair costs 90 EUR" (a known X inside the repair's phrase), keeps
    repairCostEur (the repair is not X). A name left with its unit only ("capacityCrates" -> crates, a thing read
    from the measure word "capacity") keeps its words."""
    words = name_words(name)
    heads = {singular(t.head.lower()) for t in reading.things if t.id == holder and not t.individuals or
             t.owner == holder}
    if len(words) < 2 or singular(words[0].lower()) not in heads:
        return name
    rest = safe_name(" ".join(words[1:]), lower_first=True)
    only_unit = bool(unit) and rest.lower() in (unit.lower(), "min" + unit.lower(), "max" + unit.lower())
    return name if only_unit else rest


def counted_name(q: Quantity, packages: set[str]) -> str:
    """A count named by what it counts, with its bound: "2 sheets" -> sheets, "at least 2 sheets" -> minSheets."""
    suffix = unit_suffix(q, packages)
    name = suffix[0].lower() + suffix[1:] if suffix else "count"
    prefix = q.bound or q.range_role
    return prefix + name[0].upper() + name[1:] if prefix else name


def generic_name(name: str) -> bool:
    """A name that says only the value's kind ("price", "durationDays"), not what it is."""
    words = [w.lower() for w in name_words(name) if w.lower() not in ("min", "max")]
    return bool(words) and words[0] in GENERIC


def relation_name(verb: str, prep: str) -> str:
    """A link's name from the sentence's own words: the verb as written and its preposition ("is written" + "by" ->
    writtenBy, "goes" + "into" -> goesInto, "serves" + "as" -> servesAs); auxiliaries are left out."""
    words = [w for w in verb.split() if w.lower() not in ("is", "are", "was", "were", "be", "been", "being", "has",
                                                          "have", "had", "will", "would", "can", "could", "may",
                                                          "might", "must", "shall", "should", "do", "does", "did",
                                                          "not", "also", "first", "then", "only")]
    if not words and verb.split():
        words = verb.split()[-1:]
    return safe_name(" ".join(words + ([prep] if prep else [])), lower_first=True) if words else ""


_PREPOSITION_NAMES = {"of": "partOf", "in": "locatedIn", "inside": "locatedIn", "within": "locatedIn",
                      "at": "locatedAt", "on": "locatedOn", "near": "locatedNear", "behind": "locatedBehind",
                      "beside": "locatedBeside", "under": "locatedUnder", "for": "usedFor", "with": "has",
                      "from": "comesFrom", "by": "by", "to": "goesTo"}


def modifier_name(prep: str) -> str:
    """A link between a thing and a name inside its phrase, from the preposition ("the shelf of the cabinet" ->
    partOf, "the safe at the gate" -> locatedAt, "cartridges for the printer" -> usedFor)."""
    return _PREPOSITION_NAMES.get(prep.lower(), safe_name(prep, lower_first=True) if prep else "")


def is_measure(head: str) -> bool:
    return singular(head.lower()) in MEASURE_NOUNS
