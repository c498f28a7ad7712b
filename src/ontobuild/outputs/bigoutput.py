"""Outputs for big graphs: N-Triples written as the triples are made, and a persisted Oxigraph store.

Above a size the user sets (`--big-graph-triples`, `BIG_GRAPH_TRIPLES` by default), an outcome holds
`ontology.nt` instead of RDF/XML, Turtle and JSON-LD (those are written from one rdflib Graph in memory, and RDF/XML
of a million individuals is of no use to Protégé anyway), plus `store/`: the Oxigraph store of `ontology.nt` in
the format `ontoask --store-path` keeps (ontocore.storefolder), so that `ontoask --ontology OUTCOME` opens it without parsing.

The schema part (classes, properties, the ontology header) is small: it is made by owl.to_graph over the index
without its individuals. Individuals are then written one at a time, in name order, each line by rdflib's own
N-Triples row writer, so memory holds one individual's triples at a time, not the graph."""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SKOS
from rdflib.plugins.serializers.nt import _nt_row
from rdflib.term import Node

from ontocore.files import sha256_of
from ontocore.storefolder import MANIFEST, MANIFEST_VERSION, STORE_DIR, STORE_GRAPH, record_verified

from ..ontology.index import EntitiesIndex
from ..ontology.owl import OB, QUDT, OntologyHeader, individual_triples, text_literal, to_graph

log = logging.getLogger(__name__)

BIG_GRAPH_TRIPLES = 200_000
NT_FILE = "ontology.nt"


def nt_row(triple: tuple[Node, Node, Node]) -> str:
    """One N-Triples line of a triple, by rdflib's own row writer (the line its N-Triples serializer writes); the
    one use of that rdflib-private writer in the builder."""
    return _nt_row(triple)


def estimate_triples(idx: EntitiesIndex) -> int:
    """The number of triples the ontology of `idx` has, counted from the index (without making them): exact for
    individuals, close for the schema (class expressions add a few)."""
    n = 10
    for c in idx.classes.values():
        n += 2 + len(c.superclasses) + len(c.disjoint) + len(c.roles)
    for p in idx.properties.values():
        n += 4 + len(p.domain) * 3 + len(p.roles) + 2 * bool(p.unit)
    for ind in idx.individuals.values():
        n += 2 + len(ind.classes) + len(ind.aliases) + len(ind.roles) + len(ind.facts)
    return n


def is_big(idx: EntitiesIndex, threshold: int | None) -> bool:
    """Whether the ontology of `idx` is written as a big graph (threshold None or 0: never)."""
    return bool(threshold) and estimate_triples(idx) > int(threshold)  # type: ignore[arg-type]


def schema_only(idx: EntitiesIndex) -> EntitiesIndex:
    """A shallow copy of `idx` without its individuals (classes and properties are shared, not copied)."""
    out = EntitiesIndex(base_iri=idx.base_iri)
    out.classes, out.properties, out.prefixes = idx.classes, idx.properties, idx.prefixes
    return out


def iter_triples(idx: EntitiesIndex, header: OntologyHeader | None = None, also_used: Iterable[str] = ()
                 ) -> Iterator[tuple[Node, Node, Node]]:
    """The triples of the ontology of `idx` (the same as owl.to_graph's), the schema first, then one individual
    at a time. `also_used`: the annotation properties that other individuals of the graph use ("unit", "qudt",
    "altLabel": streamed rows), declared as when the index's own use them."""
    yield from to_graph(schema_only(idx), header)

    def iri(name: str) -> URIRef:
        return URIRef(idx.iri_of(name))

    used: set[Node] = {{"unit": OB.unit, "qudt": QUDT.unit, "altLabel": SKOS.altLabel}[u] for u in also_used}
    for name in sorted(idx.individuals):
        ind = idx.individuals[name]
        for t in individual_triples(idx, ind, iri):
            if t[1] in (OB.unit, QUDT.unit, SKOS.altLabel):
                used.add(t[1])
            yield t
        yield iri(name), RDFS.label, text_literal(ind.label or name)
        for r in ind.roles:
            yield iri(name), RDFS.comment, text_literal(r)
    if OB.unit in used:
        yield from ((OB.unit, RDF.type, OWL.AnnotationProperty), (OB.unit, RDFS.label, Literal("unit")))
    if QUDT.unit in used:
        yield from ((QUDT.unit, RDF.type, OWL.AnnotationProperty), (QUDT.unit, RDFS.label, Literal("unit (QUDT)")))
    if SKOS.altLabel in used:
        yield SKOS.altLabel, RDF.type, OWL.AnnotationProperty


def write_ntriples(idx: EntitiesIndex, path: str | Path, header: OntologyHeader | None = None,
                   append: bool = False, also_used: Iterable[str] = ()) -> int:
    """Write the ontology of `idx` as N-Triples to `path` (atomically: a sibling file renamed into place; with
    `append`, added to the end of `path`, which holds streamed rows already); the number of lines written (a triple
    the schema part and an individual both make may appear twice, which N-Triples readers merge)."""
    path = Path(path)
    tmp = path if append else path.with_name(f".{path.name}.tmp-{os.getpid()}")
    n = 0
    try:
        with open(tmp, "a" if append else "w", encoding="utf-8", newline="\n") as fh:
            batch: list[str] = []
            for t in iter_triples(idx, header, also_used):
                batch.append(nt_row(t))
                if len(batch) >= 10_000:
                    fh.write("".join(batch))
                    n += len(batch)
                    batch.clear()
            fh.write("".join(batch))
            n += len(batch)
            fh.flush()
            os.fsync(fh.fileno())
        if not append:
            os.replace(tmp, path)
    except BaseException:
        if not append:
            tmp.unlink(missing_ok=True)
        raise
    return n


LOAD_CHUNK = 32 << 20  # bytes of N-Triples given to the store's bulk loader at a time


def _line_chunks(path: Path, size: int = LOAD_CHUNK, offset: int = 0) -> Iterator[bytes]:
    """The file from byte `offset` on, in pieces of about `size` bytes, each ending at a line end."""
    rest = b""
    with open(path, "rb") as fh:
        fh.seek(offset)
        while block := fh.read(size):
            block = rest + block
            cut = block.rfind(b"\n") + 1
            if cut:
                yield block[:cut]
            rest = block[cut:]
    if rest.strip():
        yield rest


class StoreLoader:
    """Loads N-Triples into a new Oxigraph store in `folder`/db as they are written, in a thread of its own (the
    loader runs in Oxigraph's native code, beside the Python that makes the next lines): `put` a piece, `close` when
    done (it raises what the loading raised). write_store(..., loaded=BYTES) then adds only the rest of the file."""

    def __init__(self, folder: str | Path) -> None:
        import queue
        import threading

        import pyoxigraph

        self.folder = Path(folder)
        if self.folder.exists():
            shutil.rmtree(self.folder)
        self.folder.mkdir(parents=True)
        self._store = pyoxigraph.Store(str(self.folder / "db"))
        self._graph = pyoxigraph.NamedNode(STORE_GRAPH)
        self._format = pyoxigraph.RdfFormat.N_TRIPLES
        self._queue: queue.Queue[bytes | None] = queue.Queue(maxsize=2)  # bounded: the writer waits for the loader
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="store-loader", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while (chunk := self._queue.get()) is not None:
            if self._error is None:
                try:
                    self._store.bulk_load(input=chunk, format=self._format, to_graph=self._graph)
                except BaseException as e:  # noqa: BLE001 - raised again by close()
                    self._error = e

    def put(self, chunk: bytes) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(chunk)

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join()
        del self._store
        if self._error is not None:
            raise self._error


def write_store(nt_path: str | Path, folder: str | Path, prefixes: dict[str, str] | None = None,
                loaded: int | None = None) -> int:
    """Load `nt_path` into a new Oxigraph store in `folder` (`db/` and `manifest.json`, as persist.py writes
    them; the manifest names the file relative to the outcome, so the store stays valid when the outcome folder is
    renamed); the number of triples in the store. `loaded`: the store in `folder` holds the file's first `loaded`
    bytes already (StoreLoader): only the rest is added."""
    import pyoxigraph

    nt_path, folder = Path(nt_path), Path(folder)
    if loaded is None or not (folder / "db").is_dir():
        loaded = 0
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    store = pyoxigraph.Store(str(folder / "db"))
    graph = pyoxigraph.NamedNode(STORE_GRAPH)
    for chunk in _line_chunks(nt_path, offset=loaded):  # the bulk loader holds what one call loads: a chunk
        store.bulk_load(input=chunk, format=pyoxigraph.RdfFormat.N_TRIPLES, to_graph=graph)
    store.optimize()
    count = len(store)
    del store
    digest = sha256_of(nt_path)
    manifest = {"version": MANIFEST_VERSION, "outcome_file": nt_path.name,
                "files": [{"path": nt_path.name, "size": nt_path.stat().st_size, "sha256": digest}],
                "prefixes": sorted([p, ns] for p, ns in (prefixes or {}).items() if p),
                "triples": count}
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", "utf-8")
    record_verified(folder, nt_path, digest)
    return count


def write_big_outputs(idx: EntitiesIndex, outdir: Path, header: OntologyHeader, streamed: Any = None
                      ) -> dict[str, Any]:
    """Write ontology.nt and store/ into `outdir`; what was written, with the seconds of each. `streamed`: the
    streaming.writing.StreamResult whose rows are in ontology.nt already (the rest is appended)."""
    t = time.monotonic()
    lines = write_ntriples(idx, outdir / NT_FILE, header, append=streamed is not None,
                           also_used=streamed.used if streamed is not None else ())
    lines += streamed.lines if streamed is not None else 0
    nt_s = time.monotonic() - t
    t = time.monotonic()
    prefixes = {"": idx.base_iri, **{p: ns for p, ns in idx.prefixes.items()}}
    triples = write_store(outdir / NT_FILE, outdir / STORE_DIR, prefixes,
                          loaded=streamed.store_loaded if streamed is not None else None)
    log.info("big graph: %d triples written to %s and %s", triples, NT_FILE, STORE_DIR)
    return {"lines": lines, "triples": triples, "seconds": {"ntriples": round(nt_s, 3),
                                                             "store": round(time.monotonic() - t, 3)}}


__all__ = ["BIG_GRAPH_TRIPLES", "NT_FILE", "STORE_DIR", "estimate_triples", "is_big", "iter_triples",
           "write_ntriples", "write_store", "write_big_outputs"]
