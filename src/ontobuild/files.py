"""Reading input files, with one clear InputError per problem (missing, directory, unreadable, empty,
binary, not UTF-8, broken JSON) naming the file and the spot."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from .errors import InputError

log = logging.getLogger(__name__)


def read_text_file(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a file.") from None
    except OSError as e:
        raise InputError(f"{path} cannot be read: {e.strerror}.") from None
    if not raw.strip():
        raise InputError(f"{path} is empty.")
    if b"\x00" in raw[:4096]:
        raise InputError(f"{path} looks like a binary file, not JSON or text.")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(f"{path} is not UTF-8 text (bad byte at offset {e.start}).") from None


MAX_DEPTH = 100  # nesting of JSON objects and lists; company data is far shallower, and walkers recurse


class _DuplicateKey(ValueError):
    def __str__(self) -> str:
        return f"the key {str(self.args[0])!r} appears twice in one object"


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _constant(name: str) -> Any:
    """NaN (what table exports write for an empty cell) is an empty value; +-Infinity stay as their text."""
    return None if name == "NaN" else name


def _number(text: str) -> Any:
    """A JSON number; one too large for a float (1e999) or with more digits than Python converts stays text."""
    if len(text) > 4000:
        return text
    value = float(text) if any(c in text for c in ".eE") else int(text)
    return text if value in (float("inf"), float("-inf")) else value


def _fix_text(text: str) -> tuple[str, int]:
    """`text` with lone surrogates (from escapes such as \\ud800) replaced by U+FFFD, and how many there were."""
    try:
        text.encode("utf-8")
        return text, 0
    except UnicodeEncodeError:
        lone = sum(1 for ch in text if 0xD800 <= ord(ch) <= 0xDFFF)
        return "".join("\ufffd" if 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in text), lone


def _check_tree(path: Path, data: Any) -> Any:
    """Refuse nesting deeper than MAX_DEPTH; repair lone surrogates in keys and strings (counted, logged)."""
    fixed = 0
    stack: list[tuple[Any, int]] = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError(f"{path} is nested more than {MAX_DEPTH} levels deep; flatten it (records as a list "
                             "of objects) before building.")
        if isinstance(node, dict):
            for key in list(node):
                value = node[key]
                if isinstance(value, str):
                    value, n = _fix_text(value)
                    fixed += n
                new_key, n = _fix_text(key)
                fixed += n
                if new_key != key:
                    del node[key]
                node[new_key] = value
                if isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
        elif isinstance(node, list):
            for i, value in enumerate(node):
                if isinstance(value, str):
                    node[i], n = _fix_text(value)
                    fixed += n
                elif isinstance(value, (dict, list)):
                    stack.append((value, depth + 1))
    if isinstance(data, str):
        data, fixed = _fix_text(data)
    if fixed:
        log.warning("%s: %d invalid character(s) (lone surrogate escapes) replaced by U+FFFD", path, fixed)
    return data


def read_json_file(path: Path) -> Any:
    """Parse a JSON file, or raise InputError naming the file and the spot. Duplicate keys in an object are
    refused (a parser would keep only the last value); NaN is read as an empty value."""
    text = read_text_file(path)
    try:
        data = json.loads(text, object_pairs_hook=unique_keys, parse_constant=_constant, parse_float=_number,
                          parse_int=_number)
    except json.JSONDecodeError as e:
        raise InputError(f"{path} is not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}.") from None
    except _DuplicateKey as e:
        raise InputError(f"{path}: the key {str(e.args[0])!r} appears twice in one JSON object, so one of its "
                         "values would be lost; rename one of them or make the values a list.") from None
    except RecursionError:
        raise InputError(f"{path} is nested more than {MAX_DEPTH} levels deep; flatten it (records as a list of "
                         "objects) before building.") from None
    return _check_tree(path, data)
