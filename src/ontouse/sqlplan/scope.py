"""The names one SELECT can see while its SQL is read: its tables under their aliases, the query around it (a
subquery sees the tables of its outer query), its select-list aliases, and the joins the fixes add. Shared by the
reader (`reader`), its expressions (`sqlexpr`) and its fixes (`sqlfixes`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .plan import Expr, Join, Source


@dataclass
class Scope:
    sources: list[Source]
    parent: "Scope | None" = None
    aliases: dict[str, Expr] = field(default_factory=dict)  # select-list aliases (for ORDER BY / HAVING)
    extra: list[Join] = field(default_factory=list)  # joins added by the reach_column / link_number fixes
    reached: dict[tuple, str] = field(default_factory=dict)  # (alias, path) -> alias of the table reached
    # a subquery that gives one value or a set (scalar, IN): it may not read the tables around it, so a name its own
    # tables lack is reached from them before it is looked for around it
    closed: bool = False

    def find(self, alias: str) -> Source | None:
        for s in self.sources:
            if s.alias.lower() == alias.lower():
                return s
        return self.parent.find(alias) if self.parent else None

    def all_sources(self) -> list[Source]:
        return self.sources + (self.parent.all_sources() if self.parent else [])

    def written(self) -> list[Source]:
        """The sources the query itself names (of this query and the queries around it), without those the fixes
        joined to reach a column."""
        added = {a.lower() for a in self.reached.values()}
        return [s for s in self.sources if s.alias.lower() not in added] + (
            self.parent.written() if self.parent else [])
