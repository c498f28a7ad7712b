"""`ontobuild --check-model`: one real tool call with the configured model, with its timings."""

from __future__ import annotations

import time
from typing import Any

from ontocore.agent import run_agent
from ontocore.llm import open_model
from ontocore.tools import tool


@tool(terminal=True)
def record_weight(product: str, weight_kg: float) -> str:
    """Record the weight of a product.

    Args:
        product: the product name
        weight_kg: weight in kilograms
    """
    return f"record_weight(product={product!r}, weight_kg={weight_kg})"


def check_model(llm_options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Open the configured model (the embedded one when no key is set) and have it make one tool call."""
    t0 = time.perf_counter()
    model = open_model(llm_options)
    loaded = time.perf_counter() - t0
    messages = [{"role": "system", "content": "You record facts by calling tools."},
                {"role": "user", "content": "The Orion lamp weighs 2.4 kg. Record it."}]
    result = run_agent(model, messages, [record_weight], max_turns=2)
    u = model.usage
    return {"backend": model.backend, "model": model.model, "state": result.state, "call": result.output,
            "load_seconds": round(loaded, 2), "call_seconds": round(u.seconds, 2),
            "wait_seconds": round(u.wait_seconds, 2),
            "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
            "tokens_per_second": round(u.completion_tokens / u.seconds, 1) if u.seconds else None}
