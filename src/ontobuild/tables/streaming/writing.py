"""Pass 4 of streamed tables: each table streamed again in batches of `BATCH_ROWS` rows, each batch mapped into a
throwaway index that shares the schema (so the triples are those of the normal path), linked, appended to ontology.nt
and to the store as it grows, its provenance to the `SOURCES_FILE` sidecar, then dropped; a checkpoint after each."""

from __future__ import annotations

import gzip
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rdflib import URIRef
from rdflib.namespace import RDFS

from ontocore.progress import Progress

from ...ontology.entries import Fact, Individual

from ...ontology.index import EntitiesIndex
from ...ontology.owl import individual_triples, qudt_iri, text_literal
from ...outputs.bigoutput import STORE_DIR, StoreLoader, nt_row
from ..mapping import CountingCoverage, Coverage, Record, Shape, apply_mapping, individual_name, pointer
from ..references.proposing import Plan, Reference, key_value
from .checkpoint import commit_batch, truncate_to
from .profile import SAMPLE_ROWS, Table
from .rows import TABLE_PATTERN, batch_index, row_record, table_rows

BATCH_ROWS = 20_000  # records mapped, written and dropped at a time; a checkpoint after each
SOURCES_FILE = "sources.tsv.gz"


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




def write_rows(idx: EntitiesIndex, order: list[Table], plan: Plan, links: list[tuple[Reference, str, str]],
                linked_out: list[dict[str, Any]], pairs: list[tuple[Shape, Reference, Reference, str]],
                renamed: dict[str, dict[int, str]], maps: dict[tuple[str, str], dict[str, str]], cov: Coverage,
                result: StreamResult, progress: Progress, checkpoint: Path, per_class: int,
                done: dict[str, Any] | None) -> None:
    """Every row mapped, linked and written, batch by batch, with a checkpoint after each batch."""
    nt_path = result.nt_path
    sources_path = nt_path.parent / SOURCES_FILE
    sample = batch_index(idx)
    sampled: dict[str, int] = {}
    value_individuals: set[str] = set()
    pair_counts = result.pairs = [0] * len(pairs)
    start_table, start_row = 0, 0
    if not done:  # a fresh start (also of a run killed before its first batch was committed)
        for path in (nt_path, sources_path):
            path.unlink(missing_ok=True)
    if done:  # resume: the files back to the last committed batch, the counts as they were then
        truncate_to(nt_path, done["nt_bytes"])
        truncate_to(sources_path, done["sources_bytes"])
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
            rows = table_rows(table, first)
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
                commit_batch(checkpoint, {  # what a resumed run takes up again
                    "table": t_index, "row": last_row, "nt_bytes": nt.tell(), "sources_bytes": raw_sources.tell(),
                    "lines": result.lines, "facts": result.facts, "rows": result.rows,
                    "record_individuals": result.individuals, "value_individuals": sorted(value_individuals),
                    "pairs": pair_counts, "linked": [[e["linked"], e["unmatched"]] for e in linked_out],
                    "tallies": [[list(k), n] for k, n in cov.tallies.items()], "used": sorted(result.used)})
            start_row = 0


def _write_batch(idx: EntitiesIndex, table: Table, batch: list[tuple[int, dict[str, Any]]],
                 out_links: list[tuple[int, Reference, str, str]],
                 out_pairs: list[tuple[int, Reference, Reference, str]], linked_out: list[dict[str, Any]],
                 pair_counts: list[int], own: dict[int, str], maps: dict[tuple[str, str], dict[str, str]],
                 cov: Coverage, result: StreamResult, sample: EntitiesIndex, sampled: dict[str, int], per_class: int,
                 value_individuals: set[str]) -> tuple[list[str], list[tuple[int, str]]]:
    """One batch of a table's rows mapped (apply_mapping into an index of its own that shares the schema), linked
    and turned into N-Triples lines; the lines and (row, individual) of each row."""
    batch_idx = batch_index(idx)
    records, names, link_facts, extra = _link_rows(idx, table, batch, out_links, out_pairs, linked_out, pair_counts,
                                                   own, maps)
    extra += _map_batch(idx, batch_idx, table, records, names, link_facts, cov)
    lines = _batch_lines(idx, batch_idx, {n for n, _ in names.values()}, result, sample, sampled, per_class,
                         value_individuals)
    result.individuals += len(records)
    lines.extend(extra)
    result.facts += len(extra)
    return lines, [(row, names[row][0]) for row, _ in batch]


def _link_rows(idx: EntitiesIndex, table: Table, batch: list[tuple[int, dict[str, Any]]],
               out_links: list[tuple[int, Reference, str, str]], out_pairs: list[tuple[int, Reference, Reference, str]],
               linked_out: list[dict[str, Any]], pair_counts: list[int], own: dict[int, str],
               maps: dict[tuple[str, str], dict[str, str]]
               ) -> tuple[list[Record], dict[int, tuple[str, str]], list[tuple[int, str, str, str, str]], list[str]]:
    """Each row named and its references resolved through the key maps: the records to map (a linked cell left
    out), (name, label) by row, the link facts (row, column, link, target, inverse), and the N-Triples lines of the
    link tables' pairs."""
    decision = table.decision
    shared = table.shared
    base = idx.base_iri
    records: list[Record] = []
    names: dict[int, tuple[str, str]] = {}
    link_facts: list[tuple[int, str, str, str, str]] = []  # (row, column, link, target, inverse)
    extra: list[str] = []
    for row, fields in batch:
        name, label = individual_name(row_record(table.file, row, fields), decision, shared)
        names[row] = (own.get(row, name), label)
        kept = dict(fields)
        for i, ref, prop, inverse in out_links:
            value = key_value(fields.get(ref.column))
            target = maps[(ref.target.file, ref.key)].get(value) if value is not None else None
            if target is None:
                linked_out[i]["unmatched"] += value is not None
                continue
            del kept[ref.column]  # the cell is the link, not also a copy of the id (proposing.apply_references)
            link_facts.append((row, ref.column, prop, target, inverse))
            linked_out[i]["linked"] += 1
        for i, a, b, prop in out_pairs:
            x = maps[(a.target.file, a.key)].get(key_value(fields.get(a.column)))
            y = maps[(b.target.file, b.key)].get(key_value(fields.get(b.column)))
            if x and y:
                extra.append(nt_row((URIRef(base + x), URIRef(idx.iri_of(prop)), URIRef(base + y))))
                pair_counts[i] += 1
        records.append(row_record(table.file, row, kept))
    return records, names, link_facts, extra


def _map_batch(idx: EntitiesIndex, batch_idx: EntitiesIndex, table: Table, records: list[Record],
               names: dict[int, tuple[str, str]], link_facts: list[tuple[int, str, str, str, str]], cov: Coverage
               ) -> list[str]:
    """The batch's records mapped into `batch_idx` under their names, its link facts added; the N-Triples lines of
    the links' inverses."""
    base = idx.base_iri
    shape = Shape(table.file, TABLE_PATTERN, records, table.shape.keys, table.shape.plans, 0,
                  record_class=table.shape.record_class)
    counting = CountingCoverage(tallies=cov.tallies)  # the cells counted into the build's coverage, not listed
    apply_mapping(batch_idx, shape, table.decision, counting, names=lambda rec: names[rec.path[0]])
    inverses = []
    for row, column, prop, target, inverse in link_facts:
        subject = names[row][0]
        src = {"file": table.file, "path": pointer([row, column])}
        batch_idx.individuals[subject].facts.append(Fact(prop, object=target, source=src))
        cov.tally(table.file, column, "covered", prop)
        if inverse:
            inverses.append(nt_row((URIRef(base + target), URIRef(idx.iri_of(inverse)), URIRef(base + subject))))
    return inverses


def _batch_lines(idx: EntitiesIndex, batch_idx: EntitiesIndex, record_names: set[str], result: StreamResult,
                 sample: EntitiesIndex, sampled: dict[str, int], per_class: int, value_individuals: set[str]
                 ) -> list[str]:
    """The N-Triples lines of the batch's individuals (with their label and roles); the first individuals of each
    class kept in `sample` (for HermiT), with the individuals their facts name."""
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
    return lines


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
