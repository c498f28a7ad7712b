"""The entities index as a JSON document: its format name, its JSON Schema (`schemas/entities_index.schema.json`)
and the check of a document against it before an index is made from it."""

from __future__ import annotations

import json
import logging
import re
from functools import lru_cache
from importlib import resources
from typing import Any

import jsonschema

from ontocore.errors import InputError

log = logging.getLogger(__name__)

FORMAT = "ontobuild-index/1"
BASE_IRI_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s<>\"{}|\\^`]*[#/]")


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    text = resources.files("ontobuild.schemas").joinpath("entities_index.schema.json").read_text("utf-8")
    return json.loads(text)


@lru_cache(maxsize=1)
def _fast_validator() -> Any:
    """The schema compiled by fastjsonschema (draft-07 semantics: the schema uses no 2020-12-only keyword), or None
    when it is not installed. It says valid or not ~100x faster than jsonschema on a big index; jsonschema then
    words the error of an invalid one."""
    try:
        import fastjsonschema
    except ImportError:
        return None
    data = dict(schema(), **{"$schema": "http://json-schema.org/draft-07/schema#"})
    try:
        return fastjsonschema.compile(data)
    except Exception as e:  # noqa: BLE001 - fall back to jsonschema alone
        log.debug("fastjsonschema cannot compile the index schema: %s", e)
        return None


def _valid_fast(data: Any) -> bool:
    fast = _fast_validator()
    if fast is None:
        return False
    import fastjsonschema

    try:
        fast(data)
    except fastjsonschema.JsonSchemaException:
        return False
    return True


def check_document(data: Any, origin: str, default_base: str) -> str:
    """The base IRI of an index document (`default_base` when it names none); InputError when the base IRI is not
    an absolute IRI ending in '#' or '/', or the document does not follow the JSON Schema (its first problem)."""
    base = data.get("base_iri", default_base) if isinstance(data, dict) else default_base
    if not isinstance(base, str) or not BASE_IRI_PATTERN.fullmatch(base):
        raise InputError(f"{origin} is not a valid entities index: base_iri {base!r} is not an absolute IRI "
                         "ending in '#' or '/' (e.g. http://example.org/onto#); spaces and <>\"{{}}|\\^` "
                         "are not allowed in IRIs.")
    errors = [] if _valid_fast(data) else sorted(jsonschema.Draft202012Validator(schema()).iter_errors(data),
                                                key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/" + "/".join(str(p) for p in e.absolute_path)
        more = f" ({len(errors) - 1} more problem(s) after this one)" if len(errors) > 1 else ""
        raise InputError(f"{origin} is not a valid entities index: at {where}: {e.message}{more}.")
    return base
