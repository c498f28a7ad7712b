"""The messages of the text step's model calls (`extract_facts`, one per chunk; `same_concept`), stable part first:
the system message is the builder's role (`system_builder`) and the step's instructions (`<step>.md`, no variables),
the same for every call of that step in every build; the user message is what changes, the step's input
(`<step>_input.md`: the chunk and its numbers, the properties). The local model keeps the evaluated system message
(and the start of the tools' preamble after it): evaluated once, then reused by the step's next calls and loaded
from the prefix cache by later builds (ontocore.prefixcache).

The other steps keep their instructions after their input: `map_records` moved first made the 1.5B model's
mapping of the example worse (bench/results/build_speed.md), and `confirm_reference`, `align_term` and
`repair_choice` are not made by the builds that measure it (the example, the proof of concept)."""

from __future__ import annotations

from typing import Any

from ontocore.prompts import build as prompts


def system(step: str) -> str:
    """The system message of `step`'s calls: the builder's role and the step's instructions."""
    return prompts.render("system_builder") + "\n\n" + prompts.render(step)


def messages(step: str, **values: Any) -> list[dict[str, str]]:
    """The messages of one call of `step`: its system message, then its input rendered with `values`."""
    return [{"role": "system", "content": system(step)},
            {"role": "user", "content": prompts.render(f"{step}_input", **values)}]


def keep(model: Any, step: str) -> None:
    """Tell a model that keeps evaluated prompt starts (the local one) that `step`'s system message will repeat."""
    keep_prefix = getattr(model, "keep_prefix", None)
    if callable(keep_prefix):
        keep_prefix(system(step), tools_follow=True)
