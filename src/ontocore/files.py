"""Reading input files, with one clear InputError per problem (missing, directory, unreadable, empty,
binary, an encoding that cannot be told, broken JSON) naming the file and the spot.

Text encodings: a byte order mark decides (UTF-8, UTF-16 LE/BE, UTF-32 LE/BE); without one, UTF-16 is
recognised by its zero bytes, then the text is read as UTF-8, and failing that in the Windows code page its letters
tell (codepages.py: 1252, what Excel saves in Western Europe, 1250, 1251, 1253, 1254, 1257), with a warning naming
the encoding used. A file whose lines mix UTF-8 and a code page (rows appended by two programs) is read line by line,
each line in the encoding it is valid in, with a warning; a line that mixes both within itself is refused, naming it.
Only a file that is none of these is refused. The user may name the encoding (`--encoding`): then it alone is used."""

from __future__ import annotations

import codecs
import hashlib
import json
import logging
from pathlib import Path
from typing import Any

from .codepages import NAMES as CODEPAGE_NAMES
from .codepages import guess_codepage
from .errors import InputError

log = logging.getLogger(__name__)

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))
UTF8 = "utf-8"
ENCODING_NAMES = {"utf-8": "UTF-8", "utf-8-sig": "UTF-8 with a byte order mark", "utf-16": "UTF-16",
                  "utf-16-le": "UTF-16 LE (no byte order mark)", "utf-16-be": "UTF-16 BE (no byte order mark)",
                  "utf-32": "UTF-32", **CODEPAGE_NAMES}
MIXED = "+"  # a codec "utf-8+cp1252": lines in UTF-8 and lines in the code page


def encoding_name(codec: str) -> str:
    """How a codec is named in messages ("Windows-1252 (cp1252)"; "UTF-8 and, on the lines that are not, ...")."""
    if MIXED in codec:
        first, second = codec.split(MIXED, 1)
        return f"{encoding_name(first)} and, on the lines that are not, {encoding_name(second)}"
    return ENCODING_NAMES.get(codec, codec)


def check_encoding(name: str) -> str:
    """The codec of an encoding the user named (`--encoding`), or InputError."""
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        raise InputError(f"--encoding {name!r} is not an encoding Python knows (for example utf-8, cp1252, cp1250, "
                         "cp1251, latin-1).") from None
    return "utf-8-sig" if codec == "utf-8" else codec


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


def decode_text(raw: bytes, path: Path, encoding: str | None = None) -> tuple[str, str]:
    """(text, codec) of a text file's bytes (see the module docstring for the order); `encoding`: the codec the user
    named, the only one then. InputError when the bytes are binary or in no encoding that can be told."""
    if encoding:
        return decode_as(raw, path, encoding), encoding
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
        return _not_utf8(raw, path, first)


def decode_as(raw: bytes, path: Path, codec: str) -> str:
    """`raw` decoded in the codec the user named; InputError naming the first line that is not in it."""
    try:
        return raw.decode(codec).lstrip("\ufeff")
    except UnicodeDecodeError as e:
        line = raw.count(b"\n", 0, e.start) + 1
        raise InputError(f"{path} is not {encoding_name(codec)} throughout: line {line} has the byte "
                         f"0x{raw[e.start]:02x}, which {codec} does not read; name another --encoding, or leave it "
                         "out to have the encoding told line by line.") from None


def _not_utf8(raw: bytes, path: Path, first: UnicodeDecodeError) -> tuple[str, str]:
    """A text that is not UTF-8 throughout: in one code page, or in lines of UTF-8 and lines of one code page."""
    lines = raw.splitlines(keepends=True)
    other: list[int] = []  # the lines that are not UTF-8
    utf8 = False  # a line that holds more than ASCII is UTF-8
    for i, line in enumerate(lines):
        try:
            line.decode(UTF8)
        except UnicodeDecodeError:
            other.append(i)
            continue
        utf8 = utf8 or not line.isascii()
    where = raw.count(b"\n", 0, first.start) + 1
    codepage = guess_codepage(raw if not utf8 else b"".join(lines[i] for i in other))
    if codepage is None:
        raise InputError(f"{path} is not text in UTF-8, UTF-16 or a Windows code page that can be told: byte "
                         f"0x{raw[first.start]:02x} on line {where} is not valid UTF-8; save the file as UTF-8 (or "
                         "name its encoding with --encoding) and build again.") from None
    if not utf8:
        return raw.decode(codepage), codepage
    for i in other:
        if any(ch >= "\x80" and not "\udc80" <= ch <= "\udcff" for ch in lines[i].decode(UTF8, "surrogateescape")):
            raise InputError(f"{path}: line {i + 1} mixes UTF-8 and {encoding_name(codepage)} characters (other "
                             f"lines are in one or the other); save the file in one encoding (UTF-8) and build "
                             "again.")
    rest = set(other)
    text = "".join(line.decode(codepage if i in rest else UTF8) for i, line in enumerate(lines))
    log.warning("%s: %d line(s) are not UTF-8 (the first: line %d) and were read as %s, the others as UTF-8", path,
                len(other), other[0] + 1, encoding_name(codepage))
    return text, f"{UTF8}{MIXED}{codepage}"


def is_utf8(codec: str) -> bool:
    return codec in (UTF8, "utf-8-sig")


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in blocks (hex)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_text(path: Path, encoding: str | None = None) -> tuple[str, str]:
    """(text, codec) of a text file (in `encoding` when the user named one); a warning names the encoding when it is
    not UTF-8 (with or without a byte order mark)."""
    raw = _read_bytes(path)
    if not raw.strip():
        raise InputError(f"{path} is empty.")
    text, codec = decode_text(raw, path, encoding)
    if not text.strip():
        raise InputError(f"{path} is empty.")
    if not is_utf8(codec) and not encoding and MIXED not in codec:  # lines of two encodings: said by _not_utf8
        log.warning("%s: read as %s", path, encoding_name(codec))
    return text, codec


def read_text_file(path: Path, encoding: str | None = None) -> str:
    """The text of a file, in whichever encoding it is (read_text)."""
    return read_text(path, encoding)[0]


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


def read_json_file(path: Path, encoding: str | None = None) -> Any:
    """Parse a JSON file, or raise InputError naming the file and the spot. Duplicate keys in an object are
    refused (a parser would keep only the last value); NaN is read as an empty value."""
    text = read_text_file(path, encoding)
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
