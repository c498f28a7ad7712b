"""The store folder: a persisted Oxigraph store (`db/`, RocksDB) and its `manifest.json`, as `ontoask
--store-path` keeps it (ontouse.storage.persist) and as a big-graph build leaves it in its outcome (`store/`, written by
ontobuild.outputs.bigoutput): the one format both tools read and write."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from .files import sha256_of

log = logging.getLogger(__name__)

STORE_DIR = "store"  # the store folder inside a big-graph outcome
STORE_GRAPH = "urn:ontoask:graph"  # the named graph the files are loaded into
MANIFEST = "manifest.json"
MANIFEST_VERSION = 2  # 2: files recognised by their SHA-256


VERIFIED = ".verified.json"  # in the store folder: the file status of the N-Triples file whose SHA-256 matched


def _file_status(path: Path) -> list[int]:
    """What changes when a file's content changes, without reading it: size, modification and status-change times
    (the latter set by the system on every write), inode."""
    st = path.stat()
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]


def record_verified(folder: str | Path, nt: str | Path, sha256: str) -> None:
    """Note in `folder` that `nt`, as it is now, has the SHA-256 `sha256` (so that opening the store does not read
    the whole file again while it is unchanged); nothing when the folder cannot be written."""
    try:
        (Path(folder) / VERIFIED).write_text(json.dumps({"status": _file_status(Path(nt)), "sha256": sha256}), "utf-8")
    except OSError as e:
        log.debug("not noted as verified: %s", e)


def _verified(folder: Path, nt: Path, sha256: str) -> bool:
    try:
        data = json.loads((folder / VERIFIED).read_text("utf-8"))
        return data == {"status": _file_status(nt), "sha256": sha256}
    except (OSError, ValueError):
        return False


def outcome_store(outcome: str | Path) -> Path | None:
    """The store folder of a big-graph outcome when it is there and matches the outcome's N-Triples file (same
    size and SHA-256; the SHA-256 is computed again unless the file's status is the one noted when it last
    matched: VERIFIED), else None."""
    outcome = Path(outcome)
    folder = outcome / STORE_DIR
    try:
        manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
        entry = manifest["files"][0]
        nt = outcome / manifest["outcome_file"]
        if manifest.get("version") != MANIFEST_VERSION or not (folder / "db").is_dir():
            return None
        if nt.stat().st_size != entry["size"]:
            log.warning("%s does not match %s (changed since the build); it is read from the file", folder, nt)
            return None
        if not _verified(folder, nt, entry["sha256"]):
            if sha256_of(nt) != entry["sha256"]:
                log.warning("%s does not match %s (changed since the build); it is read from the file", folder, nt)
                return None
            record_verified(folder, nt, entry["sha256"])
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return None
    return folder
