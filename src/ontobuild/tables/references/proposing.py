"""Keys and references across record sets: what makes related tables one dataset.

Code proposes, from the values alone:
- candidate keys of a record shape: columns whose values are present in every record and all different;
- candidate references: a column of one shape whose values all occur among the key values of another shape
  (customers.json `id` and orders.json `customer_id`), the usual foreign key;
- link tables: shapes whose records are made of references only (a table of pairs), which become direct
  links between the things they pair.
The model confirms or rejects each candidate reference once per pair of shapes (`confirming`); code then links
every record (`apply_references`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ontocore.embeddings import split_name
from ontocore.text import singular
from ...ontology.entries import Fact
from ...ontology.index import EntitiesIndex
from ..mapping import Coverage, Shape, file_stem, is_leaf, pointer, split_key
from ...ontology.names import safe_name

ID_NAME = re.compile(r"(^|[^a-z])(id|code|key|no|nr|num|number)$|id$", re.I)


def key_value(v: Any) -> str | None:
    """A cell as a key value: numbers and text compare by their text ('7' and 7 are the same key)."""
    if v is None or isinstance(v, bool) or not is_leaf(v):
        return None
    text = str(v).strip()
    if isinstance(v, float) and v.is_integer():
        text = str(int(v))
    return text or None


def column_values(shape: Shape, column: str) -> list[str | None]:
    return [key_value(r.fields.get(column)) for r in shape.records]


def candidate_keys(shape: Shape) -> list[str]:
    """Columns with a value in every record, all different; id-like names first, then in column order."""
    if len(shape.records) < 2:
        return []
    out = []
    for position, column in enumerate(shape.keys):
        values = column_values(shape, column)
        if all(v is not None for v in values) and len(set(values)) == len(values):
            out.append((not ID_NAME.search(split_key(column)[0]), position, column))
    return [c for *_, c in sorted(out)]


@dataclass
class Reference:
    """Records of `source` refer, by `column`, to records of `target` whose `key` holds that value."""

    source: Shape
    column: str
    target: Shape
    key: str
    coverage: float = 1.0  # share of the column's values found among the key's values
    confirmed: bool = False
    property: str = ""
    inverse: str = ""
    decided_by: str = ""  # "code" when the evidence decides, "model" when the model was asked
    reason: str = ""

    def describe(self) -> str:
        return f"{self.source.file} {self.column!r} -> {self.target.file} {self.key!r}"


@dataclass
class Plan:
    """The candidate references of a dataset, and the shapes that are link tables."""

    references: list[Reference] = field(default_factory=list)
    keys: dict[int, list[str]] = field(default_factory=dict)  # id(shape) -> candidate keys

    def of(self, shape: Shape) -> list[Reference]:
        return [r for r in self.references if r.source is shape]

    def is_link_table(self, shape: Shape) -> bool:
        """Every column of the shape refers to another shape, and there are at least two of them."""
        refs = {r.column for r in self.of(shape)}
        return len(refs) >= 2 and refs >= set(shape.keys)


class Columns:
    """What the reference finder needs to know of the columns of a set of shapes: their candidate keys, the
    distinct values of a column, and which keys hold every value of a column. This one reads the records of the
    shapes (an inverted index value -> keys holding it: near-linear in cells, never a comparison of every column
    with every key); streaming.profile.StreamColumns answers from hashes of whole streamed tables."""

    def __init__(self, shapes: list[Shape]) -> None:
        self.shapes = shapes
        self._keys = {id(s): candidate_keys(s) for s in shapes}
        self._key_values: dict[tuple[int, str], set[str | None]] = {}
        self._holders: dict[str, set[tuple[int, str]]] = {}
        for t_index, target in enumerate(shapes):
            for key in self._keys[id(target)]:
                vals = set(column_values(target, key))
                self._key_values[(t_index, key)] = vals
                for v in vals:
                    if v is not None:
                        self._holders.setdefault(v, set()).add((t_index, key))

    def keys(self, shape: Shape) -> list[str]:
        return self._keys[id(shape)]

    def rows(self, s_index: int) -> int:
        return len(self.shapes[s_index].records)

    def distinct(self, s_index: int, column: str) -> int:
        return len({v for v in column_values(self.shapes[s_index], column) if v is not None})

    def key_size(self, t_index: int, key: str) -> int:
        return len(self._key_values[(t_index, key)])

    def holding(self, s_index: int, column: str) -> set[tuple[int, str]]:
        """The (shape index, key) whose values include every value of the column."""
        values = {v for v in column_values(self.shapes[s_index], column) if v is not None}
        possible: set[tuple[int, str]] | None = None
        for v in sorted(values, key=lambda v: len(self._holders.get(v, ())))[:3]:  # the rarest values first
            possible = set(self._holders.get(v, ())) if possible is None else possible & self._holders.get(v, set())
            if not possible:
                break
        return {tk for tk in possible or () if values <= self._key_values[tk]}


def find_references(shapes: list[Shape], min_values: int = 2, columns: Columns | None = None) -> Plan:
    """Candidate keys of every shape, and every column whose values all occur among another shape's key
    values. A column that is itself the shape's only key refers only when its name says so (an id named after
    the target), so that two tables numbered 1..n are not taken for each other. `columns`: how the values are
    read (by default from the shapes' records)."""
    columns = columns or Columns(shapes)
    plan = Plan(keys={id(s): columns.keys(s) for s in shapes})
    rank = {(t_index, key): position for t_index, target in enumerate(shapes)
            for position, key in enumerate(plan.keys[id(target)])}
    for s_index, source in enumerate(shapes):
        own_keys = plan.keys[id(source)]
        for column in source.keys:
            if columns.distinct(s_index, column) < min(min_values, columns.rows(s_index)):
                continue
            best: Reference | None = None
            best_score: tuple = ()
            for t_index, key in sorted(columns.holding(s_index, column), key=lambda tk: (tk[0], rank[tk])):
                target = shapes[t_index]
                if target is source and (column in plan.keys[id(target)][:1] or key == column):
                    continue
                if own_keys[:1] == [column] and _names_own(column, source) and _names_own(key, target):
                    continue  # two tables' own identifiers (both numbered 1..n): not a reference
                named = _names_target(column, key, target)
                score = (named, key == plan.keys[id(target)][0], -columns.key_size(t_index, key))
                if best is None or score > best_score:
                    best, best_score = Reference(source, column, target, key), score
            if best is not None:
                plan.references.append(best)
    # A.c -> B.k and B.k -> A.c: a pair of tables that share ids. The one into a link table is the echo; else
    # one direction says it all (its link and inverse): the one named after its target, into the key that
    # numbers the target's own records ('yard_id' of yards), the first found on a tie
    plan.references = [r for r in plan.references if not _echo(r, plan)]
    return plan


def _echo(ref: Reference, plan: Plan) -> bool:
    other = next((o for o in plan.references if o.source is ref.target and o.column == ref.key
                  and o.target is ref.source and o.key == ref.column), None)
    if other is None:
        return False
    if plan.is_link_table(ref.target) or plan.is_link_table(ref.source):
        return plan.is_link_table(ref.target)

    def keep(r: Reference) -> tuple[bool, bool, int]:
        return (_names_target(r.column, r.key, r.target), _ids_own(r.key, r.target), -plan.references.index(r))
    return keep(other) > keep(ref)


def _norm(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _names_own(column: str, shape: Shape) -> bool:
    """The column is the shape's own identifier by its name: 'id', or the table's name followed by id."""
    col, stem = _norm(column), _norm(file_stem(shape.file))
    return col in ("id", stem + "id", _norm(singular(file_stem(shape.file))) + "id")


def _ids_own(column: str, shape: Shape) -> bool:
    """The column's name says it numbers the shape's own records: an id word alone or after the table's name or
    its start ('id', 'site_id' of sites, 'loc_id' of locations), not after another thing's name."""
    name = split_key(column)[0]
    if not ID_NAME.search(name):
        return False
    bare, stem = _norm(ID_NAME.sub("", name)), _norm(file_stem(shape.file))
    return not bare or stem.startswith(bare) or _norm(singular(file_stem(shape.file))).startswith(bare)


def _names_target(column: str, key: str, target: Shape) -> bool:
    """The column's name mentions the key's name or the target table's name (member_no ~ member_no; customer_id ~
    customers), or is the head word of a name of several words ('supplier' ~ parts_suppliers)."""
    col, k = _norm(column), _norm(key)
    one = _norm(singular(file_stem(target.file)))
    if (col == k and k != "id") or (one and one in col) or (len(k) > 2 and k in col):
        return True
    words = split_name(file_stem(target.file)).split()
    head = _norm(singular(words[-1])) if len(words) > 1 else ""
    bare = _norm(ID_NAME.sub("", split_key(column)[0]) or column)
    return len(head) > 2 and (bare == head or bare.endswith(head))


# words of a column name that say it holds a measurement, never an identifier of another table's records
_MEASURE = {"age", "distance", "count", "amount", "price", "cost", "weight", "height", "length", "width", "area",
            "volume", "duration", "time", "date", "year", "years", "rate", "score", "grade", "percent", "percentage",
            "total", "sum", "avg", "average", "min", "max", "salary", "budget", "capacity", "speed", "temperature",
            "rating", "rank", "level", "size", "quantity", "qty", "population", "balance", "fee", "tax", "miles",
            "km", "hours", "days", "minutes", "seconds", "weeks", "months", "stars", "votes", "points", "money",
            "value", "income", "revenue", "profit", "spent", "paid", "due", "begin", "end", "start", "effective",
            "expiry", "born", "birth", "since", "until", "latitude", "longitude", "lat", "lon", "share", "ratio", "version"}
_ID_WORDS = {"id", "code", "key", "no", "nr", "ref", "uid", "uuid", "fk"}
FEW_VALUES = 10  # fewer distinct numbers than this are no evidence of a reference by themselves
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}")


def _words(column: str) -> list[str]:
    text = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", split_key(column)[0])
    return [w.lower() for w in re.findall(r"[A-Za-z]+", text)]


def measurement(column: str, values: list[str]) -> str:
    """Why a column holds measurements or dates rather than references ("" when it may refer): a unit in its
    name, a measurement word and no id word ("nearest_yard_miles", "number of staff"), decimal or date
    values."""
    if split_key(column)[1]:
        return f"its name carries a unit ({split_key(column)[1]})"
    words = _words(column)
    if words and not set(words) & _ID_WORDS:
        hit = set(words) & _MEASURE
        if hit:
            return f"its name says it is a measurement ({', '.join(sorted(hit))})"
        if "number" in words and ("of" in words or words[0] in ("num", "number") and len(words) > 1):
            return "its name says it is a count"
    sample = [v for v in values[:200] if v]
    if sample and sum(bool(_DATE.fullmatch(v)) for v in sample) > len(sample) / 2:
        return "its values are dates"
    if sample and sum(bool(re.fullmatch(r"-?\d+\.\d+", v)) for v in sample) > len(sample) / 2:
        return "its values are decimal numbers"
    return ""


@dataclass
class Evidence:
    """What `weigh` reads of a column's non-empty values: the first ones (in record order), how many are distinct,
    the distinct values themselves when they are few, and something equal between two columns exactly when their
    sets of distinct values are."""

    first: list[str]
    distinct: int
    few: set[str] | None  # the distinct values when fewer than FEW_VALUES, else None
    same: Any


def evidence(shape: Shape, column: str) -> Evidence:
    """The Evidence of a column: from a streamed table's profile (shape.profiles), else from its records."""
    if shape.profiles is not None and column in shape.profiles:
        return shape.profiles[column]
    values = [v for v in column_values(shape, column) if v is not None]
    distinct = frozenset(values)
    return Evidence(values[:200], len(distinct), set(distinct) if len(distinct) < FEW_VALUES else None, distinct)


def weigh(ref: Reference, plan: Plan) -> tuple[str, str]:
    """Code's verdict on a candidate reference from the evidence it can weigh: ("no", why) for what cannot be a
    link (a measurement, a date, a key that is itself a measurement), ("yes", why) when the column is named after
    the target and its key is the target's own identifier and covers every value, else ("ask", why)."""
    col = evidence(ref.source, ref.column)
    why = measurement(ref.column, col.first)
    if why:
        return "no", f"{ref.column!r}: {why}"
    key = evidence(ref.target, ref.key)
    why = measurement(ref.key, key.first)
    if why:
        return "no", f"the key {ref.key!r}: {why}"
    back = col.distinct / max(1, key.distinct)  # how much of the target the column reaches
    primary = plan.keys.get(id(ref.target), [""])[:1] == [ref.key]
    named = _names_target(ref.column, ref.key, ref.target)
    own = plan.keys.get(id(ref.source), [""])[:1] == [ref.column] and _ids_own(ref.column, ref.source)
    if own and not named and ref.source is not ref.target and col.same != key.same:
        return "no", (f"{ref.column!r} numbers the records of {file_stem(ref.source.file)}, is not named after "
                      f"{file_stem(ref.target.file)}, and the two tables hold other ids ({col.distinct} and "
                      f"{key.distinct}): tables numbered alike are not each other's records")
    if (not named and ref.source is not ref.target and not ID_NAME.search(split_key(ref.column)[0])
            and col.few is not None and all(re.fullmatch(r"-?\d+", v) for v in col.few)):
        return "no", (f"{ref.column!r} neither names {file_stem(ref.target.file)} nor says it is an identifier, and "
                      f"its {col.distinct} small numbers fall among any numbered table's ids by chance")
    if named and primary and ref.source is not ref.target:
        return "yes", (f"{ref.column!r} is named after {file_stem(ref.target.file)} and every value is one of its "
                       f"{ref.key!r} ({col.distinct} distinct, {back:.0%} of them)")
    return "ask", f"every value occurs among {ref.key!r} ({col.distinct} distinct, {back:.0%} of the keys)"


def ordered_for_mapping(shapes: list[Shape], plan: Plan) -> list[Shape]:
    """Parents before children (a JSON tree's nesting), then referenced shapes first and link tables last: each
    table is mapped knowing the tables it refers to."""
    def rank(s: Shape) -> tuple:
        return (s.pattern.count(".") + s.pattern.count("["), plan.is_link_table(s), len(plan.of(s)))

    return sorted(shapes, key=rank)


def link_properties(idx: EntitiesIndex, plan: Plan, classes: dict[int, str]
                    ) -> list[tuple[Reference, str, str]]:
    """The object property (and inverse, "" for none) of every confirmed reference, made in the index:
    [(reference, link, inverse)]."""
    out = []
    for ref in plan.references:
        if not ref.confirmed:
            continue
        src_cls, dst_cls = classes.get(id(ref.source), ""), classes.get(id(ref.target), "")
        prop = idx.ensure_object_property(
            ref.property or safe_name("ref " + split_key(ref.column)[0], lower_first=True), src_cls, dst_cls,
            f"Reference from {ref.source.file} column '{ref.column}' to {ref.target.file} '{ref.key}'")
        inverse = idx.ensure_object_property(ref.inverse, dst_cls, src_cls, f"Inverse of {prop}") \
            if _inverse_wanted(idx, plan, ref, prop) else ""
        out.append((ref, prop, inverse))
    return out


def apply_references(idx: EntitiesIndex, plan: Plan, cov: Coverage, classes: dict[int, str]) -> list[dict[str, Any]]:
    """Object property facts for every confirmed reference, and direct links for the pairs of link tables.
    Returns what was linked, for coverage.json.

    A linked cell is the link, not also a copy of the id as a value: the id is the referenced thing's own key
    value, so `order refCustomer Customer7` says all that `order customerId 7` said (one concept, one property).
    Its coverage entry names the link; a value that matched no record stays a plain value."""
    out: list[dict[str, Any]] = []
    idx.track(cov.entries, *COVERAGE_FIELDS)
    cells = {(e["file"], e["path"]): e for e in cov.entries}
    emptied: set[str] = set()
    targets: dict[str, str] = {}  # link -> the class it links to
    for ref, prop, inverse in link_properties(idx, plan, classes):
        targets[prop] = classes.get(id(ref.target), "")
        by_key = {key_value(r.fields.get(ref.key)): r.individual for r in ref.target.records if r.individual}
        linked = missing = 0
        for rec in ref.source.records:
            target = by_key.get(key_value(rec.fields.get(ref.column)))
            if not rec.individual or not target:
                missing += rec.fields.get(ref.column) not in (None, "")
                continue
            src = {"file": rec.file, "path": pointer(rec.path + [ref.column])}
            idx.add_fact(rec.individual, Fact(prop, object=target, source=src))
            if inverse:
                idx.add_fact(target, Fact(inverse, object=rec.individual, source=src))
            emptied |= _drop_copy(idx, rec.individual, src, prop, target, cells.get((rec.file, src["path"])))
            linked += 1
        out.append({"reference": ref.describe(), "property": prop, "inverse": inverse, "linked": linked,
                    "unmatched": missing})
    if emptied:
        users: dict[str, set[str]] = {}
        for ind, f in idx.iter_facts():
            if f.property in emptied:
                users.setdefault(f.property, set()).update(ind.classes)
        drop_emptied(idx, emptied, users)
    settle_links(idx, out, targets)
    for shape, a, b in confirmed_link_tables(plan):
        prop = link_table_property(idx, shape, a, b, classes)
        keys_a = {key_value(r.fields.get(a.key)): r.individual for r in a.target.records}
        keys_b = {key_value(r.fields.get(b.key)): r.individual for r in b.target.records}
        pairs = 0
        for rec in shape.records:
            x, y = keys_a.get(key_value(rec.fields.get(a.column))), keys_b.get(key_value(rec.fields.get(b.column)))
            if x and y:
                idx.add_fact(x, Fact(prop, object=y, source={"file": rec.file, "path": pointer(rec.path)}))
                pairs += 1
        out.append({"link_table": shape.file, "property": prop, "pairs": pairs})
    return out


def drop_emptied(idx: EntitiesIndex, emptied: set[str], users: dict[str, set[str]]) -> None:
    """A datatype property that only held linked ids goes with them; one that remains keeps the domain of the
    classes that still use it (`users`: property -> classes of the individuals that still have a fact of it)."""
    for name in sorted(emptied):
        if name not in users:
            idx.remove(name)
        else:
            idx.properties[name].domain = [d for d in idx.properties[name].domain if d in users[name]]


def settle_links(idx: EntitiesIndex, linked: list[dict[str, Any]], targets: dict[str, str]) -> None:
    """After the copies of linked ids went: a link named `xLink` because a value property was `x` is now `x` if
    that went, else named after the class it links to (a link `brand` from `brand_id` beside a text column
    `brand`; `targets`: link -> the class it links to); then the inverses are declared. A rename is the index's
    (EntitiesIndex.rename): the facts, the coverage entries, these link records (several references may share one
    link) and the inverses follow it."""
    idx.track(linked, *LINK_FIELDS)
    for entry in linked:
        name = entry["property"]
        if not name.endswith("Link") or name not in idx.properties:
            continue
        for better in (name[:-4], safe_name(targets.get(name, ""), lower_first=True)):
            if better and idx.kind_of(better) is None:
                idx.rename(name, better)
                break
    _declare_inverses(idx, linked)


LINK_FIELDS = ("property", "inverse")  # the fields of a link record that name properties of the index
COVERAGE_FIELDS = ("individual", "property", "object", "class")  # ... and of a coverage entry


def confirmed_link_tables(plan: Plan) -> list[tuple[Shape, Reference, Reference]]:
    """The link tables of the plan with their two confirmed references."""
    out = []
    for shape in {id(r.source): r.source for r in plan.references}.values():
        refs = [r for r in plan.of(shape) if r.confirmed]
        if plan.is_link_table(shape) and len(refs) == 2:
            out.append((shape, refs[0], refs[1]))
    return out


def link_table_property(idx: EntitiesIndex, shape: Shape, a: Reference, b: Reference, classes: dict[int, str]
                        ) -> str:
    """The direct link a link table's pairs become."""
    return idx.ensure_object_property(safe_name(file_stem(shape.file), lower_first=True),
                                      classes.get(id(a.target), ""), classes.get(id(b.target), ""),
                                      f"The pairs of {shape.file}")


def _declare_inverses(idx: EntitiesIndex, linked: list[dict[str, Any]]) -> None:
    """A link and its inverse state the same pairs both ways: owl:inverseOf, when each serves one reference only
    (a link name two references share has two inverses, which are not the same property)."""
    uses: dict[str, int] = {}
    for entry in linked:
        for name in (entry["property"], entry["inverse"]):
            if name:
                uses[idx.current(name)] = uses.get(idx.current(name), 0) + 1
    for entry in linked:
        link, inverse = idx.current(entry["property"]), idx.current(entry["inverse"])
        if link in idx.properties and inverse in idx.properties and uses[link] == 1 and uses[inverse] == 1:
            idx.properties[link].inverse_of = inverse


def _inverse_wanted(idx: EntitiesIndex, plan: Plan, ref: Reference, prop: str) -> bool:
    """An inverse link is stated unless there is none, the source is a link table (its pairs become one direct
    link, so links back to its rows only repeat it), or the name already stands for another link's inverse."""
    if not ref.inverse or ref.inverse == prop or plan.is_link_table(ref.source):
        return False
    other = idx.properties.get(ref.inverse)
    return other is None or (other.kind == "object" and f"Inverse of {prop}" in other.roles)


def _drop_copy(idx: EntitiesIndex, subject: str, src: dict[str, str], link: str, target: str,
               entry: dict[str, Any] | None) -> set[str]:
    """Remove the literal the mapping made from the cell at `src` (now stated by the link); point the cell's
    coverage entry at the link. Returns the datatype properties that lost a fact."""
    ind = idx.individuals[subject]
    gone = {f.property for f in ind.facts if f.literal is not None and f.source == src}
    if gone:
        ind.facts = [f for f in ind.facts if not (f.literal is not None and f.source == src)]
    if entry is not None:
        entry.update(property=link, object=target)
    return gone
