"""What a build asks the model, without a model: one fingerprint of every record-mapping prompt, every reference
prompt and every text chunk with the quantities code reads in it, over the Spider4SPARQL table exports, the bundled
example, the proof of concept's inputs and the made-up domains. Two trees whose fingerprints agree send the model
the same first prompts of every step (greedy decoding then gives the same decisions), which is how a
restructure is shown not to change the builds.

    PYTHONPATH=/path/to/tree/src python -m bench.build_prompts     # that tree's builder

Prints the number of prompts and chunks and their SHA-256."""

from __future__ import annotations

import glob
import hashlib
import json
from pathlib import Path

from bench.report import REPO

SPIDER_TABLES = REPO.parent / "shared" / "data" / "spider4sparql" / "tables"


def datasets() -> dict[str, list[Path]]:
    sets = {db.name: sorted((db / "json").iterdir()) for db in sorted(SPIDER_TABLES.iterdir())} \
        if SPIDER_TABLES.is_dir() else {}
    sets["example"] = [Path(f) for f in sorted(glob.glob(str(REPO / "data" / "example" / "*")))]
    sets["poc"] = [Path(f) for f in sorted(glob.glob(str(REPO.parent / "shared" / "data" / "poc" / "*.json")))]
    for d in sorted(p for p in (REPO / "bench" / "domains").iterdir() if p.is_dir()):
        sets[d.name] = sorted(f for f in d.iterdir() if f.is_file() and not f.name.endswith(("gold.json", ".ttl")))
    return {k: v for k, v in sets.items() if v}


def fingerprint() -> tuple[int, str]:
    try:  # the builder in wings
        from ontobuild.inputs.readers import load_inputs
        from ontobuild.tables.mapping import find_records, group_shapes
        from ontobuild.tables.recordstep import mapping_messages
        from ontobuild.tables.references.confirming import reference_messages
        from ontobuild.tables.references.proposing import find_references, ordered_for_mapping
    except ImportError:  # a tree from before the wings: flat modules
        from ontobuild.ingest import load_inputs  # type: ignore[no-redef]
        from ontobuild.keys import find_references, ordered_for_mapping  # type: ignore[no-redef]
        from ontobuild.mapping import find_records, group_shapes  # type: ignore[no-redef]
        from ontobuild.references import reference_messages  # type: ignore[no-redef]
        try:
            from ontobuild.recordstep import mapping_messages  # type: ignore[no-redef]
        except ImportError:  # a tree from before the builder steps had homes of their own
            from ontobuild.build import mapping_messages  # type: ignore[attr-defined,no-redef]
    try:
        from ontobuild.text.quantities import find_quantities
    except ImportError:  # a tree from before the text step had its own package
        from ontobuild.textnumbers import find_quantities  # type: ignore[no-redef]

    h, n = hashlib.sha256(), 0
    for files in datasets().values():
        inputs = load_inputs(files)
        shapes = [s for f, d in inputs.json_docs for s in group_shapes(find_records(f, d))]
        plan = find_references(shapes)
        for s in ordered_for_mapping(shapes, plan):
            h.update(json.dumps(mapping_messages(s, (plan.keys.get(id(s)) or [""])[0])).encode())
            n += 1
        for r in plan.references:
            h.update(json.dumps(reference_messages(r, {})).encode())
            n += 1
        for c in inputs.chunks:
            h.update(c.text.encode())
            h.update(repr(find_quantities(" " * c.lead + c.text[c.lead:])).encode())
            n += 1
    return n, h.hexdigest()


if __name__ == "__main__":
    count, digest = fingerprint()
    print(f"{count} prompts and chunks, sha256 {digest}")
