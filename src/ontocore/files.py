"""Reading input files, with one clear InputError per problem (missing, directory, unreadable, empty,
binary, an encoding that cannot be told, broken JSON) naming the file and the spot.

Text encodings: a byte order mark decides (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE); without one, UTF-16 is
recognised by its zero bytes, then the text is read as UTF-8, and failing that as Windows-1252 (cp1252, what
Excel and older Windows editors save), with a warning naming the encoding used. Only a file that is none of
these is refused."""

from __future__ import annotations

import codecs
import json
import logging
from pathlib import Path
from typing import Any

from .errors import InputError

log = logging.getLogger(__name__)

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
UTF8 = "utf-8"
ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with a byte order mark", "utf-16": "UTF-16",
                  "utf-16-le": "UTF-16 LE (no byte order mark)", "utf-16-be": "UTF-16 BE (no byte order mark)",
                  "utf-32": "UTF-32", "cp1252": "Windows-1252 (cp1252)"}


def _read_bytes(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file.") from None
    except IsADirectoryError:
        raise InputError(f"{path} is a directory, not a file.") from None
    except OSError as e:
        raise InputError(f"{path} cannot be read: {e.strerror}.") from None
    return raw


def _utf16_without_bom(raw: bytes) -> str:
    """'utf-16-le' / 'utf-16-be' when most code units of the start have a zero high byte (text in UTF-16 without a
    byte order mark), else ''."""
    head = raw[:4096]
    if len(head) < 4:
        return ""
    even, odd = head[0::2], head[1::2]
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return ""


def decode_text(raw: bytes, path: Path) -> tuple[str, str]:
    """(text, codec) of a text file's bytes (see the module docstring for the order); InputError when the bytes
    are binary or in no encoding that can be told."""
    codec = next((name for bom, name in _BOMS if raw.startswith(bom)), "") or _utf16_without_bom(raw)
    if codec:
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError as e:
            raise InputError(f"{path} starts as {ENCODING_NAMES.get(codec, codec)} text but is not (bad bytes at "
                             f"offset {e.start}); save it as UTF-8.") from None
        text = text.lstrip("\ufeff")
        if "\x00" in text[:4096]:
            raise InputError(f"{path} looks like a binary file, not JSON or text.")
        return text, codec
    if b"\x00" in raw[:4096]:
        raise InputError(f"{path} looks like a binary file, not JSON or text.")
    try:
        return raw.decode(UTF8), UTF8
    except UnicodeDecodeError as first:
        try:
            return raw.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            raise InputError(f"{path} is not text in UTF-8, UTF-16 or Windows-1252 (cp1252): byte "
                             f"0x{raw[first.start]:02x} at offset {first.start} is not valid UTF-8; save the file "
                             "as UTF-8 and build again.") from None


def is_utf8(codec: str) -> bool:
    return codec in (UTF8, "utf-8-sig")


def read_text(path: Path) -> tuple[str, str]:
    """(text, codec) of a text file; a warning names the encoding when it is not UTF-8 (with or without a byte
    order mark)."""
    raw = _read_bytes(path)
    if not raw.strip():
        raise InputError(f"{path} is empty.")
    text, codec = decode_text(raw, path)
    if not text.strip():
        raise InputError(f"{path} is empty.")
    if not is_utf8(codec):
        log.warning("%s: read as %s", path, ENCODING_NAMES.get(codec, codec))
    return text, codec


def read_text_file(path: Path) -> str:
    """The text of a file, in whichever encoding it is (read_text)."""
    return read_text(path)[0]


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
