"""Reasoning that scales, for big graphs (bigoutput.py): HermiT on the TBox and a sample of the ABox, and the whole
ABox checked by SPARQL constraint queries on the outcome's Oxigraph store.

HermiT over a million individuals does not finish in useful time; what makes an ontology of the shape ontobuild
writes inconsistent (consistency.py lists it) is found by queries instead, over every individual:

* an individual in two classes declared disjoint: by assertion (a class or one of its subclasses), or because a
  fact puts it in a property's (single) domain or an object property's range (a domain or range violation);
* two different values of a functional datatype property on one individual;
* a literal outside its datatype property's range (another datatype, or a number that is not one).

The class hierarchy is small: the classes under each disjoint class, and the properties whose domain or range
lies there, are worked out here and given to the queries as VALUES. Disjointness is one pass over the store: every
individual's memberships (by assertion, domain or range) grouped by individual, kept when it reaches two or more
disjoint classes; which pairs clash is told apart here. The value checks are one query per property.
The report says which check ran on what (`ReasonerReport.checks`)."""

from __future__ import annotations

import logging
import tempfile
import time
from pathlib import Path
from typing import Any

from ..ontology.entries import Individual

from ..ontology.index import EntitiesIndex
from ..ontology.reason import CONSISTENT, INCONSISTENT, NOT_CHECKED, ReasonerReport, check

log = logging.getLogger(__name__)

SAMPLE_PER_CLASS = 50
MAX_SHOWN = 20  # violations listed per query
MAX_CANDIDATES = 10_000  # individuals in the reach of two or more disjoint classes looked at
XSD = "http://www.w3.org/2001/XMLSchema#"
_INTEGERS = ["integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
             "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort", "unsignedByte"]
_ALLOWED = {  # a datatype property's range -> the literal datatypes that are in it
    "xsd:decimal": ["decimal", *_INTEGERS],
    "xsd:integer": _INTEGERS,
    "xsd:double": ["double"],
    "xsd:float": ["float"],
    "xsd:string": ["string"],
    "xsd:boolean": ["boolean"],
    "xsd:dateTime": ["dateTime", "dateTimeStamp"],
    "xsd:date": ["date"],
}
_NUMERIC = {"xsd:decimal", "xsd:integer", "xsd:double", "xsd:float"}


def sample_index(idx: EntitiesIndex, per_class: int = SAMPLE_PER_CLASS) -> EntitiesIndex:
    """The TBox of `idx` with each class's first `per_class` individuals (in the index's order) and their facts; an
    individual a sampled fact points to comes along with its classes (without its facts)."""
    out = EntitiesIndex(base_iri=idx.base_iri)
    out.classes, out.properties, out.prefixes = idx.classes, idx.properties, idx.prefixes
    taken: dict[str, int] = {}
    for name, ind in idx.individuals.items():
        if any(taken.get(c, 0) < per_class for c in ind.classes) or (not ind.classes and taken.get("", 0) < per_class):
            out.individuals[name] = ind
            for c in ind.classes or [""]:
                taken[c] = taken.get(c, 0) + 1
    for ind in list(out.individuals.values()):
        for f in ind.facts:
            if f.object and f.object not in out.individuals and f.object in idx.individuals:
                other = idx.individuals[f.object]
                out.individuals[f.object] = Individual(name=other.name, label=other.label, classes=other.classes)
    return out


def _iri(idx: EntitiesIndex, name: str) -> str:
    return f"<{idx.iri_of(name)}>"


def _dt(datatype: str) -> str:
    return f"<{XSD}{datatype[4:]}>" if datatype.startswith("xsd:") else f"<{datatype}>"


def _ways_in(idx: EntitiesIndex, cls: str) -> tuple[list[str], list[str], list[str]]:
    """The classes under `cls` (itself included), the properties whose one domain is under it, and the object
    properties whose range is under it."""
    under = sorted(c for c in idx.classes if cls in idx.superclasses_closure(c))
    domain = sorted(p.name for p in idx.properties.values() if len(p.domain) == 1 and p.domain[0] in under)
    rng = sorted(p.name for p in idx.properties.values() if p.kind == "object" and p.range in under)
    return under, domain, rng


def _membership_query(idx: EntitiesIndex, keys: list[str]) -> str:
    """One query for every disjointness: each individual with the disjoint classes (`keys`) it is in, by
    assertion, domain or range, kept when it is in two or more. One pass over the store, not one per pair (the
    pairs are told apart here, from ?ks)."""
    typed, by_domain, by_range = [], [], []
    for k in keys:
        under, domain, rng = _ways_in(idx, k)
        typed += [f'({_iri(idx, c)} "{k}")' for c in under]
        by_domain += [f'({_iri(idx, p)} "{k}")' for p in domain]
        by_range += [f'({_iri(idx, p)} "{k}")' for p in rng]
    parts = [f"{{ VALUES (?c ?k) {{ {' '.join(typed)} }} ?x a ?c }}"]
    if by_domain:
        parts.append(f"{{ VALUES (?d ?k) {{ {' '.join(by_domain)} }} ?x ?d ?o }}")
    if by_range:
        parts.append(f"{{ VALUES (?r ?k) {{ {' '.join(by_range)} }} ?s ?r ?x }}")
    return (f"SELECT ?x (GROUP_CONCAT(DISTINCT ?k; separator=\" \") AS ?ks) WHERE {{ {' UNION '.join(parts)} }} "
            f"GROUP BY ?x HAVING (COUNT(DISTINCT ?k) > 1) LIMIT {MAX_CANDIDATES}")


def constraint_queries(idx: EntitiesIndex) -> list[dict[str, str]]:
    """The constraint queries for the ontology of `idx`: [{kind, about, query}], each SELECT giving ?x (the
    individual); ?ks (the disjoint classes it would be in) for disjointness, ?n or ?v for value checks."""
    out: list[dict[str, str]] = []
    pairs = sorted({tuple(sorted((c.name, d))) for c in idx.classes.values() for d in c.disjoint if d in idx.classes})
    if pairs:
        keys = sorted({c for pair in pairs for c in pair})
        out.append({"kind": "disjoint classes", "about": f"{len(pairs)} pairs of disjoint classes",
                    "pairs": pairs, "query": _membership_query(idx, keys)})
    for name, p in sorted(idx.properties.items()):
        if p.kind != "datatype":
            continue
        if p.functional:
            out.append({"kind": "functional clash", "about": f"{name} is functional", "property": name,
                        "query": f"SELECT ?x (COUNT(DISTINCT ?v) AS ?n) WHERE {{ ?x {_iri(idx, name)} ?v }} "
                                 f"GROUP BY ?x HAVING (COUNT(DISTINCT ?v) > 1) LIMIT {MAX_SHOWN + 1}"})
        allowed = _ALLOWED.get(p.range)
        if allowed:
            test = f"!isLiteral(?v) || DATATYPE(?v) NOT IN ({', '.join(_dt('xsd:' + a) for a in allowed)})"
            if p.range in _NUMERIC:
                test += " || !isNumeric(?v)"  # a numeric literal whose lexical form is not a number
            out.append({"kind": "datatype range", "about": f"the range of {name} is {p.range}", "property": name,
                        "query": f"SELECT ?x ?v WHERE {{ ?x {_iri(idx, name)} ?v FILTER({test}) }} "
                                 f"LIMIT {MAX_SHOWN + 1}"})
    return out


def _short(term: Any) -> str:
    text = str(getattr(term, "value", term))
    return text.rsplit("#", 1)[-1].rsplit("/", 1)[-1] or text


def run_constraints(idx: EntitiesIndex, store_db: str | Path, timeout_note: str = "") -> dict[str, Any]:
    """Run every constraint query on the Oxigraph store in `store_db` (its named graphs read as one); the result:
    {queries, violations: [{kind, about, individual, value?}], sentences, seconds}."""
    import pyoxigraph

    start = time.monotonic()
    store = pyoxigraph.Store.read_only(str(store_db))
    violations: list[dict[str, Any]] = []
    sentences: list[str] = []
    queries = constraint_queries(idx)
    for q in queries:
        rows = list(store.query(q["query"], use_default_graph_as_union=True))
        if q["kind"] == "disjoint classes":
            if len(rows) >= MAX_CANDIDATES:
                sentences.append(f"(only the first {MAX_CANDIDATES} individuals in two or more disjoint classes' "
                                 "reach were looked at)")
            rows = [(row, pair) for row in rows for pair in q["pairs"]
                    if set(pair) <= set(str(row["ks"].value).split())]
        for item in rows[:MAX_SHOWN]:
            row, pair = item if isinstance(item, tuple) else (item, None)
            who = _short(row["x"])
            v: dict[str, Any] = {"kind": q["kind"], "about": q["about"], "individual": who}
            if pair is not None:
                v["about"] = f"{pair[0]} and {pair[1]} are disjoint"
                sentences.append(f"individual {who} would be both {pair[0]} and {pair[1]}, which are declared "
                                 "disjoint (by its classes, or a fact in a property's domain or range).")
            elif q["kind"] == "functional clash":
                v["values"] = int(row["n"].value)
                sentences.append(f"individual {who} has {v['values']} values of {q['property']}, which is "
                                 "functional (allows one).")
            else:
                v["value"] = str(row["v"].value)
                sentences.append(f"individual {who} has {q['property']} = \"{v['value']}\", outside {q['about']}.")
            violations.append(v)
        if len(rows) > MAX_SHOWN:
            sentences.append(f"(more violations of \"{q['about']}\" than the {MAX_SHOWN} shown)")
    del store
    return {"queries": len(queries), "violations": violations, "sentences": sentences,
            "seconds": round(time.monotonic() - start, 3)}


def check_big(idx: EntitiesIndex, store_db: str | Path, triples: int, per_class: int = SAMPLE_PER_CLASS,
              timeout_s: float = 120, sample: EntitiesIndex | None = None, individuals: int | None = None
              ) -> ReasonerReport:
    """HermiT on the TBox and a sample of the ABox, then the constraint queries on the whole store; one report
    whose `checks` say which check ran on what. Inconsistent when either finds a contradiction. `sample`: the
    sample when the individuals are not in `idx` (streamed rows, tables/streaming/), of `individuals` in all."""
    from ..ontology.owl import serialize

    start = time.monotonic()
    if sample is not None:
        taken = sample_index(idx, per_class)
        taken.individuals = {**sample.individuals, **taken.individuals}
        sample = taken
    else:
        sample = sample_index(idx, per_class)
    total = len(idx.individuals) if individuals is None else individuals
    with tempfile.TemporaryDirectory(prefix="ontobuild-sample-") as tmp:
        path = Path(tmp) / "sample.owl"
        path.write_bytes(serialize(sample)[0])
        hermit = check(path, timeout_s=timeout_s)
    on = (f"the TBox ({len(idx.classes)} classes, {len(idx.properties)} properties) and a sample of the ABox: "
          f"{len(sample.individuals)} of {total} individuals (each class's first {per_class})")
    checks: list[dict[str, Any]] = [{"check": "HermiT", "on": on, "status": hermit.status,
                                     "reason": hermit.reason, "seconds": round(hermit.seconds, 3)}]
    result = run_constraints(idx, store_db)
    status = INCONSISTENT if result["violations"] else CONSISTENT
    checks.append({"check": "SPARQL constraint queries", "status": status,
                   "on": f"the whole ABox: {triples} triples in the Oxigraph store ({result['queries']} queries: "
                         "disjoint classes by assertion, domain and range; functional datatype properties; "
                         "datatype ranges)",
                   "violations": len(result["violations"]), "seconds": result["seconds"]})
    details = [f"HermiT: {hermit.status}{': ' + hermit.reason if hermit.reason else ''} (on {on})",
               *(f"  {d}" for d in hermit.details),
               f"SPARQL constraint queries: {status} (on all {triples} triples, {result['queries']} queries)",
               *(f"  {s}" for s in result["sentences"])]
    final = INCONSISTENT if INCONSISTENT in (hermit.status, status) else CONSISTENT
    reason = "" if final != NOT_CHECKED else hermit.reason
    report = ReasonerReport(status=final, reason=reason, details=details, seconds=time.monotonic() - start)
    report.checks = checks
    return report


__all__ = ["SAMPLE_PER_CLASS", "sample_index", "constraint_queries", "run_constraints", "check_big"]
