"""Import the original proof of concept's entities index into an EntitiesIndex.

The proof-of-concept format is a JSON object with three maps keyed by name:

* ``tbox_classes``: ``{name, subclassOf: [...], role: [...]}``
* ``tbox_prop``: ``{name, role: [...]}`` (no kind, domain or range)
* ``abox_ind``: ``{name, classes: [...], properties: [[prop, value], ...], role: [...]}``

(lists of such objects are accepted too). Everything the format leaves implicit is inferred:

* a property is an *object* property when every value it has names an existing individual, else a
  *datatype* property whose range is inferred from its values (integer, decimal, boolean, date,
  anyURI for http(s) URLs, string; mixed integer/decimal values give decimal, any other mix string);
* domains and object ranges are left open (the format does not state them; guessing them from a few
  uses would let the reasoner infer wrong class memberships later);
* a property without any value is an object property when its role text speaks of linking
  individuals, else a datatype property without range;
* classes and properties that are used but not declared are created (and logged);
* names that are not valid local names go through ``names.safe_name``; the original stays the label.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ..values.datatypes import literal_type, widen
from ontocore.errors import InputError, ToolArgumentError

from .entries import Fact

from .index import DEFAULT_BASE_IRI, ENTITY_NAME, EntitiesIndex
from .names import safe_name

log = logging.getLogger(__name__)

# A property without values is an object property when its description says it links entities.
_LINKS = re.compile(r"\b(links?|linking|individuals?|refers? to|points? to|relates?)\b", re.IGNORECASE)


def _pointer(token: str) -> str:
    """Escape one JSON Pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def _lexical(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return value
    raise ValueError(f"unsupported value {value!r}")


def _entries(data: dict[str, Any], key: str, origin: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(original name, JSON pointer, entry) for each entry of section `key` (a map or a list)."""
    section = data.get(key, {})
    if isinstance(section, dict):
        items = [(str(k), f"/{key}/{_pointer(str(k))}", v) for k, v in section.items()]
    elif isinstance(section, list):
        items = [(str(v.get("name", "")) if isinstance(v, dict) else "", f"/{key}/{n}", v)
                 for n, v in enumerate(section)]
    else:
        raise InputError(f"{origin} is not a valid proof-of-concept index: '{key}' must be an object or a list.")
    out = []
    for name, path, entry in items:
        if not isinstance(entry, dict):
            raise InputError(f"{origin} is not a valid proof-of-concept index: at {path}: expected an object.")
        name = str(entry.get("name") or name)
        if not name.strip():
            raise InputError(f"{origin} is not a valid proof-of-concept index: at {path}: the entry has no name.")
        out.append((name, path, entry))
    return out


def _texts(entry: dict[str, Any], key: str, path: str, origin: str) -> list[str]:
    value = entry.get(key, [])
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{origin} is not a valid proof-of-concept index: at {path}/{key}: expected a list of strings.")
    return [v for v in value if v]


class _Namer:
    """Maps original names to unique safe local names, one namespace for all kinds."""

    def __init__(self) -> None:
        self.taken: dict[str, tuple[str, str]] = {}  # safe name -> (kind, original)
        self.by_kind: dict[str, dict[str, str]] = {"class": {}, "property": {}, "individual": {}}

    def name(self, kind: str, original: str) -> str:
        known = self.by_kind[kind].get(original)
        if known:
            return known
        base = original if ENTITY_NAME.match(original) else safe_name(original, lower_first=kind == "property")
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        if candidate != original:
            log.info("%s '%s' is named '%s'", kind, original, candidate)
        self.taken[candidate] = (kind, original)
        self.by_kind[kind][original] = candidate
        return candidate

    def get(self, kind: str, original: str) -> str | None:
        return self.by_kind[kind].get(original)


_Entry = tuple[str, str, dict[str, Any]]  # (original name, JSON pointer, entry)
_PropertyUse = tuple[str, str, str, str]  # (original property, subject safe name, lexical value, JSON pointer)


def from_poc(data: dict[str, Any], origin: str, *, base_iri: str = DEFAULT_BASE_IRI) -> EntitiesIndex:
    """Build an EntitiesIndex from the proof of concept's index format; raises InputError when unusable."""
    if not isinstance(data, dict):
        raise InputError(f"{origin} is not a valid proof-of-concept index: expected a JSON object.")
    classes = _entries(data, "tbox_classes", origin)
    props = _entries(data, "tbox_prop", origin)
    inds = _entries(data, "abox_ind", origin)
    idx = EntitiesIndex(base_iri=base_iri)
    namer = _Namer()
    _add_classes(idx, namer, classes, inds, origin)
    _add_individuals(idx, namer, inds, origin)
    ordered = _property_uses(idx, namer, inds, origin)
    _add_properties(idx, namer, props, ordered, origin)
    _add_facts(idx, namer, ordered, origin)
    problems = idx.dangling()
    if problems:  # should not happen: everything above is created before it is referenced
        raise InputError(f"{origin}: the imported index is inconsistent: {problems[0]}.")
    log.info("%s: imported %s", origin, idx.counts())
    return idx


def _add_classes(idx: EntitiesIndex, namer: _Namer, classes: list[_Entry], inds: list[_Entry], origin: str) -> None:
    """The classes, including undeclared superclasses and classes of individuals, then their superclasses."""
    declared_classes = {name for name, _, _ in classes}
    class_entries: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, path, entry in classes:
        class_entries.setdefault(name, (path, entry))
    wanted: list[str] = list(class_entries)
    for name, path, entry in classes:
        wanted += [s for s in _texts(entry, "subclassOf", path, origin)]
    for name, path, entry in inds:
        wanted += [c for c in _texts(entry, "classes", path, origin)]
    for original in wanted:
        if namer.get("class", original) is None:
            safe = namer.name("class", original)
            if original not in declared_classes:
                log.warning("%s: class '%s' is used but not declared; creating it", origin, original)
            path, entry = class_entries.get(original, ("", {}))
            roles = _texts(entry, "role", path, origin) if entry else []
            idx.add_class(safe, roles=roles, label=original)
    for original, (path, entry) in class_entries.items():
        sups = [namer.by_kind["class"][s] for s in _texts(entry, "subclassOf", path, origin)]
        _safe_add(lambda: idx.add_class(namer.by_kind["class"][original], superclasses=sups), origin, path)


def _add_individuals(idx: EntitiesIndex, namer: _Namer, inds: list[_Entry], origin: str) -> None:
    """The individuals with their classes and roles, without facts."""
    for original, path, entry in inds:
        if namer.get("individual", original) is not None:
            log.warning("%s: individual '%s' is declared twice; merging", origin, original)
        safe = namer.name("individual", original)
        cls = [namer.by_kind["class"][c] for c in _texts(entry, "classes", path, origin)]
        roles = _texts(entry, "role", path, origin)
        _safe_add(lambda: idx.add_individual(safe, classes=cls, roles=roles, label=original,
                                             source={"file": origin, "path": path}), origin, path)


def _property_uses(idx: EntitiesIndex, namer: _Namer, inds: list[_Entry], origin: str) -> list[_PropertyUse]:
    """Every property value of the individuals, in file order; null and unreadable values are recorded as
    skipped."""
    ordered: list[_PropertyUse] = []
    for original, path, entry in inds:
        subject = namer.by_kind["individual"][original]
        pairs = entry.get("properties", [])
        if not isinstance(pairs, list):
            raise InputError(f"{origin} is not a valid proof-of-concept index: at {path}/properties: expected a list.")
        for k, pair in enumerate(pairs):
            at = f"{path}/properties/{k}"
            if isinstance(pair, dict) and len(pair) == 1:  # {"prop": value} variant
                pair = list(next(iter(pair.items())))
            if not isinstance(pair, list) or len(pair) < 2 or not isinstance(pair[0], str) or not pair[0]:
                raise InputError(f"{origin} is not a valid proof-of-concept index: at {at}: "
                                 "expected [property, value].")
            if len(pair) > 2:
                log.warning("%s: at %s: ignoring extra items after the value", origin, at)
            if pair[1] is None:
                idx.skipped.append({"file": origin, "path": at, "reason": "null value"})
                continue
            try:
                value = _lexical(pair[1])
            except ValueError:
                idx.skipped.append({"file": origin, "path": at, "value": str(pair[1])[:200],
                                    "reason": "the value is not a string, number or boolean"})
                continue
            ordered.append((pair[0], subject, value, at))
    return ordered


def _add_properties(idx: EntitiesIndex, namer: _Namer, props: list[_Entry], ordered: list[_PropertyUse],
                    origin: str) -> None:
    """The declared properties, then the used but undeclared ones; the kind and range follow from the values."""
    uses: dict[str, list[tuple[str, str, str]]] = {}  # original property -> [(subject safe, value, path)]
    for prop, subject, value, at in ordered:
        uses.setdefault(prop, []).append((subject, value, at))
    prop_entries = {name: (path, entry) for name, path, entry in reversed(props)}
    ind_names = namer.by_kind["individual"]
    for original in list(prop_entries) + [p for p in uses if p not in prop_entries]:
        if namer.get("property", original) is not None:
            continue
        safe = namer.name("property", original)
        path, entry = prop_entries.get(original, ("", {}))
        roles = _texts(entry, "role", path, origin) if entry else []
        values = uses.get(original, [])
        if original not in prop_entries:
            log.warning("%s: property '%s' is used but not declared; creating it", origin, original)
        if values and all(v in ind_names for _, v, _ in values):
            idx.add_property(safe, "object", roles=roles, label=original)
        elif values:
            rng = widen(literal_type(v) for _, v, _ in values)
            idx.add_property(safe, "datatype", range=rng, roles=roles, label=original)
        else:
            kind = "object" if _LINKS.search(" ".join(roles)) else "datatype"
            log.info("%s: property '%s' has no values; declaring it as %s property", origin, original,
                     "an object" if kind == "object" else "a datatype")
            idx.add_property(safe, kind, roles=roles, label=original)


def _add_facts(idx: EntitiesIndex, namer: _Namer, ordered: list[_PropertyUse], origin: str) -> None:
    """One fact per property value, in file order."""
    ind_names = namer.by_kind["individual"]
    for original, subject, value, at in ordered:
        prop = idx.properties[namer.by_kind["property"][original]]
        source = {"file": origin, "path": at}
        if prop.kind == "object":
            fact = Fact(property=prop.name, object=ind_names[value], source=source)
        else:
            fact = Fact(property=prop.name, literal=value, datatype=prop.range or "xsd:string", source=source)
        _safe_add(lambda: idx.add_fact(subject, fact), origin, at)


def _safe_add(fn: Any, origin: str, path: str) -> Any:
    try:
        return fn()
    except ToolArgumentError as e:
        raise InputError(f"{origin} is not a valid proof-of-concept index: at {path}: {e}") from None
