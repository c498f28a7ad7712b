"""A small outcome folder of a made-up community orchard (entities index + ontology), for the API, `serve` and
`mcp` tests: trees in plots, with yields and planting years, each fact with the source it was read from.

The folder `tests/data/orchard/` is committed (the cassette `tests/cassettes/api_orchard.json` was recorded on
it); `python tests/api_fixture.py` writes it again from the index below."""

from __future__ import annotations

from pathlib import Path

from ontobuild.ontology.entries import Fact

from ontobuild.ontology.index import EntitiesIndex

FOLDER = Path(__file__).resolve().parent / "data" / "orchard"
DATASET = "https://orchard.example/datasets/trees"
QUESTIONS = ["Which tree has the highest yield?", "How many trees grow in the North plot?"]


def orchard_index() -> EntitiesIndex:
    idx = EntitiesIndex(base_iri="http://orchard.example/onto#")
    idx.add_class("Plot", roles=["A fenced part of the orchard"], label="Plot")
    idx.add_class("Tree", roles=["A fruit tree of the orchard"], label="Tree")
    idx.add_property("growsIn", "object", domain=["Tree"], range="Plot", label="grows in")
    idx.add_property("yieldKg", "datatype", domain=["Tree"], range="xsd:decimal", unit="kg", label="yield kg")
    idx.add_property("plantedYear", "datatype", domain=["Tree"], range="xsd:integer", label="planted year")
    idx.add_property("areaM2", "datatype", domain=["Plot"], range="xsd:decimal", unit="m2", label="area m2")
    plots = {"NorthPlot": ("North plot", "1250"), "SouthPlot": ("South plot", "900")}
    for i, (name, (label, area)) in enumerate(plots.items()):
        idx.add_individual(name, classes=["Plot"], label=label,
                           source={"file": "plots.csv", "path": f"row {i + 2}"})
        idx.add_fact(name, Fact("areaM2", literal=area, unit="m2",
                                source={"file": "plots.csv", "path": f"row {i + 2}, area_m2"}))
    trees = [("BramleyAppleTree", "Bramley apple tree", "NorthPlot", "42.5", "2009"),
             ("ConferencePearTree", "Conference pear tree", "NorthPlot", "31", "2012"),
             ("MorelloCherryTree", "Morello cherry tree", "SouthPlot", "18.2", "2016"),
             ("VictoriaPlumTree", "Victoria plum tree", "NorthPlot", "27.4", "2014")]
    for i, (name, label, plot, kg, year) in enumerate(trees):
        where = f"$[{i}]"
        idx.add_individual(name, classes=["Tree"], label=label, source={"file": "trees.json", "path": where})
        idx.add_fact(name, Fact("growsIn", object=plot, source={"file": "trees.json", "path": f"{where}['plot']"}))
        idx.add_fact(name, Fact("yieldKg", literal=kg, unit="kg",
                                source={"file": "trees.json", "path": f"{where}['yield_kg']"}))
        idx.add_fact(name, Fact("plantedYear", literal=year,
                                source={"file": "trees.json", "path": f"{where}['planted']"}))
    return idx


def write_fixture(folder: Path = FOLDER) -> Path:
    """The outcome folder: entities_index.json and ontology.ttl (no reasoner, no report)."""
    from ontobuild.ontology.owl import serialize

    idx = orchard_index()
    _, turtle = serialize(idx)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "entities_index.json").write_text(idx.to_json(), encoding="utf-8")
    (folder / "ontology.ttl").write_bytes(turtle)
    return folder


if __name__ == "__main__":
    print(write_fixture())
