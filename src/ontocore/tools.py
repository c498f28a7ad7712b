"""Tools: a plain typed function whose docstring is its description and whose JSON Schema comes from its signature.

    @tool
    def add_class(name: str, superclasses: list[str] = []) -> str:
        \"\"\"Add a class.

        Args:
            name: the class name, CamelCase
        \"\"\"

Arguments are validated with jsonschema before the function runs; a bad call raises ToolArgumentError
with a message the model can act on."""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from dataclasses import dataclass
from typing import Any, Callable, Literal

import jsonschema

from .errors import ToolArgumentError

_PRIMITIVES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def type_schema(tp: Any) -> dict[str, Any]:
    """JSON Schema for a Python annotation (str, int, float, bool, Literal, list[...], dict, TypedDict, X | None)."""
    origin = typing.get_origin(tp)
    if tp in _PRIMITIVES:
        return {"type": _PRIMITIVES[tp]}
    if origin is Literal:
        return {"enum": list(typing.get_args(tp))}
    if origin in (list, tuple, set) or tp in (list, tuple, set):
        args = typing.get_args(tp)
        return {"type": "array", "items": type_schema(args[0])} if args else {"type": "array"}
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return type_schema(args[0]) if len(args) == 1 else {"anyOf": [type_schema(a) for a in args]}
    if typing.is_typeddict(tp):
        hints = typing.get_type_hints(tp)
        return {"type": "object", "properties": {k: type_schema(v) for k, v in hints.items()},
                "required": sorted(tp.__required_keys__)}
    if tp is dict or origin is dict:
        return {"type": "object"}
    if tp is Any:
        return {}
    raise TypeError(f"no JSON Schema for annotation {tp!r}")


def _doc_parts(fn: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    doc = inspect.getdoc(fn) or ""
    desc, _, args = doc.partition("Args:")
    params: dict[str, str] = {}
    current = None
    for line in args.splitlines():
        m = re.match(r"\s*(\w+):\s*(.*)", line)
        if m and (not line.startswith(" " * 8) or current is None):
            current = m.group(1)
            params[current] = m.group(2).strip()
        elif current and line.strip():
            params[current] += " " + line.strip()
    return " ".join(desc.split()), params


@dataclass
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]
    terminal: bool = False  # calling it ends the agent loop with its result
    shown: dict[str, Any] | None = None  # the parameters as a local model is shown them, when shorter than the
    # checked ones (templates.described); its calls are still checked, and constrained, by `parameters`

    def spec(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "function", "function": {"name": self.name, "description": self.description,
                                                                "parameters": self.parameters}}
        if self.shown is not None:
            out["shown"] = self.shown
        return out

    def parse_arguments(self, raw: str | dict[str, Any]) -> dict[str, Any]:
        """Parse and validate arguments, or raise ToolArgumentError saying precisely what is wrong."""
        if isinstance(raw, str):
            try:
                args = json.loads(raw or "{}")
            except json.JSONDecodeError as e:
                raise ToolArgumentError(f"Arguments of {self.name} are not valid JSON ({e.msg}); "
                                        "send a JSON object.") from None
        else:
            args = raw
        if not isinstance(args, dict):
            raise ToolArgumentError(f"Arguments of {self.name} must be a JSON object.")
        errors = sorted(jsonschema.Draft202012Validator(self.parameters).iter_errors(args),
                        key=lambda e: list(e.absolute_path))
        if errors:
            e = errors[0]
            where = ".".join(str(p) for p in e.absolute_path) or "arguments"
            raise ToolArgumentError(f"Invalid arguments for {self.name}: {where}: {e.message}.")
        return args

    def __call__(self, raw: str | dict[str, Any]) -> Any:
        return self.fn(**self.parse_arguments(raw))


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None, terminal: bool = False,
         schema: dict[str, dict[str, Any]] | None = None) -> Any:
    """Make a Tool of a typed function. `schema` overrides the derived schema of named parameters."""

    def make(f: Callable[..., Any]) -> Tool:
        desc, pdocs = _doc_parts(f)
        hints = typing.get_type_hints(f)
        props: dict[str, Any] = {}
        required = []
        for p in inspect.signature(f).parameters.values():
            s = dict((schema or {}).get(p.name) or type_schema(hints.get(p.name, str)))
            if p.name in pdocs:
                s["description"] = pdocs[p.name]
            props[p.name] = s
            if p.default is inspect.Parameter.empty:
                required.append(p.name)
        params = {"type": "object", "properties": props, "required": required, "additionalProperties": False}
        return Tool(name or f.__name__, desc, params, f, terminal)

    return make(fn) if fn is not None else make
