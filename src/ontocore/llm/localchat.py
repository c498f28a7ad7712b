"""The embedded model on llama-cpp-python, in process (`LocalChat`): prompts in Qwen's native chat and tool format. A
tool call is generated freely, then validated against a JSON Schema of "one call to one of these tools"; when it
does not fit, it is generated again under a grammar built from that schema, so the model can only emit a well-formed
call to an existing tool (no bare `functions.NAME:` text, no broken JSON). Free generation first because grammar
sampling over Qwen's 150k-token vocabulary is several times slower. A prompt's stable start is kept evaluated
(prefixcache.py), and the threads follow the free cores (cores.py)."""

from __future__ import annotations

import json
import logging
import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ..errors import ModelUnavailable, OntoError
from . import cores
from .interface import ChatReply, ToolCall, Usage
from .lockqueue import inference_lock
from .templates import STOP, GGUFTemplate, call_opening, call_schema, parse_call, render_qwen

if TYPE_CHECKING:
    from .prefixcache import PrefixCache

log = logging.getLogger(__name__)

THREADS_RECHECK_S = 2.0  # a thread choice is kept for the next call that starts this soon after the previous one ended
# The weights are read into memory, not mapped: llama.cpp repacks most of them for the CPU's fast kernels (its extra
# buffer types), and with a mapped file the pages it read them from stay in the process's memory beside the repacked
# copy: 1.98 GB resident after loading instead of 1.39 GB (a second longer to load, measured on this machine)
MODEL_MMAP = os.environ.get("ONTOBUILD_MODEL_MMAP", "").strip() == "1"
GRAMMAR_FIRST_AFTER = 2  # free calls of a step that failed their schema, more than fitted: the grammar first then
MIN_PREFIX_TOKENS = 256  # a shorter system turn is evaluated in well under 3 s: not worth a saved state


def _cpu_has_amx() -> bool:
    try:
        return "amx_tile" in Path("/proc/cpuinfo").read_text("utf-8", errors="replace")
    except OSError:
        return False


@contextmanager
def llama_load_settings() -> Iterator[None]:
    """Models loaded inside this block skip llama.cpp's extra CPU buffer types (weights repacked for AMX tiles)
    on a CPU with AMX: with them, llama-cpp-python 0.3.36 crashes in its first decode on such CPUs (seen on a
    2-core Intel Xeon VM). ONTOBUILD_LLAMA_EXTRA_BUFFERS=1 keeps them anyway, =0 skips them on any CPU."""
    import llama_cpp.llama as llama_module

    setting = os.environ.get("ONTOBUILD_LLAMA_EXTRA_BUFFERS", "").strip()
    lib = llama_module.llama_cpp
    original = lib.llama_model_default_params
    if setting == "1" or (setting != "0" and not _cpu_has_amx()) or \
            not any(name == "use_extra_bufts" for name, *_ in original()._fields_):
        yield
        return

    def params() -> Any:
        p = original()
        p.use_extra_bufts = False
        return p

    lib.llama_model_default_params = params
    try:
        log.info("llama.cpp: loading without extra CPU buffer types (AMX)")
        yield
    finally:
        lib.llama_model_default_params = original


@dataclass
class _Prompt:
    """A call's prompt as the model is sent it: its tokens, with the given opening of a single tool's call
    (`opened`: what is sent, free or under the grammar of the call's arguments), and what the call is generated
    under."""

    tokens: list[int]
    opened: list[int]
    opening: str
    stop: list[str]
    step: str  # the names of the tools it may call ("" without tools): whose free calls fit is kept per step
    grammar_first: bool  # asked under the grammar at once (the step's free calls mostly did not fit)


class LocalChat:
    """llama-cpp-python in process; the default when no API key is configured."""

    backend = "local"

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 8192, n_threads: int | None = None,
                 seed: int = 0, prefix_cache: "PrefixCache | None" = None) -> None:
        try:
            import llama_cpp  # noqa: F401 - installed?
        except ImportError:
            raise ModelUnavailable(
                "llama-cpp-python is not installed, so the embedded local model cannot run: install the local "
                "extra in your checkout (pip install -e '.[local]': a C compiler builds it; without one, "
                "'.[local-prebuilt]'), or set OPENAI_API_KEY, or pass --base-url for your own server."
            ) from None
        from .localmodel import MODEL_NAME, SHA256, default_model_path

        path = Path(model_path) if model_path else default_model_path()
        self._path, self._known_sha256 = path, (None if model_path else SHA256)
        if not path.is_file():
            raise ModelUnavailable(f"Model file {path} does not exist.")
        self.model = MODEL_NAME if not model_path else path.name
        try:
            self._fixed_threads = n_threads or cores.setting()
        except ValueError as e:
            raise ModelUnavailable(str(e)) from None
        self.threads = cores.choose_threads(self._fixed_threads)
        self._n_ctx = n_ctx
        start = time.perf_counter()
        self._llm = self._load(seed)
        self.load_seconds = time.perf_counter() - start
        self._grammars: dict[str, Any] = {}
        self._free_fits: dict[str, list[bool]] = {}  # per step (its tools' names): whether each free call fitted
        self._seed = seed
        self.usage = Usage(self.backend, self.model)
        self.prefix_cache: PrefixCache | None = prefix_cache
        self._prefix_settings: dict[str, Any] | None = None
        self._kept: dict[str, list[int]] = {}  # announced stable starts of system prompts -> their tokens
        self.open_single_calls = False  # see opened_calls
        self._last_call_end: float | None = None  # see _adapt_threads
        # ONTOBUILD_PROMPT_LOOKUP=1: greedy calls without a grammar are decoded with prompt-lookup drafts
        # (promptlookup.py: fewer steps for a repaired query; not the default, as a batch's logits differ from one
        # token's and can turn a near tie, so a reply may differ from one-token-at-a-time decoding)
        self.prompt_lookup = os.environ.get("ONTOBUILD_PROMPT_LOOKUP", "").strip() == "1"
        self._im_end: int | None = None
        # another model than the embedded one is prompted in its own chat format (its GGUF's template), unless that
        # is ChatML, the embedded model's (rendered by render_qwen, with the prefix cache and prompt lookup)
        found = GGUFTemplate.of(self._llm) if model_path else None
        self.template = found if found is not None and "<|im_start|>" not in found.template else None
        if self.template is not None:
            self.prompt_lookup = False
            log.info("%s: prompted with its own chat template", path.name)
        log.info("loaded %s in %.1f s", path.name, self.load_seconds)

    def _load(self, seed: int) -> Any:
        from llama_cpp import Llama

        try:
            with llama_load_settings():
                return Llama(model_path=str(self._path), n_ctx=self._n_ctx, n_threads=self.threads,
                             n_threads_batch=self.threads, n_batch=512, seed=seed, verbose=False,
                             use_mmap=MODEL_MMAP)
        except (ValueError, RuntimeError) as e:
            raise ModelUnavailable(f"llama.cpp could not load {self._path}: {e}.") from None

    def ping(self) -> str:
        """"" when the model is loaded (or its file is there to load again), else why not."""
        if self._llm is not None or self._path.is_file():
            return ""
        return f"the model file {self._path} is gone"

    def release(self) -> None:
        """Give the model's memory back (its weights and context) before a long step that needs no model; a
        later call loads it again."""
        llm, self._llm = self._llm, None
        if llm is not None:
            llm.close()
            log.info("model released")

    # ---- kept prompt prefixes --------------------------------------------------------------------------
    def keep_prefix(self, system_start: str) -> None:
        """Announce that calls whose system message starts with `system_start` (instructions, examples, an
        ontology's view: the stable part, placed first) will repeat, in this process and in later ones. The
        model's state after that prefix is then kept (prefixcache.py: the last few in memory, all on disk,
        bounded), so it is evaluated once, not per call nor per process. Calls without an announced prefix
        still reuse whatever the previous call left in the context (llama-cpp-python's prefix match)."""
        from .prefixcache import PrefixCache

        if getattr(self, "template", None) is not None:  # prompts in the model's own template: no kept prefixes
            return
        if getattr(self._llm, "_is_recurrent", False) or getattr(self._llm, "_is_hybrid", False):
            log.info("prefix cache: not used for a recurrent model (its state cannot be cut at a prefix)")
            return
        if self.prefix_cache is None:
            self.prefix_cache = PrefixCache()
        text = "<|im_start|>system\n" + system_start
        tokens = self._llm.tokenize(text.encode("utf-8"), special=True)
        if len(tokens) >= MIN_PREFIX_TOKENS:
            self._kept[system_start] = tokens
            log.info("prefix cache: keeping a prompt start of %d tokens", len(tokens))

    def _kept_prefix(self, messages: list[dict[str, Any]], tokens: list[int]) -> list[int]:
        """The longest announced prefix this prompt starts with ([] when none). Tokens are compared, allowing
        the last few tokens of the prefix to merge differently with the text that follows it."""
        if not self._kept or not messages or messages[0]["role"] != "system":
            return []
        content = messages[0]["content"] or ""
        best: list[int] = []
        for start, prefix in self._kept.items():
            if not content.startswith(start) or len(prefix) <= len(best):
                continue
            n = 0
            for a, b in zip(prefix, tokens):
                if a != b:
                    break
                n += 1
            if n >= len(prefix) - 4 and n < len(tokens):
                best = prefix[:n]
        return best

    def _settings(self) -> dict[str, Any]:
        """What a saved state depends on besides the model file and the tokens."""
        if self._prefix_settings is None:
            import llama_cpp

            from .prefixcache import model_identity

            params = getattr(self._llm, "context_params", None)
            self._prefix_settings = {
                "model": model_identity(self._path, self._known_sha256),
                "llama_cpp": getattr(llama_cpp, "__version__", "?"), "n_ctx": self._llm.n_ctx(),
                **{k: str(getattr(params, k)) for k in ("type_k", "type_v", "flash_attn", "flash_attn_type",
                                                        "swa_full") if params is not None and hasattr(params, k)}}
        return self._prefix_settings

    def _common_prefix(self, tokens: list[int]) -> int:
        """How many leading tokens of `tokens` the model's context holds now."""
        import numpy as np

        n = min(int(self._llm.n_tokens), len(tokens))
        if n <= 0:
            return 0
        held = np.asarray(self._llm.input_ids[:n])
        differ = np.flatnonzero(held != np.asarray(tokens[:n], dtype=held.dtype))
        return int(differ[0]) if differ.size else n

    def _reusable(self, tokens: list[int]) -> int:
        """The prompt tokens llama-cpp-python will not evaluate again for `tokens` (its prefix match in
        Llama.generate: the common prefix with the context, less one token when it covers the whole prompt, so
        that fresh logits are computed)."""
        common = self._common_prefix(tokens)
        if common == len(tokens):
            if int(self._llm.n_tokens) == len(tokens) and not getattr(self._llm, "_requires_eval", True):
                return common
            return max(0, common - 1)
        return common

    def _state_bytes(self) -> bytes:
        import ctypes

        import llama_cpp

        size = int(llama_cpp.llama_state_get_size(self._llm.ctx))
        buf = (ctypes.c_uint8 * size)()
        n = int(llama_cpp.llama_state_get_data(self._llm.ctx, buf, size))
        if n <= 0 or n > size:
            raise RuntimeError(f"llama.cpp returned {n} bytes of state (of {size})")
        return ctypes.string_at(buf, n)

    def _load_state(self, tokens: tuple[int, ...], data: bytes) -> bool:
        """Put a saved state into the context; False (and an empty context) when llama.cpp refuses it."""
        import ctypes

        import llama_cpp

        buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
        try:
            ok = int(llama_cpp.llama_state_set_data(self._llm.ctx, buf, len(data))) == len(data)
        except Exception as e:  # noqa: BLE001 - a foreign state must never break the call
            log.warning("prefix cache: llama.cpp could not load a state (%s)", e)
            ok = False
        if not ok:
            self._llm.reset()
            self._llm._ctx.kv_cache_clear()
            return False
        self._llm.input_ids[:len(tokens)] = tokens
        self._llm.n_tokens = len(tokens)
        self._llm._requires_eval = True
        return True

    def _prepare_prefix(self, prefix: list[int]) -> tuple[int, int]:
        """Make the context hold `prefix` (the system turn), from the context itself, a kept state or by
        evaluating it (then its state is kept). Returns (tokens evaluated, tokens loaded from the cache)."""
        from .prefixcache import PrefixState, prefix_key

        cache = self.prefix_cache
        assert cache is not None
        held = self._common_prefix(prefix)
        if held == len(prefix):
            return 0, 0
        key = prefix_key(self._settings()["model"], self._settings(), prefix)
        state = cache.get(key, prefix)
        if state is not None:
            if self._load_state(state.tokens, state.data):
                log.info("prefix cache: loaded the state of %d prompt tokens", len(prefix))
                return 0, len(prefix)
            cache.discard(key)
            held = 0
        self._llm.n_tokens = held  # eval() drops the context after this point
        self._llm.eval(prefix[held:])
        try:
            cache.put(PrefixState(key, tuple(prefix), self._state_bytes()))
        except RuntimeError as e:
            log.warning("prefix cache: the state could not be saved (%s)", e)
        return len(prefix) - held, 0

    def _lookup_start(self, tokens: list[int]) -> int:
        """Where prompt-lookup drafts are looked up from: after the system turn and the first user turn (the second
        <|im_end|>), so that only the model's own earlier replies and what followed them are drafted from (a first
        reply is drafted from nothing: drafts from the hints are kept too rarely to pay for themselves)."""
        if self._im_end is None:
            self._im_end = self._llm.tokenize(b"<|im_end|>", add_bos=False, special=True)[0]
        ends = [i for i, t in enumerate(tokens) if t == self._im_end][:2]
        return ends[1] + 1 if len(ends) == 2 else len(tokens)

    def _grammar(self, tools: list[dict[str, Any]], arguments: bool = False) -> Any:
        """The grammar of one call to any of `tools`, or (`arguments`: the call's opening is given) of the one
        tool's arguments."""
        from llama_cpp import LlamaGrammar

        schema = json.dumps(tools[0]["function"].get("parameters") or {"type": "object"} if arguments else
                            call_schema(tools), sort_keys=True)
        if schema not in self._grammars:
            self._grammars[schema] = LlamaGrammar.from_json_schema(schema, verbose=False)
        return self._grammars[schema]

    def _parse_call(self, text: str, tools: list[dict[str, Any]]) -> list[ToolCall]:
        return parse_call(text, tools, f"call_{self.usage.calls}")

    def _fits_rarely(self, step: str) -> bool:
        """Whether the free calls of a step (its tools) mostly did not fit their schema: at least GRAMMAR_FIRST_AFTER
        of them failed, more than fitted. Such a step is asked under the grammar at once (`grammar` "first" in its
        replies): the free try only doubled its calls."""
        fits = self._free_fits.get(step, [])
        failed = fits.count(False)
        return failed >= GRAMMAR_FIRST_AFTER and failed > len(fits) - failed

    def fix_threads(self, threads: int | None) -> None:
        """Use `threads` for every call from now on (None: choose them per call again, see cores.py)."""
        self._fixed_threads = threads
        if threads:
            self._set_threads(threads)

    def _adapt_threads(self) -> None:
        """Use only the cores that are free now (unless the user fixed the count): see cores.py. A call that starts
        within THREADS_RECHECK_S of the previous call's end (the next attempt at a question, the next question of a
        batch) keeps the previous choice: sampling the cores costs a sixth of a second, held inside the inference
        lock, and the other processes' load has not had the time to change."""
        if self._fixed_threads:
            return
        ended = self._last_call_end
        if ended is not None and time.monotonic() - ended < THREADS_RECHECK_S:
            return
        self._set_threads(cores.choose_threads())

    def _set_threads(self, threads: int) -> None:
        ctx = getattr(self._llm, "_ctx", None)
        if threads != self.threads and ctx is not None and hasattr(ctx, "set_n_threads"):
            log.info("model threads: %d -> %d", self.threads, threads)
            ctx.set_n_threads(threads, threads)
            self.threads = threads

    def _prompt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                tool_choice: str) -> "_Prompt":
        """The call's prompt as tokens: rendered in the model's template (Qwen's unless it has its own), with the
        given opening of a single tool's call (the model, free or under the grammar of its arguments, writes only
        the arguments, not the opening's tokens), checked against the context."""
        template = getattr(self, "template", None)
        prompt = (template.render(messages, tools) if template is not None else render_qwen(messages, tools))
        stop = template.stop if template is not None else STOP
        # a template that writes the BOS token itself: not added again
        add_bos = template is None or not template.bos or not prompt.startswith(template.bos)
        self.last_prompt = prompt
        # tokenized as create_completion would (the model adds no BOS token for Qwen), and passed as tokens
        tokens = self._llm.tokenize(prompt.encode("utf-8"), add_bos=add_bos, special=True)
        step = ",".join(t["function"]["name"] for t in tools or [])
        grammar_first = bool(tools) and self._fits_rarely(step)
        # one tool to call: its opening is given, the model writes the arguments
        opening = call_opening(tools[0]["function"]["name"]) if tools and self.open_single_calls and \
            len(tools) == 1 and tool_choice == "required" else ""
        opened = self._llm.tokenize((prompt + opening).encode("utf-8"), add_bos=add_bos, special=True) \
            if opening else tokens
        return _Prompt(tokens, opened, opening, stop, step, grammar_first)

    def _generate(self, sent: list[int], tools: list[dict[str, Any]] | None, constrained: bool, max_tokens: int,
                  temperature: float, stop: list[str], opened: bool = False) -> tuple[str, int]:
        """One generation from the prompt tokens `sent`: (its text, its tokens), under the call's grammar when
        `constrained` (greedy: lazygrammar), with prompt-lookup drafts when they are on and the call is greedy and
        free."""
        if self.prompt_lookup and temperature == 0.0 and not constrained:
            from .promptlookup import greedy_completion

            gen = greedy_completion(self._llm, sent, max_tokens, stop, lookup_from=self._lookup_start(sent))
            log.debug("prompt lookup: %d tokens in %d steps (%d of %d drafted tokens kept)",
                      gen.completion_tokens, gen.steps, gen.accepted, gen.drafted)
            return gen.text, gen.completion_tokens
        if constrained and temperature == 0.0:  # the grammar asked about the model's own choice first
            from .lazygrammar import greedy_constrained

            gen = greedy_constrained(self._llm, sent, self._grammar(tools, arguments=opened), max_tokens, stop)
            return gen.text, gen.completion_tokens
        out = self._llm.create_completion(
            sent, max_tokens=max_tokens, temperature=temperature, seed=self._seed, stop=stop,
            grammar=self._grammar(tools, arguments=opened) if constrained else None,  # type: ignore[arg-type]
        )
        return out["choices"][0]["text"], out.get("usage", {}).get("completion_tokens", 0)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        if self._llm is None:  # released (release): loaded again
            self._llm = self._load(self._seed)
        use_tools = bool(tools) and tool_choice != "none"
        start = time.perf_counter()
        p = self._prompt(messages, tools if use_tools else None, tool_choice)
        n_prompt = len(p.opened)
        if n_prompt + max_tokens > self._llm.n_ctx():
            raise OntoError(f"The prompt ({n_prompt} tokens) does not fit the local model's context "
                            f"({self._llm.n_ctx()} tokens); the input slice is too large.")
        prefix = self._kept_prefix(messages, p.tokens)
        completion_tokens = 0
        evaluated = reused = loaded = 0
        waited = 0.0
        text = ""
        calls: list[ToolCall] = []
        # Free generation is ~4x faster than grammar-constrained sampling over Qwen's 150k-token vocabulary,
        # and Qwen writes its native <tool_call> JSON well; the grammar is the fallback when that fails, and the
        # first try for a step whose free calls mostly fail (then the free try only doubles the call)
        attempts = (True,) if p.grammar_first else (False, True) if use_tools else (False,)
        for attempt, constrained in enumerate(attempts):
            asked = time.perf_counter()
            with inference_lock():
                waited += time.perf_counter() - asked
                self._adapt_threads()
                if prefix and attempt == 0:
                    done, loaded = self._prepare_prefix(prefix)
                    evaluated += done
                sent = p.opened
                kept = self._reusable(sent)
                evaluated += len(sent) - kept
                if attempt == 0:
                    reused = n_prompt - evaluated
                generated, n_generated = self._generate(sent, tools, constrained, max_tokens, temperature, p.stop,
                                                        opened=bool(p.opening))
                self._last_call_end = time.monotonic()
            # under the grammar of the arguments the model ends with them: the call's own brace closes it
            text = p.opening + generated + ("}" if constrained and p.opening else "")
            completion_tokens += n_generated
            if not use_tools:
                break
            calls = self._parse_call(text, tools)  # type: ignore[arg-type]
            if not constrained:
                self._free_fits.setdefault(p.step, []).append(bool(calls))
            if calls:
                break
            if not constrained:
                log.info("free tool call did not fit the schema; retrying with the grammar: %r", text[:200])
        grammar = "first" if p.grammar_first else "retried" if use_tools and len(attempts) > 1 and \
            not self._free_fits[p.step][-1] else ""
        reply = ChatReply(content=None if calls else text, tool_calls=calls, prompt_tokens=n_prompt,
                          completion_tokens=completion_tokens, seconds=time.perf_counter() - start - waited,
                          wait_seconds=waited, prompt_evaluated=evaluated, prompt_reused=reused,
                          prompt_loaded=loaded, grammar=grammar)
        log.debug("model call: %d prompt tokens, %d evaluated, %d reused (%d from the prefix cache)", n_prompt,
                  evaluated, reused, loaded)
        self.usage.add(reply)
        return reply
