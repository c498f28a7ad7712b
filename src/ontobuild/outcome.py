"""The outcome folder of a run: atomic writes and the files every run leaves behind.

Outcome folders are transactional (`outcome_folder`): a run writes into a hidden sibling folder that is
renamed into place only when the run succeeded, and removed when it failed or was interrupted.

An outcome folder holds entities_index.json, ontology.owl (RDF/XML), ontology.ttl, ontology.jsonld, reasoner.txt,
report.html (report.py) and stats.json; stats.json is written last, so its presence means the folder is complete.

The ontology's IRI is the one given (`--ontology-iri`), or the index's own, or, for an index that has none of its
own (the default base IRI), one derived from the outcome folder's name (`http://example.org/ontobuild/NAME`), so
that two builds opened together in Protégé do not merge."""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import tempfile
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator
from urllib.parse import quote

from . import __version__
from ontocore.errors import InputError
from .index import _BASE_IRI, DEFAULT_BASE_IRI, EntitiesIndex
from .owl import OntologyHeader, ontology_iri, serialize_graph, to_graph, to_jsonld

log = logging.getLogger(__name__)

INDEX_FILE = "entities_index.json"
OWL_FILE = "ontology.owl"
TTL_FILE = "ontology.ttl"
JSONLD_FILE = "ontology.jsonld"
DERIVED_IRI_ROOT = "http://example.org/ontobuild/"
REASONER_FILE = "reasoner.txt"
STATS_FILE = "stats.json"
OWNER_FILE = ".owner-pid"  # in a partial folder: the process writing it


def atomic_write(path: str | Path, data: bytes | str) -> Path:
    """Write `data` to `path` so that readers see the old file or the whole new one, never a part."""
    path = Path(path)
    raw = _utf8(data, path) if isinstance(data, str) else data
    try:
        mode = path.stat().st_mode & 0o777  # keep the mode of the file being replaced
    except FileNotFoundError:
        mode = 0o644  # mkstemp would leave it private (0600)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(raw)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def _utf8(text: str, path: Path) -> bytes:
    """UTF-8 bytes of `text`; a lone surrogate (which UTF-8 cannot hold) becomes U+FFFD, with a warning."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        log.warning("%s: invalid characters (lone surrogates) written as U+FFFD", path.name)
        return re.sub("[\ud800-\udfff]", "\ufffd", text).encode("utf-8")


def _fsync_dir(folder: Path) -> None:
    """Make the rename durable (best effort: not every platform can open a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json(path: str | Path, obj: Any) -> Path:
    """Atomically write `obj` as indented UTF-8 JSON with a final newline."""
    text = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False)  # NaN is not JSON: fail here, not later
    return atomic_write(path, text + "\n")


def new_outcome_dir(root: str | Path = "outcomes", out: str | Path | None = None) -> Path:
    """Create and return a folder for a run, written in place (not transactional; see `outcome_folder`).

    With `out`, that folder (created if needed; it may exist). Otherwise root/YYYYmmdd_HHMMSS, with
    _2, _3, ... appended when a folder of that name already exists."""
    try:
        if out is not None:
            path = Path(out)
            if path.exists() and not path.is_dir():
                raise InputError(f"{path} exists and is not a folder; choose another --out.")
            path.mkdir(parents=True, exist_ok=True)
            return path
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        stem = datetime.now().strftime("%Y%m%d_%H%M%S")
        n = 1
        while True:
            path = root / (stem if n == 1 else f"{stem}_{n}")
            try:
                path.mkdir()
                return path
            except FileExistsError:
                n += 1
    except OSError as e:
        raise InputError(f"cannot create the outcome folder: {e.strerror or e} ({e.filename}).") from None


class OutcomeFolder:
    """A run's outcome folder, made transactionally: files are written into `path`, a hidden sibling of the
    final folder (`.NAME.partial-XXXX`); `commit` renames it to `final` in one step, `discard` removes it (or,
    with keep_partial, renames it to NAME.incomplete so that it says what it is)."""

    def __init__(self, final: Path, replace: bool = False, keep_partial: bool = False, explicit: bool = False) -> None:
        self.final = final
        self.replace = replace
        self.keep_partial = keep_partial
        self.explicit = explicit  # a folder the user named (--out): never silently moved to another name
        self.claim = _claim(final) if explicit else None
        try:
            final.parent.mkdir(parents=True, exist_ok=True)
            _sweep_stale(final.parent)
            self.path = Path(tempfile.mkdtemp(prefix=f".{final.name}.partial-", dir=final.parent))
            os.chmod(self.path, 0o755)
            (self.path / OWNER_FILE).write_text(str(os.getpid()))
        except OSError as e:
            self._release()
            raise InputError(f"cannot create the outcome folder: {e.strerror or e} ({e.filename}).") from None
        self.done = False

    def _release(self) -> None:
        if self.claim is not None:
            self.claim.unlink(missing_ok=True)
            self.claim = None

    def commit(self) -> Path:
        """Put the finished folder in place of `final` (replacing it when allowed) and return `final`."""
        old = None
        if self.final.exists() and self.replace:
            old = Path(tempfile.mkdtemp(prefix=f".{self.final.name}.old-", dir=self.final.parent))
            os.rmdir(old)
            os.replace(self.final, old)
        elif self.final.is_dir() and not any(self.final.iterdir()):  # an empty --out folder: taken as is
            os.rmdir(self.final)
        elif self.final.exists() and self.explicit:
            self.discard()
            raise InputError(f"--out {self.final} was filled by someone else during this run; nothing was "
                             "replaced. Run again with another --out.")
        elif self.final.exists():  # a timestamped folder taken meanwhile: the next free name
            self.final = _free_name(self.final)
        (self.path / OWNER_FILE).unlink(missing_ok=True)
        os.replace(self.path, self.final)
        _fsync_dir(self.final.parent)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
        self._release()
        self.done = True
        log.info("outcome written to %s", self.final)
        return self.final

    def discard(self) -> Path | None:
        """Remove the unfinished folder; with keep_partial keep it as NAME.incomplete (returned)."""
        self.done = True
        self._release()
        if not self.path.exists():
            return None
        if self.keep_partial:
            kept = _free_name(self.final.with_name(self.final.name + ".incomplete"))
            os.replace(self.path, kept)
            return kept
        shutil.rmtree(self.path, ignore_errors=True)
        return None


def _sweep_stale(parent: Path) -> None:
    """Remove the partial folders of runs that were killed outright (SIGKILL, power loss): their owner process
    is gone. A partial folder of a live run is left alone."""
    for folder in parent.glob(".*.partial-*"):
        try:
            pid = int((folder / OWNER_FILE).read_text().strip())
            os.kill(pid, 0)
        except ProcessLookupError:
            log.info("removing %s, left by a run that was killed", folder)
            shutil.rmtree(folder, ignore_errors=True)
        except (OSError, ValueError):  # no owner file, or not ours to judge: leave it
            continue


def _free_name(path: Path) -> Path:
    n, candidate = 2, path
    while candidate.exists():
        candidate = path.with_name(f"{path.name}_{n}")
        n += 1
    return candidate


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except ValueError:
        return False


def _claim(final: Path) -> Path:
    """Claim `final` for this run, atomically: a second run into the same --out is refused while this one runs
    (a claim whose process is gone is stale and taken over)."""
    final.parent.mkdir(parents=True, exist_ok=True)
    claim = final.parent / f".{final.name}.claim"
    for _ in range(2):
        try:
            fd = os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            try:
                pid = int(claim.read_text().strip() or 0)
            except (OSError, ValueError):
                pid = 0
            if pid and _alive(pid):
                raise InputError(f"--out {final} is being written by another run (process {pid}); wait for it, "
                                 "or choose another --out.") from None
            claim.unlink(missing_ok=True)  # stale: its process is gone
            continue
        with os.fdopen(fd, "w") as fh:
            fh.write(str(os.getpid()))
        return claim
    raise InputError(f"--out {final} could not be claimed for this run; choose another --out.")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def plan_outcome(root: str | Path = "outcomes", out: str | Path | None = None, force: bool = False,
                 inputs: Iterable[str | Path] = (), keep_partial: bool = False) -> OutcomeFolder:
    """The outcome folder of a new run. `out` must not be a non-empty folder unless `force` (then it is
    replaced when the run succeeds), and never a folder holding one of the run's `inputs`."""
    if out is None:
        final = _free_name(Path(root) / datetime.now().strftime("%Y%m%d_%H%M%S"))
        return OutcomeFolder(final, keep_partial=keep_partial)
    final = Path(out)
    here = Path.cwd().resolve()
    if final.resolve() == here or final.resolve() in here.parents:
        raise InputError(f"--out {out} is the current folder or one of its parents; the outcome would replace it. "
                         "Choose a new folder for --out.")
    if final.is_symlink():
        raise InputError(f"--out {out} is a symbolic link; give the folder it points to ({final.resolve()}) or a "
                         "new folder.")
    if final.exists() and not final.is_dir():
        raise InputError(f"{final} exists and is not a folder; choose another --out.")
    held = [str(p) for p in inputs if _inside(Path(p), final)]
    if held:
        raise InputError(f"--out {final} holds an input of this run ({', '.join(held)}); the outcome would "
                         "replace it. Choose another --out.")
    if final.is_dir() and any(final.iterdir()) and not force:
        raise InputError(f"--out {final} is a folder that is not empty; choose another --out, or add --force to "
                         "replace it when the run succeeds.")
    return OutcomeFolder(final, replace=force, keep_partial=keep_partial, explicit=True)


@contextmanager
def outcome_folder(root: str | Path = "outcomes", out: str | Path | None = None, force: bool = False,
                   inputs: Iterable[str | Path] = (), keep_partial: bool = False) -> Iterator[OutcomeFolder]:
    """Write a run's files into `folder.path`; the folder is committed when the block ends normally and
    discarded on any exception, including Ctrl-C and SIGTERM (see signals.py)."""
    folder = plan_outcome(root, out, force, inputs, keep_partial)
    try:
        yield folder
    except BaseException:
        kept = folder.discard()
        if kept is not None:
            log.warning("the incomplete outcome is kept in %s", kept)
        raise
    if not folder.done:
        folder.commit()


def base_iri_for(iri: str) -> str:
    """The namespace of the names of an ontology whose IRI is `iri` (`iri#`, or `iri` itself when it already ends
    in '#' or '/'); InputError when it is not an absolute IRI."""
    base = iri.strip()
    if base and not base.endswith(("#", "/")):
        base += "#"
    if not _BASE_IRI.fullmatch(base):
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
                          sources=[Path(s).name for s in sources], generator=f"ontobuild {__version__}")


def write_index_outcome(idx: EntitiesIndex, outdir: str | Path, reason: bool = True,
                        extra_stats: dict[str, Any] | None = None, timeout_s: float = 120,
                        coverage: dict[str, Any] | None = None, final: Path | None = None,
                        sources: Iterable[str | Path] = (), ontology_iri: str | None = None,
                        big_graph_triples: int | None = None, sample_per_class: int | None = None
                        ) -> dict[str, Any]:
    """Write all outcome files of `idx` into `outdir` and return the stats (also written to stats.json).

    Stats: counts (classes, properties, individuals, facts, triples, skipped), the reasoner verdict,
    seconds per step, plus `extra_stats` merged in at the top level (e.g. key "llm"). `coverage` (what the
    build kept and skipped) goes into report.html. `final`: where the folder will be once committed (stats.json
    and report.html name it), when `outdir` is the unfinished folder of an `outcome_folder`. `sources`: the input
    files (their names go into the ontology's header); `ontology_iri`: the ontology's IRI (see settle_base_iri).

    Big graphs (bigoutput.py): above `big_graph_triples` triples (bigoutput.BIG_GRAPH_TRIPLES when None; 0: never)
    the ontology is written as N-Triples and a persisted Oxigraph store instead of RDF/XML, Turtle and JSON-LD, and
    checked by HermiT on the TBox and a sample (`sample_per_class` individuals per class) plus SPARQL constraint
    queries on the whole store (scalecheck.py). stats["outputs"] says which files were written and why."""
    from .reason import ReasonerReport, check  # local: keeps `import outcome` light
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
    estimate = bigoutput.estimate_triples(idx)
    big = bool(threshold) and estimate > threshold
    t = time.monotonic()
    header = make_header(idx, name, sources)
    if big:
        written = bigoutput.write_big_outputs(idx, outdir, header)
        n_triples = written["triples"]
        outputs = {"files": [bigoutput.NT_FILE, bigoutput.STORE_DIR + "/"], "big_graph": True,
                   "why": f"about {estimate} triples, above --big-graph-triples {threshold}: N-Triples (written "
                          "as made) and a persisted Oxigraph store instead of RDF/XML, Turtle and JSON-LD",
                   "seconds": written["seconds"]}
    else:
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
    timings["owl"] = time.monotonic() - t

    t = time.monotonic()
    if reason and big:
        from .scalecheck import SAMPLE_PER_CLASS, check_big

        report = check_big(idx, outdir / bigoutput.STORE_DIR / "db", n_triples,
                           per_class=SAMPLE_PER_CLASS if sample_per_class is None else sample_per_class,
                           timeout_s=timeout_s)
    elif reason:
        report = check(outdir / OWL_FILE, timeout_s=timeout_s)
    else:
        report = ReasonerReport.not_checked("disabled with --no-reason")
    atomic_write(outdir / REASONER_FILE, report.render())
    timings["reasoner"] = time.monotonic() - t

    stats: dict[str, Any] = {
        "outcome": str(final or outdir),
        "ontology_iri": onto,
        "counts": {**idx.counts(), "triples": n_triples, "skipped": len(idx.skipped)},
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
    write_json(outdir / STATS_FILE, stats)
    log.info("outcome written to %s", outdir)
    return stats
