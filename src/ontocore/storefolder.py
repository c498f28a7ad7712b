"""The store folder: a persisted Oxigraph store (`db/`, RocksDB) and its `manifest.json`, as `ontoask
--store-path` keeps it (ontouse.storage.persist) and as a big-graph build leaves it in its outcome (`store/`, written by
ontobuild.bigoutput): the one format both tools read and write."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from .localmodel import sha256_of

log = logging.getLogger(__name__)

STORE_DIR = "store"  # the store folder inside a big-graph outcome
STORE_GRAPH = "urn:ontoask:graph"  # the named graph the files are loaded into
MANIFEST = "manifest.json"
MANIFEST_VERSION = 2  # 2: files recognised by their SHA-256


def outcome_store(outcome: str | Path) -> Path | None:
    """The store folder of a big-graph outcome when it is there and matches the outcome's N-Triples file (same
    size and SHA-256), else None."""
    outcome = Path(outcome)
    folder = outcome / STORE_DIR
    try:
        manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
        entry = manifest["files"][0]
        nt = outcome / manifest["outcome_file"]
        if manifest.get("version") != MANIFEST_VERSION or not (folder / "db").is_dir():
            return None
        if nt.stat().st_size != entry["size"] or sha256_of(nt) != entry["sha256"]:
            log.warning("%s does not match %s (changed since the build); it is read from the file", folder, nt)
            return None
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return folder
