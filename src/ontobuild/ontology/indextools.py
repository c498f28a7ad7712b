"""The builder agent's tools on the EntitiesIndex: add / update / remove, paged list and search, find by mention."""

from __future__ import annotations

from typing import Literal

from ontocore.tools import Tool, tool

from .entries import Fact

from .index import EntitiesIndex

PAGE = 15
Kind = Literal["class", "property", "individual"]


def _role(ent: object) -> str:
    roles = getattr(ent, "roles", [])
    return roles[0][:80] if roles else ""


def make_index_tools(idx: EntitiesIndex) -> list[Tool]:
    """The agent's tools on `idx`: the ones that add entities and facts, then the ones that change or remove
    them, then the ones that browse, then `done`."""
    return [*_adding_tools(idx), *_changing_tools(idx), *_browsing_tools(idx), _done_tool()]


def _adding_tools(idx: EntitiesIndex) -> list[Tool]:
    """add_class, add_property, add_individual, add_fact."""

    @tool
    def add_class(name: str, superclasses: list[str] = [], role: str = "") -> str:
        """Add a class (or add superclasses / a role to an existing one).

        Args:
            name: CamelCase class name
            superclasses: names of existing classes
            role: one sentence on what the class stands for
        """
        idx.add_class(name, superclasses, [role] if role else [])
        return f"ok: class {name}"

    @tool
    def add_property(name: str, kind: Literal["object", "datatype"], domain: str = "", range: str = "",
                     unit: str = "", role: str = "") -> str:
        """Add a property.

        Args:
            name: lowerCamelCase property name
            kind: object (links individuals) or datatype (links to a literal value)
            domain: class of the subjects (optional)
            range: a class for object properties, an xsd datatype for datatype properties
            unit: unit of the values, e.g. kg
            role: one sentence on what the property means
        """
        idx.add_property(name, kind, [domain] if domain else [], range, unit, [role] if role else [])
        return f"ok: property {name}"

    @tool
    def add_individual(name: str, classes: list[str], role: str = "") -> str:
        """Add an individual of existing classes.

        Args:
            name: the individual's name
            classes: names of existing classes
            role: one sentence on what it is
        """
        idx.add_individual(name, classes, [role] if role else [])
        return f"ok: individual {name}"

    @tool
    def add_fact(subject: str, property: str, value: str, datatype: str = "") -> str:
        """State a fact about an individual: an object property links to another individual, a datatype property to a value.

        Args:
            subject: an existing individual
            property: an existing property
            value: an individual name (object property) or the literal value (datatype property)
            datatype: for literals, one of the xsd datatypes (default: the property's range)
        """
        prop = idx.properties.get(property)
        if prop is None:
            idx.need_property(property)
        fact = Fact(property, object=value) if prop.kind == "object" else Fact(property, literal=value,
                                                                                  datatype=datatype)
        added = idx.add_fact(subject, fact)
        return "ok" if added else "already there"

    return [add_class, add_property, add_individual, add_fact]


def _changing_tools(idx: EntitiesIndex) -> list[Tool]:
    """update_property, rename, remove."""

    @tool
    def update_property(name: str, kind: Literal["object", "datatype", ""] = "", range: str = "",
                        domain: list[str] | None = None) -> str:
        """Change a property's kind, range or domain (for example to fix a reasoner problem).

        Args:
            name: an existing property
            kind: new kind, or "" to keep it
            range: new range ("" keeps it; "none" clears it)
            domain: new list of domain classes (omit to keep it)
        """
        p = idx.update_property(name, kind, range, domain)
        return f"ok: {p.name} is {p.kind}, range {p.range or 'none'}, domain {p.domain or 'none'}"

    @tool
    def rename(old: str, new: str) -> str:
        """Rename a class, property or individual everywhere it is used.

        Args:
            old: current name
            new: new name
        """
        idx.rename(old, new)
        return f"ok: {old} is now {new}"

    @tool
    def remove(name: str) -> str:
        """Remove a class, property or individual and every reference to it.

        Args:
            name: the entity to remove
        """
        return idx.remove(name)

    return [update_property, rename, remove]


def _browsing_tools(idx: EntitiesIndex) -> list[Tool]:
    """list_entities (paged) and find_entity (by mention)."""
    pools = {"class": idx.classes, "property": idx.properties, "individual": idx.individuals}

    @tool
    def list_entities(kind: Kind, page: int = 1) -> str:
        """List entity names with their roles, one page at a time.

        Args:
            kind: class, property or individual
            page: page number, from 1
        """
        names = sorted(pools[kind])
        chunk = names[(page - 1) * PAGE: page * PAGE]
        pages = max(1, -(-len(names) // PAGE))
        lines = [f"{n}: {_role(pools[kind][n])}" for n in chunk]
        return f"{kind} page {page}/{pages}\n" + "\n".join(lines)

    @tool
    def find_entity(mention: str, kind: Kind | None = None) -> str:
        """Find existing entities matching a mention (case, spacing, punctuation, unit and alias insensitive).

        Args:
            mention: the text to look for, e.g. "Eco Ring"
            kind: restrict to class, property or individual
        """
        hits = idx.find(mention, kinds=(kind,) if kind else ("individual", "class", "property"), threshold=0.45)
        if not hits:
            return f"no entity matches '{mention}'"
        return "\n".join(f"{name} ({k}, score {s})" for s, k, name in hits)

    return [list_entities, find_entity]


def _done_tool() -> Tool:
    """The terminal tool the agent calls when the index is complete."""

    @tool(terminal=True)
    def done(summary: str = "") -> str:
        """Finish: call when the index is complete and correct.

        Args:
            summary: what you changed
        """
        return summary or "done"

    return done
