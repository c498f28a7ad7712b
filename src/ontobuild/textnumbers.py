"""Numbers in free text: every number with its unit (units.py) and the words around it, and a property name
proposed for it from the unit and its context, for the model to keep or change (textfacts.py assigns them)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .names import safe_name, similarity
from .numbers import read_number
from .units import PREFIX_CURRENCY, SUFFIX_FORMS, currency, property_suffix, unit as unit_of

_COUNTS = r"pieces?|pcs|pallets?|levels?|boxes|box|units?"  # counted things, kept as written
_NUM = re.compile(
    rf"(?P<cur>(?:{PREFIX_CURRENCY})\s?)?(?<![A-Za-z0-9.,])"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)(?![0-9])"
    rf"(?:[\s-]?(?P<unit>{SUFFIX_FORMS}|{_COUNTS})(?![A-Za-z0-9²³]))?(?(unit)|(?![A-Za-z]))"
    r"(?P<per>(?:\s(?:per|/)\s?(?:the\s)?[a-z]+){0,3})"
)
# unit symbols that are also words of running text: a unit only when no word follows ("12 in." but "12 in the")
_WORDLIKE = {"in", "A", "s", "l", "L", "J", "mi", "ha", "kr"}
_RATE_GAP = re.compile(r"\s*(?:per|/|for every|for each)\s*", re.I)
_PER = re.compile(r"\s(?:per|/)\s?(?:the\s)?(day|pallet|block|piece|element|trip|box|carton|crate|shelf|unit|meter|m²|month|year|order)\b")


_PACKAGES = "box|carton|crate|pack|package|case|bag|pallet|set"  # things that hold a number of units
_PACK = re.compile(rf"\b({_PACKAGES})(?:es|s)?\s+of\s+$", re.I)  # "in boxes of 4"
_LAST_PACK = re.compile(rf"\b({_PACKAGES})(?:es|s)?\b(?!.*\b(?:{_PACKAGES}))", re.I)  # "a carton of X weighs"
_BASE = {"m²": "areaM2", "m2": "areaM2", "sqm": "areaM2", "m³": "volumeM3", "kg": "weightKg", "ton": "weightTons",
         "tons": "weightTons", "t": "weightTons", "eur": "costEur", "day": "days", "days": "days", "%": "percent",
         "minutes": "minutes", "hours": "hours", "h": "hours", "pieces": "pieces", "piece": "pieces", "pcs": "pieces",
         "pallets": "pallets", "pallet": "pallets", "level": "levels", "levels": "levels", "cm": "lengthCm",
         "mm": "lengthMm", "m": "lengthM", "km": "distanceKm", "years": "years", "months": "months", "weeks": "weeks",
         "box": "boxes", "boxes": "boxes", "units": "units", "count": "count", "°c": "temperatureC",
         "°f": "temperatureF"}


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
    joined: bool = False  # written "10-ton": a measure of the noun phrase that follows ("10-ton cranes")
    base_of: NumberMention | None = None  # the reference quantity of a rate: 50 m² in "10 tons per 50 m²"

    def suggestion(self) -> str:
        """A property name proposed from the unit and context, for the model to keep or change."""
        base, *per = self.unit.lower().split(" per ")
        per = [p for p in per if not p[:1].isdigit()]  # "tons per 50 m²": the base is a fact of its own
        name = _BASE.get(base.strip()) or _named_by_unit(self.unit.split(" per ")[0].strip()) or \
            (safe_name(base, lower_first=True) if base.strip() else "value")
        pack = _LAST_PACK.search(self.before)
        if pack and name == "weightKg":  # "each box weighing about 11 kg" is the box's weight
            name = pack.group(1).lower() + "WeightKg"
        if re.search(r"\b(stor(ed|age|ing)|stays?|in stock|kept)\b", self.context.lower()) and name in ("days", "costEur"):
            name = "storage" + name[0].upper() + name[1:]
        return name + "".join("Per" + p.strip().capitalize() for p in per)


_DIMENSION_WORD = {"mass": "weight", "length": "length", "area": "area", "volume": "volume", "power": "power",
                   "energy": "energy", "electric charge": "capacity", "voltage": "voltage", "current": "current",
                   "temperature": "temperature", "ratio": "percent", "data": "size", "frequency": "frequency",
                   "speed": "speed", "time": "duration"}


def _named_by_unit(written: str) -> str:
    """A property name from a unit alone: USD -> costUsd, lb -> weightLb, mAh -> capacityMah."""
    if currency(written) and not written.islower():
        return "cost" + property_suffix(currency(written))
    found = unit_of(written)
    if found is None:
        return ""
    word = _DIMENSION_WORD.get(found[0], "value")
    return word if word == "percent" else word + property_suffix(found[1])


def find_numbers(text: str) -> list[NumberMention]:
    out: list[NumberMention] = []
    prev_end = -1
    for m in _NUM.finditer(text):
        num = m.group("num")
        raw = (read_number(num) or (num, ""))[0]  # 0,80 -> 0.80; 1,400 -> 1400
        unit = m.group("unit") or ""
        if unit in _WORDLIKE and re.match(r"\s+[A-Za-z]", text[m.end("unit"):]):
            unit = ""
        cur = (m.group("cur") or "").strip()
        if cur:
            unit = currency(cur) or cur
        elif currency(unit) and not unit.islower():
            unit = currency(unit)
        pers = _PER.findall(m.group("per") or "")
        pack = _PACK.search(text, max(0, m.start() - 30), m.start())
        if pack and not unit:  # "ships in boxes of 4": how many items one package holds
            unit = f"units per {pack.group(1).lower()}"
        elif pers:
            unit = (unit or "count") + "".join(f" per {p}" for p in pers)
        start, end = max(0, m.start() - 60), min(len(text), m.end() + 40)
        context = " ".join(text[start:end].split())
        dtype = "xsd:decimal" if "." in raw else "xsd:integer"
        # "20-25 days", "between 700 and 1,400 kg": the first number takes the unit of the second
        if out and not out[-1].unit and unit and re.fullmatch(r"\s*(-|–|to|and)\s*", text[prev_end:m.start()]):
            out[-1].unit = unit
        out.append(NumberMention(f"n{len(out) + 1}", raw, dtype, unit, context, m.start("num"), m.end(),
                                 re.split(r"[.;!?]\s", text[max(0, m.start() - 45):m.start()])[-1],
                                 joined=bool(m.group("unit")) and text[m.end("num"):m.start("unit")] == "-"))
        # "10 tons per 50 m²", "250 kcal / 100 g": the second number is the reference quantity of the first
        if len(out) > 1 and out[-2].unit and not cur and _RATE_GAP.fullmatch(text[out[-2].end:m.start()]):
            out[-1].base_of = out[-2]
            out[-2].unit = f"{out[-2].unit} per {raw}{' ' + unit if unit else ''}"
        prev_end = m.end("num")
    return out


def outside_names(numbers: list[NumberMention], spans: list[tuple[int, int, str]]) -> list[NumberMention]:
    """Numbers that are not part of a known name ("TrailBlazer 29"), renumbered."""
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
