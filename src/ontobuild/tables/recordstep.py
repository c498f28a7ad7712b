"""The structured-data step of a build: the records of every input are grouped by shape (mapping.py), the shapes
put in mapping order (parents before children, referenced tables before referring ones, `proposing`); per shape, one
`map_records` call decides the meaning (record class, name key, grouping levels, corrections of code's plan),
checked and repaired by code (decisions.py); code applies the decision to every record of the shape
(mapping.apply_mapping). `read_records` is the step as a build runs it; `mapping_messages` is also what
`ontobuild --dry-run` sizes."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from ontocore.agent import run_agent
from ontocore.errors import ModelBehaviorError, ToolArgumentError
from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.tools import Tool
from ontocore.trace import Trace

from .decisions import check_decision, default_levels, proposed_name_key, proposed_record_class, repair_decision
from ..ontology.index import EntitiesIndex
from .references.proposing import Plan, find_references, ordered_for_mapping
from .mapping import TYPES, Coverage, Decision, Shape, apply_mapping, find_records, group_shapes, is_leaf
from ..ontology.names import safe_name
from ..prompts import prompts

log = logging.getLogger(__name__)

CLASS_NAME = {"type": "string", "pattern": "^[A-Z][A-Za-z0-9]{1,40}$"}
PROP_NAME = {"type": "string", "pattern": "^[a-z][A-Za-z0-9]{1,50}$"}
EXAMPLES = 2


def _short(v: Any, n: int = 60) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_short(x, 25) for x in v[:3]) + (", …" if len(v) > 3 else "") + "]"
    s = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v
    return s if len(s) <= n else s[: n - 1] + "…"


def _plan_lines(shape: Shape) -> str:
    lines, parts = [], []
    for key, p in shape.plans.items():
        if p.type == "parts":
            parts.append(key)
            continue
        what = f"individual of {p.range_class}" if p.type == "individual" else p.type
        lines.append(f"{json.dumps(key, ensure_ascii=False)} -> {p.property} : {what}" + (f" [{p.unit}]" if p.unit else ""))
    if parts:
        sub = next(p for p in shape.plans.values() if p.type == "parts").sub
        lines.append(f"{', '.join(json.dumps(k, ensure_ascii=False) for k in parts[:6])}{' …' if len(parts) > 6 else ''}"
                     f" -> hasVariant : each becomes a Variant with {', '.join(q.property for q in sub.values())}")
    return "\n".join(lines)


def _map_tool(shape: Shape, sink: dict[str, Any], mapped: list[Shape], id_key: str = "") -> Tool:
    keys = list(shape.keys)
    props: dict[str, Any] = {
        "record_class": CLASS_NAME,
        "record_role": {"type": "string", "maxLength": 160},
        "name_key": {"enum": [k for k in keys if all(is_leaf(r.fields.get(k)) for r in shape.records)] + ["@key"]},
        "changes": {"type": "array", "maxItems": 12, "items": {
            "type": "object", "additionalProperties": False, "required": ["key"],
            "properties": {"key": {"enum": keys}, "property": PROP_NAME, "type": {"enum": list(TYPES)},
                           "range_class": CLASS_NAME}}},
    }
    required = ["record_class", "record_role", "name_key", "changes"]
    if shape.n_levels:
        props["levels"] = {"type": "array", "minItems": shape.n_levels, "maxItems": shape.n_levels, "items": {
            "type": "object", "additionalProperties": False, "required": ["class", "property"],
            "properties": {"class": CLASS_NAME, "property": PROP_NAME}}}
        required.insert(3, "levels")

    attempts = []

    def map_records(**args: Any) -> str:
        problems = check_decision(shape, args, mapped, id_key)
        attempts.append(problems)
        if problems and len(attempts) < 2:
            raise ToolArgumentError("Fix these and call map_records again: " + "; ".join(problems) + ".")
        if problems:  # the model could not fix it: the code's proposals stand in for what is wrong
            args = repair_decision(shape, args, mapped, id_key)
            sink["repaired"] = problems
        sink.update(args)
        return "ok"

    return Tool("map_records", "Decide how the records of this shape map to the ontology.",
                {"type": "object", "properties": props, "required": required, "additionalProperties": False},
                map_records, terminal=True)


def mapping_messages(shape: Shape, id_key: str = "") -> list[dict[str, str]]:
    """The messages of the `map_records` call for `shape` (also what `ontobuild --dry-run` sizes); `id_key`: the
    table's key column, if any."""
    examples = "\n".join(json.dumps({k: _short(v) for k, v in r.fields.items()}, ensure_ascii=False)
                         for r in shape.records[:EXAMPLES])
    proposal = default_levels(shape, "Record")
    levels = "; ".join(f"level {i + 1}, keys such as {sorted({r.levels[i] for r in shape.records})[:4]} "
                       f"(proposed: class {proposal[i]['class'].replace('Record', '<record_class>')}, "
                       f"property {proposal[i]['property'].replace('Record', '<record_class>')})"
                       for i in range(shape.n_levels)) or "none"
    if shape.records[0].parent is not None:
        levels += f"; each record is held by a {shape.records[0].parent.pattern} record under key {shape.records[0].link_key!r}"
    text = prompts.render("map_records", file=shape.file, count=len(shape.records), pattern=shape.pattern,
                          levels=levels, examples=examples, plan=_plan_lines(shape),
                          name_key=json.dumps(proposed_name_key(shape, id_key), ensure_ascii=False),
                          class_hint=f"; proposed: {cls}{OWN_NAME}" if (cls := proposed_record_class(shape))
                          else "")
    return [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]


OWN_NAME = " (the table's own name)"  # said of a proposed class named after the file
_RUN = 4  # words in a row that a description shares with the instructions: it repeats them


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def clean_role(role: str, instructions: str | None = None) -> str:
    """The model's description of a record without what it copied from the instructions: a clause (or a part in
    parentheses) that repeats `_RUN` words in a row of the prompt template ("one short sentence saying what ...",
    "(the table's own name)") or names its "@key" placeholder describes the prompt, not the data."""
    template = _words(instructions if instructions is not None else prompts.load("map_records") + OWN_NAME)
    runs = {tuple(template[i:i + _RUN]) for i in range(len(template) - _RUN + 1)}

    def copied(part: str) -> bool:
        w = _words(part)
        return "@key" in part or any(tuple(w[i:i + _RUN]) in runs for i in range(len(w) - _RUN + 1))

    text = re.sub(r"\s*\(([^()]*)\)", lambda m: "" if copied(m.group(1)) else m.group(0), role.strip())
    clauses = re.split(r"(?<=[,.;])\s+", text)
    kept = [c for c in clauses if not copied(c)]
    out = " ".join(kept).strip().rstrip(",;").strip()
    if out and text.endswith(".") and not out.endswith("."):
        out += "."
    return out if re.search(r"[A-Za-z]", out) else ""


def decide_mapping(model: ChatModel, shape: Shape, trace: Trace, mapped: list[Shape] | None = None,
                   id_key: str = "") -> Decision:
    sink: dict[str, Any] = {}
    messages = mapping_messages(shape, id_key)
    result = run_agent(model, messages, [_map_tool(shape, sink, mapped or [], id_key)], max_turns=3, trace=trace,
                       label=f"map {shape.file} {shape.pattern}", max_tokens=700)
    if result.state != "answered":
        raise ModelBehaviorError(f"The model could not decide a mapping for {shape.file} {shape.pattern}: "
                                 f"{(result.reason or result.state).rstrip('.')}.")
    for ch in sink.get("changes", []):
        plan = shape.plans[ch["key"]]
        if ch.get("property"):
            plan.property = ch["property"]
        if ch.get("type"):
            plan.type = ch["type"]
            if plan.type == "individual" and not plan.range_class:
                plan.range_class = ch.get("range_class") or safe_name(plan.label)
        if ch.get("range_class"):
            plan.range_class = ch["range_class"]
    return Decision(record_class=sink["record_class"], record_role=clean_role(sink.get("record_role", "")),
                    name_key=sink.get("name_key", "@key"), levels=sink.get("levels", []))


def read_records(model: ChatModel, idx: EntitiesIndex, docs: list[tuple[str, Any]], cov: Coverage, trace: Trace,
                 progress: Progress) -> tuple[list[Shape], Plan]:
    """The structured-data step of a build: every record shape of `docs` (file, data) mapped into the index, in
    mapping order; returns the shapes in that order and the keys and candidate references found between them."""
    shapes = [s for file, data in docs for s in group_shapes(find_records(file, data))]
    keys = find_references(shapes)
    shapes = ordered_for_mapping(shapes, keys)  # parents before children, referenced tables before referring
    progress.begin("json", f"mapping {len(shapes)} record shape(s)", total=len(shapes))
    for i, shape in enumerate(shapes, 1):
        id_key = (keys.keys.get(id(shape)) or [""])[0]
        decision = decide_mapping(model, shape, trace, shapes[:i - 1], id_key)
        decision.id_key = id_key
        made = apply_mapping(idx, shape, decision, cov)
        trace.write("mapped", shape=shape.pattern, file=shape.file, records=len(shape.records),
                    individuals=made, decision=vars(decision))
        progress.advance("json", f"mapped record shape {i} of {len(shapes)} ({len(shape.records)} records)")
    progress.end("json")
    return shapes, keys
