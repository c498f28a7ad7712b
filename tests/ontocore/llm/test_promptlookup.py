"""Prompt-lookup drafts (ontocore.llm.promptlookup): what a draft is made of, and, on the real embedded model (marked
`live`), that greedy decoding with drafts gives llama-cpp-python's own greedy reply, or parts from it only at a near
tie of the greedy choice (the turn promptlookup documents), and leaves the context as llama-cpp-python does."""

from __future__ import annotations

import pytest

from conftest import local_model_or_skip
from ontocore.llm.promptlookup import draft


def test_a_draft_is_what_followed_the_latest_earlier_run_of_the_last_tokens() -> None:
    seq = [5, 1, 2, 3, 9, 9, 7, 1, 2, 3, 4, 6, 8, 0, 1, 2, 3]
    assert draft(seq, size=3) == [4, 6, 8]  # the latest earlier "1 2 3" (position 7), not the first one
    assert draft(seq, size=10) == [4, 6, 8, 0, 1, 2, 3]  # up to the end of the sequence


def test_the_longest_run_that_occurs_earlier_wins() -> None:
    seq = [7, 1, 2, 3, 4, 50, 9, 2, 3, 4, 60, 1, 2, 3, 4]
    assert draft(seq, size=1, max_ngram=4, min_ngram=3) == [50]  # "1 2 3 4" occurs at 1; "2 3 4" later, at 7
    assert draft(seq, size=1, max_ngram=3, min_ngram=3) == [60]  # only three tokens looked for: the latest one


def test_no_draft_without_a_long_enough_earlier_run() -> None:
    assert draft([1, 2, 3, 4, 5, 6], size=4) == []  # nothing repeats
    assert draft([1, 2, 8, 9, 1, 2], size=4, min_ngram=3) == []  # "1 2" repeats, but runs of 3 are asked for
    assert draft([1, 2, 8, 9, 1, 2], size=4, min_ngram=2) == [8, 9, 1, 2]
    assert draft([1, 2, 3], size=0) == [] and draft([], size=4) == [] and draft([4], size=4) == []


def test_a_draft_is_looked_up_only_from_the_given_position_on() -> None:
    seq = [1, 2, 3, 40, 0, 0, 1, 2, 3, 50, 0, 1, 2, 3]
    assert draft(seq, size=1, start=0) == [50]
    assert draft(seq, size=1, start=7) == []  # the runs at 0 and 6 start before position 7
    assert draft([1, 2, 3, 40, 1, 2, 3], size=1, start=1) == []


DRIFT = 1.0  # logits: a batch's differ from one token's by up to about 0.45 (promptlookup's docstring), two of them twice


def _turn(llm, prompt: list[int], got: str, want: str) -> float:
    """The margin of the greedy choice where two replies to one prompt part: the two best logits of the next token
    after their common tokens, evaluated one call from a fresh context."""
    import numpy as np

    a, b = (llm.tokenize(t.encode("utf-8"), add_bos=False, special=True) for t in (got, want))
    common = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    llm.reset()
    llm.eval(list(prompt) + list(b[:common]))
    logits = np.sort(np.asarray(llm.scores[llm.n_tokens - 1], dtype=np.float64))
    return float(logits[-1] - logits[-2])


@pytest.mark.live
def test_greedy_completion_with_drafts_is_llama_cpp_greedy_reply() -> None:
    from ontocore.llm import inference_lock
    from ontocore.llm.templates import render_qwen
    from ontocore.llm.promptlookup import greedy_completion

    model = local_model_or_skip()
    llm = model._llm
    system = ("You answer with one SQLite query in a ```sql block over these tables:\n" +
              "\n".join(f"CREATE TABLE Shelf{i} (iri TEXT PRIMARY KEY, label TEXT, widthCm INTEGER, "
                        f"inRoom TEXT REFERENCES Room{i}(iri));" for i in range(6)))
    first = [{"role": "system", "content": system}, {"role": "user", "content": "Which shelves of room 2 are wider "
                                                                                 "than 80 cm?"}]
    with inference_lock():
        for messages in (first, first + [{"role": "assistant", "content": "SELECT label FROM Shelf2 WHERE "
                                                                            "widthCm > 80"},
                                         {"role": "user", "content": "Select the iri column too, and order by "
                                                                     "width."}]):
            tokens = llm.tokenize(render_qwen(messages, None).encode("utf-8"), special=True)
            state = llm.save_state()
            gen = greedy_completion(llm, tokens, 60, ["<|im_end|>"], lookup_from=model._lookup_start(tokens))
            llm.load_state(state)
            ref = llm.create_completion(tokens, max_tokens=60, temperature=0.0, stop=["<|im_end|>"])
            text = ref["choices"][0]["text"]
            if gen.text != text:  # a turn, documented: only where the greedy choice itself was a near tie
                turn = _turn(llm, tokens, gen.text, text)
                assert turn < DRIFT, (gen.text, text, turn)
                continue
            assert gen.completion_tokens == ref["usage"]["completion_tokens"]
            # each step kept one token and its accepted draft, but for the steps that took a near tie again alone
            assert gen.steps - gen.near_ties + gen.accepted == gen.completion_tokens
            # the context holds what it evaluated: a next call reuses it as llama-cpp-python's own prefix match does
            assert list(llm.input_ids[:len(tokens)]) == list(tokens)
