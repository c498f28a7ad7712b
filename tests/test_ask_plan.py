"""Plans compiled to SPARQL, run, and their support sets; catalog linking; answer checks. No LLM."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import RDF

from ontouse.catalog import Catalog, singular, word_match
from ontouse.plan import Executor, Plan, PlanError, fmt_number, parse_compare
from ontouse.sparql import QueryError, run_query
from ontouse.support import support_set
from ontouse.validate import check_answer, code_answer, uncovered_words

TTL = """
@prefix : <http://example.org/shop#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ob: <https://ontobuild.example/vocab#> .

:Product a owl:Class ; rdfs:label "Product" ; rdfs:comment "Anything we sell" .
:Helmet a owl:Class ; rdfs:subClassOf :Product ; rdfs:label "Helmet" .
:Lamp a owl:Class ; rdfs:subClassOf :Product ; rdfs:label "Lamp" .
:Color a owl:Class .
:Warehouse a owl:Class .
:priceEur a owl:DatatypeProperty ; rdfs:label "priceEur" ; rdfs:comment "Price in EUR" ; ob:unit "EUR" .
:weightG a owl:DatatypeProperty ; rdfs:comment "Weight in grams" ; ob:unit "g" .
:storageDays a owl:DatatypeProperty ; rdfs:comment "Average storage time in days" .
:areaM2 a owl:DatatypeProperty .
:hasColor a owl:ObjectProperty .
:storedAt a owl:ObjectProperty .
:Red a :Color ; rdfs:label "Red" .
:Blue a :Color ; rdfs:label "Blue" .
:Black a :Color ; rdfs:label "Black" .
:SkyShell a owl:NamedIndividual, :Helmet ; rdfs:label "SkyShell Aero" ; :priceEur 139 ; :weightG 265 ;
    :hasColor :Red, :Black ; :storedAt :RidgeHall ; :storageDays 9 .
:UrbanDome a :Helmet ; rdfs:label "UrbanDome" ; :priceEur 89 ; :weightG 340 ; :hasColor :Blue ;
    :storedAt :RidgeHall .
:KidRider a :Helmet ; rdfs:label "KidRider Mini" ; :priceEur 39.0 ; :weightG 230 ; :hasColor :Red, :Blue .
:BeamPro a :Lamp ; rdfs:label "BeamPro" ; :priceEur 79 ; :weightG 180 ; :hasColor :Black ; :storedAt :MillLane .
:GlowTail a :Lamp ; rdfs:label "GlowTail R" ; :priceEur "35" ; :weightG 180 ; :storedAt :MillLane .
:RidgeHall a :Warehouse ; rdfs:label "Ridge Hall" ; :areaM2 650 .
:MillLane a :Warehouse ; rdfs:label "Mill Lane Store" ; :areaM2 "420"^^xsd:integer .
"""
S = "http://example.org/shop#"


@pytest.fixture(scope="module")
def graph() -> Graph:
    return Graph().parse(data=TTL, format="turtle")


@pytest.fixture(scope="module")
def cat(graph: Graph) -> Catalog:
    return Catalog(graph)


@pytest.fixture(scope="module")
def ex(graph: Graph, cat: Catalog) -> Executor:
    return Executor(graph, cat)


def run(ex: Executor, **args):
    if "cls" in args:
        args["class"] = args.pop("cls")
    if "with_" in args:
        args["with"] = args.pop("with_")
    res = ex.execute(Plan.from_args(args))
    assert not [q.error for q in res.queries if q.error], "every compiled query must run"
    return res


def labels(ex: Executor, values) -> list[str]:
    return sorted(ex.label(v) for v in values)


def check_support(graph: Graph, res) -> list[list[str]]:
    assert res.triples, "every answer needs a support set"
    for t in res.triples:
        assert t in graph, t
    return support_set(graph, res.triples)


# ---- catalog -----------------------------------------------------------------------------------------
def test_catalog_kinds(cat: Catalog) -> None:
    kinds = {e.key: e.kind for e in cat.entities}
    assert kinds["Helmet"] == "class" and kinds["priceEur"] == "property" and kinds["SkyShell Aero"] == "individual"
    assert kinds["Red"] == "individual" and "label" not in kinds
    assert cat.by_key["priceEur"].ptype == "number" and cat.by_key["priceEur"].unit == "EUR"
    assert cat.by_key["hasColor"].ptype == "object"
    assert cat.by_key["SkyShell Aero"].label == "SkyShell Aero"


def test_link_individuals_case_and_spacing(cat: Catalog) -> None:
    c = cat.link("What is the price of the skyshell aero?")
    assert c.individuals[0].entity.key == "SkyShell Aero"
    c = cat.link("Is the Kid Rider mini available in RED?")
    keys = c.keys("individual")
    assert {"KidRider Mini", "Red"} <= set(keys)


def test_link_classes_plural_and_properties(cat: Catalog) -> None:
    c = cat.link("Which helmets are the heaviest?")
    assert c.keys("class")[0] == "Helmet"
    assert c.keys("property")[0] == "weightG"
    assert cat.link("Which lamp is the most expensive?").keys("property")[0] == "priceEur"
    assert cat.link("What does the BeamPro cost?").keys("property")[0] == "priceEur"
    assert cat.link("How long is the SkyShell Aero stored?").keys("property")[0] == "storageDays"


def test_word_helpers() -> None:
    assert singular("helmets") == "helmet" and singular("boxes") == "box" and singular("categories") == "category"
    assert word_match("stored", "storage") and word_match("weighs", "weight") and not word_match("area", "arena")


def test_search_is_paged(cat: Catalog) -> None:
    page = cat.search("", "individual", page=1, per_page=3)
    assert page["total"] == 10 and len(page["items"]) == 3 and page["pages"] == 4
    assert cat.search("ridge hall")["items"][0]["key"] == "Ridge Hall"


# ---- plans -------------------------------------------------------------------------------------------
def test_lookup(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="lookup", about="SkyShell Aero", property="priceEur")
    assert [str(v) for v in res.values] == ["139"]
    assert check_support(graph, res) == [[":SkyShell", ":priceEur", "139"]] or \
        check_support(graph, res)[0][2] == "139"
    assert "?prop" in res.queries[0].text and S not in res.queries[0].text  # values bound, never pasted


def test_lookup_inverse_direction(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="lookup", about="Ridge Hall", property="storedAt")
    assert labels(ex, res.values) == ["SkyShell Aero", "UrbanDome"]
    assert (URIRef(S + "SkyShell"), URIRef(S + "storedAt"), URIRef(S + "RidgeHall")) in res.triples
    check_support(graph, res)


def test_list_with_and_subclasses(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="list", cls="Product", with_=["Red"])
    assert labels(ex, res.values) == ["KidRider Mini", "SkyShell Aero"]
    triples = check_support(graph, res)
    assert [":SkyShell", ":hasColor", ":Red"] in triples
    assert [":Helmet", "rdfs:subClassOf", ":Product"] in triples


def test_list_values_of_one_individual(ex: Executor) -> None:
    res = run(ex, kind="list", about="KidRider Mini", property="hasColor")
    assert labels(ex, res.values) == ["Blue", "Red"]


def test_property_of_linked_items(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="lookup", cls="Warehouse", with_=["BeamPro"], property="areaM2")
    assert [str(v) for v in res.values] == ["420"]
    check_support(graph, res)


def test_count(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="count", cls="Helmet")
    assert int(res.number) == 3 and len(res.values) == 3
    check_support(graph, res)
    res = run(ex, kind="count", cls="Product", property="priceEur", value=">80")
    assert int(res.number) == 2 and labels(ex, res.values) == ["SkyShell Aero", "UrbanDome"]
    res = run(ex, kind="count", about="SkyShell Aero", property="hasColor")
    assert int(res.number) == 2
    res = run(ex, kind="count", with_=["Ridge Hall"])
    assert int(res.number) == 2
    assert any("COUNT" in q.text for q in res.queries)  # counted by SPARQL


def test_superlatives_and_ties(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="max", cls="Product", property="priceEur")
    assert labels(ex, res.winners) == ["SkyShell Aero"]
    check_support(graph, res)
    res = run(ex, kind="min", cls="Lamp", property="weightG")
    assert labels(ex, res.winners) == ["BeamPro", "GlowTail R"]  # a tie: both
    res = run(ex, kind="min", cls="Product", property="priceEur")  # "35" is a plain string: still a number
    assert labels(ex, res.winners) == ["GlowTail R"]
    assert "ORDER BY" in res.queries[0].text


def test_superlative_over_linked_items_with_text(ex: Executor) -> None:
    # weights on the variants, compared through the products; "size M" picks the M variants
    g = Graph().parse(data=TTL + """
:SkyShell :hasVariant :SkyS, :SkyM . :KidRider :hasVariant :KidM .
:SkyS rdfs:label "SkyShell size S" ; :frameKg 0.9 . :SkyM rdfs:label "SkyShell size M" ; :frameKg 1.2 .
:KidM rdfs:label "KidRider size M" ; :frameKg 1.1 .
""", format="turtle")
    ex2 = Executor(g, Catalog(g))
    res = run(ex2, kind="min", cls="Helmet", property="frameKg", value="M")
    assert labels(ex2, res.winners) == ["KidRider Mini"]
    res = run(ex2, kind="min", cls="Helmet", property="frameKg")
    assert labels(ex2, res.winners) == ["SkyShell Aero"]
    for t in res.triples:
        assert t in g


def test_superlative_then(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="min", cls="Helmet", property="weightG", then="hasColor")
    assert labels(ex, res.winners) == ["KidRider Mini"] and labels(ex, res.values) == ["Blue", "Red"]
    sup = check_support(graph, res)
    assert [":KidRider", ":weightG", "230"] in sup and [":KidRider", ":hasColor", ":Red"] in sup


def test_aggregates(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="avg", cls="Helmet", property="priceEur")
    assert Decimal(str(res.number)) == Decimal(89)
    assert len(check_support(graph, res)) >= 3
    assert "AVG" in res.queries[0].text
    res = run(ex, kind="sum", cls="Lamp", property="weightG")
    assert fmt_number(res.number) == "360"
    res = run(ex, kind="avg", with_=["Ridge Hall"], property="priceEur")
    assert fmt_number(res.number) == "114"


def test_yesno(ex: Executor, graph: Graph) -> None:
    res = run(ex, kind="yesno", about="SkyShell Aero", with_=["Red"])
    assert res.boolean is True and check_support(graph, res) == [[":SkyShell", ":hasColor", ":Red"]]
    res = run(ex, kind="yesno", about="UrbanDome", with_=["Red"])
    assert res.boolean is False
    assert check_support(graph, res) == [[":UrbanDome", ":hasColor", ":Blue"]]  # what it has instead
    res = run(ex, kind="yesno", about="UrbanDome", property="priceEur", value=">100")
    assert res.boolean is False
    res = run(ex, kind="yesno", about="SkyShell Aero", property="hasColor", value="black")
    assert res.boolean is True


def test_empty_and_errors(ex: Executor) -> None:
    assert run(ex, kind="lookup", about="Red", property="priceEur").empty
    assert run(ex, kind="none").empty
    with pytest.raises(PlanError, match="not a known"):
        run(ex, kind="lookup", about="Nope", property="priceEur")
    with pytest.raises(PlanError):
        run(ex, kind="count")
    with pytest.raises(PlanError):
        run(ex, kind="max", cls="Helmet")


def test_values_are_never_pasted(ex: Executor) -> None:
    res = run(ex, kind="count", cls="Product", property="priceEur", value="' } INSERT DATA { <a> <b> <c> } #")
    assert res.empty or int(res.number) == 0
    assert all("INSERT" not in q.text for q in res.queries)


def test_parse_compare() -> None:
    assert parse_compare(">100") == (">", Decimal(100))
    assert parse_compare("<= 2.5 kg") == ("<=", Decimal("2.5"))
    assert parse_compare("red") is None


# ---- read-only SPARQL ------------------------------------------------------------------------------------
@pytest.mark.parametrize("query", [
    "INSERT DATA { <http://a> <http://b> <http://c> }",
    "DELETE WHERE { ?s ?p ?o }",
    "LOAD <http://example.org/x.ttl>",
    "SELECT * WHERE { SERVICE <http://dbpedia.org/sparql> { ?s ?p ?o } }",
    "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }",
])
def test_read_only(graph: Graph, query: str) -> None:
    with pytest.raises(QueryError):
        run_query(graph, query)


def test_bindings(graph: Graph) -> None:
    out = run_query(graph, "SELECT ?v WHERE { ?s ?p ?v }", bindings={"s": URIRef(S + "SkyShell"),
                                                                       "p": URIRef(S + "priceEur")})
    assert [str(r[0]) for r in out.rows] == ["139"]


# ---- answers -----------------------------------------------------------------------------------------
def test_check_answer(ex: Executor) -> None:
    res = run(ex, kind="min", cls="Helmet", property="weightG")
    assert check_answer("The lightest helmet is the KidRider Mini (230 g).", [res], ex) is None
    assert "231" in check_answer("The lightest helmet is the KidRider Mini (231 g).", [res], ex)
    assert "KidRider Mini" in check_answer("The lightest helmet weighs 230 g.", [res], ex)
    res = run(ex, kind="yesno", about="UrbanDome", with_=["Red"])
    assert check_answer("No, the UrbanDome comes in Blue only.", [res], ex) is None
    assert "NO" in check_answer("Yes, it is available in red.", [res], ex)
    res = run(ex, kind="avg", cls="Helmet", property="priceEur")
    assert check_answer("The average price is 89 EUR.", [res], ex) is None
    assert check_answer("No data available.", [res], ex) is not None


def test_code_answers(ex: Executor) -> None:
    assert "KidRider Mini" in code_answer(run(ex, kind="min", cls="Helmet", property="weightG"), ex)
    assert code_answer(run(ex, kind="count", cls="Helmet"), ex).startswith("3 ")
    assert code_answer(run(ex, kind="yesno", about="UrbanDome", with_=["Red"]), ex).startswith("No")
    assert "89" in code_answer(run(ex, kind="avg", cls="Helmet", property="priceEur"), ex)


def test_uncovered_words(ex: Executor, cat: Catalog) -> None:
    plan = Plan.from_args({"kind": "lookup", "about": "UrbanDome", "property": "storedAt"})
    res = ex.execute(plan)
    assert uncovered_words("Who is the supplier of the UrbanDome?", plan, cat, res) == ["supplier"]
    assert uncovered_words("Where is the UrbanDome stored?", plan, cat, res) == []
    plan = Plan.from_args({"kind": "count", "class": "Helmet"})
    assert uncovered_words("How many helmets does Northwind Cycles sell?", plan, cat, ex.execute(plan)) == []


# ---- the proof of concept's ontology, with and without its entities index -----------------------------------
POC = Path(__file__).resolve().parents[1] / "../shared/data/poc/reference_outcome"


@pytest.mark.parametrize("with_index", [False, True])
def test_poc_catalog_and_plan(with_index: bool) -> None:
    if not (POC / "ontology.owl").is_file():
        pytest.skip("shared sample data not found")
    from ontouse.catalog import load_catalog
    from ontouse.graph import load_graph

    g = load_graph([POC / "ontology.owl"])
    cat = load_catalog(g, POC / "entities_index.json" if with_index else None)
    c = cat.link("What is the pallet weight of the SideLine SP8?")
    assert c.keys("individual")[0] == "SideLineSP8" and c.keys("property")[0] == "palletWeightKg"
    if with_index:  # roles from the index
        assert cat.by_key["averageStorageTimeDay"].roles
    res = run(Executor(g, cat), kind="lookup", about="SideLineSP8", property="palletWeightKg")
    assert sorted(str(v) for v in res.values) == ["1400", "700"]
    assert support_set(g, res.triples)[0][0] == ":SideLineSP8"


# ---- repairs of a small model's plans ------------------------------------------------------------------------
def test_question_cues() -> None:
    from ontouse.plan import question_cue

    assert question_cue("Which helmet is the lightest?") == ("min", "lightest")
    assert question_cue("Which product is the most expensive?") == ("max", "most expensive")
    assert question_cue("How many lamps are there?")[0] == "count"
    assert question_cue("Is the X1 red?")[0] == "yesno"
    assert question_cue("What is the average price of lamps?")[0] == "avg"
    assert question_cue("What is the price of the X1?") == ("", "")


def test_cue_variants_recast_the_kind(cat: Catalog) -> None:
    from ontouse.plan import cue_variants

    props = cat.link("Which product has the highest price?").keys("property")
    recast, first = cue_variants(Plan.from_args({"kind": "lookup", "class": "Product", "property": "priceEur"}),
                                 "Which product has the highest price?", cat, props)
    assert first and recast[0].kind == "max" and recast[0].property == "priceEur"
    q = "What colors does the lightest helmet have?"
    recast, _ = cue_variants(Plan.from_args({"kind": "list", "class": "Helmet", "property": "hasColor"}), q, cat,
                             cat.link(q).keys("property"))
    assert (recast[0].kind, recast[0].property, recast[0].then) == ("min", "weightG", "hasColor")
    recast, first = cue_variants(Plan.from_args({"kind": "lookup", "about": "SkyShell Aero", "value": "Red"}),
                                 "Is the SkyShell Aero red?", cat, [])
    assert first and recast[0].kind == "yesno" and recast[0].with_ == ["Red"]


def test_repairs(cat: Catalog, ex: Executor) -> None:
    from ontouse.plan import repairs

    inds = ["Helmet", "Red", "SkyShell Aero", "KidRider Mini"]
    # a name put in `value` becomes a link; "about X with Y" becomes the items linked to both
    plan = Plan.from_args({"kind": "lookup", "about": "Ridge Hall", "property": "hasColor", "value": "Red"})
    tries = [p.to_args() for p in repairs(plan, cat, inds + ["Ridge Hall"], ["hasColor"])]
    assert {"kind": "list", "with": ["Ridge Hall", "Red"], "property": "hasColor"} in tries or \
        {"kind": "list", "with": ["Ridge Hall", "Red"]} in tries
    assert Plan.from_args({"kind": "lookup", "value": "link to Color"}).value == ""
    # two `with` individuals of one class are examples of the items: compare those carrying their common words
    g = Graph().parse(data=TTL + """
:V1 a :Variant ; rdfs:label "SkyShell size M" ; :kg 2 . :V2 a :Variant ; rdfs:label "KidRider size M" ; :kg 1 .
:V3 a :Variant ; rdfs:label "KidRider size S" ; :kg 0.5 . :Variant a owl:Class .
""", format="turtle")
    cat2 = Catalog(g)
    q = "Which variant in size M is the lightest?"
    plan = Plan.from_args({"kind": "min", "class": "Variant", "property": "kg",
                           "with": ["SkyShell size M", "KidRider size M"]})
    fixed = repairs(plan, cat2, [], ["kg"], question=q)[0]
    assert fixed.value == "size m" and not fixed.with_
    res = Executor(g, cat2).execute(fixed)
    assert [str(w) for w in res.winners] == [S + "V2"]


def test_repairs_of_a_superlative_about_a_category() -> None:
    """What the 1.5B model once sent for "Which helmet is the lightest?": about the category individual, and a
    `then` property it did not need. The repairs try the items linked to the category, without `then`."""
    from ontouse.plan import repairs

    g = Graph().parse(data=TTL + """
:ProductCategory a owl:Class . :inCategory a owl:ObjectProperty . :lights a owl:DatatypeProperty .
:Helmets a :ProductCategory ; rdfs:label "Helmets" .
:SkyShell :inCategory :Helmets . :UrbanDome :inCategory :Helmets . :KidRider :inCategory :Helmets .
:BeamPro :lights 50 .
""", format="turtle")
    cat2 = Catalog(g)
    ex2 = Executor(g, cat2)
    plan = Plan.from_args({"kind": "min", "about": "Helmets", "property": "weightG", "then": "lights"})
    assert ex2.execute(plan).empty
    tries = repairs(plan, cat2, ["Helmets"], ["weightG"])
    found = next(r for r in map(ex2.execute, tries) if not r.empty)
    assert [str(w) for w in found.winners] == [S + "KidRider"]


def test_a_superlative_ranked_by_a_property_without_numbers_is_recast() -> None:
    """"What color options does the lightest helmet have?" once planned as the min of hasColor over colors."""
    from ontouse.plan import cue_variants

    g = Graph().parse(data=TTL + """
:ProductCategory a owl:Class . :inCategory a owl:ObjectProperty .
:Helmets a :ProductCategory ; rdfs:label "Helmets" .
:SkyShell :inCategory :Helmets . :UrbanDome :inCategory :Helmets . :KidRider :inCategory :Helmets .
:cartonWeightKg a owl:DatatypeProperty . :SkyShell :cartonWeightKg 4.1 . :UrbanDome :cartonWeightKg 5.0 .
""", format="turtle")
    cat2 = Catalog(g)
    plan = Plan.from_args({"kind": "min", "class": "Color", "with": ["Helmets"], "property": "hasColor",
                           "then": "hasColor"})
    tries, first = cue_variants(plan, "What color options does the lightest helmet have?", cat2,
                                ["cartonWeightKg", "weightG"])  # a carton's weight is not the helmet's
    assert first
    found = next(r for r in map(Executor(g, cat2).execute, tries) if not r.empty)
    assert sorted(str(v) for v in found.values) == [S + "Blue", S + "Red"]


def test_count_of_values_held_one_hop_away() -> None:
    """The PoC's EcoRing keeps its colors on a linked record (EcoRing describedAlsoBy EcoRing_2298)."""
    g = Graph().parse(data=TTL + """
:describedAlsoBy a owl:ObjectProperty . :storageCostIncludes a owl:ObjectProperty .
:EcoRing a :Product ; rdfs:label "EcoRing" ; :describedAlsoBy :EcoRing2298 ; :storageCostIncludes :Handling .
:EcoRing2298 rdfs:label "EcoRing_2298" ; :hasColor :Red, :Blue .
""", format="turtle")
    res = Executor(g, Catalog(g)).execute(Plan.from_args({"kind": "count", "about": "EcoRing", "property": "hasColor"}))
    assert int(res.number) == 2
    assert (URIRef(S + "EcoRing2298"), URIRef(S + "hasColor"), URIRef(S + "Red")) in res.triples
