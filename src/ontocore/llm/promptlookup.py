"""Greedy generation with prompt-lookup drafts: a greedy reply that repeats what came before in fewer decode steps.

A repaired SQL plan repeats most of the model's previous one. After each generated token, the last run of
`MIN_NGRAM` to `MAX_NGRAM` tokens is looked up in the given part of the conversation (LocalChat: the model's earlier
replies and the repair notes after them); the tokens that followed its latest occurrence there are a draft of what
comes next. The model evaluates the new token and the draft in one batch and keeps the draft up to its first token
that is not its own greedy choice.

Not exact: a batch's logits differ from one token's by up to about 0.45 (measured on the embedded model, other CPU
kernels; one token evaluated twice gives the same logits), so a near tie can turn (seen: one column name for another
in a repaired query, with the same final answer). A choice whose two best logits are closer than
`NEAR_TIE` is taken from the token evaluated alone, which makes a turn rarer but not impossible (the tokens kept from
a batch enter the KV cache with the batch's values). A draft token costs about a third of a decode step on a CPU
(measured, one thread: a step of one token 0.20 s, of five 0.53 s), so drafts are short. Hence off by default
(LocalChat.prompt_lookup, ONTOBUILD_PROMPT_LOOKUP=1).

Only for greedy decoding without a grammar (temperature 0, no penalties, no logit bias), mirroring what
`Llama.create_completion` does with these settings (stop strings, end-of-generation tokens, `max_tokens`, the prompt
evaluated after the prefix the context holds, in the same batches). The context is left as llama-cpp-python leaves
it (`input_ids` and `n_tokens` match the KV cache), so the next call reuses the common prefix as usual."""

from __future__ import annotations

import ctypes
import logging
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

log = logging.getLogger(__name__)

MAX_NGRAM = 4  # the longest run of recent tokens looked up
MIN_NGRAM = 3  # shorter runs recur too often in a prompt to predict what follows them
MAX_DRAFT = 4  # draft tokens per step
NEAR_TIE = 1.0  # a choice whose two best logits are closer than this is taken from the token evaluated alone


@dataclass
class Generation:
    text: str
    completion_tokens: int
    finish_reason: str  # "stop" | "length"
    steps: int = 0  # model decode steps after the prompt
    drafted: int = 0  # draft tokens evaluated
    accepted: int = 0  # of those, tokens the model confirmed
    near_ties: int = 0  # steps that evaluated one token again alone, for a near tie read from a batch


def draft(sequence: Sequence[int] | np.ndarray, size: int = MAX_DRAFT, max_ngram: int = MAX_NGRAM,
          min_ngram: int = MIN_NGRAM, start: int = 0) -> list[int]:
    """The tokens that followed the latest earlier occurrence of the sequence's last n tokens (n from `max_ngram`
    down to `min_ngram`: the longest run that occurs earlier wins), looked up from position `start` on, at most
    `size` of them; [] when none occurs."""
    seq = np.asarray(sequence, dtype=np.int64)
    if size <= 0:
        return []
    start = max(0, start)
    for n in range(min(max_ngram, len(seq) - 1 - start), min_ngram - 1, -1):
        tail = seq[-n:]
        # windows that start at `start` .. len-n-1 (the tail itself, at len-n, is left out)
        windows = np.lib.stride_tricks.sliding_window_view(seq[start:-1], n)
        hits = np.flatnonzero((windows == tail).all(axis=1))
        if hits.size:
            at = start + int(hits[-1]) + n
            return [int(t) for t in seq[at:at + size]]
    return []


def _choices(llm: Any, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The argmax of each of the last decode's `rows` output rows, and its margin over the runner-up (in logits)."""
    import llama_cpp

    ptr = llama_cpp.llama_get_logits(llm._ctx.ctx)
    n_vocab = llm.n_vocab()
    logits = np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(rows, n_vocab))
    best = logits.argmax(axis=1)
    top2 = np.partition(logits, n_vocab - 2, axis=1)[:, -2:]
    return best, top2[:, 1] - top2[:, 0]


def _decode(llm: Any, tokens: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Evaluate `tokens` after the context's `n_tokens`, with logits for each of them: the model's choice after each
    of them, and its margin (see _choices)."""
    n_past = llm.n_tokens
    llm._ctx.kv_cache_seq_rm(-1, n_past, -1)
    llm._batch.set_batch(batch=tokens, n_past=n_past, logits_all=True)
    llm._ctx.decode(llm._batch)
    llm.input_ids[n_past:n_past + len(tokens)] = tokens
    llm.n_tokens = n_past + len(tokens)
    llm._requires_eval = False
    return _choices(llm, len(tokens))


def prompt_logits(llm: Any, tokens: list[int]) -> np.ndarray:
    """Evaluate the prompt after the prefix the context already holds, in the batches Llama.generate uses; the
    logits of its last token (a copy)."""
    held = int(llm.n_tokens)
    common = 0
    if held > 0:
        ids = np.asarray(llm.input_ids[:min(held, len(tokens))])
        differ = np.flatnonzero(ids != np.asarray(tokens[:len(ids)], dtype=ids.dtype))
        common = int(differ[0]) if differ.size else len(ids)
    if common >= len(tokens):  # the whole prompt is held: evaluate its last token again for fresh logits
        common = len(tokens) - 1
    llm.n_tokens = common
    llm.eval(tokens[common:])  # logits for the last token of each batch
    return last_logits(llm)


def last_logits(llm: Any) -> np.ndarray:
    """The logits of the last token the context evaluated (a copy)."""
    import llama_cpp

    ptr = llama_cpp.llama_get_logits_ith(llm._ctx.ctx, -1)
    return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(llm.n_vocab(),)).copy()


def _prompt(llm: Any, tokens: list[int]) -> int:
    """The prompt evaluated (prompt_logits); the greedy first token."""
    return int(prompt_logits(llm, tokens).argmax())


def greedy_completion(llm: Any, tokens: list[int], max_tokens: int, stop: Sequence[str] = (),
                      max_draft: int = MAX_DRAFT, lookup_from: int = 0) -> Generation:
    """The greedy completion of the prompt `tokens` by `llm` (a llama_cpp.Llama), as create_completion gives it with
    temperature 0 and these stop strings, with drafts looked up from token `lookup_from` of the prompt on."""
    import llama_cpp

    if len(tokens) + max_tokens > llm.n_ctx():
        max_tokens = llm.n_ctx() - len(tokens)
    vocab = llm._model.vocab
    stops = [s.encode("utf-8") for s in stop]
    sequence = np.empty(len(tokens) + max_tokens + max_draft + 2, dtype=np.int64)
    sequence[:len(tokens)] = tokens
    length = len(tokens)
    out: list[int] = []
    gen = Generation("", 0, "length")
    text = b""
    multibyte = 0
    nxt = _prompt(llm, tokens)
    while not llama_cpp.llama_vocab_is_eog(vocab, nxt):
        # `nxt` is the model's choice: evaluate it with a draft of what follows, and keep the draft up to the first
        # token the model would not have chosen
        room = min(max_draft, max_tokens - len(out) - 1, llm.n_ctx() - int(llm.n_tokens) - 2)
        pending: list[int] = []
        if room > 0:
            sequence[length] = nxt
            pending = draft(sequence[:length + 1], room, start=lookup_from)
            eog = next((i for i, t in enumerate(pending) if llama_cpp.llama_vocab_is_eog(vocab, t)), None)
            pending = pending[:eog] if eog is not None else pending
        batch = [nxt] + pending
        choices, margins = _decode(llm, batch)
        gen.steps += 1
        gen.drafted += len(pending)
        accepted = 0
        while accepted < len(pending) and margins[accepted] >= NEAR_TIE and int(choices[accepted]) == pending[accepted]:
            accepted += 1
        gen.accepted += accepted
        if accepted < len(pending):  # the rejected part of the draft leaves the context
            llm.n_tokens -= len(pending) - accepted
            llm._ctx.kv_cache_seq_rm(-1, llm.n_tokens, -1)
        after = int(choices[accepted])
        if len(batch) > 1 and margins[accepted] < NEAR_TIE:  # a near tie, read from a batch: decided by one token
            llm.n_tokens -= 1
            one, _ = _decode(llm, [batch[accepted]])
            after = int(one[0])
            gen.steps += 1
            gen.near_ties += 1
        # each kept token is checked as create_completion checks the tokens it samples, in order
        for t in batch[:1 + accepted]:
            out.append(t)
            sequence[length] = t
            length += 1
            text = llm.detokenize(out, prev_tokens=tokens)
            for k, char in enumerate(text[-3:]):  # an incomplete UTF-8 character: no stop check yet
                k = 3 - k
                for num, pattern in ((2, 192), (3, 224), (4, 240)):
                    if num > k and pattern & char == pattern:
                        multibyte = num - k
            if multibyte > 0:  # as create_completion: neither the stop strings nor the length are checked
                multibyte -= 1
                continue
            hit = [s for s in stops if s in text]
            if hit:
                gen.text = text[:text.index(hit[0])].decode("utf-8", errors="ignore")
                gen.completion_tokens, gen.finish_reason = len(out), "stop"
                return gen
            if len(out) >= max_tokens:
                gen.text = text.decode("utf-8", errors="ignore")
                gen.completion_tokens, gen.finish_reason = len(out), "length"
                return gen
        nxt = after
    gen.text = llm.detokenize(out, prev_tokens=tokens).decode("utf-8", errors="ignore")
    gen.completion_tokens, gen.finish_reason = len(out), "stop"
    return gen


__all__ = ["Generation", "draft", "greedy_completion", "last_logits", "prompt_logits", "MAX_DRAFT", "NEAR_TIE"]
