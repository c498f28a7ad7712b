"""Units and currencies: one table for the whole builder (mapping of keys such as "Weight (lb)", numbers in
text such as "$120" or "3,000 mAh", the proof of concept's import).

Each unit symbol has a dimension and a canonical symbol; currencies are known by their symbol and by their
ISO 4217 code, and a symbol shared by several currencies ("$") is read as the most common one unless the text
says which ("US$", "CA$", "A$"). Nothing here converts values: a value keeps the unit it was written in, and
the property name says which (weightLb, priceUsd)."""

from __future__ import annotations

import re

# symbol (as written) -> (dimension, canonical symbol)
UNITS: dict[str, tuple[str, str]] = {}
for _dim, _forms in {
    "mass": {"mg": "mg", "g": "g", "kg": "kg", "t": "t", "ton": "t", "tons": "t", "tonne": "t", "tonnes": "t",
             "lb": "lb", "lbs": "lb", "oz": "oz"},
    "length": {"mm": "mm", "cm": "cm", "m": "m", "km": "km", "in": "in", "inch": "in", "inches": "in", "ft": "ft",
               "mi": "mi", "meter": "m", "meters": "m", "metre": "m", "metres": "m", "foot": "ft", "feet": "ft"},
    "area": {"m²": "m²", "m2": "m²", "sqm": "m²", "km²": "km²", "ft²": "ft²", "sq ft": "ft²", "ha": "ha"},
    "volume": {"m³": "m³", "m3": "m³", "l": "L", "L": "L", "ml": "mL", "mL": "mL", "cl": "cL", "gal": "gal",
               "litre": "L", "litres": "L", "liter": "L", "liters": "L", "millilitres": "mL", "milliliters": "mL",
               "cubic metres": "m³", "cubic meters": "m³", "gallons": "gal"},
    "electric charge": {"mAh": "mAh", "Ah": "Ah"},
    "energy": {"Wh": "Wh", "kWh": "kWh", "kcal": "kcal", "J": "J", "kJ": "kJ"},
    "power": {"W": "W", "kW": "kW", "MW": "MW", "hp": "hp"},
    "voltage": {"V": "V", "kV": "kV"},
    "current": {"A": "A", "mA": "mA"},
    "temperature": {"°C": "°C", "°F": "°F"},
    "ratio": {"%": "%", "percent": "%"},
    "count": {"pcs": "pcs", "pc": "pcs", "dozen": "dozen"},
    "time": {"s": "s", "sec": "s", "min": "min", "minutes": "min", "minute": "min", "h": "h", "hours": "h",
             "hour": "h", "day": "day", "days": "day", "week": "week", "weeks": "week", "month": "month",
             "months": "month", "year": "year", "years": "year", "working days": "working day",
             "working day": "working day", "business days": "working day", "business day": "working day",
             "ms": "ms", "seconds": "s", "second": "s", "hrs": "h", "hr": "h"},
    "data": {"KB": "kB", "kB": "kB", "MB": "MB", "GB": "GB", "TB": "TB"},
    "frequency": {"Hz": "Hz", "kHz": "kHz", "MHz": "MHz", "GHz": "GHz"},
    "speed": {"km/h": "km/h", "mph": "mph", "m/s": "m/s", "knots": "kn", "knot": "kn", "kn": "kn"},
    "pressure": {"bar": "bar", "mbar": "mbar", "Pa": "Pa", "kPa": "kPa", "MPa": "MPa", "hPa": "hPa", "psi": "psi"},
    "rotation": {"rpm": "rpm", "RPM": "rpm"},
    "flow": {"L/h": "L/h", "l/h": "L/h", "L/min": "L/min", "l/min": "L/min", "m³/h": "m³/h", "m3/h": "m³/h",
             "L/s": "L/s", "l/s": "L/s"},
    "concentration": {"mg/L": "mg/L", "mg/l": "mg/L", "ppm": "ppm", "ppb": "ppb", "g/L": "g/L", "µg/L": "µg/L"},
    "turbidity": {"NTU": "NTU"},
    "sound level": {"dB": "dB", "dBA": "dB(A)", "dB(A)": "dB(A)"},
    "illuminance": {"lx": "lx", "lux": "lx"},
    "luminous flux": {"lm": "lm", "lumen": "lm", "lumens": "lm"},
    "torque": {"Nm": "N·m", "N·m": "N·m"},
    "viscosity": {"Pa·s": "Pa·s", "Pa s": "Pa·s", "mPa·s": "mPa·s", "mPa s": "mPa·s", "cP": "cP"},
    "data rate": {"Mbit/s": "Mbit/s", "Mbps": "Mbit/s", "Gbit/s": "Gbit/s", "Gbps": "Gbit/s", "kbit/s": "kbit/s"},
}.items():
    for _form, _canon in _forms.items():
        UNITS[_form] = (_dim, _canon)

# SI prefixes and the units they combine with (as written after a number: "250 nm", "3 µm²", "4.2 meV", "12 mbar",
# "300 K"): generated, so that a measure in any prefixed unit is read with its dimension; a form that is also an
# English word ("as", "us", "cd") or already in the table is left out
_PREFIXES = {"p": "p", "n": "n", "µ": "µ", "μ": "µ", "u": "µ", "m": "m", "c": "c", "d": "d", "k": "k", "M": "M",
             "G": "G", "T": "T"}
_BASES = {"m": "length", "g": "mass", "s": "time", "L": "volume", "l": "volume", "Pa": "pressure", "bar": "pressure",
          "W": "power", "V": "voltage", "A": "current", "J": "energy", "eV": "energy", "Hz": "frequency",
          "mol": "amount of substance", "N": "force", "Ω": "resistance", "ohm": "resistance", "F": "capacitance",
          "Wh": "energy", "Gy": "absorbed dose", "Sv": "dose equivalent", "Bq": "radioactivity", "cal": "energy",
          "S": "conductance", "T": "magnetic flux density", "K": "temperature"}
_PREFIXED_ONLY = {"c": {"m", "L", "l", "g"}, "d": {"m", "L", "l"}, "u": {"m", "g", "L", "l"}}
_NOT_UNITS = {"as", "us", "cd", "pl", "ds", "cs", "dl", "nl", "MS", "dS", "Ml", "Gl", "Tl", "kl", "pa", "ma", "da",
              "na", "ka", "ga", "Ma", "Ta", "Gs", "Ts", "ks"}  # English words, or forms nobody writes
_GENERATED: dict[str, tuple[str, str]] = {"K": ("temperature", "K"), "°": ("angle", "°"), "deg": ("angle", "°"),
                                          "rad": ("angle", "rad"), "mrad": ("angle", "mrad"),
                                          "wt%": ("ratio", "wt%"), "wt.%": ("ratio", "wt%"), "vol%": ("ratio", "vol%"),
                                          "at%": ("ratio", "at%"), "at.%": ("ratio", "at%"),
                                          "mol%": ("ratio", "mol%"), "‰": ("ratio", "‰"), "eV": ("energy", "eV"),
                                          "N": ("force", "N"), "mol": ("amount of substance", "mol"),
                                          "Ω": ("resistance", "Ω"), "Gy": ("absorbed dose", "Gy"),
                                          "Bq": ("radioactivity", "Bq"), "cal": ("energy", "cal"),
                                          "M": ("concentration", "M"), "mM": ("concentration", "mM"),
                                          "µM": ("concentration", "µM"), "nM": ("concentration", "nM")}
for _p, _canon_p in _PREFIXES.items():
    for _b, _dim in _BASES.items():
        if _p in _PREFIXED_ONLY and _b not in _PREFIXED_ONLY[_p]:
            continue
        _form = _p + _b
        if _form in _NOT_UNITS:
            continue
        _canon = _canon_p + ("L" if _b == "l" else "Ω" if _b == "ohm" else _b)
        _GENERATED.setdefault(_form, (_dim, _canon))
        if _dim == "length":  # areas and volumes: "µm²", "cm³", "nm2"
            for _e, _d in (("²", "area"), ("2", "area"), ("³", "volume"), ("3", "volume")):
                _GENERATED.setdefault(_form + _e, (_d, _canon + ("²" if _d == "area" else "³")))

# currency symbol or code (as written) -> ISO 4217 code
CURRENCIES: dict[str, str] = {"€": "EUR", "$": "USD", "US$": "USD", "£": "GBP", "¥": "JPY", "₹": "INR", "₩": "KRW",
                              "CHF": "CHF", "CA$": "CAD", "C$": "CAD", "A$": "AUD", "AU$": "AUD", "R$": "BRL",
                              "zł": "PLN", "kr": "SEK"}
ISO_CODES = ("EUR", "USD", "GBP", "JPY", "CHF", "CAD", "AUD", "CNY", "INR", "KRW", "BRL", "PLN", "SEK", "NOK",
             "DKK", "CZK", "HUF", "MXN", "ZAR", "SGD", "HKD", "NZD", "TRY", "RUB")
CURRENCIES.update({code: code for code in ISO_CODES})
CURRENCIES.update({"euro": "EUR", "euros": "EUR", "dollar": "USD", "dollars": "USD", "pound": "GBP", "pounds": "GBP"})


def currency(token: str) -> str:
    """The ISO code of a currency symbol, code or word ('' when it is none)."""
    token = token.strip()
    return CURRENCIES.get(token) or CURRENCIES.get(token.upper() if len(token) == 3 else token) or \
        CURRENCIES.get(token.lower(), "")


def unit(token: str) -> tuple[str, str] | None:
    """(dimension, canonical symbol) of a unit as written, or None. Case matters where it must (mA vs MA). A rate
    of two units ("°/s") has the dimension its pair names, else "A per B"."""
    token = " ".join(token.strip().split())
    if token in UNITS:
        return UNITS[token]
    if "/" in token and token.count("/") == 1 and token not in ("/",):
        top, bottom = (unit(part) for part in token.split("/"))
        if top and bottom:
            return _RATES.get((top[0], bottom[0]), f"{top[0]} per {bottom[0]}"), f"{top[1]}/{bottom[1]}"
    low = token.lower()
    for form, value in UNITS.items():  # spelled-out words in any case: "Inches", "KG"
        if form.lower() == low and (len(form) > 2 or form.islower()):
            return value
    return None


def dimension_of(unit_text: str) -> str:
    """The dimension of a unit as a property holds it ("kg" -> mass, "EUR per day" -> money, "pallet" -> "")."""
    base = unit_text.split(" per ")[0].strip()
    if currency(base) and not base.islower():
        return "money"
    found = unit(base)
    return found[0] if found else ""


def canonical(token: str) -> str:
    """The canonical symbol of a unit, or the ISO code of a currency, or '' for neither."""
    code = currency(token)
    if code:
        return code
    found = unit(token)
    return found[1] if found else ""


def _alternation(forms: list[str]) -> str:
    return "|".join(re.escape(f) for f in sorted(forms, key=len, reverse=True))


# Written before a number: "$120", "US$ 5", "€0.80", "EUR 12", "CHF 9.90"
PREFIX_CURRENCY = _alternation([f for f, c in CURRENCIES.items() if not f.isalpha() or f.isupper()])
for _form, _value in _GENERATED.items():
    UNITS.setdefault(_form, _value)
# a rate of two units ("°/s", "mg/kg", "µm/h"): its dimension, when the pair has a name
_RATES = {("length", "time"): "speed", ("volume", "time"): "flow", ("mass", "volume"): "concentration",
          ("angle", "time"): "angular speed", ("mass", "time"): "mass flow", ("energy", "time"): "power",
          ("mass", "area"): "areal density", ("mass", "mass"): "ratio", ("volume", "volume"): "ratio",
          ("amount of substance", "volume"): "concentration", ("count", "time"): "rate"}

# Written after a number: every unit and currency form ("120 USD", "3,000 mAh", "12 in.")
SUFFIX_FORMS = _alternation([*UNITS, *[f for f in CURRENCIES if len(f) > 1 or not f.isalpha()]])
# a rate written with a slash between two units of the table ("°/s", "mg/kg"): read after a number
RATE_FORMS = rf"(?:{SUFFIX_FORMS})/(?:{SUFFIX_FORMS})"


def property_suffix(canonical_unit: str) -> str:
    """The part of a property name that says the unit: 'kg' -> 'Kg', 'm²' -> 'M2', 'USD' -> 'Usd', '%' -> 'Pct';
    a prefix the letters' case alone tells apart is spelled out: 'µg/L' -> 'MicroGPerL' (never 'g/L''s 'GPerL'),
    'mPa' -> 'MilliPa' (never 'MPa''s 'Mpa')."""
    text = canonical_unit.replace("²", "2").replace("³", "3").replace("°", "").replace("%", "pct").replace("/", " per ")
    words = []
    for w in re.findall(r"[A-Za-z0-9µμ]+", text):
        if w[0] in "µμ" and len(w) > 1:
            words.append("Micro")
            w = w[1:]
        elif w[0] == "m" and len(w) > 1 and w[1].isupper() and "M" + w[1:] in QUDT_UNITS:
            words.append("Milli")
            w = w[1:]
        words.append(w[:1].upper() + w[1:].lower())
    return "".join(words)


# ---- QUDT ----------------------------------------------------------------------------------------------
QUDT_UNIT = "http://qudt.org/vocab/unit/"
QUDT_CURRENCY = "http://qudt.org/vocab/currency/"
# canonical symbol (the second member of UNITS' values) -> local name in QUDT's unit vocabulary; a symbol missing
# here ("working day", "pcs", "dB(A)") has no QUDT unit and keeps only its text
QUDT_UNITS: dict[str, str] = {
    "mg": "MilliGM", "g": "GM", "kg": "KiloGM", "t": "TONNE", "lb": "LB", "oz": "OZ",
    "mm": "MilliM", "cm": "CentiM", "m": "M", "km": "KiloM", "in": "IN", "ft": "FT", "mi": "MI",
    "m²": "M2", "km²": "KiloM2", "ft²": "FT2", "ha": "HA",
    "m³": "M3", "L": "L", "mL": "MilliL", "cL": "CentiL", "gal": "GAL_US",
    "mAh": "MilliA-HR", "Ah": "A-HR",
    "Wh": "W-HR", "kWh": "KiloW-HR", "kcal": "KiloCAL", "J": "J", "kJ": "KiloJ",
    "W": "W", "kW": "KiloW", "MW": "MegaW", "hp": "HP",
    "V": "V", "kV": "KiloV", "A": "A", "mA": "MilliA",
    "°C": "DEG_C", "°F": "DEG_F", "%": "PERCENT",
    "s": "SEC", "ms": "MilliSEC", "min": "MIN", "h": "HR", "day": "DAY", "week": "WK", "month": "MO", "year": "YR",
    "kB": "KiloBYTE", "MB": "MegaBYTE", "GB": "GigaBYTE", "TB": "TeraBYTE",
    "Hz": "HZ", "kHz": "KiloHZ", "MHz": "MegaHZ", "GHz": "GigaHZ",
    "km/h": "KiloM-PER-HR", "mph": "MI-PER-HR", "m/s": "M-PER-SEC", "kn": "KN",
    "bar": "BAR", "mbar": "MilliBAR", "Pa": "PA", "kPa": "KiloPA", "MPa": "MegaPA", "hPa": "HectoPA", "psi": "PSI",
    "rpm": "REV-PER-MIN",
    "L/h": "L-PER-HR", "L/min": "L-PER-MIN", "m³/h": "M3-PER-HR", "L/s": "L-PER-SEC",
    "mg/L": "MilliGM-PER-L", "ppm": "PPM", "ppb": "PPB", "g/L": "GM-PER-L", "µg/L": "MicroGM-PER-L",
    "NTU": "NTU", "dB": "DeciB", "lx": "LUX", "lm": "LM", "N·m": "N-M",
    "Mbit/s": "MegaBIT-PER-SEC", "Gbit/s": "GigaBIT-PER-SEC", "kbit/s": "KiloBIT-PER-SEC",
}


def qudt_iri(unit_text: str) -> str:
    """The QUDT IRI of a unit as a property or fact holds it ("kg" -> unit:KiloGM, "EUR" -> currency:EUR), or ''
    when it has none (compound units such as "EUR per day", counts, units outside the table)."""
    text = unit_text.strip()
    if not text or " per " in text:
        return ""
    code = currency(text)
    if code and not text.islower():
        return QUDT_CURRENCY + code
    local = QUDT_UNITS.get(canonical(text))
    return QUDT_UNIT + local if local else ""
