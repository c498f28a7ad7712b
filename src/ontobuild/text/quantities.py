"""Numbers in free text read as what they are: every quantity with its sign, unit, dimension, what it is per,
and the qualifiers the words around it give (a range, a bound, "about", "on average"); times of day, dates and
years typed as such. Code reads; the model only decides what a quantity is about and what it means
(text/step.py), and code refuses what cannot be right (text/concepts.py).

A number that cannot be typed (a code such as "R-12", a bare word number) is not a quantity and is never
stored under a generic name."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..values.datatypes import XSD
from ..values.numbers import read_number
from ontocore.text import singular
from ..values.units import PREFIX_CURRENCY, RATE_FORMS, SUFFIX_FORMS, currency, unit as unit_of

# words ending in "s" that are not plural nouns, so not what a number counts
_NOT_COUNTED = ("is|was|has|as|us|its|this|thus|plus|always|perhaps|whereas|across|besides|sometimes|towards|"
                "less|unless|yes|does|goes|news|series|species|versus|various|previous|days|hours|weeks|years|"
                "months|minutes|seconds")
_IRREGULAR_PLURALS = {"people": "person", "children": "child", "men": "man", "women": "woman"}
_COUNTED = rf"(?:{'|'.join(_IRREGULAR_PLURALS)})\b|(?!(?:{_NOT_COUNTED})\b)[a-z]{{2,}}[a-rt-z]s"
_MINUS = "-\u2212\u2013"
_NUM = re.compile(
    rf"(?P<cur>(?:{PREFIX_CURRENCY})\s?)?(?<![A-Za-z0-9.,/:_])(?<![A-Za-z]-)(?P<sign>[{_MINUS}](?=\d))?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?)(?![0-9]|[.,]\d|:\d)"
    rf"(?:(?P<gap>[ \u00a0-]?)(?P<unit>{RATE_FORMS}|{SUFFIX_FORMS}|{_COUNTED})(?![A-Za-z0-9²³]))?(?(unit)|(?![A-Za-z]))"
)
# unit symbols that are also words of running text: a unit only when no word follows ("12 in." but "12 in the")
_WORDLIKE = {"in", "A", "s", "l", "J", "mi", "ha", "kr", "kn", "ms", "lm"}
_TIME = re.compile(r"(?<![\d:.])([01]?\d|2[0-3])[:.]([0-5]\d)(?![\d:])(?:\s*(a\.?m\.?|p\.?m\.?))?", re.I)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december|" \
         r"jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
_DAY_MONTH = re.compile(rf"(?<!\d)(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH}(?:,?\s+(\d{{4}}))?(?!\d)", re.I)
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}}))?(?!\d)", re.I)
_YEAR = re.compile(r"\b(?:in|since|from|until|till|before|after|by|of|year)\s(1[89]\d\d|20\d\d)(?![\d%]|[.,]\d)", re.I)
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "a single": 1, "single": 1}
_SMALL = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
          "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
          "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "a": 1, "a dozen": 12, "dozen": 12}
_SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000, "billion": 1_000_000_000}
_NUMBER_WORD = r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|" \
               r"sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|dozen|" \
               r"hundred|thousand|million|billion)"
# "five cycles", "two hundred families", "twenty-five days", "a dozen crates": a number in words with what it counts
# or its unit (a number word alone, "one of the", is no quantity)
_WORDS_QUANTITY = re.compile(rf"\b((?:a\s+)?{_NUMBER_WORD}(?:(?:\s+and\s+|[\s-]+){_NUMBER_WORD})*)\s+"
                             rf"(?!of\b|and\b|or\b|to\b)({SUFFIX_FORMS}|{_COUNTED})(?![A-Za-z0-9²³])", re.I)


_PARTS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
          "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10}
# "two thirds of the samples", "half of the crates", "one in five parcels": a share, never a count of "thirds"
_FRACTION = re.compile(r"\b(?:(a|an|one|two|three|four|five|six|seven|eight|nine)\s+)?(half|halves|thirds?|quarters?|"
                       r"fifths?|sixths?|eighths?|tenths?)\s+of\b|\b(one|1)\s+in\s+(" + _NUMBER_WORD + r"|\d+)\b", re.I)


def _fractions(text: str, skip: list[tuple[int, int]]) -> list[Quantity]:
    """Shares written in words ("two thirds of", "half of", "one in five"), as a percentage (approximate when it
    is not a whole number): never a count of thirds, never "one in" as an inch."""
    out = []
    for m in _FRACTION.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in skip):
            continue
        if m.group(2):
            count = 1 if not m.group(1) or m.group(1).lower() in ("a", "an") else words_value(m.group(1)) or 1
            share = 100 * count / _PARTS[m.group(2).lower()]
            end = m.end(2)
        else:
            parts = int(m.group(4)) if m.group(4).isdigit() else words_value(m.group(4)) or 0
            if parts < 2:
                continue
            share, end = 100 / parts, m.end(4)
        value = f"{share:.1f}".rstrip("0").rstrip(".")
        q = Quantity("", value, "xsd:decimal", "%", "ratio", start=m.start(), end=end, written=text[m.start():end],
                     approx=value != f"{share:g}")
        out.append(q)
    return out


def words_value(words: str) -> int | None:
    """The integer a number written in words says ("two hundred" -> 200, "twenty-five" -> 25), None if not one."""
    total = current = 0
    parts = re.split(r"[\s-]+", words.lower().replace(" and ", " "))
    if parts[:1] == ["a"] and len(parts) > 1:
        parts = parts[1:] if parts[1] in _SCALES or parts[1] == "dozen" else parts
    seen = False
    for w in parts:
        if w in _SMALL and w != "a":
            current += _SMALL[w]
            seen = True
        elif w in _SCALES:
            current = max(current, 1) * _SCALES[w]
            if _SCALES[w] >= 1000:
                total, current = total + current, 0
            seen = True
        elif w == "a" and not seen:
            current = 1
        else:
            return None
    return total + current if seen else None
# "one lid per jar", "two combs per tray": a word number before "X per Y" is a quantity too
_WORD_RATE = re.compile(r"\b(" + "|".join(_WORD_NUMBERS) + r")\s+([a-z]{3,})\s+(?:per|a|each)\s+([a-z]{3,})\b",
                        re.I)
# what a quantity is per: "per day", "/ h", "a day", "per linear metre", "for each order"
_PER = re.compile(rf"(?:\s*(?:per|/|for each|for every)\s*|\s+an?\s+(?=(?:day|week|month|year|hour|minute)\b))"
                  rf"(?:(?:the|each|an?)\s+)?((?:{SUFFIX_FORMS})(?![A-Za-z0-9²³])|[a-z]{{2,}}(?:\s+(?:{SUFFIX_FORMS})\b)?)")
_MAX_WORDS = re.compile(r"(?:\b(?:at most|up to|no more than|not more than|maximum(?: of)?|max\.?|a maximum of|"
                        r"not exceed(?:ing)?|within|under|below|less than|fewer than|lower than|"
                        r"must not exceed|cannot exceed|no higher than|until)|<=?|≤)\s*(?:about\s+)?$", re.I)
_MIN_WORDS = re.compile(r"(?:\b(?:at least|no less than|not less than|minimum(?: of)?|min\.?|a minimum of|"
                        r"above|over|more than|greater than|higher than|exceeding|from|starting at)|>=?|≥)"
                        r"\s*(?:about\s+)?$", re.I)
_STRICT = re.compile(r"\b(?:under|below|less than|fewer than|lower than|above|over|more than|greater than|"
                     r"higher than|exceeding)\s*(?:about\s+)?$|[<>]\s*$", re.I)
# "holds up to 40 kayaks", "room for 12 trailers", "a capacity of": how much something holds, not a bound
_CAPACITY = re.compile(r"\b(?:holds?|holding|can hold|fits?|accommodates?|seats?|room for|space for|"
                       r"capacity(?: of)?|stores? up to)\s+(?:up to\s+|about\s+)?$", re.I)
_APPROX = re.compile(r"\b(?:about|around|approximately|approx\.?|roughly|nearly|some|circa|ca\.|~)\s*$", re.I)
_AVERAGE = re.compile(r"^\s*(?:on average|in average|on avg\.?)", re.I)
_AVERAGE_BEFORE = re.compile(r"\b(?:average|mean|typical(?:ly)?)\b[^.;,]*$", re.I)
# "sold in packs of 6", "packed in crates of 24 jars": how many units one package holds
_PACK = re.compile(r"\b(?:in|into|on|onto|by)\s+([a-z]{3,}s)\s+(?:of|with|containing)\s+$", re.I)
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to|and|until|till|through)\s*(?:about\s+)?")
_BETWEEN = re.compile(r"\b(?:between|from)\s+(?:about\s+)?$", re.I)


@dataclass
class Quantity:
    """One number of a text with what the text says about it."""
    id: str
    value: str  # lexical form in xsd notation
    datatype: str  # xsd:integer | xsd:decimal | xsd:time | xsd:date | xsd:gYear | xsd:gMonthDay
    unit: str = ""  # canonical unit, ISO currency code, or the counted noun (singular)
    dimension: str = ""  # mass, time, money, count, temperature, ratio, ... ("" for a bare number)
    per: list[str] = field(default_factory=list)  # "€0.45 per jar per week" -> ["jar", "week"]
    start: int = 0
    end: int = 0
    before: str = ""  # the words of its clause before it
    after: str = ""  # the words after it (and its unit) up to the end of its clause
    bound: str = ""  # "min" | "max": "at least 12", "below 8 °C", "within 14 days"
    strict: bool = False  # "below"/"above": the bound itself excluded
    approx: bool = False  # "about 7 kg"
    average: bool = False  # "6 weeks on average", "the average drying time is"
    range_of: str = ""  # the id of the other end of a range ("20 to 35 %")
    range_role: str = ""  # "min" | "max" within that range
    package: str = ""  # "in boxes of 4" -> "box": how many units one package holds
    capacity: bool = False  # "holds up to 40 kayaks", "room for 12 trailers"
    joined: bool = False  # "a 500 m² hall": a measure of the noun phrase that follows
    written: str = ""  # the text as written, for the report
    of: str = ""  # what a rate measures: "20 litres of syrup per hive" -> syrup

    @property
    def qualifier(self) -> str:
        """The words that qualify the value, for the report and the fact's annotation."""
        parts = []
        if self.bound:
            parts.append(("more than " if self.bound == "min" else "less than ") if self.strict else
                         ("at least " if self.bound == "min" else "at most "))
        if self.range_role:
            parts.append(f"{self.range_role} of a range")
        if self.approx:
            parts.append("about")
        if self.average:
            parts.append("on average")
        return ", ".join(p.strip() for p in parts)

    def is_number(self) -> bool:
        return self.datatype in ("xsd:integer", "xsd:decimal")


def _unit(written: str) -> tuple[str, str]:
    """(canonical unit, dimension) of a unit as written: currencies are money, a counted noun is a count."""
    code = currency(written)
    if code and not (written.islower() and len(written) > 1 and written not in ("euro", "euros", "dollars",
                                                                                  "dollar", "pounds")):
        return code, "money"
    found = unit_of(written)
    if found:
        return found[1], found[0]
    if written in _IRREGULAR_PLURALS:  # "12 people", "20 children"
        return _IRREGULAR_PLURALS[written], "count"
    if re.fullmatch(r"[a-z]{3,}s", written):
        return singular(written), "count"
    return written, "unknown"


def _pers(text: str, pos: int) -> tuple[list[str], int]:
    """What a quantity is per, read from `pos`: "per jar per week" -> ["jar", "week"]; and where it ends."""
    out = []
    while (m := _PER.match(text, pos)) and m.group(1).lower() not in {"cent", "se", "the", "and"}:
        word = m.group(1)
        found = unit_of(word)
        out.append(found[1] if found and found[0] == "time" else singular(word.lower()) if word.isalpha() else word)
        pos = m.end(1)
    return out, pos


_SENTENCE_END = re.compile(r"[.!?;]\s+(?=[\"“(]?[A-Z])")


def _clause_start(text: str, pos: int) -> int:
    cut = max(text.rfind(". ", 0, pos), text.rfind("; ", 0, pos), text.rfind("\n", 0, pos), text.rfind(", ", 0, pos))
    return cut + 2 if cut >= 0 else 0


def _clause_end(text: str, pos: int) -> int:
    m = re.compile(r"[.;,\n](?:\s|$)|$").search(text, pos)
    return m.start() if m else len(text)


def _dates(text: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, str, str]]:
    """(start, end, lexical, datatype) of each time of day and date."""
    out = []
    for m in _TIME.finditer(text):
        hour, minute, ampm = int(m.group(1)), int(m.group(2)), (m.group(3) or "").lower().replace(".", "")
        if m.group(0)[len(m.group(1))] == "." and not ampm and not re.search(r"\b(?:at|from|to|until)\s*$",
                                                                            text[:m.start()]):
            continue  # "3.50" is a decimal, not a time, unless the text says it is one
        hour = hour % 12 + (12 if ampm == "pm" else 0) if ampm else hour
        out.append((m.start(), m.end(), f"{hour:02d}:{minute:02d}:00", "xsd:time"))
    for m in _ISO_DATE.finditer(text):
        out.append((m.start(), m.end(), m.group(0), "xsd:date"))
    for regex, day_group, month_group in ((_DAY_MONTH, 1, 2), (_MONTH_DAY, 2, 1)):
        for m in regex.finditer(text):
            month = next(i for i, name in enumerate(_MONTHS, 1) if name.startswith(m.group(month_group).lower()[:3]))
            day = int(m.group(day_group))
            if not 1 <= day <= 31:
                continue
            year = m.group(3)
            out.append((m.start(), m.end(), f"{year}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}",
                        "xsd:date" if year else "xsd:gMonthDay"))
    for m in _YEAR.finditer(text):
        out.append((m.start(1), m.end(1), m.group(1), "xsd:gYear"))
    out.sort(key=lambda d: (d[0], -d[1]))
    kept: list[tuple[int, int, str, str]] = []
    for d in out:  # the longest reading of a place wins ("12 March 2024" over "2024")
        if not any(a < d[1] and d[0] < b for a, b, *_ in kept) and not any(a < d[1] and d[0] < b for a, b in taken):
            kept.append(d)
    return kept


def find_quantities(text: str, skip: list[tuple[int, int]] | None = None) -> list[Quantity]:
    """Every quantity of a text, in order; `skip` are spans not to read (numbers inside known names)."""
    skip = list(skip or [])
    out: list[Quantity] = []
    found: list[tuple[int, Quantity]] = []
    for a, b, lexical, dtype in _dates(text, skip):
        q = Quantity("", lexical, dtype, "", "time of day" if dtype == "xsd:time" else "date", start=a, end=b,
                     written=text[a:b])
        found.append((a, q))
        skip.append((a, b))
    for q in _fractions(text, skip):
        found.append((q.start, q))
        skip.append((q.start, q.end))
    for m in _WORD_RATE.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in skip):
            continue
        q = Quantity("", str(_WORD_NUMBERS[m.group(1).lower()]), "xsd:integer", singular(m.group(2).lower()),
                     "count", [singular(m.group(3).lower())], m.start(), m.end(), written=m.group(0))
        found.append((m.start(), q))
        skip.append((m.start(), m.end()))
    for m in _WORDS_QUANTITY.finditer(text):  # numbers written as words
        number = words_value(m.group(1))
        if number is None or any(a < m.end() and m.start() < b for a, b in skip) or \
                m.group(1).lower() in ("a", "one") and not unit_of(m.group(2)):
            continue  # "a dozen" yes, "one tray" no: "a"/"one" before a counted noun is an article
        if m.group(1)[:1].isupper() and re.search(r"[A-Za-z0-9][\w-]*\s+$", text[max(0, m.start() - 30):m.start()]) \
                and not re.search(r"[.!?:]\s+$", text[max(0, m.start() - 3):m.start()]):
            continue  # "Drum Two ends ...": a capitalized number word inside a sentence is part of a name
        q = Quantity("", str(number), "xsd:integer", start=m.start(), end=m.end(), written=m.group(0))
        q.unit, q.dimension = _unit(m.group(2))
        found.append((m.start(), q))
        skip.append((m.start(), m.end()))
    for m in _NUM.finditer(text):
        if any(a <= m.start("num") < b for a, b in skip):
            continue
        if re.match(r"[A-Za-z]+[-‐]?$", text[max(0, m.start() - 3):m.start()]) and not m.group("cur"):
            continue  # a code: "R-12", "X5"
        raw, kind = read_number(m.group("num")) or (m.group("num"), "integer")
        written_unit = m.group("unit") or ""
        if written_unit in _WORDLIKE and re.match(r"\s+[A-Za-z]", text[m.end("unit"):]):
            written_unit = ""
        if written_unit and m.group("gap") == "-" and not unit_of(written_unit) and not currency(written_unit):
            written_unit = ""  # "3-level": a name part, not a count
        sign = "-" if m.group("sign") or re.search(r"\bminus\s*$", text[:m.start()], re.I) else ""
        q = Quantity("", sign + raw, XSD[kind], start=m.start(), end=m.end(), written=m.group(0).strip())
        cur = (m.group("cur") or "").strip()
        if cur:
            q.unit, q.dimension = currency(cur) or cur, "money"
        elif written_unit:
            q.unit, q.dimension = _unit(written_unit)
        elif re.match(r"\s*per\s*cent\b", text[m.end():], re.I):
            q.unit, q.dimension = "%", "ratio"
        if q.dimension == "count" and re.fullmatch(r"1[89]\d\d|20\d\d", raw):
            continue  # "in 2024 sales grew": a year, read above when the text says so
        q.joined = bool(written_unit) and m.group("gap") in ("-", " ", "\u00a0") and \
            re.match(r"\s+[a-z]{3,}", text[m.end():]) is not None and q.dimension not in ("count", "money", "") and \
            re.search(r"\b(?:an?|the|one|two|three|four|five|six|\d+)\s+(?:(?!and\b|or\b|to\b)[a-z]+\s+)?$", text[:m.start()], re.I) is not None and \
            re.match(r"\s+[a-z]+ing\b", text[m.end():]) is None
        of = re.match(r"\s+of\s+([a-z]{3,})(?=\s*(?:per|/)\s)", text[m.end():]) if q.dimension not in ("", "count") else None
        pers, end = _pers(text, m.end() + (of.end() if of else 0))  # "20 litres of syrup per hive"
        q.per, q.end = pers, max(q.end, end)
        q.of = of.group(1) if of and pers else ""
        found.append((m.start(), q))
    found.sort(key=lambda x: x[0])
    for i, (_, q) in enumerate(found):
        q.id = f"n{i + 1}"
        clause = _clause_start(text, q.start)
        q.before = text[clause:q.start]
        q.after = text[q.end:_clause_end(text, q.end)]
        out.append(q)
    _qualify(text, out)
    return out


def _qualify(text: str, quantities: list[Quantity]) -> None:
    """Ranges, bounds, packages, "about" and "on average" from the words around each quantity."""
    for prev, q in zip(quantities, quantities[1:]):
        gap = text[prev.end:q.start]
        if prev.datatype != q.datatype and not (prev.is_number() and q.is_number()):
            continue
        if _RANGE_GAP.fullmatch(gap) and (prev.dimension in ("", q.dimension) or not q.dimension) and \
                not prev.per and (gap.strip() != "and" or _BETWEEN.search(prev.before)):
            if not prev.unit:
                prev.unit, prev.dimension, prev.per = q.unit, q.dimension, list(q.per)
            prev.range_of, q.range_of, prev.range_role, q.range_role = q.id, prev.id, "min", "max"
            q.before, prev.after = prev.before, q.after
    for q in quantities:
        before = _SENTENCE_END.split(text[max(0, q.start - 40):q.start])[-1]  # ("... 30 min. About half": no "min.")
        if q.range_role == "max" and q.range_of:
            before = ""
        if _CAPACITY.search(before):
            q.capacity = True
        elif not q.range_role and _MAX_WORDS.search(before):
            q.bound, q.strict = "max", bool(_STRICT.search(before))
        elif not q.range_role and _MIN_WORDS.search(before) and not _BETWEEN.search(before):
            q.bound, q.strict = "min", bool(_STRICT.search(before))
        q.approx = q.approx or bool(_APPROX.search(before))
        q.average = bool(_AVERAGE.match(text[q.end:q.end + 20]) or _AVERAGE_BEFORE.search(q.before))
        pack = _PACK.search(text, max(0, q.start - 30), q.start)
        if pack and q.dimension in ("", "count"):
            q.package = singular(pack.group(1).lower())
            q.dimension, q.unit = "count", q.unit or "unit"
            q.per = [q.package]
        if q.per and q.dimension == "":
            q.dimension, q.unit = "count", "unit"


def unit_text(q: Quantity) -> str:
    """The unit with what it is per, as people read it: "EUR per crate per week", "°C", "kayak"."""
    return " ".join([q.unit] + [f"per {p}" for p in q.per]).strip()
