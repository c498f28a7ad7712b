"""The relational view saved beside a persisted store: a big-graph outcome (`OUTCOME/store/`, written by ontobuild)
or an `ontoask --store-path` folder carries the view of its graph (sqlplan/schema.py's Schema) in `view.json`, so
that opening it does not run the view's queries again. The first `ontoask` over the store makes it (for a big
graph with bounded queries: sqlplan/bigschema.py) and saves it when the folder can be written; ontobuild does not
(the builder imports nothing of the answerer), `prepare` makes it for a store at once.

The file is JSON (never a pickle: an outcome folder may come from someone else), written atomically, and holds
its format version and a key: SHA-256 over FORMAT, the source of the modules that shape a view (VIEW_MODULES) and
the store's manifest (the files the store was loaded from, by size and SHA-256, and its triple count). A file whose
key differs from the store's (another store, another version of the view's code) or that cannot be read is
ignored, and the view is built from the store (and saved again when the folder can be written). The value index
(linking.ValueIndex) is made from the view in memory: it is no query."""

from __future__ import annotations

import hashlib
import json
import logging
from collections import Counter
from functools import lru_cache
from pathlib import Path
from typing import Any

from rdflib import URIRef

from ontocore.folders import atomic_write
from ontocore.storefolder import MANIFEST

from .language.detection import LabelLanguages
from .sqlplan.schema import Column, Schema, Table

log = logging.getLogger(__name__)

FORMAT = 1
VIEW_FILE = "view.json"
# the modules whose code decides what a view holds (relative to src/): a change in one makes saved views stale
VIEW_MODULES = ("ontouse/sqlplan/schema.py", "ontouse/sqlplan/schema_build.py", "ontouse/sqlplan/schema_labels.py",
                "ontouse/sqlplan/schema_links.py", "ontouse/sqlplan/bigschema.py", "ontouse/storeview.py",
                "ontouse/language/detection.py", "ontocore/text.py")


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the source of VIEW_MODULES."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256()
    for name in VIEW_MODULES:
        h.update(name.encode("utf-8") + b"\0")
        try:
            h.update((root / name).read_bytes())
        except OSError:
            h.update(b"-")
    return h.hexdigest()


def store_key(folder: str | Path) -> str | None:
    """The key of the view of the store in `folder`, from its manifest; None without a readable manifest."""
    try:
        manifest = json.loads((Path(folder) / MANIFEST).read_text("utf-8"))
        files = [{"size": f["size"], "sha256": f["sha256"]} for f in manifest["files"]]
    except (OSError, ValueError, KeyError, TypeError) as e:
        log.debug("no view key for %s: %s", folder, e)
        return None
    h = hashlib.sha256(f"store-view-{FORMAT}\0{code_digest()}\0".encode("utf-8"))
    h.update(json.dumps({"files": files, "triples": manifest.get("triples")}, sort_keys=True).encode("utf-8"))
    return h.hexdigest()


# ---- the view as JSON ----------------------------------------------------------------------------------------
def _iri(x: Any) -> str | None:
    return None if x is None else str(x)


def _column_json(c: Column) -> dict[str, Any]:
    return {"name": c.name, "prop": _iri(c.prop), "kind": c.kind, "sql_type": c.sql_type, "datatype": c.datatype,
            "target": c.target, "count": c.count, "distinct": c.distinct, "subjects": c.subjects, "label": c.label,
            "comment": c.comment, "english": c.english, "samples": list(c.samples), "is_label": c.is_label,
            "key_of": c.key_of, "hidden": c.hidden, "via": c.via, "via_prop": _iri(c.via_prop), "inverse": c.inverse,
            "plain": c.plain, "canonical": c.canonical}


def _column(d: dict[str, Any]) -> Column:
    d = dict(d)
    for k in ("prop", "via_prop"):
        d[k] = URIRef(d[k]) if d.get(k) is not None else None
    return Column(**d)


def schema_json(schema: Schema) -> dict[str, Any]:
    """The view as plain JSON data."""
    return {
        "tables": [{"name": t.name, "cls": str(t.cls), "classes": [str(c) for c in t.classes],
                    "typed_all": t.typed_all, "count": t.count, "direct": t.direct, "label": t.label,
                    "comment": t.comment, "english": t.english, "parents": list(t.parents),
                    "columns": [_column_json(c) for c in t.columns.values()]} for t in schema.tables.values()],
        "values": [[str(p), sorted(v.items())] for p, v in schema.values.items()],
        "open_values": sorted(str(p) for p in schema.open_values),
        "sampled": schema.sampled,
        "label_props": [str(p) for p in schema.label_props],
        "languages": {"counts": dict(schema.languages.counts),
                      "words": {k: sorted(v) for k, v in schema.languages.words.items()}},
    }


def schema_of(data: dict[str, Any]) -> Schema:
    """The view from schema_json's data."""
    schema = Schema()
    for t in data["tables"]:
        table = Table(name=t["name"], cls=URIRef(t["cls"]), classes=tuple(URIRef(c) for c in t["classes"]),
                      typed_all=bool(t["typed_all"]), count=int(t["count"]), direct=int(t["direct"]),
                      label=t["label"], comment=t["comment"], english=t.get("english", ""),
                      parents=list(t["parents"]))
        for c in t["columns"]:
            col = _column(c)
            table.columns[col.name.lower()] = col
        schema.tables[table.name.lower()] = table
    schema.values = {URIRef(p): {str(v): int(n) for v, n in vals} for p, vals in data["values"]}
    schema.open_values = frozenset(URIRef(p) for p in data.get("open_values", ()))
    schema.sampled = int(data.get("sampled", 0))
    schema.label_props = tuple(URIRef(p) for p in data["label_props"])
    langs = data["languages"]
    schema.languages = LabelLanguages(Counter(langs["counts"]), {k: set(v) for k, v in langs["words"].items()})
    return schema


# ---- beside a store ------------------------------------------------------------------------------------------
def load(folder: str | Path | None) -> Schema | None:
    """The view saved beside the store in `folder` when it is there and its key is the store's; else None."""
    if folder is None:
        return None
    path = Path(folder) / VIEW_FILE
    if not path.is_file():
        return None
    key = store_key(folder)
    try:
        data = json.loads(path.read_text("utf-8"))
        if data.get("format") != FORMAT or key is None or data.get("key") != key:
            log.info("the view saved in %s is not this store's (another store or another version); building it",
                     path)
            return None
        schema = schema_of(data["schema"])
    except Exception as e:  # noqa: BLE001 - a damaged file is ignored, never fatal
        log.warning("the view saved in %s cannot be read (%s); building it", path, e)
        return None
    log.info("the view saved beside the store: %s", path)
    return schema


def save(folder: str | Path | None, schema: Schema) -> Path | None:
    """Save the view beside the store in `folder` (atomically); the file, or None when it cannot be written."""
    if folder is None:
        return None
    key = store_key(folder)
    if key is None:
        return None
    path = Path(folder) / VIEW_FILE
    try:
        atomic_write(path, json.dumps({"format": FORMAT, "key": key, "schema": schema_json(schema)},
                                      ensure_ascii=False))
    except OSError as e:  # a read-only outcome: the view is built again next time
        log.info("the view could not be saved in %s: %s", path, e)
        return None
    return path


def prepare(folder: str | Path) -> Path | None:
    """Build the view of the store in `folder` and save it beside it (so that even the first `ontoask` opens it at
    once); the file written, or None."""
    from .sqlplan.bigschema import build_view
    from .storage.persist import open_store_folder
    from .storage.store import GraphStore

    store = GraphStore(open_store_folder(folder), folder=Path(folder))
    try:
        return save(folder, build_view(store))
    finally:
        store.close()


__all__ = ["FORMAT", "VIEW_FILE", "load", "prepare", "save", "schema_json", "schema_of", "store_key"]
