"""What both command-line tools share: logging setup, and turning errors into messages and exit codes.

Users never see a traceback: an OntoError prints "Error: <message>" (one paragraph) and exits with the
error's exit_code; Ctrl-C prints "Interrupted" and exits 130; anything unexpected prints one line
"Internal error: ... (run with -v for details)" and exits 1 (the traceback is printed only with -v); SIGTERM
exits 143 after clean-up. Messages never show a secret (redaction.py)."""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import sys
import traceback
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Iterator, TypeVar

import click

from .errors import OntoError, Terminated
from .redaction import RedactingFilter, redact

F = TypeVar("F", bound=Callable[..., Any])

_OWN_LOGGERS = ("ontocore", "ontobuild", "ontouse", "bench")
_NOISY_LOGGERS = ("httpx", "httpcore", "openai", "urllib3", "rdflib", "owlready2")


class OnceFilter(logging.Filter):
    """Lets each distinct warning (or error) message through once per process: a file read twice, or a step that
    meets the same problem on every record, says it once."""

    def __init__(self) -> None:
        super().__init__()
        self._seen: set[tuple[str, str]] = set()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno < logging.WARNING:
            return True
        key = (record.name, record.getMessage())
        if key in self._seen:
            return False
        self._seen.add(key)
        return True


class _Held(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextlib.contextmanager
def held_warnings() -> Iterator[list[str]]:
    """Within this block our warnings are collected into the list it gives instead of being printed (for a
    command that shows them itself, once, with its result)."""
    held = _Held()
    loggers = [logging.getLogger(name) for name in _OWN_LOGGERS]
    before = [(lg.propagate, lg.level) for lg in loggers]
    for lg in loggers:
        lg.addHandler(held)
        lg.propagate = False
        if lg.level == logging.NOTSET or lg.level > logging.WARNING:
            lg.setLevel(logging.WARNING)
    try:
        yield held.messages
    finally:
        for lg, (propagate, level) in zip(loggers, before):
            lg.removeHandler(held)
            lg.propagate = propagate
            lg.setLevel(level)


def setup_logging(verbose: int = 0) -> None:
    """Log to stderr: warnings only by default (each distinct one once); -v: our INFO/DEBUG; -vv: everything at
    DEBUG."""
    level = logging.WARNING if not verbose else logging.INFO if verbose == 1 else logging.DEBUG
    fmt = "%(levelname)s: %(message)s" if not verbose else "%(asctime)s %(levelname)s %(name)s: %(message)s"
    logging.basicConfig(level=level, format=fmt, datefmt="%H:%M:%S", stream=sys.stderr, force=True)
    for handler in logging.getLogger().handlers:  # secrets masked in every record and traceback (-v)
        handler.setFormatter(RedactingFilter(handler.formatter or logging.Formatter(fmt)))  # type: ignore[arg-type]
        handler.addFilter(OnceFilter())
    for name in _OWN_LOGGERS:
        logging.getLogger(name).setLevel(logging.DEBUG if verbose else logging.NOTSET)
    for name in _NOISY_LOGGERS:
        logging.getLogger(name).setLevel(logging.NOTSET if not verbose or verbose > 1 else logging.WARNING)


def one_paragraph(text: str) -> str:
    """Collapse whitespace and line breaks so a message prints as one paragraph (secrets redacted)."""
    return redact(" ".join(str(text).split()))


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


def handle_sigterm() -> None:
    """Turn SIGTERM into the Terminated exception in the main thread, so that clean-up runs (outcome folders
    removed, child processes killed) before the process exits with 143; SIGINT stays KeyboardInterrupt (130)."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _on_sigterm)
        # SIGINT is KeyboardInterrupt even when the process was started with it ignored (a job a shell script
        # put in the background): an interrupt asked for is never silently dropped
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _fail(message: str, code: int, error: BaseException | None = None) -> None:
    """Print `message` (and the notes the error carries: how to resume a build that failed, for one) and exit."""
    notes = [one_paragraph(n) for n in getattr(error, "__notes__", None) or [] if str(n).strip()]
    click.echo(" ".join([message, *notes]), err=True)
    raise click.exceptions.Exit(code)


def friendly_errors(fn: F) -> F:
    """Decorator for a click command body: errors become messages and exit codes, never tracebacks.

    The command must take a `verbose` keyword (a count or a flag)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        verbose = kwargs.get("verbose") or 0
        setup_logging(int(verbose))
        handle_sigterm()
        try:
            return fn(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except OntoError as e:
            if verbose:
                logging.getLogger(fn.__module__).debug("error details", exc_info=True)
            _fail(f"Error: {one_paragraph(str(e) or type(e).__name__)}", e.exit_code, e)
        except KeyboardInterrupt as e:
            _fail("Interrupted (Ctrl-C).", 130, e)
        except Terminated as e:
            _fail("Terminated (SIGTERM).", Terminated.exit_code, e)
        except BrokenPipeError:  # e.g. `ontoask ... | head`: stop quietly
            try:
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
            except (OSError, ValueError):
                pass
            raise click.exceptions.Exit(1)
        except Exception as e:  # noqa: BLE001 - the last line of defence
            if verbose:
                sys.stderr.write(redact(traceback.format_exc()))
            detail = one_paragraph(str(e))[:300]
            what = f"{type(e).__name__}: {detail}" if detail else type(e).__name__
            _fail(f"Internal error: {what} (run with -v for details)", 1, e)
        return None

    return wrapper  # type: ignore[return-value]


def run_cli(fn: Callable[[], Any], verbose: int = 0) -> Any:
    """Call `fn()` with the same error handling as @friendly_errors (for code that is not decorated)."""

    @friendly_errors
    def call(verbose: int = 0) -> Any:
        return fn()

    return call(verbose=verbose)


# THE list of the environment variables the toolkit reads (both commands' --help and the README show it)
ENVIRONMENT = {
    "OPENAI_API_KEY": "API key of an OpenAI-compatible server (--api-key)",
    "OPENAI_BASE_URL": "base URL of an OpenAI-compatible server; alone, without a key, it selects that server "
                       "(--base-url)",
    "ONTOBUILD_MODEL": "model name on that server (--model; default gpt-4o-mini)",
    "ONTOBUILD_MODEL_TIMEOUT": "seconds per model server call (--model-timeout; default 120)",
    "ONTOBUILD_MODEL_RETRIES": "retries of a failed model server call (--model-retries; default 2)",
    "ONTOBUILD_REASONING_TOKENS": "completion tokens a reasoning model gets on top of each step's (default 4096)",
    "ONTOBUILD_REASONING_EFFORT": "reasoning_effort sent to a reasoning model while its server takes it (default "
                                  "low; empty: never sent)",
    "ONTOBUILD_THREADS": "threads of the embedded model (--threads; default: the cores free at each call)",
    "ONTOBUILD_CACHE": "folder of the assembled embedded model (1.1 GB), the inference lock and the caches below "
                       "(default $XDG_CACHE_HOME/ontobuild, else ~/.cache/ontobuild)",
    "ONTOBUILD_PREFIX_CACHE_DIR": "saved prompt-prefix states of the embedded model (default: prefix-states in "
                                  "the cache folder)",
    "ONTOBUILD_PREFIX_CACHE_MB": "size bound of that folder (default 2048; 0: in memory only)",
    "ONTOBUILD_PROMPT_LOOKUP": "1: decode the embedded model's greedy replies with prompt-lookup drafts",
    "ONTOBUILD_LLAMA_EXTRA_BUFFERS": "1 / 0: load llama.cpp with / without its extra CPU buffer types (AMX)",
    "ONTOBUILD_LLAMA_LIBRARY": "llama-cpp-python or xllamacpp: which installed llama.cpp binding runs the embedded "
                               "model (default: llama-cpp-python when installed, else xllamacpp)",
    "ONTOBUILD_MAX_INPUT_MB": "ontobuild: the largest input file (--max-input-mb; default 100)",
    "ONTOBUILD_MAX_COLUMNS": "ontobuild: the widest table read, in columns (default 1000); a wider one is refused",
    "ONTOBUILD_MODEL_MMAP": "1 maps the embedded model's weights from the file instead of reading them (more memory)",
    "ONTOBUILD_VIEW_CACHE": "ontoask: 0 turns off the saved relational views",
    "ONTOBUILD_VIEW_CACHE_DIR": "ontoask: folder of the saved relational views (default: views in the cache folder)",
    "ONTOBUILD_PHRASE_CACHE": "ontoask: 0 turns off the saved answer phrases of other languages",
    "ONTOBUILD_PHRASE_CACHE_DIR": "ontoask: folder of those phrases (default: phrases in the cache folder)",
    "ONTOASK_EMBEDDING_DIR": "ontoask: a folder holding the sentence-embedding model (looked at first)",
    "ONTOASK_ENDPOINT_TOKEN": "bearer token for --endpoint and ontobuild --load-into",
    "ONTOASK_ENDPOINT_USER": "user name for --endpoint and ontobuild --load-into (with ONTOASK_ENDPOINT_PASSWORD)",
    "ONTOASK_ENDPOINT_PASSWORD": "password for --endpoint and ontobuild --load-into",
    "ONTO_DICTIONARIES": "ontoask: a folder of dictd bilingual dictionaries (default /usr/share/dictd)",
    "SOURCE_DATE_EPOCH": "ontobuild: the creation time written into the ontology (reproducible builds)",
}


def environment_help() -> str:
    """The --help epilog naming every environment variable (ENVIRONMENT), one a line."""
    width = max(map(len, ENVIRONMENT))
    return "\b\nEnvironment variables:\n" + "\n".join(f"  {name.ljust(width)}  {text}"
                                                          for name, text in ENVIRONMENT.items())


def llm_options(backend: str | None, model: str | None, base_url: str | None, api_key: str | None,
                model_path: str | None, threads: int | None = None, timeout: float | None = None,
                retries: int | None = None) -> dict[str, Any]:
    """The model options both tools pass on, as one dict."""
    return {"backend": backend, "model": model, "base_url": base_url, "api_key": api_key, "model_path": model_path,
            "threads": threads, "timeout": timeout, "retries": retries}


@dataclass(frozen=True)
class ModelChoice:
    """The language model the command-line options chose (model_options); None: the environment's, else the
    default."""

    backend: str = "auto"
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    model_path: str | None = None
    threads: int | None = None
    model_timeout: float | None = None
    model_retries: int | None = None

    def llm_options(self) -> dict[str, Any]:
        """As the `llm_options` dict that the runs and the model check take."""
        return llm_options(self.backend, self.model, self.base_url, self.api_key, self.model_path, self.threads,
                           self.model_timeout, self.model_retries)

    def keywords(self) -> dict[str, Any]:
        """As the keywords of the libraries' `build()` and `Answerer` (model, backend, ..., model_retries)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def gather(name: str, make: Callable[..., Any], *keys: str) -> Callable[[F], F]:
    """Decorator for a click command body: the values of the options (parameters) `keys` reach it as one
    keyword `name`, `make(**those values)` (e.g. the five options that say where the graph is, as one Source)."""

    def decorator(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = make(**{key: kwargs.pop(key) for key in keys})
            return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorator


def outcome_options(fn: F) -> F:
    """--force and --keep-partial: how a run treats its outcome folder (folders.outcome_folder)."""
    options = [
        click.option("--force", is_flag=True, help="Let --out be a folder that is not empty: it is replaced when "
                                                   "the run succeeds."),
        click.option("--keep-partial", is_flag=True, help="Keep the folder of a failed or interrupted run, as "
                                                          "NAME.incomplete (default: removed)."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def model_options(fn: F) -> F:
    """The click options that choose the language model (shared by ontobuild and ontoask); the command body gets
    them as one keyword, `model_choice` (a ModelChoice)."""
    options = [
        click.option("--backend", type=click.Choice(["auto", "openai", "local"]), default="auto", show_default=True,
                     help="Which model to use: an OpenAI-compatible server (openai), the embedded local "
                          "model (local), or pick from the other options and the environment (auto)."),
        click.option("--model", default=None, envvar="ONTOBUILD_MODEL", show_envvar=True,
                     help="Model name on the OpenAI-compatible server."),
        click.option("--base-url", default=None, envvar="OPENAI_BASE_URL", show_envvar=True,
                     help="Base URL of an OpenAI-compatible server (alone, without a key, it selects that server)."),
        click.option("--api-key", default=None, envvar="OPENAI_API_KEY", show_envvar=True,
                     help="API key for that server."),
        click.option("--model-path", default=None, type=click.Path(dir_okay=False),
                     help="A GGUF model file for the local backend."),
        click.option("--threads", default=None, type=click.IntRange(1), envvar="ONTOBUILD_THREADS", show_envvar=True,
                     help="Threads of the local model (default: ONTOBUILD_THREADS, else the cores that are free "
                          "at each call)."),
        click.option("--model-timeout", "model_timeout", default=None, type=click.FloatRange(0.1),
                     envvar="ONTOBUILD_MODEL_TIMEOUT", show_envvar=True,
                     help="Seconds to wait for a model server's reply, per attempt (default: "
                          "ONTOBUILD_MODEL_TIMEOUT, else 120; connecting gives up after at most 10 s)."),
        click.option("--model-retries", "model_retries", default=None, type=click.IntRange(0),
                     envvar="ONTOBUILD_MODEL_RETRIES", show_envvar=True,
                     help="Retries of a failed or timed-out model server call (default: ONTOBUILD_MODEL_RETRIES, "
                          "else 2)."),
    ]
    fn = gather("model_choice", ModelChoice, *(f.name for f in fields(ModelChoice)))(fn)
    for option in reversed(options):
        fn = option(fn)
    return fn
