"""The exception tree under the name the README's Python API gives it (`ontobuild.errors.OntoError`); its one
home is ontocore.errors, and these are the same classes."""

from ontocore.errors import (  # noqa: F401
    EndpointError, InputError, ModelBehaviorError, ModelBudgetError, ModelServerError, ModelUnavailable, OntoError, ReasonerError, Terminated,
    ToolArgumentError, TurnLimitExceeded)
