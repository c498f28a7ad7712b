"""Structured query plans: the model chooses what the question means, code does the exact work.

A plan names its parts by catalog keys (hard rails: the `query` tool's JSON Schema enumerates the linked
candidates):

    kind      lookup | list | count | max | min | avg | sum | yesno | none
    about     the individual the question is about ("" when it is about a set of items)
    class     the class of the items ("" for any)
    with      individuals the items must be linked to, in either direction (a category, a color, a warehouse)
    property  the attribute asked for, compared, ranked or aggregated
    value     a literal the property must match ("red", "S"), or a comparison (">100", "<=5")
    then      after max/min: the attribute of the winner(s) asked for (multi-hop questions)

Code compiles a plan to SPARQL with every value bound through initBindings (never pasted into the query
text), runs it through ontouse.sparql.run_query (timeout, row cap) and falls back sensibly (inverse
direction, one hop through a linked individual, class matched through subclasses). Counts, superlatives
and aggregates are computed by SPARQL (COUNT, ORDER BY, AVG, SUM), never by the model."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF, RDFS, XSD
from rdflib.term import Node

from ontobuild.errors import ToolArgumentError

from .catalog import Catalog, Entity, as_number
from .sparql import QueryError, graph_prefixes, run_query, shorten

log = logging.getLogger(__name__)

KINDS = ("lookup", "list", "count", "max", "min", "avg", "sum", "yesno", "none")
MAX_WITH = 3
ROW_CAP = 200
SUPPORT_CAP = 25
_COMPARE = re.compile(r"^\s*(>=|<=|!=|>|<|=)\s*([-+]?\d[\d,]*(?:\.\d+)?)\s*[A-Za-z%°²³]*\s*$")


_COPIED_VALUE = re.compile(r"^(links? to |number\b|text\b|value\b|class\b|individual\b)", re.I)
_NO_VALUE = {"none", "null", "n/a", "na", "-", "any", "all", "*", "?", "unknown", "nothing"}


class PlanError(ToolArgumentError):
    """A plan that cannot run as given; the message says what to change."""


@dataclass
class Plan:
    kind: str
    about: str = ""
    cls: str = ""
    with_: list[str] = field(default_factory=list)
    property: str = ""
    value: str = ""
    then: str = ""

    @classmethod
    def from_args(cls, args: dict[str, Any]) -> "Plan":
        value = str(args.get("value") or "").strip()
        if value.lower() in _NO_VALUE or _COPIED_VALUE.match(value):  # a small model fills every field it sees
            value = ""
        return cls(kind=args.get("kind", "lookup"), about=args.get("about") or "", cls=args.get("class") or "",
                   with_=[w for w in dict.fromkeys(args.get("with") or []) if w][:MAX_WITH],
                   property=args.get("property") or "", value=value, then=args.get("then") or "")

    def to_args(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        for k, v in (("about", self.about), ("class", self.cls), ("with", self.with_), ("property", self.property),
                     ("value", self.value), ("then", self.then)):
            if v:
                out[k] = v
        return out

    def describe(self, cat: Catalog) -> str:
        """What the plan looks for, in words ("price of SkyShell Aero", "count of Helmet linked to Red")."""
        def lab(key: str) -> str:
            ent = cat.by_key.get(key)
            return ent.label if ent else key

        items = lab(self.cls) if self.cls else "items"
        if self.with_:
            items += " linked to " + " and ".join(lab(w) for w in self.with_)
        subject = lab(self.about) if self.about else items
        prop = lab(self.property) if self.property else ""
        if self.kind in ("max", "min", "avg", "sum"):
            word = {"max": "highest", "min": "lowest", "avg": "average", "sum": "total"}[self.kind]
            text = f"{word} {prop or 'value'} of {items}"
            return text + (f", then its {lab(self.then)}" if self.then else "")
        if self.kind == "count":
            return f"number of {prop + ' of ' + subject if self.about and prop else subject}"
        if self.kind == "yesno":
            what = prop or "link"
            return f"{what} of {subject}" + (f" = {self.value}" if self.value else "")
        text = f"{prop} of {subject}" if prop else subject
        return text + (f" ({self.value})" if self.value else "")


@dataclass
class QueryRun:
    """One SPARQL query the code ran: its text, the bound values, and the number of rows (or the error)."""

    text: str
    bindings: dict[str, str]
    rows: int = 0
    error: str | None = None

    def display(self) -> str:
        lines = [f"# ?{k} = {v}" for k, v in self.bindings.items()]
        return "\n".join(lines + [self.text.strip()])


Triple = tuple[Node, Node, Node]


@dataclass
class Result:
    """What a plan found: the answer set, the triples that back it, and the queries run."""

    plan: Plan
    values: list[Node] = field(default_factory=list)  # the answer set (items, values or winners)
    number: Literal | None = None  # count or aggregate
    boolean: bool | None = None  # yes/no
    triples: list[Triple] = field(default_factory=list)  # support candidates, as they are in the graph
    queries: list[QueryRun] = field(default_factory=list)
    facts: list[str] = field(default_factory=list)  # short statements of what was found, for the model
    note: str = ""  # how the plan was run (fallbacks used)
    winners: list[Node] = field(default_factory=list)  # max/min: the items with the extreme value
    extreme: Literal | None = None  # max/min: the extreme value
    accepted: bool = False  # the agent kept this result (non-empty, and about what the question asks)

    @property
    def answer_values(self) -> list[Node]:
        """The answer set: the count or aggregate, the yes/no, the winners (or their `then` values), else the
        items or values found."""
        if self.plan.kind in ("count", "avg", "sum") and self.number is not None:
            return [self.number]
        if self.plan.kind == "yesno" and self.boolean is not None:
            return [Literal(self.boolean)]
        return list(self.values)

    @property
    def empty(self) -> bool:
        if self.plan.kind == "yesno":
            return self.boolean is None
        if self.plan.kind in ("count",):
            return self.number is None
        if self.plan.kind in ("avg", "sum"):
            return self.number is None or not self.triples
        return not self.values


# ---- helpers ---------------------------------------------------------------------------------------------
def parse_compare(value: str) -> tuple[str, Decimal] | None:
    m = _COMPARE.match(value or "")
    if not m:
        return None
    try:
        return m.group(1), Decimal(m.group(2).replace(",", ""))
    except InvalidOperation:
        return None


def fmt_number(term: Node | float | Decimal | None) -> str:
    """A number as people write it: 106.5, 789.33, 2525 (at most two decimals)."""
    if term is None:
        return ""
    try:
        d = Decimal(str(term.toPython() if isinstance(term, Literal) else term))
    except (InvalidOperation, ValueError):
        return str(term)
    if d == d.to_integral_value():
        return str(d.quantize(Decimal(1)))
    text = f"{d:.2f}".rstrip("0").rstrip(".")
    return text


class Executor:
    """Compiles plans to SPARQL and runs them over one graph."""

    def __init__(self, graph: Graph, catalog: Catalog, timeout_s: float = 10.0) -> None:
        self.graph, self.cat, self.timeout_s = graph, catalog, timeout_s
        self.prefixes = graph_prefixes(graph)
        self._value_props: dict[URIRef, URIRef | None] = {}
        self.question_words: set[str] = set()  # content words of the question being answered (for narrowing)

    # ---- naming ----------------------------------------------------------------------------------
    def short(self, term: Node | None) -> str:
        return shorten(term, self.prefixes)

    def label(self, term: Node | None) -> str:
        """A readable name for a term: the catalog label of an IRI, the text of a literal."""
        if term is None:
            return ""
        if isinstance(term, URIRef):
            ent = self.cat.by_iri.get(term)
            if ent:
                return ent.label
            lab = self.graph.value(term, RDFS.label)
            return str(lab) if lab is not None else self.short(term)
        if isinstance(term, Literal) and as_number(term) is not None:
            return fmt_number(term)
        return str(term)

    def entity(self, key: str, kind: str) -> Entity:
        ent = self.cat.by_key.get(key)
        if ent is None:
            raise PlanError(f"'{key}' is not a known {kind}; use one of the listed {kind} names.")
        return ent

    # ---- running ---------------------------------------------------------------------------------
    def run(self, res: Result, query: str, bindings: dict[str, Node], max_rows: int = ROW_CAP):
        run = QueryRun(text=query, bindings={k: self.short(v) if not isinstance(v, Literal) else repr(str(v))
                                             for k, v in bindings.items()})
        res.queries.append(run)
        try:
            out = run_query(self.graph, query, max_rows=max_rows, timeout_s=self.timeout_s, bindings=bindings)
        except QueryError as e:
            run.error = str(e)
            log.info("plan query failed: %s", e)
            return None
        run.rows = out.total if out.kind == "SELECT" else int(bool(out.boolean))
        return out

    # ---- items: class + with + value filter --------------------------------------------------------
    def _items_pattern(self, plan: Plan, b: dict[str, Node], prop_var: bool = True) -> tuple[str, list[str]]:
        """The WHERE body that binds ?x to the items of the plan; also the with-link variables."""
        lines, link_vars = [], []
        if plan.cls:
            b["cls"] = self.entity(plan.cls, "class").iri
            lines.append("?x rdf:type/rdfs:subClassOf* ?cls .")
        for i, key in enumerate(plan.with_):
            ent = self.entity(key, "individual")
            b[f"w{i}"] = ent.iri
            lines.append(f"{{ ?x ?lp{i} ?w{i} . BIND(1 AS ?d{i}) }} UNION {{ ?w{i} ?lp{i} ?x . BIND(0 AS ?d{i}) }}"
                         f" FILTER(isIRI(?x) && ?lp{i} != rdf:type)")
            link_vars.append(str(i))
        return "\n  ".join(lines), link_vars

    def _value_filter(self, plan: Plan, b: dict[str, Node], var: str = "?v") -> str:
        """A FILTER on `var` for plan.value: a numeric comparison, or a case-insensitive text match (also
        against the label of an IRI value)."""
        if not plan.value:
            return ""
        cmp = parse_compare(plan.value)
        if cmp:
            op, num = cmp
            b["num"] = Literal(num, datatype=XSD.decimal)
            op = "!=" if op == "!=" else op
            return f"FILTER(xsd:double({var}) {op} ?num)"
        b["val"] = Literal(plan.value.lower())
        if len(plan.value) >= 4:
            test = "CONTAINS(LCASE(STR({t})), ?val)"
        else:  # a short value ("S", "red") as a whole word: "CityGlide 700 SIZE S", not "Scarlet"
            test = ("(LCASE(STR({t})) = ?val || STRENDS(LCASE(STR({t})), CONCAT(' ', ?val)) || "
                    "STRSTARTS(LCASE(STR({t})), CONCAT(?val, ' ')) || CONTAINS(LCASE(STR({t})), CONCAT(' ', ?val, ' ')))")
        return (f"OPTIONAL {{ {var} rdfs:label ?vlab }} "
                f"FILTER({test.format(t=var)} || (BOUND(?vlab) && {test.format(t='?vlab')}) || "
                f"(isIRI({var}) && STRENDS(LCASE(STR({var})), CONCAT('#', ?val))))")

    def _link_triples(self, rows: list[list[Node]], names: list[str], link_vars: list[str], plan: Plan) -> list[Triple]:
        out = []
        for row in rows:
            r = dict(zip(names, row))
            x = r.get("x")
            for i in link_vars:
                w = self.cat.by_key[plan.with_[int(i)]].iri
                p, d = r.get(f"lp{i}"), r.get(f"d{i}")
                if x is None or p is None:
                    continue
                out.append((x, p, w) if str(d) == "1" else (w, p, x))
        return out

    def _type_triples(self, xs: list[Node], plan: Plan) -> list[Triple]:
        if not plan.cls:
            return []
        cls = self.cat.by_key[plan.cls].iri
        out = []
        for x in xs:
            if (x, RDF.type, cls) in self.graph:
                out.append((x, RDF.type, cls))
            else:  # member through a subclass: show its direct type and the subclass chain
                for t in self.graph.objects(x, RDF.type):
                    if (t, RDFS.subClassOf, cls) in self.graph:
                        out += [(x, RDF.type, t), (t, RDFS.subClassOf, cls)]
                        break
                else:
                    t = next((t for t in self.graph.objects(x, RDF.type) if t in self.cat.by_iri), None)
                    if t is not None:
                        out.append((x, RDF.type, t))
        return out

    def items(self, plan: Plan, res: Result, need_prop: bool = False) -> tuple[list[Node], list[Triple]]:
        """The items of a plan (class, with-links, value filter on the property) and their support."""
        b: dict[str, Node] = {}
        body, link_vars = self._items_pattern(plan, b)
        extra = ""
        sel = ["?x"] + [f"?lp{i} ?d{i}" for i in link_vars]
        if plan.property and (plan.value or need_prop):
            b["prop"] = self.entity(plan.property, "property").iri
            extra = f"?x ?prop ?v . {self._value_filter(plan, b)}"
            sel.append("?v")
        if not body and not extra:
            raise PlanError("this plan names no items: give a class, 'with' individuals or a property.")
        q = f"SELECT DISTINCT {' '.join(sel)} WHERE {{\n  {body}\n  {extra}\n}} ORDER BY ?x"
        out = self.run(res, q, b)
        if out is None:
            return [], []
        xs = list(dict.fromkeys(r[0] for r in out.rows if r[0] is not None))
        triples = self._link_triples(out.rows, out.vars, link_vars, plan)
        triples += self._type_triples(xs[:SUPPORT_CAP], plan)
        if "v" in out.vars:
            vi = out.vars.index("v")
            triples += [(r[0], b["prop"], r[vi]) for r in out.rows if r[0] is not None and r[vi] is not None]
        return xs, triples

    # ---- kinds -------------------------------------------------------------------------------------
    def execute(self, plan: Plan) -> Result:
        if plan.kind not in KINDS:
            raise PlanError(f"kind must be one of {', '.join(KINDS)}.")
        for key, kind in [(plan.about, "individual"), (plan.cls, "class"), (plan.property, "property"),
                          (plan.then, "property")] + [(w, "individual") for w in plan.with_]:
            if key:
                self.entity(key, kind)
        res = Result(plan=plan)
        if plan.kind == "none":
            return res
        handler = {"lookup": self._lookup, "list": self._lookup, "count": self._count, "max": self._extreme,
                   "min": self._extreme, "avg": self._aggregate, "sum": self._aggregate,
                   "yesno": self._yesno}[plan.kind]
        handler(plan, res)
        res.triples = list(dict.fromkeys(res.triples))
        return res

    def values_of(self, subject: Node, prop: URIRef, res: Result, plan: Plan | None = None,
                  inverse_ok: bool = True) -> tuple[list[Node], list[Triple]]:
        """Values of `prop` on `subject`; else subjects having `subject` as value of `prop` (inverse)."""
        b: dict[str, Node] = {"s": subject, "prop": prop}
        filt = self._value_filter(plan, b) if plan and plan.value else ""
        out = self.run(res, f"SELECT DISTINCT ?v WHERE {{ ?s ?prop ?v . {filt} }}", b)
        if out and out.rows:
            vals = [r[0] for r in out.rows]
            return vals, [(subject, prop, v) for v in vals]
        if not inverse_ok:
            return [], []
        b = {"s": subject, "prop": prop}
        filt = self._value_filter(plan, b) if plan and plan.value else ""
        out = self.run(res, f"SELECT DISTINCT ?v WHERE {{ ?v ?prop ?s . {filt} }}", b)
        if out and out.rows:
            vals = [r[0] for r in out.rows]
            res.note = res.note or "found in the inverse direction"
            return vals, [(v, prop, subject) for v in vals]
        return [], []

    def _one_hop(self, subject: Node, prop: URIRef, res: Result, plan: Plan) -> tuple[list[Node], list[Triple]]:
        """Values of `prop` on individuals linked to `subject` (e.g. the variants of a product), narrowed by
        the plan's value or with-individuals when given."""
        b: dict[str, Node] = {"s": subject, "prop": prop}
        narrow = ""
        if plan.value and not parse_compare(plan.value):
            b["val"] = Literal(plan.value.lower())
            test = "CONTAINS(LCASE(STR(?t)), ?val)" if len(plan.value) >= 4 else \
                "(LCASE(STR(?t)) = ?val || REGEX(LCASE(STR(?t)), CONCAT('(^|[^a-z0-9])', ?val, '($|[^a-z0-9])')))"
            narrow = f"?y ?tp ?t . FILTER(isLiteral(?t) && {test})"
        for i, key in enumerate(plan.with_):
            b[f"w{i}"] = self.cat.by_key[key].iri
            narrow += f" {{ ?y ?yp{i} ?w{i} }} UNION {{ ?w{i} ?yp{i} ?y }}"
        q = (f"SELECT DISTINCT ?y ?hp ?v ?tp ?t WHERE {{ ?s ?hp ?y . FILTER(isIRI(?y) && ?hp != rdf:type) "
             f"?y ?prop ?v . {narrow} }} ORDER BY ?y")
        out = self.run(res, q, b)
        if not out or not out.rows:
            return [], []
        rows = [dict(zip(out.vars, row)) for row in out.rows]
        rows = self._narrow_by_question(rows, subject, prop)
        vals, triples = [], []
        for r in rows:
            vals.append(r["v"])
            triples += [(subject, r["hp"], r["y"]), (r["y"], prop, r["v"])]
            if r.get("tp") is not None and r.get("t") is not None:
                triples.append((r["y"], r["tp"], r["t"]))
        res.note = "found on linked individuals"
        return list(dict.fromkeys(vals)), triples

    def _narrow_by_question(self, rows: list[dict[str, Node]], subject: Node, prop: URIRef) -> list[dict[str, Node]]:
        """Of several linked individuals (?y), keep those whose names share the most question words that the
        subject's and the property's names do not already account for ("size M" picks the M variant)."""
        ys = list(dict.fromkeys(r["y"] for r in rows))
        if len(ys) < 2 or not self.question_words:
            return rows
        from .catalog import words as _words

        known: set[str] = set()
        for term in (subject, prop):
            ent = self.cat.by_iri.get(term)
            if ent:
                known.update(w for n in ent.names for w in _words(n))
        wanted = {w for w in self.question_words if w not in known}
        if not wanted:
            return rows
        score = {}
        for y in ys:
            ent = self.cat.by_iri.get(y)
            names = ent.names if ent else [self.label(y)]
            score[y] = max((len(wanted & set(_words(n))) for n in names), default=0)
        best = max(score.values())
        if best == 0 or all(v == best for v in score.values()):
            return rows
        return [r for r in rows if score[r["y"]] == best]

    def _lookup(self, plan: Plan, res: Result) -> None:
        if plan.about:
            about = self.cat.by_key[plan.about].iri
            if not plan.property:
                if plan.with_ or plan.cls:  # "which X is linked to <about>": items linked to about
                    p2 = Plan(kind=plan.kind, cls=plan.cls, with_=list(dict.fromkeys(plan.with_ + [plan.about])))
                    xs, triples = self.items(p2, res)
                    res.values, res.triples = xs, triples
                    if xs:
                        res.facts.append(f"{len(xs)} item(s): " + ", ".join(self.label(x) for x in xs[:30]))
                    return
                raise PlanError("lookup needs the property asked for (or a class of the items to list).")
            prop = self.cat.by_key[plan.property].iri
            vals, triples = self.values_of(about, prop, res, plan)
            if not vals:
                vals, triples = self._one_hop(about, prop, res, plan)
            res.values, res.triples = vals, triples
            self._facts_values(res, about, plan.property)
            return
        if not (plan.cls or plan.with_ or plan.property):
            raise PlanError("give 'about' (an individual), or the class / 'with' individuals of the items.")
        if plan.property and not plan.value and (plan.cls or plan.with_):
            # the property of each item ("the area of the warehouse that stores X")
            xs, triples = self.items(plan, res)
            prop = self.cat.by_key[plan.property].iri
            vals, tri = [], []
            for x in xs[:SUPPORT_CAP]:
                v, t = self.values_of(x, prop, res, None, inverse_ok=False)
                vals += v
                tri += t
            with_iris = {self.cat.by_key[w].iri for w in plan.with_ if w in self.cat.by_key}
            if vals and with_iris & set(vals):
                vals = []  # the property is the link to the with-individual ("products with USB-C charging")
            if vals:
                res.values, res.triples = list(dict.fromkeys(vals)), triples + tri
                for x in xs[:10]:
                    got = [self.label(o) for s, p, o in tri if s == x]
                    if got:
                        res.facts.append(f"{self.label(x)}: {self.cat.by_key[plan.property].key} = {', '.join(got)}")
                return
            # the property does not apply to the items, or links them to the with-individual: list the items
            res.triples = []
        xs, triples = self.items(plan, res, need_prop=False)
        if not xs and plan.property and not (plan.cls or plan.with_):
            xs, triples = self.items(plan, res, need_prop=True)
        res.values, res.triples = xs, triples
        if xs:
            res.facts.append(f"{len(xs)} item(s): " + ", ".join(self.label(x) for x in xs[:30]))

    def _facts_values(self, res: Result, subject: Node, prop_key: str) -> None:
        if res.values:
            ent = self.cat.by_key[prop_key]
            unit = f" {ent.unit}" if ent.unit else ""
            res.facts.append(f"{self.label(subject)} {ent.key}: " +
                             ", ".join(self.label(v) for v in res.values[:30]) + unit)

    def _count(self, plan: Plan, res: Result) -> None:
        if plan.about and plan.property and self.cat.by_key[plan.property].ptype == "number":
            # "how many frames are packed in a box": the property holds the number; look it up
            res.plan = Plan(kind="lookup", about=plan.about, property=plan.property, value=plan.value)
            res.note = "the property holds the number: looked it up"
            self._lookup(res.plan, res)
            return
        if plan.about and plan.property:
            about = self.cat.by_key[plan.about].iri
            prop = self.cat.by_key[plan.property].iri
            b = {"s": about, "prop": prop}
            out = self.run(res, "SELECT (COUNT(DISTINCT ?v) AS ?n) WHERE { ?s ?prop ?v }", b)
            n = out.rows[0][0] if out and out.rows else None
            vals, triples = self.values_of(about, prop, res, None, inverse_ok=False)
            if not vals:  # inverse: how many items point to <about> through the property
                out = self.run(res, "SELECT (COUNT(DISTINCT ?v) AS ?n) WHERE { ?v ?prop ?s }", dict(b))
                n = out.rows[0][0] if out and out.rows else None
                vals, triples = self.values_of(about, prop, res, None)
            if not vals:  # one hop: the values held by an individual linked to <about> (its other record)
                vals, triples = self._one_hop(about, prop, res, Plan(kind="lookup"))
                n = Literal(len(vals)) if vals else None
            if vals:
                res.number, res.values, res.triples = n, vals, triples
                res.facts.append(f"COUNT = {fmt_number(n)} ({', '.join(self.label(v) for v in vals[:30])})")
            return
        p2 = plan
        if plan.about and not plan.property:
            p2 = Plan(kind="count", cls=plan.cls, with_=list(dict.fromkeys(plan.with_ + [plan.about])))
        b: dict[str, Node] = {}
        body, _ = self._items_pattern(p2, b)
        extra = ""
        if p2.property and p2.value:
            b["prop"] = self.entity(p2.property, "property").iri
            extra = f"?x ?prop ?v . {self._value_filter(p2, b)}"
        if not body and not extra:
            raise PlanError("count needs the class or 'with' individuals of the items to count "
                            "(or 'about' with the property whose values are counted).")
        out = self.run(res, f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{\n  {body}\n  {extra}\n}}", b)
        if out is None or not out.rows:
            return
        n = out.rows[0][0]
        xs, triples = self.items(p2, res)  # companion query: the counted items, for the support set
        if xs:
            res.number, res.values, res.triples = n, xs, triples
            res.facts.append(f"COUNT = {fmt_number(n)}: " + ", ".join(self.label(x) for x in xs[:12])
                             + (", …" if len(xs) > 12 else ""))

    # ---- numeric values: direct, through a value object (price -> amount), or one hop (via a variant) ------
    def _number_of_values(self, prop: URIRef) -> URIRef | None:
        """The numeric property most used on the objects of an object property (pv:price -> pv:amount)."""
        if prop in self._value_props:
            return self._value_props[prop]
        counts: dict[URIRef, int] = {}
        for n, o in enumerate(self.graph.objects(None, prop)):
            if n >= 50:
                break
            if isinstance(o, URIRef):
                for p2, v in self.graph.predicate_objects(o):
                    ent = self.cat.by_iri.get(p2)
                    if ent is not None and ent.ptype == "number" and as_number(v) is not None:
                        counts[p2] = counts.get(p2, 0) + 1
        best = max(counts, key=lambda k: counts[k]) if counts else None
        self._value_props[prop] = best
        return best

    def _numeric_paths(self, prop: URIRef, one_hop: bool = True) -> list[tuple[str, dict[str, Node]]]:
        """Ways to reach a number ?v from an item ?x through `prop`, tried in order."""
        paths: list[tuple[str, dict[str, Node]]] = [("?x ?prop ?v .", {})]
        ent = self.cat.by_iri.get(prop)
        if ent is not None and ent.ptype == "object":
            p2 = self._number_of_values(prop)
            if p2 is not None:
                paths.append(("?x ?prop ?y . ?y ?p2 ?v .", {"p2": p2}))
        if one_hop:
            paths.append(("?x ?hp ?y . FILTER(isIRI(?y) && ?hp != rdf:type) ?y ?prop ?v .", {}))
        return paths

    def _item_text_filter(self, plan: Plan, b: dict[str, Node], var: str = "?x") -> str:
        """For max/min: keep the items one of whose texts (label, size ...) has the plan's value as a word
        ("the lightest size M variant": value M)."""
        if not plan.value or parse_compare(plan.value):
            return ""
        b["tval"] = Literal(plan.value.lower())
        return (f"\n  FILTER EXISTS {{ {var} ?tp ?t . FILTER(isLiteral(?t) && (LCASE(STR(?t)) = ?tval || "
                "REGEX(LCASE(STR(?t)), CONCAT('(^|[^a-z0-9])', ?tval, '($|[^a-z0-9])')))) }")

    @staticmethod
    def _path_triples(r: dict[str, Node], prop: URIRef, extra: dict[str, Node]) -> list[Triple]:
        x, v, y = r.get("x"), r.get("v"), r.get("y")
        if r.get("hp") is not None:
            return [(x, r["hp"], y), (y, prop, v)]
        if y is not None and "p2" in extra:
            return [(x, prop, y), (y, extra["p2"], v)]
        return [(x, prop, v)]

    def _extreme(self, plan: Plan, res: Result) -> None:
        if not plan.property:
            raise PlanError(f"{plan.kind} needs the property to compare (e.g. a weight or a price).")
        prop = self.cat.by_key[plan.property].iri
        p2 = Plan(kind=plan.kind, cls=plan.cls, with_=list(plan.with_))
        if plan.about and plan.about not in p2.with_:
            p2.with_.append(plan.about)
        order = "DESC(?n)" if plan.kind == "max" else "ASC(?n)"
        out, extra, rows = None, {}, []
        for path, extra in self._numeric_paths(prop):
            b: dict[str, Node] = {"prop": prop, **extra}
            body, _ = self._items_pattern(p2, b)
            text_filter = self._item_text_filter(plan, b, "?y" if "?hp" in path else "?x")
            sel = "?x ?v" + (" ?y" if "?y" in path else "") + (" ?hp" if "?hp" in path else "")
            q = (f"SELECT {sel} WHERE {{\n  {body}\n  {path} BIND(xsd:double(?v) AS ?n) FILTER(BOUND(?n)){text_filter}"
                 f"\n}} ORDER BY {order} ?x LIMIT 50")
            out = self.run(res, q, b)
            if out and out.rows:
                rows = [dict(zip(out.vars, r)) for r in out.rows]
                if path != "?x ?prop ?v .":
                    res.note = "compared through linked individuals"
                break
        if not rows:
            return
        first = as_number(rows[0]["v"])
        winners = [r for r in rows if as_number(r["v"]) == first]
        res.winners = list(dict.fromkeys(r["x"] for r in winners))
        res.extreme = rows[0]["v"]
        res.triples = [t for r in winners for t in self._path_triples(r, prop, extra)]
        res.triples += self._type_triples(res.winners, plan)
        if plan.with_:
            _, links = self.items(Plan(kind="list", cls="", with_=plan.with_), Result(plan=plan))
            res.triples += [t for t in links if t[0] in res.winners or t[2] in res.winners]
        word = "highest" if plan.kind == "max" else "lowest"
        unit = self.cat.by_key[plan.property].unit
        via = {r["x"]: r.get("y") for r in winners if r.get("hp") is not None}
        res.facts.append(f"{word} {self.cat.by_key[plan.property].key}: " + ", ".join(
            self.label(w) + (f" (via {self.label(via[w])})" if via.get(w) is not None else "") for w in res.winners)
            + f" ({fmt_number(res.extreme)}{' ' + unit if unit else ''})")
        # no runner-up in the results: a small model states it as if it were the answer, without support
        res.values = list(res.winners)
        if plan.then:
            then = self.cat.by_key[plan.then].iri
            vals, tri = [], []
            for w in res.winners:
                v, t = self.values_of(w, then, res, None)
                if not v:
                    v, t = self._one_hop(w, then, res, Plan(kind="lookup"))
                vals += v
                tri += t
            if vals:
                res.values = list(dict.fromkeys(vals))
                res.triples += tri
                res.facts.append(f"{', '.join(self.label(w) for w in res.winners)} {self.cat.by_key[plan.then].key}: "
                                 + ", ".join(self.label(v) for v in res.values[:30]))
            else:
                res.note = f"the winner has no {self.cat.by_key[plan.then].key}"
                res.values = []

    def _aggregate(self, plan: Plan, res: Result) -> None:
        if not plan.property:
            raise PlanError(f"{plan.kind} needs the numeric property to aggregate.")
        prop = self.cat.by_key[plan.property].iri
        if plan.about and not plan.cls and not plan.with_ and \
                (self.cat.by_key[plan.about].iri, prop, None) in self.graph:
            # "the average storage time of X": a value of X itself (the property is the average)
            res.plan = Plan(kind="lookup", about=plan.about, property=plan.property)
            res.note = "an aggregate of one individual: looked up its value"
            self._lookup(res.plan, res)
            return
        prop = self.cat.by_key[plan.property].iri
        p2 = Plan(kind=plan.kind, cls=plan.cls, with_=list(plan.with_))
        if plan.about and plan.about not in p2.with_:
            p2.with_.append(plan.about)
        fn = "AVG" if plan.kind == "avg" else "SUM"
        for path, extra in self._numeric_paths(prop, one_hop=False):
            b: dict[str, Node] = {"prop": prop, **extra}
            body, link_vars = self._items_pattern(p2, b)
            ys = " ?y" if "?y" in path else ""
            # one value per item and value (DISTINCT), so a second link path does not count a value twice
            q = (f"SELECT ({fn}(?n) AS ?agg) (COUNT(?n) AS ?cnt) WHERE {{ SELECT DISTINCT ?x{ys} ?v ?n WHERE {{\n"
                 f"  {body}\n  {path} BIND(xsd:decimal(?v) AS ?n) FILTER(BOUND(?n))\n}} }}")
            out = self.run(res, q, dict(b))
            if out and out.rows and out.rows[0][0] is not None and int(out.rows[0][1] or 0):
                break
        else:
            return
        res.number = out.rows[0][0]
        # companion query: the rows that went into the aggregate, for the support set
        sel = f"?x{ys} ?v " + " ".join(f"?lp{i} ?d{i}" for i in link_vars)
        q2 = (f"SELECT DISTINCT {sel} WHERE {{\n  {body}\n  {path} BIND(xsd:decimal(?v) AS ?n) FILTER(BOUND(?n))\n}}"
              " ORDER BY ?x")
        out2 = self.run(res, q2, dict(b))
        if out2:
            rows = [dict(zip(out2.vars, r)) for r in out2.rows]
            res.triples = [t for r in rows[:SUPPORT_CAP] for t in self._path_triples(r, prop, extra)]
            res.triples += self._type_triples([r["x"] for r in rows][:SUPPORT_CAP], plan)
            res.triples += self._link_triples(out2.rows, out2.vars, link_vars, p2)[:SUPPORT_CAP]
            res.values = [res.number]
            word = "AVERAGE" if plan.kind == "avg" else "TOTAL"
            unit = self.cat.by_key[plan.property].unit
            res.facts.append(f"{word} {self.cat.by_key[plan.property].key} = {fmt_number(res.number)}"
                             f"{' ' + unit if unit else ''} over {out.rows[0][1]} value(s): " +
                             ", ".join(f"{self.label(r['x'])} {fmt_number(r['v'])}" for r in rows[:20]))

    def _yesno(self, plan: Plan, res: Result) -> None:
        if not plan.about:
            # "is there any X linked to Y?": yes when the items exist
            xs, triples = self.items(plan, res, need_prop=bool(plan.property))
            if xs or triples:
                res.boolean, res.values, res.triples = True, [Literal(True)], triples
                res.facts.append(f"YES: {len(xs)} matching item(s): " + ", ".join(self.label(x) for x in xs[:10]))
            elif plan.cls or plan.with_:
                res.boolean, res.values = False, [Literal(False)]
                res.facts.append("NO: no matching item")
            return
        about = self.cat.by_key[plan.about].iri
        if plan.with_:
            found, evidence = [], []
            for key in plan.with_:
                w = self.cat.by_key[key].iri
                b = {"s": about, "w": w}
                out = self.run(res, "SELECT DISTINCT ?p ?d WHERE { { ?s ?p ?w . BIND(1 AS ?d) } UNION "
                                    "{ ?w ?p ?s . BIND(0 AS ?d) } FILTER(?p != rdf:type) }", b)
                rows = out.rows if out else []
                found.append(bool(rows))
                if rows:
                    evidence += [(about, r[0], w) if str(r[1]) == "1" else (w, r[0], about) for r in rows]
                else:
                    evidence += self._alternatives(about, w, plan, res)
            res.boolean = all(found)
            res.triples = evidence
            res.values = [Literal(res.boolean)]
            if not res.boolean and not evidence:
                res.boolean = None  # nothing at all about it: no data rather than "no"
            res.facts.append(("YES: " if res.boolean else "NO: ") + "; ".join(
                f"{self.label(s)} {self.short(p)} {self.label(o)}" for s, p, o in evidence[:10]))
            return
        if not plan.property:
            raise PlanError("yesno needs 'with' (the individual to check a link to) or a property (and value).")
        prop = self.cat.by_key[plan.property].iri
        vals, triples = self.values_of(about, prop, res, None)
        if not vals:
            vals, triples = self._one_hop(about, prop, res, Plan(kind="lookup"))
        if not vals:
            return
        if plan.value:
            matched, mtriples = self.values_of(about, prop, res, plan)
            if not matched:
                matched, mtriples = self._one_hop(about, prop, res, plan)
            if not matched and not parse_compare(plan.value):
                # a "no" only means something when the value is a value of this property at all ("S" is no color)
                b: dict[str, Node] = {"prop": prop}
                filt = self._value_filter(plan, b)
                anywhere = self.run(res, f"SELECT ?s WHERE {{ ?s ?prop ?v . {filt} }} LIMIT 1", b)
                if not anywhere or not anywhere.rows:
                    res.note = f"'{plan.value}' is not a value of {self.cat.by_iri[prop].key}"
                    return
            res.boolean = bool(matched)
            res.triples = mtriples if matched else triples
        else:
            truthy = [v for v in vals if not (isinstance(v, Literal) and str(v).lower() in ("false", "0", "no"))]
            res.boolean = bool(truthy)
            res.triples = triples
        res.values = [Literal(res.boolean)]
        res.facts.append(("YES: " if res.boolean else "NO: ") + "; ".join(
            f"{self.label(s)} {self.short(p)} {self.label(o)}" for s, p, o in res.triples[:10]))

    def _alternatives(self, about: Node, w: Node, plan: Plan, res: Result) -> list[Triple]:
        """For a "no": the values `about` has for the properties that link other items to `w`."""
        b = {"w": w, "s": about}
        out = self.run(res, "SELECT DISTINCT ?p ?o WHERE { ?y ?p ?w . FILTER(?p != rdf:type) ?s ?p ?o }", b, 30)
        triples = [(about, r[0], r[1]) for r in (out.rows if out else [])]
        if not triples:
            out = self.run(res, "SELECT DISTINCT ?p ?o WHERE { ?w ?p ?y . FILTER(?p != rdf:type) ?o ?p ?s }",
                           dict(b), 30)
            triples = [(r[1], r[0], about) for r in (out.rows if out else [])]
        if not triples:  # the same through an individual linked to `about` (a variant is stored elsewhere)
            out = self.run(res, "SELECT DISTINCT ?hp ?y ?p ?o WHERE { ?z ?p ?w . FILTER(?p != rdf:type) "
                                "?s ?hp ?y . FILTER(isIRI(?y) && ?hp != rdf:type) ?y ?p ?o }", dict(b), 30)
            for r in (out.rows if out else []):
                triples += [(about, r[0], r[1]), (r[1], r[2], r[3])]
        return triples


# ---- question cues -------------------------------------------------------------------------------------------
NUMERIC_KINDS = ("max", "min", "avg", "sum")
_MAX_WORDS = set("""most highest largest biggest heaviest longest tallest widest deepest oldest newest brightest
fastest maximum max greatest priciest top""".split())
_MIN_WORDS = set("""least lowest smallest lightest shortest cheapest youngest minimum min fewest""".split())
_YESNO_START = re.compile(r"^\s*(is|are|does|do|did|can|has|have|was|were|will)\b", re.I)


def question_cue(question: str) -> tuple[str, str]:
    """(kind, cue word) that the wording of the question points to, or ("", "")."""
    low = question.lower()
    ws = re.findall(r"[a-z]+", low)
    if _YESNO_START.match(question):
        return "yesno", ws[0] if ws else ""
    if re.search(r"\bhow many\b|\bnumber of\b", low):
        return "count", "how many"
    for i, w in enumerate(ws):
        if w in ("most", "least") and i + 1 < len(ws) and ws[i + 1] in ("expensive", "costly", "pricey"):
            return ("max" if w == "most" else "min"), f"{w} {ws[i + 1]}"
    for w in ws:
        if w in _MAX_WORDS:
            return "max", w
        if w in _MIN_WORDS:
            return "min", w
    for w in ws:
        if w in ("average", "mean"):
            return "avg", w
        if w in ("total", "sum", "altogether", "combined"):
            return "sum", w
    return "", ""


def cue_hint(question: str) -> str:
    kind, word = question_cue(question)
    if not kind:
        return ""
    if kind == "yesno":
        return "Hint: a yes/no question: kind yesno."
    if kind == "count":
        return "Hint: 'how many' asks for kind count (or lookup when a listed property holds the number)."
    if kind == "avg":
        return f"Hint: '{word}' asks for kind avg (or lookup when a listed property is itself an average)."
    return f"Hint: '{word}' asks for kind {kind}" + (" (with then, when the question asks something about the winner)."
                                                  if kind in ("max", "min") else ".")


def cue_variants(plan: Plan, question: str, cat: Catalog, properties: list[str]) -> tuple[list[Plan], bool]:
    """The plan recast as the kind its question's wording points to (a superlative as max/min over the items
    of the plan's class or category, "how many" as a count), when the model chose another kind; and whether
    to try them before the model's own plan (when the model's kind cannot answer such a question)."""
    from .catalog import SYNONYMS, word_match, words

    kind, word = question_cue(question)
    out: list[Plan] = []
    if kind == "yesno" and plan.kind != "yesno" and (plan.about or plan.with_ or plan.cls):
        ind = _value_individual(plan, cat, list(cat.by_key)) if plan.value else None
        with_ = list(dict.fromkeys([*plan.with_, *([ind] if ind else [])]))[:MAX_WITH]
        out.append(Plan(kind="yesno", about=plan.about, cls=plan.cls, with_=with_, property=plan.property,
                        value="" if ind else plan.value))
        return out, True
    prop = cat.by_key.get(plan.property)
    # "min of hasColor": the model chose the superlative but ranks by a property that holds no numbers
    unranked = kind == plan.kind and kind in ("max", "min") and (prop is None or prop.ptype != "number")
    if not kind or (kind == plan.kind and not unranked) or kind == "yesno":
        return out, False
    if kind == "count" and plan.kind in ("lookup", "list"):
        prop = cat.by_key.get(plan.property)
        if prop is None or prop.ptype != "number":
            out.append(Plan(kind="count", about=plan.about, cls=plan.cls, with_=list(plan.with_),
                            property=plan.property, value=plan.value))
        return out, True
    if kind not in NUMERIC_KINDS or (plan.kind not in ("lookup", "list", "count") and not unranked) or \
            (kind in ("avg", "sum") and plan.about):
        return out, False
    with_ = list(dict.fromkeys([*plan.with_, *([plan.about] if plan.about else [])]))[:MAX_WITH]
    pool = list(dict.fromkeys(([plan.property] if plan.property else []) + properties))
    numeric = [k for k in pool if k in cat.by_key and cat.by_key[k].ptype == "number"]
    from .catalog import STOP

    def matching(targets: list[str]) -> list[str]:
        hits = [k for k in numeric if any(word_match(a, b) for a in targets
                                          for n in cat.by_key[k].names for b in words(n))]
        # "lightest": weight itself before a carton's or a box's weight
        return sorted(hits, key=lambda k: min(len(words(n)) for n in cat.by_key[k].names))

    qws = words(question)
    last = word.split()[-1]
    after = [w for w in qws[qws.index(last) + 1:] if w not in STOP][:3] if last in qws else []
    # "the most ventilation openings", "the longest warranty": the words after the cue name the property;
    # else the adjective's own meaning ("lightest": weight); else the chosen or best linked number
    ranking = matching(after) + matching(SYNONYMS.get(word, [])) + numeric[:1]
    ranking = list(dict.fromkeys(ranking))
    for key in ranking[:2]:
        then = plan.then or (plan.property if plan.property and plan.property != key else "")
        out.append(Plan(kind=kind, cls=plan.cls, with_=with_, property=key, then=then))
        if unranked and plan.cls:  # its class was likely the class of that property's values (Color)
            out.append(Plan(kind=kind, with_=with_, property=key, then=then))
    return out, kind in ("max", "min")


def tidy_plan(plan: Plan, question: str, cat: Catalog) -> Plan:
    """Drop a `then` the question does not speak of (a small model fills every field it sees)."""
    from .catalog import SYNONYMS, STOP, singular, word_match, words

    if not plan.then or plan.then not in cat.by_key:
        return plan
    qws = [w for w in words(question) if w not in STOP]
    forms = set(qws) | {x for w in qws for x in SYNONYMS.get(w, []) + SYNONYMS.get(singular(w), [])}
    names = {w for n in cat.by_key[plan.then].names for w in words(n)} - STOP
    if any(word_match(f, n) for f in forms for n in names):
        return plan
    return Plan(kind=plan.kind, about=plan.about, cls=plan.cls, with_=list(plan.with_), property=plan.property,
                value=plan.value, then="")


def unused_mention(plan: Plan, cands: Any, cat: Catalog) -> tuple[Plan | None, bool]:
    """The plan with the individual the question names exactly (the best linked one) when the plan leaves it
    out ("How many size variants does the GravelKing Carbon have?" planned as a count of all frames), and
    whether to try it before the plan itself."""
    if plan.kind in ("none",) or not cands.individuals:
        return None, False
    top = cands.individuals[0]
    key, ent = top.entity.key, top.entity
    if top.score < 1.0 or key in (plan.about, *plan.with_) or _value_individual(plan, cat, [key]):
        return None, False
    prop = cat.by_key.get(plan.property)
    if plan.about:
        if prop is not None and prop.ptype == "object" and plan.kind in ("lookup", "list", "count"):
            # "Which helmets have a MIPS liner?" planned as the features of Helmets: the items linked to both
            return Plan(kind="count" if plan.kind == "count" else "list", with_=[plan.about, key]), False
        if plan.property:  # the material of "CityGlide 700 SIZE M" when the question names "CityGlide 700"
            return Plan(kind=plan.kind, about=key, property=plan.property, value=plan.value, then=plan.then), False
        return None, False
    if prop is not None and plan.kind in NUMERIC_KINDS and (ent.iri, prop.iri, None) in cat.graph:
        # "the average storage time of X" planned as an average over a class: X's own value
        return Plan(kind="lookup", about=key, property=plan.property), True
    if plan.cls and plan.cls in cat.by_key and cat.by_key[plan.cls].iri in ent.types and \
            not (plan.property and plan.kind in ("lookup", "list", "count")):
        return None, False  # it is one of the items
    if plan.property and plan.kind in ("lookup", "list", "count", "yesno"):
        return Plan(kind=plan.kind, about=key, property=plan.property, value=plan.value, then=plan.then), True
    return Plan(kind=plan.kind, cls=plan.cls, with_=[*plan.with_, key][:MAX_WITH], property=plan.property,
                value=plan.value, then=plan.then), True


def without_class(plan: Plan) -> Plan | None:
    """For a plan over items linked to individuals: the same without its class (the model may have picked a
    class the linked items are not in)."""
    if not plan.cls or not (plan.with_ or plan.about):
        return None
    if plan.property and plan.kind not in NUMERIC_KINDS:
        return None  # a count or list without its class would take every neighbour
    return Plan(kind=plan.kind, about=plan.about, with_=list(plan.with_), property=plan.property,
                value=plan.value, then=plan.then)


# ---- repairs ---------------------------------------------------------------------------------------------


def _value_individual(plan: Plan, cat: Catalog, individuals: list[str]) -> str | None:
    """The candidate individual that the plan's `value` names (the model put a name where a link belongs)."""
    from ontobuild.names import normalize

    if not plan.value or parse_compare(plan.value):
        return None
    v = normalize(plan.value)
    for key in individuals:
        ent = cat.by_key.get(key)
        if ent and ent.kind == "individual" and v and (normalize(key) == v or any(normalize(n) == v for n in ent.names)):
            return key
    return None


def _common_words(plan: Plan, cat: Catalog, question: str) -> str:
    """The question words that the labels of two or more `with` individuals all carry, when those individuals
    are examples of the items rather than things the items link to ("size m" for two "... size M" variants)."""
    from .catalog import STOP, words

    ents = [cat.by_key[k] for k in plan.with_ if k in cat.by_key]
    if len(ents) < 2:
        return ""
    by_class: dict[Any, list] = {}
    for e in ents:
        for t in e.types:
            by_class.setdefault(t, []).append(e)
    group = max(by_class.values(), key=len, default=[])
    if len(group) < 2:
        return ""
    qws = set(words(question)) - STOP
    shared = [w for w in words(group[0].label) if w in qws and all(w in words(e.label) for e in group[1:])]
    shared = [w for w in shared if not any(w in words(n) for n in cat.by_iri[group[0].types[0]].names)]
    return " ".join(dict.fromkeys(shared))


def repairs(plan: Plan, cat: Catalog, individuals: list[str], properties: list[str], limit: int = 10,
            question: str = "") -> list[Plan]:
    """Plans to try, in order, when `plan` finds nothing (or nothing the question speaks of): the value that
    names an individual used as a link, the value dropped, the class dropped, then the other candidate
    properties (best linked first)."""
    out: list[Plan] = []

    def add(p: Plan) -> None:
        if p.to_args() != plan.to_args() and all(p.to_args() != q.to_args() for q in out):
            out.append(p)

    def variant(base: Plan, **changes: Any) -> Plan:
        p = Plan(kind=base.kind, about=base.about, cls=base.cls, with_=list(base.with_), property=base.property,
                 value=base.value, then=base.then)
        for k, v in changes.items():
            setattr(p, k, v)
        return p

    base = plan
    if plan.kind in NUMERIC_KINDS and plan.about:
        # "min about Helmets": the items linked to Helmets; a `then` that finds nothing: the winner itself
        grouped = variant(plan, about="", with_=list(dict.fromkeys([plan.about, *plan.with_]))[:MAX_WITH])
        add(grouped)
        if plan.then:
            add(variant(grouped, then=""))
    if plan.then:
        add(variant(plan, then=""))
    ind = _value_individual(plan, cat, individuals)
    if ind:
        if plan.about and plan.kind in ("lookup", "list", "yesno") and plan.property:
            add(variant(plan, about=ind, value=""))
        if plan.about and plan.kind in ("lookup", "list"):
            add(variant(plan, kind="list", about="", property="", value="", then="",
                        with_=list(dict.fromkeys([*plan.with_, plan.about, ind]))[:MAX_WITH]))
        add(variant(plan, value="", with_=list(dict.fromkeys([*plan.with_, ind]))[:MAX_WITH]))
        base = variant(plan, value="")
    elif plan.value and not parse_compare(plan.value) and plan.kind != "yesno":
        add(variant(plan, value=""))
    common = _common_words(plan, cat, question) if plan.kind in ("max", "min") else ""
    if common:
        # "with" lists examples of the items (the M variants): compare the items that carry their common words
        nums = [k for k in ([plan.property] + properties) if k in cat.by_key and cat.by_key[k].ptype == "number"]
        for key in list(dict.fromkeys(nums))[:2]:
            add(variant(plan, with_=[], value=common, property=key))
    if plan.about and plan.with_ and plan.kind in ("lookup", "list", "count"):
        # "about Helmets, with MIPS liner": the items linked to both
        add(variant(base, kind="count" if plan.kind == "count" else "list", about="", property="", then="",
                    with_=list(dict.fromkeys([plan.about, *plan.with_]))[:MAX_WITH]))
    prop = cat.by_key.get(plan.property)
    if not plan.about and len(plan.with_) == 1 and prop is not None and plan.kind in ("count", "list", "lookup"):
        # "count Frame with [X] property hasVariant": the values of X's property
        add(variant(base, about=plan.with_[0], with_=[], cls=""))
    if without_class(base) is not None:
        add(without_class(base))
    for key in properties:
        if len(out) >= limit:
            break
        ent = cat.by_key.get(key)
        if key in (plan.property, "") or ent is None:
            continue
        if plan.kind in NUMERIC_KINDS and ent.ptype not in ("number", "object"):
            continue
        if plan.property or plan.kind in NUMERIC_KINDS or (plan.kind in ("lookup", "yesno") and plan.about):
            add(variant(base, property=key))
            if plan.kind in NUMERIC_KINDS and without_class(base) is not None:
                add(variant(without_class(base), property=key))
    return out[:limit]


__all__ = ["without_class", "question_cue", "cue_hint", "cue_variants", "repairs", "Plan", "Result", "Executor", "PlanError", "QueryRun", "KINDS", "fmt_number", "parse_compare"]
