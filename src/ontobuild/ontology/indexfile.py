"""An entities index file, read in either format: ontobuild's own (index.py) or the original proof of concept's
(poc.py). It sits above both, so that neither format module imports the other."""

from __future__ import annotations

from pathlib import Path

from ontocore.errors import InputError
from ontocore.files import read_json_file

from .index import EntitiesIndex

from .indexformat import FORMAT
from .poc import from_poc


def load_index(path: str | Path) -> EntitiesIndex:
    """Load an index file in our own format or in the original proof of concept's format."""
    path = Path(path)
    data = read_json_file(path)
    if isinstance(data, dict) and data.get("format") == FORMAT:
        return EntitiesIndex.from_dict(data, origin=str(path))
    if isinstance(data, dict) and {"tbox_classes", "tbox_prop", "abox_ind"} & set(data):
        return from_poc(data, origin=str(path))
    raise InputError(
        f"{path} is not an entities index: expected a JSON object with \"format\": \"{FORMAT}\" "
        "(ontobuild's own format) or the keys tbox_classes, tbox_prop and abox_ind (proof-of-concept format)."
    )
