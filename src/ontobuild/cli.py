"""`ontobuild`: build an OWL ontology from data files with the builder agent, or from an existing index."""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

import click

from ontocore.cliutil import environment_help, friendly_errors, llm_options, model_options, outcome_options
from ontocore.errors import InputError

from . import __version__
from .inputs.readers import input_formats

log = logging.getLogger(__name__)

HELP = f"""Turn data files ({input_formats()}) into an OWL ontology in an outcome folder.

\b
ontobuild data/a.json data/b.md            build with the language model
ontobuild --from-index entities_index.json write the OWL of an existing index
ontobuild --dry-run data/a.csv data/b.md   what a build would read and ask, without the model
ontobuild --check-model                    one real tool call with the configured model"""


def format_summary(summary: dict[str, Any]) -> str:
    """A few human lines from a run summary (the stats dict of outcome.write_index_outcome or similar)."""
    lines = []
    if summary.get("outcome"):
        lines.append(f"outcome: {summary['outcome']}")
    counts = summary.get("counts")
    if isinstance(counts, dict) and counts:
        lines.append(", ".join(f"{v} {k}" for k, v in counts.items()))
    outputs = summary.get("outputs")
    if isinstance(outputs, dict) and outputs.get("files"):
        lines.append(f"written: {', '.join(outputs['files'])} ({outputs.get('why', '')})")
    reasoner = summary.get("reasoner")
    if isinstance(reasoner, dict):
        verdict = reasoner.get("status", "?")
        if verdict == "not checked" and reasoner.get("reason"):
            verdict += f": {reasoner['reason']}"
        lines.append(f"reasoner: {verdict}")
        lines += [f"  {d}" for d in reasoner.get("details", [])[:10]]
    elif reasoner:
        lines.append(f"reasoner: {reasoner}")
    loaded = summary.get("loaded_into")
    if isinstance(loaded, dict):
        where = f"graph {loaded['graph']}" if loaded.get("graph") else "default graph"
        lines.append(f"loaded into: {loaded['url']} ({where}; {loaded['method']} of {loaded['file']}, "
                     f"{loaded['bytes']} bytes, {loaded['seconds']} s)")
    coverage = summary.get("coverage")
    if isinstance(coverage, dict):
        lines.append("coverage: " + "; ".join(
            f"{k.replace('_', ' ')} {v['covered']} covered, {v['skipped']} skipped of {v['total']}"
            for k, v in coverage.items() if isinstance(v, dict) and "total" in v))
    refs = summary.get("references")
    if isinstance(refs, dict) and refs.get("candidates"):
        lines.append(f"references between record sets: {refs['confirmed']} confirmed of {refs['candidates']} "
                     f"candidates, {refs['links']} links")
    repair = summary.get("repair")
    if isinstance(repair, dict):
        lines.append(f"repair round: {len(repair.get('repaired') or [])} repaired, "
                     f"{len(repair.get('remaining') or [])} remaining")
    llm = summary.get("llm")
    if isinstance(llm, dict):
        lines.append(f"llm: {llm.get('backend')} {llm.get('model')}, {llm.get('calls')} calls, "
                     f"{llm.get('prompt_tokens')} prompt ({llm.get('prompt_evaluated', llm.get('prompt_tokens'))} "
                     f"evaluated) + {llm.get('completion_tokens')} completion tokens, "
                     f"{llm.get('seconds')} s")
    for key, value in summary.items():
        if key not in ("outcome", "counts", "reasoner", "seconds", "total_seconds", "references", "repair") and not isinstance(value, (dict, list)):
            lines.append(f"{key}: {value}")
    if "total_seconds" in summary:
        lines.append(f"seconds: {summary['total_seconds']}")
    return "\n".join(lines)


@click.command(help=HELP, epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--from-index", "from_index", type=click.Path(path_type=Path), default=None,
              help="Write the ontology of an existing entities index (ours or the proof of concept's); no model.")
@click.option("--index", "index_path", type=click.Path(path_type=Path), default=None,
              help="Start the build from this existing entities index instead of an empty one.")
@click.option("--out", type=click.Path(path_type=Path), default=None,
              help="Outcome folder (default: outcomes/YYYYmmdd_HHMMSS).")
@click.option("--schema", "schema", type=click.Path(path_type=Path), multiple=True,
              help="Your own vocabulary (OWL or RDFS, schema.org-style too; Turtle, RDF/XML, OWL/XML, JSON-LD), "
                   "repeatable: the built classes and properties become its terms where one fits; new terms are "
                   "listed in the report.")
@click.option("--ontology-iri", "ontology_iri", default=None, metavar="IRI",
              help="The ontology's IRI; its classes, properties and individuals are named in its namespace (IRI#). "
                   "Default: the index's own, else http://example.org/ontobuild/<outcome folder name>.")
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Read the FILES without the model and print the record shapes, tables, rows and text chunks "
                   "found, and the model calls the build would make; nothing is written.")
@click.option("--no-reason", is_flag=True, help="Do not run the OWL reasoner.")
@click.option("--big-graph-triples", "big_graph_triples", type=click.IntRange(min=0), default=None, metavar="N",
              help="Above about N triples (default 200000; 0: never) write ontology.nt and a persisted Oxigraph store "
                   "(store/, what ontoask opens) instead of RDF/XML, Turtle and JSON-LD, and reason on a sample.")
@click.option("--stream-rows", "stream_rows", type=click.IntRange(min=0), default=None, metavar="N",
              help="Above N rows in all CSV/TSV inputs (default 50000; 0: never) read them as streams: the model "
                   "decides on each table's first rows, code maps every row straight to ontology.nt and the store "
                   "(memory bounded by tables and keys, not rows); the outcome is a big graph.")
@click.option("--resume", is_flag=True,
              help="With --out: go on with a failed or interrupted build of the same inputs into that folder (its "
                   "unfinished folder, NAME.incomplete): the model calls it made are not asked again, and a "
                   "streamed build goes on from its last committed batch.")
@click.option("--reason-sample", "reason_sample", type=click.IntRange(min=1), default=None, metavar="N",
              help="For a big graph: HermiT checks the TBox and each class's first N individuals (default 50); "
                   "SPARQL constraint queries check every individual.")
@click.option("--load-into", "load_url", default=None, metavar="URL",
              help="After the build, send the ontology to this SPARQL 1.1 Graph Store (e.g. Oxigraph server's "
                   "http://HOST:7878/store), with ontoask's endpoint credentials (ONTOASK_ENDPOINT_TOKEN, or "
                   "ONTOASK_ENDPOINT_USER / ONTOASK_ENDPOINT_PASSWORD).")
@click.option("--load-graph", "load_graph", default=None, metavar="IRI",
              help="With --load-into: the named graph to load into (default: the default graph).")
@click.option("--load-replace", is_flag=True, help="With --load-into: replace the graph's content (HTTP PUT) "
                                                   "instead of adding to it (POST).")
@click.option("--encoding", "encoding", default=None, metavar="NAME",
              help="The encoding of every text input (CSV/TSV, JSON, Markdown, text), e.g. cp1250 or latin-1. "
                   "Default: told per file (UTF-8, UTF-16, or the Windows code page its letters tell; line by line "
                   "when its lines mix UTF-8 and a code page).")
@click.option("--max-input-mb", "max_input_mb", type=click.FloatRange(min=0.001), default=None,
              envvar="ONTOBUILD_MAX_INPUT_MB", show_envvar=True,
              help="Refuse an input file larger than this many MB (default 100).")
@click.option("--check-model", is_flag=True, help="Only check the model: one real tool call, with timings.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display (it is shown only on a terminal anyway).")
@click.option("--json", "as_json", is_flag=True, help="Print the run's figures (what stats.json holds) as one JSON "
                                                      "object instead of the summary.")
@outcome_options
@model_options
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@click.version_option(__version__, prog_name="ontobuild")
@friendly_errors
def main(files: tuple[Path, ...], from_index: Path | None, index_path: Path | None, out: Path | None,
         schema: tuple[Path, ...], ontology_iri: str | None, dry_run: bool, no_reason: bool,
         big_graph_triples: int | None, stream_rows: int | None, resume: bool, reason_sample: int | None,
         load_url: str | None, load_graph: str | None,
         load_replace: bool, encoding: str | None,
         max_input_mb: float | None, check_model: bool, quiet: bool, as_json: bool, force: bool, keep_partial: bool,
         backend: str, model: str | None, base_url: str | None, api_key: str | None, model_path: str | None,
         threads: int | None, model_timeout: float | None, model_retries: int | None, verbose: int) -> None:
    """The `ontobuild` command (its help: HELP)."""
    start = time.monotonic()
    if max_input_mb is not None:
        os.environ["ONTOBUILD_MAX_INPUT_MB"] = str(max_input_mb)
    if ontology_iri is not None:
        from .outputs.outcome import base_iri_for

        base_iri_for(ontology_iri)  # refused before any work
    if encoding is not None:
        from ontocore.files import check_encoding

        encoding = check_encoding(encoding)  # refused before any work
    if resume and (out is None or from_index is not None):
        raise click.UsageError("--resume goes with --out FOLDER (the outcome folder of the interrupted build) and "
                               "the same data FILES.")
    if (load_graph or load_replace) and not load_url:
        raise click.UsageError("--load-graph and --load-replace go with --load-into URL.")
    if load_url:
        from ontocore.credentials import split_credentials

        try:
            split_credentials(load_url)  # a wrong URL is refused before any work
        except InputError:
            raise InputError(f"--load-into must be the http(s) URL of a SPARQL 1.1 Graph Store (e.g. "
                             f"http://localhost:7878/store), not {load_url!r}.") from None
    scale = {"big_graph_triples": big_graph_triples, "sample_per_class": reason_sample}
    if dry_run:
        if from_index is not None or not files:
            raise click.UsageError(f"--dry-run reads the data FILES ({input_formats()}); give them (it cannot be "
                                   "combined with --from-index).")
        from .dryrun import dry_run as plan_run, format_plan

        plan = plan_run(list(files), schema=list(schema), encoding=encoding)
        click.echo(json.dumps(plan, ensure_ascii=False) if as_json else format_plan(plan))
        return
    if check_model:
        from .check import check_model as run_check

        result = run_check(llm_options(backend, model, base_url, api_key, model_path, threads, model_timeout,
                                       model_retries))
        click.echo(json.dumps(result, ensure_ascii=False) if as_json else
                   "\n".join(f"{k}: {v}" for k, v in result.items()))
        if result["state"] != "answered":
            raise click.ClickException("the model did not make a valid tool call")
        return
    from .api import build

    if from_index is not None:
        if files or index_path is not None or schema:
            raise click.UsageError("--from-index cannot be combined with FILES, --index or --schema.")
        result = build(from_index=from_index, out=out, reason=not no_reason, force=force,
                       keep_partial=keep_partial, ontology_iri=ontology_iri, **scale)
    else:
        if not files:
            raise click.UsageError(f"give the data FILES to build from ({input_formats()}), or --from-index FILE.")
        from ontocore.progress import open_progress

        progress = open_progress(quiet=quiet or bool(verbose))
        try:
            result = build(list(files), out=out, index=index_path, schema=list(schema), reason=not no_reason,
                           force=force, keep_partial=keep_partial, progress=progress, model=model,
                           backend=backend, base_url=base_url, api_key=api_key, model_path=model_path,
                           threads=threads, model_timeout=model_timeout, model_retries=model_retries,
                           ontology_iri=ontology_iri, stream_rows=stream_rows, resume=resume, encoding=encoding,
                           **scale)
        finally:
            progress.close()
    summary = dict(result.stats)
    if load_url:
        from ontocore.credentials import split_credentials

        from .outputs.loadinto import load_into

        click.echo(f"outcome: {summary.get('outcome')} (complete; now loading it into "
                   f"{split_credentials(load_url)[0]})", err=True)
        summary["loaded_into"] = load_into(load_url, summary["outcome"], graph=load_graph, replace=load_replace)
    summary.setdefault("total_seconds", round(time.monotonic() - start, 2))
    click.echo(json.dumps(summary, ensure_ascii=False, default=str) if as_json else format_summary(summary))


def build_from_index(path: Path, out: Path | None = None, reason: bool = True, force: bool = False,
                     keep_partial: bool = False, ontology_iri: str | None = None,
                     big_graph_triples: int | None = None, sample_per_class: int | None = None) -> dict[str, Any]:
    """Load an index file and write its outcome folder (transactionally); the stats dict (ontobuild.api)."""
    from .api import build_from_index as write

    return write(path, out=out, reason=reason, force=force, keep_partial=keep_partial, ontology_iri=ontology_iri,
                 big_graph_triples=big_graph_triples, sample_per_class=sample_per_class)
