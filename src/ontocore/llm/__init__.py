"""The model layer: one small chat interface for both agents, with two backends.

- `openai`: any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) with native tools
  (openai_compatible.py).
- `local`: llama.cpp in process (llama-cpp-python, `LocalChat` in localchat.py, or xllamacpp's prebuilt wheel,
  `XLlamaChat` in xllamachat.py: `local_chat` picks the one installed), prompts in Qwen's native chat and tool
  format (templates.py), one inference at a time on the machine (lockqueue.py), the embedded model's file
  (localmodel.py), its threads (cores.py), its kept prompt prefixes (prefixcache.py) and prompt-lookup decoding
  (promptlookup.py).

`open_model` and `model_settings` (choosing.py) open the configured one. Messages and tools use the OpenAI chat
format on both sides (interface.py)."""

from __future__ import annotations

from .choosing import model_identity, model_settings, open_model
from .interface import ChatModel, ChatReply, ToolCall, Usage
from .localchat import LocalChat
from .lockqueue import inference_lock
from .openai_compatible import OpenAIChat
from .templates import opened_calls
from .xllamachat import XLlamaChat

__all__ = ["ChatModel", "ChatReply", "LocalChat", "OpenAIChat", "ToolCall", "Usage", "XLlamaChat", "inference_lock",
           "model_identity", "model_settings", "open_model", "opened_calls"]
