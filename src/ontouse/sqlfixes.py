"""Repairs made while reading a plan, where a name has exactly one meaning in the view (mixed into the Reader of
sqlplan.py; each is reported by its rule name):

- `link_direction`: `X.iri = Y.link` where the link belongs to X's table and points at Y's: `X.link = Y.iri`;
- `reach_column`: a column of a table reached through exactly one shortest chain of links or keys (at most two
  joins) from the table it was asked of: the chain is joined and the column read there;
- `link_number`: a link used as a number (summed, averaged, ordered, compared with a number) means the one
  number column of the linked thing (a price object's amount)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from .joins import join_steps, shortest_paths
from .plan import Col, Join, Source
from .schema import Schema

if TYPE_CHECKING:
    from .sqlplan import _Scope


class FixesMixin:
    schema: Schema

    def _fix(self, rule: str) -> None:  # provided by the Reader
        raise NotImplementedError

    def _link_direction(self, a: exp.Column, b: exp.Column, scope: _Scope) -> tuple[Col, Col] | None:
        """`link_direction`: `X.iri = Y.link` where Y's table has no such column but X's table has a link of that
        name to Y's table: the link goes the other way (`X.link = Y.iri`)."""
        for one, other in ((a, b), (b, a)):
            if one.name.lower() not in ("iri", "id") or not one.table or not other.table:
                continue
            src_one, src_other = scope.find(one.table), scope.find(other.table)
            if src_one is None or src_other is None or src_one is src_other:
                continue
            t_one, t_other = self.schema.table(src_one.table), self.schema.table(src_other.table)
            if t_other.column(other.name) is not None or (one.name.lower() == "id" and t_one.column("id")):
                continue
            link = t_one.column(other.name)
            if link is None or link.kind != "link" or not link.target:
                continue
            target = self.schema.table(link.target)
            if target is None or not (set(target.classes) & set(t_other.classes)):
                continue
            self._fix("link_direction")
            return Col(src_one.alias, t_one.name, link.name), Col(src_other.alias, t_other.name, "iri")
        return None

    def _reach(self, src: Source, name: str, scope: _Scope, dry: bool = False):
        """`reach_column`: a column of a table that the source's table reaches through exactly one shortest chain
        of links or keys (at most two joins): the chain is joined and the column read there. With two or more
        equally short chains the column is ambiguous and nothing is changed. (`dry`: only say whether it can.)"""
        if src not in scope.sources:
            return None
        goals = {t.name.lower() for t in self.schema.tables.values() if t.column(name)}
        paths = shortest_paths(self.schema, src.table, goals, max_hops=2)
        if len(paths) != 1:
            return None
        if dry:
            return src
        return self._follow(src, paths[0], name, scope, "reach_column")

    def _follow(self, src: Source, path: list[tuple[str, str, str]], name: str, scope: _Scope, rule: str) -> Col:
        alias, table = src.alias, src.table
        for a_col, b_table, b_col in path:
            key = (alias.lower(), a_col.lower(), b_table.lower(), b_col.lower())
            if key not in scope.reached:
                new = f"J{len(scope.all_sources()) + 1}"
                while scope.find(new):
                    new += "_"
                scope.sources.append(Source(b_table, new))
                a = self.schema.table(table).column(a_col)
                b = self.schema.table(b_table).column(b_col)
                scope.extra.append(Join(Col(alias, table, a.name), Col(new, b_table, b.name)))
                scope.reached[key] = new
            alias, table = scope.reached[key], b_table
        self._fix(rule)
        return Col(alias, table, self.schema.table(table).column(name).name)

    def _as_number(self, col: Col, scope: _Scope) -> Col:
        """`link_number`: a link used as a number (summed, averaged, ordered, compared with a number) means the
        one number column of the linked thing (a price object's amount)."""
        c = self.schema.table(col.table).column(col.column)
        if c is None or c.kind != "link" or not c.target:
            return col
        target = self.schema.table(c.target)
        nums = [x for x in target.columns.values() if x.numeric and not x.hidden] if target else []
        if len(nums) != 1:
            return col
        src = next((s for s in scope.all_sources() if s.alias.lower() == col.alias.lower()), None)
        if src is None or src not in scope.sources:
            return col
        return self._follow(src, [(c.name, target.name, "iri")], nums[0].name, scope, "link_number")


def join_path(schema: Schema, sources: list[Source], targets: list[str]) -> str:
    """A JOIN clause that reaches one of `targets` from one of the sources, following links and keys."""
    for src in sources:
        steps = join_steps(schema, src.table, set(t.lower() for t in targets))
        if steps is None:
            continue
        alias, parts = src.alias, []
        for i, (a_col, b_table, b_col) in enumerate(steps):
            b_alias = f"J{i + 1}"
            parts.append(f"JOIN {b_table} AS {b_alias} ON {b_alias}.{b_col} = {alias}.{a_col}")
            alias = b_alias
        return " ".join(parts)
    return ""
