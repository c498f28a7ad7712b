"""Which model to open: `open_model` (the OpenAI-compatible backend when a key or a base URL is set, else the
embedded one on the llama.cpp binding installed), `model_identity` without opening it, and `model_settings`, the
caller's model choice split into an open model or the options of `open_model`."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError
from .interface import ChatModel
from .localchat import LocalChat
from .openai_compatible import DEFAULT_OPENAI_MODEL, OpenAIChat
from .xllamachat import XLlamaChat

LLAMA_LIBRARIES = ("llama-cpp-python", "xllamacpp")


def local_chat(model_path: str | Path | None = None, n_threads: int | None = None) -> ChatModel:
    """The embedded model on the llama.cpp binding that is installed: llama-cpp-python (LocalChat: built from source
    by pip; kept prompt prefixes on disk, prompt lookup), else xllamacpp (XLlamaChat: a prebuilt wheel, no
    compiler needed). ONTOBUILD_LLAMA_LIBRARY=llama-cpp-python|xllamacpp chooses one."""
    import importlib.util

    chosen = os.environ.get("ONTOBUILD_LLAMA_LIBRARY", "").strip().lower()
    if chosen and chosen not in LLAMA_LIBRARIES:
        raise InputError(f"ONTOBUILD_LLAMA_LIBRARY={chosen!r}: use {' or '.join(LLAMA_LIBRARIES)}.")
    if chosen == "xllamacpp" or (not chosen and importlib.util.find_spec("llama_cpp") is None
                                 and importlib.util.find_spec("xllamacpp") is not None):
        return XLlamaChat(model_path=model_path, n_threads=n_threads)
    return LocalChat(model_path=model_path, n_threads=n_threads)


# ---- choosing ----------------------------------------------------------------------------------------
@dataclass
class LLMOptions:
    backend: str = "auto"  # auto | openai | local
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    model_path: str | None = None
    threads: int | None = None  # the local model's threads (default: the free cores, per call)
    timeout: float | None = None  # seconds per model server call (default: ONTOBUILD_MODEL_TIMEOUT, else 120)
    retries: int | None = None  # retries of a failed server call (default: ONTOBUILD_MODEL_RETRIES, else 2)
    extra: dict[str, Any] = field(default_factory=dict)


def _options(opts: LLMOptions | dict[str, Any] | None) -> LLMOptions:
    if isinstance(opts, dict):
        opts = LLMOptions(**{k: v for k, v in opts.items() if v is not None})
    return opts or LLMOptions()


def _backend(opts: LLMOptions) -> str:
    """The backend `opts` choose: `openai` when a key or base URL is set (flags or environment), else `local`."""
    backend = opts.backend or "auto"
    if backend == "auto":
        has_remote = opts.api_key or opts.base_url or os.environ.get("OPENAI_API_KEY") or os.environ.get("OPENAI_BASE_URL")
        backend = "openai" if has_remote and not opts.model_path else "local"
    if backend not in ("openai", "local"):
        raise InputError(f"Unknown backend '{backend}': use auto, openai or local.")
    return backend


def model_identity(opts: LLMOptions | dict[str, Any] | None = None) -> tuple[str, str]:
    """(backend, model name) of the model `open_model(opts)` would open, without opening it."""
    opts = _options(opts)
    backend = _backend(opts)
    if backend == "openai":
        return backend, opts.model or os.environ.get("ONTOBUILD_MODEL") or DEFAULT_OPENAI_MODEL
    from .localmodel import MODEL_NAME

    return backend, Path(opts.model_path).name if opts.model_path else MODEL_NAME


def open_model(opts: LLMOptions | dict[str, Any] | None = None) -> ChatModel:
    """The configured model: `openai` when a key or base URL is set (flags or environment), else `local`."""
    opts = _options(opts)
    if _backend(opts) == "openai":
        return OpenAIChat(model=opts.model, base_url=opts.base_url, api_key=opts.api_key, timeout=opts.timeout,
                          retries=opts.retries)
    return local_chat(model_path=opts.model_path, n_threads=opts.threads)


MODEL_KEYS = ("backend", "base_url", "api_key", "model_path", "threads", "model_timeout", "model_retries")


def model_settings(model: str | ChatModel | None = None, **settings: Any) -> tuple[ChatModel | None, dict[str, Any]]:
    """Split the caller's model choice into an open model object (or None) and the options of `open_model`.

    `model` is a model name on an OpenAI-compatible server, or an object with a `chat` method (an open
    `ChatModel`, a cassette); `settings` are `backend`, `base_url`, `api_key`, `model_path`, `threads`,
    `model_timeout`, `model_retries` (the command-line options of the same names)."""
    unknown = sorted(set(settings) - set(MODEL_KEYS))
    if unknown:
        raise TypeError(f"unknown model setting(s): {', '.join(unknown)} (known: {', '.join(MODEL_KEYS)})")
    chat_model = model if model is not None and not isinstance(model, str) else None
    if chat_model is not None and not callable(getattr(chat_model, "chat", None)):
        raise InputError(f"model must be a model name or an object with a chat() method, not {type(model).__name__}.")
    options = {"backend": settings.get("backend"), "model": model if isinstance(model, str) else None,
               "base_url": settings.get("base_url"), "api_key": settings.get("api_key"),
               "model_path": settings.get("model_path"), "threads": settings.get("threads"),
               "timeout": settings.get("model_timeout"), "retries": settings.get("model_retries")}
    return chat_model, options
