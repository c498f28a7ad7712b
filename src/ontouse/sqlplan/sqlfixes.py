"""Repairs made while reading a plan, where a name has exactly one meaning in the view (`Fixes`, used by the
Reader of reader.py; each is reported by its rule name):

- `link_direction`: `X.iri = Y.link` where the link belongs to X's table and points at Y's: `X.link = Y.iri`;
- `reach_column`: a column of a table reached through exactly one shortest chain of links or keys (at most two
  joins) from the table it was asked of: the chain is joined and the column read there;
- `link_number`: a link used as a number (summed, averaged, ordered, compared with a number, in arithmetic, ROUND
  or ABS) means the one number column of the linked thing (a price object's amount);
- `key_name`: a column asked for by the name of the key it refers to (`apiaryid` of a table whose `apiary`
  REFERENCES apiaries(apiaryid)) is that referring column; `id` of a table without one is its key column (the
  one other tables refer to), when there is exactly one; in a join condition, a column asked for by the name of
  a value column of the table one link points at is that link (the name of a link of that table is reached
  through it: `reach_column`);
- `column_meaning`: a column name that is not in the table but means clearly one of its columns in the
  embedding space of a small sentence model (`colonyid` for `colony`, `weight` for `hive_weight`; a label column
  means the row's name); only a close and unrivalled match counts;
- `key_thing`: a column that holds another table's key numbers (`vessel` of a table of sailings holding the
  numbers its vessels table keys by `vessel_no`), read where the thing is meant (selected, grouped, or compared
  with text), is the referenced table's text column of the same name (the vessels' `vessel`, a name); a column
  missing from a table but held by the table one of its key columns refers to, under that key's name
  (`berth` of a table whose `berth_id` refers to berths), is read there too: the key is joined;
- `anti_join`: `JOIN t ... WHERE t.c IS NULL` with c a column of the join condition, or one that every row of t
  holds (its key, a reference every row has), can only mean the rows without a match: the join becomes a LEFT
  JOIN. A column that some rows of t lack is a condition on those rows, and stays one."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from sqlglot import exp

from .joins import join_steps, shortest_paths
from .plan import And, Col, IsNull, Join, Source
from .schema import Schema
from .scope import Scope


MEANING_MIN = 0.55  # cosine similarity of a column meant by another name (all-MiniLM-L6-v2)
MEANING_MARGIN = 0.15  # ... and its lead over the next column


class Fixes:
    """The fixes of one reading: each finds the one meaning of a name or a construct in the view, reports its rule
    to `record` (the Reader's list of fixes) and returns what the plan gets instead (joins it adds go into the
    query's Scope)."""

    def __init__(self, schema: Schema, embedder=None, record: Callable[[str], None] = lambda rule: None) -> None:
        self.schema = schema
        self.embedder = embedder  # an ontocore.embeddings.Embedder for `column_meaning` (None: that fix is off)
        self._fix = record

    def own_column(self, table, name: str) -> str | None:
        """`key_name`: the column of `table` that holds the key `name` of the table it refers to; for `id`, the
        table's key column (referred to by other tables) when there is exactly one."""
        refs = [c.name for c in table.columns.values() if c.key_of and c.key_of.split(".", 1)[1].lower() == name.lower()]
        if len(refs) == 1:
            self._fix("key_name")
            return refs[0]
        if name.lower() == "id":
            keys = {o.key_of.split(".", 1)[1] for t in self.schema.tables.values() for o in t.columns.values()
                    if o.key_of and o.key_of.split(".", 1)[0].lower() == table.name.lower()}
            if len(keys) == 1 and table.column(next(iter(keys))) is not None:
                self._fix("key_name")
                return table.column(next(iter(keys))).name
        return None

    def link_of_key(self, table, name: str) -> str | None:
        """`key_name` in a join condition: a column asked for by the name of a column of the table one of its
        links points at (`colonyid` of a table whose `colony` links to the table that has `colonyid`) is that link; the
        join compares the linked thing. Only when exactly one link fits, and only for a column that tells the linked
        rows apart (a different value on every row): any other value of the linked thing (the `keeperid` of a
        `colony`, shared by the colonies of one keeper) is reached through the link, not taken for the thing."""
        links = [c.name for c in table.columns.values() if c.kind == "link" and c.target
                 and (t := self.schema.table(c.target)) is not None and t.tells_rows_apart(t.column(name))]
        if len(links) != 1:
            return None
        self._fix("key_name")
        return links[0]

    def meaning(self, table, name: str) -> str | None:
        from ontocore.embeddings import split_name

        cols = [c for c in table.columns.values() if c.kind != "id" and not c.hidden]
        if not cols:
            return None
        if any(t.column(name) for t in self.schema.tables.values()):
            # a column of another table: only a column of this table whose name holds it (`hive_weight` for `weight`)
            words = set(split_name(name).split())
            holding = [c for c in cols if words <= set(split_name(c.name).split())]
            if len(holding) == 1:
                self._fix("column_meaning")
                return holding[0].name
            return None
        embedder = self.embedder
        if embedder is None:
            return None
        texts = ["name" if c.is_label else f"{split_name(c.name)}. {c.comment or c.label}".strip(". ") for c in cols]
        ranked = embedder.rank(split_name(name), texts, top=2)
        if not ranked:
            return None
        best = ranked[0][1]
        second = ranked[1][1] if len(ranked) > 1 else 0.0
        if best >= MEANING_MIN and best - second >= MEANING_MARGIN:
            self._fix("column_meaning")
            return cols[ranked[0][0]].name
        return None

    def key_thing(self, col: Col, scope: Scope) -> Col:
        """`key_thing` (see the module docstring): the referenced table's same-named text column, read through the
        key, for a key-number column where the thing is meant; else `col` unchanged."""
        table = self.schema.table(col.table)
        c = table.column(col.column) if table is not None else None
        if c is None or not c.key_of or not c.numeric:
            return col
        t_name, key = c.key_of.split(".", 1)
        target = self.schema.table(t_name)
        same = target.column(c.name) if target is not None else None
        if same is None or same.numeric or same.hidden or same.kind != "value" or same.name.lower() == key.lower():
            return col
        src = next((s for s in scope.sources if s.alias.lower() == col.alias.lower()), None)
        if src is None:
            return col
        return self._follow(src, [(c.name, target.name, key)], same.name, scope, "key_thing")

    def through_key(self, src: Source, name: str, scope: Scope) -> Col | None:
        """`key_thing` for a missing column: the one key column of the source's table whose name holds `name` and
        whose referenced table has a column `name` (`berth_id` -> berths.berth): that column, through the key."""
        from ontocore.embeddings import split_name

        table = self.schema.table(src.table)
        words = set(split_name(name).split())
        fits = []
        for c in table.columns.values():
            if not c.key_of or not words <= set(split_name(c.name).split()):
                continue
            t_name, key = c.key_of.split(".", 1)
            target = self.schema.table(t_name)
            if target is not None and target.column(name) is not None and not target.column(name).hidden:
                fits.append((c.name, target.name, key))
        if len(fits) != 1 or src not in scope.sources:
            return None
        return self._follow(src, [fits[0]], name, scope, "key_thing")

    def anti_join(self, sources: list[Source], joins: list[Join], where) -> tuple[list[Source], list[Join]]:
        conds = where.items if isinstance(where, And) else (where,) if where is not None else ()
        for c in conds:
            if not (isinstance(c, IsNull) and not c.negated and isinstance(c.expr, Col)):
                continue
            alias = c.expr.alias.lower()
            if not sources or sources[0].alias.lower() == alias:
                continue
            src = next((s for s in sources if s.alias.lower() == alias and not s.optional), None)
            mine = [j for j in joins if alias in (j.left.alias.lower(), j.right.alias.lower())]
            if src is None or len(mine) != 1 or c.expr not in (mine[0].left, mine[0].right) and \
                    c.expr.column.lower() != "iri" and not self._every_row_holds(c.expr):
                continue
            sources = [replace(s, optional=True) if s is src else s for s in sources]
            joins = [replace(j, optional=True) if j is mine[0] else j for j in joins]
            self._fix("anti_join")
        return sources, joins

    def _every_row_holds(self, col: Col) -> bool:
        """Does every row of the column's table hold a value of it (so that a joined row never lacks it)?"""
        table = self.schema.table(col.table)
        c = table.column(col.column) if table is not None else None
        return c is not None and table.count > 0 and c.subjects >= table.count

    def link_direction(self, a: exp.Column, b: exp.Column, scope: Scope) -> tuple[Col, Col] | None:
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
        for one, other in ((a, b), (b, a)):  # `X.link = Y.link`, the link belonging to Y and pointing at X
            if not one.table or not other.table or one.name.lower() != other.name.lower():
                continue
            src_one, src_other = scope.find(one.table), scope.find(other.table)
            if src_one is None or src_other is None or src_one is src_other:
                continue
            t_one, t_other = self.schema.table(src_one.table), self.schema.table(src_other.table)
            link = t_other.column(other.name)
            if t_one.column(one.name) is not None or link is None or link.kind != "link" or not link.target:
                continue
            target = self.schema.table(link.target)
            if target is None or not (set(target.classes) & set(t_one.classes)):
                continue
            self._fix("link_direction")
            return Col(src_one.alias, t_one.name, "iri"), Col(src_other.alias, t_other.name, link.name)
        return None

    def reach(self, src: Source, name: str, scope: Scope, dry: bool = False):
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

    def _follow(self, src: Source, path: list[tuple[str, str, str]], name: str, scope: Scope, rule: str) -> Col:
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

    def as_number(self, col: Col, scope: Scope) -> Col:
        """`link_number`: a link used as a number (summed, averaged, ordered, compared with a number, in arithmetic)
        means the one number column of the linked thing (a price object's amount)."""
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
