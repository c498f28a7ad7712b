"""Check an OWL file with the HermiT reasoner (through owlready2) and say the verdict in plain words.

The reasoner runs in a child Python process in its own process group, so that a run longer than the
time limit can be stopped together with its Java process, and so that owlready2's state and temporary
files never outlive the check. The child prints one JSON object on stdout.

    python -m ontobuild.ontology.reason FILE        # the child entry point; prints the report as JSON
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ontocore.errors import InputError

log = logging.getLogger(__name__)

CONSISTENT = "consistent"
INCONSISTENT = "inconsistent"
NOT_CHECKED = "not checked"
JAVA_MISSING = "Java was not found: install a Java runtime (e.g. apt-get install default-jre) or pass --no-reason"
# xsd datatypes outside the OWL 2 datatype map: HermiT ignores their values (checked as unknown data).
_UNSUPPORTED_DT = re.compile(rb"(?:XMLSchema#|xsd:)(date|time|gYear|gYearMonth|gMonth|gDay|gMonthDay|duration)(?![\w-])")
_OWL_NOTHING = "http://www.w3.org/2002/07/owl#Nothing"
_RDF_PLAIN = "http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral"
_RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_RDF_SUFFIXES = {".ttl": "turtle", ".n3": "n3", ".nt": "nt", ".jsonld": "json-ld"}


@dataclass
class ReasonerReport:
    status: str  # "consistent" | "inconsistent" | "not checked"
    reason: str = ""  # why it was not checked (or a one-line summary)
    details: list[str] = field(default_factory=list)
    seconds: float = 0.0
    checks: list[dict[str, Any]] = field(default_factory=list)  # which check ran on what (big graphs: scalecheck)

    def render(self) -> str:
        """The reasoner.txt text: first line `consistent`, `inconsistent` or `not checked: <reason>`."""
        first = f"{NOT_CHECKED}: {self.reason}" if self.status == NOT_CHECKED else self.status
        return "\n".join([first, *self.details]) + "\n"

    def to_dict(self) -> dict[str, Any]:
        out = {"status": self.status, "reason": self.reason, "details": self.details,
               "seconds": round(self.seconds, 3)}
        if self.checks:
            out["checks"] = self.checks
        return out

    @classmethod
    def not_checked(cls, reason: str, seconds: float = 0.0) -> "ReasonerReport":
        return cls(status=NOT_CHECKED, reason=reason, seconds=seconds)


def check(owl_path: Path, timeout_s: float = 120) -> ReasonerReport:
    """Run HermiT on `owl_path` (RDF/XML, or Turtle/N-Triples/JSON-LD) and report consistency.

    Never raises for reasoner trouble: Java missing, a crash or the time limit give status "not checked"
    with the reason. A missing input file raises InputError."""
    owl_path = Path(owl_path)
    if not owl_path.is_file():
        raise InputError(f"{owl_path}: no such file.")
    start = time.monotonic()
    if shutil.which("java") is None:
        return ReasonerReport.not_checked(JAVA_MISSING)
    src_dir = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([src_dir, *filter(None, [env.get("PYTHONPATH")])])
    with tempfile.TemporaryDirectory(prefix="ontobuild-reason-") as tmpdir:
        cmd = [sys.executable, "-m", "ontobuild.ontology.reason", str(owl_path.resolve()), tmpdir]
        return _run_child(cmd, env, timeout_s, start)


def _run_child(cmd: list[str], env: dict[str, str], timeout_s: float, start: float) -> ReasonerReport:
    log.debug("running %s", cmd)
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            env=env, start_new_session=True,
                            preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        proc.communicate()
        return ReasonerReport.not_checked(
            f"the reasoner did not finish within {timeout_s:g} s (the ontology may be too large or complex)",
            seconds=time.monotonic() - start)
    except BaseException:  # KeyboardInterrupt: do not leave Java running
        _kill_group(proc)
        raise
    seconds = time.monotonic() - start
    try:
        data = json.loads(out.decode("utf-8", "replace").strip().splitlines()[-1])
        report = ReasonerReport(status=data["status"], reason=data.get("reason", ""),
                                details=list(data.get("details", [])), seconds=seconds)
    except (IndexError, ValueError, KeyError, TypeError):
        last = (err.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        log.debug("reasoner child failed (exit %s): %s", proc.returncode, err.decode("utf-8", "replace"))
        return ReasonerReport.not_checked(f"the reasoner failed: {last[:300]}", seconds=seconds)
    log.info("reasoner: %s in %.2f s", report.status, seconds)
    return report


def _die_with_parent() -> None:
    """In the child, before exec: the kernel kills it when its parent dies, even by SIGKILL (Linux)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# ---- the child side ------------------------------------------------------------------------------------
def _load_path(path: Path, tmpdir: str) -> Path:
    """owlready2 reads RDF/XML, OWL/XML and N-Triples; convert other RDF syntaxes to N-Triples first. An ontology
    that imports others (a build with --schema) is checked as written, its owl:imports left out: owlready2 would
    fetch them, and the terms it uses of them are declared in it."""
    fmt = _RDF_SUFFIXES.get(path.suffix.lower())
    with path.open("rb") as f:
        imports = b"imports" in f.read(1 << 16)  # the header comes first in what a build writes
    if imports and fmt is None and path.suffix.lower() in (".owl", ".rdf", ".xml"):
        fmt = "xml"
    if fmt is None or (fmt == "nt" and not imports):
        return path
    import rdflib
    from rdflib.namespace import OWL

    g = rdflib.Graph().parse(path, format=fmt)
    g.remove((None, OWL.imports, None))
    out = Path(tmpdir) / "input.nt"
    g.serialize(out, format="nt", encoding="utf-8")
    return out


def run_in_process(path: Path, tmpdir: str | None = None) -> dict[str, Any]:
    """Load `path` into a fresh owlready2 World and run HermiT; the report as a dict (no seconds).

    Temporary files go to `tmpdir` (owlready2 leaves its own behind when Java fails)."""
    with tempfile.TemporaryDirectory(prefix="ontobuild-reason-", dir=tmpdir) as work:
        return _reason(path, work)


def _reason(path: Path, tmpdir: str) -> dict[str, Any]:
    import owlready2
    from owlready2 import OwlReadyInconsistentOntologyError, OwlReadyJavaError, World

    try:
        world = World()
        onto = world.get_ontology(_load_path(path, tmpdir).resolve().as_uri()).load()
    except Exception as e:  # noqa: BLE001 - any parser failure is reported, not raised
        return {"status": NOT_CHECKED, "reason": f"owlready2 could not load {path.name}: {_one_line(e)}"}
    saved, tempfile.tempdir = tempfile.tempdir, tmpdir  # owlready2 writes its N-Triples copy there
    try:
        owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0,
                                       ignore_unsupported_datatypes=True)
    except OwlReadyInconsistentOntologyError:
        return {"status": INCONSISTENT, "reason": "the ontology contradicts itself",
                "details": explain_inconsistency(path) + unsupported_note(path)}
    except FileNotFoundError:
        return {"status": NOT_CHECKED, "reason": JAVA_MISSING}
    except OwlReadyJavaError as e:
        return {"status": NOT_CHECKED, "reason": f"the reasoner failed: {_java_message(str(e))}"}
    finally:
        tempfile.tempdir = saved
    unsat = sorted(c.iri for c in world.inconsistent_classes() if c.iri != _OWL_NOTHING)
    del onto
    world.close()
    details = explain_unsatisfiable(path, unsat) if unsat else []
    return {"status": CONSISTENT, "reason": "", "details": details + unsupported_note(path)}


def unsupported_note(path: Path) -> list[str]:
    """A note when values use datatypes HermiT cannot check (they are outside the OWL 2 datatype map)."""
    try:
        found = sorted({m.group(1).decode() for m in _UNSUPPORTED_DT.finditer(path.read_bytes())})
    except OSError:
        return []
    if not found:
        return []
    names = ", ".join(f"xsd:{n}" for n in found)
    return [f"note: values of type {names} were not checked (HermiT only knows the OWL 2 datatypes)."]


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split()) or type(e).__name__
    return text[:300]


def _java_message(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("Java error message is")]
    useful = [ln for ln in lines if "Exception" in ln or "Error" in ln] or lines or ["no message"]
    return useful[0][:300]


# ---- plain-words explanations (rdflib over the same file) ---------------------------------------------
def _graph(path: Path):
    import rdflib

    fmt = _RDF_SUFFIXES.get(path.suffix.lower(), "xml")
    return rdflib.Graph().parse(path, format=fmt)


def _short(g, term) -> str:
    text = str(term)
    for sep in ("#", "/"):
        if sep in text:
            return text.rsplit(sep, 1)[1] or text
    return text


def _disjoint_pairs(g) -> set[frozenset]:
    from rdflib.collection import Collection
    from rdflib.namespace import OWL, RDF

    pairs = {frozenset((a, b)) for a, b in g.subject_objects(OWL.disjointWith) if a != b}
    for node in g.subjects(RDF.type, OWL.AllDisjointClasses):
        for members in g.objects(node, OWL.members):
            items = list(Collection(g, members))
            pairs |= {frozenset((a, b)) for i, a in enumerate(items) for b in items[i + 1:] if a != b}
    return pairs


def _superclasses(g, cls) -> set:
    from rdflib.namespace import OWL, RDFS

    seen, todo = set(), [cls]
    while todo:
        c = todo.pop()
        if c in seen:
            continue
        seen.add(c)
        todo.extend(g.objects(c, RDFS.subClassOf))
        todo.extend(g.objects(c, OWL.equivalentClass))
        todo.extend(g.subjects(OWL.equivalentClass, c))
    return seen


def _datatype_fits(lit, rng) -> bool:
    from rdflib.namespace import OWL, RDFS, XSD

    if rng in (RDFS.Literal, None):
        return True
    if getattr(lit, "ill_typed", False):
        return False
    if lit.language:  # a language-tagged string is not an xsd:string in OWL 2
        return str(rng) in (_RDF_PLAIN, _RDF_LANGSTRING)
    dt = lit.datatype or XSD.string
    if str(rng) == _RDF_PLAIN and dt == XSD.string:
        return True
    numeric = {XSD.integer, XSD.decimal, XSD.int, XSD.long, XSD.short, XSD.byte, XSD.nonNegativeInteger,
               XSD.positiveInteger, XSD.negativeInteger, XSD.nonPositiveInteger, XSD.unsignedInt,
               XSD.unsignedLong, XSD.unsignedShort, XSD.unsignedByte}
    if dt == rng:
        return True
    if rng in (OWL.real, OWL.rational) and dt in numeric:
        return True
    if rng == XSD.decimal and dt in numeric:
        return True
    if rng == XSD.integer and dt in numeric:
        try:
            return lit.toPython() == int(lit.toPython())
        except (TypeError, ValueError, OverflowError):
            return False
    return False


def explain_inconsistency(path: Path) -> list[str]:
    """Likely causes of an inconsistency, each one sentence; a general hint when none is found."""
    from rdflib import Literal
    from rdflib.namespace import OWL, RDF, RDFS

    try:
        g = _graph(path)
    except Exception as e:  # noqa: BLE001
        return [f"(no explanation: the file could not be re-read: {_one_line(e)})"]
    out: list[str] = []
    pairs = _disjoint_pairs(g)
    if pairs:
        for ind in sorted(set(g.subjects(RDF.type, OWL.NamedIndividual))):
            closure: set = set()
            for c in g.objects(ind, RDF.type):
                closure |= _superclasses(g, c)
            for pair in sorted(pairs, key=lambda p: sorted(map(str, p))):
                if pair <= closure:
                    a, b = sorted(pair, key=str)
                    out.append(f"individual {_short(g, ind)} is a member of both {_short(g, a)} and "
                               f"{_short(g, b)}, which are declared disjoint (nothing can be both).")
    for prop in sorted(set(g.subjects(RDF.type, OWL.DatatypeProperty))):
        for rng in g.objects(prop, RDFS.range):
            for s, lit in sorted(g.subject_objects(prop)):
                if isinstance(lit, Literal) and not _datatype_fits(lit, rng):
                    dt = _short(g, lit.datatype) if lit.datatype else "string"
                    out.append(f"individual {_short(g, s)} has {_short(g, prop)} = \"{lit}\" ({dt}), but the "
                               f"range of {_short(g, prop)} is {_short(g, rng)}, which does not contain that value.")
    for s, p, lit in sorted(g):
        if isinstance(lit, Literal) and getattr(lit, "ill_typed", False):
            out.append(f"individual {_short(g, s)} has {_short(g, p)} = \"{lit}\", which is not a valid "
                       f"{_short(g, lit.datatype)}.")
    if not out:
        out.append("HermiT found a contradiction but no simple cause was found: look for individuals in "
                   "disjoint classes, values outside their property's range, or conflicting restrictions.")
    return list(dict.fromkeys(out))


def explain_unsatisfiable(path: Path, class_iris: list[str]) -> list[str]:
    """One sentence per class that can have no members."""
    from rdflib import URIRef

    try:
        g = _graph(path)
        pairs = _disjoint_pairs(g)
    except Exception:  # noqa: BLE001
        g, pairs = None, set()
    out = []
    for iri in class_iris:
        name = iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        why = "its definition contradicts itself"
        if g is not None:
            closure = _superclasses(g, URIRef(iri))
            hit = next((sorted(p, key=str) for p in pairs if p <= closure), None)
            if hit:
                why = (f"it is a subclass of both {_short(g, hit[0])} and {_short(g, hit[1])}, "
                       "which are declared disjoint")
        out.append(f"class {name} can have no members because {why}.")
    return out


def main(argv: list[str] | None = None) -> int:
    """Child entry point: print the report of one file as JSON."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2):
        print("usage: python -m ontobuild.ontology.reason FILE [TMPDIR]", file=sys.stderr)
        return 2
    print(json.dumps(run_in_process(Path(args[0]), args[1] if len(args) == 2 else None)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
