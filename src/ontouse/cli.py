"""`ontoask`: answer questions about an ontology through SPARQL (or run a SPARQL query directly).

Commands: `ask` (the default: `ontoask QUESTION`), `serve` and `mcp`. The `ask` command's four modes (QUESTION,
--sparql, --questions, --chat) are one function each (answer_question, print_sparql, answer_batch, converse), and
the last three are also commands (`ontoask sparql QUERY`, `ontoask questions FILE`, `ontoask chat`); the click
layer only checks and gathers the options and calls them."""

from __future__ import annotations

import functools
import json
import logging
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import click

from ontocore import __version__
from ontocore.cliutil import ModelChoice, environment_help, friendly_errors, gather, model_options, outcome_options
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


def source_from_options(ontologies: tuple[Path, ...], endpoint: str | None, graph_iri: str | None,
                        store_kind: str, store_path: Path | None) -> Callable[[], Source]:
    """The graph the options name, --ontology files (held as --store says) or an --endpoint, as a function that
    gives it: a command checks its own options first (a Source refuses wrong ones when it is made)."""
    return functools.partial(Source, paths=tuple(ontologies), endpoint=endpoint, graph=graph_iri, kind=store_kind,
                             store_path=store_path)


SOURCE = gather("make_source", source_from_options, "ontologies", "endpoint", "graph_iri", "store_kind",
                "store_path")


def source_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Where the graph is, for the commands but `ask` (the same options as for a question, shorter help); the
    command body gets `make_source`."""
    options = [
        click.option("--ontology", "ontologies", multiple=True, type=click.Path(path_type=Path),
                     help="An ontobuild outcome folder or an RDF file; repeatable."),
        click.option("--endpoint", default=None, metavar="URL", help="A SPARQL 1.1 endpoint's query URL instead."),
        click.option("--graph", "graph_iri", default=None, metavar="IRI", help="With --endpoint: this named graph."),
        click.option("--store", "store_kind", type=click.Choice(["oxigraph", "memory"]), default="oxigraph",
                     show_default=True, help="Where local files are held."),
        click.option("--store-path", type=click.Path(path_type=Path), default=None,
                     help="Keep the Oxigraph store of the --ontology files in this folder."),
    ]
    fn = SOURCE(fn)
    for option in reversed(options):
        fn = option(fn)
    return fn


EXAMPLES = click.option("--examples", "examples_path", type=click.Path(path_type=Path), default=None,
                        help="Example questions with their SQL plans (JSON/YAML list of {question, sql}).")
OUT = click.option("--out", type=click.Path(path_type=Path), default=None, help="Folder for answers and traces.")
SECOND_PLANS = click.option(
    "--second-plans", type=click.IntRange(0, 2), default=2, show_default=True,
    help="How many second plans, asked another way, an answer must agree with before it is stated (within 3 model "
         "calls per question); 0: one call for a plan that passes, faster, and more wrong answers stated.")


class _AskByDefault(click.Group):
    """`ontoask [OPTIONS] QUESTION` runs the `ask` command; `ontoask sparql ...`, `questions`, `chat`, `serve` and
    `mcp` the others (a question that is exactly a command's name: `ontoask ask serve`)."""

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
@OUT
@SECOND_PLANS
@click.option("-q", "--quiet", is_flag=True, help="No progress display for --questions (shown only on a terminal).")
@outcome_options
@model_options
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@click.version_option(__version__, prog_name="ontoask")
@friendly_errors
@SOURCE
def ask_command(question: str | None, sparql: str | None, as_json: bool, max_rows: int, timeout_s: float,
                examples_path: Path | None, questions_path: Path | None, chat: bool, out: Path | None,
                second_plans: int, quiet: bool, force: bool, keep_partial: bool, make_source: Callable[[], Source],
                model_choice: ModelChoice, verbose: int) -> None:
    """Answer QUESTION about an ontology, from SPARQL results only.

    \b
    ontoask --ontology outcomes/20250101_120000 "Which products weigh over 50 kg?"
    ontoask --ontology a.ttl --ontology b.ttl --sparql 'SELECT ?c WHERE { ?c a owl:Class }'
    ontoask --endpoint http://localhost:7878/query "How many orders were placed in 2024?"
    ontoask --ontology out/ --questions questions.yml --out answers/
    ontoask serve --ontology out/ --port 8000        an HTTP service (TEXT2SPARQL: GET /?question=&dataset=)
    ontoask mcp --ontology out/                      an MCP server on stdio

    \b
    The modes as commands: ontoask sparql QUERY, ontoask questions FILE, ontoask chat (ontoask COMMAND --help;
    a question that is exactly a command's name: ontoask ask NAME)."""
    modes = [m for m, on in (("QUESTION", question is not None), ("--sparql", sparql is not None),
                             ("--questions", questions_path is not None), ("--chat", chat)) if on]
    if len(modes) > 1:
        raise click.UsageError(f"give only one of QUESTION, --sparql, --questions and --chat (got "
                               f"{' and '.join(modes)}).")
    if not modes:
        raise click.UsageError("give a QUESTION, --sparql QUERY, --questions FILE or --chat.")
    source = make_source()
    if sparql is not None:
        return print_sparql(source, read_query(sparql), as_json=as_json, max_rows=max_rows, timeout_s=timeout_s)
    run = run_settings(source, out, model_choice, examples_path, force, keep_partial, second_plans)
    if chat:
        return converse(run)
    if question is not None:
        return answer_question(question, run, as_json)
    answer_batch(questions_path, run, quiet=quiet or bool(verbose))


# ---- the ask command's modes: one function each (also the commands sparql, questions and chat) ------------------

def run_settings(source: Source, out: Path | None, model_choice: ModelChoice, examples_path: Path | None,
                 force: bool, keep_partial: bool, second_plans: int) -> dict[str, Any]:
    """The keywords that runs.run_question, run_batch and run_chat share (the graph, the outcome folder, the model,
    the examples, second plans)."""
    return {"graph_paths": source, "out": out, "llm_options": model_choice.llm_options(),
            "examples_path": examples_path, "force": force, "keep_partial": keep_partial,
            "second_plans": second_plans}


def print_sparql(source: Source, query: str, as_json: bool, max_rows: int, timeout_s: float) -> None:
    """--sparql: run one query over the graph and print its result (a table, or SPARQL JSON results)."""
    click.echo(safe(run_sparql(source, query, as_json=as_json, max_rows=max_rows, timeout_s=timeout_s)))


def answer_question(question: str, run: dict[str, Any], as_json: bool) -> None:
    """QUESTION: answer it and print the answer (or its record as JSON). `run`: run_settings."""
    from .runs import answer_json, run_question  # local import: the model stack is only needed here

    ans = run_question(question=question, **run)
    click.echo(safe(answer_json(ans) if as_json else ans.render()))


def answer_batch(questions_path: Path | None, run: dict[str, Any], quiet: bool) -> None:
    """--questions: answer every question of the file (progress shown on a terminal unless `quiet`) and print the
    batch's summary."""
    from ontocore.progress import open_progress

    from .runs import run_batch

    progress = open_progress(quiet=quiet)
    try:
        summary = run_batch(questions_path=questions_path, progress=progress, **run)
    finally:
        progress.close()
    click.echo(safe(summary))


def converse(run: dict[str, Any]) -> None:
    """--chat: a conversation over the graph, questions from the terminal (or stdin); the transcript's folder is
    named on stderr at the end."""
    from .runs import run_chat

    outdir = run_chat(lines=chat_lines(), show=lambda text: click.echo(safe(text) + "\n"), **run)
    click.echo(f"transcript: {outdir}", err=True)


def chat_lines() -> Iterator[str]:
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


def open_public_answerer(source: Source, examples_path: Path | None, model_choice: ModelChoice) -> Any:
    """The library's answerer (ontouse.Answerer) from the command-line options."""
    from .api import Answerer

    return Answerer(source=source, examples=examples_path, **model_choice.keywords())


@main.command("sparql", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("query")
@source_options
@click.option("--json", "as_json", is_flag=True, help="Print SPARQL JSON results.")
@click.option("--max-rows", default=50, show_default=True, type=click.IntRange(1), help="Rows shown.")
@click.option("--timeout", "timeout_s", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds before the query is abandoned.")
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@friendly_errors
def sparql_command(query: str, make_source: Callable[[], Source], as_json: bool, max_rows: int, timeout_s: float,
                   verbose: int) -> None:
    """Run the SPARQL SELECT/ASK QUERY and print its result ('-': read it from stdin, '@FILE': from a file); the
    same as ontoask --sparql QUERY."""
    print_sparql(make_source(), read_query(query), as_json=as_json, max_rows=max_rows, timeout_s=timeout_s)


@main.command("questions", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("questions_path", metavar="FILE", type=click.Path(path_type=Path))
@source_options
@EXAMPLES
@OUT
@SECOND_PLANS
@click.option("-q", "--quiet", is_flag=True, help="No progress display (shown only on a terminal).")
@outcome_options
@model_options
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@friendly_errors
def questions_command(questions_path: Path, make_source: Callable[[], Source], examples_path: Path | None,
                      out: Path | None, second_plans: int, quiet: bool, force: bool, keep_partial: bool,
                      model_choice: ModelChoice, verbose: int) -> None:
    """Answer the questions of FILE in a batch; the same as ontoask --questions FILE."""
    run = run_settings(make_source(), out, model_choice, examples_path, force, keep_partial, second_plans)
    answer_batch(questions_path, run, quiet=quiet or bool(verbose))


@main.command("chat", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@source_options
@EXAMPLES
@OUT
@SECOND_PLANS
@outcome_options
@model_options
@click.option("-v", "--verbose", count=True, help="Log progress to stderr (-vv: also library debug logs).")
@friendly_errors
def chat_command(make_source: Callable[[], Source], examples_path: Path | None, out: Path | None,
                 second_plans: int, force: bool, keep_partial: bool, model_choice: ModelChoice,
                 verbose: int) -> None:
    """A conversation: questions from the terminal (or one per line from a pipe); follow-ups are rewritten into
    standalone questions. The same as ontoask --chat."""
    converse(run_settings(make_source(), out, model_choice, examples_path, force, keep_partial, second_plans))


@main.command("serve", epilog=environment_help(), context_settings={"help_option_names": ["-h", "--help"]})
@source_options
@EXAMPLES
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
def serve_command(make_source: Callable[[], Source], examples_path: Path | None, host: str, port: int,
                  dataset_iri: str | None, queue_size: int, request_timeout: float, model_choice: ModelChoice,
                  verbose: int) -> None:
    """Serve the answerer over HTTP, with the TEXT2SPARQL contract.

    \b
    GET /?question=...&dataset=IRI  {"dataset", "question", "query"}: the SPARQL of the answer
    GET /answer?question=...        the whole answer record (answer, rows, SPARQL, support, sources)
    GET /health                     {"status": "ok", ...}
    One model answers one question at a time; requests wait in a bounded queue."""
    from .serve import serve

    answerer = open_public_answerer(make_source(), examples_path, model_choice)
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
@EXAMPLES
@click.option("--timeout", "timeout_s", default=10.0, show_default=True, type=click.FloatRange(0.1),
              help="Seconds before a query of the sparql tool is abandoned.")
@model_options
@click.option("-v", "--verbose", count=True, help="Log to stderr (standard output carries the protocol).")
@friendly_errors
def mcp_command(make_source: Callable[[], Source], examples_path: Path | None, timeout_s: float,
                model_choice: ModelChoice, verbose: int) -> None:
    """Serve the answerer as an MCP server on stdio (tools: ask, sparql, describe_schema).

    \b
    For an MCP client's configuration: {"command": "ontoask", "args": ["mcp", "--ontology", "PATH"]}"""
    from .mcpserver import protect_stdout, require_sdk, run_stdio

    require_sdk()  # before the graph and the model are loaded
    source = make_source()
    protect_stdout()  # from here on, standard output carries only the protocol
    answerer = open_public_answerer(source, examples_path, model_choice)
    try:
        run_stdio(answerer, timeout_s=timeout_s)
    finally:
        answerer.close()
