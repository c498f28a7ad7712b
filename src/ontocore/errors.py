"""The flat exception tree. Library code raises these; only the CLI turns them into exit codes:
0 success, 2 the user's input or configuration (InputError, ModelUnavailable, refused queries), 1 the model or
the environment failed (every other OntoError), 130 Ctrl-C, 143 SIGTERM (Terminated)."""

from __future__ import annotations


class OntoError(Exception):
    """Base of every error the toolkit raises on purpose. Its message is one readable paragraph."""

    exit_code = 1


class InputError(OntoError):
    """A file the user gave cannot be used (missing, unreadable, empty, binary, broken JSON, invalid index)."""

    exit_code = 2


class ToolArgumentError(OntoError):
    """A tool call's arguments do not fit the tool's JSON Schema or name something that does not exist.

    The agent loop sends the message back to the model as the tool result."""


class TurnLimitExceeded(OntoError):
    """The agent loop ran out of turns before the model finished."""


class ModelBehaviorError(OntoError):
    """The model produced something the loop cannot use (no tool call, bare text instead of a call, loops)."""


class ModelUnavailable(OntoError):
    """No model can be used: the local model files or llama-cpp-python are missing, or the server is unreachable."""

    exit_code = 2


class ModelServerError(OntoError):
    """The model server failed: unreachable, too slow, an HTTP error, or a reply that is not a chat completion."""


class ModelBudgetError(ModelServerError):
    """The model stopped at its token budget (finish_reason "length") before it finished its reply, also after a
    larger budget: a reasoning model that spends it thinking, or a reply longer than the step allows."""


class Terminated(BaseException):
    """The process received SIGTERM (signals.py raises it in the main thread so that clean-up runs)."""

    exit_code = 143


class EndpointError(OntoError):
    """A SPARQL endpoint cannot be reached or does not answer as one (exit code 1)."""


class ReasonerError(OntoError):
    """The OWL reasoner could not run (Java missing, reasoner crashed)."""
