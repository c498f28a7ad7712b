"""Numbers in free text: every number with its unit (units.py) and the words around it, and a property name
proposed for it from the unit and its context, for the model to keep or change (textfacts.py assigns them)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .names import safe_name, similarity, singular
from .numbers import read_number
from .units import PREFIX_CURRENCY, SUFFIX_FORMS, currency, property_suffix, unit as unit_of

# words ending in "s" that are not plural nouns, so not what a number counts ("in 2020 this was ...")
_NOT_COUNTED = ("is|was|has|as|us|its|this|thus|plus|always|perhaps|whereas|across|besides|sometimes|towards|"
                "less|unless|yes|does|goes|news|series|species|versus|various|previous")
# what a number counts: a plural noun ("90 seats", "3 rooms") or a word joined by a hyphen ("3-level")
_COUNTED = rf"(?!(?:{_NOT_COUNTED})\b)[a-z]{{2,}}[a-rt-z]s|(?<=-)[a-z]{{3,}}"
_NUM = re.compile(
    rf"(?P<cur>(?:{PREFIX_CURRENCY})\s?)?(?<![A-Za-z0-9.,])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)(?![0-9])"
    rf"(?:[\s-]?(?P<unit>{SUFFIX_FORMS}|{_COUNTED})(?![A-Za-z0-9²³]))?(?(unit)|(?![A-Za-z]))"
)
# unit symbols that are also words of running text: a unit only when no word follows ("12 in." but "12 in the")
_WORDLIKE = {"in", "A", "s", "l", "L", "J", "mi", "ha", "kr"}
_RATE_GAP = re.compile(r"\s*(?:per|/|for every|for each)\s*", re.I)
# "per day", "/ order", "per the month", "per linear meter" (a second word only when it is a unit)
_PER = re.compile(rf"(?:\s+per\s+|\s*/\s*)(?:(?:the|each|an?)\s+)?((?:{SUFFIX_FORMS})(?![A-Za-z0-9²³])|[a-z]{{2,}})"
                  r"(?:\s+([a-z]+))?")
# "ships in boxes of 4", "sold in packs of 6": how many units one package holds
_PACK = re.compile(r"\b(?:in|into|on|by)\s+([a-z]{3,}s)\s+of\s+$", re.I)
# what a weight is of: "each crate weighing", "a case of X Y weighs", "Crates, each weighing", "crate weight"
_WEIGHED = re.compile(r"\b(?:(?:[Ee]ach|[Ee]very|[Aa]n?|[Oo]ne|[Pp]er)\s+([a-z]{3,})(?:\s+of(?:\s+[A-Z][\w-]*)+)?,?"
                      r"\s+weigh(?:s|ing)?|([A-Za-z][a-z]{2,}),\s+each\s+weigh(?:s|ing)?|([a-z]{3,})\s+weight)\b")
# words of a sentence that give a quantity without naming it
_HEDGE = {"average", "estimated", "approximate", "approximately", "about", "around", "roughly", "nearly", "over",
          "under", "only", "up", "to", "typical", "mean", "of", "is", "are", "was", "were", "at", "a", "an", "the",
          "its", "their", "with", "and", "for", "on", "be", "can", "total", "overall", "current", "has", "have", "had"}
# nouns that name a quantity, whatever the domain: "the charging time is", "a fee of", "the seating capacity is"
QUANTITY_NOUNS = {"time", "period", "duration", "cycle", "cost", "price", "fee", "charge", "rate", "weight", "mass",
                  "capacity", "density", "length", "width", "height", "depth", "area", "size", "volume", "speed",
                  "temperature", "distance", "power", "voltage", "amount", "count", "number", "total", "value",
                  "share", "budget", "salary", "revenue", "score", "age", "range", "load", "consumption", "output"}
_QUANTITY_VERB = re.compile(r"\b(?:is|are|was|were|of|averaging|:)\s+(?:(?:about|around|approximately|roughly|"
                            r"nearly|over|under|up to|only|on average|an average of)\s+)*$")


@dataclass
class NumberMention:
    id: str
    value: str  # lexical
    datatype: str  # xsd:integer | xsd:decimal
    unit: str
    context: str
    start: int = 0
    end: int = 0
    before: str = ""  # the words just before the number
    joined: bool = False  # written "2-TB": a measure of the noun phrase that follows ("three 2-TB disks")
    base_of: NumberMention | None = None  # the reference quantity of a rate: 50 m² in "10 tons per 50 m²"

    def suggestion(self) -> str:
        """A property name proposed from the words that name the quantity ("the charging time is 3 hours" ->
        chargingTimeHours), else from what is weighed ("each crate weighing 14 kg" -> crateWeightKg), else from
        the unit alone (kg -> weightKg, € -> costEur, "90 seats" -> seats); a rate says what it is per."""
        base, *per = self.unit.split(" per ")
        per = [p for p in per if not p[:1].isdigit()]  # "tons per 50 m²": the base is a fact of its own
        by_unit = _named_by_unit(base.strip()) or (safe_name(base, lower_first=True) if base.strip() else "value")
        named = _quantity_words(self.before)
        weighed = _WEIGHED.findall(self.before)
        if named and not _PACK.search(self.before):
            name = named + (_unit_suffix(base.strip()) if base.strip() and base != "count" else "")
        elif weighed and by_unit.startswith("weight"):
            name = singular(next(w for w in weighed[-1] if w)).lower() + "W" + by_unit[1:]
        else:
            name = by_unit
        return name + "".join("Per" + safe_name(p) for p in per)


def _quantity_words(before: str) -> str:
    """The words that name a quantity right before its number, in lowerCamelCase: "The average charging time is"
    -> chargingTime; "" when there are none ("covers approximately")."""
    if not _QUANTITY_VERB.search(before):
        return ""
    head = _QUANTITY_VERB.sub("", before)
    head = re.split(r"[,;:()]", head)[-1]
    words = re.findall(r"[A-Za-z]+", head)
    words = [w for w in words[-3:] if w.islower() and w not in _HEDGE and not w.endswith(("ly", "ed"))]
    if not words or singular(words[-1]) not in QUANTITY_NOUNS:
        return ""
    return safe_name(" ".join(words[-2:]), lower_first=True)


def _unit_suffix(written: str) -> str:
    """The unit part of a property name: a spelled-out word as written (Days, Tons), a symbol canonical (Kg)."""
    code = currency(written)
    if code and not written.islower():
        return property_suffix(code)
    found = unit_of(written)
    if found and written.isalpha() and len(written) > 2 and re.search("[aeiouAEIOU]", written):
        return property_suffix(written)
    return property_suffix(found[1]) if found else safe_name(written)


_DIMENSION_WORD = {"mass": "weight", "length": "length", "area": "area", "volume": "volume", "power": "power",
                   "energy": "energy", "electric charge": "capacity", "voltage": "voltage", "current": "current",
                   "temperature": "temperature", "ratio": "percent", "data": "size", "frequency": "frequency",
                   "speed": "speed", "time": "duration", "count": "count"}


def _named_by_unit(written: str) -> str:
    """A property name from a unit alone: USD -> costUsd, lb -> weightLb, mAh -> capacityMah."""
    if currency(written) and not written.islower():
        return "cost" + property_suffix(currency(written))
    found = unit_of(written)
    if found is None:
        return ""
    word = _DIMENSION_WORD.get(found[0], "value")
    return word if word == "percent" else word + _unit_suffix(written)


def _pers(text: str, pos: int) -> tuple[list[str], int]:
    """What a quantity is per, read from `pos`: "per day per seat" -> ["day", "seat"]; and where it ends."""
    out = []
    while (m := _PER.match(text, pos)) and m.group(1).lower() not in _HEDGE | {"cent", "se"}:
        word, pos = m.group(1), m.end(1)
        if m.group(2) and unit_of(m.group(2)):  # "per linear meter"
            word, pos = f"{word} {m.group(2)}", m.end(2)
        out.append(word)
    return out, pos


def find_numbers(text: str) -> list[NumberMention]:
    out: list[NumberMention] = []
    prev_end = -1
    for m in _NUM.finditer(text):
        num = m.group("num")
        raw, kind = read_number(num) or (num, "integer")  # 0,80 -> 0.80; 1,400 -> 1400
        unit = m.group("unit") or ""
        if unit in _WORDLIKE and re.match(r"\s+[A-Za-z]", text[m.end("unit"):]):
            unit = ""
        if unit and not unit_of(unit) and not currency(unit) and re.fullmatch(r"1[89]\d\d|2[01]\d\d", raw):
            unit = ""  # "in 2024 sales grew": a year, not a count of sales
        cur = (m.group("cur") or "").strip()
        if cur:
            unit = currency(cur) or cur
        elif currency(unit) and not unit.islower():
            unit = currency(unit)
        pers, end = _pers(text, m.end())
        if text[m.end():m.end() + 9].lower() == " per cent":
            unit, end = "%", m.end() + 9
        pack = _PACK.search(text, max(0, m.start() - 30), m.start())
        if pack and not unit_of(unit) and not currency(unit):  # "in boxes of 4": how many items a package holds
            unit = f"{unit or 'units'} per {singular(pack.group(1).lower())}"
        elif pers:
            unit = (unit or "count") + "".join(f" per {p}" for p in pers)
        start, stop = max(0, m.start() - 60), min(len(text), end + 40)
        context = " ".join(text[start:stop].split())
        dtype = f"xsd:{kind}"
        # "20-25 days", "between 700 and 1,400 kg": the first number takes the unit of the second
        ranged = bool(out) and re.fullmatch(r"\s*(-|–|to|and)\s*", text[prev_end:m.start()]) is not None
        if ranged and not out[-1].unit and unit:
            out[-1].unit = unit
        out.append(NumberMention(f"n{len(out) + 1}", raw, dtype, unit, context, m.start("num"), end,
                                 out[-1].before if ranged else  # "the time is 20-25 days": both
                                 re.split(r"[.;!?]\s", text[max(0, m.start() - 45):m.start()])[-1],
                                 joined=bool(m.group("unit")) and text[m.end("num"):m.start("unit")] == "-"))
        # "10 tons per 50 m²", "250 kcal / 100 g": the second number is the reference quantity of the first
        if len(out) > 1 and out[-2].unit and not cur and _RATE_GAP.fullmatch(text[out[-2].end:m.start()]):
            out[-1].base_of = out[-2]
            out[-2].unit = f"{out[-2].unit} per {raw}{' ' + unit if unit else ''}"
        prev_end = m.end("num")
    return out


def outside_names(numbers: list[NumberMention], spans: list[tuple[int, int, str]]) -> list[NumberMention]:
    """Numbers that are not part of a known name ("Galaxy 22"), renumbered."""
    kept = [n for n in numbers if not any(a <= n.start < b for a, b, _ in spans)]
    for i, n in enumerate(kept):
        n.id = f"n{i + 1}"
    return kept


def match_number(numbers: list[NumberMention], value: str, prop: str, taken: set[str]) -> NumberMention | None:
    """The not yet used mention of `value`; among equal values, the one whose suggested property fits best."""
    try:
        wanted = float(value.replace(",", ""))
    except ValueError:
        return None
    same = [n for n in numbers if n.id not in taken and float(n.value) == wanted]
    if not same:
        return None
    return max(same, key=lambda n: (similarity(prop, n.suggestion()), -numbers.index(n)))
