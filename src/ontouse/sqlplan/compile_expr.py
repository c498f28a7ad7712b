"""Compile plan expressions (plan.py) into SPARQL expressions and filters, one function per construct.

Types follow the view's columns: text columns are compared through STR() (so "x", "x"^^xsd:string and "x"@en are
equal), numbers stored as text are cast, and a link column (or a row's iri) compared with text compares the
linked thing's name (its label), which is what "the department = 'Marketing'" means."""

from __future__ import annotations

import itertools
import re
from dataclasses import replace
from typing import Any, Callable, Protocol

from rdflib import Literal, URIRef

from .plan import (Agg, And, Arith, Between, Cmp, Col, Exists, Expr, Func, InList, InQuery, IsNull, Like, Lit, Not,
                   Or, Plan, PlanError, Query, Scalar, columns_in)
from .pattern import Pattern
from .schema import Column, Schema, is_number_text

_SPARQL_OP = {"=": "=", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_ids = itertools.count(1)


def sparql_var(name: str) -> str:
    return "?" + (re.sub(r"[^0-9A-Za-z_]", "_", name) or "v")


def _num(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return repr(float(value))


class QueryCompiler(Protocol):
    """What an expression needs of the compiler of the whole plan (`compile.Compiler`): the view, a subquery as a
    sub-SELECT or as a pattern inline, and whether two tables hold things of a common class."""

    schema: Schema
    label_order: tuple[str, ...]  # the label languages preferred where one label per thing is kept

    def subselect(self, q: Plan, outer: dict[str, str], out_names: list[str]) -> str: ...

    def inline(self, q: Query, outer: dict[str, str]) -> str: ...

    def related(self, a: str, b: str) -> bool: ...


# calendar datatypes whose lexical forms (ISO 8601) sort in time order: a column of years that also holds full dates
# (a year where the day is not known) is compared and ordered on them, never as numbers against dates
_CALENDAR = frozenset({"gYear", "gYearMonth", "date", "dateTime", "dateTimeStamp"})


class ExprCompiler:
    def __init__(self, compiler: QueryCompiler, pat: Pattern, alias_var: dict[str, str]) -> None:
        self.c = compiler
        self.pat = pat
        self.alias_var = alias_var
        self._vars: dict[tuple[str, str], str] = {}
        self.left_joined: set[str] = set()  # aliases of LEFT JOINed tables
        self.group: str | None = None  # the LEFT JOIN whose condition is being compiled
        self.one_label = False  # an aggregating or limited query: a thing named in two languages is one row
        self.joined_links: dict[tuple[str, str], str] = {}  # (alias, link column) -> the alias it was joined to

    def add(self, triple: tuple[str, str, str]) -> None:
        """A triple of the pattern (of the LEFT JOIN being compiled, if any)."""
        if self.group is not None:
            self.pat.groups.setdefault(self.group, []).append(triple)
        else:
            self.pat.triples.append(triple)

    # ---- columns -------------------------------------------------------------------------------------------
    def column(self, col: Col) -> Column:
        table = self.c.schema.table(col.table)
        c = table.column(col.column) if table else None
        if c is None:
            raise PlanError(f"There is no column {col.table}.{col.column}.")
        return c

    def column_var(self, col: Col, optional: bool = False, group: str | None = None) -> str:
        base = self.alias_var.get(col.alias.lower())
        if base is None:
            owners = [t.name for t in self.c.schema.tables.values() if t.column(col.column)]
            raise PlanError(f"`{col.column}` is not a column of the subquery's own tables (it belongs to "
                            f"{col.alias}, a table of the query around it). Inside IN (SELECT ...) use only the "
                            f"subquery's tables; `{col.column}` is a column of {', '.join(owners[:4])}.")
        c = self.column(col)
        if c.kind == "id":
            return base
        key = (col.alias.lower(), c.name.lower())
        if key not in self._vars:
            var = f"{base}__{re.sub(r'[^0-9A-Za-z_]', '_', c.name)}"
            self._vars[key] = var
            for triple in c.triples(base, var, f"{var}_same"):
                if group is not None:
                    self.pat.groups.setdefault(group, []).append(triple)
                else:
                    (self.pat.optional if optional else self.pat.triples).append(triple)
            if self.one_label and c.is_label and c.prop is not None and not c.via and not optional:
                best = self._best_label(base, c.prop, var)
                if best and group is not None:  # inside the OPTIONAL group: a thing without a label stays
                    self.pat.groups[group].append(f"FILTER({best})")
                elif best:
                    self.pat.filters.append(best)
        return self._vars[key]

    def _best_label(self, thing: str, prop: str, var: str) -> str:
        """A filter that keeps, of a thing's labels in several languages, only those in its most preferred language
        (the question's languages, then the view's order: the ontology's main language, then untagged), so that a
        count, sum or average over things counts each thing once, and LIMIT keeps as many things as it says,
        however many languages name them."""
        order = list(self.c.label_order)
        if not self._several_languages():
            return ""

        def rank(v: str) -> str:
            text = str(len(order))
            for i, code in reversed(list(enumerate(order))):
                test = f'LANG({v}) = ""' if not code else f'langMatches(LANG({v}), "{code}")'
                text = f"IF({test}, {i}, {text})"
            return text
        better = f"{var}_other"
        return f"NOT EXISTS {{ {thing} <{prop}> {better} . FILTER({rank(better)} < {rank(var)}) }}"

    def kind(self, e: Expr) -> str:
        """text | number | thing | bool | date | other"""
        if isinstance(e, Col):
            c = self.column(e)
            if c.kind in ("id", "link"):
                return "thing"
            if c.datatype.rsplit("#", 1)[-1] in _CALENDAR:  # years (xsd:gYear) beside dates: compared as dates
                return "date"
            return {"TEXT": "text", "INTEGER": "number", "REAL": "number", "BOOLEAN": "bool"}.get(c.sql_type, "date")
        if isinstance(e, Lit):
            if isinstance(e.value, bool):
                return "bool"
            return "number" if isinstance(e.value, (int, float)) else "text" if isinstance(e.value, str) else "other"
        if isinstance(e, (Agg, Arith)) or (isinstance(e, Func) and e.name in ("length", "round", "abs", "number",
                                                                             "year")):
            return "number" if not (isinstance(e, Agg) and e.func in ("min", "max") and e.arg is not None) \
                else self.kind(e.arg)
        if isinstance(e, Func):
            return "text"
        if isinstance(e, Scalar):  # the kind of the one value it gives ("SELECT code FROM ..." is text)
            return self._output_kind(e.query)
        return "other"

    def _output_kind(self, query: Any) -> str:
        if isinstance(query, Query) and len(query.select) == 1:
            try:
                kind = self.kind(query.select[0].expr)
            except PlanError:
                return "number"
            return kind if kind in ("text", "number", "date", "thing") else "number"
        return "number"

    # ---- values --------------------------------------------------------------------------------------------
    def value(self, e: Expr, grouped: bool = False, keys: list[str] | None = None) -> str:
        keys = keys or []
        if isinstance(e, Col):
            var = self.column_var(e)
            return var if not grouped or self.pat.find(var) in [self.pat.find(k) for k in keys] else f"SAMPLE({var})"
        if isinstance(e, Lit):
            if e.value is None:
                raise PlanError("NULL can only be tested with IS NULL / IS NOT NULL.")
            if isinstance(e.value, (bool, int, float)):
                return _num(e.value)
            return Literal(e.value).n3()
        if isinstance(e, Agg):
            return self._agg(e)
        if isinstance(e, Arith):
            return f"({self._number(e.left, grouped, keys)} {e.op} {self._number(e.right, grouped, keys)})"
        if isinstance(e, Func):
            return self._func(e, grouped, keys)
        if isinstance(e, Scalar):
            var = self._scalar(e)
            # one value for every row: inside an aggregate query ("100.0 * (SELECT COUNT ...) / COUNT(*)") it is
            # taken once per group
            return f"SAMPLE({var})" if grouped else var
        return self.condition(e)

    def _number(self, e: Expr, grouped: bool = False, keys: list[str] | None = None) -> str:
        v = self.value(e, grouped, keys)
        return f"xsd:double({v})" if self.kind(e) == "text" else v

    def _agg(self, e: Agg) -> str:
        if e.arg is None:
            return "COUNT(DISTINCT *)" if e.distinct else "COUNT(*)"
        if isinstance(e.arg, Func) and e.arg.name == "if" and len(e.arg.args) == 2:
            return self._agg_of_case(e)
        if e.func in ("min", "max") and isinstance(e.arg, Col) and self.column(e.arg).numbers_as_text:
            return self.text_number_extreme(e)
        arg = self.value(e.arg)
        if e.func in ("sum", "avg") and self.kind(e.arg) == "text":
            arg = f"xsd:double({arg})"
        return f"{e.func.upper()}({'DISTINCT ' if e.distinct else ''}{arg})"

    def text_number_extreme(self, e: Agg, desc: bool | None = None) -> str:
        """MIN / MAX of a column of numbers written as text, by value (as text, "9.75" is above "21"); a value that
        is no number ("null", "n/a") is skipped. As a value: a group without any number has none (""); as a
        ranking (`desc` given): such a group comes last either way, as a row without a number does."""
        none = "-1e308" if e.func == "max" else "1e308"  # what a value that is no number counts as: never the extreme
        agg = f"{e.func.upper()}(COALESCE(xsd:double({self.value(e.arg)}), {none}))"
        last = '""' if desc is None else "-1e308" if desc else "1e308"
        return agg if last == none else f"IF({agg} = {none}, {last}, {agg})"

    def _agg_of_case(self, e: Agg) -> str:
        """COUNT / SUM / AVG of CASE WHEN c THEN x END (no ELSE: NULL, which SQL's aggregates skip), written
        without an unbound value (SPARQL engines differ on aggregates of errors): COUNT counts the rows where c
        holds and x is bound, SUM adds 0 for the others, AVG divides that sum by that count."""
        cond, then = e.arg.args
        if e.distinct or e.func not in ("count", "sum", "avg"):
            raise PlanError(f"{e.func.upper()}({'DISTINCT ' if e.distinct else ''}CASE WHEN ... END) without ELSE "
                            "is not supported: put the condition in WHERE (or write ELSE).")
        holds = self.condition(cond)
        if isinstance(then, Col):
            holds = f"({holds}) && BOUND({self.value(then)})"
        count = f"SUM(IF({holds}, 1, 0))"
        if e.func == "count":
            return count
        total = f"SUM(IF({holds}, {self._number(then)}, 0))"
        return total if e.func == "sum" else f"({total} / {count})"

    def _func(self, e: Func, grouped: bool, keys: list[str]) -> str:
        if e.name == "if" and len(e.args) == 2:
            raise PlanError("CASE WHEN ... END without ELSE is only supported inside COUNT, SUM or AVG: write ELSE.")
        if e.name == "if":
            cond, then, other = e.args
            return f"IF({self.condition(cond)}, {self.value(then, grouped, keys)}, {self.value(other, grouped, keys)})"
        args = [self.value(a, grouped, keys) for a in e.args]
        if not args:
            raise PlanError(f"{e.name.upper()}() needs an argument.")
        a = args[0]
        if e.name == "round" and len(e.args) == 2:  # ROUND(x, n): n decimal places (SPARQL rounds to a whole number)
            scale = 10 ** int(e.args[1].value)
            return f"(ROUND({a} * {scale}) / {scale})"
        return {"lower": f"LCASE(STR({a}))", "upper": f"UCASE(STR({a}))", "length": f"STRLEN(STR({a}))",
                "round": f"ROUND({a})", "abs": f"ABS({a})", "number": f"xsd:double({a})", "text": f"STR({a})",
                "year": f"xsd:integer(SUBSTR(STR({a}), 1, 4))"}[e.name]

    def _scalar(self, e: Scalar) -> str:
        own = {s.alias.lower() for s in _sources(e.query)}
        outer = [c for c in columns_in(e.query.select if isinstance(e.query, Query) else (), deep=True)
                 + _where_cols(e.query) if c.alias.lower() not in own]
        if outer:
            c = outer[0]
            tables = ", ".join(dict.fromkeys(s.table for s in _sources(e.query)))
            raise PlanError(f"A subquery that gives one value may not refer to the tables of the query around it: "
                            f"`{c.column}` is not a column of the subquery's own tables ({tables}); it was read from "
                            f"{c.table} ({c.alias}) around it. Compute the value from the subquery's own tables (join "
                            f"{c.table} inside the subquery if it needs `{c.column}`), or use GROUP BY / HAVING, or "
                            "a JOIN.")
        var = f"?sc{next(_ids)}"
        self.pat.blocks.append(self.c.subselect(e.query, {}, [var]))
        return var

    # ---- conditions ----------------------------------------------------------------------------------------
    def conditions(self, e: Expr) -> list[str]:
        """FILTER texts for a WHERE condition; IN / NOT IN subqueries on a column become joins / MINUS blocks."""
        parts = e.items if isinstance(e, And) else (e,)
        out = []
        for p in parts:
            if isinstance(p, InQuery):
                p = self._link_key(p)
            if isinstance(p, InQuery) and isinstance(p.expr, Col) and self._same_type_in(p):
                var = self.column_var(p.expr)
                sub = self.c.subselect(p.query, {}, [var])
                self.pat.blocks.append(f"MINUS {sub}" if p.negated else sub)
                continue
            bound = self._bound_text(p)
            if bound:
                self.pat.blocks.append(bound)
            out.append(self.condition(p))
        return out

    def _bound_text(self, p: Expr) -> str:
        """`VALUES ?v { "text" }` for a condition `column = 'text'` on a text column whose every value is a plain
        string (or `column = 12` on an integer column whose every value is an xsd:integer in canonical form) and
        that a required triple pattern reads: the store then finds the rows by their value (an index lookup)
        instead of comparing the value of every row. The same rows (STR() of a plain string is the string itself;
        a canonical integer equals 12 only when it is the term 12); the FILTER stays, for the evidence and the
        diagnosis, which read the filters."""
        if not isinstance(p, Cmp) or p.op != "=":
            return ""
        col, lit = (p.left, p.right) if isinstance(p.left, Col) else (p.right, p.left)
        if not isinstance(col, Col) or not isinstance(lit, Lit) or isinstance(lit, _VarRef) \
                or isinstance(lit.value, bool) or self.group is not None:
            return ""
        c = self.column(col)
        if c.kind != "value" or c.via:
            return ""
        text = isinstance(lit.value, str) and c.sql_type == "TEXT" and c.plain
        number = isinstance(lit.value, int) and c.sql_type == "INTEGER" and c.canonical
        if not (text or number):
            return ""
        var = self.pat.find(self.column_var(col))
        if not any(o.startswith("?") and self.pat.find(o) == var for _, _, o in self.pat.triples):
            return ""  # read by an OPTIONAL pattern: an unbound value would pass a VALUES block
        return f"VALUES {var} {{ {Literal(lit.value).n3()} }}"

    def _link_key(self, p: InQuery) -> InQuery:
        """A thing and a key value on the two sides of IN: the key value and a link to the row are the same
        thing. `x.key IN (SELECT link ...)` where the link points at x's table compares the row itself;
        `link IN (SELECT key FROM T ...)` where the link points at T's rows selects those rows; `x.iri IN (SELECT
        fk FROM U)` where U's value column refers to x's key compares x's key."""
        q = p.query
        while not isinstance(q, Query):
            q = q.left
        if not isinstance(p.expr, Col) or len(q.select) != 1 or not isinstance(q.select[0].expr, Col):
            return p
        inner = q.select[0].expr
        outer_col = self.column(p.expr)
        inner_col = self.c.schema.table(inner.table).column(inner.column)
        if inner_col is None:
            return p
        if outer_col.kind == "value" and inner_col.kind == "link" and inner_col.target:
            if self.c.related(inner_col.target, p.expr.table):
                return replace(p, expr=Col(p.expr.alias, p.expr.table, "iri"))
            return p
        if outer_col.kind not in ("link", "id") or inner_col.kind != "value":
            return p
        things = outer_col.target if outer_col.kind == "link" else p.expr.table
        if things and p.query is q and self.c.related(inner.table, things):
            return replace(p, query=replace(q, select=(replace(q.select[0], expr=Col(inner.alias, inner.table,
                                                                                        "iri")),)))
        if outer_col.kind == "id" and inner_col.key_of:
            table, key = inner_col.key_of.split(".", 1)
            if self.c.related(table, p.expr.table):
                return replace(p, expr=Col(p.expr.alias, p.expr.table, key))
        return p

    def _same_type_in(self, p: InQuery) -> bool:
        q = p.query
        while not isinstance(q, Query):
            q = q.left
        if len(q.select) != 1:
            raise PlanError("A subquery after IN must select exactly one column.")
        inner = q.select[0].expr
        if not isinstance(inner, Col):
            return False
        own = {s.alias.lower() for s in q.sources}
        if any(c.alias.lower() not in own for c in _where_cols(q)):
            return False
        a, b = self.column(p.expr), self.c.schema.table(inner.table).column(inner.column)
        return b is not None and ((a.kind in ("id", "link")) == (b.kind in ("id", "link"))) and (
            a.kind in ("id", "link") or a.sql_type == b.sql_type)

    def condition(self, e: Expr) -> str:
        if isinstance(e, And):
            return " && ".join(f"({self.condition(x)})" for x in e.items)
        if isinstance(e, Or):
            return " || ".join(f"({self.condition(x)})" for x in e.items)
        if isinstance(e, Not):
            return f"!({self.condition(e.item)})"
        if isinstance(e, Cmp):
            return self._cmp(e.op, e.left, e.right)
        if isinstance(e, Like):
            return self._like(e)
        if isinstance(e, InList):
            inner = " || ".join(f"({self._cmp('=', e.expr, v)})" for v in e.values) or "false"
            return f"!({inner})" if e.negated else inner
        if isinstance(e, Between):
            inner = f"({self._cmp('>=', e.expr, e.low)}) && ({self._cmp('<=', e.expr, e.high)})"
            return f"!({inner})" if e.negated else inner
        if isinstance(e, IsNull):
            return self._isnull(e)
        if isinstance(e, Exists):
            if not isinstance(e.query, Query):
                raise PlanError("EXISTS takes one SELECT, not a UNION / INTERSECT / EXCEPT.")
            body = self.c.inline(e.query, self.alias_var)
            return f"{'NOT ' if e.negated else ''}EXISTS {{\n{body}\n  }}"
        if isinstance(e, InQuery):
            e = self._link_key(e)
            var = f"?in{next(_ids)}"
            sub = self.c.subselect(e.query, {}, [var])
            test = self._cmp("=", e.expr, _VarRef(var, self._output_kind(e.query)))
            return f"{'NOT ' if e.negated else ''}EXISTS {{ {sub} FILTER({test}) }}"
        if isinstance(e, Lit) and isinstance(e.value, bool):
            return "true" if e.value else "false"
        if isinstance(e, (Col, Agg, Func, Arith)):
            return f"({self.value(e)}) != 0"
        raise PlanError(f"This condition cannot be used: {type(e).__name__}.")

    def _any_label(self, e: Expr) -> tuple[str, str] | None:
        """(the thing, the label property) when `e` is a label column of an aggregating query over labels in
        several languages: there the label variable keeps only the preferred language's label (`_best_label`), so
        a condition on the name must test every label the thing has ("ski room"@en names the thing whose view
        label is "deposito sci"@it)."""
        if not (self.one_label and isinstance(e, Col)) or not self._several_languages():
            return None
        c = self.column(e)
        base = self.alias_var.get(e.alias.lower())
        if base is None or not c.is_label or c.prop is None or c.via or e.alias.lower() in self.left_joined:
            return None
        return base, c.prop

    def _several_languages(self) -> bool:
        """The graph's labels are in more than one language (untagged labels count as one)."""
        return len([k for k, n in self.c.schema.languages.counts.items() if n]) >= 2

    def _label_test(self, thing: tuple[str, str], test: Callable[[str], str], negated: bool = False) -> str:
        """`test` (of a label variable) holds for one of the thing's labels (for none of them: `negated`)."""
        var = f"?anyl{next(_ids)}"
        body = f"EXISTS {{ {thing[0]} <{thing[1]}> {var} . FILTER({test(var)}) }}"
        return f"NOT {body}" if negated else body

    def _cmp(self, op: str, left: Expr, right: Expr) -> str:
        if op in ("=", "!=") and isinstance(right, Lit) and not isinstance(right, _VarRef) \
                and isinstance(right.value, str):
            thing = self._any_label(left)
            if thing is not None:
                lit = Literal(right.value).n3()
                return self._label_test(thing, lambda v: f"STR({v}) = {lit}", negated=op == "!=")
        lk, rk = self._kind(left), self._kind(right)
        if lk == "thing" and rk == "text" and isinstance(right, Lit) and not isinstance(right, _VarRef):
            return self._name_cmp(op, left, right)
        if rk == "thing" and lk == "text" and isinstance(left, Lit) and not isinstance(left, _VarRef):
            return self._name_cmp(_FLIP[op], right, left)
        lv, rv = self._val(left), self._val(right)
        if "number" in (lk, rk) and "text" in (lk, rk):
            lit = right if isinstance(right, Lit) else left if isinstance(left, Lit) else None
            if lit is not None and isinstance(lit.value, str) and not is_number_text(lit.value):
                return f"STR({lv}) {_SPARQL_OP[op]} STR({rv})"
            lv = f"xsd:double({lv})" if lk == "text" else lv
            rv = f"xsd:double({rv})" if rk == "text" else rv
            if isinstance(right, Lit) and isinstance(right.value, str):
                rv = _num(float(right.value))
            if isinstance(left, Lit) and isinstance(left.value, str):
                lv = _num(float(left.value))
            return f"{lv} {_SPARQL_OP[op]} {rv}"
        if lk == "text" or rk == "text" or lk == "date" or rk == "date":
            return f"STR({lv}) {_SPARQL_OP[op]} STR({rv})"
        return f"{lv} {_SPARQL_OP[op]} {rv}"

    def _kind(self, e: Expr) -> str:
        return e.kind if isinstance(e, _VarRef) else self.kind(e)

    def _val(self, e: Expr) -> str:
        return e.var if isinstance(e, _VarRef) else self.value(e)

    def _name_cmp(self, op: str, thing: Expr, text: Lit) -> str:
        """A thing compared with text: compare the thing's name (label) or its key (a text column that holds a
        different value on every row of its table: the code a linked row is known by), or else its IRI's local
        name."""
        var = self.value(thing)
        target = self.column(thing).target if isinstance(thing, Col) and self.column(thing).kind == "link" else (
            thing.table if isinstance(thing, Col) else "")
        table = self.c.schema.table(target) if target else None
        props = [c.prop for c in table.columns.values() if c.is_label] if table else []
        props = props or list(self.c.schema.label_props)
        keys = [c.prop for c in table.key_columns()] if table is not None and props and op in ("=", "!=") else []
        lit = Literal(text.value).n3()
        if props:
            n = next(_ids)
            values = " ".join(URIRef(p).n3() for p in props + keys)
            reach = ""
            joined = isinstance(thing, Col) and (thing.alias.lower(), thing.column.lower()) in self.joined_links
            if op == "=" and joined:
                # a link joined to another row too ("both A and B"): one of its other values is named so
                col = self.column(thing)
                var = f"?n{n}_"
                reach = " ".join(f"{a} {b} {c} ." for a, b, c in col.triples(self.alias_var[thing.alias.lower()], var,
                                                                         f"?n{n}_same")) + " "
            if keys:  # named or known by its key: = is "one of them equals", != is "none of them equals"
                test = (f"{'!' if op == '!=' else ''}EXISTS {{ {reach}{var} ?lp{n} ?l{n} . "
                        f"VALUES ?lp{n} {{ {values} }} FILTER(STR(?l{n}) = {lit}) }}")
            else:
                test = (f"EXISTS {{ {reach}{var} ?lp{n} ?l{n} . VALUES ?lp{n} {{ {values} }} "
                        f"FILTER(STR(?l{n}) {_SPARQL_OP[op]} {lit}) }}")
            # an unbound link (an OPTIONAL one, under OR / NOT) would be a free variable inside EXISTS
            return f"(BOUND({var}) && {test})" if var.startswith("?") and not reach else test
        return f"REPLACE(STR({var}), \"^.*[/#:]\", \"\") {_SPARQL_OP[op]} {lit}"

    def _like(self, e: Like) -> str:
        thing = self._any_label(e.expr)
        if thing is not None:  # one of the thing's labels matches (none of them, for NOT LIKE)
            return self._label_test(thing, lambda v: _like_test(f"STR({v})", e.pattern), negated=e.negated)
        test = _like_test(f"STR({self.value(e.expr)})", e.pattern)
        return f"!({test})" if e.negated else test

    def _isnull(self, e: IsNull) -> str:
        if not isinstance(e.expr, Col):
            raise PlanError("IS NULL / IS NOT NULL applies to a column.")
        c = self.column(e.expr)
        base = self.alias_var[e.expr.alias.lower()]
        if e.expr.alias.lower() in self.left_joined:  # a LEFT JOINed table: no match leaves its row unbound
            return f"BOUND({base})" if e.negated else f"!BOUND({base})"
        if c.kind == "id":
            return "false" if not e.negated else "true"
        n = next(_ids)
        pattern = "{ " + " ".join(f"{a} {b} {d} ." for a, b, d in c.triples(base, f"?null{n}")) + " }"
        return f"EXISTS {pattern}" if e.negated else f"NOT EXISTS {pattern}"


def _like_test(v: str, pat: str) -> str:
    """SPARQL that holds when the text `v` matches the SQL LIKE pattern `pat` (case-insensitive)."""
    core = pat.strip("%")
    if "_" not in pat and "%" not in core:
        needle = Literal(core.lower()).n3()
        if pat.startswith("%") and pat.endswith("%"):
            return f"CONTAINS(LCASE({v}), {needle})"
        if pat.endswith("%"):
            return f"STRSTARTS(LCASE({v}), {needle})"
        if pat.startswith("%"):
            return f"STRENDS(LCASE({v}), {needle})"
        return f"LCASE({v}) = {needle}"
    regex = "^" + "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in pat) + "$"
    return f"REGEX({v}, {Literal(regex).n3()}, \"i\")"


class _VarRef(Lit):
    """A SPARQL variable standing in an expression (the output of an IN subquery)."""

    def __init__(self, var: str, kind: str = "number") -> None:
        object.__setattr__(self, "value", None)
        object.__setattr__(self, "var", var)
        object.__setattr__(self, "kind", kind)


_FLIP = {"=": "=", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _sources(q) -> list:
    if isinstance(q, Query):
        return list(q.sources)
    return _sources(q.left) + _sources(q.right)


def _where_cols(q) -> list[Col]:
    if not isinstance(q, Query):
        return _where_cols(q.left) + _where_cols(q.right)
    out: list[Col] = []
    if q.where is not None:
        columns_in(q.where, out)
    for j in q.joins:
        out += [j.left, j.right]
    return out
