"""The group graph pattern of one SELECT while it is compiled: triples (required, optional, and per LEFT JOIN),
sub-select and MINUS blocks, filters, and the unification of variables that join conditions make equal."""

from __future__ import annotations

import re


class Pattern:
    """The group graph pattern of one Query: triples, sub-patterns and filters, with unified variables."""

    def __init__(self) -> None:
        self.triples: list[tuple[str, str, str]] = []
        self.optional: list[tuple[str, str, str]] = []
        self.blocks: list[str] = []  # sub-selects, MINUS, VALUES blocks
        self.filters: list[str] = []
        self.parent: dict[str, str] = {}
        self.groups: dict[str, list] = {}  # LEFT JOIN alias -> its OPTIONAL triples (and sub-select texts)
        self.exprs = None  # the ExprCompiler of the query (its column variables), set by Compiler._query

    def find(self, v: str) -> str:
        while self.parent.get(v, v) != v:
            v = self.parent[v]
        return v

    def unify(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            keep, drop = sorted((ra, rb), key=lambda x: (len(x), x))
            self.parent[drop] = keep

    def text(self, indent: str = "  ") -> str:
        r = self._rename
        lines = [f"{indent}{r(s)} {r(p)} {r(o)} ." for s, p, o in dedupe(self.triples)]
        lines += [f"{indent}OPTIONAL {{ {r(s)} {r(p)} {r(o)} . }}" for s, p, o in dedupe(self.optional)]
        for triples in self.groups.values():
            body = " ".join(self.rename_text(t) if isinstance(t, str) else f"{r(t[0])} {r(t[1])} {r(t[2])} ."
                            for t in dedupe(triples))
            lines.append(f"{indent}OPTIONAL {{ {body} }}")
        lines += [indent + self.rename_text(b) for b in self.blocks]
        lines += [f"{indent}FILTER({self.rename_text(f)})" for f in self.filters]
        return "\n".join(lines)

    def _rename(self, term: str) -> str:
        return self.find(term) if term.startswith("?") else term

    def rename_text(self, text: str) -> str:
        return re.sub(r"\?[A-Za-z_][A-Za-z0-9_]*", lambda m: self.find(m.group(0)), text)


def dedupe(items):
    return list(dict.fromkeys(items))
