"""The one seam through which the answerer reads a graph: SELECT and ASK queries with a time limit and a row cap.

Everything in `ontouse` that reads triples (the relational view, plan execution, support sets, `--sparql`) goes
through a `Store`; nothing walks an rdflib `Graph` directly. `GraphStore` runs queries with rdflib over an
in-memory graph loaded from local files; other stores (an embedded Oxigraph, a remote endpoint) fit the same
protocol."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Iterable, Protocol

from rdflib import Graph
from rdflib.term import Node

from .sparql import QueryResult, graph_prefixes, run_query

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 20.0


class Store(Protocol):
    prefixes: dict[str, str]

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = DEFAULT_TIMEOUT,
               bindings: dict[str, Node] | None = None) -> QueryResult: ...

    def contains(self, triple: tuple[Node, Node, Node]) -> bool: ...

    def size(self) -> int: ...


class GraphStore:
    """rdflib over an in-memory graph."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.prefixes = graph_prefixes(graph)

    @classmethod
    def from_paths(cls, paths: str | Path | Iterable[str | Path]) -> "GraphStore":
        from .graph import load_graph

        return cls(load_graph(paths))

    def select(self, query: str, max_rows: int = 1000, timeout_s: float = DEFAULT_TIMEOUT,
               bindings: dict[str, Node] | None = None) -> QueryResult:
        return run_query(self.graph, query, max_rows=max_rows, timeout_s=timeout_s, bindings=bindings)

    def contains(self, triple: tuple[Node, Node, Node]) -> bool:
        return triple in self.graph

    def size(self) -> int:
        return len(self.graph)
