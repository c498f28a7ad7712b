"""The embedded model on xllamacpp (`XLlamaChat`): llama.cpp's server, in process, from a prebuilt wheel (no compiler
needed to install it). The same prompts as LocalChat (render_qwen, the given opening of a single tool's call, STOP),
the same rail: a call written freely is checked against the call's JSON Schema and, when it does not fit, written
again under that schema (the server turns it into a grammar). The server keeps the last prompt's evaluated tokens
(cache_prompt): a call that starts like the previous one evaluates only what follows. What LocalChat has and this has
not: prompt prefixes saved to disk across processes, prompt lookup, the thread count chosen per call, a GGUF's own
template."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Any

from ..errors import ModelUnavailable, OntoError
from . import cores
from .interface import ChatReply, ToolCall, Usage
from .lockqueue import inference_lock
from .templates import STOP, call_opening, call_schema, parse_call, render_qwen

log = logging.getLogger(__name__)


class XLlamaChat:
    """The embedded (or a --model-path ChatML) model on xllamacpp's in-process llama.cpp server."""

    backend = "local"

    def __init__(self, model_path: str | Path | None = None, n_ctx: int = 8192, n_threads: int | None = None,
                 seed: int = 0) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise ModelUnavailable("xllamacpp is not installed, so the embedded local model cannot run on it: install "
                                   "the local-prebuilt extra in your checkout (pip install -e '.[local-prebuilt]'), or "
                                   "set OPENAI_API_KEY, or pass --base-url for your own server.") from None
        from .localmodel import MODEL_NAME, default_model_path

        path = Path(model_path) if model_path else default_model_path()
        if not path.is_file():
            raise ModelUnavailable(f"Model file {path} does not exist.")
        self._path = path
        self.model = MODEL_NAME if not model_path else path.name
        try:
            self.threads = cores.choose_threads(n_threads or cores.setting())
        except ValueError as e:
            raise ModelUnavailable(str(e)) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        params.n_ctx = n_ctx
        params.n_batch = 512
        params.n_parallel = 1  # one slot: its kept context is the previous call's
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads
        params.warmup = False
        params.verbosity = -1
        self._params = params
        self._seed = seed
        self._n_ctx = n_ctx
        start = time.perf_counter()
        self._server: Any = self._load()
        self.load_seconds = time.perf_counter() - start
        self.usage = Usage(self.backend, self.model)
        self.open_single_calls = False  # see llm.opened_calls
        log.info("loaded %s on xllamacpp in %.1f s", path.name, self.load_seconds)

    def _load(self) -> Any:
        import xllamacpp

        try:
            return xllamacpp.Server(self._params)
        except Exception as e:  # noqa: BLE001 - whatever llama.cpp says of a file it cannot load
            raise ModelUnavailable(f"llama.cpp (xllamacpp) could not load {self._path}: {e}.") from None

    def keep_prefix(self, system_start: str) -> None:
        """Prompt prefixes are not saved across processes here; within one, the server reuses the previous call's
        evaluated tokens by itself."""

    def ping(self) -> str:
        return "" if self._server is not None or self._path.is_file() else f"the model file {self._path} is gone"

    def release(self) -> None:
        """Give the model's memory back; a later call loads it again."""
        if self._server is not None:
            self._server = None
            log.info("model released")

    def _complete(self, prompt: str, max_tokens: int, temperature: float, schema: dict | None) -> dict[str, Any]:
        request: dict[str, Any] = {"prompt": prompt, "n_predict": max_tokens, "temperature": temperature,
                                   "seed": self._seed, "stop": STOP, "cache_prompt": True}
        if schema is not None:
            request["json_schema"] = schema
        reply = self._server.handle_completions(request)
        if not isinstance(reply, dict) or "error" in reply or not reply.get("choices"):
            raise OntoError(f"llama.cpp (xllamacpp) failed: {str(reply)[:300]}")
        return reply

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             tool_choice: str = "required", max_tokens: int = 1024, temperature: float = 0.0) -> ChatReply:
        if self._server is None:
            self._server = self._load()
        use_tools = bool(tools) and tool_choice != "none"
        prompt = render_qwen(messages, tools if use_tools else None)
        opening = call_opening(tools[0]["function"]["name"]) if use_tools and self.open_single_calls and \
            len(tools) == 1 and tool_choice == "required" else ""  # type: ignore[index]
        start = time.perf_counter()
        prompt_tokens = completion_tokens = evaluated = reused = 0
        waited = 0.0
        text = ""
        calls: list[ToolCall] = []
        for attempt, constrained in enumerate((False, True) if use_tools else (False,)):
            asked = time.perf_counter()
            with inference_lock():
                waited += time.perf_counter() - asked
                reply = self._complete(prompt if constrained else prompt + opening, max_tokens, temperature,
                                       call_schema(tools) if constrained else None)  # type: ignore[arg-type]
            timings = reply.get("timings") or {}
            usage = reply.get("usage") or {}
            if attempt == 0:
                prompt_tokens = int(usage.get("prompt_tokens") or 0)
                reused = int(timings.get("cache_n") or 0)
            evaluated += int(timings.get("prompt_n") or 0)
            completion_tokens += int(usage.get("completion_tokens") or 0)
            text = ("" if constrained else opening) + str(reply["choices"][0].get("text") or "")
            if not use_tools:
                break
            calls = parse_call(text, tools, f"call_{self.usage.calls}")  # type: ignore[arg-type]
            if calls:
                break
            log.info("free tool call did not fit the schema; retrying with the grammar: %r", text[:200])
        if prompt_tokens + max_tokens > self._n_ctx:
            log.info("prompt of %d tokens near the context of %d", prompt_tokens, self._n_ctx)
        result = ChatReply(content=None if calls else text, tool_calls=calls, prompt_tokens=prompt_tokens,
                           completion_tokens=completion_tokens, seconds=time.perf_counter() - start - waited,
                           wait_seconds=waited, prompt_evaluated=evaluated, prompt_reused=reused)
        self.usage.add(result)
        return result
