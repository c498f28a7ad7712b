"""The type of a benchmark question, read from the shape of its reference SPARQL query (never from its words).

`question_type(sparql)` returns exactly one of TYPES. The first rule that holds decides:

1. **yes/no**: an ASK query.
2. **negation**: FILTER NOT EXISTS, MINUS, NOT IN, `!BOUND(...)`, or `!=` against a variable bound by a
   subquery (a set). A `!=` against a constant ("hometown != 'X'") or between two variables of the same
   solution is an ordinary condition (rule 7/8), not a negation.
3. **group**: GROUP BY or HAVING anywhere (in the query or a subquery), also when ORDER BY + LIMIT picks the
   top groups ("the country with the most car makers").
4. **superlative**: ORDER BY + LIMIT (with or without OFFSET) on the query, or a variable joined with `=`
   (or by sharing it) to the result of a subquery that computes an extreme (MIN/MAX, or ORDER BY + LIMIT):
   "the cars of the earliest year".
5. **aggregate**: COUNT / SUM / AVG / MIN / MAX in the query's own projection.
6. **comparison**: UNION; an INTERSECT-like shape (`FILTER(?a IN (?b))` with variables, or two subqueries
   joined on a shared variable); or a comparison (`<`, `>`, `<=`, `>=`, `=`) against a value computed by a
   subquery, directly or through BIND ("weight below the average").
7. **multi-constraint**: two or more constraints, where a constraint is one atom of a FILTER expression
   (split at `&&` and `||`) or one triple pattern with a constant object (IRI or literal; `a`/rdf:type and
   rdfs:subClassOf patterns are typing, not constraints). Constraints inside NOT EXISTS/MINUS do not count.
8. **filter**: exactly one constraint.
9. **lookup**: none: a projection of facts, possibly along joins, or about an entity named by a constant
   *subject* (an anchor, "the phone of <employee>") and possibly sorted without LIMIT.

Spider4SPARQL names things by literal values (`FILTER(?name = 'X')`), so its "value of a named thing"
questions are filters; CK25 names them by IRIs in the subject position, so they are lookups.
The analysis is a light tokenizer, not a SPARQL parser: it never raises, and an unreadable query is a lookup.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TYPES = ("lookup", "filter", "multi-constraint", "aggregate", "group", "negation", "comparison", "superlative",
         "yes/no")

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>\#[^\n]*)
  | (?P<iri><(?:[A-Za-z#/][^<>"{}|^`\\\s]*)?>)
  | (?P<str>'''.*?'''|\"\"\".*?\"\"\"|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*")
  | (?P<var>[?$]\w+)
  | (?P<pname>(?:[A-Za-z_][\w\-.]*)?:(?:[\w\-:%]|\\.|\.(?=[\w\\]))*)
  | (?P<num>\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?)
  | (?P<lang>@[A-Za-z]+(?:-[A-Za-z0-9]+)*)
  | (?P<word>[A-Za-z_]\w*)
  | (?P<op>&&|\|\||!=|<=|>=|\^\^|[=<>!^/|*+?\-])
  | (?P<punct>[{}()\[\].;,])
""", re.VERBOSE | re.DOTALL)

_AGGREGATES = {"COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "SAMPLE"}
_COMPARE = {"=", "<", ">", "<=", ">=", "!="}
_TERM_KINDS = {"iri", "pname", "str", "num"}


@dataclass
class Tok:
    kind: str
    text: str

    @property
    def up(self) -> str:
        return self.text.upper() if self.kind == "word" else self.text


def tokenize(sparql: str) -> list[Tok]:
    """Tokens of a SPARQL query without whitespace and comments (unknown characters are skipped)."""
    out, pos = [], 0
    while pos < len(sparql):
        m = _TOKEN.match(sparql, pos)
        if not m:
            pos += 1
            continue
        pos = m.end()
        if m.lastgroup not in ("ws", "comment"):
            out.append(Tok(m.lastgroup or "", m.group(0)))
    return out


@dataclass
class SubQuery:
    start: int  # index of its "{"
    end: int  # index of its matching "}"
    projected: set[str] = field(default_factory=set)
    extreme: bool = False  # MIN/MAX in the projection, or ORDER BY + LIMIT


class Shape:
    """What question_type needs to know about one query."""

    def __init__(self, sparql: str) -> None:
        self.toks = tokenize(sparql)
        self.match = _match_brackets(self.toks)
        self.subqueries = [self._subquery(i) for i, t in enumerate(self.toks)
                           if t.text == "{" and i + 1 < len(self.toks) and self.toks[i + 1].up == "SELECT"
                           and i in self.match]
        self.in_sub = set()
        for s in self.subqueries:
            self.in_sub.update(range(s.start, s.end + 1))
        self.excluded = self._negated_blocks()
        form = next((i for i, t in enumerate(self.toks) if t.up in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE")), None)
        self.form = self.toks[form].up if form is not None else ""
        self.outer = self._clauses(form) if form is not None else {}

    # ------------------------------------------------------------------ structure
    def _clauses(self, at: int, stop: int | None = None) -> dict[str, object]:
        """Projection and solution modifiers of the query whose SELECT/ASK keyword is at `at`."""
        toks, stop = self.toks, len(self.toks) if stop is None else stop
        body = next((i for i in range(at, stop) if toks[i].text == "{"), None)
        projection = toks[at + 1:body] if body is not None else []
        if projection and projection[-1].up == "WHERE":
            projection = projection[:-1]
        after = self.match.get(body, stop) + 1 if body is not None else stop
        mods = [t.up for t in toks[after:stop]]
        return {"projection": projection, "mods": mods, "body": (body, after - 1)}

    def _subquery(self, start: int) -> SubQuery:
        end = self.match[start]
        c = self._clauses(start + 1, end)
        proj: list[Tok] = c["projection"]  # type: ignore[assignment]
        mods: list[str] = c["mods"]  # type: ignore[assignment]
        names, depth = set(), 0
        for k, t in enumerate(proj):  # ?v at the top level, or the ?v of "(expr AS ?v)"
            depth += (t.text == "(") - (t.text == ")")
            if t.kind == "var" and (depth == 0 or (k > 0 and proj[k - 1].up == "AS")):
                names.add(t.text.lower()[1:])
        extreme = any(t.up in ("MIN", "MAX") for t in proj) or ("ORDER" in mods and "LIMIT" in mods)
        return SubQuery(start, end, names, extreme)

    def _negated_blocks(self) -> set[int]:
        """Token indexes inside FILTER NOT EXISTS { } and MINUS { } blocks."""
        out: set[int] = set()
        for i, t in enumerate(self.toks):
            if t.up == "MINUS" or (t.up == "EXISTS" and i > 0 and self.toks[i - 1].up == "NOT"):
                j = i + 1
                if j < len(self.toks) and self.toks[j].text == "{" and j in self.match:
                    out.update(range(j, self.match[j] + 1))
        return out

    def has_seq(self, *words: str) -> bool:
        n = len(words)
        return any([t.up for t in self.toks[i:i + n]] == list(words) for i in range(len(self.toks) - n + 1))

    def outer_mods(self) -> list[str]:
        return self.outer.get("mods", [])  # type: ignore[return-value]

    def outer_has_aggregate(self) -> bool:
        proj: list[Tok] = self.outer.get("projection", [])  # type: ignore[assignment]
        return any(t.up in _AGGREGATES and k + 1 < len(proj) and proj[k + 1].text == "("
                   for k, t in enumerate(proj))

    def computed_vars(self) -> dict[str, list[tuple[int, int]]]:
        """Variables computed by subqueries (or by BINDs over them): {name: token spans that compute it}."""
        computed: dict[str, list[tuple[int, int]]] = {}
        for s in self.subqueries:
            for name in s.projected:
                computed.setdefault(name, []).append((s.start, s.end))
        changed = True
        while changed:  # BIND(<expr over computed> AS ?v) makes ?v computed too
            changed = False
            for _, expr in self.calls("BIND"):
                names = [t.text.lower()[1:] for t in expr if t.kind == "var"]
                sources = [n for n in names[:-1] if n in computed]
                if len(names) >= 2 and names[-1] not in computed and sources:
                    computed[names[-1]] = [span for n in sources for span in computed[n]]
                    changed = True
        return computed

    def extreme_vars(self) -> set[str]:
        return {n for s in self.subqueries if s.extreme for n in s.projected}

    def calls(self, keyword: str, skip_excluded: bool = False) -> list[tuple[int, list[Tok]]]:
        """(position, argument tokens) of each KEYWORD(...) (FILTER, BIND) in the query."""
        out = []
        for i, t in enumerate(self.toks):
            if t.up != keyword or (skip_excluded and i in self.excluded):
                continue
            j = i + 1
            if keyword == "FILTER" and j < len(self.toks) and self.toks[j].kind in ("word", "pname") \
                    and self.toks[j].up not in ("NOT", "EXISTS"):
                j += 1  # FILTER regex(...), FILTER CONTAINS(...)
            if j < len(self.toks) and self.toks[j].text == "(" and j in self.match:
                out.append((i, self.toks[i + 1:self.match[j] + 1]))
        return out

    def call_spans(self) -> set[int]:
        """Token indexes inside FILTER(...) and BIND(...) expressions."""
        out: set[int] = set()
        for kw in ("FILTER", "BIND"):
            for i, expr in self.calls(kw):
                out.update(range(i, i + len(expr) + 1))
        return out

    # ------------------------------------------------------------------ constraints
    def filter_atoms(self) -> list[tuple[int, list[Tok]]]:
        """(position, atom) of every FILTER expression outside negated blocks, split at && and ||."""
        atoms = []
        for pos, expr in self.calls("FILTER", skip_excluded=True):
            part: list[Tok] = []
            for t in expr + [Tok("op", "&&")]:
                if t.text in ("&&", "||"):
                    if any(x.kind in ("var", "str", "num", "iri", "pname") for x in part):
                        atoms.append((pos, part))
                    part = []
                else:
                    part.append(t)
        return atoms

    def constant_objects(self, start: int) -> int:
        """Triple patterns with a constant object (not typing), from token `start` on, outside negated blocks,
        FILTER/BIND/VALUES and solution modifiers."""
        count, i, toks = 0, start, self.toks
        stmt: list[Tok] = []
        skipping = False  # in solution modifiers, up to the next brace
        while i < len(toks):
            t = toks[i]
            if t.text in ("{", "}"):
                skipping = False
            if i in self.excluded or skipping:
                i += 1
                continue
            if t.up in ("FILTER", "BIND", "VALUES"):
                count += _count_constant_objects(stmt)
                stmt = []
                i = self._skip_call(i)
                continue
            if t.up in ("GROUP", "ORDER", "HAVING", "LIMIT", "OFFSET"):
                count += _count_constant_objects(stmt)
                stmt, skipping = [], True
            elif t.text in ("{", "}", ".") or t.up in ("OPTIONAL", "UNION", "SELECT", "ASK", "WHERE", "GRAPH"):
                count += _count_constant_objects(stmt)
                stmt = []
                if t.up == "SELECT":  # skip a projection
                    while i + 1 < len(toks) and toks[i + 1].text != "{":
                        i += 1
            else:
                stmt.append(t)
            i += 1
        return count + _count_constant_objects(stmt)

    def _skip_call(self, i: int) -> int:
        """The index after FILTER/BIND/VALUES and its argument (an expression, a function call or a block)."""
        j = i + 1
        want = ("{",) if self.toks[i].up == "VALUES" else ("(", "{")
        while j < len(self.toks) and self.toks[j].text not in want and (j - i <= 3 or want == ("{",)):
            j += 1
        if j < len(self.toks) and j in self.match:
            return self.match[j] + 1
        return i + 1


def _match_brackets(toks: list[Tok]) -> dict[int, int]:
    pairs, stack = {}, []
    for i, t in enumerate(toks):
        if t.text in ("{", "(", "["):
            stack.append(i)
        elif t.text in ("}", ")", "]") and stack:
            pairs[stack.pop()] = i
    return pairs


def _is_typing(pred: list[Tok]) -> bool:
    for t in pred:
        text = t.text.rstrip("*+?")
        if (t.kind == "word" and t.text == "a") or re.search(r"[#:/](type|subClassOf)>?$", text):
            return True
    return False


def _count_constant_objects(stmt: list[Tok]) -> int:
    """Constant objects in one triples block "s p o ; p o , o" (paths and blank nodes tolerated)."""
    if len(stmt) < 3:
        return 0
    count, i = 0, 1
    if stmt[0].text in ("[", "("):  # a blank node or collection subject: skip it
        depth = 0
        for i, t in enumerate(stmt):
            depth += t.text in ("[", "(")
            depth -= t.text in ("]", ")")
            if depth == 0:
                break
        i += 1
    while i < len(stmt):
        pred: list[Tok] = []
        while i < len(stmt) and (not pred or pred[-1].text in ("/", "|", "^") or stmt[i].text in ("/", "|", "*", "+", "?")):
            pred.append(stmt[i])
            i += 1
        while i < len(stmt):
            obj = stmt[i]
            const = obj.kind in _TERM_KINDS or (obj.kind == "word" and obj.text.lower() in ("true", "false"))
            if const and not _is_typing(pred):
                count += 1
            i += 1
            while i < len(stmt) and (stmt[i].kind == "lang" or stmt[i].text == "^^"):  # "x"@en, "5"^^xsd:int
                i += 2 if stmt[i].text == "^^" else 1
            if obj.text in ("[", "("):  # skip a nested blank node / collection
                depth = 1
                while i < len(stmt) and depth:
                    depth += stmt[i].text in ("[", "(")
                    depth -= stmt[i].text in ("]", ")")
                    i += 1
            if i < len(stmt) and stmt[i].text == ",":
                i += 1
                continue
            break
        if i < len(stmt) and stmt[i].text == ";":
            i += 1
            while i < len(stmt) and stmt[i].text == ";":
                i += 1
            continue
        break
    return count


def _compares_with(atom: list[Tok], names: set[str], ops: set[str]) -> bool:
    """Does the atom compare (with one of `ops`) something with a variable in `names`?"""
    for k, t in enumerate(atom):
        if t.text in ops:
            near = [x for x in atom[max(0, k - 3):k + 4] if x.kind == "var"]
            if any(x.text.lower()[1:] in names for x in near):
                return True
    return False


def _in_with_variables(atom: list[Tok]) -> bool:
    """`?a IN (?b ...)`, not preceded by NOT: a join of two solution sets (an INTERSECT)."""
    for k, t in enumerate(atom):
        if t.up == "IN" and (k == 0 or atom[k - 1].up != "NOT") and k + 2 < len(atom) and atom[k + 1].text == "(" \
                and atom[k + 2].kind == "var":
            return True
    return False


def question_type(sparql: str, question: str = "") -> str:
    """The type of a question (one of TYPES) from its reference SPARQL; `question` is not used (kept for
    callers that have it). See the module docstring for the rules and their precedence."""
    try:
        return _classify(Shape(sparql or ""))
    except Exception:  # noqa: BLE001 - a classification must never stop a benchmark run
        return "lookup"


def _classify(s: Shape) -> str:
    if s.form == "ASK":
        return "yes/no"
    computed = s.computed_vars()
    atoms_at = s.filter_atoms()
    atoms = [a for _, a in atoms_at]
    # each atom with the computed variables it may compare with: not those computed by its own subquery
    used = [(a, {n for n, spans in computed.items() if all(not (lo <= pos <= hi) for lo, hi in spans)})
            for pos, a in atoms_at]
    filter_toks = [t for _, e in s.calls("FILTER") for t in e]
    if (s.has_seq("NOT", "EXISTS") or s.has_seq("MINUS") or s.has_seq("NOT", "IN")
            or any(t.text == "!" and k + 1 < len(filter_toks) and filter_toks[k + 1].up == "BOUND"
                   for k, t in enumerate(filter_toks))
            or any(_compares_with(a, names, {"!="}) for a, names in used)):
        return "negation"
    if s.has_seq("GROUP", "BY") or s.has_seq("HAVING"):
        return "group"
    mods = s.outer_mods()
    if "ORDER" in mods and "LIMIT" in mods:
        return "superlative"
    extreme = s.extreme_vars()
    in_expr = s.call_spans()
    body = s.outer.get("body", (None, None))
    lo = body[0] if body[0] is not None else len(s.toks)  # type: ignore[index]
    pattern_vars = {t.text.lower()[1:] for i, t in enumerate(s.toks)
                    if t.kind == "var" and i > lo and i not in s.in_sub and i not in in_expr}
    if extreme & pattern_vars or any(_compares_with(a, names & extreme, {"="}) for a, names in used):
        return "superlative"
    if s.outer_has_aggregate():
        return "aggregate"
    shared = [a.projected & b.projected for k, a in enumerate(s.subqueries) for b in s.subqueries[k + 1:]
              if not (a.start < b.start < a.end)]
    if (s.has_seq("UNION") or any(_in_with_variables(a) for a in atoms) or any(shared)
            or any(_compares_with(a, names, _COMPARE) for a, names in used)):
        return "comparison"
    start = next((i for i, t in enumerate(s.toks) if t.up == s.form), 0)
    n = len(atoms) + s.constant_objects(start)
    return "multi-constraint" if n >= 2 else "filter" if n == 1 else "lookup"
