"""What a quantity means, as a property: its concept words, dimension, unit, what it is per and its bound
("maxTemperatureC", "storageCostEurPerPackagePerDay"). Code proposes the name from the words around the
number; the model may choose a better concept among the existing properties of the same signature or name a
new one; code refuses a name whose words contradict the value's dimension (a cost is never a duration) and
reuses one property per concept across the whole dataset (`resolve`, `synonym_groups`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ontocore.text import name_tokens, singular
from ..values.units import property_suffix

from ..ontology.index import EntitiesIndex
from ..ontology.names import name_bound, participle_noun, safe_name
from .quantities import Quantity

# nouns that name a quantity, whatever the domain
QUANTITY_NOUNS = {"time", "period", "duration", "cycle", "cost", "price", "fee", "charge", "rate", "weight", "mass",
                  "capacity", "density", "length", "width", "height", "depth", "area", "size", "volume", "speed",
                  "temperature", "distance", "power", "voltage", "amount", "count", "number", "total", "value",
                  "share", "budget", "salary", "revenue", "score", "age", "range", "load", "consumption", "output",
                  "pressure", "level", "frequency", "limit", "threshold", "life", "lifetime", "span", "interval",
                  "delay", "wait", "stock", "throughput", "yield", "humidity", "dose", "concentration", "fare",
                  "toll", "tariff", "surcharge", "deposit", "discount", "quantity", "stay", "term", "window",
                  "efficiency", "head", "flow", "elevation", "altitude", "thickness", "diameter", "radius",
                  "strength", "intensity", "draught", "draft", "payload", "rating", "turbidity", "ph", "dosage",
                  "runtime", "lifespan", "range", "reach", "span", "gauge", "resolution", "brightness",
                  "precipitation", "rainfall", "snowfall", "salinity", "acidity", "moisture", "demand", "usage",
                  "intake", "uptake", "discharge", "emission", "production", "attendance", "turnover"}
# what a noun of a property name can measure: "cost" is money, never time
NOUN_DIMENSIONS: dict[str, set[str]] = {
    "cost": {"money"}, "price": {"money"}, "fee": {"money"}, "fare": {"money"}, "toll": {"money"},
    "tariff": {"money"}, "surcharge": {"money"}, "deposit": {"money"}, "salary": {"money"}, "budget": {"money"},
    "revenue": {"money"}, "value": {"money", "ratio", "count", "unknown"},
    "weight": {"mass"}, "mass": {"mass"}, "time": {"time", "time of day"}, "duration": {"time"}, "period": {"time"},
    "delay": {"time"}, "interval": {"time"}, "lifetime": {"time"}, "life": {"time"}, "age": {"time"},
    "speed": {"speed", "rotation", "angular speed"},
    "temperature": {"temperature"}, "area": {"area"}, "surface": {"area"}, "length": {"length"},
    "width": {"length"}, "height": {"length"}, "depth": {"length"}, "distance": {"length"},
    "volume": {"volume"}, "pressure": {"pressure"}, "power": {"power"},
    "voltage": {"voltage"}, "opening": {"time of day"}, "closing": {"time of day"}, "date": {"date"},
}
# a property's default concept word by dimension, when the text names none
_DIMENSION_WORD = {"mass": "weight", "length": "length", "area": "area", "volume": "volume", "power": "power",
                   "energy": "energy", "electric charge": "capacity", "voltage": "voltage", "current": "current",
                   "temperature": "temperature", "ratio": "share", "data": "size", "frequency": "frequency",
                   "speed": "speed", "time": "duration", "money": "price", "pressure": "pressure",
                   "rotation": "speed", "flow": "flowRate", "concentration": "concentration",
                   "turbidity": "turbidity", "sound level": "soundLevel", "illuminance": "illuminance",
                   "luminous flux": "luminousFlux", "torque": "torque", "data rate": "dataRate",
                   "time of day": "time", "date": "date"}
_TIME_WORDS = {"day": "Days", "working day": "WorkingDays", "week": "Weeks", "month": "Months", "year": "Years",
               "h": "Hours", "min": "Minutes", "s": "Seconds", "ms": "Milliseconds"}
GENERIC = {"price", "duration", "share", "value", "count", "number", "amount", "quantity", "time", "date"}
_QUANTITY_NP = re.compile(r"((?:[A-Za-z]+\s+){0,2}[A-Za-z]+)\s+(?:is|are|was|were|of|:|averages?|reaches?|"
                          r"stands at|amounts to|between|from|rises above|falls below|exceeds|drops below)\s+(?:(?:about|around|approximately|roughly|nearly|up to|only|"
                          r"on average|an average of|at least|at most|below|above|under|over)\s+)*$")
_VERB_CONCEPT = {"weigh": "weight", "weighs": "weight", "weighing": "weight", "weighed": "weight",
                 "cost": "cost", "costs": "cost", "costing": "cost", "covers": "area", "measures": "size",
                 "lasts": "duration", "takes": "duration"}
_HEDGES = {"average", "estimated", "approximate", "typical", "mean", "total", "overall", "current", "usual",
           "its", "their", "the", "a", "an", "at", "of", "with", "and", "for", "has", "have", "had", "is", "are",
           "was", "were", "be", "gets", "offers"}


_MODALS = {"must", "should", "shall", "will", "would", "can", "could", "may", "might", "to", "does", "do", "did"}
# words next to a number that never name what it measures
_NOT_CONCEPT = {"per", "with", "and", "or", "before", "after", "during", "each", "every", "when", "while", "until",
                "since", "than", "then", "from", "into", "onto", "over", "under", "which", "that", "this", "also",
                "only", "just", "more", "less", "must", "should", "will", "can", "may"}


@dataclass
class Concept:
    """A proposed property for a quantity."""
    words: str  # the concept in lowerCamelCase, without unit and bound: "storageCost"
    name: str  # the full property name: "storageCostEurPerPackagePerDay"
    generic: bool  # code found no words naming it (only the dimension's default)


def unit_suffix(q: Quantity, packages: set[str]) -> str:
    """The unit part of a property name: "EurPerPackagePerWeek", "Kayaks", "C" (°C)."""
    if q.dimension in ("date", "time of day") or q.package or q.dimension == "count" and q.per and q.per[-1] in packages:
        return ""
    if q.dimension == "time" and q.unit in _TIME_WORDS and not q.per:
        return _TIME_WORDS[q.unit]
    if q.dimension == "count":
        base = "" if q.package or q.unit in ("unit", "") else safe_name(q.unit + "s")
    else:
        base = property_suffix(q.unit) if q.unit else ""
    pers = ["Package" if p in packages else safe_name(p) for p in q.per]
    return base + "".join("Per" + p for p in pers)


def _words_before(q: Quantity) -> str:
    """The noun phrase that names the quantity right before it: "Its average drying time is" -> dryingTime (a
    possessive is no word of it: "the kiln's firing time is" -> firingTime)."""
    m = _QUANTITY_NP.search(re.sub(r"['’]s\b", "", q.before))
    if not m:
        return ""
    words = [w for w in m.group(1).split() if w.lower() not in _HEDGES and w.islower()]
    if not words or singular(words[-1]) not in QUANTITY_NOUNS:
        return ""
    if len(words) > 1 and words[-2] in _MODALS:
        return ""  # "must dry between": a verb, not the noun "dry"
    return safe_name(" ".join(words[-2:-1] + [singular(words[-1])]), lower_first=True)


_WHEN_NP = re.compile(r"(?:^|\b[Tt]he\s+|,\s*|\band\s+the\s+)((?:[a-z]+\s+){0,2}[a-z]{3,})\s+(?:(?:from|of|at|in|for)\s+"
                      r"(?:the\s+)?[A-Z][\w-]*(?:\s+[A-Z0-9][\w-]*)*\s+)?(?:is|are|was|were)\s+(?:at|on|due on|set for)\s*$")


def _event_words(q: Quantity) -> str:
    """What a time of day or a date is the time of: "The last delivery to X is at 16:30" -> lastDelivery."""
    m = _WHEN_NP.search(q.before)
    if not m:
        return ""
    words = [w for w in m.group(1).split() if w not in _HEDGES and w not in _NOT_CONCEPT]
    return safe_name(" ".join(words[-2:]), lower_first=True) if words else ""


_PERIODIC = {"daily": "day", "hourly": "h", "weekly": "week", "monthly": "month", "yearly": "year", "annual": "year"}


def propose(q: Quantity, packages: set[str], opening: str = "") -> Concept:
    """The property code proposes for a quantity; `opening` is the first noun of its sentence.

    The words of its name come from, in order: the noun phrase right before the value, or the phrasing before it
    ("opens at", "within", "every"); a package's weight or units, a capacity, or what a verb measures ("costs");
    weaker clues (the word after a ratio, a bound, the sentence's opening noun, what a rate is of); last the
    dimension's own word, which makes the name generic."""
    _note_periodic_money(q)
    words, generic = _words_before(q), False
    if not words:
        words = _phrasing_words(q)
    words = _package_capacity_or_verb_words(q, packages, opening, words)
    if not words:
        words = _weaker_clue_words(q, packages, opening)
    if not words:
        words = _DIMENSION_WORD.get(q.dimension, "")
        generic = not words or words in GENERIC
    if q.dimension == "count" and words in ("", "count") and q.per:
        words, generic = "", False  # "8 combs per hive": named by its unit, combsPerHive
    generic = generic or words in GENERIC
    name = _join(q.bound or q.range_role, words, unit_suffix(q, packages), q)
    return Concept(words, name, generic)


def _note_periodic_money(q: Quantity) -> None:
    """An amount of money with a period adjective before it is per that period."""
    periodic = re.search(r"\b(" + "|".join(_PERIODIC) + r")\s+[a-z]+\s+[a-z]*\s*(?:is|are|of|:)", q.before, re.I)
    if periodic and _PERIODIC[periodic.group(1).lower()] not in q.per and q.dimension == "money":
        q.per.append(_PERIODIC[periodic.group(1).lower()])  # "the weekly hive rent is €40": per week


def _phrasing_words(q: Quantity) -> str:
    """The words the phrasing right before the value gives (the first that fits): the event a time is of, a state
    a range spans, a moment verb, "within", a level, a duration, a grade, a date of an event, an interval."""
    words = ""
    if q.dimension in ("time of day", "date"):
        event = _event_words(q)
        words = event + ("Time" if q.dimension == "time of day" else "Date") if event else ""
        state = re.search(r"\b(open|closed|[a-z]{3,}ed)\s+(?:(?:daily|every day|each day)\s+)?(?:from|between)?\s*$",
                          q.before)
        if not words and q.range_role and state and state.group(1) not in _HEDGES:
            words = state.group(1)  # "staffed from 07:00 to 19:30" -> staffedStart, staffedEnd
    state_np = re.search(r"\b(?:is|are)\s+in\s+((?:[a-z]+\s+)?[a-z]{3,})\s+from\s*$", q.before)
    if not words and q.range_role and q.dimension in ("date", "time of day") and state_np and \
            not set(state_np.group(1).split()) & (_HEDGES | _NOT_CONCEPT):
        words = safe_name(state_np.group(1), lower_first=True)  # "in cold repair from 3 May to 9 June": coldRepairStart
    moment = re.search(r"\b(opens|closes|starts|begins|ends|departs|leaves|arrives)\s+(?:daily\s+|each day\s+)?at\s*$",
                       q.before)
    if not words and moment and q.dimension == "time of day":  # "the office opens at 05:15": openingTime
        words = {"opens": "opening", "closes": "closing", "starts": "start", "begins": "start", "ends": "end",
                 "departs": "departure", "leaves": "departure", "arrives": "arrival"}[moment.group(1)] + "Time"
    within = re.search(r"\b([a-z]{3,}ed)\s+within\s*$", q.before)
    if not words and within and q.dimension == "time":  # "must be fitted within 30 minutes": fitTime
        words = safe_name(participle_noun(within.group(1)) + " time", lower_first=True)
    level = re.search(r"\b(?:the\s+)?([a-z]{3,})\s+(?:stays?|remains?|is|rises|falls|drops|climbs)\s+(?:above|below|"
                      r"under|over)\s*$", q.before)
    if not words and level and level.group(1) not in _HEDGES | _NOT_CONCEPT and q.dimension in _DIMENSION_WORD \
            and singular(level.group(1)) not in QUANTITY_NOUNS:  # "while the wind stays below 18 m/s": windSpeed
        dim_word = _DIMENSION_WORD[q.dimension]
        words = safe_name(f"{level.group(1)} {dim_word}", lower_first=True) if dim_word not in GENERIC else ""
    rest = re.search(r"\b(?:must|should|to|can|may|will|shall)\s+([a-z]{3,})\s+for\s+(?:(?:at least|at most|up to|about|"
                     r"no more than|no less than)\s+)?$", q.before)
    if not words and rest and q.dimension == "time" and rest.group(1) not in _HEDGES | _NOT_CONCEPT | {"be"}:
        words = safe_name(rest.group(1) + " time", lower_first=True)  # "must settle for at least 3 days": settleTime
    graded = re.search(r"\b([a-z]{3,}ed)\s+(?:(?:about|around|only|up to)\s+)?$", q.before)
    if not words and graded and q.dimension == "count" and q.unit not in ("", "unit"):
        words = safe_name(participle_noun(graded.group(1)), lower_first=True)  # "rated 91.5 points": ratePoints
    on_date = re.search(r"\b([a-z]{3,}ed)\b(?:[^,.;]|\.(?=\d)){0,40}\bon\s*$", q.before)
    if not words and on_date and q.dimension == "date":  # "was rated 91.5 points on 4 June 2026": rateDate
        words = safe_name(participle_noun(on_date.group(1)) + " date", lower_first=True)
    every = re.search(r"\b([a-z]{3,}ed)\s+(?:once\s+)?every\s*$", q.before)
    if not words and every and q.dimension == "time":  # "replaced every 3 weeks" -> replaceIntervalWeeks
        words = safe_name(participle_noun(every.group(1)) + " interval", lower_first=True)
    return words


def _package_capacity_or_verb_words(q: Quantity, packages: set[str], opening: str, words: str) -> str:
    """The words so far, overridden by a package's weight or units or by a capacity, or, when there are none yet,
    what a measuring verb names ("a service costs" -> serviceCost). A weight per package leaves `q.per`."""
    if q.dimension == "mass" and (q.per and q.per[-1] in packages or singular(opening.lower()) in packages):
        words = "packageWeight"  # "9 kg per crate", "Crates, each weighing 9 kg"
        q.per = [p for p in q.per if p not in packages]
    verb = re.search(r"\b(weigh(?:s|ing|ed)?|cost(?:s|ing)?|covers|measures|lasts|takes)\s+(?:about\s+|around\s+|"
                     r"up to\s+|only\s+)?$", q.before)
    if q.package or q.dimension == "count" and q.per and q.per[-1] in packages:
        words = "unitsPerPackage"
    elif q.capacity and (q.dimension == "count" or q.dimension in ("mass", "volume") and not words):
        words = "capacity"  # "holds up to 40 kayaks", "a tank holds 60 L"
    elif verb and _VERB_CONCEPT.get(verb.group(1).lower()) and not words and words != "packageWeight":
        words = _VERB_CONCEPT[verb.group(1).lower()]
        noun = re.search(r"(?<!\bthe )(?<!\bThe )(?<!\ba )(?<!\bA )(?<!\ban )(?<!\bAn )\b([a-z]{3,})\s+$",
                         q.before[:verb.start()])
        if noun and noun.group(1) not in _HEDGES | _NOT_CONCEPT and not noun.group(1).endswith(("ly", "ed")) and \
                words not in ("area",):
            head = "package" if singular(noun.group(1)) in packages else noun.group(1)
            words = safe_name(f"{head} {words}", lower_first=True)  # "a service costs" -> serviceCost
        if words == "weight" and re.search(r"\b(?:each|every|a|one|the)?\s*(" + "|".join(map(re.escape, packages))
                                           + r")\b[^.]*$", q.before, re.I) if packages else False:
            words = "packageWeight"
    return words


def _weaker_clue_words(q: Quantity, packages: set[str], opening: str) -> str:
    """Words from weaker clues (the first that fits): the word after a ratio, the verb a ratio is reached with, what
    a bounded amount of money is of, a counted unit, a package named before a weight, the sentence's opening
    quantity noun, what a rate is of."""
    words = ""
    after = re.match(r"\s*(?:of\s+)?([a-z]{4,}(?:\s+(?!and\b|or\b|with\b|per\b|in\b|at\b|for\b)[a-z]{4,})?)\b", q.after)
    if q.dimension == "ratio" and after and after.group(1).split()[0] not in _HEDGES | _NOT_CONCEPT:
        words = safe_name(after.group(1), lower_first=True)  # "20 to 35 % moisture" -> moisture
    stem = re.search(r"\b([a-z]{3,}?)e?d\s+(?:to|at|up to)\s+(?:at least|at most|about|up to|only|no more than)?\s*$",
                     q.before)
    if not words and q.dimension == "ratio" and stem and stem.group(1) not in _HEDGES:
        words = safe_name(f"{stem.group(1)}e level" if not stem.group(1).endswith("e") and
                          (stem.group(0).split()[0].endswith("ed") and stem.group(1)[-1] in "gv") else
                          f"{stem.group(1)} level", lower_first=True)  # "charged to 80 %" -> chargeLevel
    if not words and q.dimension == "money":
        bounded = re.search(r"\b([a-z]{3,})s?\s+(?:above|over|below|under|of at least|from)\s*$", q.before)
        if bounded and bounded.group(1) not in _HEDGES:
            words = safe_name(singular(bounded.group(1)) + " value", lower_first=True)  # "parcels above €80"
    if not words and q.dimension == "count" and q.unit not in ("", "unit"):
        words = "count" if not q.per else ""
    if not words and q.package == "" and q.dimension in ("mass",) and packages and \
            re.search(r"\b(" + "|".join(map(re.escape, packages)) + r")\b", q.before, re.I):
        words = "packageWeight"
    if not words and singular(opening.lower()) in QUANTITY_NOUNS and \
            q.dimension in NOUN_DIMENSIONS.get(singular(opening.lower()), {q.dimension}):
        words = singular(opening.lower())  # "Pressure in the network must stay between 4 and 9 bar"
    if not words and q.of:
        words = safe_name(f"{q.of} {_DIMENSION_WORD.get(q.dimension, '')}", lower_first=True)
    return words


def _join(prefix: str, words: str, suffix: str, q: Quantity) -> str:
    if q.range_role and q.dimension in ("date", "time of day"):  # "open 06:30 to 22:00": start and end
        prefix, words = "", (words or "time") + ("Start" if q.range_role == "min" else "End")
    parts = [p for p in (prefix, words) if p]
    name = parts[0] if parts else ""
    for p in parts[1:]:
        name += p[0].upper() + p[1:]
    if suffix:
        name = (name + suffix) if name else suffix[0].lower() + suffix[1:]
    return name or "quantity"


def with_unit(name: str, q: Quantity, packages: set[str]) -> str:
    """A model's name completed with the unit and bound code read ("storageTime" -> storageTimeDays,
    "temperature" below 8 °C -> maxTemperatureC)."""
    name = safe_name(name, lower_first=True)
    suffix = unit_suffix(q, packages)
    if suffix and not name.endswith(suffix):  # (a unit is a word of the name: "weight" does not end in t's "T")
        if name.lower() == suffix.lower():
            pass  # the unit alone ("days") stays as it is
        elif len(suffix) > 2 and name.lower().endswith(suffix.lower()):
            name = name[:-len(suffix)] + suffix  # "durationdays" -> durationDays
        else:
            for cut in (suffix, property_suffix(q.unit) if q.unit else ""):
                if cut:  # a unit written inside the name ("storageDaysTime") goes, as a whole word only
                    name = re.sub(rf"(?<=[a-z0-9]){re.escape(cut)}(?=[A-Z]|$)", "", name) or name
            name += suffix
    prefix = q.bound or q.range_role
    if prefix and not name.lower().startswith(("min", "max")) and q.dimension not in ("date", "time of day"):
        name = prefix + name[0].upper() + name[1:]
    return name


def concept_problem(name: str, q: Quantity) -> str:
    """Why a property name cannot hold this quantity ("" when it can): its nouns say another dimension."""
    words = [singular(w) for w in re.findall(r"[A-Z]?[a-z]+", name)]
    for w in words:
        dims = NOUN_DIMENSIONS.get(w.lower())
        if dims and q.dimension and q.dimension not in dims and q.dimension != "count":
            return (f"'{name}' names a {w.lower()}, which is never a {q.dimension} (the value is {q.written}); "
                    f"choose a name for what {q.written} measures")
    return ""


def signature(idx: EntitiesIndex, prop: str) -> tuple[str, str, str]:
    """(dimension, unit, bound) of a property: properties that differ in these never mean the same."""
    p = idx.properties[prop]
    return (p.dimension, p.unit, name_bound(prop))


def candidates(idx: EntitiesIndex, q: Quantity, proposed: str, packages: set[str], limit: int = 4) -> list[str]:
    """Existing datatype properties of the same dimension, unit and bound as the quantity, closest first."""
    want = (q.dimension, _unit_key(q, packages), q.bound or q.range_role)
    out = []
    for name, p in idx.properties.items():
        if p.kind != "datatype" or not p.dimension:
            continue
        if (p.dimension, p.unit, signature(idx, name)[2]) == want:
            out.append(name)
    out.sort(key=lambda n: -_overlap(n, proposed))
    return out[:limit]


def concept_words(idx: EntitiesIndex, name: str) -> list[str]:
    """The words of a property's concept, without its bound and unit, in order: maxCoreTemperatureC -> ["core",
    "temperature"]."""
    p = idx.properties.get(name)
    core = name
    suffix = property_suffix(p.unit) if p is not None and p.unit else ""
    if suffix and core.lower().endswith(suffix.lower()):
        core = core[:-len(suffix)]
    core = re.sub(r"^(?:min|max)(?=[A-Z])", "", core)
    return [singular(w.lower()) for w in re.findall(r"[A-Z]?[a-z]+", core)]


def modifier_words(idx: EntitiesIndex, specific: str, general: str) -> list[str]:
    """The words `specific` adds in front of the concept of `general` (maxCoreTemperatureC over maxTemperatureC:
    ["core"]); [] when its concept does not end with all of general's."""
    a, b = concept_words(idx, specific), concept_words(idx, general)
    return a[:-len(b)] if b and len(a) > len(b) and a[-len(b):] == b else []


def named_in(idx: EntitiesIndex, q: Quantity, sentence: str, packages: set[str]) -> str:
    """An existing property of the quantity's signature whose concept words the sentence says ("the ride ...
    takes 35 minutes" and a table column rideMin): the concept the text names, one property for it."""
    said = {singular(w.lower()) for w in re.findall(r"[A-Za-z]+", sentence)}
    for name in candidates(idx, q, "", packages, limit=20):
        words = set(concept_words(idx, name))
        if words and len("".join(words)) > 3 and words <= said:
            return name
    suffix = property_suffix(q.unit) if q.unit and not q.per else ""
    for name, p in idx.properties.items():  # a table column named with the unit as written: ride_min, 35 min
        if p.kind != "datatype" or p.dimension or p.range not in ("xsd:integer", "xsd:decimal") or not suffix or \
                not name.endswith(suffix) or name == suffix[0].lower() + suffix[1:]:
            continue
        words = {singular(w.lower()) for w in re.findall(r"[A-Z]?[a-z]+", name[:-len(suffix)])}
        if words and len("".join(words)) > 3 and words <= said:
            return name
    return ""


def _unit_key(q: Quantity, packages: set[str]) -> str:
    pers = ["package" if p in packages else p for p in q.per]
    return " ".join([q.unit] + [f"per {p}" for p in pers]).strip()


def _overlap(a: str, b: str) -> float:
    ta, tb = name_tokens(a), name_tokens(b)
    return len(ta & tb) / len(ta | tb) if ta and tb else 0.0


def resolve(idx: EntitiesIndex, name: str, q: Quantity, packages: set[str]) -> str:
    """The property to use for `name`: itself when new or of the same signature; an existing property of the same
    signature whose concept words contain (or are contained in) the name's; else the name."""
    p = idx.properties.get(name)
    want = (q.dimension, _unit_key(q, packages))
    if p is not None and (p.dimension, p.unit) == want:
        return name
    if p is not None and p.kind == "datatype" and not p.dimension and not p.unit and \
            p.range in ("xsd:integer", "xsd:decimal") and name.endswith(property_suffix(q.unit) if q.unit else "\0"):
        return name  # a table column named with the unit (ride_min): the text's value joins it
    return name if p is None else name + "Value"


def unit_key(q: Quantity, packages: set[str]) -> str:
    return _unit_key(q, packages)
