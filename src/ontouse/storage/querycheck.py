"""Decide whether a SPARQL query may run: on its parsed algebra, not on its text.

Only SELECT and ASK queries run. The query is parsed by rdflib and its whole algebra is walked: a SERVICE
anywhere (in a subquery, OPTIONAL, UNION, MINUS, FILTER EXISTS, a projected expression, ...) or a FROM /
FROM NAMED clause refuses it; so does anything that is not a query (an update does not parse as a query:
it is parsed as an update to say which one it is). A text check of the same words runs first, only as a fast
filter with clear messages; the algebra decides.

The text that is checked is the text that runs. SPARQL lets ``\\u0053`` stand for ``S`` anywhere in a query,
so rdflib decodes those escapes before parsing while Oxigraph does not: the escapes are decoded here, once,
and the decoded text is both checked and run (a text in which decoding leaves a new escape is refused), so
no engine can read a word that was not checked."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any, Iterator

from rdflib.plugins.sparql import prepareQuery
from rdflib.plugins.sparql.parser import parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue
from rdflib.plugins.sparql.sparql import Query

from ontocore.errors import ToolArgumentError

log = logging.getLogger(__name__)

_UPDATE_WORDS = ("INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY")
_UPDATE_NAMES = {"InsertData": "INSERT", "DeleteData": "DELETE", "DeleteWhere": "DELETE", "Load": "LOAD",
                 "Clear": "CLEAR", "Drop": "DROP", "Create": "CREATE", "Add": "ADD", "Move": "MOVE", "Copy": "COPY"}
_GENERAL_HINT = ("check for a missing '.' between triple patterns, a variable without '?', unbalanced braces "
                 "or parentheses, a misspelled keyword, or a missing PREFIX declaration")
SERVICE_REFUSED = "SERVICE is not allowed: query only the loaded ontology, without remote endpoints."
FROM_REFUSED = ("FROM / FROM NAMED are not allowed: the query always runs over the loaded ontology; "
                "remove the FROM clause.")


class QueryError(ToolArgumentError):
    """A SPARQL query that cannot or may not run; the message says what to change."""


@dataclass(frozen=True)
class CheckedQuery:
    """A query allowed to run: its text with escapes decoded (the text to run), and rdflib's parse of it."""

    text: str
    prepared: Query

    @property
    def kind(self) -> str:
        return "ASK" if self.prepared.algebra.name == "AskQuery" else "SELECT"


# ---- escapes ------------------------------------------------------------------------------------------
_ESCAPE = re.compile(r"\\u([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")  # as rdflib's parser.expandUnicodeEscapes


def decode_escapes(query: str) -> str:
    """`query` with its \\uXXXX and \\UXXXXXXXX escapes replaced by their characters (SPARQL 1.1, 19.2)."""

    def char(m: re.Match[str]) -> str:
        code = int(m.group(1) or m.group(2), 16)
        if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
            raise QueryError(f"the escape {m.group(0)} is not a character; write the character itself.")
        return chr(code)

    text = _ESCAPE.sub(char, query)
    if _ESCAPE.search(text):
        raise QueryError("the query's \\u escapes spell another \\u escape; write the characters themselves.")
    return text


# ---- the fast text filter ------------------------------------------------------------------------------
_STRIP = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""'  # long strings
    r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"'  # strings
    r"|'(?:[^'\\\n]|\\.)*'"
    r"|<[^<>\"{}|^`\\\s]*>"  # IRIs
    r"|#[^\n]*",  # comments
    re.DOTALL,
)


def _keywords(query: str) -> set[str]:
    """Upper-cased bare words of the query outside strings, IRIs, comments, variables and prefixed names."""
    text = _STRIP.sub(" ", query)
    return {m.group(0).upper() for m in re.finditer(r"(?<![?$\w:.-])[A-Za-z]+(?![\w:-])", text)}


def _update_refused(verb: str) -> QueryError:
    return QueryError(f"{verb} is not allowed: this tool only reads the ontology (SELECT or ASK queries); "
                      "updates such as INSERT, DELETE, LOAD, CLEAR or DROP are refused.")


def check_read_only(query: str) -> None:
    """The fast text filter: QueryError for the words of updates, SERVICE and FROM (escapes decoded first)."""
    words = _keywords(decode_escapes(query))
    update = [w for w in _UPDATE_WORDS if w in words]
    if update:
        raise _update_refused(update[0])
    if "SERVICE" in words:
        raise QueryError(SERVICE_REFUSED)
    if "FROM" in words:
        raise QueryError(FROM_REFUSED)


# ---- the algebra ---------------------------------------------------------------------------------------
def walk(node: Any) -> Iterator[CompValue]:
    """Every CompValue under `node` (the algebra, its expressions, its subqueries), each once."""
    stack, seen = [node], set()
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, CompValue):
            yield item
            stack.extend(dict.values(item))
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)


def check_algebra(prepared: Query) -> None:
    """QueryError unless the parsed query is a SELECT or ASK that reads only the loaded graph."""
    algebra = prepared.algebra
    kind = algebra.name
    if kind in ("ConstructQuery", "DescribeQuery"):
        verb = kind.replace("Query", "").upper()
        raise QueryError(f"{verb} queries are not supported: use SELECT (for example SELECT ?s ?p ?o WHERE "
                         "{ ... }) or ASK.")
    if kind not in ("SelectQuery", "AskQuery"):
        raise QueryError(f"only SELECT and ASK queries are allowed, not {kind}.")
    for node in walk(algebra):
        if node.name == "ServiceGraphPattern":
            raise QueryError(SERVICE_REFUSED)
        if dict.get(node, "datasetClause"):
            raise QueryError(FROM_REFUSED)


def _update_verb(query: str) -> str | None:
    """The first operation of `query` when it parses as a SPARQL update, else None."""
    try:
        request = parseUpdate(query).request
    except Exception:  # noqa: BLE001 - not an update either
        return None
    for op in request or []:
        name = getattr(op, "name", "")
        if name == "Modify":
            return "DELETE" if op.get("delete") else "INSERT"
        if name in _UPDATE_NAMES:
            return _UPDATE_NAMES[name]
    return "UPDATE"


def _syntax_message(query: str, e: Exception, prefixes: dict[str, str]) -> str:
    unknown = re.search(r"Unknown namespace prefix : (\S*)", str(e))
    if unknown:
        known = ", ".join(f"{p}:" for p in sorted(prefixes)) or "none"
        return (f"SPARQL error: the prefix '{unknown.group(1)}:' is not declared. Declare it with "
                f"PREFIX {unknown.group(1)}: <namespace IRI>, or use one of the predeclared prefixes: {known}.")
    lineno, col = getattr(e, "lineno", None), getattr(e, "col", None)
    if lineno is None:
        return f"SPARQL error: {' '.join(str(e).split())[:300]}. Hint: {_GENERAL_HINT}."
    line = query.splitlines()[lineno - 1] if 0 < lineno <= len(query.splitlines()) else ""
    near = line[max(col - 1, 0):][:40].strip() or "the end of the query"
    hints = []
    if query.count("{") != query.count("}"):
        hints.append(f"the braces are unbalanced ({query.count('{')} '{{' and {query.count('}')} '}}')")
    if query.count("(") != query.count(")"):
        hints.append(f"the parentheses are unbalanced ({query.count('(')} '(' and {query.count(')')} ')')")
    if not hints:
        hints.append(_GENERAL_HINT)
    return (f"SPARQL syntax error at line {lineno}, column {col}, near \"{near}\" (line: {line.strip()[:120]!r}). "
            f"Hint: {'; '.join(hints)}.")


def check_query(query: str, prefixes: dict[str, str]) -> CheckedQuery:
    """Decode, parse and check `query`: the text to run and its parse, or QueryError saying what to change."""
    if not query or not query.strip():
        raise QueryError("the SPARQL query is empty.")
    text = decode_escapes(query)
    check_read_only(text)
    try:
        prepared = prepareQuery(text, initNs=prefixes)
    except Exception as e:  # noqa: BLE001 - pyparsing and rdflib raise plain exceptions
        verb = _update_verb(text)
        if verb:
            raise _update_refused(verb) from None
        raise QueryError(_syntax_message(text, e, prefixes)) from None
    check_algebra(prepared)
    return CheckedQuery(text=text, prepared=prepared)


def prepare(query: str, prefixes: dict[str, str]) -> Query:
    """Parse and check `query`; the prepared query or QueryError."""
    return check_query(query, prefixes).prepared


__all__ = ["QueryError", "CheckedQuery", "check_query", "check_algebra", "check_read_only", "decode_escapes",
           "prepare", "walk"]
