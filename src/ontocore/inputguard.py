"""Refuse RDF files that would make a parser reach the network, read other files, or expand without bound.

Run before any parser (Oxigraph's or rdflib's) sees a file; InputError names the file and says why.

- RDF/XML: the XML prolog is read (at most 1 MB, before the root element). A DOCTYPE may declare internal
  entities with plain values (as Protégé writes: ``<!ENTITY owl "http://www.w3.org/2002/07/owl#">``); refused
  are an external DTD or external entities (SYSTEM / PUBLIC: XXE, a request or a local file read), parameter
  entities, entity values with references (``&a;`` or ``&#38;``: nested entities, the "billion laughs"), more
  than `MAX_ENTITIES` entities or values longer than `MAX_ENTITY_VALUE` characters. When entities are declared
  the whole file is scanned and the size their references would expand to is bounded (the quadratic blow-up).
- JSON-LD: every ``@context`` (at any depth) and every ``@import`` must be inline: a context given by IRI
  (remote, or a relative file) is refused, as rdflib's parser would fetch it. The one exception is schema.org's
  context (``"@context": "https://schema.org"`` and its spellings), which is replaced by a copy bundled with the
  package (`schemaorg_context.jsonld`, never fetched) before any parser reads the file (`jsonld_text`).
- OWL/XML: the same XML checks as RDF/XML; the converter (owlxml.py) then reads it with defusedxml.
- Turtle, N-Triples and N3 have no way to include anything. ``owl:imports`` is a triple like any other: neither
  parser follows it, and nothing here does."""

from __future__ import annotations

import codecs
import json
import logging
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Iterator

from .errors import InputError

log = logging.getLogger(__name__)

MAX_PROLOG = 1 << 20  # bytes read to find the root element
MAX_ENTITIES = 1000
MAX_ENTITY_VALUE = 4096
MAX_EXPANSION = 64 << 20  # characters that entity references may add, on top of the file's own size

_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8-sig"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
         # no byte order mark: the first '<' tells (XML 1.0, appendix F)
         (b"<\0\0\0", "utf-32-le"), (b"\0\0\0<", "utf-32-be"), (b"<\0", "utf-16-le"), (b"\0<", "utf-16-be"))
_DECLARED = re.compile(r"""^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']""")
_NAME = r"[^\s<>&%;\"'\[\]()|,=/?!]+"
_PROLOG_ITEM = re.compile(r"\s+|<\?.*?\?>|<!--.*?-->", re.DOTALL)
_DOCTYPE = re.compile(rf"<!DOCTYPE\s+({_NAME})\s*", re.DOTALL | re.IGNORECASE)
_SUBSET_ITEM = re.compile(
    r"\s+|<!--.*?-->|<\?.*?\?>"
    rf"|<!ENTITY\s+(?P<pe>%\s+)?(?P<name>{_NAME})\s+(?P<rest>(?:\"[^\"]*\"|'[^']*'|[^>\"'])*)>"
    r"|<!(?:ELEMENT|ATTLIST|NOTATION)\s(?:\"[^\"]*\"|'[^']*'|[^>\"'])*>",
    re.DOTALL | re.IGNORECASE)  # upper case in XML, but a lenient parser may take lower case too


def check_file(path: Path, fmt: str) -> None:
    """InputError if `path` (in rdflib's format `fmt`) could reach outside itself or expand without bound."""
    if fmt in ("xml", "owl-xml"):
        check_xml(path)
    elif fmt == "json-ld":
        check_jsonld(path)


# ---- RDF/XML -------------------------------------------------------------------------------------------
def _decode(head: bytes, path: Path) -> tuple[str, str]:
    """The text of `head` and its codec (from a byte order mark, the XML declaration, or UTF-8)."""
    for bom, name in _BOMS:
        if head.startswith(bom):
            return head.decode(name, "replace").lstrip("\ufeff"), name
    declared = _DECLARED.match(head[:200].decode("latin-1"))
    codec = "utf-8"
    if declared:
        try:
            codec = codecs.lookup(declared.group(1)).name
        except LookupError:
            raise InputError(f"{path}: its XML encoding {declared.group(1)!r} is unknown.") from None
    return head.decode(codec, "replace"), codec


def _text(head: bytes, path: Path) -> tuple[str, str]:
    text, codec = _decode(head, path)
    if "\0" in text:
        raise InputError(f"{path} is refused: it is not XML text in an encoding that can be checked (it has NUL "
                         "characters); write it in UTF-8.")
    return text, codec


def _refuse(path: Path, why: str) -> InputError:
    return InputError(f"{path} is refused: {why}. Nothing was read from outside the file; remove the DOCTYPE "
                      "(or replace its entities by their values) and load it again.")


def xml_entities(path: Path) -> tuple[dict[str, str], str]:
    """The internal entities the DOCTYPE of the XML file `path` declares (name -> value), and the file's codec;
    InputError for anything else a DOCTYPE could do (see the module docstring)."""
    with path.open("rb") as f:
        head = f.read(MAX_PROLOG + 1)
    text, codec = _text(head, path)
    pos = 0
    while True:  # the prolog: XML declaration, comments, processing instructions, white space
        m = _PROLOG_ITEM.match(text, pos)
        if not m:
            break
        pos = m.end()
    doctype = _DOCTYPE.match(text, pos)
    if not doctype:
        if len(head) > MAX_PROLOG and text.find("<", pos) < 0:
            raise _refuse(path, "no root element in its first megabyte")
        return {}, codec
    pos = doctype.end()
    if text[pos:pos + 6].upper() in ("SYSTEM", "PUBLIC"):
        raise _refuse(path, "its DOCTYPE names an external DTD (SYSTEM or PUBLIC), which could be fetched")
    entities: dict[str, str] = {}
    if text.startswith("[", pos):
        pos += 1
        while not text.startswith("]", pos):
            m = _SUBSET_ITEM.match(text, pos)
            if not m:
                if len(head) > MAX_PROLOG:
                    raise _refuse(path, "its DOCTYPE is longer than 1 MB")
                if text.startswith("%", pos):
                    raise _refuse(path, "its DOCTYPE uses parameter entities")
                raise _refuse(path, f"its DOCTYPE has a declaration that is not allowed or not well formed "
                                    f"near {text[pos:pos + 40]!r}")
            pos = m.end()
            if m.group("name"):
                _entity(path, m, entities)
    return entities, codec


def _entity(path: Path, m: re.Match[str], entities: dict[str, str]) -> None:
    name, rest = m.group("name"), m.group("rest").strip()
    if m.group("pe"):
        raise _refuse(path, f"its DOCTYPE declares the parameter entity %{name}")
    value = re.fullmatch(r"\"([^\"]*)\"|'([^']*)'", rest)
    if not value:  # SYSTEM "..." or PUBLIC "..." "...": an external entity
        raise _refuse(path, f"its DOCTYPE declares the external entity &{name}; ({' '.join(rest.split())[:80]}), "
                            "which could be fetched or read from the disk")
    text = value.group(1) if value.group(1) is not None else value.group(2)
    if "&" in text or "%" in text:
        raise _refuse(path, f"the value of its entity &{name}; refers to other entities (nested entities can "
                            "expand to gigabytes)")
    if len(text) > MAX_ENTITY_VALUE:
        raise _refuse(path, f"the value of its entity &{name}; is longer than {MAX_ENTITY_VALUE} characters")
    if len(entities) >= MAX_ENTITIES:
        raise _refuse(path, f"its DOCTYPE declares more than {MAX_ENTITIES} entities")
    entities.setdefault(name, text)


def _references(path: Path, names: set[str]) -> Iterator[str]:
    """The entity references `&name;` in the file, for the given names (read in blocks)."""
    pattern = re.compile(rb"&(" + rb"|".join(re.escape(n.encode("utf-8")) for n in
                                             sorted(names, key=len, reverse=True)) + rb");")
    longest = max(len(n.encode("utf-8")) for n in names) + 2
    tail = b""
    with path.open("rb") as f:
        while True:
            block = f.read(1 << 22)
            data = tail + block
            # a reference may straddle two blocks: keep the last '&' near the end for the next block (a name has
            # no '&', so no reference found before it ends after it)
            split = data.rfind(b"&", max(len(data) - longest, 0)) if block else -1
            split = len(data) if split < 0 else split
            for m in pattern.finditer(data, 0, split):
                yield m.group(1).decode("utf-8")
            tail = data[split:]
            if not block:
                return


def check_xml(path: Path) -> None:
    """InputError if the RDF/XML file `path` could fetch, read other files, or expand without bound."""
    entities, codec = xml_entities(path)
    if not entities:
        return
    if codec.startswith(("utf-16", "utf-32")):
        raise _refuse(path, f"it declares entities and is encoded in {codec.upper()} (write it in UTF-8)")
    size = path.stat().st_size
    added = 0
    for name in _references(path, set(entities)):
        added += len(entities[name])
        if added > MAX_EXPANSION + 2 * size:
            raise _refuse(path, f"its entity references would expand it by more than "
                                f"{(MAX_EXPANSION + 2 * size) >> 20} MB")


# ---- JSON-LD -------------------------------------------------------------------------------------------
SCHEMA_ORG_CONTEXTS = {"schema.org", "schema.org/docs/jsonldcontext.jsonld", "schema.org/docs/jsonldcontext.json"}


def is_schema_org(iri: str) -> bool:
    """Whether a context IRI names schema.org's context (http or https, with or without www. and a final '/')."""
    text = iri.strip().lower()
    for scheme in ("https://", "http://"):
        if text.startswith(scheme):
            text = text[len(scheme):]
            break
    else:
        return False
    text = text.removeprefix("www.").rstrip("/")
    return text in SCHEMA_ORG_CONTEXTS


@lru_cache(maxsize=1)
def schema_org_context() -> dict[str, Any]:
    """The bundled schema.org context (its "@context" object)."""
    text = resources.files("ontocore").joinpath("schemaorg_context.jsonld").read_text("utf-8")
    return json.loads(text)["@context"]


def _substitute(node: Any) -> Any:
    """`node` with every schema.org context IRI (in @context, alone or in a list) replaced by the bundled context."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "@context":
                    if isinstance(value, str) and is_schema_org(value):
                        item[key] = schema_org_context()
                    elif isinstance(value, list):
                        item[key] = [schema_org_context() if isinstance(c, str) and is_schema_org(c) else c
                                     for c in value]
                        stack.extend(c for c in item[key] if isinstance(c, dict) and c is not schema_org_context())
                    elif isinstance(value, dict):
                        stack.append(value)
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return node


def _external_contexts(node: Any) -> Iterator[str]:
    """The contexts given by IRI (strings) in every @context and @import under `node`."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "@context":
                    for ctx in value if isinstance(value, list) else [value]:
                        if isinstance(ctx, str):
                            yield ctx
                        else:
                            stack.append(ctx)
                elif key == "@import" and isinstance(value, str):
                    yield value
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as e:
        raise InputError(f"{path} could not be read as JSON-LD: {' '.join(str(e).split())[:300]}") from None
    except RecursionError:
        raise InputError(f"{path} could not be read as JSON-LD: it is nested too deeply.") from None
    except OSError as e:
        raise InputError(f"{path} cannot be read: {e.strerror}.") from None


def _refuse_external(path: Path, data: Any) -> None:
    for iri in _external_contexts(data):
        raise InputError(f"{path} is refused: its JSON-LD @context refers to {iri[:200]!r}, which would be "
                         "fetched; nothing is fetched from outside the file: put the context inline in the file "
                         "(as a JSON object). Only schema.org's context is known without fetching it.")


def check_jsonld(path: Path) -> None:
    """InputError if the JSON-LD file `path` names a context by IRI (rdflib would fetch it), other than schema.org's
    (replaced by the bundled copy when read, see jsonld_text)."""
    _refuse_external(path, _substitute(_load_json(path)))


def jsonld_text(path: Path) -> str:
    """The JSON-LD of `path` as a parser may read it: schema.org contexts replaced by the bundled one, and no other
    context given by IRI (InputError)."""
    data = _substitute(_load_json(path))
    _refuse_external(path, data)
    return json.dumps(data, ensure_ascii=False)


__all__ = ["check_file", "check_xml", "check_jsonld", "jsonld_text", "is_schema_org", "xml_entities"]
