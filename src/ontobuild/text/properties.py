"""One concept, one property: after the text step, datatype properties that may mean the same concept (the same
dimension, unit and bound, never on one thing together, held by things of a shared class) are shown to the model,
which says whether they are one; code merges the ones it confirms into the name `_keeper` picks, each moved value
keeping the words that made its name specific as its qualifier. Also the package words of the texts ("sold in
cases of 6": case), so that a quantity per package is one concept."""

from __future__ import annotations

import re
from typing import Any

from ontocore.agent import run_agent
from ontocore.llm import ChatModel
from ontocore.text import singular
from ontocore.tools import Tool
from ontocore.trace import Trace

from ..ontology.index import EntitiesIndex
from ..inputs.chunks import Chunk
from ..prompts import prompts
from .concepts import GENERIC, concept_words, modifier_words


def package_words(chunks: list[Chunk]) -> set[str]:
    """Words the texts use for packages ("sold in cases of 6" -> case): a quantity per package is one concept."""
    out = set()
    for c in chunks:
        for m in re.finditer(r"\b(?:in|into|on|onto)\s+([a-z]{3,}s)\s+(?:of|with|containing)\s+"
                             r"(?:\d|one|two|three|four|five|six|ten|twelve)|\b([a-z]{3,}s)\s+(?:with|containing|holding)"
                             r"\s+\d+\s+(?:[A-Za-z]+\s+)?(?:pieces|units|items)\b", c.text, re.I):
            out.add(singular((m.group(1) or m.group(2)).lower()))
    return out


def rename_in_coverage(chunks: list[dict[str, Any]], merges: list[dict[str, Any]]) -> None:
    """Coverage entries name the property a fact ended in, after merges."""
    into = {m["merged"]: m["into"] for m in merges}
    for c in chunks:
        for e in c["numbers"]:
            while e.get("property") in into:
                e["property"] = into[e["property"]]


def _generic(name: str) -> bool:
    words = re.findall(r"[a-z]+|[A-Z][a-z]*", name)
    core = [w.lower() for w in words if w.lower() not in ("min", "max")]
    return bool(core) and core[0] in GENERIC


def synonym_groups(idx: EntitiesIndex) -> list[list[str]]:
    """Datatype properties that may mean one concept: the same dimension, unit and bound, at least one read from
    text, never two of them on one individual, held by things of a shared class or one naming the other's concept
    with a word in front (maxCoreTemperatureC and maxTemperatureC: the same bound, of a part of another thing)."""
    by_sig: dict[tuple[str, str, str], list[str]] = {}
    from_text = {f.property for _, f in idx.iter_facts() if "chunk" in f.source}
    for name, p in idx.properties.items():
        if p.kind != "datatype" or not p.dimension:
            continue
        bound = name[:3] if name[:3] in ("min", "max") and name[3:4].isupper() else ""
        by_sig.setdefault((p.dimension, p.unit, bound), []).append(name)
    out = []
    for names in by_sig.values():
        if len(names) < 2:
            continue
        holders = {n: {i.name for i, f in idx.iter_facts() if f.property == n} for n in names}
        kinds = {n: {c for h in holders[n] for c in idx.individuals[h].classes} for n in names}
        group: list[str] = []
        for n in sorted(names, key=lambda n: -len(holders[n])):
            # never on one individual together, held by things of a shared class, at least one read from text
            if all(not (holders[n] & holders[g]) and (kinds[n] & kinds[g] or modifier_words(idx, n, g) or
                                                       modifier_words(idx, g, n)) for g in group):
                group.append(n)
        if len(group) > 1 and set(group) & from_text:
            out.append(group)
    return out


def review_properties(model: ChatModel, idx: EntitiesIndex, trace: Trace, merges: list[dict[str, Any]]) -> None:
    """Show each group of possibly synonymous properties to the model; merge the ones it says are the same (the
    merges are appended to `merges`)."""
    for group in synonym_groups(idx):
        lines = []
        for n in group:
            uses = [(i, f) for i, f in idx.iter_facts() if f.property == n]
            examples = "; ".join(f"{i.label} {f.literal} ({f.source.get('sentence', '')[:90]})" for i, f in uses[:2])
            lines.append(f"- {n}: {examples}")
        p = idx.properties[group[0]]
        sink: dict[str, Any] = {}

        def decide(same: bool) -> str:
            sink["same"] = bool(same)
            return "ok"

        tool = Tool("decide", "Say whether these properties are one concept.",
                    {"type": "object", "properties": {"same": {"type": "boolean"}}, "required": ["same"],
                     "additionalProperties": False}, decide, terminal=True)
        text = prompts.render("same_concept", signature=f"{p.dimension}, {p.unit}", lines="\n".join(lines))
        messages = [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]
        run_agent(model, messages, [tool], max_turns=2, trace=trace, label="same concept", max_tokens=30)
        if not sink.get("same"):
            continue
        merges += merge_synonyms(idx, group, f"same {p.dimension} in {p.unit}; the model confirmed one concept")


def merge_synonyms(idx: EntitiesIndex, group: list[str], why: str) -> list[dict[str, Any]]:
    """Merge a group of properties that mean one concept into the one `_keeper` picks; a name with words in front
    of the kept concept (maxCoreTemperatureC into maxTemperatureC) leaves them on each moved value as its
    qualifier ("core temperature"). Returns the merges, for the report."""
    keep = _keeper(idx, group)
    merges = []
    for n in group:
        if n == keep:
            continue
        said = " ".join(concept_words(idx, n)) if modifier_words(idx, n, keep) else ""
        for _, f in idx.iter_facts():
            if said and f.property == n and said not in f.qualifier:
                f.qualifier = "; ".join(x for x in (said, f.qualifier) if x)
        moved = idx.merge_property(n, keep)
        merges.append({"merged": n, "into": keep, "facts": moved,
                       "why": why + (f"; each value keeps the qualifier {said!r}" if said else "")})
    return merges


def _keeper(idx: EntitiesIndex, group: list[str]) -> str:
    """The name a merged group keeps: one used by structured data, else a specific one, else the most used."""
    def uses(n: str) -> int:
        return sum(1 for _, f in idx.iter_facts() if f.property == n)

    def from_data(n: str) -> bool:
        return any("file" in f.source and "chunk" not in f.source for _, f in idx.iter_facts() if f.property == n)

    def general(n: str) -> bool:  # no other member's concept is contained in it with a word in front
        return not any(modifier_words(idx, n, g) for g in group if g != n)

    return max(group, key=lambda n: (from_data(n), general(n), not _generic(n), uses(n), -len(n)))
