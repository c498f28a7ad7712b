"""Load the ontology (one or several RDF files, or an ontobuild outcome folder) into one rdflib Graph.

Every file is checked first (`inputguard.check_file`): no parser may fetch anything (an XML external entity or
DTD, a remote JSON-LD context) or expand entities without bound; owl:imports is never followed. OWL/XML (Protégé's
"OWL/XML" format, `.owx` or an `.owl` whose root is `Ontology`) is converted by `owlxml`; JSON-LD whose @context
is schema.org's gets the bundled copy of a schema.org context instead (`inputguard.jsonld_text`)."""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Iterable

from rdflib import Graph

from ontocore.errors import InputError
from ontocore.inputguard import check_file, jsonld_text
from ontocore.owlxml import is_owlxml, iter_owlxml_ntriples, read_owlxml

log = logging.getLogger(__name__)

# File suffix -> rdflib parser name.
FORMATS = {".owl": "xml", ".rdf": "xml", ".xml": "xml", ".ttl": "turtle", ".nt": "nt", ".n3": "n3",
           ".jsonld": "json-ld", ".json-ld": "json-ld", ".owx": "owl-xml"}
_FORMAT_NAMES = {"xml": "RDF/XML", "turtle": "Turtle", "nt": "N-Triples", "n3": "Notation3", "json-ld": "JSON-LD",
                 "owl-xml": "OWL/XML"}
# Files looked for, in order, inside an ontobuild outcome folder.
OUTCOME_FILES = ("ontology.ttl", "ontology.owl", "ontology.nt")  # .nt: a big graph's (ontobuild --big-graph-triples)


def resolve_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    """The RDF files to read: outcome folders are replaced by their ontology file."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            found = next((path / name for name in OUTCOME_FILES if (path / name).is_file()), None)
            if found is None:
                raise InputError(f"{path} is a folder without {' or '.join(OUTCOME_FILES)}: give an ontobuild "
                                 "outcome folder or an RDF or OWL file (.owl, .owx, .rdf, .ttl, .nt, .n3, .jsonld).")
            out.append(found)
        elif not path.exists():
            raise InputError(f"{path}: no such file or folder.")
        else:
            out.append(path)
    if not out:
        raise InputError("no ontology given: pass an ontobuild outcome folder or RDF files with --ontology.")
    return out


def guess_format(path: Path, head: bytes) -> str:
    """The rdflib parser for `path`, from its suffix or, for unknown suffixes, from its first bytes."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt == "xml" and head.lstrip().startswith((b"@prefix", b"@base", b"PREFIX", b"prefix")):
        return "turtle"  # a Turtle file named .owl
    if fmt in ("xml", None) and is_owlxml(head):
        return "owl-xml"  # OWL/XML saved as .owl or .xml
    if fmt:
        return fmt
    text = head.lstrip()
    if text.startswith(b"<?xml") or text.startswith(b"<rdf:RDF"):
        return "xml"
    if text.startswith((b"{", b"[")):
        return "json-ld"
    return "turtle"


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:400] or type(e).__name__


def new_graph(store: str = "oxigraph") -> Graph:
    """An empty graph: rdflib's API over an embedded Oxigraph store (SPARQL runs natively, orders of magnitude
    faster than rdflib's own evaluator on joins and aggregates), or rdflib's memory store (`store="memory"`)."""
    if store == "oxigraph":
        return Graph(store="Oxigraph", bind_namespaces="core")
    if store != "memory":
        raise InputError(f"unknown store {store!r}: use oxigraph or memory.")
    return Graph(bind_namespaces="core")


def file_head(path: Path) -> bytes:
    try:
        with path.open("rb") as f:
            head = f.read(8192)
    except OSError as e:
        raise InputError(f"{path} cannot be read: {e.strerror}.") from None
    if not head.strip():
        raise InputError(f"{path} is empty.")
    return head


def load_graph(paths: str | Path | Iterable[str | Path], store: str = "oxigraph") -> Graph:
    """Parse every file (or outcome folder) into one Graph; InputError names the file that failed.

    Over Oxigraph, Turtle, N-Triples and RDF/XML are parsed by Oxigraph's own parsers (an order of magnitude
    faster than rdflib's; their prefixes are read from the file's head); a file they refuse is read again by
    rdflib, whose message is the one shown if it fails too."""
    graph = new_graph(store)
    for path in resolve_paths(paths):
        fmt = guess_format(path, file_head(path))
        check_file(path, fmt)
        before = len(graph)
        native = NATIVE_FORMATS.get(fmt) if store == "oxigraph" else None
        try:
            if native:
                graph.parse(path, format=native)
                for prefix, ns in head_prefixes(path, fmt).items():
                    graph.bind(prefix, ns, override=False)
        except Exception as e:  # noqa: BLE001 - refused by the native parser: rdflib reads it (or says why)
            log.debug("%s: Oxigraph's parser refused it (%s); reading it with rdflib", path, _one_line(e))
            native = None
        if fmt == "owl-xml":
            triples, prefixes = read_owlxml(path)
            try:
                graph.parse(data="".join(iter_owlxml_ntriples(triples)), format="ox-ntriples" if store == "oxigraph"
                            else "nt")
            except Exception as e:  # noqa: BLE001 - e.g. an IRI that stayed relative
                raise InputError(f"{path} could not be read as OWL/XML: {_one_line(e)}") from None
            for prefix, ns in prefixes.items():
                if prefix:
                    graph.bind(prefix, ns, override=False)
        elif fmt == "json-ld":
            try:
                graph.parse(data=jsonld_text(path), format="json-ld", publicID=path.resolve().as_uri())
            except InputError:
                raise
            except Exception as e:  # noqa: BLE001 - rdflib parsers raise many kinds of errors
                raise InputError(f"{path} could not be read as JSON-LD: {_one_line(e)}") from None
        elif not native:
            try:
                graph.parse(path, format=fmt)
            except Exception as e:  # noqa: BLE001 - rdflib parsers raise many kinds of errors
                raise InputError(f"{path} could not be read as {_FORMAT_NAMES.get(fmt, fmt)}: "
                                 f"{_one_line(e)}") from None
        log.info("%s: %d triples (%s)", path, len(graph) - before, fmt)
    return graph


# rdflib parser name -> Oxigraph's parser for it (registered by oxrdflib)
NATIVE_FORMATS = {"turtle": "ox-turtle", "nt": "ox-ntriples", "xml": "ox-xml"}
_TTL_PREFIX = re.compile(rb"(?im)^\s*(?:@prefix|prefix)\s+([A-Za-z][\w.-]*)?:\s*<([^<>\s]*)>")
_XML_PREFIX = re.compile(rb"xmlns:([A-Za-z][\w.-]*)\s*=\s*[\"']([^\"']*)[\"']")


def head_prefixes(path: Path, fmt: str, size: int = 1 << 18) -> dict[str, str]:
    """The prefixes a Turtle or RDF/XML file declares in its first `size` bytes (for display only)."""
    with path.open("rb") as f:
        head = f.read(size)
    pattern = _XML_PREFIX if fmt == "xml" else _TTL_PREFIX
    out: dict[str, str] = {}
    for m in pattern.finditer(head):
        out.setdefault((m.group(1) or b"").decode("utf-8", "replace"), m.group(2).decode("utf-8", "replace"))
    return out
