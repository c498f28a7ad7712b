"""The streamed tables step of a build (see the package docstring): which inputs stream, then the passes in order —
profile, the model's decisions on the samples (or those of a checkpoint), the schema's links, every row named, every
row written."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any, Callable

from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.trace import Trace

from ...inputs.tabular import count_table_rows
from ...ontology.index import EntitiesIndex
from ...ontology.names import unique_name
from ..mapping import CountingCoverage, Coverage, apply_mapping, individual_name, pointer
from ..references.proposing import (Plan, Reference, confirmed_link_tables, drop_emptied, find_references, key_value,
                                    link_properties, link_table_property, ordered_for_mapping, settle_links)
from .checkpoint import CHECKPOINT_FILE, fingerprint, restore_decisions, save_checkpoint, saved_decisions
from .profile import StreamColumns, Table, profile_table
from .rows import batch_index, row_record, shared_labels, table_rows
from .writing import StreamResult, write_rows

log = logging.getLogger(__name__)

STREAM_ROWS = 50_000  # rows in all CSV/TSV inputs above which a build streams them (--stream-rows; 0: never): 100k rows
# through the in-memory path peak at 3.3 GB with the embedded model (bench/results/scale_export.md)


def stream_threshold(paths: list[Path], threshold: int | None) -> tuple[list[Path], int]:
    """The CSV/TSV inputs a build streams (all of them when their rows in all exceed `threshold`; None: the default
    STREAM_ROWS, 0: never) and their rows in all."""
    from ...inputs.tabular import STREAMED_SUFFIXES

    limit = STREAM_ROWS if threshold is None else threshold
    tables = [p for p in paths if p.suffix.lower() in STREAMED_SUFFIXES]
    if not limit or not tables:
        return [], 0
    rows = sum(count_table_rows(p) for p in tables)
    return (tables if rows > limit else []), rows


def stream_tables(model: ChatModel | None, idx: EntitiesIndex, paths: list[Path], cov: Coverage, trace: Trace,
                  progress: Progress, outdir: Path, warnings: list[str] | None = None,
                  encodings: dict[str, str] | None = None, sample_per_class: int = 50,
                  resume: dict[str, Any] | None = None, decided: Callable[[], None] = lambda: None,
                  encoding: str | None = None) -> StreamResult:
    """The structured-data and references steps of a build for streamed tables (see the module docstring); the
    rows' triples are written to `outdir`/ontology.nt, the schema made in `idx` (whose base IRI is settled).
    `resume`: the checkpoint of an interrupted run over the same inputs (its decisions are taken, not asked).
    `decided`: called once the model's decisions are made (the build gives the model's memory back there when
    nothing after needs it). `encoding`: the codec the user named for the tables (--encoding), else told per file."""
    from ...outputs.bigoutput import NT_FILE
    from ..references.confirming import confirm_all

    t0 = time.monotonic()
    result = StreamResult(outdir / NT_FILE)
    progress.begin("profile", f"reading {len(paths)} big table(s)", total=len(paths))
    tables = []
    for p in paths:
        tables.append(profile_table(p, warnings, encodings, encoding))
        progress.advance("profile", f"read {p.name} ({tables[-1].rows} rows)")
    progress.end("profile")
    result.tables = {t.file: t.rows for t in tables}
    shapes = [t.shape for t in tables]
    plan = find_references(shapes, columns=StreamColumns(tables))
    shapes = ordered_for_mapping(shapes, plan)
    by_shape = {id(t.shape): t for t in tables}
    order = [by_shape[id(s)] for s in shapes]
    result.seconds["profile"] = time.monotonic() - t0

    t = time.monotonic()
    sample_cov = CountingCoverage()
    if resume is not None:
        references = restore_decisions(idx, order, plan, resume, sample_cov)
    else:
        references = _decide(model, idx, order, plan, sample_cov, trace, progress, confirm_all)
    classes = {id(s): s.record_class for s in shapes}
    links, linked_out = _link_schema(idx, plan, classes, sample_cov, order)
    pairs = [(shape, a, b, link_table_property(idx, shape, a, b, classes))
             for shape, a, b in confirmed_link_tables(plan)]
    result.seconds["decide"] = time.monotonic() - t
    decided()
    checkpoint = outdir / CHECKPOINT_FILE
    if resume is None:
        save_checkpoint(checkpoint, {"inputs": fingerprint(paths), "decisions": saved_decisions(order, plan),
                                     "done": None})

    t = time.monotonic()
    names, maps = _name_rows(idx, order, plan, cov, progress)
    result.seconds["names"] = time.monotonic() - t

    t = time.monotonic()
    write_rows(idx, order, plan, links, linked_out, pairs, names, maps, cov, result, progress, checkpoint,
                sample_per_class, resume.get("done") if resume else None)
    result.seconds["write"] = time.monotonic() - t
    result.references = references + linked_out + [
        {"link_table": shape.file, "property": prop, "pairs": n} for (shape, _, _, prop), n in zip(pairs, result.pairs)]
    trace.write("streamed", tables=result.tables, individuals=result.individuals, facts=result.facts,
                lines=result.lines, seconds={k: round(v, 2) for k, v in result.seconds.items()})
    return result


def _decide(model: ChatModel, idx: EntitiesIndex, order: list[Table], plan: Plan, sample_cov: CountingCoverage,
            trace: Trace, progress: Progress, confirm_all: Callable) -> list[dict[str, Any]]:
    """The model's decisions (as recordstep.read_records and references.confirming.link_references ask them, on the
    samples), the schema made from the samples."""
    from ..recordstep import decide_mapping

    progress.begin("json", f"mapping {len(order)} record shape(s)", total=len(order))
    shapes = [t.shape for t in order]
    for i, table in enumerate(order, 1):
        id_key = (plan.keys.get(id(table.shape)) or [""])[0]
        decision = decide_mapping(model, table.shape, trace, shapes[:i - 1], id_key)
        decision.id_key = id_key
        table.decision = decision
        apply_mapping(batch_index(idx), table.shape, decision, sample_cov)  # the schema, from the sample
        trace.write("mapped", shape=table.shape.pattern, file=table.file, records=table.rows,
                    sample=len(table.shape.records), decision=vars(decision))
        progress.advance("json", f"mapped record shape {i} of {len(order)} ({table.rows} records)")
    progress.end("json")
    if not plan.references:
        return []
    progress.begin("refs", f"confirming {len(plan.references)} reference(s) between tables",
                   total=len(plan.references))
    classes = {id(t.shape): t.shape.record_class for t in order}
    out = confirm_all(model, plan, classes, trace, lambda: progress.advance("refs", "reference confirmed"))
    progress.end("refs")
    return out


def _link_schema(idx: EntitiesIndex, plan: Plan, classes: dict[int, str], sample_cov: CountingCoverage,
                 order: list[Table]) -> tuple[list[tuple[Reference, str, str]], list[dict[str, Any]]]:
    """The links of the confirmed references, made in the schema as proposing.apply_references makes them: a linked
    column's value property goes when no other column keeps values in it (every value of a candidate reference's
    column is one of the target's keys, so every cell links). [(reference, link, inverse)] with the final names, and
    the coverage entries of the links (their counts filled as the rows are written)."""
    links = link_properties(idx, plan, classes)
    linked_cols = {(ref.source.file, ref.column) for ref, _, _ in links}
    emptied: set[str] = set()
    users: dict[str, set[str]] = {}
    cls_of = {t.file: t.shape.record_class for t in order}
    for (file, column, status, what), _ in sample_cov.tallies.items():
        if status != "covered" or not what:
            continue
        if (file, column) in linked_cols:
            emptied.add(what)
    for (file, column, status, what), _ in sample_cov.tallies.items():
        if status == "covered" and what in emptied and (file, column) not in linked_cols:
            users.setdefault(what, set()).add(cls_of.get(file, ""))
    emptied = {p for p in emptied if p in idx.properties and idx.properties[p].kind == "datatype"}
    drop_emptied(idx, emptied, users)
    out = [{"reference": ref.describe(), "property": prop, "inverse": inverse, "linked": 0, "unmatched": 0}
           for ref, prop, inverse in links]
    targets = {prop: classes.get(id(ref.target), "") for ref, prop, _ in links}
    settle_links(idx, out, targets)
    final = [(ref, entry["property"], entry["inverse"]) for (ref, _, _), entry in zip(links, out)]
    return final, out


def _name_rows(idx: EntitiesIndex, order: list[Table], plan: Plan, cov: Coverage, progress: Progress
               ) -> tuple[dict[str, dict[int, str]], dict[tuple[str, str], dict[str, str]]]:
    """Every row's individual named as apply_mapping names it, table by table in mapping order. Returns the names
    that are not the row's own (`individual_name`), by table and row, and key value -> name of every key that a
    confirmed reference points to."""
    wanted = {(ref.target.file, ref.key) for ref in plan.references if ref.confirmed}
    taken = {hash(n) for n in (*cov.records, *idx.individuals)}
    renamed: dict[str, dict[int, str]] = {}
    maps: dict[tuple[str, str], dict[str, str]] = {k: {} for k in wanted}
    progress.begin("names", f"naming the rows of {len(order)} table(s)", total=len(order))
    for table in order:
        decision = table.decision
        shared = table.shared = shared_labels(table, decision)
        own = renamed[table.file] = {}
        keys = [k for f, k in wanted if f == table.file]
        for row, fields in table_rows(table):
            name, label = individual_name(row_record(table.file, row, fields), decision, shared)
            final = name
            if hash(final) in taken:  # two records never become one individual
                final = unique_name(name, lambda n: hash(n) in taken or n in idx.individuals)
                log.info("%s %s: %s is also the name of another record; named %s", table.file,
                         pointer([row]), label, final)
            taken.add(hash(final))
            if idx.kind_of(final) in ("class", "property"):
                final += "_"  # as EntitiesIndex.ensure_individual names it
            if final != name:
                own[row] = final
            for key in keys:
                maps[(table.file, key)][key_value(fields.get(key))] = final
        progress.advance("names", f"named the rows of {table.file}")
    progress.end("names")
    for table in order:
        table.hashes = {}  # not needed any more
    return renamed, maps
