"""`ontoask`: answer questions about an ontology through SPARQL (or run a SPARQL query directly)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from ontocore import __version__
from ontocore.cliutil import environment_help, friendly_errors, llm_options, model_options, outcome_options
from ontocore.errors import InputError

from .storage.store import Source
from .terminal import safe

log = logging.getLogger(__name__)


def read_query(text: str) -> str:
    """The query text of --sparql: the text itself, '-' for stdin, or @FILE for a file."""
    if text == "-":
        return sys.stdin.read()
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            return path.read_text("utf-8")
        except OSError as e:
            raise InputError(f"{path} cannot be read: {e.strerror}.") from None
        except UnicodeDecodeError:
            raise InputError(f"{path} is not UTF-8 text.") from None
    return text


class _AskByDefault(click.Group):
    """`ontoask [OPTIONS] QUESTION` runs the `ask` command; `ontoask serve ...` and `ontoask mcp ...` the
    others (a question that is exactly a command's name: `ontoask ask serve`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or args[0] not in self.commands:
            args = ["ask", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_AskByDefault, epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """Answer questions about an ontology from SPARQL results only (ontoask QUESTION, the `ask` command), or
    serve the answerer over HTTP (`ontoask serve`) or MCP (`ontoask mcp`)."""


@main.command("ask", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("question", required=False)
@click.option("--ontology", "ontologies", multiple=True, type=click.Path(path_type=Path),
              help="An ontobuild outcome folder or an RDF file (.owl .rdf .ttl .nt .n3 .jsonld); repeatable.")
@click.option("--endpoint", default=None, metavar="URL",
              help="A SPARQL 1.1 endpoint's query URL instead of --ontology files (read-only; credentials from "
                   "ONTOASK_ENDPOINT_TOKEN or ONTOASK_ENDPOINT_USER / ONTOASK_ENDPOINT_PASSWORD).")
@click.option("--graph", "graph_iri", default=None, metavar="IRI", help="With --endpoint: query this named graph.")
@click.option("--store", "store_kind", type=click.Choice(["oxigraph", "memory"]), default="oxigraph",
              show_default=True, help="Where local files are held: an embedded Oxigraph store, or rdflib's memory "
                                      "store.")
@click.option("--store-path", type=click.Path(path_type=Path), default=None,
              help="Keep the Oxigraph store of the --ontology files in this folder; a later run with the same "
                   "files opens it without parsing again.")
@click.option("--sparql", default=None, help="Run this SPARQL SELECT/ASK query and print the result "
                                               "('-': read it from stdin, '@FILE': from a file).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: SPARQL JSON results with --sparql, the answer "
                                                      "record (what answers.json holds) with a QUESTION.")
@click.option("--max-rows", default=50, show_default=True, type=click.IntRange(1), help="With --sparql: rows shown.")
@click.option("--timeout", "timeout_s", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="With --sparql: seconds before the query is abandoned.")
@click.option("--examples", "examples_path", type=click.Path(path_type=Path), default=None,
              help="Example questions with their SQL plans (JSON/YAML list of {question, sql}); the most similar "
                   "ones guide the model.")
@click.option("--questions", "questions_path", type=click.Path(path_type=Path), default=None,
              help="A file of questions to answer in a batch.")
@click.option("--chat", is_flag=True, help="A conversation: questions from the terminal (or one per line from a "
                                           "pipe); follow-ups are rewritten into standalone questions.")
@click.option("--out", type=click.Path(path_type=Path), default=None, help="Folder for answers and traces.")
@click.option("--second-plans", type=click.IntRange(0, 2), default=2, show_default=True,
              help="How many second plans, asked another way, an answer must agree with before it is stated "
                   "(within 3 model calls per question); 0: one call for a plan that passes, faster, and more "
                   "wrong answers stated.")
@click.option("-q", "--quiet", is_flag=True, help="No progress display for --questions (shown only on a terminal).")
@outcome_options
@model_options
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@click.version_option(__version__, prog_name="ontoask")
@friendly_errors
def ask_command(question: str | None, ontologies: tuple[Path, ...], endpoint: str | None, graph_iri: str | None,
         store_kind: str, store_path: Path | None, sparql: str | None, as_json: bool, max_rows: int,
         timeout_s: float, examples_path: Path | None, questions_path: Path | None, chat: bool, out: Path | None,
         second_plans: int, quiet: bool,
         force: bool, keep_partial: bool, backend: str,
         model: str | None, base_url: str | None, api_key: str | None, model_path: str | None,
         threads: int | None, model_timeout: float | None, model_retries: int | None,
         verbose: int) -> None:
    """Answer QUESTION about an ontology, from SPARQL results only.

    \b
    ontoask --ontology outcomes/20250101_120000 "Which products weigh over 50 kg?"
    ontoask --ontology a.ttl --ontology b.ttl --sparql 'SELECT ?c WHERE { ?c a owl:Class }'
    ontoask --endpoint http://localhost:7878/query "How many orders were placed in 2024?"
    ontoask --ontology out/ --questions questions.yml --out answers/
    ontoask serve --ontology out/ --port 8000        an HTTP service (TEXT2SPARQL: GET /?question=&dataset=)
    ontoask mcp --ontology out/                      an MCP server on stdio"""
    modes = [m for m, on in (("QUESTION", question is not None), ("--sparql", sparql is not None),
                             ("--questions", questions_path is not None), ("--chat", chat)) if on]
    if len(modes) > 1:
        raise click.UsageError(f"give only one of QUESTION, --sparql, --questions and --chat (got "
                               f"{' and '.join(modes)}).")
    if not modes:
        raise click.UsageError("give a QUESTION, --sparql QUERY, --questions FILE or --chat.")
    source = Source(paths=tuple(ontologies), endpoint=endpoint, graph=graph_iri, kind=store_kind,
                    store_path=store_path)
    if sparql is not None:
        click.echo(safe(run_sparql(source, read_query(sparql), as_json=as_json, max_rows=max_rows,
                                   timeout_s=timeout_s)))
        return
    from .runs import answer_json, run_batch, run_question  # local import: the model stack is only needed here

    options = llm_options(backend, model, base_url, api_key, model_path, threads, model_timeout, model_retries)
    kept = {"force": force, "keep_partial": keep_partial, "second_plans": second_plans}
    if chat:
        from .runs import run_chat

        outdir = run_chat(graph_paths=source, lines=_chat_lines(), out=out, llm_options=options,
                          examples_path=examples_path, show=lambda text: click.echo(safe(text) + "\n"), **kept)
        click.echo(f"transcript: {outdir}", err=True)
        return
    if question is not None:
        ans = run_question(graph_paths=source, question=question, out=out, llm_options=options,
                           examples_path=examples_path, **kept)
        click.echo(safe(answer_json(ans) if as_json else ans.render()))
    else:
        from ontocore.progress import open_progress

        progress = open_progress(quiet=quiet or bool(verbose))
        try:
            summary = run_batch(graph_paths=source, questions_path=questions_path, out=out, llm_options=options,
                                examples_path=examples_path, progress=progress, **kept)
        finally:
            progress.close()
        click.echo(safe(summary))


def _chat_lines():
    """Questions: typed at a prompt with line editing and history on a terminal, else one per line of stdin."""
    if not sys.stdin.isatty():
        yield from sys.stdin
        return
    try:
        import readline  # noqa: F401 - line editing and history for input()
    except ImportError:
        pass
    while True:
        try:
            yield input("question> ")
        except (EOFError, KeyboardInterrupt):  # Ctrl-D or Ctrl-C at the prompt ends the conversation
            click.echo("", err=True)
            return


def run_sparql(source: Source, query: str, as_json: bool = False, max_rows: int = 50,
               timeout_s: float = 10) -> str:
    """Open the graph, run one query, and return the table (or JSON text). A query that is refused, wrong or
    too slow is the user's input to change: InputError (exit code 2)."""
    from .api import run_sparql as run
    from .storage.sparql import format_table, to_json

    store = source.open()
    try:
        result = run(store, query, max_rows=max_rows, timeout_s=timeout_s)
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()
    if as_json:
        return json.dumps(to_json(result), indent=2, ensure_ascii=False)
    return format_table(result)


def source_options(fn):
    """Where the graph is, for `serve` and `mcp` (the same options as for a question)."""
    options = [
        click.option("--ontology", "ontologies", multiple=True, type=click.Path(path_type=Path),
                     help="An ontobuild outcome folder or an RDF file; repeatable."),
        click.option("--endpoint", default=None, metavar="URL", help="A SPARQL 1.1 endpoint's query URL instead."),
        click.option("--graph", "graph_iri", default=None, metavar="IRI", help="With --endpoint: this named graph."),
        click.option("--store", "store_kind", type=click.Choice(["oxigraph", "memory"]), default="oxigraph",
                     show_default=True, help="Where local files are held."),
        click.option("--store-path", type=click.Path(path_type=Path), default=None,
                     help="Keep the Oxigraph store of the --ontology files in this folder."),
        click.option("--examples", "examples_path", type=click.Path(path_type=Path), default=None,
                     help="Example questions with their SQL plans (JSON/YAML list of {question, sql})."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def open_public_answerer(source: Source, examples_path: Path | None, backend: str,
                         model: str | None, base_url: str | None, api_key: str | None, model_path: str | None,
                         threads: int | None, model_timeout: float | None, model_retries: int | None):
    """The library's answerer (ontouse.Answerer) from the command-line options."""
    from .api import Answerer

    return Answerer(source=source, examples=examples_path, model=model, backend=backend, base_url=base_url,
                    api_key=api_key, model_path=model_path, threads=threads, model_timeout=model_timeout,
                    model_retries=model_retries)


@main.command("serve", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@source_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every "
                                                                     "interface; there is no authentication).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535),
              help="Port to listen on (0: any free port; the address is printed on stderr).")
@click.option("--dataset", "dataset_iri", default=None, metavar="IRI",
              help="The IRI of the dataset served: a request naming another dataset gets 404 (default: any name "
                   "is accepted and echoed).")
@click.option("--queue", "queue_size", default=8, show_default=True, type=click.IntRange(1),
              help="Questions that may wait for the model; more get 503 at once.")
@click.option("--request-timeout", "request_timeout", default=300.0, show_default=True,
              type=click.FloatRange(0.1), help="Seconds a request may wait and run before it gets 504.")
@model_options
@click.option("-v", "--verbose", count=True, help="Log requests and progress to stderr.")
@friendly_errors
def serve_command(ontologies: tuple[Path, ...], endpoint: str | None, graph_iri: str | None, store_kind: str,
                  store_path: Path | None, examples_path: Path | None, host: str, port: int,
                  dataset_iri: str | None, queue_size: int, request_timeout: float, backend: str,
                  model: str | None, base_url: str | None, api_key: str | None, model_path: str | None,
                  threads: int | None, model_timeout: float | None, model_retries: int | None,
                  verbose: int) -> None:
    """Serve the answerer over HTTP, with the TEXT2SPARQL contract.

    \b
    GET /?question=...&dataset=IRI  {"dataset", "question", "query"}: the SPARQL of the answer
    GET /answer?question=...        the whole answer record (answer, rows, SPARQL, support, sources)
    GET /health                     {"status": "ok", ...}
    One model answers one question at a time; requests wait in a bounded queue."""
    from .serve import serve

    source = Source(paths=tuple(ontologies), endpoint=endpoint, graph=graph_iri, kind=store_kind,
                    store_path=store_path)
    answerer = open_public_answerer(source, examples_path, backend, model, base_url, api_key, model_path, threads,
                                    model_timeout, model_retries)
    try:
        serve(answerer, host=host, port=port, dataset=dataset_iri, queue_size=queue_size,
              timeout_s=request_timeout,
              ready=lambda url: click.echo(f"ontoask: serving {dataset_iri or 'the ontology'} at {url} "
                                           f"(GET /?question=...&dataset=..., /answer?question=..., /health)",
                                           err=True))
    finally:
        answerer.close()


@main.command("mcp", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@source_options
@click.option("--timeout", "timeout_s", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds before a query of the sparql tool is abandoned.")
@model_options
@click.option("-v", "--verbose", count=True, help="Log to stderr (standard output carries the protocol).")
@friendly_errors
def mcp_command(ontologies: tuple[Path, ...], endpoint: str | None, graph_iri: str | None, store_kind: str,
                store_path: Path | None, examples_path: Path | None, timeout_s: float, backend: str,
                model: str | None, base_url: str | None, api_key: str | None, model_path: str | None,
                threads: int | None, model_timeout: float | None, model_retries: int | None,
                verbose: int) -> None:
    """Serve the answerer as an MCP server on stdio (tools: ask, sparql, describe_schema).

    \b
    For an MCP client's configuration: {"command": "ontoask", "args": ["mcp", "--ontology", "PATH"]}"""
    from .mcpserver import protect_stdout, require_sdk, run_stdio

    require_sdk()  # before the graph and the model are loaded
    source = Source(paths=tuple(ontologies), endpoint=endpoint, graph=graph_iri, kind=store_kind,
                    store_path=store_path)
    protect_stdout()  # from here on, standard output carries only the protocol
    answerer = open_public_answerer(source, examples_path, backend, model, base_url, api_key, model_path, threads,
                                    model_timeout, model_retries)
    try:
        run_stdio(answerer, timeout_s=timeout_s)
    finally:
        answerer.close()
