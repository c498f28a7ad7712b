"""An Oxigraph store of local RDF files kept on disk, so that a second run opens it instead of parsing again.

The folder holds the store (`db/`, RocksDB), `manifest.json` (the files it was loaded from: path, size, SHA-256;
and their prefixes) and its lock (`.lock`); nothing is written beside it. It is reused only when the manifest matches
the files given now; else it is built again in a partial folder inside it and moved into place when complete, the
manifest written last, so an interrupted load never leaves a half-filled store that a later run would trust. The
store is a cache of the files: a damaged one is built again, with a warning."""

from __future__ import annotations

import errno
import gc
import hashlib
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterable

from filelock import FileLock
from rdflib import Graph, URIRef

from ontocore.errors import InputError
from ontocore.folders import atomic_write
from ontocore.inputguard import check_file
from ontocore.owlxml import iter_owlxml_ntriples, read_owlxml
from ontocore.storefolder import MANIFEST, MANIFEST_VERSION, STORE_GRAPH, outcome_store

from .graph import NATIVE_FORMATS, file_head, guess_format, head_prefixes, resolve_paths

log = logging.getLogger(__name__)

GRAPH_IRI = URIRef(STORE_GRAPH)  # the named graph the files are loaded into (rdflib's graph identifier)
VERSION = MANIFEST_VERSION


def _stamp(files: list[Path]) -> list[dict[str, Any]]:
    """What the store was built from, decided by content: each file's path, size and SHA-256 (a file changed
    with the same size and modification time is still a changed file)."""
    out = []
    for f in files:
        h = hashlib.sha256()
        with open(f, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        out.append({"path": str(f.resolve()), "size": f.stat().st_size, "sha256": h.hexdigest()})
    return out


def _read_manifest(folder: Path) -> dict[str, Any] | None:
    try:
        data = json.loads((folder / MANIFEST).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == VERSION else None


def _graph_over(db: Path, prefixes: list[list[str]]) -> Graph:
    import pyoxigraph
    from oxrdflib.store import OxigraphStore

    graph = Graph(store=OxigraphStore(store=pyoxigraph.Store.read_only(str(db))), identifier=GRAPH_IRI,
                  bind_namespaces="core")
    for prefix, ns in prefixes:
        graph.bind(prefix, ns, override=False)
    return graph


def _build(files: list[Path], folder: Path) -> dict[str, Any]:
    """Load `files` into a new store in `folder` (which must not exist); the manifest data."""
    import pyoxigraph

    store = pyoxigraph.Store(str(folder / "db"))
    prefixes: list[tuple[str, str]] = []  # in the order of the files, bound as rdflib binds a parser's prefixes
    target = pyoxigraph.NamedNode(str(GRAPH_IRI))
    for path in files:
        fmt = guess_format(path, file_head(path))
        if fmt not in NATIVE_FORMATS and fmt != "owl-xml":
            raise InputError(f"{path}: a persisted store reads Turtle, N-Triples, RDF/XML and OWL/XML files, not "
                             f"{fmt}; convert it, or run without --store-path.")
        check_file(path, fmt)
        start = time.monotonic()
        if fmt == "owl-xml":  # converted to N-Triples (owlxml), then loaded like one
            triples, declared = read_owlxml(path)
            try:
                store.bulk_load("".join(iter_owlxml_ntriples(triples)).encode("utf-8"),
                                format=pyoxigraph.RdfFormat.N_TRIPLES, to_graph=target)
            except (SyntaxError, ValueError, OSError) as e:
                raise InputError(f"{path} could not be read: {' '.join(str(e).split())[:300]}") from None
            prefixes += [(p, ns) for p, ns in declared.items() if p]
            log.info("%s loaded into the persisted store in %.1f s", path, time.monotonic() - start)
            continue
        ox_format = {"turtle": pyoxigraph.RdfFormat.TURTLE, "nt": pyoxigraph.RdfFormat.N_TRIPLES,
                     "xml": pyoxigraph.RdfFormat.RDF_XML}[fmt]
        try:
            store.bulk_load(path=str(path), format=ox_format, base_iri=path.resolve().as_uri(), to_graph=target)
        except (SyntaxError, ValueError, OSError) as e:
            raise InputError(f"{path} could not be read: {' '.join(str(e).split())[:300]}") from None
        prefixes += head_prefixes(path, fmt).items()
        log.info("%s loaded into the persisted store in %.1f s", path, time.monotonic() - start)
    store.optimize()
    del store
    gc.collect()  # the store's files are closed before the folder is renamed
    return {"version": VERSION, "files": _stamp(files), "prefixes": prefixes}


LOCK_FILE = ".lock"  # inside the store folder: runs on one store take turns to build it
_PARTIAL = ".partial-"  # inside the store folder: a store being built, moved into place when complete


def _own(entry: Path) -> bool:
    """A file or folder the store itself keeps inside its folder (everything a store folder may hold)."""
    return entry.name in (LOCK_FILE, MANIFEST, "db") or entry.name.startswith(_PARTIAL) or entry.name.startswith(".")


def _unwritable(folder: Path, e: OSError) -> InputError:
    return InputError(f"--store-path {folder} cannot be written ({e.strerror or e}{f': {e.filename}' if e.filename else ''}); "
                      "give a folder you can write (a new one is made), or leave --store-path out: the graph is "
                      "then read from the files at each run.")


def open_persisted(paths: Iterable[str | Path], folder: str | Path) -> Graph:
    """A graph over the persisted store of `paths` in `folder`: opened read-only (several runs may share it) when it
    matches the files, else (re)built first. The store is a cache of the files: one that cannot be opened (damaged)
    is built again, with a warning. Everything it keeps is inside `folder`, its lock too (LOCK_FILE); a folder that
    cannot be written is an InputError naming it (a store that matches the files is still opened read-only)."""
    files = resolve_paths(paths)
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--store-path {folder} is a file; give a folder (new or one ontoask wrote).")
    if folder.is_dir() and _read_manifest(folder) is None and not (folder / "db").is_dir() and \
            any(not _own(f) for f in folder.iterdir()):
        raise InputError(f"{folder} exists and is not a store written by ontoask (no {MANIFEST}); give an "
                         "empty or new folder to --store-path.")
    stamp = _stamp(files)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(folder / LOCK_FILE))
        lock.acquire()
    except OSError as e:
        manifest = _read_manifest(folder) if folder.is_dir() else None
        if manifest is not None and manifest.get("files") == stamp:  # a store someone else keeps: read, not written
            log.info("opening the persisted store %s read-only (its folder cannot be written: %s)", folder, e)
            graph = _open_checked(folder, manifest)
            if graph is not None:
                return graph
        raise _unwritable(folder, e) from None
    try:  # runs on one store take turns to build it; a finished store is then opened by all
        manifest = _read_manifest(folder)
        if manifest is not None and manifest.get("files") == stamp:
            graph = _open_checked(folder, manifest)
            if graph is not None:
                return graph
        return _rebuild(files, folder)
    finally:
        lock.release()


def _open_checked(folder: Path, manifest: dict[str, Any]) -> Graph | None:
    """The graph over a store that matches its files, or None (with a warning) when it cannot be opened: its files
    are damaged (RocksDB checks them when it opens the store: "Corruption: Sst file size mismatch", a file missing)."""
    try:
        log.info("opening the persisted store %s", folder)
        return _graph_over(folder / "db", manifest.get("prefixes") or [])
    except (OSError, RuntimeError, ValueError, SyntaxError) as e:  # pyoxigraph reports damage as several types
        log.warning("the persisted store %s is damaged (%s); building it again from the files", folder,
                    " ".join(str(e).split())[:200])
        return None


def _rebuild(files: list[Path], folder: Path) -> Graph:
    """Build the store of `files` inside `folder` (a partial folder moved into place when complete), under its lock;
    what the folder held before (another store, a damaged one, a killed build's partial folder) goes."""
    partial = folder / f"{_PARTIAL}{os.getpid()}"
    shutil.rmtree(partial, ignore_errors=True)
    try:
        partial.mkdir()
        data = _build(files, partial)
        (folder / MANIFEST).unlink(missing_ok=True)  # from here the folder is no valid store until the manifest is back
        for old in folder.iterdir():
            if old.name not in (LOCK_FILE, partial.name):
                shutil.rmtree(old) if old.is_dir() and not old.is_symlink() else old.unlink()
        os.replace(partial / "db", folder / "db")
        atomic_write(folder / MANIFEST, json.dumps(data, indent=1))
    except OSError as e:
        if isinstance(e, PermissionError) or e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise _unwritable(folder, e) from None
        raise
    finally:
        shutil.rmtree(partial, ignore_errors=True)
    return _graph_over(folder / "db", data["prefixes"])


def open_outcome(outcome: str | Path) -> tuple[Graph, Path] | None:
    """(a graph over the persisted store a big-graph build wrote into its outcome folder (`store/`, see
    ontocore.storefolder), opened read-only, and that store's folder) when it is there and matches the outcome's
    ontology file; else None."""
    folder = outcome_store(outcome)
    if folder is None:
        return None
    try:
        return open_store_folder(folder), folder
    except (OSError, ValueError, RuntimeError, SyntaxError) as e:
        log.warning("the outcome's store %s cannot be opened (%s); reading the file instead", folder, e)
        return None


def open_store_folder(folder: str | Path) -> Graph:
    """A graph over the store in `folder` (a store folder: `db/` and its manifest), opened read-only."""
    folder = Path(folder)
    manifest = json.loads((folder / MANIFEST).read_text("utf-8"))
    log.info("opening the persisted store %s", folder)
    return _graph_over(folder / "db", manifest.get("prefixes") or [])


def open_outcome_store(outcome: str | Path) -> Graph | None:
    """A graph over the persisted store of a big-graph outcome (open_outcome), or None."""
    opened = open_outcome(outcome)
    return opened[0] if opened is not None else None


__all__ = ["open_persisted", "open_outcome", "open_outcome_store", "open_store_folder", "GRAPH_IRI"]
