"""Greedy decoding under a grammar that checks the model's own choice first (llm/lazygrammar.py): the same reply as
llama-cpp-python's full grammar sampler, on the embedded model; a first choice the grammar refuses (a fenced block
where the grammar wants a brace) is replaced by the best token it allows."""

from __future__ import annotations

import json

import pytest

from conftest import local_model_or_skip


@pytest.mark.live
def test_the_reply_is_the_one_the_full_grammar_sampler_gives() -> None:
    from llama_cpp import LlamaGrammar

    from ontocore.llm.lazygrammar import greedy_constrained

    llm = local_model_or_skip()._llm
    schema = {"type": "object", "additionalProperties": False, "required": ["shelves"],
              "properties": {"shelves": {"type": "array", "minItems": 2, "maxItems": 2, "items": {
                  "type": "object", "additionalProperties": False, "required": ["bay", "holds"],
                  "properties": {"bay": {"enum": ["B1", "B2", "none"]},
                                 "holds": {"enum": ["crates", "drums", "reels"]}}}}}}
    grammar = LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    prompt = ("<|im_start|>user\nAs a fenced JSON block: bay B1 holds crates and bay B2 holds reels."
              "<|im_end|>\n<|im_start|>assistant\n")
    tokens = llm.tokenize(prompt.encode(), add_bos=False, special=True)
    full = llm.create_completion(tokens, max_tokens=60, temperature=0.0, grammar=grammar)
    lazy = greedy_constrained(llm, tokens, grammar, 60, ["<|im_end|>"])
    assert lazy.text == full["choices"][0]["text"]
    assert lazy.completion_tokens == full["usage"]["completion_tokens"]
    assert json.loads(lazy.text)["shelves"][1]["holds"] == "reels"
