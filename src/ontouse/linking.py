"""Linking a question to the ontology: which values it names, and which tables it is about.

Values: every text value of the view (labels of things included) is indexed by its words; a run of question words
that equals a value's words (case, accents and regular plurals ignored) is a value mention, and a rarer run that
occurs inside few values is a partial mention ("QX-4471" inside a jar's label). Mentions become hints in
the prompt ("'Harwick' is a value of depots.town") and let code repair a literal the model misspelt.

Tables: when the whole view does not fit the prompt budget, tables are ranked by how close their names, comments
and columns are to the question, in the embedding space of a small sentence model (ontocore/embeddings.py), plus the tables
holding mentioned values and the tables they link to."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field

from rdflib import Literal, URIRef

from ontocore.text import STOP, fold, singular, stem, tokens
from ontocore.text import WORD as _WORD_RE

from .question import Question
from .storage.sparql import QueryError
from .sqlplan.schema import Schema, Table
from .storage.store import Store

log = logging.getLogger(__name__)

MAX_VALUE_CHARS = 120
PARTIAL_MAX_VALUES = 30  # a partial mention counts when the words occur inside at most this many values
FUZZY_CUTOFF = 0.85  # difflib ratio for a misspelt value ("gazeebo" for "gazebo")
PARTIAL_MAX_NAMES = 5  # ... and a single capitalised word (a name: "Ms. Vellow") inside at most this many
MAX_HINTS = 8
MAX_PHRASE_WORDS = 4  # the longest run of question words looked up as a value in the store (open properties)
LOOKUP_CHUNK = 400  # literals per lookup query
_NUMBER_TEXT = re.compile(r"-?\d+(?:[.,]\d+)*")


def _within_narrower(table: Table, tables: list[Table], things: dict[URIRef, set[URIRef]]) -> bool:
    """Whether every thing `table` holds is also held by another of `tables` that is narrower (a subclass's table)."""
    mine = [cs for cs in things.values() if cs & set(table.classes)]
    narrower = [o for o in tables if set(o.classes) < set(table.classes)]
    return bool(mine and narrower) and all(any(cs & set(o.classes) for o in narrower) for cs in mine)


def _key(words: list[str]) -> tuple[str, ...]:
    return tuple(singular(w) for w in words)


@dataclass(frozen=True)
class Mention:
    text: str  # the words of the question
    value: str  # the value in the data
    table: str
    column: str
    exact: bool  # the question names the whole value (else the value contains the words)
    count: int = 1  # for partial mentions: how many values contain the words
    links: tuple[str, ...] = ()  # for a thing's name: the link columns (table.column) that point at its table
    link_target: str = ""  # the table that link points at, when it is a wider one (a superclass's) than `table`

    def hint(self) -> str:
        if self.exact and self.links:
            among = f", {self.table} rows among them" if self.link_target else ""
            return (f"'{self.value}' is the {self.column} of a {self.table} row (a link column such as "
                    f"{self.links[0]} points to {self.link_target or self.table} rows{among})")
        if self.exact:
            return f"'{self.value}' is a value of {self.table}.{self.column}"
        return (f"'{self.text}' occurs inside {self.count} value(s) of {self.table}.{self.column}, "
                f"e.g. '{self.value}'")


@dataclass
class ValueIndex:
    """Text values of the view by their first word, for matching runs of question words."""

    schema: Schema
    store: Store
    by_first: dict[str, list[tuple[tuple[str, ...], str, URIRef]]] = field(default_factory=dict)
    by_word: dict[str, set[int]] = field(default_factory=dict)
    entries: list[tuple[tuple[str, ...], str, URIRef]] = field(default_factory=list)
    _by_table: dict[tuple[URIRef, str], dict[str, int]] = field(default_factory=dict)
    shown: set[str] = field(default_factory=set)  # the tables the prompt shows (hints name only those)
    embedder: object = None  # an embeddings.Embedder, to pick the link a hint shows
    _singles: list[str] = field(default_factory=list)  # one-word values (folded), for typos
    _question: str = ""
    _labels: dict = field(default_factory=dict)  # (property, "") -> its labels (column_texts)
    _held: dict[tuple[URIRef, str, str], bool] = field(default_factory=dict)  # looked up in the store

    @classmethod
    def build(cls, schema: Schema, store: Store, shown: set[str] | None = None) -> "ValueIndex":
        idx = cls(schema, store, shown=set(shown or ()))
        text_props = {c.prop for t in schema.tables.values() for c in t.columns.values()
                      if c.kind == "value" and c.sql_type == "TEXT"}
        for prop, values in schema.values.items():
            if prop not in text_props:
                continue
            for v in values:
                if len(v) > MAX_VALUE_CHARS or not re.search(r"[^\W\d_]", v):
                    continue
                key = _key(tokens(v))
                if not key:
                    continue
                n = len(idx.entries)
                idx.entries.append((key, v, prop))
                idx.by_first.setdefault(key[0], []).append((key, v, prop))
                for w in set(key):
                    idx.by_word.setdefault(w, set()).add(n)
        return idx

    def mentions(self, q: Question) -> list[Mention]:
        self._question = q.text
        words = _key(q.words)
        exact: list[tuple[int, int, str, URIRef]] = []
        found = self._looked_up(q)
        for i, w in enumerate(words):
            for key, value, prop in [*self.by_first.get(w, ()), *found.get(w, ())]:
                if words[i:i + len(key)] == key:
                    exact.append((i, i + len(key), value, prop))
        # keep the longest mention at each place; a shorter one inside a longer one goes
        exact.sort(key=lambda m: (-(m[1] - m[0]), m[0]))
        taken: set[int] = set()
        kept: list[tuple[int, int, str, URIRef]] = []
        out: list[Mention] = []
        for i, j, value, prop in exact:
            if set(range(i, j)) <= taken and not any(a == i and b == j for a, b, _, _ in kept):
                continue  # inside a longer mention (the same words in another value or column stay)
            if all(w in _STOP for w in words[i:j]):
                continue
            taken |= set(range(i, j))
            kept.append((i, j, value, prop))
            text = " ".join(q.words[i:j])
            out += self._placed(text, value, prop, True) or self._as_link_value(text, value, prop)
        out += self._partial(words, taken, q)
        out += self._misspelt(words, taken, q)
        return _dedupe(out)[:MAX_HINTS]

    def _as_link_value(self, text: str, value: str, prop: URIRef) -> list[Mention]:
        """A name of things that are rows of no table but values of links (an individual with a name and no class
        of the view: "biogas" as a truck's fuel): the name as a value of the link columns that hold them."""
        if prop not in self.schema.label_props:
            return []
        things = [t for t, classes in self.things_with(prop, value).items() if not self._typed(classes)]
        holders: dict[tuple[URIRef, URIRef], set[URIRef]] = {}  # (link, subject) -> the subject's classes
        for thing in things[:5]:
            query = "SELECT ?o ?p ?s ?t WHERE { ?s ?p ?o . ?s a ?t }"
            for _, link, subject, cls in self.store.select(query, max_rows=200, bindings={"o": thing}).rows:
                holders.setdefault((link, subject), set()).add(cls)
        out = []
        for link in sorted({link for link, _ in holders}):
            subjects = {s: cs for (p, s), cs in holders.items() if p == link}
            tables = [t for t, c in self.schema.columns_of(link) if c.kind == "link" and not c.hidden
                      and set(t.classes) & set().union(*subjects.values()) and (not self.shown or t.name in self.shown)]
            out += [Mention(text, value, t.name, t.column_for(link).name, True)
                    for t in tables if not _within_narrower(t, tables, subjects)][:2]
        return out

    def _typed(self, classes: set[URIRef]) -> bool:
        """Whether a thing of these classes is a row of some table."""
        return any(set(t.classes) & classes for t in self.schema.tables.values())

    def _open_props(self) -> list[URIRef]:
        """The text properties whose values the index holds a part of (a big graph's names and codes)."""
        return sorted(p for p in self.schema.open_values if self.schema.columns_of(p))

    def _looked_up(self, q: Question) -> dict[str, list[tuple[tuple[str, ...], str, URIRef]]]:
        """The values of open text properties that runs of the question's words spell, looked up in the store
        (entries by first word, as `by_first`)."""
        props = self._open_props()
        if not props:
            return {}
        hits = self._lookup(props, question_phrases(q))
        out: dict[str, list[tuple[tuple[str, ...], str, URIRef]]] = {}
        for prop, value in sorted(hits):
            key = _key(tokens(value))
            if key and len(value) <= MAX_VALUE_CHARS:
                out.setdefault(key[0], []).append((key, value, prop))
        return out

    def _variants(self, texts: list[str]) -> list[Literal]:
        """The literals a text value may be stored as: plain, and tagged with each label language of the graph."""
        langs = sorted(code for code in self.schema.languages.counts if code)
        return [Literal(t, lang=lang) for t in dict.fromkeys(texts) for lang in [None, *langs]]

    def _lookup(self, props: list[URIRef], texts: list[str], table: Table | None = None) -> set[tuple[URIRef, str]]:
        """(property, value) of `props` whose value is one of `texts` (on `table`'s rows, when given), asked of the
        store with the texts as bound values (each term written by rdflib, escaped), one query per property."""
        found: set[tuple[URIRef, str]] = set()
        lits = self._variants([t for t in texts if t and len(t) <= MAX_VALUE_CHARS])
        if not lits:
            return found
        typed = f"?s a ?t . VALUES ?t {{ {' '.join(c.n3() for c in table.classes)} }}" if table is not None else ""
        for i in range(0, len(lits), LOOKUP_CHUNK):
            terms = " ".join(x.n3() for x in lits[i:i + LOOKUP_CHUNK])
            for prop in props:
                query = f"SELECT DISTINCT ?o WHERE {{ VALUES ?o {{ {terms} }} ?s {prop.n3()} ?o . {typed} }} LIMIT 50"
                try:
                    rows = self.store.select(query, max_rows=50).rows
                except QueryError as e:
                    log.info("values of %s not looked up: %s", prop, e)
                    continue
                found |= {(prop, str(r[0])) for r in rows}
        return found

    def holds(self, prop: URIRef, text: str, table: Table | None = None) -> bool:
        """Whether `text` is a value of `prop` (on `table`'s rows, when given): the index's values, and for an open
        property the store."""
        key = (prop, text, table.name if table is not None else "")
        if key not in self._held:
            self._held[key] = bool(self._lookup([prop], [text], table))
        return self._held[key]

    def _misspelt(self, words: tuple[str, ...], taken: set[int], q: Question) -> list[Mention]:
        """A long question word that is no value but nearly spells exactly one one-word value (a typo)."""
        import difflib

        if not self._singles:
            self._singles = sorted({key[0] for key, _, _ in self.entries if len(key) == 1 and len(key[0]) >= 5})
        out: list[Mention] = []
        for i, w in enumerate(words):
            if i in taken or len(w) < 5 or w in _STOP or not w.isalpha() or w in self.by_word:
                continue
            close = difflib.get_close_matches(w, self._singles, n=2, cutoff=FUZZY_CUTOFF)
            if len(close) != 1:
                continue
            for key, value, prop in self.by_first.get(close[0], ()):
                if len(key) == 1:
                    out += self._placed(q.words[i], value, prop, True)
                    break
        return out

    def _partial(self, words: tuple[str, ...], taken: set[int], q: Question) -> list[Mention]:
        out: list[Mention] = []
        raw = [m.group(0) for m in _WORD_RE.finditer(q.text)]
        capitals = {i for i, w in enumerate(raw) if i > 0 and w[:1].isupper() and len(w) > 2}
        for size in (3, 2, 1):
            for i in range(len(words) - size + 1):
                run = words[i:i + size]
                if set(range(i, i + size)) & taken or any(w in _STOP for w in (run[0], run[-1])):
                    continue
                code = bool(re.search(r"\d", run[0]) and len(run[0]) >= 4)
                if size == 1 and not (code or i in capitals):
                    continue
                hits = set.intersection(*(self.by_word.get(w, set()) for w in run))
                hits = {h for h in hits if _contains(self.entries[h][0], run)}
                if not hits or len(hits) > (PARTIAL_MAX_VALUES if size > 1 or code else PARTIAL_MAX_NAMES):
                    continue
                by_prop: dict[URIRef, list[str]] = {}
                for h in sorted(hits):
                    by_prop.setdefault(self.entries[h][2], []).append(self.entries[h][1])
                for prop, values in by_prop.items():
                    for m in self._placed(" ".join(q.words[i:i + size]), values[0], prop, False):
                        out.append(Mention(m.text, m.value, m.table, m.column, False, len(values)))
                taken |= set(range(i, i + size))
        return out

    def column_texts(self, table: str, column: str) -> set[str]:
        """The labels of a column's property in every language (the view keeps one)."""
        t = self.schema.table(table)
        col = t.column(column) if t else None
        if col is None or not col.prop:
            return set()
        return self._labels_of(URIRef(col.prop)) | ({col.label} if col.label else set())

    def table_texts(self, table: str) -> set[str]:
        """The labels of a table's class in every language (the view keeps one)."""
        t = self.schema.table(table)
        if t is None or not t.cls:
            return set()
        return self._labels_of(URIRef(t.cls)) | ({t.label} if t.label else set())

    def _labels_of(self, iri: URIRef) -> set[str]:
        from rdflib import RDFS

        key = (iri, "")
        if key not in self._labels:
            try:
                rows = self.store.select("SELECT DISTINCT ?l ?p ?q WHERE { ?p ?q ?l . FILTER(isLiteral(?l)) } LIMIT 20",
                                         max_rows=20, timeout_s=5.0, bindings={"p": iri, "q": RDFS.label}).rows
            except Exception as e:  # noqa: BLE001 - without the labels the name stands alone
                log.info("no labels of %s: %s", iri, e)
                rows = []
            self._labels[key] = {str(r[0]) for r in rows if r and r[0] is not None}
        return set(self._labels[key])

    def aliases(self, mention: Mention) -> set[str]:
        """The other texts of the things the mention names: their values of the same property (in other
        languages), their labels and names, and their numbers (a number written in the name: "loan 7"). A plan that
        compares one of them uses the named thing. The other values of a row that holds the value (a flag, a share
        beside a language in a table of pairs) name nothing."""
        from rdflib import Literal

        table = self.schema.table(mention.table)
        col = table.column(mention.column) if table else None
        if col is None or not col.prop:
            return set()
        # (?p and ?value are projected: the store binds only variables the query selects)
        query = ("SELECT DISTINCT ?o ?q ?p ?value WHERE { ?s ?p ?v . FILTER(STR(?v) = STR(?value)) ?s ?q ?o . "
                 "FILTER(isLiteral(?o) && STRLEN(STR(?o)) <= 200) } LIMIT 100")
        try:
            rows = self.store.select(query, max_rows=100, timeout_s=5.0,
                                     bindings={"p": URIRef(col.prop), "value": Literal(mention.value)}).rows
        except Exception as e:  # noqa: BLE001 - a lookup that fails only leaves the plan's own texts
            log.info("no other names of %r: %s", mention.value, e)
            return set()
        names = {URIRef(col.prop), *self.schema.label_props}
        return {str(o) for o, q in (r[:2] for r in rows if r and r[0] is not None)
                if q in names or _NUMBER_TEXT.fullmatch(str(o))}

    def _placed(self, text: str, value: str, prop: URIRef, exact: bool) -> list[Mention]:
        """The mention in each (shown) table whose rows carry the value, the most specific tables first; the name
        of a thing also says which links point at its table. A table that includes the rows of another holding table
        (a superclass's) is left out: the thing is named once, by its most specific table."""
        things = self.things_with(prop, value)
        holding = self.tables_with(prop, value, set().union(*things.values()))
        tables = [t for t in holding if not self.shown or t.name in self.shown]
        tables = [t for t in tables if not _within_narrower(t, tables, things)] or tables
        if not tables and exact:  # only a table the prompt leaves out holds it (a small part of the graph, such as
            tables = holding      # a thing only the text speaks of): the question names it, so it is shown
        out = []
        for t in tables[:2]:
            col = next(c for c in t.columns.values() if c.prop == prop)
            links = self._links_to(t.name)
            if not links:  # none to its own table: the links to a table that includes its rows (a superclass's)
                wider = sorted((w for w in self.schema.tables.values() if set(t.classes) < set(w.classes)),
                               key=lambda w: (w.count, w.name))
                links = next((found for w in wider if (found := self._links_to(w.name))), [])
            best = self._closest_link(links)
            out.append(Mention(text, value, t.name, col.name, exact,
                               links=(f"{best[0].name}.{best[1].name}",) if best and col.is_label else (),
                               link_target=best[1].target if best and col.is_label and best[1].target != t.name
                               else ""))
        return out

    def _links_to(self, table: str) -> list:
        """The (table, column) of the shown links that point at `table`'s rows."""
        return [(o, c) for o in self.schema.tables.values() if not self.shown or o.name in self.shown
                for c in o.columns.values() if c.kind == "link" and c.target == table and not c.hidden]

    def _closest_link(self, links: list) -> tuple | None:
        """Of the links that point at a thing's table, the one closest in meaning to the question being linked
        (one example is a hint; a list of them reads to a small model as joins to make)."""
        from ontocore.embeddings import split_name

        if len(links) > 1 and self._question:  # "How many pumps are at X?": a link of the table the question names
            asked = {singular(w) for w in tokens(self._question)}
            named = [(o, c) for o, c in links if {singular(w) for w in split_name(o.name).lower().split()} <= asked]
            links = named or links
            # "Which trucks were approved by X?": a link whose own name has words of the question (approvedBy)
            roots = {stem(w) for w in asked - STOP}
            said = [(o, c) for o, c in links if {stem(w) for w in split_name(c.name).lower().split()} & roots]
            links = said or links
        if len(links) <= 1 or self.embedder is None or not self._question:
            return links[0] if links else None

        texts = [f"{split_name(c.name)} of {split_name(o.name)}" for o, c in links]
        best = self.embedder.rank(self._question, texts, top=1)
        return links[best[0][0]] if best else links[0]

    def tables_with(self, prop: URIRef, value: str, classes: set[URIRef] | None = None) -> list[Table]:
        """The tables whose rows carry `value` as their `prop` (of the things' `classes`, when already known), the
        most specific first."""
        classes = self.classes_with(prop, value) if classes is None else classes
        tables = [t for t in self.schema.tables.values() if set(t.classes) & classes and t.column_for(prop)]
        return sorted(tables, key=lambda t: (t.count, t.name))

    def classes_with(self, prop: URIRef, value: str) -> set[URIRef]:
        """The classes of the things whose `prop` is `value`."""
        return set().union(*self.things_with(prop, value).values())

    def things_with(self, prop: URIRef, value: str) -> dict[URIRef, set[URIRef]]:
        """The things whose `prop` is `value` (at most 50), each with its classes."""
        # the value as stored (plain or tagged: an index lookup), else any literal of that text (a scan of the
        # property's values: not on a big graph)
        query = ("SELECT DISTINCT ?s ?t WHERE { VALUES ?o { %s } ?s %s ?o . OPTIONAL { ?s a ?t } }"
                 % (" ".join(x.n3() for x in self._variants([value])), prop.n3()))
        rows = self.store.select(query, max_rows=200).rows
        if not rows and not self.schema.sampled:
            query = ("SELECT DISTINCT ?s ?t WHERE { ?s %s ?o . FILTER(isLiteral(?o) && STR(?o) = %s) "
                     "OPTIONAL { ?s a ?t } }" % (prop.n3(), Literal(value).n3()))
            rows = self.store.select(query, max_rows=200).rows
        things: dict[URIRef, set[URIRef]] = {}
        for thing, cls in rows:
            things.setdefault(thing, set()).update([cls] if cls is not None else [])
        return things

    def values_of(self, prop: URIRef, table: Table | None = None) -> dict[str, int]:
        """The values of `prop` (on the rows of `table` only, when given and the property spans other tables)."""
        values = self.schema.values.get(prop, {})
        if prop in self.schema.open_values:  # a part of them; a value not kept is looked up in the store
            return StoreValues(values, self, prop, table)
        if table is None or len(self.schema.columns_of(prop)) <= 1:
            return values
        key = (prop, table.name)
        if key not in self._by_table:
            query = ("SELECT DISTINCT ?o WHERE { ?s a ?t . VALUES ?t { %s } ?s %s ?o . FILTER(isLiteral(?o)) } "
                     "LIMIT 20000" % (" ".join(c.n3() for c in table.classes), prop.n3()))
            self._by_table[key] = {str(r[0]): 1 for r in self.store.select(query, max_rows=20000).rows}
        return self._by_table[key]

    def closest(self, prop: URIRef, text: str, table: Table | None = None) -> list[str]:
        """Existing values of `prop` (on `table`'s rows) that `text` means: equal ignoring case, accents and
        plurals; else the values whose words contain all of its words (a unique such value only)."""
        values = self.values_of(prop, table)
        if text in values:
            return [text]
        if prop in self.schema.open_values:  # the text in another case, as stored
            cased = [text.title(), text.upper(), text.lower(), text[:1].upper() + text[1:]]
            hits = sorted(v for _, v in self._lookup([prop], [c for c in cased if c != text], table))
            if hits:
                return hits
        key = _key(tokens(text))
        if not key:
            return []
        same = [v for v in values if _key(tokens(v)) == key]
        if same:
            return same
        folded = fold(text).strip()
        same = [v for v in values if fold(v).strip() == folded]
        if same:
            return same
        inside = [v for v in values if _contains(_key(tokens(v)), key)]
        if inside:
            return inside if len(inside) == 1 else []
        import difflib  # a typo: the one value that nearly spells it

        close = difflib.get_close_matches(folded, [fold(v).strip() for v in values], n=2, cutoff=FUZZY_CUTOFF)
        if len(close) == 1:
            return [v for v in values if fold(v).strip() == close[0]][:1]
        return []


_STOP = frozenset(singular(w) for w in STOP)
_EDGE = "?!.,;:()[]{}\"'“”‘’«»"


class StoreValues(dict):
    """The kept values of an open text property (a part of them); `in` also asks the store, so a value the view did
    not keep is still a value."""

    def __init__(self, values: dict[str, int], index: ValueIndex, prop: URIRef, table: Table | None) -> None:
        super().__init__(values)
        self._index, self._prop, self._table = index, prop, table

    def __contains__(self, text: object) -> bool:
        return dict.__contains__(self, text) or (isinstance(text, str) and self._index.holds(self._prop, text,
                                                                                               self._table))


def question_phrases(q: Question, longest: int = MAX_PHRASE_WORDS) -> list[str]:
    """The texts a question may name a value with: its quoted parts, and runs of up to `longest` of its words as
    written (with the capitals of a name, and in upper case when a word has a digit: a code), never a run of stop
    words only."""
    raw = [w.strip(_EDGE) for w in q.text.split()]
    raw = [w for w in raw if w]
    out = list(q.quoted)
    for size in range(1, longest + 1):
        for i in range(len(raw) - size + 1):
            run = raw[i:i + size]
            if all(fold(w) in STOP or not re.search(r"\w", w) for w in run):
                continue
            text = " ".join(run)
            out += [text, " ".join(w[:1].upper() + w[1:] for w in run)]
            if re.search(r"\d", text):
                out.append(text.upper())
    return list(dict.fromkeys(out))


def _contains(hay: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(run)
    return any(hay[i:i + n] == run for i in range(len(hay) - n + 1))


def _dedupe(items: list[Mention]) -> list[Mention]:
    """One mention per value and table (a thing's name and its label are one hint)."""
    seen, out = set(), []
    for m in items:
        k = (m.value, m.table)
        if k not in seen:
            seen.add(k)
            out.append(m)
    return out
