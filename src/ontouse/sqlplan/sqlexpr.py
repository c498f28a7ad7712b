"""Reading the expressions of a plan written in SQL (a part of the Reader of reader.py): columns, constants,
comparisons, arithmetic, aggregates, LIKE / IN / BETWEEN / IS NULL / EXISTS, subqueries and CASE."""

from __future__ import annotations

from typing import Callable, Iterable, Protocol

from sqlglot import exp

from .plan import (And, Agg, Arith, Between, Cmp, Col, Exists, Expr, Func, InList, InQuery, IsNull, Like, Lit, Not,
                   Or, Plan, PlanError, Scalar)
from .scope import Scope
from .sqlfixes import Fixes


_CMP = {exp.EQ: "=", exp.NEQ: "!=", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITH = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/"}
_AGG = {exp.Count: "count", exp.Sum: "sum", exp.Avg: "avg", exp.Min: "min", exp.Max: "max"}
_FUNC = {exp.Lower: "lower", exp.Upper: "upper", exp.Length: "length", exp.Round: "round", exp.Abs: "abs"}


class ReadsColumns(Protocol):
    """What expressions need from the reader that holds them: its fixes, and columns and subqueries read in the
    scope they stand in (an expression holds subqueries, and a subquery holds expressions)."""

    rules: Fixes

    def read_column(self, c: exp.Column, scope: Scope) -> Col: ...

    def read_plan(self, node: exp.Expression, parent: Scope | None) -> Plan: ...


def _of(*kinds: type) -> Callable[[exp.Expression], bool]:
    """An expression of one of `kinds` (or of a subclass)."""
    return lambda e: isinstance(e, kinds)


def _exactly(kinds: Iterable[type]) -> Callable[[exp.Expression], bool]:
    """An expression of exactly one of `kinds` (not of a subclass)."""
    exact = frozenset(kinds)
    return lambda e: type(e) in exact


def _strftime(e: exp.Expression) -> bool:
    return isinstance(e, (exp.TimeToStr, exp.Year)) or (isinstance(e, exp.Anonymous) and e.name.lower() == "strftime")


class Expressions:
    """The expressions of the plan language, read into plan data for a reader (`ReadsColumns`), which reads the
    columns and subqueries they hold."""

    def __init__(self, reader: ReadsColumns) -> None:
        self.reader = reader

    def read(self, e: exp.Expression, scope: Scope, aliases: bool = False) -> Expr:
        """`e` as plan data, read by the method of its kind (KINDS: the first kind it is); `aliases`: a bare name
        may be an alias of the select list."""
        for kind, method in self.KINDS:
            if kind(e):
                return method(self, e, scope, aliases)
        name = e.sql(dialect="sqlite")[:60]
        raise PlanError(f"`{name}` is not supported in the plan language. Use columns, constants, = != < <= > >=, "
                        "LIKE, IN, BETWEEN, IS NULL, AND/OR/NOT, + - * /, COUNT/SUM/AVG/MIN/MAX, LOWER, UPPER, "
                        "LENGTH, ROUND, ABS, subqueries, UNION/INTERSECT/EXCEPT.")

    # ---- names and constants -------------------------------------------------------------------------------
    def _paren(self, e: exp.Paren, scope: Scope, aliases: bool) -> Expr:
        return self.read(e.this, scope, aliases)

    def _column(self, e: exp.Column, scope: Scope, aliases: bool) -> Expr:
        if aliases and not e.table and e.name.lower() in scope.aliases:
            return scope.aliases[e.name.lower()]
        return self.reader.read_column(e, scope)

    def _literal(self, e: exp.Literal, scope: Scope, aliases: bool) -> Expr:
        return Lit(e.this if e.is_string else _number(e.this))

    def _boolean(self, e: exp.Boolean, scope: Scope, aliases: bool) -> Expr:
        return Lit(bool(e.this))

    def _null(self, e: exp.Null, scope: Scope, aliases: bool) -> Expr:
        return Lit(None)

    # ---- arithmetic and comparisons ------------------------------------------------------------------------
    def _negative(self, e: exp.Neg, scope: Scope, aliases: bool) -> Expr:
        inner = self.read(e.this, scope, aliases)
        if isinstance(inner, Lit) and isinstance(inner.value, (int, float)):
            return Lit(-inner.value)
        return Arith("-", Lit(0), inner)

    def _comparison(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        op = _CMP[type(e)]
        left, right = self.read(e.this, scope, aliases), self.read(e.expression, scope, aliases)
        if op not in ("=", "!=") or isinstance(left, Lit) or isinstance(right, Lit):
            number = lambda x: isinstance(x, Lit) and isinstance(x.value, (int, float))  # noqa: E731
            if isinstance(left, Col) and (number(right) or op not in ("=", "!=")):
                left = self.reader.rules.as_number(left, scope)
            if isinstance(right, Col) and (number(left) or op not in ("=", "!=")):
                right = self.reader.rules.as_number(right, scope)
        if op in ("=", "!=") and isinstance(left, Col) and _words(right):
            left = self.reader.rules.key_thing(left, scope)
        return Cmp(op, left, right)

    def _arithmetic(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        return Arith(_ARITH[type(e)], self._operand(e.this, scope, aliases), self._operand(e.expression, scope, aliases))

    def _operand(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        """A number an operation works on (+ - * /, ROUND, ABS): a link there means the linked thing's number."""
        inner = self.read(e, scope, aliases)
        return self.reader.rules.as_number(inner, scope) if isinstance(inner, Col) else inner

    # ---- logic ---------------------------------------------------------------------------------------------
    def _and(self, e: exp.And, scope: Scope, aliases: bool) -> Expr:
        return And(tuple(self.read(c, scope, aliases) for c in conjuncts(e)))

    def _or(self, e: exp.Or, scope: Scope, aliases: bool) -> Expr:
        return Or((self.read(e.this, scope, aliases), self.read(e.expression, scope, aliases)))

    def _not(self, e: exp.Not, scope: Scope, aliases: bool) -> Expr:
        inner = self.read(e.this, scope, aliases)
        return _negate(inner)

    # ---- aggregates ----------------------------------------------------------------------------------------
    def _aggregate(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        t = type(e)
        arg = e.this
        distinct = isinstance(arg, exp.Distinct)
        if distinct:
            arg = arg.expressions[0]
        if isinstance(arg, exp.Star) or arg is None:
            if t is not exp.Count:
                raise PlanError(f"{_AGG[t].upper()}(*) is not valid: give a column.")
            return Agg("count", None, distinct)
        inner = self.read(arg, scope)
        if isinstance(inner, Col) and t is not exp.Count:
            inner = self.reader.rules.as_number(inner, scope)
        return Agg(_AGG[t], inner, distinct)

    # ---- predicates ----------------------------------------------------------------------------------------
    def _like(self, e: exp.Like | exp.ILike, scope: Scope, aliases: bool) -> Expr:
        pat = self.read(e.expression, scope)
        if not isinstance(pat, Lit) or not isinstance(pat.value, str):
            raise PlanError("LIKE needs a text pattern such as '%word%'.")
        target = self.read(e.this, scope, aliases)
        if isinstance(target, Col):
            target = self.reader.rules.key_thing(target, scope)
        return Like(target, pat.value, negated=bool(e.args.get("negate")))

    def _in(self, e: exp.In, scope: Scope, aliases: bool) -> Expr:
        target = self.read(e.this, scope, aliases)
        if e.args.get("query") is not None:
            return InQuery(target, self.reader.read_plan(e.args["query"], scope, closed=True))
        vals = tuple(self.read(v, scope) for v in e.expressions)
        if not all(isinstance(v, Lit) for v in vals):
            raise PlanError("IN (...) takes a list of constant values, or a subquery.")
        if isinstance(target, Col) and vals and all(_words(v) for v in vals):
            target = self.reader.rules.key_thing(target, scope)
        return InList(target, vals)  # type: ignore[arg-type]

    def _between(self, e: exp.Between, scope: Scope, aliases: bool) -> Expr:
        return Between(self.read(e.this, scope, aliases), self.read(e.args["low"], scope),
                       self.read(e.args["high"], scope))

    def _is_null(self, e: exp.Is, scope: Scope, aliases: bool) -> Expr:
        if not isinstance(e.expression, exp.Null):
            raise PlanError("IS is only supported as IS NULL / IS NOT NULL.")
        return IsNull(self.read(e.this, scope, aliases))

    # ---- subqueries ----------------------------------------------------------------------------------------
    def _exists(self, e: exp.Exists, scope: Scope, aliases: bool) -> Expr:
        return Exists(self.reader.read_plan(e.this, scope))

    def _scalar(self, e: exp.Subquery, scope: Scope, aliases: bool) -> Expr:
        return Scalar(self.reader.read_plan(e.this, scope, closed=True))

    # ---- functions -----------------------------------------------------------------------------------------
    def _case(self, e: exp.Case, scope: Scope, aliases: bool) -> Expr:
        ifs = e.args.get("ifs") or []
        if e.this is not None or len(ifs) != 1:
            raise PlanError("CASE is supported as CASE WHEN condition THEN a ELSE b END (one WHEN).")
        cond = self.read(ifs[0].this, scope, aliases)
        then = self.read(ifs[0].args["true"], scope, aliases)
        if e.args.get("default") is None:  # no ELSE: NULL, which COUNT, SUM and AVG skip (compile_expr)
            return Func("if", (cond, then))
        return Func("if", (cond, then, self.read(e.args["default"], scope, aliases)))

    def _misplaced_distinct(self, e: exp.Distinct, scope: Scope, aliases: bool) -> Expr:
        raise PlanError("DISTINCT belongs right after SELECT (SELECT DISTINCT a, b) or inside COUNT(DISTINCT x).")

    def _rounded(self, e: exp.Round, scope: Scope, aliases: bool) -> Expr:
        """ROUND(x, n): n decimal places."""
        digits = e.args["decimals"]
        if not (isinstance(digits, exp.Literal) and not digits.is_string and digits.this.isdigit()):
            raise PlanError("ROUND(x, n) needs a whole number n of decimal places (ROUND(x, 2)).")
        return Func("round", (self._operand(e.this, scope, aliases), Lit(int(digits.this))))

    def _function(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        name = _FUNC[type(e)]
        if name in ("round", "abs"):
            return Func(name, (self._operand(e.this, scope, aliases),))
        return Func(name, (self.read(e.this, scope, aliases),))

    def _cast(self, e: exp.Cast, scope: Scope, aliases: bool) -> Expr:
        to = e.args["to"].this.name.upper() if e.args.get("to") is not None else ""
        inner = self.read(e.this, scope, aliases)
        return Func("text" if to in ("TEXT", "VARCHAR", "CHAR") else "number", (inner,))

    def _year(self, e: exp.Expression, scope: Scope, aliases: bool) -> Expr:
        arg = e.this if not isinstance(e, exp.Anonymous) else e.expressions[-1]
        fmt = e.args.get("format") if isinstance(e, exp.TimeToStr) else (
            e.expressions[0] if isinstance(e, exp.Anonymous) and len(e.expressions) > 1 else None)
        if isinstance(fmt, exp.Literal) and fmt.this != "%Y":
            raise PlanError(f"strftime('{fmt.this}', ...) is not supported: only strftime('%Y', x) (the year) "
                            "is; compare dates as text ('2020-01-31') otherwise.")
        while isinstance(arg, (exp.TsOrDsToTimestamp, exp.TsOrDsToDate, exp.StrToTime)):
            arg = arg.this  # strftime('%Y', x) reads as TimeToStr(TsOrDsToTimestamp(x))
        return Func("year", (self.read(arg, scope, aliases),))

    # each kind of expression and the method that reads it, tried in this order (the first kind that matches)
    KINDS: tuple[tuple[Callable[[exp.Expression], bool], Callable[..., Expr]], ...] = (
        (_of(exp.Paren), _paren),
        (_of(exp.Column), _column),
        (_of(exp.Literal), _literal),
        (_of(exp.Boolean), _boolean),
        (_of(exp.Null), _null),
        (_of(exp.Neg), _negative),
        (_exactly(_CMP), _comparison),
        (_exactly(_ARITH), _arithmetic),
        (_of(exp.And), _and),
        (_of(exp.Or), _or),
        (_of(exp.Not), _not),
        (_exactly(_AGG), _aggregate),
        (_of(exp.Like, exp.ILike), _like),
        (_of(exp.In), _in),
        (_of(exp.Between), _between),
        (_of(exp.Is), _is_null),
        (_of(exp.Exists), _exists),
        (_of(exp.Subquery), _scalar),
        (_of(exp.Case), _case),
        (_of(exp.Distinct), _misplaced_distinct),
        (lambda e: isinstance(e, exp.Round) and e.args.get("decimals") is not None, _rounded),
        (_exactly(_FUNC), _function),
        (_of(exp.Cast), _cast),
        (_strftime, _year),
    )


def _words(x: Expr) -> bool:
    """A text constant that is not a number written as text ('3')."""
    if not isinstance(x, Lit) or not isinstance(x.value, str):
        return False
    try:
        float(x.value)
    except ValueError:
        return True
    return False


def _negate(inner: Expr) -> Expr:
    if isinstance(inner, (Like, InList, InQuery, Exists, Between, IsNull)):
        from dataclasses import replace
        return replace(inner, negated=not inner.negated)
    if isinstance(inner, Cmp) and inner.op == "=":
        return Cmp("!=", inner.left, inner.right)
    return Not(inner)


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def conjuncts(e: exp.Expression) -> list[exp.Expression]:
    while isinstance(e, exp.Paren):
        e = e.this
    if isinstance(e, exp.And):
        return conjuncts(e.this) + conjuncts(e.expression)
    return [e]
