"""How a conversation becomes a local model's prompt text, and a tool call is read back from what it writes: the
embedded model's Qwen2.5 chat template with its native tool format (`render_qwen`), a model's own GGUF template
(`GGUFTemplate`), the JSON Schema of one call (`call_schema`, also the grammar's), the given opening of a single
tool's call (`call_opening`, `opened_calls`) and the call parsed from the reply (`parse_call`)."""

from __future__ import annotations

import json
from contextlib import contextmanager
from typing import Any, Iterator

from .interface import ToolCall

_TOOLS_PREAMBLE = (
    "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{tools}\n</tools>\n\n"
    "For each function call, return a json object with function name and arguments within "
    "<tool_call></tool_call> XML tags:\n<tool_call>\n{{\"name\": <function-name>, \"arguments\": <args-json-object>}}\n"
    "</tool_call>"
)


def call_opening(name: str) -> str:
    """How the model opens its one call to the tool `name`, up to the arguments (which it writes next, starting with
    a space): given to it rather than generated when only one tool may be called. Without Qwen's <tool_call> tag:
    a call the embedded model writes on one line starts with `{"name"` (these tokens); otherwise it writes a fenced,
    indented block (twice the tokens, and some fail their schema) or the bare arguments (which fail)."""
    return "{\"name\": " + json.dumps(name, ensure_ascii=False) + ", \"arguments\":"


@contextmanager
def opened_calls(model: Any) -> Iterator[None]:
    """Within this block, the local model is handed the opening of a call to the only tool it may call
    (`call_opening`) instead of writing those tokens itself: fewer tokens generated per call, and no reply that
    starts as a fenced block or as the bare arguments (both fail the call's schema and cost a second, grammar-bound
    generation). A model without the setting is left as it is."""
    if not hasattr(model, "open_single_calls"):
        yield
        return
    before = model.open_single_calls
    model.open_single_calls = True
    try:
        yield
    finally:
        model.open_single_calls = before


def described(tools: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """The tools as the model is shown them: a tool's `shown` parameters (a short form, the same for every call of a
    step, so that it stays in the kept prompt prefix) in place of the parameters its calls are checked and
    constrained by (which may list each call's own choices as enums, already listed in the user's turn)."""
    if not tools:
        return tools
    return [{"type": t.get("type", "function"), "function": {**t["function"], "parameters": t["shown"]}}
            if "shown" in t else t for t in tools]


def render_qwen_system(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The system turn of the Qwen2.5 chat template (instructions and tool schemas): the stable start of a prompt."""
    system = ""
    if messages and messages[0]["role"] == "system":
        system = messages[0]["content"] or ""
    if tools:
        system += _TOOLS_PREAMBLE.format(tools="\n".join(json.dumps(t, separators=(",", ":"))
                                                         for t in described(tools) or []))
    return f"<|im_start|>system\n{system}<|im_end|>\n"


def render_qwen(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
    """The Qwen2.5 chat template (with its native tool format) as text, ending at the assistant's turn."""
    out = [render_qwen_system(messages, tools)]
    msgs = list(messages)
    if msgs and msgs[0]["role"] == "system":
        msgs.pop(0)
    i = 0
    while i < len(msgs):
        m = msgs[i]
        if m["role"] == "tool":
            parts = []
            while i < len(msgs) and msgs[i]["role"] == "tool":
                parts.append(f"<tool_response>\n{msgs[i]['content']}\n</tool_response>")
                i += 1
            out.append("<|im_start|>user\n" + "\n".join(parts) + "<|im_end|>\n")
            continue
        if m["role"] == "assistant":
            text = m.get("content") or ""
            for c in m.get("tool_calls") or []:
                fn = c["function"]
                try:
                    args = json.loads(fn["arguments"])
                except (json.JSONDecodeError, TypeError):
                    args = fn["arguments"]
                call = json.dumps({"name": fn["name"], "arguments": args}, ensure_ascii=False)
                text += ("\n" if text else "") + f"<tool_call>\n{call}\n</tool_call>"
            out.append(f"<|im_start|>assistant\n{text}<|im_end|>\n")
        else:
            out.append(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n")
        i += 1
    out.append("<|im_start|>assistant\n")
    return "".join(out)


def call_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """JSON Schema of one call to any of `tools`: {"name": <const>, "arguments": <its parameters>}."""
    options = [{"type": "object",
                "properties": {"name": {"const": t["function"]["name"]},
                               "arguments": t["function"].get("parameters") or {"type": "object"}},
                "required": ["name", "arguments"]} for t in tools]
    return options[0] if len(options) == 1 else {"anyOf": options}

STOP = ["<|im_end|>", "</tool_call>"]


def parse_call(text: str, tools: list[dict[str, Any]], call_id: str) -> list[ToolCall]:
    """The call in a local model's `text` if it is valid JSON that fits the call schema of `tools`, else []."""
    import jsonschema

    start = text.find("{")
    try:
        obj, _ = json.JSONDecoder().raw_decode(text[start:]) if start >= 0 else (None, 0)
    except json.JSONDecodeError:
        return []
    if isinstance(obj, dict) and "arguments" not in obj and isinstance(obj.get("parameters"), dict):
        obj = {"name": obj.get("name"), "arguments": obj["parameters"]}  # the Llama 3 family's way of writing it
    checker = jsonschema.Draft202012Validator(call_schema(tools))
    if not checker.is_valid(obj):
        obj = _pruned(obj, call_schema(tools))  # keys the schema does not have ("value": "900" beside "of"): dropped
        if not checker.is_valid(obj):
            return []
    return [ToolCall(call_id, obj["name"], json.dumps(obj["arguments"], ensure_ascii=False))]


def _pruned(obj: Any, schema: dict[str, Any]) -> Any:
    """`obj` without the keys that a closed object of `schema` (additionalProperties false) does not name, at every
    level the schema describes (properties, items, prefixItems, the first anyOf branch that names the object's
    `name`): what the model added beside the arguments asked for. Nothing else changes; the result is checked again."""
    if isinstance(obj, dict):
        if "anyOf" in schema:
            for branch in schema["anyOf"]:
                const = branch.get("properties", {}).get("name", {}).get("const")
                if const is None or const == obj.get("name"):
                    return _pruned(obj, branch)
            return obj
        props = schema.get("properties", {})
        closed = schema.get("additionalProperties") is False
        return {k: _pruned(v, props.get(k, {})) for k, v in obj.items() if not closed or k in props}
    if isinstance(obj, list):
        first = schema.get("prefixItems", [])
        rest = schema.get("items", {})
        return [_pruned(v, first[i] if i < len(first) else rest if isinstance(rest, dict) else {})
                for i, v in enumerate(obj)]
    return obj


class GGUFTemplate:
    """A model's own chat template (the GGUF's `tokenizer.chat_template`, a Jinja2 template), for a local model of
    another family than the embedded one (`--model-path`): rendered with llama-cpp-python's Jinja2 formatter, as
    llama.cpp's server does. The conversation is given to it in the roles every template knows: the tools, when
    the template does not take them itself, are described in the system message (Qwen's tool format, a JSON object
    {"name", "arguments"} between <tool_call> tags); a tool call is the assistant's text and a tool's result a user
    message. A template that refuses a system message gets it in front of the first user message."""

    def __init__(self, template: str, eos: str, bos: str) -> None:
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self.template = template
        self.formatter = Jinja2ChatFormatter(template, eos, bos)
        self.bos = bos
        self.takes_tools = "tools" in template
        self.stop = [s for s in (eos, "</tool_call>") if s]

    @classmethod
    def of(cls, llm: Any) -> "GGUFTemplate | None":
        """The template of a loaded model; None when its GGUF has none."""
        template = (getattr(llm, "metadata", None) or {}).get("tokenizer.chat_template")
        if not template:
            return None

        def text(token: int) -> str:
            try:
                return llm.detokenize([token], special=True).decode("utf-8", "replace") if token >= 0 else ""
            except TypeError:  # older llama-cpp-python: no `special`
                return llm.detokenize([token]).decode("utf-8", "replace") if token >= 0 else ""

        return cls(template, text(llm.token_eos()), text(llm.token_bos()))

    @staticmethod
    def plain_messages(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                       describe_tools: bool) -> list[dict[str, str]]:
        out: list[dict[str, str]] = []
        for m in messages:
            role, content = m["role"], m.get("content") or ""
            if role == "tool":
                content, role = f"<tool_response>\n{content}\n</tool_response>", "user"
            elif role == "assistant" and m.get("tool_calls"):
                calls = []
                for c in m["tool_calls"]:
                    try:
                        args = json.loads(c["function"]["arguments"])
                    except (json.JSONDecodeError, TypeError):
                        args = c["function"]["arguments"]
                    calls.append("<tool_call>\n" + json.dumps({"name": c["function"]["name"], "arguments": args},
                                                               ensure_ascii=False) + "\n</tool_call>")
                content = "\n".join([content, *calls]) if content else "\n".join(calls)
            if out and out[-1]["role"] == role == "user":  # several tool results: one message
                out[-1]["content"] += "\n" + content
            else:
                out.append({"role": role, "content": content})
        if tools and describe_tools:
            preamble = _TOOLS_PREAMBLE.format(tools="\n".join(json.dumps(t, separators=(",", ":")) for t in tools))
            if out and out[0]["role"] == "system":
                out[0]["content"] += preamble
            else:
                out.insert(0, {"role": "system", "content": preamble.strip()})
        return out

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        tools = described(tools)
        plain = self.plain_messages(messages, tools, describe_tools=not self.takes_tools)
        given = tools if tools and self.takes_tools else None
        try:
            return self.formatter(messages=plain, tools=given).prompt
        except Exception:  # noqa: BLE001 - a template that refuses a system turn (it raises): merged into the user's
            if not plain or plain[0]["role"] != "system":
                raise
            system, rest = plain[0]["content"], plain[1:]
            if rest and rest[0]["role"] == "user":
                rest[0] = {"role": "user", "content": f"{system}\n\n{rest[0]['content']}"}
            else:
                rest.insert(0, {"role": "user", "content": system})
            return self.formatter(messages=rest, tools=given).prompt
