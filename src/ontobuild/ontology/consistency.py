"""The reasoner in the loop: when HermiT finds the ontology inconsistent or finds classes that can have no members,
code turns the cause into structured problems over the index (the axioms and facts involved), proposes fixes
(drop a fact, retype an individual, drop an axiom), and the model picks one per problem in a bounded repair round;
HermiT checks again after each fix. What was repaired, and what remains, goes to the report.

Problems code can find (they are what makes an OWL 2 ontology of this shape inconsistent):

* an individual in two disjoint classes, by assertion or because a fact puts it in a property's domain or range
  (a domain or range violation);
* two different values of a functional datatype property on one individual;
* a value that is not in its datatype property's range;
* a class that is a subclass of two disjoint classes (unsatisfiable)."""

from __future__ import annotations

import logging
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ontocore.agent import choose_one
from ontocore.llm import ChatModel
from ontocore.trace import Trace

from .entries import Fact, check_literal

from .index import EntitiesIndex
from ..prompts import prompts
from .reason import CONSISTENT, INCONSISTENT, ReasonerReport

log = logging.getLogger(__name__)

MAX_REPAIRS = 5


@dataclass
class Fix:
    action: str  # drop_fact | retype | drop_axiom
    text: str  # what it does, in plain words
    args: dict[str, Any] = field(default_factory=dict)


@dataclass
class Problem:
    kind: str  # disjoint classes | domain violation | range violation | functional clash | datatype range | unsatisfiable class
    text: str
    involved: list[str] = field(default_factory=list)  # the axioms and facts, one line each, with their sources
    fixes: list[Fix] = field(default_factory=list)


def _fact_line(idx: EntitiesIndex, subject: str, f: Fact) -> str:
    value = idx.individuals[f.object].label if f.object and f.object in idx.individuals else f'"{f.literal}"'
    where = f.source.get("sentence") or " ".join(str(f.source.get(k, "")) for k in ("file", "path")).strip()
    return f"fact: {subject} {f.property} {value}" + (f"  (from {where[:120]})" if where else "")


def _drop_fact(idx: EntitiesIndex, subject: str, f: Fact) -> Fix:
    value = f.object if f.object is not None else f'"{f.literal}"'
    return Fix("drop_fact", f"drop the fact {subject} {f.property} {value}",
               {"subject": subject, "property": f.property, "object": f.object, "literal": f.literal})


def _why_in(idx: EntitiesIndex, ind: str, cls: str) -> list[tuple[str, Any]]:
    """How an individual comes to be in `cls`: ("asserted", C) when one of its classes is (a subclass of) cls;
    ("domain", fact) or ("range", (subject, fact)) when a fact puts it there."""
    out: list[tuple[str, Any]] = []
    i = idx.individuals[ind]
    out += [("asserted", c) for c in i.classes if cls in idx.superclasses_closure(c)]
    for f in i.facts:
        p = idx.properties.get(f.property)
        if p and len(p.domain) == 1 and cls in idx.superclasses_closure(p.domain[0]):
            out.append(("domain", f))
    for s, f in idx.iter_facts():
        p = idx.properties.get(f.property)
        if f.object == ind and p and p.kind == "object" and p.range and cls in idx.superclasses_closure(p.range):
            out.append(("range", (s.name, f)))
    return out


def _disjoint_pairs(idx: EntitiesIndex) -> list[tuple[str, str]]:
    pairs = {tuple(sorted((c.name, d))) for c in idx.classes.values() for d in c.disjoint if d in idx.classes}
    return sorted(pairs)  # type: ignore[arg-type]


def _way_lines(idx: EntitiesIndex, ind: str, how: str, what: Any) -> list[str]:
    if how == "asserted":
        return [f"type: {ind} is a {what}"]
    if how == "domain":
        p = idx.properties[what.property]
        return [_fact_line(idx, ind, what), f"axiom: the domain of {p.name} is {p.domain[0]}"]
    s, f = what
    p = idx.properties[f.property]
    return [_fact_line(idx, s, f), f"axiom: the range of {p.name} is {p.range}"]


def _way_fixes(idx: EntitiesIndex, ind: str, how: str, what: Any) -> list[Fix]:
    if how == "asserted":
        return [Fix("retype", f"{ind} is not a {what}", {"individual": ind, "class": what})]
    if how == "domain":
        p = idx.properties[what.property]
        return [_drop_fact(idx, ind, what), Fix("drop_axiom", f"drop the domain {p.domain[0]} of {p.name}",
                                                {"axiom": "domain", "property": p.name})]
    s, f = what
    p = idx.properties[f.property]
    return [_drop_fact(idx, s, f), Fix("drop_axiom", f"drop the range {p.range} of {p.name}",
                                       {"axiom": "range", "property": p.name})]


def _membership_problems(idx: EntitiesIndex, pairs: list[tuple[str, str]]) -> list[Problem]:
    out = []
    for ind in sorted(idx.individuals):
        for a, b in pairs:
            ways_a, ways_b = _why_in(idx, ind, a), _why_in(idx, ind, b)
            if not ways_a or not ways_b:
                continue
            kinds = {w[0] for w in ways_a + ways_b}
            kind = "range violation" if "range" in kinds else "domain violation" if "domain" in kinds else \
                "disjoint classes"
            involved = [f"axiom: {a} and {b} are disjoint"]
            fixes = []
            for ways in (ways_a, ways_b):
                for how, what in ways:
                    involved += _way_lines(idx, ind, how, what)
                if len(ways) == 1:  # one way in: removing it is a fix (two ways would need two)
                    fixes += _way_fixes(idx, ind, *ways[0])
            fixes.append(Fix("drop_axiom", f"drop the axiom that {a} and {b} are disjoint",
                             {"axiom": "disjoint", "a": a, "b": b}))
            text = f"{idx.individuals[ind].label} would be both {_a(a)} and {_a(b)}, which are disjoint"
            out.append(Problem(kind, text, list(dict.fromkeys(involved)), _unique(fixes)))
    return out


def _a(word: str) -> str:
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def _unique(fixes: list[Fix]) -> list[Fix]:
    seen, out = set(), []
    for f in fixes:
        if f.text not in seen:
            seen.add(f.text)
            out.append(f)
    return out


def _value_problems(idx: EntitiesIndex) -> list[Problem]:
    out = []
    for ind in sorted(idx.individuals):
        facts = idx.individuals[ind].facts
        for f in facts:
            p = idx.properties.get(f.property)
            if p and p.kind == "datatype" and p.range and f.literal is not None and \
                    check_literal(f.literal, p.range) is not None:
                out.append(Problem("datatype range", f'{ind} has {p.name} "{f.literal}", not a {p.range}',
                                   [_fact_line(idx, ind, f), f"axiom: the range of {p.name} is {p.range}"],
                                   [_drop_fact(idx, ind, f), Fix("drop_axiom", f"drop the range {p.range} of {p.name}",
                                                                 {"axiom": "range", "property": p.name})]))
        for name, p in sorted(idx.properties.items()):
            values = [f for f in facts if f.property == name and f.literal is not None]
            if p.functional and p.kind == "datatype" and len({(f.literal, f.datatype) for f in values}) > 1:
                out.append(Problem("functional clash", f"{ind} has {len(values)} values of {name}, which allows one",
                                   [*(_fact_line(idx, ind, f) for f in values), f"axiom: {name} is functional"],
                                   [*(_drop_fact(idx, ind, f) for f in values),
                                    Fix("drop_axiom", f"{name} is not functional", {"axiom": "functional",
                                                                                   "property": name})]))
    return out


def _class_problems(idx: EntitiesIndex, pairs: list[tuple[str, str]]) -> list[Problem]:
    out = []
    for c in sorted(idx.classes):
        closure = idx.superclasses_closure(c)
        for a, b in pairs:
            if a in closure and b in closure:
                edges = [(x, s) for x in closure for s in idx.classes[x].superclasses if s in closure and x != s]
                out.append(Problem("unsatisfiable class", f"class {c} can have no members: it is both {_a(a)} and {_a(b)}",
                                   [f"axiom: {a} and {b} are disjoint", *(f"axiom: {x} is a subclass of {s}"
                                                                         for x, s in sorted(edges))],
                                   [*(Fix("drop_axiom", f"{x} is not a subclass of {s}",
                                          {"axiom": "subclass", "a": x, "b": s}) for x, s in sorted(edges)),
                                    Fix("drop_axiom", f"drop the axiom that {a} and {b} are disjoint",
                                        {"axiom": "disjoint", "a": a, "b": b})]))
                break
    return out


def find_problems(idx: EntitiesIndex) -> list[Problem]:
    """The problems of the index that make it inconsistent or a class unsatisfiable (see the module docstring)."""
    pairs = _disjoint_pairs(idx)
    return _class_problems(idx, pairs) + _membership_problems(idx, pairs) + _value_problems(idx)


def apply_fix(idx: EntitiesIndex, fix: Fix) -> None:
    a = fix.args
    if fix.action == "drop_fact":
        ind = idx.individuals[a["subject"]]
        ind.facts = [f for f in ind.facts if not (f.property == a["property"] and f.object == a["object"]
                                                  and f.literal == a["literal"])]
        idx.skipped.append({"value": f'{a["subject"]} {a["property"]} {a["object"] or a["literal"]}',
                            "reason": "dropped by the reasoner's repair round: it contradicted the ontology"})
    elif fix.action == "retype":
        ind = idx.individuals[a["individual"]]
        ind.classes = [c for c in ind.classes if c != a["class"]]
    elif a["axiom"] in ("domain", "range", "functional"):
        p = idx.properties[a["property"]]
        if a["axiom"] == "domain":
            p.domain = []
        elif a["axiom"] == "range":
            p.range = ""
        else:
            p.functional = False
    elif a["axiom"] == "disjoint":
        for x, y in ((a["a"], a["b"]), (a["b"], a["a"])):
            idx.classes[x].disjoint = [d for d in idx.classes[x].disjoint if d != y]
    elif a["axiom"] == "subclass":
        idx.classes[a["a"]].superclasses = [s for s in idx.classes[a["a"]].superclasses if s != a["b"]]


def _choose(model: ChatModel, problem: Problem, trace: Trace | None) -> Fix | None:
    ids = [f"fix{i + 1}" for i in range(len(problem.fixes))]
    text = prompts.render("repair_choice", problem=problem.text, involved="\n".join(problem.involved),
                          fixes="\n".join(f"{i}: {f.text}" for i, f in zip(ids, problem.fixes)))
    choice = choose_one(model, text, "choose_fix", "Choose the fix that removes what is wrong.", "fix", ids,
                        system=prompts.render("system_builder"), trace=trace, label="repair", max_tokens=30)
    return problem.fixes[ids.index(choice)] if choice else None


def check_index(idx: EntitiesIndex, timeout_s: float = 120) -> ReasonerReport:
    """HermiT's verdict on the index's ontology (written to a temporary file)."""
    from .owl import serialize
    from .reason import check

    with tempfile.TemporaryDirectory(prefix="ontobuild-repair-") as tmp:
        path = Path(tmp) / "ontology.owl"
        path.write_bytes(serialize(idx)[0])
        return check(path, timeout_s=timeout_s)


def needs_repair(report: ReasonerReport | dict[str, Any]) -> bool:
    data = report.to_dict() if isinstance(report, ReasonerReport) else report
    return data.get("status") == INCONSISTENT or any("can have no members" in d for d in data.get("details", []))


def repair_round(model: ChatModel, idx: EntitiesIndex, report: ReasonerReport | dict[str, Any],
                 trace: Trace | None = None, check: Callable[[EntitiesIndex], ReasonerReport] = check_index,
                 max_repairs: int = MAX_REPAIRS) -> dict[str, Any]:
    """Repair the index in place, one fix per problem, at most `max_repairs` fixes, HermiT re-checking after each.

    Returns {"repaired": [{problem, involved, fix, action}], "remaining": [problem texts], "status": verdict}."""
    repaired: list[dict[str, Any]] = []
    unfixed: list[str] = []
    status = report.status if isinstance(report, ReasonerReport) else report.get("status", "")
    while needs_repair(report) and len(repaired) < max_repairs:
        problems = [p for p in find_problems(idx) if p.text not in unfixed]
        if not problems:
            break
        problem = problems[0]
        fix = _choose(model, problem, trace)
        if fix is None:
            unfixed.append(problem.text)
            continue
        apply_fix(idx, fix)
        repaired.append({"problem": problem.text, "kind": problem.kind, "involved": problem.involved,
                         "fix": fix.text, "action": fix.action})
        if trace is not None:
            trace.write("repair", repair=repaired[-1])
        report = check(idx)
        status = report.status
    remaining = [p.text for p in find_problems(idx)] if needs_repair(report) else []
    if needs_repair(report) and not remaining:
        data = report.to_dict() if isinstance(report, ReasonerReport) else report
        remaining = list(data.get("details", [])) or ["HermiT still finds a contradiction code cannot locate"]
    log.info("repair round: %d fixed, %d remaining (%s)", len(repaired), len(remaining), status)
    return {"repaired": repaired, "remaining": remaining, "status": status or CONSISTENT}
