"""`ontobuild`: build an OWL ontology from data files with the builder agent, or from an existing index.

Each mode is one function here (build_files, write_from_index, print_dry_run, print_model_check) and one
subcommand (`ontobuild dry-run FILE...`, `ontobuild from-index FILE`, `ontobuild check-model`); `ontobuild FILE...`
builds, and its flags --dry-run, --from-index and --check-model still choose the other modes. The click layer only
checks and gathers the options and calls the library (ontobuild.api); settings reach it as arguments."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

import click

from ontocore.cliutil import ModelChoice, environment_help, friendly_errors, gather, model_options, outcome_options
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


# ---- the modes: one function each, called by `ontobuild`'s flags and by its subcommands ------------------------

@dataclass(frozen=True)
class OutcomeSettings:
    """How a build writes its outcome folder and ontology: the options both build modes share, as the keywords of
    `ontobuild.build`."""

    out: Path | None = None
    force: bool = False
    keep_partial: bool = False
    ontology_iri: str | None = None
    reason: bool = True
    big_graph_triples: int | None = None
    sample_per_class: int | None = None

    @classmethod
    def from_options(cls, out: Path | None, force: bool, keep_partial: bool, ontology_iri: str | None,
                     no_reason: bool, big_graph_triples: int | None, reason_sample: int | None) -> "OutcomeSettings":
        return cls(out, force, keep_partial, ontology_iri, not no_reason, big_graph_triples, reason_sample)

    def check(self) -> None:
        """InputError for an --ontology-iri that is no IRI, before any work."""
        if self.ontology_iri is not None:
            from .outputs.outcome import base_iri_for

            base_iri_for(self.ontology_iri)


@dataclass(frozen=True)
class LoadTarget:
    """Where --load-into sends the finished ontology (no `url`: nowhere)."""

    url: str | None = None
    graph: str | None = None
    replace: bool = False

    @classmethod
    def from_options(cls, load_url: str | None, load_graph: str | None, load_replace: bool) -> "LoadTarget":
        return cls(load_url, load_graph, load_replace)

    def check(self) -> None:
        """UsageError for --load-graph or --load-replace without --load-into; InputError for a URL that is not a
        Graph Store's, before any work."""
        if (self.graph or self.replace) and not self.url:
            raise click.UsageError("--load-graph and --load-replace go with --load-into URL.")
        if self.url:
            from ontocore.credentials import split_credentials

            try:
                split_credentials(self.url)
            except InputError:
                raise InputError(f"--load-into must be the http(s) URL of a SPARQL 1.1 Graph Store (e.g. "
                                 f"http://localhost:7878/store), not {self.url!r}.") from None


def checked_encoding(encoding: str | None) -> str | None:
    """The --encoding's codec name, or InputError for one Python does not know (before any work)."""
    if encoding is None:
        return None
    from ontocore.files import check_encoding

    return check_encoding(encoding)


def print_dry_run(files: tuple[Path, ...], schema: tuple[Path, ...], encoding: str | None,
                  max_input_mb: float | None, as_json: bool) -> None:
    """The dry-run mode: print what a build of `files` would read and ask, without the model; nothing is written."""
    from .dryrun import dry_run, format_plan
    from .inputs.limits import input_size_limit

    with input_size_limit(max_input_mb):
        plan = dry_run(list(files), schema=list(schema), encoding=encoding)
    click.echo(json.dumps(plan, ensure_ascii=False) if as_json else format_plan(plan))


def print_model_check(model_choice: ModelChoice, as_json: bool) -> None:
    """The model check: one real tool call with the chosen model, its timings printed; ClickException (exit 1)
    when the model made no valid tool call."""
    from .check import check_model

    result = check_model(model_choice.llm_options())
    click.echo(json.dumps(result, ensure_ascii=False) if as_json else
               "\n".join(f"{k}: {v}" for k, v in result.items()))
    if result["state"] != "answered":
        raise click.ClickException("the model did not make a valid tool call")


def write_from_index(path: Path, settings: OutcomeSettings) -> dict[str, Any]:
    """The index mode: the outcome folder of an existing entities index, no model; its run summary."""
    from .api import build

    return dict(build(from_index=path, **asdict(settings)).stats)


def build_files(files: tuple[Path, ...], settings: OutcomeSettings, model_choice: ModelChoice, *,
                index: Path | None, schema: tuple[Path, ...], stream_rows: int | None, resume: bool,
                encoding: str | None, max_input_mb: float | None, quiet: bool) -> dict[str, Any]:
    """The build: the outcome folder of the data `files`, built with the language model; its run summary. The
    progress display is shown on a terminal unless `quiet`."""
    from ontocore.progress import open_progress

    from .api import build

    progress = open_progress(quiet=quiet)
    try:
        result = build(list(files), index=index, schema=list(schema), progress=progress, stream_rows=stream_rows,
                       resume=resume, encoding=encoding, max_input_mb=max_input_mb, **asdict(settings),
                       **model_choice.keywords())
    finally:
        progress.close()
    return dict(result.stats)


def load_and_print(summary: dict[str, Any], load: LoadTarget, as_json: bool, start: float) -> None:
    """After a build: send the outcome to `load`'s Graph Store (if any), then print the run's summary."""
    if load.url:
        from ontocore.credentials import split_credentials

        from .outputs.loadinto import load_into

        click.echo(f"outcome: {summary.get('outcome')} (complete; now loading it into "
                   f"{split_credentials(load.url)[0]})", err=True)
        summary["loaded_into"] = load_into(load.url, summary["outcome"], graph=load.graph, replace=load.replace)
    summary.setdefault("total_seconds", round(time.monotonic() - start, 2))
    click.echo(json.dumps(summary, ensure_ascii=False, default=str) if as_json else format_summary(summary))


# ---- the click layer -------------------------------------------------------------------------------------------

_MODE = "ontobuild.cli.mode"  # the ctx.meta key of the mode a first argument named


class ModesCommand(click.Command):
    """A command that is also the door to its modes as subcommands: a first argument that names a mode runs that
    mode's command (`ontobuild dry-run FILE...`); any other is this command's own (`ontobuild FILE...`; a data file
    named like a mode is given as ./NAME)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.modes: dict[str, click.Command] = {}

    def mode(self, name: str, **settings: Any) -> Callable[[Callable[..., Any]], click.Command]:
        """Decorator: the function becomes the click command of the mode `name` (`short_help`: its line in the
        command's help)."""

        def decorator(fn: Callable[..., Any]) -> click.Command:
            settings.setdefault("context_settings", {"help_option_names": ["-h", "--help"]})
            command = click.command(name, **settings)(fn)
            self.modes[name] = command
            return command

        return decorator

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] in self.modes:
            ctx.meta[_MODE] = (args[0], args[1:])
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        chosen = ctx.meta.pop(_MODE, None)
        if chosen is None:
            return super().invoke(ctx)
        name, args = chosen
        command = self.modes[name]
        with command.make_context(f"{ctx.command_path} {name}", args) as sub:  # usage: `ontobuild MODE ...`
            return command.invoke(sub)

    def format_epilog(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The modes as subcommands, listed before the epilog (as a group lists its commands)."""
        rows = [(name, command.get_short_help_str(limit=200)) for name, command in self.modes.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)
        super().format_epilog(ctx, formatter)


FILES = click.argument("files", nargs=-1, type=click.Path(path_type=Path))
OUT = click.option("--out", type=click.Path(path_type=Path), default=None,
                   help="Outcome folder (default: outcomes/YYYYmmdd_HHMMSS).")
SCHEMA = click.option("--schema", "schema", type=click.Path(path_type=Path), multiple=True,
                      help="Your own vocabulary (OWL or RDFS, schema.org-style too; Turtle, RDF/XML, OWL/XML, "
                           "JSON-LD), repeatable: the built classes and properties become its terms where one fits; "
                           "new terms are listed in the report.")
ONTOLOGY_IRI = click.option("--ontology-iri", "ontology_iri", default=None, metavar="IRI",
                            help="The ontology's IRI; its classes, properties and individuals are named in its "
                                 "namespace (IRI#). Default: the index's own, else "
                                 "http://example.org/ontobuild/<outcome folder name>.")
NO_REASON = click.option("--no-reason", is_flag=True, help="Do not run the OWL reasoner.")
BIG_GRAPH_TRIPLES = click.option(
    "--big-graph-triples", "big_graph_triples", type=click.IntRange(min=0), default=None, metavar="N",
    help="Above about N triples (default 200000; 0: never) write ontology.nt and a persisted Oxigraph store "
         "(store/, what ontoask opens) instead of RDF/XML, Turtle and JSON-LD, and reason on a sample.")
REASON_SAMPLE = click.option(
    "--reason-sample", "reason_sample", type=click.IntRange(min=1), default=None, metavar="N",
    help="For a big graph: HermiT checks the TBox and each class's first N individuals (default 50); SPARQL "
         "constraint queries check every individual.")
LOAD_INTO = click.option(
    "--load-into", "load_url", default=None, metavar="URL",
    help="After the build, send the ontology to this SPARQL 1.1 Graph Store (e.g. Oxigraph server's "
         "http://HOST:7878/store), with ontoask's endpoint credentials (ONTOASK_ENDPOINT_TOKEN, or "
         "ONTOASK_ENDPOINT_USER / ONTOASK_ENDPOINT_PASSWORD).")
LOAD_GRAPH = click.option("--load-graph", "load_graph", default=None, metavar="IRI",
                          help="With --load-into: the named graph to load into (default: the default graph).")
LOAD_REPLACE = click.option("--load-replace", is_flag=True, help="With --load-into: replace the graph's content "
                                                                 "(HTTP PUT) instead of adding to it (POST).")
ENCODING = click.option(
    "--encoding", "encoding", default=None, metavar="NAME",
    help="The encoding of every text input (CSV/TSV, JSON, Markdown, text), e.g. cp1250 or latin-1. Default: told "
         "per file (UTF-8, UTF-16, or the Windows code page its letters tell; line by line when its lines mix "
         "UTF-8 and a code page).")
MAX_INPUT_MB = click.option("--max-input-mb", "max_input_mb", type=click.FloatRange(min=0.001), default=None,
                            envvar="ONTOBUILD_MAX_INPUT_MB", show_envvar=True,
                            help="Refuse an input file larger than this many MB (default 100).")
AS_JSON = click.option("--json", "as_json", is_flag=True, help="Print the run's figures (what stats.json holds) as "
                                                               "one JSON object instead of the summary.")
VERBOSE = click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
OUTCOME_SETTINGS = gather("settings", OutcomeSettings.from_options, "out", "force", "keep_partial", "ontology_iri",
                          "no_reason", "big_graph_triples", "reason_sample")
LOAD_TARGET = gather("load", LoadTarget.from_options, "load_url", "load_graph", "load_replace")


@click.command(cls=ModesCommand, help=HELP, epilog=environment_help(),
               context_settings={"help_option_names": ["-h", "--help"]})
@FILES
@click.option("--from-index", "from_index", type=click.Path(path_type=Path), default=None,
              help="Write the ontology of an existing entities index (ours or the proof of concept's); no model.")
@click.option("--index", "index_path", type=click.Path(path_type=Path), default=None,
              help="Start the build from this existing entities index instead of an empty one.")
@OUT
@SCHEMA
@ONTOLOGY_IRI
@click.option("--dry-run", "dry_run", is_flag=True,
              help="Read the FILES without the model and print the record shapes, tables, rows and text chunks "
                   "found, and the model calls the build would make; nothing is written.")
@NO_REASON
@BIG_GRAPH_TRIPLES
@click.option("--stream-rows", "stream_rows", type=click.IntRange(min=0), default=None, metavar="N",
              help="Above N rows in all CSV/TSV inputs (default 50000; 0: never) read them as streams: the model "
                   "decides on each table's first rows, code maps every row straight to ontology.nt and the store "
                   "(memory bounded by tables and keys, not rows); the outcome is a big graph.")
@click.option("--resume", is_flag=True,
              help="With --out: go on with a failed or interrupted build of the same inputs into that folder (its "
                   "unfinished folder, NAME.incomplete): the model calls it made are not asked again, and a "
                   "streamed build goes on from its last committed batch.")
@REASON_SAMPLE
@LOAD_INTO
@LOAD_GRAPH
@LOAD_REPLACE
@ENCODING
@MAX_INPUT_MB
@click.option("--check-model", is_flag=True, help="Only check the model: one real tool call, with timings.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display (it is shown only on a terminal anyway).")
@AS_JSON
@outcome_options
@model_options
@VERBOSE
@click.version_option(__version__, prog_name="ontobuild")
@friendly_errors
@OUTCOME_SETTINGS
@LOAD_TARGET
def main(files: tuple[Path, ...], from_index: Path | None, index_path: Path | None, schema: tuple[Path, ...],
         dry_run: bool, stream_rows: int | None, resume: bool, encoding: str | None, max_input_mb: float | None,
         check_model: bool, quiet: bool, as_json: bool, settings: OutcomeSettings, load: LoadTarget,
         model_choice: ModelChoice, verbose: int) -> None:
    """The `ontobuild` command (its help: HELP): the options checked before any work, then the mode they name."""
    start = time.monotonic()
    settings.check()
    encoding = checked_encoding(encoding)
    if resume and (settings.out is None or from_index is not None):
        raise click.UsageError("--resume goes with --out FOLDER (the outcome folder of the interrupted build) and "
                               "the same data FILES.")
    load.check()
    if dry_run:
        if from_index is not None or not files:
            raise click.UsageError(f"--dry-run reads the data FILES ({input_formats()}); give them (it cannot be "
                                   "combined with --from-index).")
        return print_dry_run(files, schema, encoding, max_input_mb, as_json)
    if check_model:
        return print_model_check(model_choice, as_json)
    if from_index is not None:
        if files or index_path is not None or schema:
            raise click.UsageError("--from-index cannot be combined with FILES, --index or --schema.")
        summary = write_from_index(from_index, settings)
    else:
        if not files:
            raise click.UsageError(f"give the data FILES to build from ({input_formats()}), or --from-index FILE.")
        summary = build_files(files, settings, model_choice, index=index_path, schema=schema,
                              stream_rows=stream_rows, resume=resume, encoding=encoding, max_input_mb=max_input_mb,
                              quiet=quiet or bool(verbose))
    load_and_print(summary, load, as_json, start)


@main.mode("dry-run", short_help="what a build would read and ask, without the model (--dry-run)",
           epilog=environment_help())
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@SCHEMA
@ENCODING
@MAX_INPUT_MB
@click.option("--json", "as_json", is_flag=True, help="Print the plan as one JSON object.")
@VERBOSE
@friendly_errors
def dry_run_command(files: tuple[Path, ...], schema: tuple[Path, ...], encoding: str | None,
                    max_input_mb: float | None, as_json: bool, verbose: int) -> None:
    """What a build of FILES would read and ask, without the model; nothing is written (= --dry-run)."""
    print_dry_run(files, schema, checked_encoding(encoding), max_input_mb, as_json)


@main.mode("from-index", short_help="the ontology of an existing entities index, no model (--from-index)",
           epilog=environment_help())
@click.argument("index", type=click.Path(path_type=Path))
@OUT
@ONTOLOGY_IRI
@NO_REASON
@BIG_GRAPH_TRIPLES
@REASON_SAMPLE
@LOAD_INTO
@LOAD_GRAPH
@LOAD_REPLACE
@AS_JSON
@outcome_options
@VERBOSE
@friendly_errors
@OUTCOME_SETTINGS
@LOAD_TARGET
def from_index_command(index: Path, settings: OutcomeSettings, load: LoadTarget, as_json: bool,
                       verbose: int) -> None:
    """Write the ontology of the entities INDEX, without the model (= --from-index INDEX)."""
    start = time.monotonic()
    settings.check()
    load.check()
    load_and_print(write_from_index(index, settings), load, as_json, start)


@main.mode("check-model", short_help="one real tool call with the configured model (--check-model)",
           epilog=environment_help())
@click.option("--json", "as_json", is_flag=True, help="Print the check as one JSON object.")
@model_options
@VERBOSE
@friendly_errors
def check_model_command(as_json: bool, model_choice: ModelChoice, verbose: int) -> None:
    """One real tool call with the configured model, with timings (= --check-model)."""
    print_model_check(model_choice, as_json)
