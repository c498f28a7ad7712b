"""The model's part of reading a sentence: it chooses, among what code proposes, the thing each value belongs to
and the name it is stored under, and for each pair of things the sentence joins, the relation (or none). One
small call per sentence, its output constrained by a JSON Schema built from the candidates (every id, thing and
name is an enum); code checks each choice against the rules a choice must keep (`problems`) and asks once more
with the precise error, then arbitrates: a choice that still breaks a rule gives way to code's own reading."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from ontocore.agent import run_agent
from ontocore.errors import ToolArgumentError
from ontocore.llm import ChatModel
from ontocore.tools import Tool
from ontocore.trace import Trace

from ..prompts import prompts
from .reading import Reading, Thing

log = logging.getLogger(__name__)

NONE = "none"


@dataclass
class Link:
    """Two things a sentence joins, as code read them, with the relations the model may choose."""
    id: str  # "L1"
    subject: str  # a Thing id
    object: str
    words: str  # what joins them in the sentence ("inspected by", "for")
    options: list[str] = field(default_factory=list)  # relation names (NONE is always allowed)
    kind: str = "clause"  # "clause" (a verb and what follows it) | "modifier" (a name inside a thing's phrase)


@dataclass
class ValueAsk:
    """A value to decide: code's candidates for its owner, best first, and its names."""
    id: str
    owners: list[str]  # Thing ids, code's order
    options: list[str]  # property names
    line: str  # how the prompt shows it
    certain: str = ""  # the verb whose explicit subject owners[0] is: another choice must be argued (`problems`)
    fixed: bool = False  # the grammar says whose it is ("a bay of 60 m²"): owners[0] or none, nothing else


@dataclass
class Decision:
    values: dict[str, tuple[str, str]] = field(default_factory=dict)  # V id -> (Thing id or NONE, property)
    links: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # L id -> (subject, relation, object)
    by: dict[str, str] = field(default_factory=dict)  # id -> "model" | "code" (who decided)
    answered: bool = False


def thing_line(t: Thing, referent: str = "") -> str:
    role = t.describe()
    shown = t.label if not referent else f"{t.text} (= {referent})"
    return f"{t.id} {shown}" + (f" ({role})" if role else "")


def facts_schema(values: list[ValueAsk], links: list[Link], things: list[str], directed: bool) -> dict[str, Any]:
    """One entry per value and per link, in the order listed (the position says which): a value's thing and name;
    a link's relation, and with a vocabulary its subject and object (the relation's direction is the model's)."""
    props: dict[str, Any] = {}
    if values:
        items = [{"type": "object", "additionalProperties": False, "required": ["of", "property"],
                  "properties": {"of": {"enum": [*v.owners, NONE] if v.fixed else
                                        [*v.owners, *[t for t in things if t not in v.owners], NONE]},
                                 "property": {"enum": v.options}}} for v in values]
        props["values"] = {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    if links:
        items = []
        for k in links:
            item: dict[str, Any] = {"relation": {"enum": [*k.options, NONE]}}
            if directed:
                item = {"subject": {"enum": [k.subject, k.object]}, **item, "object": {"enum": [k.object, k.subject]}}
            items.append({"type": "object", "additionalProperties": False, "required": list(item),
                          "properties": item})
        props["links"] = {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}
    return {"type": "object", "additionalProperties": False, "required": list(props), "properties": props}


def _shown(directed: bool) -> dict[str, Any]:
    """The facts tool as the model is shown it: the same for every sentence of a build (it stays in the kept prompt
    prefix); each sentence's own ids, things, names and relations are in its user turn, and its call is checked and
    constrained by `facts_schema`."""
    thing = {"type": "string", "description": "a thing's id: T1, T2, ..."}
    link = {"relation": {"type": "string", "description": "one of the link's relations, or none"}}
    if directed:
        link = {"subject": thing, **link, "object": thing}
    value = {"of": {"type": "string", "description": "a thing's id (T1, T2, ...) or none"},
             "property": {"type": "string", "description": "one of the value's names"}}
    return {"type": "object", "properties": {
        "values": {"type": "array", "items": {"type": "object", "properties": value}},
        "links": {"type": "array", "items": {"type": "object", "properties": link}}}}


def problems(reading: Reading, values: list[ValueAsk], links: list[Link], decision: Decision) -> list[str]:
    """The choices that break a rule, each as a sentence the model can act on."""
    out = []
    by_id = {t.id: t for t in reading.things}
    for v in values:
        owner, _ = decision.values.get(v.id, (NONE, ""))
        t = by_id.get(owner)
        if t is None:
            continue
        if t.owner and owner not in v.owners[:1] and t.owner in v.owners:
            out.append(f"{v.id}: {owner} ({t.label}) only sits inside {t.owner}'s phrase; the clause gives the "
                       f"value of {v.owners[0]} unless it says otherwise")
        elif v.certain and owner != v.owners[0]:
            out.append(f"{v.id} follows '{v.certain}', whose subject is {v.owners[0]}; it is {v.owners[0]}'s value "
                       "unless the sentence says it is another thing's")
        elif t.head.lower() in ("it", "they", "them") and not t.refers:
            out.append(f"{v.id}: {owner} points to nothing the text named")
    for k in links:
        s, rel, o = decision.links.get(k.id, ("", NONE, ""))
        if rel != NONE and s == o:
            out.append(f"{k.id}: the subject and the object are the same thing ({s}); a relation joins two things")
        elif rel != NONE and {s, o} != {k.subject, k.object}:
            out.append(f"{k.id}: it joins {k.subject} and {k.object}; use those two (in either direction) or "
                       f"relation none")
    return out


def user_prompt(reading: Reading, values: list[ValueAsk], links: list[Link], things: list[str],
                context: str = "") -> str:
    """What the model is shown of one sentence: the sentence, its things with their roles, its values with their
    names, its links with their relations."""
    value_lines = "".join(f"{v.line}\n" for v in values)
    link_lines = "".join(f"{k.id} {k.subject} '{k.words}' {k.object}; relation: {', '.join(k.options)} or none\n"
                         for k in links)
    shown = set(things) | {x for k in links for x in (k.subject, k.object)}  # a link never names an unseen thing
    return prompts.render("read_sentence", context=context, sentence=reading.text,
                          things="\n".join(thing_line(t, t.referent) for t in reading.things if t.id in shown),
                          values=("Values:\n" + value_lines) if values else "",
                          links=("Links:\n" + link_lines) if links else "")


def reply_budget(values: list[ValueAsk], links: list[Link], directed: bool) -> int:
    """The completion tokens a sentence's answer may take: its entries, each short."""
    return 30 + 22 * len(values) + (28 if directed else 14) * len(links)


def choose(model: ChatModel, reading: Reading, values: list[ValueAsk], links: list[Link], things: list[str],
           system: str, context: str, trace: Trace | None, label: str, directed: bool = False) -> Decision:
    """Ask the model for one sentence's values and links; check, ask once more, arbitrate."""
    decision = Decision()
    if not values and not links:
        return decision
    by_value = {v.id: v for v in values}
    by_link = {k.id: k for k in links}
    attempts = {"n": 0}

    def facts(values: list[dict[str, Any]] | None = None, links: list[dict[str, Any]] | None = None) -> str:
        attempts["n"] += 1
        for ask, item in zip(by_value.values(), values or []):
            decision.values[ask.id] = (item.get("of", NONE), item.get("property", ""))
            decision.by[ask.id] = "model"
        for k, item in zip(by_link.values(), links or []):
            decision.links[k.id] = (item.get("subject", k.subject), item.get("relation", NONE),
                                    item.get("object", k.object))
            decision.by[k.id] = "model"
        wrong = problems(reading, list(by_value.values()), list(by_link.values()), decision)
        if wrong and attempts["n"] < 2:
            raise ToolArgumentError("Fix these and call facts again with every entry: " + "; ".join(wrong))
        return "ok"

    tool = Tool("facts", "The values and links this sentence states, in the order listed.",
                facts_schema(values, links, things, directed), facts, terminal=True, shown=_shown(directed))
    messages = [{"role": "system", "content": system},
                {"role": "user", "content": user_prompt(reading, values, links, things, context)}]
    result = run_agent(model, messages, [tool], max_turns=2, trace=trace, label=label,
                       max_tokens=reply_budget(values, links, directed))
    decision.answered = result.state == "answered" or bool(decision.by)
    if result.state != "answered":
        log.info("no usable answer for %s: %s", label, result.reason)
    _arbitrate(reading, values, links, decision)
    return decision


def _arbitrate(reading: Reading, values: list[ValueAsk], links: list[Link], decision: Decision) -> None:
    """Choices still breaking a rule after the second ask give way to code's reading: a value to code's first
    candidate, a link to none."""
    for v in values:
        if v.id not in decision.values:
            continue
        if problems(reading, [v], [], decision):
            decision.values[v.id] = (v.owners[0] if v.owners else NONE, decision.values[v.id][1])
            decision.by[v.id] = "code"
    for k in links:
        if k.id in decision.links and problems(reading, [], [k], decision):
            decision.links[k.id] = (k.subject, NONE, k.object)
            decision.by[k.id] = "code"
