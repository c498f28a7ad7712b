"""Read a plan written in SQL (over the relational view) into plan data, resolving every name against the view.

sqlglot parses the text; this module walks its tree, resolves tables, aliases and columns (including references
from a subquery to the query around it), and raises `PlanError` with a precise, fixable message when a name does
not exist or a construct is outside the plan language. A few slips that have exactly one meaning are fixed on
the way and reported in `Reader.fixes` (each is a named rule):

- `id_column` / `id_is_iri`: `t.id` on a table without an `id` column is its one id column (`Table.id_column`,
  outside a join condition), else the row itself (`t.iri`);
- `column_owner`: `T2.x` where T2's table has no column x but exactly one other table of the query has it;
- `bare_table`: a column qualified by a table name that is in the query under another alias;
- `exists_count`: `SELECT EXISTS (subquery)` with no FROM is the subquery's `COUNT(*)` (a yes/no);
- `ranked_group`: grouped rows ordered by a column they neither group nor aggregate: by its MAX (DESC) / MIN (ASC);
- `extreme_row`: `SELECT MAX(x), y` without GROUP BY: y of the row that holds the largest x.
The rules of sqlfixes.py (`reach_column`, `key_name`, ...) are reported the same way."""

from __future__ import annotations

import difflib
import functools
import logging
import re
from dataclasses import replace

import sqlglot
from sqlglot import exp

from ontocore.text import fold

from .plan import (Agg, And, Col, Expr, IsNull, Item, Join, Lit, Order, Plan, PlanError, Query, SetQuery, Source,
                   first_select, is_aggregate)
from .scope import Scope
from .sqlexpr import Expressions, conjuncts
from .sqlfixes import Fixes, join_path
from .schema import Schema, Table

log = logging.getLogger(__name__)

def _close(name: str, options: list[str], n: int = 3) -> list[str]:
    low = {o.lower(): o for o in options}
    return [low[m] for m in difflib.get_close_matches(name.lower(), list(low), n=n, cutoff=0.6)]


def _escape_inner_apostrophes(sql: str) -> str:
    """`escaped_apostrophe`: an apostrophe between two letters is inside a text value ('Miller's Dock',
    'O'Neill'), never a quote of SQL (a quote follows `=`, a space, `(` or `,`, and is followed by one of them), so
    it is doubled as SQL writes it."""
    return re.sub(r"(?<=[^\W\d_])'(?=[^\W\d_])", "''", sql)


class Reader:
    """One SQL text -> one plan; `fixes` lists the rules that changed it."""

    def __init__(self, schema: Schema, embedder=None) -> None:
        self.schema = schema
        self.fixes: list[str] = []
        self.rules = Fixes(schema, embedder, self._fix)  # `column_meaning` is off without an embedder
        self.expressions = Expressions(self)
        self._in_join = False

    def _expr(self, e: exp.Expression, scope: Scope, aliases: bool = False) -> Expr:
        return self.expressions.read(e, scope, aliases)

    # ---- entry ---------------------------------------------------------------------------------------------
    def read(self, sql: str) -> Plan:
        text = sql.strip().rstrip(";").strip()
        if not text:
            raise PlanError("The SQL query is empty.")
        quoted = quote_word_tables(text, [t.name for t in self.schema.tables.values()])
        if quoted != text:
            text = quoted
            self._fix("quoted a table whose name is an SQL word")
        try:
            trees = sqlglot.parse(text, read="sqlite")
        except sqlglot.errors.SqlglotError:
            escaped = _escape_inner_apostrophes(text)
            if escaped == text:
                trees = self._parse_or_say(text)
            else:
                trees = self._parse_or_say(escaped)
                self._fix("escaped an apostrophe inside a text value")
        trees = [t for t in trees if t is not None]
        if len(trees) != 1:
            raise PlanError("Write exactly one SQL query (one SELECT statement).")
        return self.read_plan(self._exists_as_count(trees[0]), None)

    @staticmethod
    def _parse_or_say(text: str) -> list:
        """The parsed statements of `text`, or the PlanError that says why it cannot be read."""
        try:
            return sqlglot.parse(text, read="sqlite")
        except sqlglot.errors.ParseError as e:
            raise PlanError(f"The SQL does not parse: {_parse_message(e)}.") from None
        except sqlglot.errors.SqlglotError as e:  # e.g. TokenError: prose or an unclosed quote where SQL should be
            raise PlanError(f"The SQL cannot be read: {' '.join(str(e).split())[:200]}. Write only the SQL "
                            "query in the ```sql block.") from None

    def _exists_as_count(self, node: exp.Expression) -> exp.Expression:
        """`exists_count`: `SELECT EXISTS (SELECT ... FROM t WHERE c)`, a yes/no asked as a query with no FROM,
        is `SELECT COUNT(*) FROM t WHERE c` (no rows: no; the count of a yes/no question is read as yes or no)."""
        def source(select: exp.Expression) -> exp.Expression | None:
            return select.args.get("from_") or select.args.get("from")

        if not isinstance(node, exp.Select) or source(node) or len(node.expressions) != 1:
            return node
        inner = node.expressions[0]
        inner = inner.this if isinstance(inner, exp.Alias) else inner
        if not isinstance(inner, exp.Exists):
            return node
        query = inner.this.this if isinstance(inner.this, exp.Subquery) else inner.this
        if not isinstance(query, exp.Select) or query.args.get("group") or not source(query):
            return node
        counted = query.copy()
        counted.set("expressions", [exp.Count(this=exp.Star())])
        for part in ("order", "limit", "offset", "distinct"):
            counted.set(part, None)
        self._fix("exists_count")
        return counted

    def read_plan(self, node: exp.Expression, parent: Scope | None, closed: bool = False) -> Plan:
        """The plan of a query; `parent`: the scope of the query around a subquery, `closed`: a subquery that may
        not read the tables around it (Scope.closed)."""
        if isinstance(node, exp.Subquery):
            node = node.this
        if isinstance(node, (exp.Union, exp.Intersect, exp.Except)):
            op = {exp.Union: "union", exp.Intersect: "intersect", exp.Except: "except"}[type(node)]
            left, right = self.read_plan(node.this, parent, closed), self.read_plan(node.expression, parent, closed)
            from .plan import output_width
            if output_width(left) != output_width(right):
                raise PlanError(f"The two sides of {op.upper()} select a different number of columns "
                                f"({output_width(left)} and {output_width(right)}).")
            order = tuple(self._set_order(o, left) for o in (node.args.get("order").expressions
                                                             if node.args.get("order") else []))
            return SetQuery(op=op, left=left, right=right, all=op == "union" and not node.args.get("distinct", True),
                            order_by=order, limit=self._int(node.args.get("limit")),
                            offset=self._int(node.args.get("offset")))
        if not isinstance(node, exp.Select):
            raise PlanError(f"Only SELECT queries can be answered, not {node.key.upper()}.")
        return self._select(node, parent, closed)

    # ---- SELECT --------------------------------------------------------------------------------------------
    def _select(self, node: exp.Select, parent: Scope | None, closed: bool = False) -> Query:
        if node.args.get("with_") or node.args.get("with"):
            raise PlanError("WITH (common table expressions) is not supported: write the subquery inside WHERE.")
        scope = Scope([], parent, closed=closed)
        conds: list[exp.Expression] = []
        from_ = node.args.get("from_") or node.args.get("from")
        if from_ is None:
            raise PlanError("The query has no FROM clause: select from one of the tables.")
        joins_ = node.args.get("joins") or []
        scope.sources.append(self._source(from_.this, scope))
        self._unknown_joined_as_targets(from_.this, joins_)
        for j in joins_:
            side = (j.args.get("side") or "").upper()
            if side in ("RIGHT", "FULL"):
                raise PlanError(f"{side} JOIN is not supported: write the query with JOIN or LEFT JOIN.")
            scope.sources.append(self._source(j.this, scope, optional=side == "LEFT"))
        conds: list[tuple[exp.Expression, bool]] = []
        for j in joins_:
            if j.args.get("using"):
                raise PlanError("JOIN ... USING is not supported: write JOIN ... ON a.x = b.y.")
            if j.args.get("on") is not None:
                conds += [(c, (j.args.get("side") or "").upper() == "LEFT") for c in conjuncts(j.args["on"])]
        if node.args.get("where") is not None:
            conds += [(c, False) for c in conjuncts(node.args["where"].this)]
        joins, rest = [], []
        for c, optional in conds:
            if isinstance(c, exp.EQ) and isinstance(c.this, exp.Column) and isinstance(c.expression, exp.Column):
                self._in_join = True
                try:
                    swapped = self.rules.link_direction(c.this, c.expression, scope)
                    left, right = swapped or (self.read_column(c.this, scope), self.read_column(c.expression, scope))
                finally:
                    self._in_join = False
                if left.alias.lower() != right.alias.lower() and {left.alias.lower(), right.alias.lower()} <= {
                        s.alias.lower() for s in scope.sources}:
                    joins.append(Join(left, right, optional))
                    continue
            if optional:
                raise PlanError("A LEFT JOIN's ON clause may only equate columns (a.x = b.y); put other conditions "
                                "in WHERE.")
            rest.append(self._expr(c, scope))
        items = []
        for e in node.expressions:
            items += self._items(e, scope)
        for it in items:
            if it.name:
                scope.aliases[it.name.lower()] = it.expr
        where = None if not rest else rest[0] if len(rest) == 1 else And(tuple(rest))
        if where is not None and is_aggregate(where):
            raise PlanError("An aggregate (COUNT, SUM, AVG, MIN, MAX) cannot be in WHERE: group the rows with "
                            "GROUP BY and put the condition in HAVING.")
        group = tuple(self._expr(g, scope, aliases=True) for g in (node.args["group"].expressions
                                                                    if node.args.get("group") else []))
        having = self._expr(node.args["having"].this, scope, aliases=True) if node.args.get("having") else None
        order = self._order(node, scope, items, group)
        if (parent is None and group and items and all(is_aggregate(it.expr) for it in items)
                and node.args.get("limit") is None):
            # `group_key_shown`: one number per group, and nothing says which group: the groups are shown first
            self._fix("group_key_shown")
            items = [Item(g) for g in group if not isinstance(g, Lit)] + items
        # key numbers selected where the thing is meant (not in a subquery, whose rows are compared with other
        # keys): the thing's column, read last so that the joins it adds do not change how names above resolve
        things = {}
        for i, it in enumerate(items):
            if parent is None and isinstance(it.expr, Col) and (thing := self.rules.key_thing(it.expr, scope)) != it.expr:
                things[it.expr] = thing
                items[i] = Item(thing, it.name)
        group += tuple(things[g] for g in group if g in things)  # grouped by the thing, shown by its name
        group += self._things_of_names(group)
        joins += scope.extra
        sources, joins = self.rules.anti_join(scope.sources, joins, where)
        return self._extreme_row(Query(
            select=tuple(items), sources=tuple(sources), joins=tuple(joins), where=where, group_by=group,
            having=having, order_by=order, limit=self._int(node.args.get("limit")),
            offset=self._int(node.args.get("offset")), distinct=bool(node.args.get("distinct"))), parent)

    def _extreme_row(self, q: Query, parent: Scope | None) -> Query:
        """`extreme_row`: `SELECT MAX(x), y FROM ...` without GROUP BY reads y of the row that holds the largest x (as
        SQLite does, whose SQL the model writes), not of any row: the query becomes the row ranked first by x
        (MIN: the smallest), among the rows that have an x; a tie at the top is read as any ranking's is."""
        found = [it.expr for it in q.select if is_aggregate(it.expr)]
        agg = found[0] if len(found) == 1 else None
        if (parent is not None or not isinstance(agg, Agg) or agg.func not in ("min", "max") or agg.distinct
                or not isinstance(agg.arg, Col) or q.group_by or q.having or q.order_by or q.limit is not None
                or len(q.select) < 2 or not all(isinstance(it.expr, Col) for it in q.select if it.expr is not agg)):
            return q
        self._fix("extreme_row")
        held = IsNull(agg.arg, negated=True)
        return replace(q, select=tuple(Item(agg.arg, it.name) if it.expr is agg else it for it in q.select),
                       where=held if q.where is None else And((q.where, held)),
                       order_by=(Order(agg.arg, agg.func == "max"),), limit=1)

    def _unknown_joined_as_targets(self, first: exp.Expression, joins_: list[exp.Expression]) -> None:
        """`unknown_table_as_link_target`: a joined table the view does not have, joined only by `x.link = t.iri`
        where `link` is a link column of a table of the query (`JOIN Author A ON W.author = A.iri`, where the
        view has a link `author` and no table `Author`), is the table that link points at."""
        tables = {}  # alias -> Table, of the sources the view has
        for t in [first, *(j.this for j in joins_)]:
            if isinstance(t, exp.Table) and self.schema.table(t.name) is not None:
                tables[(t.alias or t.name).lower()] = self.schema.table(t.name)
        for j in joins_:
            t = j.this
            if not isinstance(t, exp.Table) or self.schema.table(t.name) is not None or j.args.get("on") is None:
                continue
            alias = (t.alias or t.name).lower()
            targets = set()
            for c in conjuncts(j.args["on"]):
                if not (isinstance(c, exp.EQ) and isinstance(c.this, exp.Column)
                        and isinstance(c.expression, exp.Column)):
                    continue
                for mine, other in ((c.this, c.expression), (c.expression, c.this)):
                    owner = tables.get(other.table.lower())
                    col = owner.column(other.name) if owner is not None else None
                    if mine.table.lower() == alias and mine.name.lower() == "iri" and col is not None and \
                            col.kind == "link" and col.target:
                        targets.add(col.target)
            if len(targets) == 1:
                target = targets.pop()
                t.set("this", exp.to_identifier(target))
                if not t.alias:
                    t.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
                tables[alias] = self.schema.table(target)
                self._fix("unknown_table_as_link_target")

    def _things_of_names(self, group: tuple[Expr, ...]) -> tuple[Expr, ...]:
        """`group_by_thing`: a group by a column that names the rows (`name`, `title`, the label, `<table>_name`)
        where two rows share a name merges two things into one group; the rows' own identity joins the group."""
        added: list[Expr] = []
        for g in group:
            if not isinstance(g, Col) or g.column == "iri":
                continue
            table = self.schema.table(g.table)
            col = table.column(g.column) if table is not None else None
            if col is None or col.sql_type != "TEXT" or col.distinct >= table.count or not _names_rows(table, col):
                continue
            thing = Col(g.alias, g.table, "iri")
            if thing not in group and thing not in added:
                self._fix("group_by_thing")
                added.append(thing)
        return tuple(added)

    def _source(self, t: exp.Expression, scope: Scope, optional: bool = False) -> Source:
        if not isinstance(t, exp.Table):
            raise PlanError("A subquery in FROM is not supported: join the tables directly, or put the subquery "
                            "in WHERE (x IN (SELECT ...), x > (SELECT AVG(...) ...)).")
        table = self._table(t.name)
        alias = t.alias or table.name
        if scope.find(alias) and scope.find(alias) in scope.sources:
            raise PlanError(f"The alias {alias} is used twice in one FROM clause: give each table its own alias.")
        return Source(table.name, alias, optional)

    def _table(self, name: str) -> Table:
        table = self.schema.table(name)
        if table is not None:
            return table
        names = [t.name for t in self.schema.tables.values()]
        owners = [t.name for t in self.schema.tables.values() if t.column(name)]
        hint = f" `{name}` is a column of {', '.join(owners[:4])}." if owners else ""
        close = _close(name, names)
        raise PlanError(f"There is no table `{name}`.{hint} "
                        + (f"Did you mean {' or '.join(close)}? " if close else "")
                        + f"Tables: {', '.join(names[:40])}.", details={"missing": [name]})

    def _items(self, e: exp.Expression, scope: Scope) -> list[Item]:
        name = e.alias if isinstance(e, exp.Alias) else ""
        inner = e.this if isinstance(e, exp.Alias) else e
        if isinstance(inner, exp.Star) or (isinstance(inner, exp.Column) and isinstance(inner.this, exp.Star)):
            qual = inner.table if isinstance(inner, exp.Column) else ""
            srcs = [s for s in scope.sources if not qual or s.alias.lower() == qual.lower()]
            if not srcs:
                raise PlanError(f"`{qual}.*`: there is no table or alias {qual} in this query.")
            return [Item(Col(s.alias, s.table, c.name)) for s in srcs
                    for c in self.schema.table(s.table).columns.values() if not c.hidden and c.kind != "id"]
        return [Item(self._expr(inner, scope), name)]

    def _order_expr(self, e: exp.Expression, scope: Scope, items: list[Item]) -> Expr:
        if isinstance(e, exp.Literal) and not e.is_string:
            i = int(e.this)
            if not 1 <= i <= len(items):
                raise PlanError(f"ORDER BY {i}: the query selects only {len(items)} column(s).")
            return items[i - 1].expr
        return self._expr(e, scope, aliases=True)

    def _order(self, node: exp.Select, scope: Scope, items: list[Item], group: tuple) -> tuple[Order, ...]:
        """The ORDER BY of a SELECT (grouped rows ranked by a column they do not group: `_group_ranked`)."""
        order = tuple(Order(self._numeric_order(self._order_expr(o.this, scope, items), scope),
                            bool(o.args.get("desc")))
                      for o in (node.args["order"].expressions if node.args.get("order") else []))
        if group:
            return tuple(self._group_ranked(o, group) for o in order)
        if any(is_aggregate(o.expr) for o in order) and not all(is_aggregate(it.expr) for it in items):
            raise PlanError("ORDER BY an aggregate (COUNT, SUM, ...) without GROUP BY aggregates all rows into one: "
                            "to rank each row by a count or total of related rows, join those rows and GROUP BY "
                            "the selected columns.")
        return order

    def _group_ranked(self, o: Order, group: tuple) -> Order:
        """`ranked_group`: groups ordered by a column they neither group nor aggregate would each be ranked by the
        value of one of their rows, taken at random; the group of the top row is meant: DESC ranks by the group's
        MAX, ASC by its MIN (a value a group holds once is its own MAX and MIN)."""
        if not isinstance(o.expr, Col) or o.expr in group:
            return o
        self._fix("ranked_group")
        return Order(Agg("max" if o.desc else "min", o.expr), o.desc)

    def _numeric_order(self, e: Expr, scope: Scope) -> Expr:
        return self.rules.as_number(e, scope) if isinstance(e, Col) else e

    def _set_order(self, o: exp.Ordered, left: Plan) -> Order:
        e = o.this
        names = [it.name or (it.expr.column if isinstance(it.expr, Col) else "") for it in first_select(left).select]
        if isinstance(e, exp.Literal) and not e.is_string:
            return Order(Lit(int(e.this) - 1), bool(o.args.get("desc")))
        if isinstance(e, exp.Column) and e.name.lower() in [n.lower() for n in names]:
            return Order(Lit([n.lower() for n in names].index(e.name.lower())), bool(o.args.get("desc")))
        raise PlanError("ORDER BY after UNION / INTERSECT / EXCEPT must name a selected column.")

    def read_column(self, c: exp.Column, scope: Scope) -> Col:
        name, qual = c.name, c.table
        if qual:
            src = scope.find(qual)
            if src is None:
                by_table = [s for s in scope.all_sources() if s.table.lower() == qual.lower()]
                if len(by_table) == 1:
                    self._fix("bare_table")
                    src = by_table[0]
                else:
                    known = ", ".join(f"{s.alias} ({s.table})" for s in scope.all_sources())
                    raise PlanError(f"`{qual}.{name}`: there is no alias or table {qual} in this query "
                                    f"(the query has {known}).")
            return self._col_of(src, name, scope)
        found = [s for s in scope.sources if self.schema.table(s.table).column(name)]
        if not found:  # a column of this query's own tables under another name, before any outer table
            own = [(s, c) for s in scope.sources
                   for c in [self.rules.own_column(self.schema.table(s.table), name)] if c]
            if len(own) == 1:
                return Col(own[0][0].alias, own[0][0].table, own[0][1])
            if len(scope.sources) == 1:
                through = self.rules.through_key(scope.sources[0], name, scope) if not self._in_join else None
                if through is not None:
                    return through
                meant = self.rules.meaning(self.schema.table(scope.sources[0].table), name)
                if meant is not None:
                    return Col(scope.sources[0].alias, scope.sources[0].table, meant)
        if not found and scope.parent is not None:
            if scope.closed:  # reached from the subquery's own tables, which alone it may read
                reached = self._reached_once(name, scope)
                if reached is not None:
                    return reached
            found = [s for s in scope.parent.all_sources() if self.schema.table(s.table).column(name)]
        if not found:
            if name.lower() == "id" and len(scope.sources) == 1:
                return self._col_of(scope.sources[0], name, scope)
            reached = self._reached_once(name, scope)
            if reached is not None:
                return reached
            raise PlanError(self._missing(name, scope.all_sources()), details={"missing": [name]})
        return self._col_of(found[0], name, scope)

    def _reached_once(self, name: str, scope: Scope) -> Col | None:
        """`reach_column` from the one table of this query that reaches a column `name` (None when none or several
        do)."""
        reached = [r for r in (self.rules.reach(src, name, scope, dry=True) for src in scope.sources) if r]
        return self.rules.reach(reached[0], name, scope) if len(reached) == 1 else None

    def _col_of(self, src: Source, name: str, scope: Scope) -> Col:
        table = self.schema.table(src.table)
        col = table.column(name)
        if col is not None:
            return Col(src.alias, table.name, col.name)
        own = self.rules.own_column(table, name) or (self.rules.link_of_key(table, name) if self._in_join else None)
        if own is not None:
            return Col(src.alias, table.name, own)
        if name.lower() == "id":
            key = table.id_column() if not self._in_join else None
            if key is not None:  # the value the rows are numbered by, not the thing (shown by its name)
                self._fix("id_column")
                return Col(src.alias, table.name, key.name)
            self._fix("id_is_iri")
            return Col(src.alias, table.name, "iri")
        # a column of another table: of one the query names itself, before one a fix joined to reach a column
        owners = [s for s in scope.written() if s is not src and self.schema.table(s.table).column(name)] or [
            s for s in scope.all_sources() if s is not src and self.schema.table(s.table).column(name)]
        if len(owners) == 1 and not self._in_join:
            self._fix("column_owner")
            return Col(owners[0].alias, owners[0].table, self.schema.table(owners[0].table).column(name).name)
        through = self.rules.through_key(src, name, scope) if not self._in_join else None
        if through is not None:
            return through
        meant = self.rules.meaning(table, name)
        if meant is not None:
            return Col(src.alias, table.name, meant)
        reached = self.rules.reach(src, name, scope)
        if reached is not None:
            return reached
        raise PlanError(f"`{src.alias}.{name}`: {src.alias} is the table {table.name}, which has no column "
                        f"`{name}`. " + self._missing(name, [src], own=False),
                        details={"missing": [f"{table.name}.{name}"]})

    def _missing(self, name: str, sources: list[Source], own: bool = True) -> str:
        owners = [t.name for t in self.schema.tables.values() if t.column(name)]
        parts = [f"There is no column `{name}`." if own else ""]
        if owners:
            parts.append(f"`{name}` is a column of {', '.join(owners[:4])}: join that table.")
            path = join_path(self.schema, sources, owners)
            if path:
                parts.append(f"For example: {path}.")
        for s in sources[:3]:
            cols = [c.name for c in self.schema.table(s.table).columns.values() if not c.hidden]
            close = _close(name, cols)
            if close:
                parts.append(f"Did you mean {s.alias}.{close[0]}?")
            parts.append(f"Columns of {s.table}: {', '.join(cols[:30])}.")
        return " ".join(p for p in parts if p)

    def _fix(self, rule: str) -> None:
        if rule not in self.fixes:
            self.fixes.append(rule)

    @staticmethod
    def _int(node: exp.Expression | None) -> int | None:
        if node is None:
            return None
        value = node.expression if isinstance(node, (exp.Limit, exp.Offset)) else node
        if isinstance(value, exp.Literal) and not value.is_string:
            try:
                return int(float(value.this))
            except ValueError:
                pass
        raise PlanError("LIMIT and OFFSET take a whole number.")


_NAME_COLUMNS = frozenset(("name", "title", "label", "fullname"))


def _names_rows(table: Table, col) -> bool:
    """Is `col` the column that names the table's rows (its label, or called name, title, label, full name,
    `<table>_name` or as the table itself)? A first name or a city is a value rows share, not their name."""
    words = fold(col.name).replace("_", "").replace(" ", "")
    own = fold(table.name).replace("_", "")
    return col.is_label or words in _NAME_COLUMNS or words in (own, own.rstrip("s")) or words in (
        own + "name", own.rstrip("s") + "name")


def _parse_message(e: sqlglot.errors.ParseError) -> str:
    errs = getattr(e, "errors", None) or []
    if errs:
        first = errs[0]
        return f"{first.get('description', 'syntax error')} near '{first.get('highlight', '')}'"
    return " ".join(str(e).split())[:200]


@functools.lru_cache(maxsize=512)
def _is_sql_word(name: str) -> bool:
    """Whether a table called `name` cannot be written bare in SQL (a class `Like` or `Values`)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        return False
    try:
        tree = sqlglot.parse_one(f"SELECT 1 FROM {name} AS a JOIN {name} AS b ON a.x = b.x", read="sqlite")
    except sqlglot.errors.SqlglotError:
        return True
    return [t.name for t in tree.find_all(exp.Table)] != [name, name]


def quote_word_tables(sql: str, tables: list[str]) -> str:
    """The SQL with every view table whose name is an SQL word quoted where it stands as a table: after FROM or
    JOIN, and before a dot (`FROM Like AS T1` -> `FROM "Like" AS T1`; `LIKE '%a%'` stays an operator)."""
    words = [t for t in tables if _is_sql_word(t)]
    if not words:
        return sql
    parts = re.split(r"('(?:[^']|'')*')", sql)  # odd parts are string literals: never changed
    for i in range(0, len(parts), 2):
        for name in words:
            parts[i] = re.sub(rf'(?i)(\b(?:FROM|JOIN)\s+){re.escape(name)}\b(?!\s*\()',
                              lambda m: f'{m.group(1)}"{name}"', parts[i])
            parts[i] = re.sub(rf'(?i)(?<![\w."]){re.escape(name)}\.(?=[A-Za-z_"])', f'"{name}".', parts[i])
    return "".join(parts)


def read_sql(schema: Schema, sql: str, embedder=None) -> tuple[Plan, list[str]]:
    """The plan of `sql` and the names of the fixes applied; PlanError when it cannot be read."""
    reader = Reader(schema, embedder)
    return reader.read(sql), reader.fixes
