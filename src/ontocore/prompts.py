"""The prompt loader: a tool's prompts are `*.md` files (package data) in a package of its own, which the tool names
(`ontobuild.prompts`, `ontouse.prompts`: each holds `prompts = PromptSet(__name__)`). The kernel loads them and
knows neither tool, so neither reads the other's prompts.

A prompt refers to variables as {name}; rendering fails loudly on a missing or an unused variable."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from .errors import OntoError

_VAR = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@lru_cache(maxsize=None)
def _read(package: str, name: str) -> str:
    try:
        return resources.files(package).joinpath(f"{name}.md").read_text("utf-8")
    except FileNotFoundError:
        raise OntoError(f"Prompt file {name}.md of {package} is missing from the installation.") from None


class PromptSet:
    """The prompts of one tool, the `*.md` files of `package`: `load(name)` the text, `render(name, **values)` it
    with its variables filled."""

    def __init__(self, package: str) -> None:
        self.package = package

    def load(self, name: str) -> str:
        return _read(self.package, name)

    def render(self, name: str, **values: object) -> str:
        text = self.load(name)
        wanted = set(_VAR.findall(text))
        missing, unused = wanted - set(values), set(values) - wanted
        if missing or unused:
            raise OntoError(f"Prompt {name}: missing variables {sorted(missing)}, unused {sorted(unused)}.")
        return _VAR.sub(lambda m: str(values[m.group(1)]), text).strip()
