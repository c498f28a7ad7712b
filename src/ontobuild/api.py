"""The builder as a library: `ontobuild.build(...)` returns a `BuildResult` (the outcome folder and its figures).

    import ontobuild

    result = ontobuild.build(["catalog.json", "notes.md"], out="outcomes/catalog")
    print(result.outcome, result.counts, result.consistent)
    result.ontology  # outcomes/catalog/ontology.ttl

The `ontobuild` command is a thin layer over this function. Errors are `ontocore.errors.OntoError`s with a
readable message (`InputError` for what the caller gave, `ModelServerError` / `ModelBehaviorError` /
`ModelUnavailable` for the model side); the outcome folder appears only when the build succeeded."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ontocore.errors import InputError
from ontocore.llm import model_settings

if TYPE_CHECKING:
    from ontocore.llm import ChatModel
    from ontocore.progress import Progress

log = logging.getLogger(__name__)

@dataclass(frozen=True)
class BuildResult:
    """What a build left: its outcome folder and the figures it wrote to `stats.json`."""

    outcome: Path  # the outcome folder (ontology.owl, ontology.ttl, entities_index.json, report.html, ...)
    stats: dict[str, Any] = field(default_factory=dict)  # what stats.json holds

    @property
    def ontology(self) -> Path:
        """The ontology in Turtle (`ontology.owl` beside it is the same in RDF/XML)."""
        return self.outcome / "ontology.ttl"

    @property
    def index(self) -> Path:
        """The entities index (with the source of every fact)."""
        return self.outcome / "entities_index.json"

    @property
    def report(self) -> Path:
        return self.outcome / "report.html"

    @property
    def counts(self) -> dict[str, int]:
        """Classes, properties, individuals, facts, triples."""
        return dict(self.stats.get("counts") or {})

    @property
    def consistent(self) -> bool | None:
        """The reasoner's verdict: True, False, or None when it did not run."""
        status = (self.stats.get("reasoner") or {}).get("status") if isinstance(self.stats.get("reasoner"), dict) \
            else None
        return {"consistent": True, "inconsistent": False}.get(status or "")


def build(files: Iterable[str | Path] = (), out: str | Path | None = None, *,
          from_index: str | Path | None = None, index: str | Path | None = None,
          schema: Iterable[str | Path] = (), reason: bool = True, force: bool = False, keep_partial: bool = False,
          model: "str | ChatModel | None" = None, progress: "Progress | None" = None,
          ontology_iri: str | None = None, big_graph_triples: int | None = None,
          sample_per_class: int | None = None, stream_rows: int | None = None, resume: bool = False,
          encoding: str | None = None, max_input_mb: float | None = None, **model_options: Any) -> BuildResult:
    """Build an OWL ontology from data files into an outcome folder; returns its `BuildResult`.

    - `files`: JSON, JSON Lines, CSV/TSV, spreadsheet, Markdown, text, PDF, Word, PowerPoint and HTML files
      (`inputs.readers.READERS`, by suffix; another suffix is an InputError); all
      of them form one dataset.
    - `out`: the outcome folder (default `outcomes/YYYYmmdd_HHMMSS`); refused when not empty unless `force`.
    - `from_index`: write the ontology of an existing entities index instead (no model; no `files`).
    - `index`: extend this existing entities index instead of starting from an empty one.
    - `schema`: your own vocabulary files; built terms become its terms where one fits.
    - `reason`: run the OWL reasoner (HermiT, needs Java).
    - `model`: a model name on an OpenAI-compatible server, or an open model object (anything with the
      `ChatModel.chat` method); with `backend`, `base_url`, `api_key`, `model_path`, `threads`,
      `model_timeout`, `model_retries` as keywords (default: the environment, as for the command).
    - `progress`: an `ontocore.progress.Progress` that hears about each step (default: silent).
    - `ontology_iri`: the ontology's IRI (default: derived from the outcome folder's name).
    - `big_graph_triples`: above this many triples (default 200000; 0: never) the ontology is written as
      ontology.nt and a persisted Oxigraph store, and reasoned on a sample (`sample_per_class` individuals per
      class, default 50) plus SPARQL constraint queries on every individual (see outputs.bigoutput, scalecheck).
    - `stream_rows`: above this many rows in all CSV/TSV files (default 50000; 0: never) they are read as streams
      (ontobuild.tables.streaming): memory bounded by tables and keys, not rows; the outcome is a big graph.
    - `encoding`: the encoding of every text input (CSV/TSV, JSON, Markdown, text), e.g. "cp1250"; by default each
      file's is told (UTF-8, UTF-16, or the Windows code page its letters tell, line by line when lines mix them).
    - `max_input_mb`: the largest input file, in MB (default: ONTOBUILD_MAX_INPUT_MB, else 100).
    - `resume`: go on with a failed or interrupted build into `out` (its unfinished folder): the model calls it
      made are not asked again; a streamed build also goes on from its last committed batch.

    Raises `ontocore.errors.OntoError` (its `exit_code` says whose fault: 2 the input, 1 the model or the
    environment); no outcome folder is left then (`keep_partial` keeps it as NAME.incomplete), unless the model was
    asked something: then the unfinished folder is kept as NAME.incomplete with the calls it saved, and the error's
    note (`__notes__`) says how to resume."""
    files = [Path(f) for f in ([files] if isinstance(files, (str, Path)) else files)]
    schema = [Path(s) for s in ([schema] if isinstance(schema, (str, Path)) else schema)]
    if from_index is not None:
        if files or index is not None or schema:
            raise InputError("from_index cannot be combined with files, index or schema.")
        return _result(build_from_index(Path(from_index), out=_path(out), reason=reason, force=force,
                                        keep_partial=keep_partial, ontology_iri=ontology_iri,
                                        big_graph_triples=big_graph_triples, sample_per_class=sample_per_class))
    if not files:
        raise InputError("give the data files to build from (or from_index, an entities index).")
    chat_model, options = model_settings(model, **model_options)
    if encoding is not None:
        from ontocore.files import check_encoding

        encoding = check_encoding(encoding)
    from .inputs.limits import input_size_limit
    from .pipeline import run_build  # the model stack is imported only for a build with the model

    kwargs: dict[str, Any] = {"files": files, "out": _path(out), "index_path": _path(index), "reason": reason,
                              "llm_options": options, "progress": progress, "force": force,
                              "keep_partial": keep_partial, "schema": schema, "ontology_iri": ontology_iri,
                              "big_graph_triples": big_graph_triples, "sample_per_class": sample_per_class,
                              "stream_rows": stream_rows, "resume": resume, "encoding": encoding}
    if chat_model is not None:
        kwargs["model"] = chat_model
    with input_size_limit(max_input_mb):
        return _result(run_build(**kwargs))


def build_from_index(path: Path, out: Path | None = None, reason: bool = True, force: bool = False,
                     keep_partial: bool = False, ontology_iri: str | None = None,
                     big_graph_triples: int | None = None, sample_per_class: int | None = None) -> dict[str, Any]:
    """Load an index file and write its outcome folder (transactionally); the stats dict. The ontology's header
    names as sources the files its facts came from (else the index file itself)."""
    from .ontology.indexfile import load_index
    from ontocore.folders import outcome_folder

    from .outputs.outcome import write_index_outcome

    t = time.monotonic()
    idx = load_index(path)
    load_s = round(time.monotonic() - t, 3)
    with outcome_folder(out=out, force=force, inputs=[path], keep_partial=keep_partial) as folder:
        sources = sorted({str(f.source.get("file")) for i in idx.individuals.values() for f in i.facts
                          if f.source.get("file")}) or [path.name]
        return write_index_outcome(idx, folder.path, reason=reason, final=folder.final, sources=sources,
                                   ontology_iri=ontology_iri, big_graph_triples=big_graph_triples,
                                   sample_per_class=sample_per_class,
                                   extra_stats={"source": {"from_index": str(path)}, "seconds": {"load": load_s}})


def _path(p: str | Path | None) -> Path | None:
    return None if p is None else Path(p)


def _result(stats: dict[str, Any]) -> BuildResult:
    stats = dict(stats or {})
    return BuildResult(outcome=Path(str(stats.get("outcome") or "")), stats=stats)


__all__ = ["BuildResult", "build", "build_from_index"]
