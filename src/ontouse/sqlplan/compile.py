"""Compile a plan (plan.py) into SPARQL over the graph behind the relational view, one function per construct.

Every source (a table under an alias) is a variable typed with the table's class; every column used is a
triple pattern from that variable (the row itself for `iri`); join conditions unify variables (a link column
equal to a row's `iri` is the triple between the two things); conditions become FILTERs; aggregates, GROUP BY,
HAVING, ORDER BY, LIMIT and OFFSET map one to one; IN / NOT IN subqueries become joins with a sub-select /
MINUS, EXISTS becomes FILTER [NOT] EXISTS, scalar subqueries become joined sub-selects, set operations become
UNION / join / MINUS of sub-selects. Values enter the query only as properly escaped RDF terms (rdflib's n3()).

The result is a `Compiled`: the SPARQL text, the output columns and what each one holds (a thing, a thing's
name, or a value), and an evidence query with the triple patterns whose instances back the answer."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace

from rdflib import Literal, URIRef
from rdflib.namespace import RDF, XSD

from .compile_expr import ExprCompiler, sparql_var
from .pattern import Pattern, dedupe
from .plan import (Agg, Col, Exists, InQuery, IsNull, Item, Not, Or, Order, Plan, PlanError, Query, SetQuery, columns_in,
                   is_aggregate)
from .schema import Schema

EVIDENCE_ROWS = 12


@dataclass
class OutColumn:
    name: str
    table: str = ""  # for a column of a table
    column: str = ""
    kind: str = "expr"  # iri | link | value | label | expr | aggregate
    entity: int | None = None  # for a label column: the result position of the thing it names (hidden)


@dataclass
class Compiled:
    sparql: str
    columns: list[OutColumn]
    # (query, triple patterns, group keys): the group keys are (variable, output column) pairs that restrict the
    # evidence of a grouped answer to its own groups (support.py binds them to the answer's values)
    evidence: list[tuple[str, list[tuple[str, str, str]], list[tuple[str, int]]]] = field(default_factory=list)
    grouped: bool = False
    # the things the conditions were checked on (the pattern without its filters): the support of "none" / "0"
    candidates: list[tuple[str, list[tuple[str, str, str]], list[tuple[str, int]]]] = field(default_factory=list)


class Compiler:
    def __init__(self, schema: Schema, labels: tuple[str, ...] = ()) -> None:
        self.schema = schema
        # the label languages preferred where a query keeps one label per thing: the question's first, then the view's
        self.label_order = tuple(dict.fromkeys((*labels, *schema.label_order)))
        self._ids = itertools.count(1)

    def fresh(self, stem: str) -> str:
        return f"{stem}{next(self._ids)}_"

    # ---- entry ---------------------------------------------------------------------------------------------
    def compile(self, plan: Plan) -> Compiled:
        if isinstance(plan, SetQuery):
            return self._set(plan)
        pat, outputs, cols, grouped, tail = self._query(plan, prefix="", outer=None)
        distinct = "DISTINCT " if plan.distinct else ""
        text = f"SELECT {distinct}{' '.join(outputs)}\nWHERE {{\n{pat.text()}\n}}{tail}"
        evidence = self._evidence(plan, pat, grouped)
        return Compiled(sparql=text, columns=cols, evidence=evidence, grouped=grouped,
                        candidates=self._candidates(pat))

    # ---- one SELECT ----------------------------------------------------------------------------------------
    def _query(self, q: Query, prefix: str, outer: dict[str, str] | None, out_names: list[str] | None = None):
        """(pattern, projection terms, output columns, grouped?, solution modifiers text)."""
        pat = Pattern()
        alias_var = self._typed_sources(q, pat, prefix, outer)
        ex = ExprCompiler(self, pat, alias_var)
        left_joined = {s.alias.lower() for s in q.sources if s.optional}
        ex.left_joined = left_joined
        pat.exprs = ex
        # one label per thing where rows are counted: by an aggregate, and by LIMIT / OFFSET (the top 3 things are
        # 3 things, whatever number of languages names them)
        aggregated = bool(q.group_by) or q.having is not None or any(is_aggregate(it.expr) for it in q.select)
        grouped = aggregated or any(is_aggregate(o.expr) for o in q.order_by)
        ex.one_label = aggregated or q.limit is not None or bool(q.offset)
        # a column the answer only shows: a thing without the value is still a row (SQL shows NULL), not dropped
        shown = _shown_only(q) if out_names is None and not prefix and not grouped else set()
        self._column_triples(q, ex, left_joined, shown)
        self._join_conditions(q, pat, ex, left_joined)
        if q.where is not None:
            pat.filters += [f for f in ex.conditions(q.where) if f]
        keys = [ex.value(g) for g in q.group_by]
        outputs, cols = self._projection(q, pat, ex, alias_var, keys, grouped, out_names)
        tail = pat.rename_text(_modifiers(q, ex, keys, grouped))
        outputs = [pat.rename_text(o) for o in outputs]
        return pat, outputs, cols, grouped, tail

    def _typed_sources(self, q: Query, pat: Pattern, prefix: str, outer: dict[str, str] | None) -> dict[str, str]:
        """The variable of each source (alias -> variable, with the `outer` query's), typed with its table's class
        (a LEFT JOINed source's type in its OPTIONAL group)."""
        alias_var: dict[str, str] = dict(outer or {})
        for s in q.sources:
            v = sparql_var(prefix + s.alias)
            alias_var[s.alias.lower()] = v
            self._type_pattern(pat, v, s.table, group=s.alias.lower() if s.optional else None)
        return alias_var

    @staticmethod
    def _column_triples(q: Query, ex: ExprCompiler, left_joined: set[str], shown: set[tuple[str, str]]) -> None:
        """The triple of every column the query uses, required or optional: in its LEFT JOIN's group, in a group of
        its own when the answer only shows it, optional where _optional_columns says so."""
        optional_cols = _optional_columns(q)
        # a column of the kept side used only in a LEFT JOIN's ON (e.hasManager = m.iri) belongs to the OPTIONAL
        # group: a row without that value is kept (its LEFT JOINed row unbound)
        elsewhere = {(c.alias.lower(), c.column.lower())
                     for c in _all_columns(replace(q, joins=tuple(j for j in q.joins if not j.optional)))}
        only_on = {(c.alias.lower(), c.column.lower()) for j in q.joins if j.optional
                   for c in (j.left, j.right)} - elsewhere
        for c in _all_columns(q):
            if (c.alias.lower(), c.column.lower()) in only_on:
                continue  # made in its LEFT JOIN's group (_join_conditions)
            if c.alias.lower() in left_joined:
                ex.column_var(c, group=c.alias.lower())
            elif (c.alias.lower(), c.column.lower()) in shown and ex.column(c).kind != "id":
                ex.column_var(c, group=f"shown {c.alias.lower()}.{c.column.lower()}")
            elif (c.alias.lower(), c.column.lower()) in optional_cols:
                ex.column_var(c, optional=True)
            else:
                ex.column_var(c)

    def _join_conditions(self, q: Query, pat: Pattern, ex: ExprCompiler, left_joined: set[str]) -> None:
        """Each join condition, a LEFT JOIN's in its OPTIONAL group."""
        for j in q.joins:
            group = next((c.alias.lower() for c in (j.left, j.right) if c.alias.lower() in left_joined), None)
            if j.optional and group:
                for c in (j.left, j.right):
                    ex.column_var(c, group=group)
                ex.group = group
            try:
                self._join(pat, ex, j.left, j.right)
            finally:
                ex.group = None

    def _projection(self, q: Query, pat: Pattern, ex: ExprCompiler, alias_var: dict[str, str], keys: list[str],
                    grouped: bool, out_names: list[str] | None) -> tuple[list[str], list[OutColumn]]:
        """The projection terms and the output columns: the selected items (named `out_names`, else ?o1, ?o2...);
        for the outermost query, the measure a ranking of groups was ranked by and the thing behind each selected
        name, as hidden outputs after the visible ones."""
        outputs, cols = [], []
        names = out_names or [f"?o{i + 1}" for i in range(len(q.select))]
        for i, it in enumerate(q.select):
            term = ex.value(it.expr, grouped=grouped, keys=keys)
            outputs.append(f"({term} AS {names[i]})")
            cols.append(self._out_column(it))
        if out_names is None and grouped and q.limit is not None:
            # a superlative over groups ("the supplier with the most orders") reports the measure it was ranked by
            for o in q.order_by:
                if is_aggregate(o.expr) and all(o.expr != it.expr for it in q.select):
                    term = ex.value(o.expr, grouped=grouped, keys=keys)
                    outputs.append(f"({term} AS ?o{len(outputs) + 1})")
                    cols.append(OutColumn(o.expr.func if isinstance(o.expr, Agg) else "measure", kind="aggregate"))
        if out_names is None:  # the thing behind each selected name, as a hidden output after the visible ones
            for i, it in enumerate(q.select):
                if cols[i].kind == "label" and isinstance(it.expr, Col) and it.expr.alias.lower() in alias_var:
                    var = alias_var[it.expr.alias.lower()]
                    in_keys = pat.find(var) in [pat.find(k) for k in keys]
                    outputs.append(f"({var if not grouped or in_keys else f'SAMPLE({var})'} AS ?e{i + 1})")
                    cols[i].entity = len(outputs) - 1
        return outputs, cols

    def _type_pattern(self, pat: Pattern, var: str, table_name: str, group: str | None = None) -> None:
        table = self.schema.table(table_name)
        if table.named_only:  # a TBox's classes: the named ones, not the anonymous class expressions
            (pat.groups.setdefault(group, []) if group is not None else pat.blocks).append(f"FILTER(isIRI({var}))")
        if table.typed_all or len(table.classes) == 1:
            cls = table.cls if table.cls in table.classes or not table.classes else table.classes[0]
            triple = (var, "a", URIRef(cls).n3())
            if group is not None:  # a LEFT JOINed table: in its OPTIONAL group
                pat.groups.setdefault(group, []).append(triple)
            else:
                pat.triples.append(triple)
            return
        t = var + "_t"
        values = " ".join(URIRef(c).n3() for c in table.classes)
        # one row per thing (a thing typed with two of the classes is one row), with one of its types, so that the
        # type triple is part of the evidence
        block = (f"{{ SELECT {var} (SAMPLE({t}_any) AS {t}) WHERE {{ {var} a {t}_any . VALUES {t}_any {{ {values} }} }}"
                 f" GROUP BY {var} }}")
        if group is not None:  # a LEFT JOINed table: the rows of its subclasses too, in its OPTIONAL group
            pat.groups.setdefault(group, []).append(block)
            pat.groups[group].append((var, "a", t))
        else:
            pat.blocks.append(block)
            pat.triples.append((var, "a", t))

    def _join(self, pat: Pattern, ex: ExprCompiler, left: Col, right: Col) -> None:
        lc, rc = ex.column(left), ex.column(right)
        lk, rk = lc.kind, rc.kind
        lv, rv = ex.column_var(left), ex.column_var(right)
        if {lk, rk} <= {"id", "link"}:
            for col, other in ((left, right), (right, left)):
                c = ex.column(col)
                if c.kind == "link" and ex.column(other).kind == "id" and c.target and c.target.lower() != \
                        other.table.lower() and not self.related(c.target, other.table):
                    raise PlanError(f"{col.alias}.{c.name} links to rows of {c.target}, not of {other.table}: join "
                                    f"{c.target} AS ... ON {col.alias}.{c.name} = ....iri instead.")
            if lk == rk == "id" and ex.group is not None:
                # a LEFT JOIN of the same thing in another class (a fish LEFT JOIN shark ON f.iri = s.iri): the
                # joined row is bound only when the thing is in that class, so its variable stays its own
                pat.groups.setdefault(ex.group, []).append(f"FILTER({lv} = {rv})")
                return
            if {lk, rk} == {"link", "id"}:
                link, thing = (left, right) if lk == "link" else (right, left)
                key = (link.alias.lower(), link.column.lower())
                if key in ex.joined_links and ex.joined_links[key] != thing.alias.lower():
                    # a link joined again to another row (JOIN c1 ON f.place = c1.iri JOIN c2 ON f.place = c2.iri):
                    # a link holds several values per row, and each join reads one of them, as a link table would
                    # (the things linked to both c1 and c2), never the same value twice
                    for triple in ex.column(link).triples(ex.alias_var[link.alias.lower()], ex.column_var(thing),
                                                          ex.column_var(link) + f"_{thing.alias.lower()}"):
                        ex.add(triple)
                    return
                ex.joined_links.setdefault(key, thing.alias.lower())
            pat.unify(lv, rv)
            return
        if "value" in (lk, rk) and {lk, rk} & {"id", "link"}:
            link = left if lk != "value" else right
            value = right if link is left else left
            if self._join_through(pat, ex, link, value):
                return
            c = ex.column(link)
            target = c.target if c.kind == "link" else link.table
            raise PlanError(f"{link.alias}.{c.name} holds links to {target or 'things'} (their iri), not values: "
                            f"join {target or 'that table'} ON {link.alias}.{c.name} = <alias>.iri and compare "
                            "its columns.")
        if lc.sql_type != rc.sql_type and "TEXT" in (lc.sql_type, rc.sql_type):
            pat.filters.append(f"STR({lv}) = STR({rv})")
        else:
            pat.unify(lv, rv)

    def _join_through(self, pat: Pattern, ex: ExprCompiler, thing: Col, value: Col) -> bool:
        """A thing (a row's iri or a link) equal to a value column: the thing carries that value. Either the
        value column is a key column of the thing's table (`orders.depot = depots.iri` where depot REFERENCES
        depots(code): the depot's code is depot), or a column of the thing's own table (`tends.keeper =
        keeper.keeper_no`: the linked keeper's keeper_no)."""
        tc, vc = ex.column(thing), ex.column(value)
        table = tc.target if tc.kind == "link" else thing.table
        if not table:
            return False
        thing_var, value_var = ex.column_var(thing), ex.column_var(value)
        if vc.key_of and self.related(vc.key_of.split(".", 1)[0], table):
            key = self.schema.table(vc.key_of.split(".", 1)[0]).column(vc.key_of.split(".", 1)[1])
            if key is not None and key.prop is not None:
                for triple in key.triples(thing_var, value_var):
                    ex.add(triple)
                return True
        if self.related(value.table, table) and vc.prop is not None:
            for triple in vc.triples(thing_var, value_var):
                ex.add(triple)
            return True
        return False

    def related(self, a: str, b: str) -> bool:
        ta, tb = self.schema.table(a), self.schema.table(b)
        return bool(ta and tb and (set(ta.classes) & set(tb.classes)))

    def _out_column(self, it: Item) -> OutColumn:
        e = it.expr
        if isinstance(e, Col):
            c = self.schema.table(e.table).column(e.column)
            kind = "label" if c.is_label else c.kind
            return OutColumn(it.name or c.name, e.table, c.name, kind)
        name = it.name or ""
        return OutColumn(name, kind="aggregate" if is_aggregate(e) else "expr")

    # ---- subqueries used by expressions --------------------------------------------------------------------
    def subselect(self, q: Plan, outer: dict[str, str], out_names: list[str]) -> str:
        """A sub-SELECT projecting its outputs under `out_names` (correlation with `outer` is not allowed here)."""
        if isinstance(q, SetQuery):
            return "{ " + self._set_body(q, out_names) + " }"
        prefix = self.fresh("s")
        pat, outputs, _, _, tail = self._query(q, prefix=prefix, outer=None, out_names=out_names)
        distinct = "DISTINCT " if q.distinct or not is_aggregate(q.select[0].expr) else ""
        return f"{{ SELECT {distinct}{' '.join(outputs)} WHERE {{\n{pat.text('    ')}\n  }}{tail} }}"

    def inline(self, q: Query, outer: dict[str, str]) -> str:
        """The WHERE pattern of a subquery inline (for FILTER [NOT] EXISTS), sharing the outer variables."""
        if q.group_by or q.having is not None or q.limit is not None:
            raise PlanError("EXISTS (...) with GROUP BY, HAVING or LIMIT is not supported: use IN (SELECT ...) or "
                            "a JOIN with GROUP BY / HAVING in the main query.")
        prefix = self.fresh("e")
        pat, _, _, _, _ = self._query(Query(select=q.select[:1] or (), sources=q.sources, joins=q.joins,
                                            where=q.where), prefix=prefix, outer=outer)
        return pat.text("    ")

    # ---- set operations ------------------------------------------------------------------------------------
    def _set(self, s: SetQuery) -> Compiled:
        width = _width(s)
        names = [f"?o{i + 1}" for i in range(width)]
        body = self._set_body(s, names)
        tail = ""
        if s.order_by:
            tail += "\nORDER BY " + " ".join(f"{'DESC' if o.desc else 'ASC'}({names[int(o.expr.value)]})"
                                             for o in s.order_by)
        if s.limit is not None:
            tail += f"\nLIMIT {s.limit}"
        if s.offset:
            tail += f"\nOFFSET {s.offset}"
        distinct = "" if s.all else "DISTINCT "
        first = _first(s)
        cols = [self._out_column(it) for it in first.select]
        evidence = []
        for side in ((s.left,) if s.op == "except" else (s.left, s.right)):
            if isinstance(side, Query):
                evidence += self.compile(side).evidence
        return Compiled(sparql=f"SELECT {distinct}{' '.join(names)}\nWHERE {{\n  {body}\n}}{tail}", columns=cols,
                        evidence=evidence)

    def _set_body(self, s: SetQuery, names: list[str]) -> str:
        left, right = self.subselect(s.left, {}, names), self.subselect(s.right, {}, names)
        if s.op == "union":
            return f"{left}\n  UNION\n  {right}"
        if s.op == "intersect":
            return f"{left}\n  {right}"
        return f"{left}\n  MINUS\n  {right}"

    # ---- evidence ------------------------------------------------------------------------------------------
    def _candidates(self, pat: Pattern) -> list[tuple[str, list[tuple[str, str, str]]]]:
        """The rows the conditions were tested on, a few: first the things the question names (the pattern with
        its filters on one variable, such as a name), then the triple patterns alone."""
        triples = [(pat.find(s) if s.startswith("?") else s, p, pat.find(o) if o.startswith("?") else o)
                   for s, p, o in dedupe(pat.triples)]
        variables = sorted({t for tr in triples for t in (tr[0], tr[2]) if t.startswith("?")})
        if not variables:
            return []
        body = "\n".join(f"  {s} {p} {o} ." for s, p, o in triples)
        out = []
        named = [f for f in (pat.rename_text(f) for f in pat.filters)
                 if len(set(re.findall(r"\?[A-Za-z_][A-Za-z0-9_]*", f))) == 1]
        if named:
            filters = "\n".join(f"  FILTER({f})" for f in named)
            out.append((f"SELECT DISTINCT {' '.join(variables)}\nWHERE {{\n{body}\n{filters}\n}}\nLIMIT 5",
                        triples, []))
        out.append((f"SELECT DISTINCT {' '.join(variables)}\nWHERE {{\n{body}\n}}\nLIMIT 5", triples, []))
        return out

    def _evidence(self, q: Query, pat: Pattern, grouped: bool) -> list[tuple[str, list[tuple[str, str, str]]]]:
        every = pat.triples + [t for g in pat.groups.values() for t in g if isinstance(t, tuple)]
        triples = [(pat.find(s) if s.startswith("?") else s, p, pat.find(o) if o.startswith("?") else o)
                   for s, p, o in dedupe(every)]
        variables = sorted({t for tr in triples for t in (tr[0], tr[2]) if t.startswith("?")})
        if not variables:
            return []
        tail = ""
        if not grouped:
            if q.order_by:
                ex = pat.exprs  # the query's own column variables (a fresh compiler knows no alias)
                try:
                    tail += "\nORDER BY " + " ".join(f"{'DESC' if o.desc else 'ASC'}({pat.rename_text(ex.value(o.expr))})"
                                                     for o in q.order_by)
                except PlanError:
                    tail = ""
            limit = min(q.limit, EVIDENCE_ROWS) if q.limit is not None else EVIDENCE_ROWS
            tail += f"\nLIMIT {limit}" + (f"\nOFFSET {q.offset}" if q.offset else "")
        else:
            tail = f"\nLIMIT {EVIDENCE_ROWS}"
        keys: list[tuple[str, int]] = []
        if grouped and q.group_by:
            for i, it in enumerate(q.select):
                if it.expr in q.group_by and isinstance(it.expr, Col):
                    try:
                        keys.append((pat.find(pat.exprs.column_var(it.expr)), i))
                    except PlanError:
                        pass
        text = f"SELECT DISTINCT {' '.join(variables)}\nWHERE {{\n{pat.text()}\n}}{tail}"
        return [(text, triples, keys)]


def _first(s: Plan) -> Query:
    return s if isinstance(s, Query) else _first(s.left)


def _width(s: Plan) -> int:
    return len(s.select) if isinstance(s, Query) else _width(s.left)


def _outside_where(q: Query) -> list[Col]:
    """The columns of the select list, join conditions, grouping, having and ordering."""
    out: list[Col] = []
    for it in q.select:
        columns_in(it.expr, out)
    for j in q.joins:
        out += [j.left, j.right]
    for e in (*q.group_by, *(o.expr for o in q.order_by)) + ((q.having,) if q.having is not None else ()):
        columns_in(e, out)
    return out


def _all_columns(q: Query) -> list[Col]:
    """Columns of this query level that need a triple pattern (not those only under IS NULL)."""
    out = _outside_where(q)
    if q.where is not None:
        columns_in(_strip_isnull(q.where), out)
    return list(dict.fromkeys(out))


def _strip_isnull(e):
    from .plan import And
    if isinstance(e, IsNull):
        return None
    if isinstance(e, (And, Or)):
        return type(e)(tuple(_strip_isnull(x) for x in e.items))
    if isinstance(e, Not):
        return Not(_strip_isnull(e.item))
    return e


def _shown_only(q: Query) -> set[tuple[str, str]]:
    """Columns that are items of the select list as they are and read nowhere else: in no other item, join,
    condition (subqueries included), grouping, ordering or HAVING. A thing that lacks such a value is still a row
    of the answer, with an empty cell, as SQL keeps a row whose selected column is NULL: their triples are OPTIONAL
    (each column in a group of its own, so that a column reached through another thing is bound whole or not)."""
    key = lambda c: (c.alias.lower(), c.column.lower())  # noqa: E731
    read: list[Col] = []
    for it in q.select:
        if not isinstance(it.expr, Col):
            columns_in(it.expr, read)
    for j in q.joins:
        read += [j.left, j.right]
    columns_in((q.where, *q.group_by, *(o.expr for o in q.order_by), q.having), read, deep=True)
    return {key(it.expr) for it in q.select if isinstance(it.expr, Col)} - {key(c) for c in read}


def _optional_columns(q: Query) -> set[tuple[str, str]]:
    """Columns referenced in WHERE only under OR / NOT: their triples are OPTIONAL (a row may lack them)."""
    from .plan import And
    required = _outside_where(q)
    soft: list[Col] = []
    conj = q.where.items if isinstance(q.where, And) else (q.where,) if q.where is not None else ()
    for c in conj:
        if isinstance(c, (Or, Not)):
            columns_in(_strip_isnull(c), soft)
        elif not isinstance(c, (IsNull, Exists, InQuery)):
            columns_in(_strip_isnull(c), required)
    req = {(c.alias.lower(), c.column.lower()) for c in required}
    return {(c.alias.lower(), c.column.lower()) for c in soft} - req


def compile_plan(schema: Schema, plan: Plan, labels: tuple[str, ...] = ()) -> Compiled:
    """The plan as one SPARQL query. `labels`: the label languages the question prefers (a query that keeps one
    label per thing keeps the first of them it has; then the view's order)."""
    return Compiler(schema, labels).compile(plan)


__all__ = ["Compiled", "Compiler", "OutColumn", "compile_plan", "RDF", "XSD", "Literal"]


def _modifiers(q: Query, ex: ExprCompiler, keys: list[str], grouped: bool) -> str:
    """The solution modifiers of a query: GROUP BY, HAVING, ORDER BY, LIMIT and OFFSET."""
    tail = ""
    if keys:
        tail += "\nGROUP BY " + " ".join(k if k.startswith("?") else f"({k})" for k in keys)
    if q.having is not None:
        tail += f"\nHAVING ({ex.condition(q.having)})"
    if q.order_by:
        terms = [f"{'DESC' if o.desc else 'ASC'}"
                 f"({_order_term(ex, o, ex.value(o.expr, grouped=grouped, keys=keys))})"
                 for o in q.order_by]
        tail += "\nORDER BY " + " ".join(terms)
    if q.limit is not None:
        tail += f"\nLIMIT {max(q.limit, 0)}"
    if q.offset:
        tail += f"\nOFFSET {max(q.offset, 0)}"
    return tail


def _order_term(ex: ExprCompiler, o: Order, term: str) -> str:
    """An ORDER BY term: a date column by its ISO 8601 lexical form, which sorts years and full dates alike in time
    order (SPARQL leaves the order of an xsd:gYear and an xsd:date undefined); a column of numbers written as text
    by their value ("98" before "150"), a row without a number last either way ("null" is no largest value); the
    MIN / MAX of such a column by value too."""
    e = o.expr
    try:
        if isinstance(e, Col) and ex.kind(e) == "date":
            return f"STR({term})"
        if isinstance(e, Col) and ex.column(e).numbers_as_text:
            return f"COALESCE(xsd:double({term}), {'-1e308' if o.desc else '1e308'})"
        if isinstance(e, Agg) and e.func in ("min", "max") and isinstance(e.arg, Col) and \
                ex.column(e.arg).numbers_as_text:
            return ex.text_number_extreme(e, o.desc)
    except PlanError:
        pass
    return term
