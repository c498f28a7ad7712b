"""The builder's prompt templates: the `*.md` files of this package, loaded by the kernel's loader
(ontocore.prompts). A module of the builder renders one with `prompts.render(name, **values)`."""

from __future__ import annotations

from ontocore.prompts import PromptSet

prompts = PromptSet(__name__)
