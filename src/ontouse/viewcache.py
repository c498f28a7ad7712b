"""The view of an ontology kept between processes: a new `ontoask` over files already asked about starts from the
kept view (the relational Schema and the ValueIndex of its values) instead of building it again with some twenty
SPARQL queries.

Key: SHA-256 over the ontology's files (each file's resolved path, size and content digest) and the source of the
code that builds a view (every module of `ontouse` and `ontocore`), so a changed file or a changed program never
meets an old view. Only graphs read from local files have a key; a persisted store or a SPARQL endpoint is viewed
anew each time.

Files: `<cache dir>/views/<key>.pickle` (cache dir: $ONTOBUILD_CACHE, else $XDG_CACHE_HOME/ontobuild, else
~/.cache/ontobuild; or the folder $ONTOBUILD_VIEW_CACHE_DIR), written atomically; the 32 most recently used are kept. An entry that cannot be read is
removed and the view is built again; ONTOBUILD_VIEW_CACHE=0 turns the cache off."""

from __future__ import annotations

import hashlib
import logging
import os
import pickle
from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from ontocore.folders import atomic_write

log = logging.getLogger(__name__)

FORMAT = 1
KEEP = 32  # views kept on disk (least recently used removed first)


def enabled() -> bool:
    return (os.environ.get("ONTOBUILD_VIEW_CACHE") or "1").strip().lower() not in ("0", "off", "false", "no")


def folder() -> Path:
    """$ONTOBUILD_VIEW_CACHE_DIR, else `views` in the cache folder."""
    if os.environ.get("ONTOBUILD_VIEW_CACHE_DIR"):
        return Path(os.environ["ONTOBUILD_VIEW_CACHE_DIR"]).expanduser()
    from ontocore.folders import cache_dir

    return cache_dir() / "views"


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the source of every module that can shape a view (ontouse and ontocore)."""
    import ontocore
    import ontouse

    h = hashlib.sha256()
    for pkg in (ontocore, ontouse):
        root = Path(pkg.__file__).resolve().parent
        for path in sorted(root.rglob("*.py")):
            h.update(str(path.relative_to(root)).encode("utf-8") + b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


def view_key(files: Sequence[Path]) -> str | None:
    """The key of the view of the graph read from `files`; None when there are none or one cannot be read."""
    if not files:
        return None
    h = hashlib.sha256(f"view-format-{FORMAT}\0{code_digest()}\0".encode("utf-8"))
    try:
        for path in sorted(Path(p).resolve() for p in files):
            digest = hashlib.sha256()
            with open(path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    digest.update(block)
            h.update(f"{path}\0{path.stat().st_size}\0{digest.hexdigest()}\0".encode("utf-8"))
    except OSError as e:
        log.debug("no view key: %s", e)
        return None
    return h.hexdigest()


def load(key: str | None) -> tuple[Any, Any] | None:
    """(schema, index without its store and embedder) kept under `key`, or None."""
    if key is None or not enabled():
        return None
    path = folder() / f"{key}.pickle"
    if not path.is_file():
        return None
    try:
        data = pickle.loads(path.read_bytes())
        if data.get("key") != key:
            raise ValueError("the entry holds another key")
        os.utime(path)  # recently used
        return data["schema"], data["index"]
    except Exception as e:  # noqa: BLE001 - a damaged entry is rebuilt, never fatal
        log.warning("the kept view %s could not be read (%s): building it again", path.name, e)
        path.unlink(missing_ok=True)
        return None


def save(key: str | None, schema: Any, index: Any) -> None:
    """Keep the view under `key` (the index without its store and embedder, which the reader sets again)."""
    if key is None or not enabled():
        return
    target = folder() / f"{key}.pickle"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        data = pickle.dumps({"key": key, "schema": schema, "index": replace(index, store=None, embedder=None)},
                            protocol=pickle.HIGHEST_PROTOCOL)
        atomic_write(target, data)
        kept = sorted(target.parent.glob("*.pickle"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[KEEP:]:
            old.unlink(missing_ok=True)
    except Exception as e:  # noqa: BLE001 - a view that cannot be kept is only slower next time
        log.warning("the view could not be kept in %s: %s", target.parent, e)


__all__ = ["view_key", "load", "save", "enabled", "folder", "code_digest"]
