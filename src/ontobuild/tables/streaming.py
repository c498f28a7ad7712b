"""Streamed tables: a build of big table exports (CSV/TSV above `--stream-rows` rows in all) with memory bounded by
shapes and keys, not rows.

The model decides what it decides for a small export, on the same material: each table's mapping from its shape
and its first `SAMPLE_ROWS` rows (one `map_records` call per table), each candidate reference that code cannot
decide (one `confirm_reference` call). Everything else is code, in passes over the files:

1. profile: each table read once; its first rows become the sample shape the model sees, and every cell's key value
   a 64-bit hash in a column array. Candidate keys (a value in every row, all different) and candidate references (a
   column whose distinct values all occur among another table's key values) come from the sorted distinct hashes of
   whole columns (`StreamColumns`, the counterpart of keys.Columns): one pass per table, never quadratic.
2. decide: per table in mapping order, the `map_records` call, then the mapping applied to the sample only, which
   makes the schema (classes, properties, datatypes) exactly as the whole table would; then the references
   (references.confirm_all) and their links (keys.link_properties, drop_emptied, settle_links).
3. names: each row's individual named as mapping.apply_mapping names it (two records never one individual: a set of
   name hashes); the tables that are referenced keep key value -> name.
4. write: each table streamed again in batches of `BATCH_ROWS` records, each batch mapped by mapping.apply_mapping
   into a throwaway index that shares the schema (so the triples are those of the normal path), linked, written to
   ontology.nt as N-Triples, then dropped. Provenance (individual, file, row) goes to a gzipped TSV sidecar,
   `sources.tsv.gz`; coverage counts cells per column (mapping.CountingCoverage).

The EntitiesIndex keeps the schema and the decisions; outcome.write_index_outcome appends the schema to ontology.nt
and loads the whole file into the persisted store (bigoutput.py). HermiT gets the schema and each class's first
rows (`StreamResult.sample`); the SPARQL constraint queries check every row in the store (scalecheck.py).

Checkpoints (`CHECKPOINT_FILE`, in the unfinished outcome folder): after every batch, the bytes of ontology.nt and of
the sidecar that are complete and what was counted; the decisions are saved once made. A build run again with the
same inputs and `--resume` (api.build, cli) takes the folder back, truncates the files to the last committed batch
and goes on from the next row, without asking the model again."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import time
from array import array
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
from rdflib import URIRef
from rdflib.namespace import RDFS

from ontocore.llm import ChatModel
from ontocore.progress import Progress
from ontocore.trace import Trace

from ..ontology.index import EntitiesIndex, Fact, Individual
from ..inputs.readers import count_table_rows, iter_table
from .references.proposing import (FEW_VALUES, ID_NAME, Evidence, Plan, Reference, key_value, drop_emptied, find_references, link_properties,
                   link_table_property, confirmed_link_tables, ordered_for_mapping, settle_links)
from .mapping import (CountingCoverage, Coverage, Decision, FieldPlan, Record, Shape, individual_name, apply_mapping,
                      find_records, group_shapes, pointer, split_key)
from ..ontology.names import unique_name
from ..outputs.bigoutput import STORE_DIR, StoreLoader, nt_row
from ..ontology.owl import individual_triples, qudt_iri, text_literal

log = logging.getLogger(__name__)

STREAM_ROWS = 50_000  # rows in all CSV/TSV inputs above which a build streams them (--stream-rows; 0: never): 100k rows
# through the in-memory path peak at 3.3 GB with the embedded model (bench/results/scale_export.md)
SAMPLE_ROWS = 10_000  # the first rows of a table that the model's decisions and the schema are made from
BATCH_ROWS = 20_000  # records mapped, written and dropped at a time; a checkpoint after each
FIRST = 200  # the first values of a column kept as evidence (keys.measurement reads 200)
CHECKPOINT_FILE = ".stream-checkpoint.json"
SOURCES_FILE = "sources.tsv.gz"
_NONE = -1  # the hash of an empty cell (Python's hash() never returns -1)
_PATTERN = "$[*]"  # the pattern of the records of a table (mapping.find_records of a list of objects)


def stream_threshold(paths: list[Path], threshold: int | None) -> tuple[list[Path], int]:
    """The CSV/TSV inputs a build streams (all of them when their rows in all exceed `threshold`; None: the default
    STREAM_ROWS, 0: never) and their rows in all."""
    from ..inputs.readers import STREAMED_SUFFIXES

    limit = STREAM_ROWS if threshold is None else threshold
    tables = [p for p in paths if p.suffix.lower() in STREAMED_SUFFIXES]
    if not limit or not tables:
        return [], 0
    rows = sum(count_table_rows(p) for p in tables)
    return (tables if rows > limit else []), rows


# ---- 1. profile ---------------------------------------------------------------------------------------------------
@dataclass
class Table:
    """A streamed table: its file, rows, the sample shape the model sees, its columns' hashes (until named) and
    the sorted distinct hashes of each column."""

    path: Path
    rows: int
    shape: Shape
    hashes: dict[str, np.ndarray]
    distinct: dict[str, np.ndarray]
    decision: Decision | None = None
    shared: Any = None  # the labels several of its rows share (_shared), once decided
    encoding: str | None = None  # the codec the user named (--encoding), else told from the file

    @property
    def file(self) -> str:
        return self.path.name


def profile_table(path: Path, warnings: list[str] | None = None, encodings: dict[str, str] | None = None,
                  encoding: str | None = None) -> Table:
    """Read a table once: its sample shape (the first SAMPLE_ROWS records), the hash of every cell's key value per
    column, and per column the evidence keys.weigh reads (keys.Evidence). `encoding`: the codec the user named."""
    sample: list[dict[str, Any]] = []
    cols: dict[str, array] = {}
    first: dict[str, list[str]] = {}
    few: dict[str, set[str] | None] = {}
    n = 0
    for rec in iter_table(path, warnings, encodings, encoding):
        if n < SAMPLE_ROWS:
            sample.append(rec)
        for k, v in rec.items():
            col = cols.get(k)
            if col is None:  # a column first seen here: empty in the rows before
                col = cols[k] = array("q", [_NONE]) * n
                first[k], few[k] = [], set()
            val = key_value(v)
            if val is None:
                col.append(_NONE)
                continue
            col.append(hash(val))
            if len(first[k]) < FIRST:
                first[k].append(val)
            seen = few[k]
            if seen is not None:
                seen.add(val)
                if len(seen) >= FEW_VALUES:
                    few[k] = None
        n += 1
        for k, col in cols.items():
            if len(col) < n:
                col.append(_NONE)
    hashes = {k: np.frombuffer(col, dtype=np.int64) for k, col in cols.items()}
    distinct = {k: np.unique(h[h != _NONE]) for k, h in hashes.items()}
    shapes = group_shapes(find_records(path.name, sample))
    shape = shapes[0]
    shape.profiles = {k: Evidence(first[k], len(distinct[k]), few[k],
                                  hashlib.blake2b(distinct[k].tobytes(), digest_size=16).hexdigest())
                      for k in cols}
    return Table(path, n, shape, hashes, distinct, encoding=encoding)


class StreamColumns:
    """keys.Columns for streamed tables: keys and references from the hashes of whole columns."""

    def __init__(self, tables: list[Table]) -> None:
        self.tables = tables
        self._keys: dict[int, list[str]] = {}
        for t in tables:
            found = []
            if t.rows >= 2:
                for position, column in enumerate(t.shape.keys):
                    h = t.hashes.get(column)
                    if h is not None and not (h == _NONE).any() and len(t.distinct[column]) == t.rows:
                        found.append((not ID_NAME.search(split_key(column)[0]), position, column))
            self._keys[id(t.shape)] = [c for *_, c in sorted(found)]

    def keys(self, shape: Shape) -> list[str]:
        return self._keys[id(shape)]

    def rows(self, s_index: int) -> int:
        return self.tables[s_index].rows

    def distinct(self, s_index: int, column: str) -> int:
        return len(self.tables[s_index].distinct.get(column, ()))

    def key_size(self, t_index: int, key: str) -> int:
        return len(self.tables[t_index].distinct[key])

    def holding(self, s_index: int, column: str) -> set[tuple[int, str]]:
        values = self.tables[s_index].distinct.get(column)
        if values is None or not len(values):
            return set()
        out = set()
        for t_index, t in enumerate(self.tables):
            for key in self._keys[id(t.shape)]:
                k = t.distinct[key]
                if len(values) <= len(k) and np.isin(values, k, assume_unique=True).all():
                    out.add((t_index, key))
        return out


# ---- 2.-4. the step -----------------------------------------------------------------------------------------------
@dataclass
class StreamResult:
    """What the streamed tables made: the N-Triples lines written (the rows' part of ontology.nt), individuals and
    facts, the sample for HermiT, the annotation properties the rows use, references as coverage.json lists them."""

    nt_path: Path
    lines: int = 0
    individuals: int = 0
    facts: int = 0
    rows: int = 0
    tables: dict[str, int] = field(default_factory=dict)
    references: list[dict[str, Any]] = field(default_factory=list)
    sample: EntitiesIndex | None = None
    used: set[str] = field(default_factory=set)  # "unit", "qudt", "altLabel"
    seconds: dict[str, float] = field(default_factory=dict)
    resumed_from: int = 0  # rows written by an earlier, interrupted run
    pairs: list[int] = field(default_factory=list)  # pairs linked by each link table
    store_loaded: int | None = None  # the bytes of ontology.nt already in store/ (None: load it all at the end)

    def summary(self) -> dict[str, Any]:
        """For stats.json (outputs.streamed)."""
        rate = self.rows / self.seconds["write"] if self.seconds.get("write") else 0
        return {"tables": dict(self.tables), "rows": self.rows, "individuals": self.individuals, "facts": self.facts,
                "lines": self.lines, "rows_per_second": round(rate), "sample_rows": SAMPLE_ROWS,
                "batch_rows": BATCH_ROWS, "sources": SOURCES_FILE, "resumed_from_row": self.resumed_from,
                "seconds": {k: round(v, 2) for k, v in self.seconds.items()}}


def _batch_index(idx: EntitiesIndex) -> EntitiesIndex:
    """An index that shares the schema of `idx` (classes, properties, prefixes) with individuals of its own."""
    out = EntitiesIndex(base_iri=idx.base_iri)
    out.classes, out.properties, out.prefixes = idx.classes, idx.properties, idx.prefixes
    return out


class _HashSet:
    """Membership of texts by their hash, for the names several records share (mapping.individual_name)."""

    def __init__(self, hashes: np.ndarray) -> None:
        self.hashes = set(hashes.tolist())

    def __contains__(self, text: object) -> bool:
        return hash(text) in self.hashes


def _shared(table: Table, decision: Decision) -> _HashSet:
    """The labels that several records of the table share (as apply_mapping counts them)."""
    h = table.hashes.get(decision.name_key)
    if h is None:
        return _HashSet(np.empty(0, dtype=np.int64))
    values, counts = np.unique(h, return_counts=True)
    return _HashSet(values[(counts > 1) & (values != _NONE)])


def _record(file: str, row: int, fields: dict[str, Any]) -> Record:
    return Record(file, [row], _PATTERN, [], None, fields)


def _rows(table: Table, start: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
    for row, fields in enumerate(iter_table(table.path, encoding=table.encoding)):
        if row >= start:
            yield row, fields


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
    from ..outputs.bigoutput import NT_FILE
    from .references.confirming import confirm_all

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
        references = _restore(idx, order, plan, resume, sample_cov)
    else:
        references = _decide(model, idx, order, plan, sample_cov, trace, progress, confirm_all)
    classes = {id(s): s.record_class for s in shapes}
    links, linked_out = _link_schema(idx, plan, classes, sample_cov, order)
    pairs = [(shape, a, b, link_table_property(idx, shape, a, b, classes)) for shape, a, b in confirmed_link_tables(plan)]
    result.seconds["decide"] = time.monotonic() - t
    decided()
    checkpoint = outdir / CHECKPOINT_FILE
    if resume is None:
        _save(checkpoint, {"inputs": fingerprint(paths), "decisions": _decisions(order, plan), "done": None})

    t = time.monotonic()
    names, maps = _name_rows(idx, order, plan, cov, progress)
    result.seconds["names"] = time.monotonic() - t

    t = time.monotonic()
    _write_rows(idx, order, plan, links, linked_out, pairs, names, maps, cov, result, progress, checkpoint,
                sample_per_class, resume.get("done") if resume else None)
    result.seconds["write"] = time.monotonic() - t
    result.references = references + linked_out + [
        {"link_table": shape.file, "property": prop, "pairs": n} for (shape, _, _, prop), n in zip(pairs, result.pairs)]
    trace.write("streamed", tables=result.tables, individuals=result.individuals, facts=result.facts,
                lines=result.lines, seconds={k: round(v, 2) for k, v in result.seconds.items()})
    return result


def _decide(model: ChatModel, idx: EntitiesIndex, order: list[Table], plan: Plan, sample_cov: CountingCoverage,
            trace: Trace, progress: Progress, confirm_all: Callable) -> list[dict[str, Any]]:
    """The model's decisions (as recordstep.read_records and references.confirming.link_references ask them, on the samples), the
    schema made from the samples."""
    from .recordstep import decide_mapping

    progress.begin("json", f"mapping {len(order)} record shape(s)", total=len(order))
    shapes = [t.shape for t in order]
    for i, table in enumerate(order, 1):
        id_key = (plan.keys.get(id(table.shape)) or [""])[0]
        decision = decide_mapping(model, table.shape, trace, shapes[:i - 1], id_key)
        decision.id_key = id_key
        table.decision = decision
        apply_mapping(_batch_index(idx), table.shape, decision, sample_cov)  # the schema, from the sample
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
    """The links of the confirmed references, made in the schema as keys.apply_references makes them: a linked
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
        shared = table.shared = _shared(table, decision)
        own = renamed[table.file] = {}
        keys = [k for f, k in wanted if f == table.file]
        for row, fields in _rows(table):
            name, label = individual_name(_record(table.file, row, fields), decision, shared)
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


def _write_rows(idx: EntitiesIndex, order: list[Table], plan: Plan, links: list[tuple[Reference, str, str]],
                linked_out: list[dict[str, Any]], pairs: list[tuple[Shape, Reference, Reference, str]],
                renamed: dict[str, dict[int, str]], maps: dict[tuple[str, str], dict[str, str]], cov: Coverage,
                result: StreamResult, progress: Progress, checkpoint: Path, per_class: int,
                done: dict[str, Any] | None) -> None:
    """Every row mapped, linked and written, batch by batch, with a checkpoint after each batch."""
    nt_path = result.nt_path
    sources_path = nt_path.parent / SOURCES_FILE
    sample = _batch_index(idx)
    sampled: dict[str, int] = {}
    value_individuals: set[str] = set()
    pair_counts = result.pairs = [0] * len(pairs)
    start_table, start_row = 0, 0
    if not done:  # a fresh start (also of a run killed before its first batch was committed)
        for path in (nt_path, sources_path):
            path.unlink(missing_ok=True)
    if done:  # resume: the files back to the last committed batch, the counts as they were then
        _truncate(nt_path, done["nt_bytes"])
        _truncate(sources_path, done["sources_bytes"])
        start_table, start_row = done["table"], done["row"]
        result.lines, result.facts, result.rows = done["lines"], done["facts"], done["rows"]
        result.individuals = done["record_individuals"]
        value_individuals = set(done["value_individuals"])
        pair_counts = result.pairs = done["pairs"]
        for entry, counts in zip(linked_out, done["linked"]):
            entry["linked"], entry["unmatched"] = counts
        for key, n in done["tallies"]:
            cov.tally(*key, n=n)
        result.used = set(done["used"])
        result.resumed_from = done["rows"]
    total = sum(t.rows for t in order)
    progress.begin("rows", f"writing {total} rows", total=sum(-(-t.rows // BATCH_ROWS) for t in order))
    for _ in range(sum(-(-t.rows // BATCH_ROWS) for t in order[:start_table]) + start_row // BATCH_ROWS):
        progress.advance("rows", f"resumed after row {result.rows}")
    t0 = time.monotonic()
    # a fresh run loads the store as it writes; a resumed one loads the whole file at the end
    loader = StoreLoader(nt_path.parent / STORE_DIR) if not done else None
    try:
        _write_tables(order, links, linked_out, pairs, renamed, maps, cov, result, progress, checkpoint, per_class,
                      idx, sample, sampled, value_individuals, pair_counts, start_table, start_row, nt_path,
                      sources_path, loader, t0)
    finally:
        if loader is not None:
            loader.close()
    if loader is not None:
        result.store_loaded = nt_path.stat().st_size
    progress.end("rows")
    result.individuals += len(value_individuals)
    result.sample = sample


def _write_tables(order: list[Table], links: list[tuple[Reference, str, str]], linked_out: list[dict[str, Any]],
                  pairs: list[tuple[Shape, Reference, Reference, str]], renamed: dict[str, dict[int, str]],
                  maps: dict[tuple[str, str], dict[str, str]], cov: Coverage, result: StreamResult,
                  progress: Progress, checkpoint: Path, per_class: int, idx: EntitiesIndex, sample: EntitiesIndex,
                  sampled: dict[str, int], value_individuals: set[str], pair_counts: list[int], start_table: int,
                  start_row: int, nt_path: Path, sources_path: Path, loader: Any, t0: float) -> None:
    with open(nt_path, "a", encoding="utf-8", newline="\n") as nt, open(sources_path, "ab") as raw_sources:
        for t_index, table in enumerate(order):
            if t_index < start_table:
                continue
            out_links = [(i, ref, prop, inv) for i, (ref, prop, inv) in enumerate(links) if ref.source is table.shape]
            out_pairs = [(i, a, b, prop) for i, (shape, a, b, prop) in enumerate(pairs) if shape is table.shape]
            batch: list[tuple[int, dict[str, Any]]] = []
            first = start_row if t_index == start_table else 0
            rows = _rows(table, first)
            while True:
                batch.clear()
                for item in rows:
                    batch.append(item)
                    if len(batch) >= BATCH_ROWS:
                        break
                if not batch:
                    break
                lines, names = _write_batch(idx, table, batch, out_links, out_pairs, linked_out, pair_counts,
                                     renamed[table.file], maps, cov, result, sample, sampled, per_class,
                                     value_individuals)
                text = "".join(lines)
                nt.write(text)
                nt.flush()
                if loader is not None:
                    loader.put(text.encode("utf-8"))
                with gzip.GzipFile(fileobj=raw_sources, mode="ab", compresslevel=1, mtime=0) as gz:
                    gz.write("".join(f"{name}\t{table.file}\t{pointer([row])}\n"
                                     for row, name in names).encode("utf-8"))
                raw_sources.flush()
                result.lines += len(lines)
                result.rows += len(batch)
                last_row = batch[-1][0] + 1
                elapsed = time.monotonic() - t0
                progress.advance("rows", f"{table.file}: row {last_row} of {table.rows} "
                                         f"({(result.rows - result.resumed_from) / max(elapsed, 1e-9):.0f} rows/s)")
                os.fsync(nt.fileno())
                os.fsync(raw_sources.fileno())
                _commit(checkpoint, {  # what a resumed run takes up again
                    "table": t_index, "row": last_row, "nt_bytes": nt.tell(), "sources_bytes": raw_sources.tell(),
                    "lines": result.lines, "facts": result.facts, "rows": result.rows,
                    "record_individuals": result.individuals, "value_individuals": sorted(value_individuals),
                    "pairs": pair_counts, "linked": [[e["linked"], e["unmatched"]] for e in linked_out],
                    "tallies": [[list(k), n] for k, n in cov.tallies.items()], "used": sorted(result.used)})
            start_row = 0


def _write_batch(idx: EntitiesIndex, table: Table, batch: list[tuple[int, dict[str, Any]]],
                 out_links: list[tuple[int, Reference, str, str]], out_pairs: list[tuple[int, Reference, Reference, str]],
                 linked_out: list[dict[str, Any]], pair_counts: list[int], own: dict[int, str],
                 maps: dict[tuple[str, str], dict[str, str]], cov: Coverage, result: StreamResult,
                 sample: EntitiesIndex, sampled: dict[str, int], per_class: int, value_individuals: set[str]
                 ) -> tuple[list[str], list[tuple[int, str]]]:
    """One batch of a table's rows mapped (apply_mapping into an index of its own that shares the schema), linked
    and turned into N-Triples lines; the lines and (row, individual) of each row."""
    decision = table.decision
    shared = table.shared
    base = idx.base_iri
    batch_idx = _batch_index(idx)
    records: list[Record] = []
    names: dict[int, tuple[str, str]] = {}
    link_facts: list[tuple[int, str, str, str, str]] = []  # (row, column, link, target, inverse)
    extra: list[str] = []
    for row, fields in batch:
        name, label = individual_name(_record(table.file, row, fields), decision, shared)
        names[row] = (own.get(row, name), label)
        kept = dict(fields)
        for i, ref, prop, inverse in out_links:
            value = key_value(fields.get(ref.column))
            target = maps[(ref.target.file, ref.key)].get(value) if value is not None else None
            if target is None:
                linked_out[i]["unmatched"] += value is not None
                continue
            del kept[ref.column]  # the cell is the link, not also a copy of the id (keys.apply_references)
            link_facts.append((row, ref.column, prop, target, inverse))
            linked_out[i]["linked"] += 1
        for i, a, b, prop in out_pairs:
            x = maps[(a.target.file, a.key)].get(key_value(fields.get(a.column)))
            y = maps[(b.target.file, b.key)].get(key_value(fields.get(b.column)))
            if x and y:
                extra.append(nt_row((URIRef(base + x), URIRef(idx.iri_of(prop)), URIRef(base + y))))
                pair_counts[i] += 1
        records.append(_record(table.file, row, kept))
    shape = Shape(table.file, _PATTERN, records, table.shape.keys, table.shape.plans, 0,
                  record_class=table.shape.record_class)
    counting = CountingCoverage(tallies=cov.tallies)  # the cells counted into the build's coverage, not listed
    apply_mapping(batch_idx, shape, decision, counting, names=lambda rec: names[rec.path[0]])
    for row, column, prop, target, inverse in link_facts:
        subject = names[row][0]
        src = {"file": table.file, "path": pointer([row, column])}
        batch_idx.individuals[subject].facts.append(Fact(prop, object=target, source=src))
        cov.tally(table.file, column, "covered", prop)
        if inverse:
            extra.append(nt_row((URIRef(base + target), URIRef(idx.iri_of(inverse)), URIRef(base + subject))))
    record_names = {n for n, _ in names.values()}
    lines: list[str] = []
    terms: dict[str, URIRef] = {}  # the schema's IRIs, made once a batch

    def iri(name: str) -> URIRef:
        term = terms.get(name)
        if term is None:
            term = URIRef(batch_idx.iri_of(name))
            if name in idx.classes or name in idx.properties:
                terms[name] = term
        return term

    for name, ind in batch_idx.individuals.items():
        if name not in record_names:
            value_individuals.add(name)
        result.facts += len(ind.facts)
        _note_used(idx, ind, result.used)
        lines.extend(nt_row(t) for t in individual_triples(batch_idx, ind, iri))
        subject = iri(name)
        lines.append(nt_row((subject, _LABEL, text_literal(ind.label or name))))
        lines.extend(nt_row((subject, _COMMENT, text_literal(r))) for r in ind.roles)
        if any(sampled.get(c, 0) < per_class for c in ind.classes) and name not in sample.individuals:
            sample.individuals[name] = ind
            for c in ind.classes:
                sampled[c] = sampled.get(c, 0) + 1
            for f in ind.facts:
                if f.object and f.object not in sample.individuals:
                    other = batch_idx.individuals.get(f.object)
                    cls = other.classes if other else [_target_class(idx, f.property)]
                    sample.individuals[f.object] = Individual(name=f.object, label=f.object,
                                                              classes=[c for c in cls if c])
    result.individuals += len(records)
    lines.extend(extra)
    result.facts += len(extra)
    return lines, [(row, names[row][0]) for row, _ in batch]


_LABEL, _COMMENT = RDFS.label, RDFS.comment


def _note_used(idx: EntitiesIndex, ind: Individual, used: set[str]) -> None:
    """The annotation properties the triples of `ind` use (owl.individual_triples): a unit other than its
    property's (ob:unit, and qudt:unit when the unit has a QUDT IRI), aliases (skos:altLabel)."""
    if ind.aliases:
        used.add("altLabel")
    for f in ind.facts:
        if f.unit:
            prop = idx.properties.get(f.property)
            if prop is not None and f.unit != prop.unit:
                used.add("unit")
                if qudt_iri(f.unit):
                    used.add("qudt")


def _target_class(idx: EntitiesIndex, prop: str) -> str:
    p = idx.properties.get(prop)
    return p.range if p is not None and p.range in idx.classes else ""


# ---- checkpoints and resume -----------------------------------------------------------------------------------------
def fingerprint(paths: list[Path]) -> list[list[Any]]:
    """The inputs as a resumed run must find them again: name, size, modification time."""
    return [[p.name, p.stat().st_size, p.stat().st_mtime_ns] for p in paths]


def _save(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data), "utf-8")
    with open(tmp, "rb+") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def _commit(path: Path, done: dict[str, Any]) -> None:
    data = json.loads(path.read_text("utf-8"))
    data["done"] = done
    _save(path, data)


def _truncate(path: Path, size: int) -> None:
    with open(path, "ab") as fh:
        fh.truncate(size)


def read_checkpoint(folder: Path, paths: list[Path]) -> dict[str, Any] | None:
    """The checkpoint of an interrupted streamed build in `folder` when it was made from the same inputs, else
    None."""
    path = folder / CHECKPOINT_FILE
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if data.get("inputs") == fingerprint(paths) else None


def _decisions(order: list[Table], plan: Plan) -> dict[str, Any]:
    """The model's decisions and the schema made from them, so that a resumed run does not ask again."""
    return {"tables": [{"file": t.file, "decision": vars(t.decision), "record_class": t.shape.record_class,
                        "plans": {k: _plan_dict(p) for k, p in t.shape.plans.items()}} for t in order],
            "references": [{"source": r.source.file, "column": r.column, "target": r.target.file, "key": r.key,
                            "confirmed": r.confirmed, "property": r.property, "inverse": r.inverse,
                            "decided_by": r.decided_by, "reason": r.reason} for r in plan.references]}


def _plan_dict(p: FieldPlan) -> dict[str, Any]:
    d = {k: v for k, v in vars(p).items() if k != "sub"}
    d["sub"] = {k: _plan_dict(s) for k, s in p.sub.items()}
    return d


def _plan_from(d: dict[str, Any]) -> FieldPlan:
    return FieldPlan(**{**d, "sub": {k: _plan_from(s) for k, s in d.get("sub", {}).items()}})


def _restore(idx: EntitiesIndex, order: list[Table], plan: Plan, resume: dict[str, Any],
             sample_cov: CountingCoverage) -> list[dict[str, Any]]:
    """The decisions of the checkpoint taken again: each table's mapping re-applied to its sample (the schema), the
    references' verdicts and names set; what coverage.json lists of the references."""
    saved = {t["file"]: t for t in resume["decisions"]["tables"]}
    for table in order:
        entry = saved[table.file]
        table.shape.plans = {k: _plan_from(p) for k, p in entry["plans"].items()}
        table.decision = Decision(**entry["decision"])
        apply_mapping(_batch_index(idx), table.shape, table.decision, sample_cov)
    out = []
    refs = {(r["source"], r["column"], r["target"], r["key"]): r for r in resume["decisions"]["references"]}
    for ref in plan.references:
        r = refs.get((ref.source.file, ref.column, ref.target.file, ref.key))
        if r is None:
            continue
        ref.confirmed, ref.property, ref.inverse = r["confirmed"], r["property"], r["inverse"]
        ref.decided_by, ref.reason = r["decided_by"], r["reason"]
        out.append({"reference": ref.describe(), "confirmed": ref.confirmed, "property": ref.property,
                    "inverse": ref.inverse, "decided_by": ref.decided_by, "why": ref.reason})
    return out


__all__ = ["STREAM_ROWS", "SAMPLE_ROWS", "BATCH_ROWS", "CHECKPOINT_FILE", "SOURCES_FILE", "StreamResult",
           "StreamColumns", "Table", "profile_table", "stream_threshold", "stream_tables", "read_checkpoint"]
