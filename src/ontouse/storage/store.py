"""The one seam through which the answerer reads a graph: SELECT and ASK queries with a time limit and a row cap.

Everything in `ontouse` that reads triples (the relational view, plan execution, support sets, `--sparql`) goes
through a `Store`; nothing walks an rdflib `Graph` directly. `GraphStore` runs queries through rdflib's API over
local files, held in an embedded Oxigraph store (the default; optionally persisted on disk so that a second run
does not parse again, `persist.py`) or in rdflib's memory store, each query in a child process killed at its time
limit (`sandbox.py`); `EndpointStore` (`endpoint.py`) asks a remote SPARQL 1.1 endpoint. `Source` says which, and
opens it."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Protocol

from rdflib import Graph
from rdflib.term import Node

from ontocore.errors import InputError

from .sparql import QueryResult, graph_prefixes, query_worker, run_query

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 20.0


class Store(Protocol):
    prefixes: dict[str, str]

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = DEFAULT_TIMEOUT,
               bindings: dict[str, Node] | None = None) -> QueryResult: ...

    def contains(self, triple: tuple[Node, Node, Node]) -> bool: ...

    def size(self) -> int: ...


class GraphStore:
    """rdflib's API over a local graph (an Oxigraph store, in memory or on disk, or rdflib's memory store).

    Queries run in a child process forked at the first query and killed on a timeout (`sandbox.Worker`): it
    sees the graph as it was then, so the graph must not change after the first query (`close()` forgets the
    child; the next query forks a new one)."""

    def __init__(self, graph: Graph, files: tuple[Path, ...] = (), folder: Path | None = None) -> None:
        self.graph = graph
        self.files = files  # the local files the graph was read from ((): another source)
        self.folder = folder  # the persisted store's folder (its manifest; the view saved beside it: storeview.py)
        self.prefixes = graph_prefixes(graph)
        self._worker = query_worker(graph)

    @classmethod
    def from_paths(cls, paths: str | Path | Iterable[str | Path], kind: str = "oxigraph") -> "GraphStore":
        from .graph import load_graph, resolve_paths

        return cls(load_graph(paths, store=kind), tuple(resolve_paths(paths)))

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = DEFAULT_TIMEOUT,
               bindings: dict[str, Node] | None = None) -> QueryResult:
        return run_query(self.graph, query, max_rows=max_rows, timeout_s=timeout_s, bindings=bindings,
                         worker=self._worker)

    def close(self) -> None:
        """Stop the query process (it also stops when the store is garbage-collected or the program ends)."""
        self._worker.close()

    def contains(self, triple: tuple[Node, Node, Node]) -> bool:
        return triple in self.graph

    def size(self) -> int:
        return len(self.graph)


STORE_KINDS = ("oxigraph", "memory")


@dataclass(frozen=True)
class Source:
    """Where the graph is: local RDF files (or outcome folders) held in an embedded store of `kind`, optionally
    persisted in `store_path`; or a remote SPARQL endpoint (`endpoint`, restricted to named graph `graph`)."""

    paths: tuple[Path, ...] = ()
    endpoint: str | None = None
    graph: str | None = None
    kind: str = "oxigraph"
    store_path: Path | None = None

    def __post_init__(self) -> None:
        if self.endpoint and self.paths:
            raise InputError("give either --ontology files or --endpoint, not both.")
        if not self.endpoint and not self.paths:
            raise InputError("no ontology given: pass --ontology with an ontobuild outcome folder or RDF files, "
                             "or --endpoint with the URL of a SPARQL endpoint.")
        if self.kind not in STORE_KINDS:
            raise InputError(f"unknown store {self.kind!r}: use one of {', '.join(STORE_KINDS)}.")
        if self.store_path is not None and (self.endpoint or self.kind != "oxigraph"):
            raise InputError("--store-path keeps an Oxigraph store of local files; it does not apply to "
                             f"{'--endpoint' if self.endpoint else '--store memory'}.")
        if self.graph and not self.endpoint:
            raise InputError("--graph names a graph of the --endpoint; with local files, give the files.")

    def describe(self) -> list[str]:
        """What stats.json records as the ontology (an endpoint's URL without credentials)."""
        if self.endpoint:
            from ontocore.credentials import split_credentials

            return [split_credentials(self.endpoint)[0] + (f" (graph {self.graph})" if self.graph else "")]
        return [str(p) for p in self.paths]

    def open(self) -> Store:
        if self.endpoint:
            from .endpoint import EndpointStore

            store = EndpointStore(self.endpoint, graph=self.graph)
            store.learn_prefixes()
            return store
        if self.store_path is not None:
            from .persist import open_persisted

            return GraphStore(open_persisted(self.paths, self.store_path), folder=Path(self.store_path))
        if self.kind == "oxigraph" and len(self.paths) == 1 and Path(self.paths[0]).is_dir():
            from .persist import open_outcome

            opened = open_outcome(self.paths[0])  # a big-graph outcome's own store: no parsing
            if opened is not None:
                return GraphStore(opened[0], folder=opened[1])
        return GraphStore.from_paths(self.paths, kind=self.kind)  # with its files: the view is kept between runs
