"""`ontobuild FILE...`: the builder agent, in small steps the LLM can take reliably.

1. every JSON record shape: the LLM decides the mapping (one `map_records` call), code applies it to all records;
2. every text chunk: code finds the numbers and known entities, the LLM assigns them (one `add_facts` call);
3. the reasoner checks the result; on a problem, a bounded repair round with the full index tools.
LLM cost grows with the number of shapes and chunks, not with the number of records."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import Any

from ontocore.agent import run_agent
from ontocore.errors import ModelBehaviorError, ToolArgumentError
from ontocore.folders import OutcomeFolder, outcome_folder, write_json
from ontocore.llm import ChatModel, open_model
from ontocore.progress import Progress
from ontocore.prompts import build as prompts
from ontocore.tools import Tool
from ontocore.trace import Trace

from .index import EntitiesIndex
from .indexfile import load_index
from .ingest import load_inputs
from .keys import apply_references, find_references, ordered_for_mapping
from .references import confirm_all
from .decisions import check_decision, default_levels, proposed_name_key, proposed_record_class, repair_decision
from .mapping import (TYPES, Coverage, Decision, Shape, apply_mapping, find_records, group_shapes, is_leaf)
from .names import safe_name
from .outcome import STATS_FILE, write_index_outcome
from .textstep import read_texts
from .alignment import align, rename_entries
from .consistency import needs_repair, repair_round
from .report import write_build_report
from .vocabulary import Vocabulary, load_vocabulary

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
                          class_hint=f"; proposed: {cls} (the table's own name)" if (cls := proposed_record_class(shape))
                          else "")
    return [{"role": "system", "content": prompts.render("system_builder")}, {"role": "user", "content": text}]


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
    return Decision(record_class=sink["record_class"], record_role=sink.get("record_role", ""),
                    name_key=sink.get("name_key", "@key"), levels=sink.get("levels", []))


def run_build(files: list[Path], out: str | Path | None = None, index_path: str | Path | None = None,
              reason: bool = True, llm_options: dict[str, Any] | None = None, model: ChatModel | None = None,
              root: str | Path = "outcomes", progress: Progress | None = None, force: bool = False,
              keep_partial: bool = False, schema: list[Path] | None = None,
              ontology_iri: str | None = None, big_graph_triples: int | None = None,
              sample_per_class: int | None = None) -> dict[str, Any]:
    """Build (or extend) an ontology from the files; returns the stats written to stats.json.

    `ontology_iri`: the ontology's IRI (its names are in its namespace); by default the index's own, or one
    derived from the outcome folder's name (outcome.settle_base_iri).
    `schema`: the user's vocabulary files; the built classes and properties are aligned onto its terms
    (alignment.align) before the ontology is written.
    The outcome folder appears only when the build succeeded (ontocore.folders.outcome_folder); `force` lets `out` be a
    non-empty folder, replaced at the end; `keep_partial` keeps a failed run's folder as NAME.incomplete."""
    t0 = time.perf_counter()
    progress = progress or Progress()
    inputs = load_inputs([Path(f) for f in files])
    vocab = load_vocabulary(schema) if schema else None
    idx = load_index(index_path) if index_path else EntitiesIndex()
    used = [*files, *([index_path] if index_path else []), *(schema or [])]
    with outcome_folder(root=root, out=out, force=force, inputs=used, keep_partial=keep_partial) as folder:
        if model is None:
            progress.begin("model", "loading the model")
            model = open_model(llm_options)
            progress.end("model")
        with Trace(folder.path / "building.log") as trace:
            stats = _build(files, inputs, idx, model, folder, reason, progress, trace, t0, vocab, ontology_iri,
                           {"big_graph_triples": big_graph_triples, "sample_per_class": sample_per_class})
    return stats


def _build(files: list[Path], inputs: Any, idx: EntitiesIndex, model: ChatModel, folder: OutcomeFolder,
           reason: bool, progress: Progress, trace: Trace, t0: float, vocab: Vocabulary | None = None,
           ontology_iri: str | None = None, scale: dict[str, Any] | None = None) -> dict[str, Any]:
    seconds: dict[str, float] = {}
    alignments: list[dict[str, Any]] = []
    cov = Coverage()
    outdir = folder.path
    trace.write("start", files=[str(f) for f in files], backend=model.backend, model=model.model)
    t = time.perf_counter()
    shapes = [s for file, data in inputs.json_docs for s in group_shapes(find_records(file, data))]
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
    references: list[dict[str, Any]] = []
    if keys.references:
        progress.begin("refs", f"confirming {len(keys.references)} reference(s) between tables",
                       total=len(keys.references))
        classes = {id(s): s.record_class for s in shapes}
        references = confirm_all(model, keys, classes, trace, lambda: progress.advance("refs", "reference confirmed"))
        references += apply_references(idx, keys, cov, classes)
        progress.end("refs")
    seconds["json"] = time.perf_counter() - t
    t = time.perf_counter()
    chunks, merges = read_texts(model, idx, inputs.chunks, trace, progress)
    seconds["text"] = time.perf_counter() - t
    if vocab is not None:
        t = time.perf_counter()
        progress.begin("vocabulary", "aligning with your vocabulary")
        alignments = align(model, idx, vocab, trace)
        rename_entries(alignments, [*cov.entries, *(n for c in chunks for n in c["numbers"])])
        progress.end("vocabulary")
        seconds["vocabulary"] = time.perf_counter() - t
    progress.begin("finish", "reasoner (HermiT) and writing" if reason else "writing")
    written = {"sources": [f.name for f in files], "ontology_iri": ontology_iri, "inputs": inputs.report(),
               "scale": scale or {}}
    stats = _finish(idx, folder, reason, model, cov, chunks, seconds, t0, trace, references, merges,
                    alignments, written)
    progress.end("finish")
    if needs_repair(stats["reasoner"]) and stats.get("outputs", {}).get("big_graph"):
        # the repair round's problem finder walks every fact per individual: not for a big graph
        stats["repair"] = {"skipped": "a big graph (above --big-graph-triples): the violations are listed in "
                                      "reasoner.txt; fix the data or the index and build again"}
    elif needs_repair(stats["reasoner"]):
        t = time.perf_counter()
        stats_repair = repair_round(model, idx, stats["reasoner"], trace)
        seconds["repair"] = time.perf_counter() - t
        stats = _finish(idx, folder, reason, model, cov, chunks, seconds, t0, trace, references, merges,
                        alignments, written)
        stats["repair"] = stats_repair
        write_build_report(idx, outdir, stats, json.loads((outdir / "coverage.json").read_text("utf-8")),
                           name=folder.final.name)
    write_json(outdir / STATS_FILE, stats)  # once, last: its presence says the folder is complete
    return stats


def _finish(idx: EntitiesIndex, folder: OutcomeFolder, reason: bool, model: ChatModel, cov: Coverage,
            chunks: list[dict[str, Any]], seconds: dict[str, float], t0: float, trace: Trace,
            references: list[dict[str, Any]] | None = None, merges: list[dict[str, Any]] | None = None,
            alignments: list[dict[str, Any]] | None = None, written: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    written = written or {}
    outdir = folder.path
    numbers = [n for c in chunks for n in c["numbers"]]
    coverage = {
        "json_leaves": cov.totals(),
        "text_chunks": {"total": len(chunks), "covered": sum(c["status"] == "covered" for c in chunks),
                        "skipped": sum(c["status"] == "skipped" for c in chunks)},
        "text_numbers": {"total": len(numbers), "covered": sum(n["status"] == "covered" for n in numbers),
                         "skipped": sum(n["status"] == "skipped" for n in numbers)},
        "references": references or [],
        "merges": merges or [],
        "alignments": alignments or [],
        "json": cov.entries,
        "text": chunks,
    }
    write_json(outdir / "coverage.json", coverage)
    asked = [r for r in references or [] if "confirmed" in r]
    extra = {"llm": model.usage.as_dict(),
             "coverage": {k: coverage[k] for k in ("json_leaves", "text_chunks", "text_numbers")},
             "references": {"candidates": len(asked), "confirmed": sum(1 for r in asked if r["confirmed"]),
                            "links": sum(r.get("linked", 0) + r.get("pairs", 0) for r in references or [])},
             "seconds": {k: round(v, 2) for k, v in seconds.items()}}
    if written.get("inputs"):
        extra["inputs"] = written["inputs"]
    stats = write_index_outcome(idx, outdir, reason=reason, extra_stats=extra, coverage=coverage,
                                final=folder.final, sources=written.get("sources", ()),
                                ontology_iri=written.get("ontology_iri"), write_stats=False,
                                **written.get("scale", {}))
    stats["seconds"]["total"] = round(time.perf_counter() - t0, 2)
    trace.write("finish", reasoner=stats["reasoner"].get("status"), counts=stats["counts"], llm=extra["llm"])
    return stats
