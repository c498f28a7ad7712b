"""`ontobuild --dry-run FILES`: read the inputs as a build would, without the model, and say what the build finds
(record shapes, tables and their rows, text chunks) and which model calls it will make.

The calls follow from how the build works (pipeline.py and its steps): one `map_records` call per record shape; one
`confirm_reference` call per candidate reference between tables that code cannot decide from the evidence
(proposing.weigh decides the others); at most one `read_sentence` call per sentence of the text that gives a value
with a thing to hold it or joins two things (text/step.py); after the text, one `same_concept` call per group of properties
that may be one concept, and with --schema one `align_term` call per built class or property with candidates in
the vocabulary; a repair round (at most five calls) only when the reasoner finds a problem. The last three depend
on what the earlier calls decided, so they are given as what they depend on, not as numbers.

Prompt tokens are estimated from the prompts the build would send (the same code renders them; about four
characters a token; the class names the mapping has not chosen yet are placeholders); completion tokens are the
bounds the build gives each call (max_tokens), so the true figure is lower. Tool schemas are not counted."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ontocore.cliutil import held_warnings

from .inputs.readers import load_inputs
from .tables.references.proposing import find_references, ordered_for_mapping, weigh
from .tables.recordstep import mapping_messages
from .tables.references.confirming import reference_messages
from .tables.mapping import find_records, group_shapes
from .ontology.index import EntitiesIndex
from .prompts import prompts
from .text.step import new_state, plan_chunk
from .text.quantities import find_quantities

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 4
MAP_MAX_TOKENS = 700  # recordstep.decide_mapping
REFERENCE_MAX_TOKENS = 80  # references.confirm


def _tokens(chars: int) -> int:
    return -(-chars // CHARS_PER_TOKEN)


def dry_run(files: list[Path], schema: list[Path] | None = None, encoding: str | None = None) -> dict[str, Any]:
    """What a build of `files` would read and ask the model, without the model; nothing is written. InputError for
    a file the build would refuse (the same message)."""
    with held_warnings() as logged:  # shown once, in the plan, not also on stderr
        inputs = load_inputs([Path(f) for f in files], encoding=encoding)
    for message in logged:  # "/x/f.csv: read as cp1252" is the plan's "f.csv: read as cp1252, not UTF-8"
        where, _, what = message.partition(": ")
        if message not in inputs.warnings and f"{Path(where).name}: {what}, not UTF-8" not in inputs.warnings:
            inputs.warnings.append(message)
    vocab = None
    if schema:
        from .ontology.vocabulary import load_vocabulary

        vocab = load_vocabulary(schema)
    shapes = [s for file, data in inputs.json_docs for s in group_shapes(find_records(file, data))]
    keys = find_references(shapes)
    shapes = ordered_for_mapping(shapes, keys)
    system = len(prompts.render("system_builder"))

    shape_rows = []
    for s in shapes:
        chars = sum(len(m["content"]) for m in mapping_messages(s, (keys.keys.get(id(s)) or [""])[0]))
        shape_rows.append({"file": s.file, "pattern": s.pattern, "records": len(s.records), "fields": len(s.keys),
                           "id_key": (keys.keys.get(id(s)) or [""])[0], "prompt_tokens": _tokens(chars)})
    ref_rows = []
    for ref in keys.references:
        verdict, why = weigh(ref, keys)
        chars = sum(len(m["content"]) for m in reference_messages(ref, {})) if verdict == "ask" else 0
        ref_rows.append({"reference": ref.describe(), "decided_by": "model" if verdict == "ask" else "code",
                         "verdict": verdict, "why": why, "prompt_tokens": _tokens(chars)})
    asked = [r for r in ref_rows if r["decided_by"] == "model"]
    chunk_rows = []
    state = new_state(inputs.chunks, vocab)
    system_tokens = _tokens(len(state.system))
    for c in inputs.chunks:
        body = " " * c.lead + c.text[c.lead:]
        planned = plan_chunk(EntitiesIndex(), c, state)
        chunk_rows.append({"chunk": c.id, **c.place(), "characters": len(c.text),
                           "numbers": len(find_quantities(body)), "sentences_asked": len(planned),
                           "prompt_tokens": sum(_tokens(a["prompt_characters"]) for a in planned),
                           "completion_tokens_at_most": sum(a["completion_tokens_at_most"] for a in planned)})
    asked_sentences = sum(c["sentences_asked"] for c in chunk_rows)

    calls = {
        "map_records": {"calls": len(shape_rows), "prompt_tokens": sum(r["prompt_tokens"] for r in shape_rows),
                        "completion_tokens_at_most": MAP_MAX_TOKENS * len(shape_rows)},
        "confirm_reference": {"calls": len(asked), "decided_by_code": len(ref_rows) - len(asked),
                              "prompt_tokens": sum(r["prompt_tokens"] for r in asked),
                              "completion_tokens_at_most": REFERENCE_MAX_TOKENS * len(asked)},
        "read_sentence": {"calls_at_most": asked_sentences,
                          "prompt_tokens_at_most": (system_tokens if asked_sentences else 0)
                          + sum(c["prompt_tokens"] for c in chunk_rows),
                          "completion_tokens_at_most": sum(c["completion_tokens_at_most"] for c in chunk_rows)},
    }
    later = []
    if inputs.chunks:
        later.append("same_concept: one call per group of properties of one dimension, unit and bound that never "
                     "sit on one thing (known after the text step)")
    if schema:
        later.append(f"align_term: at most one call per built class and property that has candidates among the "
                     f"{len(vocab.terms)} term(s) of --schema and "
                     "no term of its own name")
    later.append("repair: at most 5 calls, only when the reasoner finds the ontology inconsistent")
    total = {"calls": len(shape_rows) + len(asked),
             "calls_at_most": len(shape_rows) + len(asked) + asked_sentences,
             "prompt_tokens_at_most": calls["map_records"]["prompt_tokens"]
             + calls["confirm_reference"]["prompt_tokens"] + calls["read_sentence"]["prompt_tokens_at_most"],
             "completion_tokens_at_most": sum(v.get("completion_tokens_at_most", 0) for v in calls.values())}
    return {"files": [str(f) for f in files], "inputs": inputs.report(), "shapes": shape_rows,
            "references": ref_rows, "chunks": chunk_rows, "calls": calls, "total": total, "later": later}


def format_plan(plan: dict[str, Any]) -> str:
    """The dry run for people: what was found, then the calls."""
    lines = []
    report = plan["inputs"]
    if report.get("tables"):
        lines.append("tables:")
        lines += [f"  {name}: {rows} row(s)" for name, rows in report["tables"].items()]
    for w in report.get("warnings", []):
        lines.append(f"warning: {w}")
    lines.append(f"record shapes: {len(plan['shapes'])}")
    for s in plan["shapes"]:
        key = f", id column {s['id_key']!r}" if s["id_key"] else ""
        lines.append(f"  {s['file']} {s['pattern']}: {s['records']} record(s) of {s['fields']} field(s){key}")
    if plan["references"]:
        lines.append(f"candidate references between tables: {len(plan['references'])}")
        lines += [f"  {r['reference']}: decided by {r['decided_by']}"
                  + (f" ({r['verdict']}: {r['why']})" if r["decided_by"] == "code" else "") for r in plan["references"]]
    chunks = plan["chunks"]
    if chunks:
        lines.append(f"text chunks: {len(chunks)} ({sum(1 for c in chunks if c['numbers'])} with numbers, "
                     f"{sum(c['numbers'] for c in chunks)} numbers)")
    calls = plan["calls"]
    lines.append("model calls:")
    lines.append(f"  map_records: {calls['map_records']['calls']} (one per record shape), about "
                 f"{calls['map_records']['prompt_tokens']} prompt tokens")
    lines.append(f"  confirm_reference: {calls['confirm_reference']['calls']} (one per candidate the code cannot "
                 f"decide; {calls['confirm_reference']['decided_by_code']} decided by code)")
    lines.append(f"  read_sentence: at most {calls['read_sentence']['calls_at_most']} (one per sentence that gives "
                 f"a value or joins two things), about {calls['read_sentence']['prompt_tokens_at_most']} prompt "
                 "tokens at most")
    total = plan["total"]
    lines.append(f"  total: {total['calls']} to {total['calls_at_most']} calls; about "
                 f"{total['prompt_tokens_at_most']} prompt tokens and {total['completion_tokens_at_most']} completion "
                 "tokens at most")
    lines += [f"  then {w}" for w in plan["later"]]
    return "\n".join(lines)


__all__ = ["dry_run", "format_plan"]
