"""The model confirms or rejects each candidate reference between record shapes (`proposing` finds them): one
small `confirm_reference` call per pair (yes or no), with the two tables' names, classes, the column and example
records; the link is named by code from the column (`link_names`).
A call that fails leaves the candidate unconfirmed (its values stay as plain values; nothing is lost)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any, Callable

from ontocore.agent import run_agent
from ...ontology.index import EntitiesIndex
from .proposing import Plan, Reference, apply_references, column_values, weigh
from ..mapping import Coverage, Shape, split_key
from ...prompts import prompts
from ontocore.llm import ChatModel
from ...ontology.names import safe_name
from ontocore.progress import Progress
from ontocore.tools import Tool
from ontocore.trace import Trace

log = logging.getLogger(__name__)

def _example(ref_shape: Any) -> str:
    rec = ref_shape.records[0]
    return json.dumps({k: v for k, v in list(rec.fields.items())[:8]}, ensure_ascii=False, default=str)[:300]


def _tool(sink: dict[str, Any]) -> Tool:
    def confirm_reference(**args: Any) -> str:
        sink.update(args)
        return "ok"

    params = {"type": "object", "additionalProperties": False, "required": ["refers"],
              "properties": {"refers": {"type": "boolean"}}}
    return Tool("confirm_reference", "Say whether the column refers to the other table's records.",
                params, confirm_reference, terminal=True)


def reference_messages(ref: Reference, classes: dict[int, str]) -> list[dict[str, str]]:
    """The messages of the `confirm_reference` call about `ref` (also what `ontobuild --dry-run` sizes)."""
    values = [v for v in column_values(ref.source, ref.column) if v is not None]
    source_class = classes.get(id(ref.source), "Record")
    target_class = classes.get(id(ref.target), "Record")
    text = prompts.render("confirm_reference", source=ref.source.file, column=json.dumps(ref.column),
                          source_class=source_class, values=", ".join(sorted(set(values))[:6]),
                          source_example=_example(ref.source), target=ref.target.file, target_class=target_class,
                          key=json.dumps(ref.key), target_example=_example(ref.target))
    return [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]


def confirm(model: ChatModel, ref: Reference, classes: dict[int, str], trace: Trace) -> None:
    """Ask the model whether one candidate reference is one; sets ref.confirmed (the link's names are code's:
    `link_names`)."""
    sink: dict[str, Any] = {}
    messages = reference_messages(ref, classes)
    result = run_agent(model, messages, [_tool(sink)], max_turns=2, trace=trace, label=f"reference {ref.describe()}",
                       max_tokens=30)
    if result.state != "answered" or "refers" not in sink:
        log.warning("no decision on %s: %s", ref.describe(), result.reason)
        return
    ref.confirmed = bool(sink["refers"])


def link_names(ref: Reference, classes: dict[int, str]) -> tuple[str, str]:
    """(link, inverse) of a confirmed reference, from the user's own words: the column without its id suffix
    ("customer_id" -> customer, "assigned_to_team_id" -> assignedToTeam), the target class when the column only
    abbreviates it ("mem_id" of a Member -> member); the inverse is has + the referring class."""
    target = classes.get(id(ref.target), "record")
    stem = re.sub(r"(?i)[_\s-]*(id|code|key|no|nr|ref)$", "", split_key(ref.column)[0]) or target
    if target.lower().startswith(stem.lower()) or target.lower().endswith(stem.lower()):
        stem = target  # the column abbreviates the target's name or says its head word ("keeper" of a HiveKeeper)
    return safe_name(stem, lower_first=True), safe_name("has " + classes.get(id(ref.source), "record"),
                                                        lower_first=True)


def confirm_all(model: ChatModel, plan: Plan, classes: dict[int, str], trace: Trace,
                done: Callable[[], None] = lambda: None) -> list[dict[str, Any]]:
    """Every candidate decided once: by code when the evidence decides (`proposing.weigh`), else by the model; what
    was decided and why (for coverage.json)."""
    out = []
    for ref in plan.references:
        verdict, why = weigh(ref, plan)
        ref.reason = why
        if verdict == "ask":
            confirm(model, ref, classes, trace)
            ref.decided_by = "model"
        else:
            ref.confirmed, ref.decided_by = verdict == "yes", "code"
        if ref.confirmed:
            ref.property, ref.inverse = link_names(ref, classes)
        done()
        out.append({"reference": ref.describe(), "confirmed": ref.confirmed, "property": ref.property,
                    "inverse": ref.inverse, "decided_by": ref.decided_by, "why": ref.reason})
        trace.write("reference", **out[-1])
    return out


def link_references(model: ChatModel, idx: EntitiesIndex, plan: Plan, shapes: list[Shape], cov: Coverage, trace: Trace,
                progress: Progress) -> list[dict[str, Any]]:
    """The references step of a build, after the records are mapped: every candidate reference decided
    (`confirm_all`), the confirmed ones linked in the index (`proposing.apply_references`); what was decided and linked,
    for coverage.json (nothing when there is no candidate)."""
    if not plan.references:
        return []
    progress.begin("refs", f"confirming {len(plan.references)} reference(s) between tables",
                   total=len(plan.references))
    classes = {id(s): s.record_class for s in shapes}
    references = confirm_all(model, plan, classes, trace, lambda: progress.advance("refs", "reference confirmed"))
    references += apply_references(idx, plan, cov, classes)
    progress.end("refs")
    return references
