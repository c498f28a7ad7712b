"""`ontobuild FILE...`: the builder agent, in small steps the LLM can take reliably. This module runs the steps, one
function each, and writes the outcome:

1. structured data (tables.recordstep.read_records): every record shape, the LLM decides the mapping (one
   `map_records` call), code applies it to all records;
2. references (tables.references.confirming.link_references): candidate links between tables, decided by code or
   confirmed by the LLM;
3. text (text.step.read_texts): every text chunk, code finds the numbers and known entities, the LLM assigns them
   (one `read_sentence` call per sentence with something to decide); then properties that may be one concept are
   reviewed;
4. vocabulary, with --schema (ontology.alignment.align_vocabulary): built terms become the user's terms where one fits;
5. output (`_finish`): the reasoner checks the result and the outcome is written; on a problem, a bounded repair
   round (ontology.consistency.repair_round) and the outcome written again.
LLM cost grows with the number of shapes and chunks, not with the number of records."""

from __future__ import annotations

import json
import logging
import shutil
import time
from pathlib import Path
from typing import Any

from ontocore.folders import OWNER_FILE, RESUMABLE, OutcomeFolder, outcome_folder, write_json
from ontocore.llm import ChatModel, model_identity, open_model, opened_calls
from ontocore.progress import Progress
from ontocore.savedcalls import SAVED_CALLS_FILE, SavedCalls, SavingChat
from ontocore.trace import Trace

from .ontology.alignment import align_vocabulary
from .ontology.consistency import needs_repair, repair_round
from .ontology.index import EntitiesIndex
from .ontology.indexfile import load_index
from .inputs.chunks import Chunk
from .inputs.readers import check_inputs, load_inputs
from .tables.references.proposing import COVERAGE_FIELDS, LINK_FIELDS
from .tables.mapping import Coverage
from .outputs.outcome import STATS_FILE, settle_base_iri, write_index_outcome
from .tables.recordstep import read_records
from .tables.references.confirming import link_references
from .outputs.scalecheck import SAMPLE_PER_CLASS
from .tables.streaming.checkpoint import CHECKPOINT_FILE, read_checkpoint
from .tables.streaming.step import stream_tables, stream_threshold
from .outputs.report import write_build_report
from .text.step import read_texts
from .ontology.vocabulary import Vocabulary, load_vocabulary

log = logging.getLogger(__name__)

def run_build(files: list[Path], out: str | Path | None = None, index_path: str | Path | None = None,
              reason: bool = True, llm_options: dict[str, Any] | None = None, model: ChatModel | None = None,
              root: str | Path = "outcomes", progress: Progress | None = None, force: bool = False,
              keep_partial: bool = False, schema: list[Path] | None = None,
              ontology_iri: str | None = None, big_graph_triples: int | None = None,
              sample_per_class: int | None = None, stream_rows: int | None = None, resume: bool = False,
              encoding: str | None = None) -> dict[str, Any]:
    """Build (or extend) an ontology from the files; returns the stats written to stats.json.

    `ontology_iri`: the ontology's IRI (its names are in its namespace); by default the index's own, or one
    derived from the outcome folder's name (outcome.settle_base_iri).
    `schema`: the user's vocabulary files; the built classes and properties are aligned onto its terms
    (alignment.align) before the ontology is written.
    The outcome folder appears only when the build succeeded (ontocore.folders.outcome_folder); `force` lets `out` be a
    non-empty folder, replaced at the end; `keep_partial` keeps a failed run's folder as NAME.incomplete.
    `stream_rows`: above this many rows in all CSV/TSV inputs (streaming.step.STREAM_ROWS when None; 0: never) they
    are read as streams (tables/streaming/) and the outcome is a big graph.
    `encoding`: the codec of every text input (files.check_encoding), else told per file (and per line).
    The model calls of each decision are saved in the unfinished folder as it is taken (`_saving_model`): a build
    that fails or is interrupted after one keeps that folder as NAME.incomplete, and its error says how to go on;
    `resume` takes the unfinished folder of an earlier run into `out` over and asks the model only what it did not
    save (a streamed build also goes on from its last committed batch)."""
    t0 = time.perf_counter()
    progress = progress or Progress()
    check_inputs([Path(f) for f in files])  # a missing or unsupported file is an InputError before any work
    streamed, _ = stream_threshold([Path(f) for f in files], stream_rows)
    inputs = load_inputs([Path(f) for f in files], stream=streamed, encoding=encoding)
    vocab = load_vocabulary(schema) if schema else None
    idx = load_index(index_path) if index_path else EntitiesIndex()
    used = [*files, *([index_path] if index_path else []), *(schema or [])]
    made: list[OutcomeFolder] = []
    try:
        with outcome_folder(root=root, out=out, force=force, inputs=used, keep_partial=keep_partial,
                            resume=resume) as folder:
            made.append(folder)
            checkpoint = _streamed_folder(folder, streamed) if streamed else _taken_over(folder)
            saving = _saving_model(folder, model, llm_options, progress)
            with Trace(folder.path / "building.log") as trace:
                stats = _build(files, inputs, idx, saving, folder, reason, progress, trace, t0, vocab, ontology_iri,
                               {"big_graph_triples": big_graph_triples, "sample_per_class": sample_per_class},
                               checkpoint)
    except BaseException as e:
        if made:
            _say_how_to_resume(e, made[0])
        raise
    return stats


def _saving_model(folder: OutcomeFolder, model: ChatModel | None, llm_options: dict[str, Any] | None,
                  progress: Progress) -> SavingChat:
    """The build's model, the calls of each decision saved in the unfinished folder as it is taken
    (ontocore.savedcalls): a build that fails or is killed after one keeps its folder (NAME.incomplete), and a rerun
    with --resume takes their replies instead of asking again. The model is opened at once, unless an earlier run saved calls (then only when
    a request is not among them)."""
    calls = SavedCalls(folder.path / SAVED_CALLS_FILE)

    def saved() -> None:
        if not (folder.path / RESUMABLE).exists():
            folder.keep_partial = True  # what was paid for is kept when the build fails after this
            (folder.path / RESUMABLE).touch()

    def opener() -> ChatModel:
        progress.begin("model", "loading the model")
        opened = open_model(llm_options)
        progress.end("model")
        return opened

    if model is None and not calls:
        model = opener()
    if model is not None:
        return SavingChat(calls, model=model, saved=saved)
    log.info("%d model call(s) saved by an earlier run of this build are not asked again", len(calls))
    backend, name = model_identity(llm_options)
    return SavingChat(calls, opener=opener, backend=backend, name=name, saved=saved)


def _taken_over(folder: OutcomeFolder) -> None:
    """The unfinished folder of an earlier run taken over (--resume): only its saved model calls are kept."""
    if folder.resumed:
        log.info("resuming %s with the model calls it saved", folder.final)
        for f in folder.path.iterdir():
            if f.name not in (OWNER_FILE, SAVED_CALLS_FILE):
                shutil.rmtree(f) if f.is_dir() else f.unlink()
    return None


def _say_how_to_resume(error: BaseException, folder: OutcomeFolder) -> None:
    """A failed build that kept saved model calls says how to go on without asking them again."""
    kept = folder.kept
    if kept is None or not (kept / SAVED_CALLS_FILE).is_file():
        return
    n = len(SavedCalls(kept / SAVED_CALLS_FILE))
    if n:
        error.add_note(f"The {n} model call(s) this build made are saved in {kept}: run the same command with "
                       f"--out {folder.final} --resume to go on without asking them again.")


def _streamed_folder(folder: OutcomeFolder, streamed: list[Path]) -> dict[str, Any] | None:
    """A build that streams tables keeps its unfinished folder when it fails or is interrupted (NAME.incomplete,
    or the hidden partial folder of a killed run), so that `--resume` can go on from its last committed batch; the
    checkpoint of a folder taken over, when it was made from these inputs (else the folder is emptied, but for the
    model calls it saved)."""
    folder.keep_partial = True
    checkpoint = read_checkpoint(folder.path, streamed) if folder.resumed else None
    if folder.resumed and checkpoint is None:
        log.warning("%s was made from other inputs; starting over", folder.final)
        for f in folder.path.iterdir():
            if f.name not in (OWNER_FILE, SAVED_CALLS_FILE):
                shutil.rmtree(f) if f.is_dir() else f.unlink()
    elif checkpoint is not None:
        log.info("resuming %s after row %s", folder.final, (checkpoint.get("done") or {}).get("rows", 0))
    (folder.path / RESUMABLE).touch()
    return checkpoint


def _build(files: list[Path], inputs: Any, idx: EntitiesIndex, model: ChatModel, folder: OutcomeFolder,
           reason: bool, progress: Progress, trace: Trace, t0: float, vocab: Vocabulary | None = None,
           ontology_iri: str | None = None, scale: dict[str, Any] | None = None,
           checkpoint: dict[str, Any] | None = None) -> dict[str, Any]:
    seconds: dict[str, float] = {}
    alignments: list[dict[str, Any]] = []
    cov = Coverage()
    idx.track(cov.entries, *COVERAGE_FIELDS)  # every rename and merge of a later step reaches them (index.rename)
    outdir = folder.path
    trace.write("start", files=[str(f) for f in files], backend=model.backend, model=model.model)
    t = time.perf_counter()
    shapes, keys = read_records(model, idx, inputs.json_docs, cov, trace, progress)
    references = link_references(model, idx, keys, shapes, cov, trace, progress)
    idx.track(references, *LINK_FIELDS)
    seconds["json"] = time.perf_counter() - t
    scale = dict(scale or {})
    if inputs.streamed:
        t = time.perf_counter()
        settle_base_iri(idx, folder.final.name, ontology_iri)  # the rows are written as they are mapped
        per_class = scale.get("sample_per_class")
        streamed = stream_tables(model, idx, inputs.streamed, cov, trace, progress, folder.path, inputs.warnings,
                                 inputs.encodings, SAMPLE_PER_CLASS if per_class is None else per_class,
                                 resume=checkpoint, decided=lambda: _release(model, inputs, vocab),
                                 encoding=inputs.encoding)
        references += streamed.references
        inputs.tables.update(streamed.tables)
        scale["streamed"] = streamed
        seconds["tables"] = time.perf_counter() - t
    t = time.perf_counter()
    # the text step's calls (read_sentence, decide) are opened: the local model starts them as they must start, instead of
    # often as a fenced block or bare arguments written again under the grammar; the mapping call is not (opened, the
    # proof of concept's record role got worse: bench/results/build_speed.md)
    with opened_calls(model):
        chunks, merges = read_texts(model, idx, inputs.chunks, trace, progress, vocab)
    idx.track(lambda: (n for c in chunks for n in c["numbers"]), "property")
    idx.track(merges, "into")
    place_sources(idx, inputs.chunks)
    seconds["text"] = time.perf_counter() - t
    if vocab is not None:
        t = time.perf_counter()
        alignments = align_vocabulary(model, idx, vocab, trace, progress)
        idx.track(alignments, "name")
        idx.imports = list(dict.fromkeys([*idx.imports, *(iri for iri, _ in vocab.ontologies)]))
        vocab.write_copies(outdir)  # Protégé opens the ontology with its imports from these local copies
        seconds["vocabulary"] = time.perf_counter() - t
    progress.begin("finish", "reasoner (HermiT) and writing" if reason else "writing")
    written = {"sources": [f.name for f in files], "ontology_iri": ontology_iri, "inputs": inputs.report(),
               "scale": scale}
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
    for name in (CHECKPOINT_FILE, RESUMABLE, SAVED_CALLS_FILE):  # complete: nothing to go on from
        (outdir / name).unlink(missing_ok=True)
    write_json(outdir / STATS_FILE, stats)  # once, last: its presence says the folder is complete
    return stats


def place_sources(idx: EntitiesIndex, chunks: list[Chunk]) -> None:
    """Every source that names a text chunk also says where the chunk is in its document (its page or slide and
    section: `Chunk.place`), so that a fact read from a PDF names its page."""
    places = {c.id: c.place() for c in chunks}
    places = {k: v for k, v in places.items() if v}
    if not places:
        return
    for ind in idx.individuals.values():
        for source in (ind.source, *(f.source for f in ind.facts)):
            place = places.get(source.get("chunk", ""))
            if place:
                for key, value in place.items():
                    source.setdefault(key, value)


def _release(model: ChatModel, inputs: Any, vocab: Vocabulary | None) -> None:
    """The embedded model's memory given back before the rows of big tables are written, when no later step asks
    the model (no text, no vocabulary; a big graph has no repair round): the build's peak is then the larger of
    the model's and the rows', not their sum."""
    release = getattr(model, "release", None)
    if release is not None and not inputs.chunks and vocab is None:
        release()


def _finish(idx: EntitiesIndex, folder: OutcomeFolder, reason: bool, model: ChatModel, cov: Coverage,
            chunks: list[dict[str, Any]], seconds: dict[str, float], t0: float, trace: Trace,
            references: list[dict[str, Any]] | None = None, merges: list[dict[str, Any]] | None = None,
            alignments: list[dict[str, Any]] | None = None, written: dict[str, Any] | None = None
            ) -> dict[str, Any]:
    written = written or {}
    outdir = folder.path
    numbers = [n for c in chunks for n in c["numbers"]]
    clauses = [s for c in chunks for s in c.get("clauses", [])]
    coverage = {
        "json_leaves": cov.totals(),
        "text_chunks": {"total": len(chunks), "covered": sum(c["status"] == "covered" for c in chunks),
                        "skipped": sum(c["status"] == "skipped" for c in chunks)},
        "text_sentences": {"total": len(clauses), "covered": sum(s["status"] == "stated" for s in clauses),
                           "skipped": sum(s["status"] == "skipped" for s in clauses)},
        "text_numbers": {"total": len(numbers), "covered": sum(n["status"] == "covered" for n in numbers),
                         "skipped": sum(n["status"] == "skipped" for n in numbers)},
        "text_links": sum(len(c.get("links", [])) for c in chunks),
        "outside_vocabulary": [o for c in chunks for o in c.get("outside_vocabulary", [])],
        "references": references or [],
        "merges": merges or [],
        "alignments": alignments or [],
        "json": cov.entries,
        "text": chunks,
    }
    write_json(outdir / "coverage.json", coverage)
    asked = [r for r in references or [] if "confirmed" in r]
    extra = {"llm": model.usage.as_dict(),
             "coverage": {k: coverage[k] for k in ("json_leaves", "text_chunks", "text_sentences", "text_numbers",
                                                   "text_links")},
             "text_chunks": [{"chunk": c["chunk"], **c["llm"]} for c in chunks if "llm" in c],
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
