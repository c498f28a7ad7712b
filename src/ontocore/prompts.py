"""Prompts are files under ontocore/prompt_files/ (package data), loaded in one place: the builder's in build/,
the answerer's in ask/. Each tool holds its own set (`from ontocore.prompts import build as prompts`), so neither
reads the other's prompts.

A prompt refers to variables as {name}; rendering fails loudly on a missing or an unused variable."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from .errors import OntoError

_VAR = re.compile(r"\{([a-z_][a-z0-9_]*)\}")


@lru_cache(maxsize=None)
def _read(side: str, name: str) -> str:
    try:
        return resources.files("ontocore").joinpath("prompt_files", side, f"{name}.md").read_text("utf-8")
    except FileNotFoundError:
        raise OntoError(f"Prompt file prompt_files/{side}/{name}.md is missing from the installation.") from None


class PromptSet:
    """The prompts of one tool: `load(name)` the text, `render(name, **values)` it with its variables filled."""

    def __init__(self, side: str) -> None:
        self.side = side

    def load(self, name: str) -> str:
        return _read(self.side, name)

    def render(self, name: str, **values: object) -> str:
        text = self.load(name)
        wanted = set(_VAR.findall(text))
        missing, unused = wanted - set(values), set(values) - wanted
        if missing or unused:
            raise OntoError(f"Prompt {name}: missing variables {sorted(missing)}, unused {sorted(unused)}.")
        return _VAR.sub(lambda m: str(values[m.group(1)]), text).strip()


build = PromptSet("build")  # the builder's prompts (ontobuild)
ask = PromptSet("ask")  # the answerer's prompts (ontouse)
