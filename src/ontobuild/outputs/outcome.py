"""The files a build leaves in its outcome folder (the folder itself, transactional, is ontocore.folders).

An outcome folder holds entities_index.json, ontology.owl (RDF/XML), ontology.ttl, ontology.jsonld, reasoner.txt,
report.html (report.py) and stats.json; stats.json is written last, so its presence means the folder is complete.

The ontology's IRI is the one given (`--ontology-iri`), or the index's own, or, for an index that has none of its
own (the default base IRI), one derived from the outcome folder's name (`http://example.org/ontobuild/NAME`), so
that two builds opened together in Protégé do not merge."""

from __future__ import annotations

import logging
import os
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable
from urllib.parse import quote

from ontocore import __version__
from ontocore.errors import InputError
from ontocore.folders import atomic_write, write_json

from ..ontology.index import DEFAULT_BASE_IRI, EntitiesIndex
from ..ontology.indexformat import BASE_IRI_PATTERN
from ..ontology.owl import OntologyHeader, ontology_iri, serialize_graph, to_graph, to_jsonld

if TYPE_CHECKING:
    from ..ontology.reason import ReasonerReport

log = logging.getLogger(__name__)

INDEX_FILE = "entities_index.json"
OWL_FILE = "ontology.owl"
TTL_FILE = "ontology.ttl"
JSONLD_FILE = "ontology.jsonld"
DERIVED_IRI_ROOT = "http://example.org/ontobuild/"
REASONER_FILE = "reasoner.txt"
STATS_FILE = "stats.json"


def base_iri_for(iri: str) -> str:
    """The namespace of the names of an ontology whose IRI is `iri` (`iri#`, or `iri` itself when it already ends
    in '#' or '/'); InputError when it is not an absolute IRI."""
    base = iri.strip()
    if base and not base.endswith(("#", "/")):
        base += "#"
    if not BASE_IRI_PATTERN.fullmatch(base):
        raise InputError(f"--ontology-iri {iri!r} is not an absolute IRI (e.g. http://example.org/my-ontology); "
                         "spaces and <>\"{}|\\^` are not allowed in IRIs.")
    return base


def derived_base_iri(name: str) -> str:
    """The namespace of an outcome named `name` when none is given: http://example.org/ontobuild/NAME#."""
    return f"{DERIVED_IRI_ROOT}{quote(name.strip() or 'ontology', safe='')}#"


def settle_base_iri(idx: EntitiesIndex, name: str, given: str | None = None) -> str:
    """Set the index's namespace: the given ontology IRI's, else its own, else one derived from the outcome's
    `name`; returns the ontology IRI. Terms with their own IRI (a vocabulary's, --schema) keep it."""
    if given:
        idx.base_iri = base_iri_for(given)
    elif idx.base_iri == DEFAULT_BASE_IRI:
        idx.base_iri = derived_base_iri(name)
    return ontology_iri(idx.base_iri)


def creation_time() -> str:
    """Now, in UTC to the second (xsd:dateTime); SOURCE_DATE_EPOCH (reproducible builds) fixes it."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = datetime.fromtimestamp(int(epoch), timezone.utc) if epoch.isdigit() else datetime.now(timezone.utc)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def make_header(idx: EntitiesIndex, name: str, sources: Iterable[str | Path] = (), created: str | None = None
                ) -> OntologyHeader:
    """The header of the ontology of `idx`, an outcome named `name` built from `sources` (file names only)."""
    created = created or creation_time()
    onto = ontology_iri(idx.base_iri)
    stamp = created.replace("-", "").replace(":", "")
    return OntologyHeader(label=name, created=created, version_iri=f"{onto.rstrip('/')}/{stamp}",
                          sources=[Path(s).name for s in sources], generator=f"ontobuild {__version__}",
                          imports=list(idx.imports))


def _counts(idx: EntitiesIndex, streamed: Any) -> dict[str, int]:
    counts = idx.counts()
    if streamed is not None:
        counts["individuals"] += streamed.individuals
        counts["facts"] += streamed.facts
    return counts


def write_index_outcome(idx: EntitiesIndex, outdir: str | Path, reason: bool = True,
                        extra_stats: dict[str, Any] | None = None, timeout_s: float = 120,
                        coverage: dict[str, Any] | None = None, final: Path | None = None,
                        sources: Iterable[str | Path] = (), ontology_iri: str | None = None,
                        big_graph_triples: int | None = None, sample_per_class: int | None = None,
                        write_stats: bool = True, streamed: Any = None) -> dict[str, Any]:
    """Write all outcome files of `idx` into `outdir` and return the stats (also written to stats.json, unless
    `write_stats` is False: then the caller writes them once, when it has added its own figures).

    Stats: counts (classes, properties, individuals, facts, triples, skipped), the reasoner verdict,
    seconds per step, plus `extra_stats` merged in at the top level (e.g. key "llm"). `coverage` (what the
    build kept and skipped) goes into report.html. `final`: where the folder will be once committed (stats.json
    and report.html name it), when `outdir` is the unfinished folder of an `outcome_folder`. `sources`: the input
    files (their names go into the ontology's header); `ontology_iri`: the ontology's IRI (see settle_base_iri).

    Big graphs (bigoutput.py): above `big_graph_triples` triples (bigoutput.BIG_GRAPH_TRIPLES when None; 0: never)
    the ontology is written as N-Triples and a persisted Oxigraph store instead of RDF/XML, Turtle and JSON-LD, and
    checked by HermiT on the TBox and a sample (`sample_per_class` individuals per class) plus SPARQL constraint
    queries on the whole store (scalecheck.py). stats["outputs"] says which files were written and why.
    `streamed`: the tables.streaming.writing.StreamResult of streamed tables, whose rows are in ontology.nt already: always a big
    graph, the schema and the index's own individuals appended to it."""
    from .report import write_build_report

    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    timings: dict[str, float] = {}
    t0 = time.monotonic()
    name = (final or outdir).name
    onto = settle_base_iri(idx, name, ontology_iri)

    atomic_write(outdir / INDEX_FILE, idx.to_json())
    timings["index"] = time.monotonic() - t0

    from . import bigoutput

    threshold = bigoutput.BIG_GRAPH_TRIPLES if big_graph_triples is None else big_graph_triples
    estimate = bigoutput.estimate_triples(idx) + (streamed.lines if streamed is not None else 0)
    big = streamed is not None or (bool(threshold) and estimate > threshold)
    t = time.monotonic()
    header = make_header(idx, name, sources)
    if big:
        n_triples, outputs = _write_big_graph(idx, outdir, header, streamed, estimate, threshold)
    else:
        n_triples, outputs = _write_graph_files(idx, outdir, header, estimate, threshold)
    timings["owl"] = time.monotonic() - t

    t = time.monotonic()
    report = _reasoner_report(idx, outdir, reason, big, n_triples, timeout_s, sample_per_class, streamed)
    atomic_write(outdir / REASONER_FILE, report.render())
    timings["reasoner"] = time.monotonic() - t

    stats: dict[str, Any] = {
        "outcome": str(final or outdir),
        "ontology_iri": onto,
        "counts": {**_counts(idx, streamed), "triples": n_triples, "skipped": len(idx.skipped)},
        "outputs": outputs,
        "reasoner": report.to_dict(),
        "seconds": {k: round(v, 3) for k, v in timings.items()},
    }
    for key, value in (extra_stats or {}).items():
        if key == "seconds" and isinstance(value, dict):
            stats["seconds"].update(value)
        else:
            stats[key] = value
    t = time.monotonic()
    write_build_report(idx, outdir, stats, coverage, name=(final or outdir).name)
    stats["seconds"]["report"] = round(time.monotonic() - t, 3)
    stats["seconds"]["write_outcome"] = round(time.monotonic() - t0, 3)
    if write_stats:
        write_json(outdir / STATS_FILE, stats)
    log.info("outcome written to %s", outdir)
    return stats


def _write_big_graph(idx: EntitiesIndex, outdir: Path, header: OntologyHeader, streamed: Any, estimate: int,
                     threshold: int) -> tuple[int, dict[str, Any]]:
    """A big graph: N-Triples and a persisted Oxigraph store (bigoutput.py); (triples, stats["outputs"])."""
    from . import bigoutput

    written = bigoutput.write_big_outputs(idx, outdir, header, streamed)
    why = (f"{streamed.rows} table rows streamed (above --stream-rows)" if streamed is not None else
           f"about {estimate} triples, above --big-graph-triples {threshold}")
    outputs = {"files": [bigoutput.NT_FILE, bigoutput.STORE_DIR + "/"], "big_graph": True,
               "why": f"{why}: N-Triples (written as made) and a persisted Oxigraph store instead of RDF/XML, "
                      "Turtle and JSON-LD",
               "seconds": written["seconds"]}
    if streamed is not None:
        outputs["files"].append(streamed.summary()["sources"])
        outputs["streamed"] = streamed.summary()
    return written["triples"], outputs


def _write_graph_files(idx: EntitiesIndex, outdir: Path, header: OntologyHeader, estimate: int,
                       threshold: int) -> tuple[int, dict[str, Any]]:
    """A graph that fits in memory: RDF/XML, Turtle and JSON-LD; (triples, stats["outputs"])."""
    graph = to_graph(idx, header)
    rdfxml, turtle = serialize_graph(graph)
    atomic_write(outdir / OWL_FILE, rdfxml)
    atomic_write(outdir / TTL_FILE, turtle)
    atomic_write(outdir / JSONLD_FILE, to_jsonld(graph))
    n_triples = len(graph)
    del graph
    outputs = {"files": [OWL_FILE, TTL_FILE, JSONLD_FILE], "big_graph": False,
               "why": (f"about {estimate} triples, within --big-graph-triples {threshold}" if threshold else
                       "--big-graph-triples 0: never a big graph")}
    return n_triples, outputs


def _reasoner_report(idx: EntitiesIndex, outdir: Path, reason: bool, big: bool, n_triples: int, timeout_s: float,
                     sample_per_class: int | None, streamed: Any) -> ReasonerReport:
    """The reasoner's verdict: HermiT on the written ontology, or on the TBox and a sample of a big graph
    (scalecheck.py); a not-checked report when `reason` is False."""
    from ..ontology.reason import ReasonerReport, check  # local: keeps `import outcome` light

    if reason and big:
        from . import bigoutput
        from .scalecheck import SAMPLE_PER_CLASS, check_big

        return check_big(idx, outdir / bigoutput.STORE_DIR / "db", n_triples,
                         per_class=SAMPLE_PER_CLASS if sample_per_class is None else sample_per_class,
                         timeout_s=timeout_s, sample=streamed.sample if streamed is not None else None,
                         individuals=(len(idx.individuals) + streamed.individuals) if streamed is not None
                         else None)
    if reason:
        return check(outdir / OWL_FILE, timeout_s=timeout_s)
    return ReasonerReport.not_checked("disabled with --no-reason")
