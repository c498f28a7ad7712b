"""The join graph of the relational view: which columns join a table to another (links, keys, and the links and
keys of other tables that point at it), and the shortest chains of such joins between two tables."""

from __future__ import annotations

from .schema import Schema, Table


def join_edges(schema: Schema, table: Table) -> list[tuple[str, str, str]]:
    """(column of table, other table, column of other table) for every way to join `table` to another table:
    its links and its foreign-key values, and the links and keys of other tables that point at it."""
    out = []
    for c in table.columns.values():
        if c.kind == "link" and c.target and not c.hidden:
            out.append((c.name, c.target, "iri"))
        if c.key_of:
            t, k = c.key_of.split(".", 1)
            out.append((c.name, t, k))
    for other in schema.tables.values():
        for c in other.columns.values():
            if c.kind == "link" and c.target == table.name and not c.hidden:
                out.append(("iri", other.name, c.name))
            if c.key_of and c.key_of.split(".", 1)[0] == table.name:
                out.append((c.key_of.split(".", 1)[1], other.name, c.name))
    return out


def join_steps(schema: Schema, start: str, goals: set[str], max_hops: int = 3) -> list[tuple[str, str, str]] | None:
    """A shortest chain of joins from table `start` to a table in `goals` (lower-cased names), or None."""
    paths = shortest_paths(schema, start, goals, max_hops=max_hops, limit=1)
    return paths[0] if paths else None


def shortest_paths(schema: Schema, start: str, goals: set[str], max_hops: int = 2,
                   limit: int = 4) -> list[list[tuple[str, str, str]]]:
    """All the shortest chains of joins (up to `limit`) from table `start` to a table in `goals`."""
    first = schema.table(start)
    if first is None or first.name.lower() in goals:
        return []
    frontier: list[tuple[Table, list[tuple[str, str, str]]]] = [(first, [])]
    seen = {first.name.lower()}
    for _ in range(max_hops):
        found, nxt, reached = [], [], set()
        for table, path in frontier:
            for a_col, b_name, b_col in join_edges(schema, table):
                b = schema.table(b_name)
                if b is None or b.name.lower() in seen:
                    continue
                step = path + [(a_col, b.name, b_col)]
                if b.name.lower() in goals:
                    if step not in found:
                        found.append(step)
                else:
                    nxt.append((b, step))
                    reached.add(b.name.lower())
        if found:
            return _distinct_chains(schema, start, found)[:limit]
        seen |= reached
        frontier = nxt
    return []


def _distinct_chains(schema: Schema, start: str, paths: list[list[tuple[str, str, str]]]
                     ) -> list[list[tuple[str, str, str]]]:
    """The chains that differ in what they join through: a step through a link and a step back through the link
    that states the same pairs the other way (its `inverse`) are one step; the first written is kept."""
    out, seen = [], set()
    for path in paths:
        key, table = [], schema.table(start)
        for a_col, b_name, b_col in path:
            b = schema.table(b_name)
            if a_col == "iri" and b is not None and (col := b.column(b_col)) is not None and col.kind == "link":
                one = f"{b.name}.{col.name}".lower()
                key.append(min(one, col.inverse.lower()) if col.inverse else one)
            elif table is not None and (col := table.column(a_col)) is not None and col.kind == "link":
                one = f"{table.name}.{col.name}".lower()
                key.append(min(one, col.inverse.lower()) if col.inverse else one)
            else:
                key.append(f"{table.name if table else ''}.{a_col}={b_name}.{b_col}".lower())
            table = b
        if tuple(key) not in seen:
            seen.add(tuple(key))
            out.append(path)
    return out
