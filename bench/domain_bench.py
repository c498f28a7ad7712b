"""Domain benchmark: ontobuild (embedded model) on three small made-up datasets of different domains
(bench/domains/<name>/: one or two tables or JSON files and a one-page guide about the same things, with hand-written
gold in gold.json and the domain's own vocabulary in schema.ttl), then ontoask over each build.

    python -m bench.domain_bench                    # build and score every domain
    python -m bench.domain_bench --only ferry       # one domain (repeatable)
    python -m bench.domain_bench --schema           # build with the domain's schema.ttl (ontobuild --schema)
    python -m bench.domain_bench --reuse            # score the outcome folders already built, no build
    python -m bench.domain_bench --no-ask           # skip the end-to-end questions

Outcome folders: outcomes/domains/<name> (outcomes/domains_schema/<name> with --schema). Results:
bench/results/domains.json and domains.md (domains_schema.json / .md with --schema).

How it scores (every rule is here; the functions are tested in tests/bench/test_domain_score.py):

* Text facts are the datatype facts whose provenance is a text chunk, except those on the TextChunk individuals
  that keep each chunk verbatim. One stated fact is one (chunk, sentence, property, value) put on one or more
  individuals ("Both A and B ..." puts one statement on two).
* A gold fact gives its subject(s) (labels; `accept`: other subjects that are not wrong, e.g. a thing named with
  the subject), acceptable property-name words, the value, the unit and the bound (min, max or none).
  A predicted fact matches a gold fact when
  - value: numbers equal (to 1e-9); times of day and dates equal after normalization ("06:30" = "06:30:00");
  - property meaning: a word of the property's name (camelCase split, singular) or label is one of the gold words;
  - unit: the fact's (or else its property's) unit equals the gold unit after normalization (case, spaces,
    "°", "²"/"³", plurals, "/" = "per", common spellings: knots/kn, litre/L, minutes/min ...); a gold unit null
    (times of day, dates) accepts any;
  - bound: read from the property name (minX/maxX, ...Start/...End/From/Until) or from the fact's qualifier ("at
    least", "more than", "min of a range" -> min; "at most", "less than", "max of a range" -> max); it must equal
    the gold bound (none = neither);
  - subject: the individual's label, name or aliases equal a gold subject or an accepted one (case, spacing,
    punctuation, articles and plurals ignored; gold `aliases` adds other names of table rows such as their ids);
    a label that starts with the individual's class ("Pump P-101") also counts without it, and one that names a
    place after its head ("chemical store at Fallow Green") counts as its head.
* Precision = stated facts that match a gold fact with EVERY individual they are put on right / stated facts.
  Recall = gold facts whose every subject carries a matching fact (or an accepted subject does) / gold facts,
  counting only statements that are right as a whole (a value spread over every pump finds nothing).
  A miss is diagnosed: the value is on the right subject under another property, unit or bound, or elsewhere.
* Duplicate-concept properties: per gold concept group (gold facts, and table columns, that state one concept),
  the distinct properties that hold its values on their subjects (whatever the property name; a value put on the
  wrong thing: the text facts of that value and unit), and the properties of the group's table columns; each
  property beyond the first is one duplicate.
* Junk classes (automatic, approximate: the full class list is in the results for review): a class whose name is
  a function word or pronoun, a verb form (-ed/-ing endings, or a gold `not_kinds` word), a fragment (more than
  four words, or a function word inside it), a quantity (its last word is one of the gold facts' property
  words, no gold kind's and no counted unit's: "Efficiency", "Temperature"; not "Car" when cars are counted), or
  a month or day name, or the name of a single thing (equal to an individual's label as written, or to a gold
  subject). Plural class names are listed apart.
* Document subjects: text facts put on an individual that stands for the document (class TextChunk, Document,
  Section, Heading, Chunk) or whose label equals a heading or the title of the guide.
* Text-only things (gold `things`): an individual with that label exists, and has one of the acceptable classes.
* End-to-end answers: `ontoask` (the library's answerer, the same loaded model) over the outcome folder, each
  answer judged with bench.score.is_correct against the gold answer ("lenient"), and strictly: a hedge is wrong
  (another thing of the expected answer's kind named, as in bench.ask_bench's dev set, or another number, time
  of day or date than the expected one, values the question names aside): "14; 11" for 11 knots is wrong.
* With --schema: the share of the terms the build uses (classes of the individuals, properties of their facts,
  TextChunk bookkeeping excluded) whose IRI is declared in the domain's schema.ttl, read from ontology.ttl.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import sys
import time
from pathlib import Path
from typing import Any, Iterable

from ontocore.text import ascii_fold, singular

REPO = Path(__file__).resolve().parents[1]
DOMAINS = REPO / "bench" / "domains"
RESULTS = REPO / "bench" / "results"
INFRA_CLASSES = {"TextChunk"}
INFRA_PROPERTIES = {"text", "mentions"}
DOC_CLASSES = {"textchunk", "document", "section", "heading", "chunk", "paragraph", "guide", "handbook"}
_ARTICLES = {"the", "a", "an", "our", "its", "their", "each", "every", "all", "this", "these", "those"}
_FUNCTION = _ARTICLES | {
    "and", "or", "but", "nor", "of", "in", "on", "at", "to", "by", "for", "with", "from", "as", "into", "onto",
    "it", "they", "them", "he", "she", "we", "you", "both", "either", "neither", "some", "any", "none", "that",
    "which", "who", "what", "when", "where", "if", "then", "than", "is", "are", "was", "were", "be", "been", "has",
    "have", "had", "do", "does", "must", "may", "can", "should", "will", "not", "no", "only", "also", "per"}
_WORD = re.compile(r"[A-Za-z0-9]+")
_DATE_WORDS = {"january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
               "today", "tomorrow", "yesterday"}


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", ascii_fold(str(text)).lower())


# ----------------------------------------------------------------------------------------------- normalizing

def words(text: str) -> list[str]:
    """Lower-case words of a label or a camelCase name, in the singular ("maxSpeedRpm" -> max, speed, rpm)."""
    text = re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", " ", ascii_fold(str(text)))
    return [singular(w.lower()) for w in _WORD.findall(text)]


def key(text: str) -> str:
    """The comparison key of a name: words without articles, joined ("The IBC containers" -> "ibccontainer")."""
    ws = words(text)
    return "".join(w for w in ws if w not in _ARTICLES) or "".join(ws)


_UNIT_SPELLINGS = {
    "c": "degc", "degc": "degc", "celsius": "degc", "degreec": "degc", "degreecelsius": "degc",
    "kn": "kn", "knot": "kn", "kt": "kn", "l": "l", "litre": "l", "liter": "l", "min": "min", "minute": "min",
    "h": "h", "hr": "h", "hour": "h", "s": "s", "sec": "s", "second": "s", "d": "day", "day": "day",
    "month": "month", "mo": "month", "year": "year", "yr": "year", "m2": "m2", "sqm": "m2", "m3": "m3",
    "percent": "%", "pct": "%", "%": "%", "person": "person", "people": "person", "passenger": "person",
    "point": "point", "pt": "point", "ms": "m/s", "m/s": "m/s", "mps": "m/s",
}


def unit_key(unit: str | None) -> str:
    """A unit in one spelling: "°C" = "C" = "celsius"; "m³" = "m3"; "L per hour" = "l/h"; "cars per crossing" =
    "car/crossing"."""
    text = ascii_fold(str(unit or "").replace("°", "deg").replace("²", "2").replace("³", "3")).lower()
    text = text.replace("%", " % ").replace("/", " per ")
    parts = []
    for piece in re.split(r"\bper\b", text):
        ws = [w for w in re.findall(r"[a-z0-9%]+", piece) if w != "of"]
        joined = "".join(singular(w) if len(w) > 3 else w for w in ws)
        parts.append(_UNIT_SPELLINGS.get(joined, joined))
    out = "/".join(p for p in parts if p)
    return {"m/s": "m/s"}.get(out, out)


def value_key(value: Any) -> tuple[str, Any] | None:
    """("num", float) for a number, ("time", "HH:MM:SS"), ("date", "YYYY-MM-DD") or ("text", key)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return ("num", float(value))
    s = str(value).strip().replace("\u2212", "-")
    if re.fullmatch(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?", s):
        return ("num", float(s))
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", s)
    if m:
        return ("time", f"{int(m.group(1)):02d}:{m.group(2)}:{m.group(3) or '00'}")
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", s):
        return ("date", s)
    return ("text", key(s))


def values_equal(a: Any, b: Any) -> bool:
    ka, kb = value_key(a), value_key(b)
    if ka is None or kb is None or ka[0] != kb[0]:
        return False
    if ka[0] == "num":
        return abs(ka[1] - kb[1]) <= 1e-9 * max(1.0, abs(kb[1]))
    return ka[1] == kb[1]


_MIN_Q = re.compile(r"\b(?:at least|more than|no less than|min(?:imum)? of a range|minimum|from)\b", re.I)
_MAX_Q = re.compile(r"\b(?:at most|less than|up to|no more than|max(?:imum)? of a range|maximum|until)\b", re.I)


def bound_of(prop: str, qualifier: str = "") -> str | None:
    """"min", "max" or None, from the property name (minX, maxX, xStart, xEnd, xFrom, xUntil) or the qualifier."""
    ws = words(prop)
    if ws and ws[0] in ("min", "minimum", "lowest", "earliest") or ws and ws[-1] in ("start", "from", "begin"):
        return "min"
    if ws and ws[0] in ("max", "maximum", "highest", "latest") or ws and ws[-1] in ("end", "until", "to"):
        return "max"
    if _MIN_Q.search(qualifier or ""):
        return "min"
    if _MAX_Q.search(qualifier or ""):
        return "max"
    return None


def meaning_matches(prop: str, label: str, gold_words: Iterable[str]) -> bool:
    want = {singular(w.lower()) for w in gold_words}
    return bool(want & (set(words(prop)) | set(words(label))))


# ----------------------------------------------------------------------------------------------- the index

_PLACE = {"at", "of", "in", "on", "for", "from", "near", "inside"}


def individual_keys(ind: dict[str, Any]) -> set[str]:
    """Keys of an individual's label, name and aliases; a name with a place ("chemical store at Fallow Green")
    also stands for its head ("chemical store"), never for the place; a name that starts with its class ("Pump
    P-101" of class Pump) also for the rest ("P-101")."""
    names = [n for n in (ind.get("name", ""), ind.get("label", ""), *(ind.get("aliases") or [])) if n]
    out = {key(n) for n in names}
    for n in names:
        ws = [w for w in words(n) if w not in _ARTICLES]
        for c in ind.get("classes", []):
            cw = words(c)
            if len(ws) > len(cw) and ws[:len(cw)] == cw:
                out.add("".join(ws[len(cw):]))
        cut = next((i for i, w in enumerate(ws) if w in _PLACE), None)
        if cut:
            out.add("".join(ws[:cut]))
    return out


def subject_keys(gold: dict[str, Any], labels: Iterable[str]) -> set[str]:
    """Keys of gold subject labels, with the gold file's aliases (table rows' ids)."""
    aliases = gold.get("aliases", {})
    out = set()
    for label in labels:
        out.add(key(label))
        out.update(key(a) for a in aliases.get(label, []))
    return out


def text_statements(index: dict[str, Any]) -> list[dict[str, Any]]:
    """The datatype facts read from text, grouped by what was stated: (chunk, sentence, property, value, unit)
    with the individuals it was put on."""
    props = index.get("properties", {})
    groups: dict[tuple, dict[str, Any]] = {}
    for name, ind in index.get("individuals", {}).items():
        if set(ind.get("classes", [])) & INFRA_CLASSES:
            continue
        for f in ind.get("facts", []):
            src = f.get("source", {}) or {}
            if "chunk" not in src or f.get("literal") is None or f["property"] in INFRA_PROPERTIES:
                continue
            p = props.get(f["property"], {})
            k = (src["chunk"], src.get("sentence", ""), f["property"], f["literal"], f.get("unit", ""))
            g = groups.setdefault(k, {"chunk": src["chunk"], "sentence": src.get("sentence", ""),
                                      "property": f["property"], "label": p.get("label", ""),
                                      "value": f["literal"], "unit": f.get("unit") or p.get("unit", ""),
                                      "qualifier": f.get("qualifier", ""), "individuals": []})
            g["individuals"].append(name)
    return list(groups.values())


def fact_matches(st: dict[str, Any], g: dict[str, Any], check: tuple[str, ...] = ("value", "meaning", "unit",
                                                                                  "bound")) -> bool:
    """Does the stated fact `st` say gold fact `g` (subjects aside)? `check` picks the aspects compared."""
    if "value" in check and not values_equal(st["value"], g["value"]):
        return False
    if "meaning" in check and not meaning_matches(st["property"], st.get("label", ""), g["words"]):
        return False
    if "unit" in check and g.get("unit") is not None and unit_key(st["unit"]) != unit_key(g["unit"]):
        return False
    if "bound" in check and bound_of(st["property"], st.get("qualifier", "")) != (g.get("bound") or None):
        return False
    return True


def score_facts(index: dict[str, Any], gold: dict[str, Any]) -> dict[str, Any]:
    """Text-fact precision and recall against gold["facts"] (see the module docstring)."""
    inds = index.get("individuals", {})
    ikeys = {n: individual_keys(i) for n, i in inds.items()}
    statements = text_statements(index)
    facts = gold["facts"]
    right = {g["id"]: subject_keys(gold, g["subjects"]) | subject_keys(gold, g.get("accept", [])) for g in facts}

    def on(name: str, keys: set[str]) -> bool:
        return bool(ikeys.get(name, set()) & keys)

    correct = []
    for st in statements:
        hit = next((g["id"] for g in facts if fact_matches(st, g) and all(on(n, right[g["id"]])
                                                                        for n in st["individuals"])), None)
        st["gold"] = hit
        correct.append(hit is not None)
    rows = []
    for g in facts:
        # only statements that are right as a whole count: a fact spread over every pump finds nothing
        matching = [st for st in statements if fact_matches(st, g) and all(on(n, right[g["id"]])
                                                                           for n in st["individuals"])]
        holders = {n for st in matching for n in st["individuals"]}
        covered = all(any(on(n, subject_keys(gold, [s])) for n in holders) for s in g["subjects"])
        accepted = bool(g.get("accept")) and any(on(n, subject_keys(gold, g["accept"])) for n in holders)
        found = covered or accepted
        rows.append({"id": g["id"], "found": found, "meaning": g["meaning"], "value": g["value"],
                     "subjects": g["subjects"], "diagnosis": "" if found else diagnose(statements, g, gold, ikeys)})
    n_found = sum(r["found"] for r in rows)
    return {"statements": len(statements), "correct_statements": sum(correct),
            "precision": round(sum(correct) / len(statements), 4) if statements else 0.0,
            "gold": len(facts), "found": n_found, "recall": round(n_found / len(facts), 4) if facts else 0.0,
            "per_fact": rows,
            "wrong_statements": [{k: st[k] for k in ("property", "value", "unit", "qualifier", "individuals",
                                                     "sentence")} for st, ok in zip(statements, correct) if not ok]}


def diagnose(statements: list[dict[str, Any]], g: dict[str, Any], gold: dict[str, Any],
             ikeys: dict[str, set[str]]) -> str:
    """Why a gold fact was not found: the closest stated fact and what differs."""
    keys = subject_keys(gold, g["subjects"]) | subject_keys(gold, g.get("accept", []))
    same_value = [st for st in statements if values_equal(st["value"], g["value"])]
    if not same_value:
        return "value not stated as a fact"
    for st in same_value:
        on_subject = [n for n in st["individuals"] if ikeys.get(n, set()) & keys]
        if not on_subject:
            continue
        wrong = [a for a in ("meaning", "unit", "bound") if not fact_matches(st, g, (a,))]
        if wrong:
            return (f"on {on_subject[0]} as {st['property']}={st['value']} {st['unit']}".rstrip() +
                    f" ({st['qualifier'] or 'no qualifier'}): wrong {', '.join(wrong)}")
        extra = [n for n in st["individuals"] if not ikeys.get(n, set()) & keys]
        if extra:
            return f"also put on {', '.join(extra[:6])}{' ...' if len(extra) > 6 else ''}"
        missing = [s for s in g["subjects"] if not any(ikeys.get(n, set()) & subject_keys(gold, [s])
                                                       for n in st["individuals"])]
        return f"not on every subject: missing {', '.join(missing)}"
    st = same_value[0]
    return f"on {', '.join(st['individuals'][:4])} instead ({st['property']})"


def concept_duplicates(index: dict[str, Any], gold: dict[str, Any], coverage: dict[str, Any]) -> dict[str, Any]:
    """Per gold concept group, the distinct properties holding its values on its subjects."""
    inds = index.get("individuals", {})
    facts = {g["id"]: g for g in gold["facts"]}
    statements = text_statements(index)
    groups = []
    for c in gold.get("concepts", []):
        props: set[str] = set()
        for fid in c.get("facts", []):
            g = facts[fid]
            keys = subject_keys(gold, g["subjects"]) | subject_keys(gold, g.get("accept", []))
            held = {f["property"] for name, ind in inds.items() if individual_keys(ind) & keys
                    for f in ind.get("facts", []) if f.get("literal") is not None
                    and "chunk" in (f.get("source") or {}) and values_equal(f["literal"], g["value"])}
            if not held:  # put on the wrong thing: the text fact of that value and unit, wherever it went
                held = {st["property"] for st in statements if values_equal(st["value"], g["value"])
                        and (g.get("unit") is None or unit_key(st["unit"]) == unit_key(g["unit"]))}
            props |= held
        for col in c.get("columns", []):
            props.update(column_properties(coverage, col["file"], col["column"]))
        groups.append({"concept": c["name"], "properties": sorted(props), "duplicates": max(0, len(props) - 1)})
    return {"groups": groups, "duplicate_properties": sum(g["duplicates"] for g in groups)}


def column_properties(coverage: dict[str, Any], file: str, column: str) -> set[str]:
    """The properties that hold a table column's values (from coverage.json's JSON/table leaves)."""
    out = set()
    for e in coverage.get("json", []):
        path = str(e.get("path", ""))
        if Path(str(e.get("file", ""))).name == file and e.get("property") and \
                re.search(r"\[['\"]?" + re.escape(column) + r"['\"]?\]$|\." + re.escape(column) + "$", path):
            out.add(e["property"])
    return out


def junk_classes(index: dict[str, Any], gold: dict[str, Any]) -> dict[str, Any]:
    """Classes that do not name a kind (see the module docstring), and plural class names."""
    inds = index.get("individuals", {})
    # as written, not in the singular: a category individual "roasters" does not make the class Roaster junk
    single = {_squash(n) for i in inds.values() if not set(i.get("classes", [])) & INFRA_CLASSES
              for n in (i.get("name", ""), i.get("label", "")) if n}
    single |= {_squash(s) for g in gold["facts"] for s in g["subjects"]}
    not_kinds = {w.lower() for w in gold.get("not_kinds", [])}
    kind_words = {w for k in gold_kinds(gold) for w in words(k)}
    counted = {w for g in gold["facts"] for w in words(g.get("unit") or "")}  # "car per crossing": things
    quantities = {singular(w.lower()) for g in gold["facts"] for w in g["words"]} - kind_words - counted
    junk, plural = [], []
    for name, c in index.get("classes", {}).items():
        if name in INFRA_CLASSES:
            continue
        raw = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", ascii_fold(name)).lower().split()
        raw = [w for part in raw for w in re.split(r"[^a-z0-9]+", part) if w]
        why = ""
        if not raw:
            why = "no words"
        elif len(raw) == 1 and raw[0] in _FUNCTION:
            why = "function word"
        elif raw[-1] in not_kinds or len(raw) == 1 and re.search(r"[^e]ed$|ing$", raw[-1]) and len(raw[-1]) > 5:
            why = "verb form"
        elif len(raw) > 4 or len(raw) > 1 and any(w in _FUNCTION for w in raw):
            why = "fragment"
        elif singular(raw[-1]) in quantities:
            why = "a quantity, not a kind"
        elif len(raw) == 1 and raw[0] in _DATE_WORDS:
            why = "a date word"
        elif _squash(name) in single and not any(key(name) == key(k) for k in gold_kinds(gold)):
            why = "name of a single thing"
        if why:
            junk.append({"class": name, "why": why})
        elif raw[-1] != singular(raw[-1]):
            plural.append(name)
    return {"junk": junk, "plural": plural, "classes": sorted(n for n in index.get("classes", {})
                                                               if n not in INFRA_CLASSES)}


def gold_kinds(gold: dict[str, Any]) -> list[str]:
    return [k for t in gold.get("things", []) for k in t.get("classes", [])]


def headings(text: str) -> list[str]:
    """Markdown headings and the first line (the title) of a guide."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    heads = [ln.lstrip("#").strip() for ln in lines if ln.startswith("#")]
    return heads + lines[:1]


def document_subjects(index: dict[str, Any], texts: list[str], files: list[str]) -> list[dict[str, Any]]:
    """Text facts whose subject stands for the document, a chunk or a heading."""
    heads = {key(h) for t in texts for h in headings(t)} | {key(Path(f).stem) for f in files}
    title_parts = []
    for t in texts:
        for h in headings(t)[:1] + headings(t)[-1:]:
            title_parts += [key(p) for p in re.split(r"[:\-–—(),]", h) if len(key(p)) >= 8]
    heads |= set(title_parts)
    out = []
    for st in text_statements_all(index):
        ind = index["individuals"][st["individual"]]
        classes = {c.lower() for c in ind.get("classes", [])}
        if classes & DOC_CLASSES or individual_keys(ind) & heads:
            out.append(st)
    return out


def text_statements_all(index: dict[str, Any]) -> list[dict[str, Any]]:
    """Every fact read from text (datatype or object), one row per individual, TextChunk bookkeeping aside."""
    out = []
    for name, ind in index.get("individuals", {}).items():
        for f in ind.get("facts", []):
            src = f.get("source") or {}
            if "chunk" in src and f["property"] not in INFRA_PROPERTIES:
                out.append({"individual": name, "property": f["property"],
                            "value": f.get("literal") if f.get("literal") is not None else f.get("object"),
                            "sentence": src.get("sentence", "")})
    return out


def text_things(index: dict[str, Any], gold: dict[str, Any]) -> dict[str, Any]:
    """Gold text-only things: found as an individual, and with an acceptable class."""
    rows = []
    for t in gold.get("things", []):
        k = key(t["label"])
        hits = [(n, i) for n, i in index.get("individuals", {}).items() if k in individual_keys(i)]
        kinds = {key(c) for c in t.get("classes", [])}
        typed = [n for n, i in hits if any(key(c) in kinds for c in i.get("classes", []))]
        rows.append({"thing": t["label"], "individuals": [n for n, _ in hits],
                     "classes": sorted({c for _, i in hits for c in i.get("classes", [])}), "as_individual": bool(hits),
                     "with_kind": bool(typed)})
    return {"things": len(rows), "as_individual": sum(r["as_individual"] for r in rows),
            "with_kind": sum(r["with_kind"] for r in rows), "rows": rows}


def schema_share(outcome: Path, schema: Path) -> dict[str, Any]:
    """The share of the terms the build uses (classes of its individuals, properties of their facts) that are
    IRIs declared in the schema."""
    from rdflib import OWL, RDF, Graph, URIRef

    given = Graph().parse(schema)
    declared = {str(s) for s in given.subjects() if isinstance(s, URIRef)}
    g = Graph().parse(outcome / "ontology.ttl")
    props = {str(p) for t in (OWL.ObjectProperty, OWL.DatatypeProperty) for p in g.subjects(RDF.type, t)}
    chunks = {s for c in g.subjects(RDF.type, OWL.Class) if str(c).endswith(tuple(INFRA_CLASSES))
              for s in g.subjects(RDF.type, c)}
    used: set[str] = set()
    for s in g.subjects(RDF.type, OWL.NamedIndividual):
        if s in chunks:
            continue
        used.update(str(c) for c in g.objects(s, RDF.type) if c != OWL.NamedIndividual)
        used.update(str(p) for p in g.predicates(s, None) if str(p) in props)
    used = {u for u in used if not u.endswith(("#text", "#mentions"))}
    ours = sorted(u for u in used if u in declared)
    return {"used_terms": len(used), "schema_terms": len(ours), "share": round(len(ours) / len(used), 4) if used else 0.0,
            "new_terms": sorted(used - set(ours))}


# ----------------------------------------------------------------------------------------------- runs

def schema_supported() -> bool:
    from ontobuild.pipeline import run_build

    return "schema" in inspect.signature(run_build).parameters


def build_domain(name: str, gold: dict[str, Any], model: Any, out: Path, schema: bool) -> dict[str, Any]:
    from ontobuild.pipeline import run_build

    files = [DOMAINS / name / f for f in gold["files"]]
    extra = {"schema": [DOMAINS / name / "schema.ttl"]} if schema else {}
    before = model.usage.snapshot()
    t = time.perf_counter()
    stats = run_build(files, out=out, model=model, force=True, **extra)
    calls, pt, ct, secs = (a - b for a, b in zip(model.usage.snapshot(), before))
    return {"seconds": round(time.perf_counter() - t, 1), "counts": stats["counts"],
            "reasoner": stats["reasoner"]["status"],
            "llm": {"calls": calls, "prompt_tokens": pt, "completion_tokens": ct, "seconds": round(secs, 1)}}


_TIME = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


def judge(answer: str, expected: Any, question: str, candidates: list[str] | None = None) -> tuple[bool, bool]:
    """(strict, lenient): lenient is bench.score.is_correct; strict also refuses a hedge: naming another thing
    of the expected answer's kind (`candidates`), or giving another number, time of day or date than the
    expected one (values the question itself names aside)."""
    from bench.score import is_correct, numbers_in, numbers_match

    lenient = bool(is_correct(answer, expected))
    if not lenient:
        return False, False
    if not is_correct(answer, expected, max_extra=0, candidates=candidates or []):
        return False, True
    kind = value_key(expected)
    if kind and kind[0] == "num":
        text = _DATE.sub(" ", _TIME.sub(" ", answer))
        asked = numbers_in(question)
        others = [n for n in numbers_in(text) if not numbers_match(n, kind[1])
                  and not any(numbers_match(n, a) for a in asked)]
        return not others, True
    if kind and kind[0] in ("time", "date"):
        pattern = _TIME if kind[0] == "time" else _DATE
        others = [v for v in pattern.findall(answer) if not values_equal(v, expected) and v not in question]
        return not others, True
    return True, True


def ask_domain(out: Path, gold: dict[str, Any], model: Any) -> dict[str, Any]:
    from bench.ask_bench import _graph_of, rivals
    from bench.report import ask, close, open_answerer_for
    from bench.score import name_in_text

    answerer = open_answerer_for([out], model, out.parent / f"{out.name}_answers.log")
    graph = _graph_of(answerer, [out])
    rows = []
    for q in gold["questions"]:
        ans = ask(answerer, q["q"])
        cands = [c for c in rivals(graph, q["expected"]) if not name_in_text(c, q["q"])]
        ok, lenient = judge(ans.answer, q["expected"], q["q"], cands)
        rows.append({"question": q["q"], "from": q.get("from", ""), "expected": q["expected"], "answer": ans.answer,
                     "correct": ok, "lenient": lenient, "state": ans.state, "sparql": ans.sparql,
                     "seconds": round(ans.seconds, 1)})
        print(f"  {'OK ' if ok else 'BAD'} {q['q']} -> {ans.answer[:100]}" + ("" if ok else f" (expected "
              f"{q['expected']})"), file=sys.stderr, flush=True)
    close(answerer)
    per: dict[str, list[bool]] = {}
    for r in rows:
        per.setdefault(r["from"], []).append(r["correct"])
    return {"correct": sum(r["correct"] for r in rows), "lenient": sum(r["lenient"] for r in rows), "total": len(rows),
            "accuracy": round(sum(r["correct"] for r in rows) / len(rows), 4) if rows else 0.0,
            "per_source": {k: f"{sum(v)}/{len(v)}" for k, v in sorted(per.items())}, "rows": rows}


def score_outcome(name: str, gold: dict[str, Any], out: Path) -> dict[str, Any]:
    index = json.loads((out / "entities_index.json").read_text("utf-8"))
    coverage = json.loads((out / "coverage.json").read_text("utf-8"))
    texts = [(DOMAINS / name / f).read_text("utf-8") for f in gold["files"] if f.endswith((".md", ".txt"))]
    docs = document_subjects(index, texts, gold["files"])
    return {"facts": score_facts(index, gold), "concepts": concept_duplicates(index, gold, coverage),
            "classes": junk_classes(index, gold), "document_subjects": len(docs), "document_subject_facts": docs,
            "things": text_things(index, gold)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", help="a domain under bench/domains (repeatable)")
    ap.add_argument("--schema", action="store_true", help="build with each domain's schema.ttl")
    ap.add_argument("--reuse", action="store_true", help="score the outcome folders already there, no build")
    ap.add_argument("--no-ask", action="store_true", help="skip the end-to-end questions")
    ap.add_argument("--no-write", action="store_true", help="print, do not write bench/results")
    ap.add_argument("--note", default="", help="a note for the results (e.g. which commit built reused outcomes)")
    args = ap.parse_args(argv)
    names = args.only or sorted(p.name for p in DOMAINS.iterdir() if (p / "gold.json").is_file())
    from bench.report import run_info

    suffix = "_schema" if args.schema else ""
    results: dict[str, Any] = {"schema": args.schema, "domains": {}, **({"remark": args.note} if args.note else {})}
    results.update(run_info(None, sys.argv[1:] if argv is None else argv))
    results["command"] = results["command"].replace("bench.ask_bench", "bench.domain_bench")
    if args.schema and not schema_supported():
        results["note"] = ("ontobuild has no --schema in this build (run_build takes no `schema`): nothing was "
                           "built; run without --schema for the plain figures.")
        print(results["note"], file=sys.stderr)
        return _write(results, suffix, args.no_write)
    model = None
    if not (args.reuse and args.no_ask):
        from ontocore.llm import open_model

        model = open_model({"backend": "local"})
    results["model"] = {"backend": getattr(model, "backend", "?"), "model": getattr(model, "model", "?")}
    for name in names:
        gold = json.loads((DOMAINS / name / "gold.json").read_text("utf-8"))
        out = REPO / "outcomes" / f"domains{suffix}" / name
        row: dict[str, Any] = {"outcome": str(out.relative_to(REPO))}
        print(f"{name}: {'scoring' if args.reuse else 'building'} {out}", file=sys.stderr, flush=True)
        if not args.reuse:
            row["build"] = build_domain(name, gold, model, out, args.schema)
        elif (out / "stats.json").is_file():
            s = json.loads((out / "stats.json").read_text("utf-8"))
            row["build"] = {"seconds": s.get("seconds", {}).get("total") if isinstance(s.get("seconds"), dict)
                            else s.get("seconds"), "counts": s.get("counts"),
                            "reasoner": (s.get("reasoner") or {}).get("status"), "llm": s.get("llm")}
        row.update(score_outcome(name, gold, out))
        if args.schema:
            row["schema_terms"] = schema_share(out, DOMAINS / name / "schema.ttl")
        if not args.no_ask:
            row["answers"] = ask_domain(out, gold, model)
        row.update({"commit": results.get("commit", ""), "date": results.get("date", "")})
        results["domains"][name] = row
        print(summary_line(name, row), file=sys.stderr, flush=True)
        if not args.no_write:  # after each domain: a long run that is stopped keeps what it measured
            _write(_with_previous(results, suffix) if args.only else results, suffix, False, quiet=True)
    return _write(_with_previous(results, suffix) if args.only else results, suffix, args.no_write)


def _with_previous(results: dict[str, Any], suffix: str) -> dict[str, Any]:
    """A run over some domains (--only) keeps the other domains' rows of the results file (each row says its
    own commit and date)."""
    prev = RESULTS / f"domains{suffix}.json"
    if not prev.is_file():
        return results
    old = json.loads(prev.read_text("utf-8")).get("domains", {})
    return {**results, "domains": {**{k: v for k, v in old.items() if k not in results["domains"]},
                                   **results["domains"]}}


def _write(results: dict[str, Any], suffix: str, no_write: bool, quiet: bool = False) -> int:
    md = render_md(results)
    if not quiet:
        print(md)
    if not no_write:
        RESULTS.mkdir(parents=True, exist_ok=True)
        (RESULTS / f"domains{suffix}.json").write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n",
                                                       encoding="utf-8")
        (RESULTS / f"domains{suffix}.md").write_text(md, encoding="utf-8")
    return 0


def summary_line(name: str, r: dict[str, Any]) -> str:
    f = r["facts"]
    a = r.get("answers")
    return (f"{name}: text facts precision {f['precision']:.1%} ({f['correct_statements']}/{f['statements']}), "
            f"recall {f['recall']:.1%} ({f['found']}/{f['gold']}); duplicate-concept properties "
            f"{r['concepts']['duplicate_properties']}; junk classes {len(r['classes']['junk'])}; document subjects "
            f"{r['document_subjects']}" + (f"; answers {a['correct']}/{a['total']} (lenient {a['lenient']})" if a else ""))


def render_md(r: dict[str, Any]) -> str:
    title = "Domain benchmark" + (" with each domain's schema (--schema)" if r.get("schema") else "")
    lines = [f"# {title}\n", f"Command: `{r.get('command', 'python -m bench.domain_bench')}`; commit "
             f"{str(r.get('commit', ''))[:10]}{' (with local changes)' if r.get('dirty') else ''}; "
             f"{r.get('date', '')}; model {r.get('model', {}).get('model', '?')}; machine "
             f"{r.get('machine', {}).get('cores', '?')} cores, shared with other work (busy machine figures). "
             "Scoring rules: the docstring of bench/domain_bench.py.\n"]
    if r.get("note"):
        lines.append(f"**{r['note']}**\n")
    if r.get("remark"):
        lines.append(f"Note: {r['remark']}\n")
    if not r["domains"]:
        return "\n".join(lines)
    lines += ["| domain | text-fact precision | recall | duplicate-concept properties | junk classes | "
              "document subjects | text-only things as individual / with kind | answers (strict) | build s | LLM calls |"
              + (" schema terms |" if r.get("schema") else ""),
              "|---|---|---|---|---|---|---|---|---|---|" + ("---|" if r.get("schema") else "")]
    for name, d in r["domains"].items():
        f, t, a, b = d["facts"], d["things"], d.get("answers"), d.get("build") or {}
        llm = b.get("llm") or {}
        lines.append(f"| {name} | {f['precision']:.1%} ({f['correct_statements']}/{f['statements']}) | "
                     f"{f['recall']:.1%} ({f['found']}/{f['gold']}) | {d['concepts']['duplicate_properties']} | "
                     f"{len(d['classes']['junk'])} | {d['document_subjects']} | "
                     f"{t['as_individual']}/{t['with_kind']} of {t['things']} | "
                     + (f"{a['correct']}/{a['total']} ({', '.join(f'{k} {v}' for k, v in a['per_source'].items())}; "
                        f"lenient {a['lenient']})"
                        if a else "not asked") + f" | {b.get('seconds', '')} | {llm.get('calls', '')} |"
                     + (f" {d['schema_terms']['share']:.0%} of {d['schema_terms']['used_terms']} |"
                        if r.get("schema") else ""))
    for name, d in r["domains"].items():
        lines.append(f"\n## {name}\n")
        if d.get("commit") and d["commit"] != r.get("commit"):
            lines.append(f"Measured at commit {d['commit'][:10]} on {d.get('date', '')}.\n")
        missed = [x for x in d["facts"]["per_fact"] if not x["found"]]
        lines.append(f"Gold text facts missed ({len(missed)}):\n")
        lines += [f"- {x['id']} {x['meaning']} = {x['value']} ({', '.join(x['subjects'])}): {x['diagnosis']}"
                  for x in missed] or ["- none"]
        wrong = d["facts"]["wrong_statements"]
        lines.append(f"\nStated facts not right ({len(wrong)}):\n")
        lines += [f"- {', '.join(w['individuals'][:4])}{' ...' if len(w['individuals']) > 4 else ''} "
                  f"{w['property']} = {w['value']} {w['unit']}".rstrip() + (f" [{w['qualifier']}]" if w['qualifier']
                                                                           else "") + f" <- \"{w['sentence'][:90]}\""
                  for w in wrong] or ["- none"]
        dup = [g for g in d["concepts"]["groups"] if g["duplicates"]]
        lines.append("\nConcept groups: " + "; ".join(f"{g['concept']}: {', '.join(g['properties']) or 'not found'}"
                                                      for g in d["concepts"]["groups"]) + f" ({len(dup)} split)")
        c = d["classes"]
        lines.append(f"\nClasses ({len(c['classes'])}): {', '.join(c['classes'])}. Junk: "
                     + (", ".join(f"{j['class']} ({j['why']})" for j in c["junk"]) or "none")
                     + (f". Plural names: {', '.join(c['plural'])}" if c["plural"] else "") + ".")
        lines.append("\nText-only things: " + "; ".join(
            f"{x['thing']}: " + (f"{', '.join(x['individuals'])} ({', '.join(x['classes'])})" if x["individuals"]
                                 else "not found") for x in d["things"]["rows"]) + ".")
        if d.get("schema_terms"):
            s = d["schema_terms"]
            lines.append(f"\nSchema terms: {s['schema_terms']}/{s['used_terms']}; new terms: "
                         f"{', '.join(u.rsplit('#', 1)[-1].rsplit('/', 1)[-1] for u in s['new_terms']) or 'none'}.")
        if d.get("answers"):
            lines.append("\n| question | from | expected | answer | correct |\n|---|---|---|---|---|")
            for q in d["answers"]["rows"]:
                ans = " ".join(str(q["answer"]).split())[:120].replace("|", "/")
                lines.append(f"| {q['question']} | {q['from']} | {q['expected']} | {ans} | "
                             f"{'yes' if q['correct'] else 'no'} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
