"""The query plan: what a question asks, as data over the relational view (schema.py).

A plan is a tree of small frozen dataclasses: a `Query` (sources, join conditions, filter, grouping, having,
ordering, limit and offset, the selected expressions) or a `SetQuery` (union / intersect / except of two
plans), with expressions that name tables and columns of the view. It holds no IRIs and no SPARQL: `compile.py`
turns it into SPARQL with the IRIs of the view, one function per construct. The model writes a plan in SQL
(`reader.py` reads it), the form a small coder model knows best; `to_dict()` is the plan as JSON data.

The constructs, and the questions they serve:
- constraints on the items: comparisons (=, !=, <, <=, >, >=), LIKE, IN (values), BETWEEN, IS [NOT] NULL,
  combined with AND / OR / NOT, on any column of any joined table (several hops, either direction);
- negation: NOT IN (subquery), NOT EXISTS (subquery), EXCEPT, IS NULL ("has no value");
- aggregation over the items or per group: COUNT / SUM / AVG / MIN / MAX, COUNT(DISTINCT ...), GROUP BY, HAVING;
- ordering with LIMIT / OFFSET (top-k, "the third to fifth");
- comparisons of two named things and of sets: UNION / INTERSECT / EXCEPT, scalar subqueries
  ("more than the average"), arithmetic (+ - * /) for ratios and percentages;
- yes/no: any plan, read as "is the result non-empty (or its count non-zero)"."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import Any, Callable, Iterator, Union

AGGREGATES = ("count", "sum", "avg", "min", "max")
COMPARISONS = ("=", "!=", "<", "<=", ">", ">=")
ARITHMETIC = ("+", "-", "*", "/")
FUNCTIONS = ("lower", "upper", "length", "round", "abs", "year", "number", "text", "if")


@dataclass(frozen=True)
class Col:
    alias: str  # the source alias (FROM table AS alias)
    table: str  # the table of that source
    column: str  # a column of the table ("iri" is the row itself)


@dataclass(frozen=True)
class Lit:
    value: Union[str, int, float, bool, None]


@dataclass(frozen=True)
class Agg:
    func: str  # count | sum | avg | min | max
    arg: "Expr | None" = None  # None: COUNT(*)
    distinct: bool = False


@dataclass(frozen=True)
class Func:
    name: str  # one of FUNCTIONS
    args: tuple["Expr", ...] = ()


@dataclass(frozen=True)
class Arith:
    op: str  # + - * /
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Cmp:
    op: str  # = != < <= > >=
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Like:
    expr: "Expr"
    pattern: str  # SQL pattern: % any text, _ one character; case-insensitive
    negated: bool = False


@dataclass(frozen=True)
class InList:
    expr: "Expr"
    values: tuple[Lit, ...]
    negated: bool = False


@dataclass(frozen=True)
class InQuery:
    expr: "Expr"
    query: "Plan"
    negated: bool = False


@dataclass(frozen=True)
class Exists:
    query: "Plan"
    negated: bool = False


@dataclass(frozen=True)
class Between:
    expr: "Expr"
    low: "Expr"
    high: "Expr"
    negated: bool = False


@dataclass(frozen=True)
class IsNull:
    expr: "Expr"
    negated: bool = False  # IS NOT NULL


@dataclass(frozen=True)
class And:
    items: tuple["Expr", ...]


@dataclass(frozen=True)
class Or:
    items: tuple["Expr", ...]


@dataclass(frozen=True)
class Not:
    item: "Expr"


@dataclass(frozen=True)
class Scalar:
    query: "Plan"  # a subquery that gives one value


Expr = Union[Col, Lit, Agg, Func, Arith, Cmp, Like, InList, InQuery, Exists, Between, IsNull, And, Or, Not, Scalar]


@dataclass(frozen=True)
class Source:
    table: str
    alias: str
    optional: bool = False  # LEFT JOIN: rows of the query are kept when this source has no match


@dataclass(frozen=True)
class Join:
    left: Col
    right: Col
    optional: bool = False  # a condition of a LEFT JOIN (part of the optional match)


@dataclass(frozen=True)
class Item:
    expr: Expr
    name: str = ""  # the output column name (AS ...)


@dataclass(frozen=True)
class Order:
    expr: Expr
    desc: bool = False


@dataclass(frozen=True)
class Query:
    select: tuple[Item, ...]
    sources: tuple[Source, ...]
    joins: tuple[Join, ...] = ()
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    having: Expr | None = None
    order_by: tuple[Order, ...] = ()
    limit: int | None = None
    offset: int | None = None
    distinct: bool = False


@dataclass(frozen=True)
class SetQuery:
    op: str  # union | intersect | except
    left: "Plan"
    right: "Plan"
    all: bool = False  # UNION ALL
    order_by: tuple[Order, ...] = ()  # by output position: Order(Lit(index))
    limit: int | None = None
    offset: int | None = None


Plan = Union[Query, SetQuery]


def is_aggregate(e: Any) -> bool:
    """Does the expression contain an aggregate (outside subqueries)?"""
    if isinstance(e, Agg):
        return True
    if isinstance(e, (InQuery, Exists, Scalar)):
        return is_aggregate(getattr(e, "expr", None)) if isinstance(e, InQuery) else False
    if is_dataclass(e):
        return any(is_aggregate(getattr(e, f.name)) for f in fields(e) if f.name not in ("query",))
    if isinstance(e, tuple):
        return any(is_aggregate(x) for x in e)
    return False


def columns_in(e: Any, out: list[Col] | None = None, deep: bool = False) -> list[Col]:
    """The column references in an expression, in order (inside subqueries too when `deep`)."""
    out = [] if out is None else out
    out.extend(n for n in walk(e, subqueries=deep) if isinstance(n, Col))
    return out


def used_aliases(q: Query) -> set[str]:
    """The aliases (lower case) of the sources whose columns a query uses anywhere but in its join conditions."""
    cols: list[Col] = []
    for it in q.select:
        columns_in(it.expr, cols, deep=True)
    for e in (q.where, q.having, *q.group_by, *(o.expr for o in q.order_by)):
        if e is not None:
            columns_in(e, cols, deep=True)
    return {c.alias.lower() for c in cols}


def output_width(plan: Plan) -> int:
    return len(plan.select) if isinstance(plan, Query) else output_width(plan.left)


def first_select(plan: Plan) -> Query:
    """The first SELECT of a plan (the left end of its set operations)."""
    return plan if isinstance(plan, Query) else first_select(plan.left)


def to_dict(node: Any) -> Any:
    """The plan as JSON data: every node is {"node": <kind>, ...fields}."""
    if is_dataclass(node) and not isinstance(node, type):
        out: dict[str, Any] = {"node": type(node).__name__}
        for f in fields(node):
            value = getattr(node, f.name)
            if value in ((), None, False, "") and f.name not in ("value",):
                continue
            out[f.name] = to_dict(value)
        return out
    if isinstance(node, tuple):
        return [to_dict(x) for x in node]
    return node


_KINDS = {cls.__name__: cls for cls in (Col, Lit, Agg, Func, Arith, Cmp, Like, InList, InQuery, Exists, Between,
                                        IsNull, And, Or, Not, Scalar, Source, Join, Item, Order, Query, SetQuery)}


def from_dict(data: Any) -> Any:
    """The inverse of to_dict."""
    if isinstance(data, dict) and "node" in data:
        cls = _KINDS[data["node"]]
        kwargs = {}
        for f in fields(cls):
            if f.name in data:
                value = from_dict(data[f.name])
                kwargs[f.name] = tuple(value) if isinstance(value, list) else value
        return cls(**kwargs)
    if isinstance(data, list):
        return [from_dict(x) for x in data]
    return data


@dataclass
class PlanError(Exception):
    """A plan that does not fit the ontology; the message says precisely what to change (it goes to the model)."""

    message: str
    hint: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    def __str__(self) -> str:
        return self.message + (f" {self.hint}" if self.hint else "")


def walk(e: Any, subqueries: bool = True, enter: Callable[[Any], bool] | None = None) -> Iterator[Any]:
    """Every node of a plan (or of an expression) once, depth first, each before its parts: subqueries and set
    operations included. `subqueries=False`: the subquery of a Scalar, IN (SELECT ...) or EXISTS is not entered;
    `enter(node)`: whether to go into that node's parts (the node itself is yielded either way)."""
    if isinstance(e, tuple):
        for x in e:
            yield from walk(x, subqueries, enter)
    elif is_dataclass(e) and not isinstance(e, type):
        yield e
        if enter is None or enter(e):
            for f in fields(e):
                if subqueries or f.name != "query":
                    yield from walk(getattr(e, f.name), subqueries, enter)


def transform(node: Any, fn: Callable[[Any], Any]) -> Any:
    """Rebuild a plan bottom-up, replacing each node by fn(node) (subqueries included); parts that did not change
    stay the same objects."""
    if isinstance(node, tuple):
        new = tuple(transform(x, fn) for x in node)
        return node if all(a is b for a, b in zip(new, node)) else new
    if is_dataclass(node) and not isinstance(node, type):
        changes = {f.name: transform(getattr(node, f.name), fn) for f in fields(node)}
        node = replace(node, **changes) if any(changes[k] is not getattr(node, k) for k in changes) else node
        return fn(node)
    return node


def sources_in(e: Any) -> list[Source]:
    """Every source (FROM / JOIN table) of a plan, subqueries and set operations included."""
    return [n for n in walk(e) if isinstance(n, Source)]


def view_misses(plan: Plan, schema: Any) -> list[str]:
    """The tables and columns a plan names that the view (`schema`, a schema.Schema) does not have: [] for a plan
    that may run. Checked before a plan reaches the store."""
    missing: list[str] = []
    for s in sources_in(plan):
        if schema.table(s.table) is None:
            missing.append(s.table)
    for c in columns_in(plan, deep=True):
        table = schema.table(c.table)
        if table is None:
            missing.append(c.table)
        elif c.column != "iri" and table.column(c.column) is None:
            missing.append(f"{c.table}.{c.column}")
    return list(dict.fromkeys(missing))


def nested(plan: Plan) -> bool:
    """Does a plan hold a query inside it (IN / EXISTS / a scalar subquery)?"""
    def walk(e: Any, top: bool) -> bool:
        if isinstance(e, (Query, SetQuery)) and not top:
            return True
        if is_dataclass(e) and not isinstance(e, type):
            return any(walk(getattr(e, f.name), False) for f in fields(e))
        if isinstance(e, tuple):
            return any(walk(x, False) for x in e)
        return False

    return walk(plan, True)


def excludes_rows(e: Any) -> bool:
    """Does a condition negate (NOT, !=, NOT IN, NOT LIKE, IS NULL) anywhere in it?"""
    if isinstance(e, IsNull):
        return not e.negated
    if isinstance(e, Not) or (isinstance(e, Cmp) and e.op == "!=") or getattr(e, "negated", False):
        return True
    if is_dataclass(e) and not isinstance(e, type):
        return any(excludes_rows(getattr(e, f.name)) for f in fields(e))
    if isinstance(e, tuple):
        return any(excludes_rows(x) for x in e)
    return False
