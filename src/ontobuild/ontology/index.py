"""The EntitiesIndex: the in-memory model of an ontology under construction, its edits, and its JSON document
(the entries it holds are in `entries`, the document's schema and check in `indexformat`).

Classes, properties and individuals are kept by name (a safe OWL local name); `label` keeps the original
text; `roles` are descriptive texts (they become rdfs:comment). Every fact carries its provenance.
A term of another namespace (a user's vocabulary, `ontobuild --schema`) keeps its own IRI in `iri`; its name is
still the key the index uses; `prefixes` binds the vocabulary's namespaces for serialization.
Methods that change the index raise ToolArgumentError with a message the model can act on."""

from __future__ import annotations

import copy
import json
import logging
import re
from typing import Any, Iterator

from ..values.datatypes import widen
from ontocore.errors import InputError, ToolArgumentError
from ..values.units import dimension_of

from .entries import DATATYPES, ClassDef, Fact, Individual, PropertyDef, check_literal
from .indexformat import FORMAT, check_document
from .names import safe_name, similarity

log = logging.getLogger(__name__)

DEFAULT_BASE_IRI = "http://example.org/ontobuild#"
ENTITY_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")
_MANY_FACTS = 64  # an individual with this many facts or more has their keys kept in a set (EntitiesIndex._has_fact)


def _add_unique(items: list[str], new: list[str] | tuple[str, ...]) -> None:
    for item in new:
        if item and item not in items:
            items.append(item)


def _copy1(entry: dict[str, Any]) -> dict[str, Any]:
    """A copy of one entry of the index document, its lists and dicts copied (they hold only strings)."""
    return {k: list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v for k, v in entry.items()}


class EntitiesIndex:
    def __init__(self, base_iri: str = DEFAULT_BASE_IRI) -> None:
        self.base_iri = base_iri
        self.classes: dict[str, ClassDef] = {}
        self.properties: dict[str, PropertyDef] = {}
        self.individuals: dict[str, Individual] = {}
        self.skipped: list[dict[str, str]] = []
        self.prefixes: dict[str, str] = {}  # prefix -> namespace IRI, bound when serialized
        self.imports: list[str] = []  # IRIs of the user's vocabularies (--schema) the ontology owl:imports
        # records outside the index that name its entities (coverage entries, link records, merges, alignments):
        # (the records, or a function giving them; the fields that hold names), kept up to date by every rename
        self._tracked: list[tuple[Any, tuple[str, ...]]] = []
        self._renamed: dict[str, str] = {}  # an old name -> the name it was renamed or merged into
        self._fact_keys: dict[str, tuple[list[Fact], int, set[tuple]]] = {}  # see _has_fact

    def iri_of(self, name: str) -> str:
        """The IRI of an entity: its own (a vocabulary term) or base_iri + name."""
        ent = self.classes.get(name) or self.properties.get(name) or self.individuals.get(name)
        return (ent.iri if ent is not None and ent.iri else "") or self.base_iri + name

    # ---- lookups -------------------------------------------------------------------------------
    def kind_of(self, name: str) -> str | None:
        if name in self.classes:
            return "class"
        if name in self.properties:
            return "property"
        if name in self.individuals:
            return "individual"
        return None

    def suggest(self, name: str, pool: dict[str, Any], limit: int = 3) -> str:
        scored = sorted(((similarity(name, n), n) for n in pool), reverse=True)[:limit]
        names = [n for s, n in scored if s >= 0.4]
        return f" Did you mean: {', '.join(names)}?" if names else ""

    def _need(self, name: str, pool: dict[str, Any], what: str, hint: str) -> None:
        if name not in pool:
            raise ToolArgumentError(f"Unknown {what} '{name}'.{self.suggest(name, pool)} {hint}".strip())

    def need_class(self, name: str) -> None:
        self._need(name, self.classes, "class", "Add it with add_class first.")

    def need_property(self, name: str) -> None:
        self._need(name, self.properties, "property", "Add it with add_property first.")

    def need_individual(self, name: str) -> None:
        self._need(name, self.individuals, "individual", "Add it with add_individual first.")

    def superclasses_closure(self, name: str) -> set[str]:
        seen: set[str] = set()
        todo = [name]
        while todo:
            c = todo.pop()
            if c in seen:
                continue
            seen.add(c)
            if c in self.classes:
                todo.extend(self.classes[c].superclasses)
        return seen

    # ---- changes -------------------------------------------------------------------------------
    @staticmethod
    def _check_name(name: str) -> None:
        if not ENTITY_NAME.match(name or ""):
            raise ToolArgumentError(
                f"'{name}' is not a valid name: use letters, digits and '_' only, starting with a letter "
                f"(for example '{safe_name(name or 'Thing')}')."
            )

    def add_class(self, name: str, superclasses: list[str] | None = None, roles: list[str] | None = None,
                  label: str = "") -> ClassDef:
        self._check_name(name)
        if name in self.individuals or name in self.properties:
            raise ToolArgumentError(f"'{name}' is already a {self.kind_of(name)}; choose another class name.")
        for sup in superclasses or []:
            if sup != name:
                self.need_class(sup)
        cls = self.classes.get(name) or ClassDef(name=name, label=label or name)
        _add_unique(cls.superclasses, [s for s in superclasses or [] if s != name])
        _add_unique(cls.roles, roles or [])
        self.classes[name] = cls
        return cls

    def add_property(self, name: str, kind: str, domain: list[str] | None = None, range: str = "",
                     unit: str = "", roles: list[str] | None = None, label: str = "") -> PropertyDef:
        self._check_name(name)
        if kind not in ("object", "datatype"):
            raise ToolArgumentError(f"kind must be 'object' or 'datatype', not '{kind}'.")
        if name in self.classes or name in self.individuals:
            raise ToolArgumentError(f"'{name}' is already a {self.kind_of(name)}; choose another property name.")
        for d in domain or []:
            self.need_class(d)
        if kind == "object" and range:
            self.need_class(range)
        if kind == "datatype" and range and range not in DATATYPES:
            raise ToolArgumentError(f"range of a datatype property must be one of {', '.join(DATATYPES)}.")
        old = self.properties.get(name)
        if old and old.kind != kind:
            raise ToolArgumentError(f"property '{name}' already exists as a {old.kind} property.")
        prop = old or PropertyDef(name=name, kind=kind, label=label or name)
        _add_unique(prop.domain, domain or [])
        prop.range = prop.range or range
        prop.unit = prop.unit or unit
        _add_unique(prop.roles, roles or [])
        self.properties[name] = prop
        return prop

    def add_individual(self, name: str, classes: list[str] | None = None, roles: list[str] | None = None,
                       label: str = "", aliases: list[str] | None = None,
                       source: dict[str, str] | None = None) -> Individual:
        self._check_name(name)
        if name in self.classes or name in self.properties:
            raise ToolArgumentError(f"'{name}' is already a {self.kind_of(name)}; choose another individual name.")
        for c in classes or []:
            self.need_class(c)
        ind = self.individuals.get(name) or Individual(name=name, label=label or name, source=dict(source or {}))
        _add_unique(ind.classes, classes or [])
        _add_unique(ind.roles, roles or [])
        _add_unique(ind.aliases, [a for a in aliases or [] if a != ind.label])
        self.individuals[name] = ind
        return ind

    # the builder's steps create or reuse entities by name with these; a name taken by another kind of entity gets a
    # suffix (Value, Link, Class, _) and the name used is returned
    def ensure_class(self, name: str, role: str = "", superclass: str = "") -> str:
        """Create or reuse a class (and its superclass); a clash with another kind gets the name + "Class"."""
        if self.kind_of(name) not in (None, "class"):
            name = name + "Class"
        sup = [superclass] if superclass and superclass != name else []
        for s in sup:
            self.ensure_class(s)
        self.add_class(name, superclasses=sup, roles=[role] if role else [])
        return name

    def ensure_individual(self, name: str, label: str, cls: str, role: str, source: dict[str, str],
                          aliases: list[str] | None = None) -> str:
        """Create or reuse an individual of `cls`; a clash with another kind gets the name + "_"."""
        if self.kind_of(name) not in (None, "individual"):
            name = name + "_"
        self.add_individual(name, classes=[cls], roles=[role] if role else [], label=label, source=source,
                            aliases=aliases)
        return name

    def ensure_datatype_property(self, name: str, datatype: str, domain: str, unit: str, role: str,
                                 label: str = "") -> str:
        """Create or reuse a datatype property; a clash with another kind gets a suffixed name (+ "Value"). Its
        dimension follows its unit; mixed values widen its range to what every value fits."""
        prop = self.properties.get(name)
        if (prop is not None and prop.kind == "datatype" and prop.range == datatype and role in prop.roles
                and name not in self.classes and name not in self.individuals
                and (domain not in self.classes or domain in prop.domain)
                and (not unit or prop.unit and prop.dimension)):
            return name  # nothing to add (the case of every cell after a column's first: mapping a table row by row)
        kind = self.kind_of(name)
        if kind not in (None, "property") or (kind == "property" and self.properties[name].kind != "datatype"):
            name = name + "Value"
        self.add_property(name, "datatype", domain=[domain] if domain in self.classes else [], range=datatype,
                          unit=unit, roles=[role], label=label or name)
        prop = self.properties[name]
        if unit and not prop.dimension:
            prop.dimension = dimension_of(unit)
        if prop.range and prop.range != datatype:  # mixed values: widen to what every value fits
            prop.range = widen((prop.range, datatype))
        return name

    def ensure_object_property(self, name: str, domain: str, range_class: str, role: str) -> str:
        """Create or reuse an object property; a clash with another kind gets the name + "Link"."""
        kind = self.kind_of(name)
        if kind not in (None, "property") or (kind == "property" and self.properties[name].kind != "object"):
            name = name + "Link"
        self.add_property(name, "object", domain=[domain] if domain in self.classes else [],
                          range=range_class if not self.properties.get(name) else "", roles=[role])
        return name

    def update_property(self, name: str, kind: str = "", range: str = "", domain: list[str] | None = None
                        ) -> PropertyDef:
        """Change a property's kind (its range is then cleared), range ("none" clears it) or domain; "" and None
        keep what it is."""
        self.need_property(name)
        p = self.properties[name]
        if kind and kind != p.kind:
            p.kind = kind
            p.range = ""
        if range == "none":
            p.range = ""
        elif range:
            if p.kind == "datatype" and range not in DATATYPES:
                raise ToolArgumentError(f"range must be one of {', '.join(DATATYPES)}.")
            if p.kind == "object":
                self.need_class(range)
            p.range = range
        if domain is not None:
            for d in domain:
                self.need_class(d)
            p.domain = list(domain)
        return p

    def add_fact(self, subject: str, fact: Fact) -> bool:
        """Add a fact to an individual; False when the very same fact was already there."""
        self.need_individual(subject)
        self.need_property(fact.property)
        prop = self.properties[fact.property]
        if prop.kind == "object":
            if fact.object is None:
                raise ToolArgumentError(f"'{fact.property}' is an object property: give an individual, not a literal.")
            self.need_individual(fact.object)
        else:
            if fact.literal is None:
                raise ToolArgumentError(f"'{fact.property}' is a datatype property: give a literal value.")
            fact.datatype = fact.datatype or prop.range or "xsd:string"
            problem = check_literal(fact.literal, fact.datatype)
            if problem:
                raise ToolArgumentError(f"{problem} for property '{fact.property}'.")
        ind = self.individuals[subject]
        if self._has_fact(ind, fact.key()):
            return False
        ind.facts.append(fact)
        return True

    def _has_fact(self, ind: Individual, key: tuple) -> bool:
        """Whether `ind` has a fact of this key: a scan of its facts, or for an individual of many facts (a row of a
        wide table) a set of their keys kept while its list of facts is the same list, growing only here."""
        facts = ind.facts
        if len(facts) < _MANY_FACTS:
            return any(f.key() == key for f in facts)
        kept = self._fact_keys.get(ind.name)
        if kept is None or kept[0] is not facts or kept[1] != len(facts):
            kept = (facts, len(facts), {f.key() for f in facts})
        if key in kept[2]:
            self._fact_keys[ind.name] = kept
            return True
        kept[2].add(key)
        self._fact_keys[ind.name] = (facts, len(facts) + 1, kept[2])  # the fact is appended next
        return False

    def remove(self, name: str) -> str:
        """Remove an entity and every reference to it; returns what was removed."""
        self._fact_keys.clear()
        kind = self.kind_of(name)
        if kind is None:
            raise ToolArgumentError(f"Nothing is named '{name}'.")
        if kind == "class":
            del self.classes[name]
            for c in self.classes.values():
                c.superclasses = [s for s in c.superclasses if s != name]
                c.disjoint = [s for s in c.disjoint if s != name]
            for p in self.properties.values():
                p.domain = [d for d in p.domain if d != name]
                if p.kind == "object" and p.range == name:
                    p.range = ""
            for i in self.individuals.values():
                i.classes = [c for c in i.classes if c != name]
        elif kind == "property":
            del self.properties[name]
            for p in self.properties.values():
                p.inverse_of = "" if p.inverse_of == name else p.inverse_of
            for i in self.individuals.values():
                i.facts = [f for f in i.facts if f.property != name]
        else:
            del self.individuals[name]
            for i in self.individuals.values():
                i.facts = [f for f in i.facts if f.object != name]
        return f"removed {kind} '{name}'"

    # ---- renames: one operation, everywhere ----------------------------------------------------
    def track(self, records: Any, *fields: str) -> None:
        """Keep the `fields` of `records` (a list of dicts that may still grow, or a function that gives them) naming
        the index's entities through every later rename and merge (`rename`, `merge_property`, `merge_class`): the
        coverage entries, link records and alignments of a build follow the index instead of patching their own
        lists."""
        if not any(r is records and f == tuple(fields) for r, f in self._tracked):
            self._tracked.append((records, tuple(fields)))

    def current(self, name: str) -> str:
        """The name the entity once called `name` has now (after renames and merges); `name` itself when it names
        an entity now or was never renamed."""
        seen: set[str] = set()
        while self.kind_of(name) is None and name in self._renamed and name not in seen:
            seen.add(name)
            name = self._renamed[name]
        return name

    def _moved(self, old: str, new: str) -> None:
        """Every tracked record that names `old` names `new` now; `current(old)` is `new`."""
        self._fact_keys.clear()  # facts were changed in place
        self._renamed[old] = new
        for records, fields in self._tracked:
            for rec in records() if callable(records) else records:
                for f in fields:
                    if rec.get(f) == old:
                        rec[f] = new

    def rename(self, old: str, new: str) -> None:
        """Rename an entity everywhere: in the index (facts, domains, ranges, superclasses, disjoint classes,
        inverses) and in every tracked record (`track`)."""
        kind = self.kind_of(old)
        if kind is None:
            raise ToolArgumentError(f"Nothing is named '{old}'.")
        self._check_name(new)
        if self.kind_of(new):
            raise ToolArgumentError(f"'{new}' already exists.")
        if kind == "class":
            c = self.classes.pop(old)
            c.name = new
            self.classes[new] = c
            for x in self.classes.values():
                x.superclasses = [new if s == old else s for s in x.superclasses]
                x.disjoint = [new if s == old else s for s in x.disjoint]
            for p in self.properties.values():
                p.domain = [new if d == old else d for d in p.domain]
                if p.kind == "object" and p.range == old:
                    p.range = new
            for i in self.individuals.values():
                i.classes = [new if c == old else c for c in i.classes]
        elif kind == "property":
            p = self.properties.pop(old)
            p.name = new
            self.properties[new] = p
            for other in self.properties.values():
                other.inverse_of = new if other.inverse_of == old else other.inverse_of
            for i in self.individuals.values():
                for f in i.facts:
                    if f.property == old:
                        f.property = new
        else:
            ind = self.individuals.pop(old)
            ind.name = new
            self.individuals[new] = ind
            for i in self.individuals.values():
                for f in i.facts:
                    if f.object == old:
                        f.object = new
        self._moved(old, new)

    def merge_property(self, old: str, into: str) -> int:
        """Move every fact of property `old` to `into` (same kind), drop `old`; returns the facts moved."""
        self.need_property(old)
        self.need_property(into)
        a, b = self.properties[old], self.properties[into]
        if a.kind != b.kind:
            raise ToolArgumentError(f"'{old}' is a {a.kind} property and '{into}' a {b.kind} property.")
        moved = 0
        for i in self.individuals.values():
            kept = []
            for f in i.facts:
                if f.property == old:
                    f.property = into
                    moved += 1
                    if any(g.key() == f.key() for g in kept):
                        continue
                kept.append(f)
            i.facts = kept
        _add_unique(b.domain, a.domain)
        _add_unique(b.roles, a.roles)
        if b.kind == "datatype" and a.range != b.range and {a.range, b.range} <= {"xsd:integer", "xsd:decimal"}:
            b.range = "xsd:decimal"
        b.inverse_of = b.inverse_of or (a.inverse_of if a.inverse_of != into else "")
        for other in self.properties.values():
            if other.inverse_of == old:
                other.inverse_of = into if other is not b else ""
        del self.properties[old]
        self._moved(old, into)
        return moved

    def merge_class(self, old: str, into: str) -> int:
        """Make every member of class `old` a member of `into` and every use of `old` a use of `into`, then drop
        `old`; returns the individuals moved."""
        self.need_class(old)
        self.need_class(into)
        if old == into:
            return 0
        moved = 0
        for i in self.individuals.values():
            if old in i.classes:
                i.classes = [c for c in i.classes if c != old]
                _add_unique(i.classes, [into])
                moved += 1
        a, b = self.classes[old], self.classes[into]
        _add_unique(b.superclasses, [s for s in a.superclasses if s != into])
        _add_unique(b.roles, a.roles)
        _add_unique(b.disjoint, a.disjoint)
        for x in self.classes.values():
            x.superclasses = list(dict.fromkeys(into if s == old else s for s in x.superclasses))
            x.disjoint = list(dict.fromkeys(into if s == old else s for s in x.disjoint))
        b.superclasses = [s for s in b.superclasses if s != into]
        for p in self.properties.values():
            p.domain = list(dict.fromkeys(into if d == old else d for d in p.domain))
            if p.kind == "object" and p.range == old:
                p.range = into
        del self.classes[old]
        self._moved(old, into)
        return moved

    def find(self, mention: str, kinds: tuple[str, ...] = ("individual", "class", "property"),
             limit: int = 5, threshold: float = 0.5) -> list[tuple[float, str, str]]:
        """Entities whose name, label or aliases match `mention`, best first: (score, kind, name)."""
        pools = {"class": self.classes, "property": self.properties, "individual": self.individuals}
        out = []
        for kind in kinds:
            for name, ent in pools[kind].items():
                forms = [name, ent.label, *getattr(ent, "aliases", [])]
                score = max(similarity(mention, f) for f in forms if f)
                if score >= threshold:
                    out.append((round(score, 3), kind, name))
        out.sort(key=lambda t: (-t[0], t[2]))
        return out[:limit]

    def iter_facts(self) -> Iterator[tuple[Individual, Fact]]:
        for ind in self.individuals.values():
            for f in ind.facts:
                yield ind, f

    def counts(self) -> dict[str, int]:
        return {"classes": len(self.classes), "properties": len(self.properties),
                "individuals": len(self.individuals), "facts": sum(len(i.facts) for i in self.individuals.values())}

    # ---- JSON ----------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        def clean(d: dict[str, Any]) -> dict[str, Any]:
            return {k: v for k, v in d.items() if v not in ("", [], {}, None) and v is not False}

        def fact(f: Fact) -> dict[str, Any]:
            return clean({"property": f.property, "object": f.object, "literal": f.literal,
                          "datatype": f.datatype if f.literal is not None else "", "unit": f.unit,
                          "qualifier": f.qualifier, "source": f.source})

        return {
            "format": FORMAT,
            "base_iri": self.base_iri,
            "classes": {n: clean(vars(c).copy()) | {"name": n} for n, c in sorted(self.classes.items())},
            "properties": {n: clean(vars(p).copy()) | {"name": n} for n, p in sorted(self.properties.items())},
            "individuals": {
                n: clean({**{k: v for k, v in vars(i).items() if k != "facts"}, "facts": [fact(f) for f in i.facts]})
                | {"name": n}
                for n, i in sorted(self.individuals.items())
            },
            "skipped": self.skipped,
        } | ({"prefixes": dict(sorted(self.prefixes.items()))} if self.prefixes else {}) \
          | ({"imports": list(self.imports)} if self.imports else {})

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(cls, data: dict[str, Any], origin: str = "<index>") -> "EntitiesIndex":
        """Build from our own format, validated against the JSON Schema and for dangling references."""
        base = check_document(data, origin, DEFAULT_BASE_IRI)
        idx = cls(base_iri=base)  # entries are copied one level deep (they hold strings): the data stays the caller's
        for n, c in data["classes"].items():
            idx.classes[n] = ClassDef(**{**_copy1(c), "name": n})
        for n, p in data["properties"].items():
            idx.properties[n] = PropertyDef(**{**_copy1(p), "name": n})
        for n, i in data["individuals"].items():
            facts = [Fact(**_copy1(f)) for f in i.get("facts", [])]
            entry = {k: v for k, v in _copy1(i).items() if k != "facts"}
            idx.individuals[n] = Individual(**{**entry, "name": n}, facts=facts)
        idx.skipped = copy.deepcopy(data.get("skipped", []))
        idx.prefixes = dict(data.get("prefixes", {}))
        idx.imports = list(data.get("imports", []))
        problems = idx.dangling()
        if problems:
            more = f" ({len(problems) - 1} more after this one)" if len(problems) > 1 else ""
            raise InputError(f"{origin} is not a valid entities index: {problems[0]}{more}.")
        return idx

    def dangling(self) -> list[str]:
        """References to entities that do not exist, and literals that do not fit their datatype."""
        out = []
        kinds = (("class", self.classes), ("property", self.properties), ("individual", self.individuals))
        for i, (kind_a, names_a) in enumerate(kinds):
            for kind_b, names_b in kinds[i + 1:]:
                out += [f"'{n}' is both a {kind_a} and an {kind_b}" if kind_b[0] in "aeiou" else
                        f"'{n}' is both a {kind_a} and a {kind_b}" for n in sorted(set(names_a) & set(names_b))]
        for c in self.classes.values():
            out += [f"at /classes/{c.name}/superclasses: unknown class '{s}'" for s in c.superclasses
                    if s not in self.classes]
            out += [f"at /classes/{c.name}/disjoint: unknown class '{s}'" for s in c.disjoint if s not in self.classes]
        for p in self.properties.values():
            out += [f"at /properties/{p.name}/domain: unknown class '{d}'" for d in p.domain if d not in self.classes]
            if p.kind == "object" and p.range and p.range not in self.classes:
                out.append(f"at /properties/{p.name}/range: unknown class '{p.range}'")
            if p.kind == "datatype" and p.range and p.range not in DATATYPES:
                out.append(f"at /properties/{p.name}/range: unknown datatype '{p.range}'")
        for i in self.individuals.values():
            out += [f"at /individuals/{i.name}/classes: unknown class '{c}'" for c in i.classes
                    if c not in self.classes]
            for k, f in enumerate(i.facts):
                at = f"at /individuals/{i.name}/facts/{k}"
                prop = self.properties.get(f.property)
                if prop is None:
                    out.append(f"{at}: unknown property '{f.property}'")
                elif f.object is not None and f.object not in self.individuals:
                    out.append(f"{at}: unknown individual '{f.object}'")
                elif f.object is not None and prop.kind != "object":
                    out.append(f"{at}: '{f.property}' is a datatype property but the fact names an individual")
                elif f.literal is not None and prop.kind != "datatype":
                    out.append(f"{at}: '{f.property}' is an object property but the fact gives a literal")
                elif f.literal is not None:
                    problem = check_literal(f.literal, f.datatype or prop.range or "xsd:string")
                    if problem:
                        out.append(f"{at}: {problem}")
        return out
