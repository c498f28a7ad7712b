"""The relational view (ontouse.sqlplan.schema): tables from classes, columns from property usage, label columns, foreign
keys found in values, and the join paths between tables; on three small made-up domains."""

from __future__ import annotations

import pytest
from rdflib import URIRef
from rdflib.namespace import RDFS

from ontouse.sqlplan.joins import join_edges, join_steps
from ontouse.sqlplan.schema import local_name, sql_ident, sql_type
from ontouse.sqlplan.schema_build import build_schema
from ontouse.view_prompt import schema_ddl
from ontouse_graphs import CATALOG, GROVE, HEAD, PARKS, store_of, view

PARKS_NS = "http://example.org/parks#"
GROVE_NS = "http://example.org/grove#"
SHOP = "http://example.org/shop#"
XSD = "http://www.w3.org/2001/XMLSchema#"


def kinds(schema, table: str) -> dict[str, tuple[str, str]]:
    return {c.name: (c.kind, c.sql_type) for c in schema.table(table).columns.values()}


# ---- names -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("iri, name", [("http://example.org/parks#postedAt", "postedAt"),
                                       ("http://example.org/grove/Grower", "Grower"),
                                       ("http://example.org/grove/Grower/", "Grower"), ("urn:x:code", "code")])
def test_local_name(iri: str, name: str) -> None:
    assert local_name(iri) == name


@pytest.mark.parametrize("name, ident", [("ref-tc_grower", "ref_tc_grower"), ("2ndFloor", "c_2ndFloor"),
                                         ("été", "t"), ("---", "x")])
def test_sql_ident(name: str, ident: str) -> None:
    assert sql_ident(name) == ident


@pytest.mark.parametrize("dt, expected", [("integer", "INTEGER"), ("nonNegativeInteger", "INTEGER"),
                                          ("gYear", "INTEGER"), ("decimal", "REAL"), ("double", "REAL"),
                                          ("boolean", "BOOLEAN"), ("date", "DATE"), ("dateTime", "TIMESTAMP"),
                                          ("string", "TEXT")])
def test_sql_type(dt: str, expected: str) -> None:
    assert sql_type(XSD + dt) == expected
    assert sql_type("") == "TEXT"


# ---- tables ------------------------------------------------------------------------------------------------
def test_one_table_per_class_with_its_row_count() -> None:
    _, pk = view(PARKS)
    _, grove = view(GROVE)
    assert {t.name: t.count for t in pk.tables.values()} == {"Ranger": 6, "Hut": 3, "Warden": 2}
    assert {t.name: t.count for t in grove.tables.values()} == {"Tree": 4, "Grower": 3, "TreeCare": 3}
    assert pk.table("ranger") is pk.table("Ranger")  # names are case-insensitive
    assert pk.by_class(URIRef(PARKS_NS + "Hut")).name == "Hut"


def test_subclass_rows_typed_only_with_the_subclass() -> None:
    """Wardens are typed only :Warden: the Ranger table holds them, and a plain `?x a :Ranger` would not."""
    _, pk = view(PARKS)
    emp, mgr = pk.table("Ranger"), pk.table("Warden")
    assert emp.classes == (URIRef(PARKS_NS + "Ranger"), URIRef(PARKS_NS + "Warden"))
    assert not emp.typed_all and emp.count == 6
    assert mgr.classes == (URIRef(PARKS_NS + "Warden"),) and mgr.typed_all and mgr.parents == ["Ranger"]


def test_subclass_rows_typed_with_both_classes() -> None:
    _, shop = view(CATALOG)
    product, lamp = shop.table("Product"), shop.table("Lamp")
    assert product.classes == (URIRef(SHOP + "Product"), URIRef(SHOP + "Lamp"))
    assert product.typed_all and product.count == 3
    assert lamp.parents == ["Product"] and lamp.count == 1


def test_class_label_and_comment() -> None:
    _, pk = view(PARKS)
    assert pk.table("Ranger").label == "Ranger"
    assert pk.table("Ranger").comment == "A person on the patrol roster."
    assert pk.table("Ranger").column("postedAt").comment == "The hut the person works at."


def test_graph_without_instances_is_a_view_of_its_classes_and_properties() -> None:
    store = store_of("@prefix : <http://example.org/x#> . @prefix owl: <http://www.w3.org/2002/07/owl#> . "
                     ":A a owl:Class . :p a owl:ObjectProperty .")
    tables = build_schema(store).tables
    assert sorted(tables) == ["class", "property"] and tables["class"].count == tables["property"].count == 1
    assert build_schema(store_of("@prefix : <http://example.org/x#> . :a :p :b .")).tables == {}


def test_same_local_name_in_two_namespaces_gets_two_names() -> None:
    store = store_of("""@prefix a: <http://example.org/a#> . @prefix b: <http://example.org/b#> .
        a:x1 a a:Item ; a:code "A1" . a:x2 a a:Item . b:y1 a b:Item ; b:code "B1" .""")
    names = sorted(t.name for t in build_schema(store).tables.values())
    assert names == ["Item", "Item_2"]


# ---- columns -----------------------------------------------------------------------------------------------
def test_column_kinds_and_sql_types_company() -> None:
    _, pk = view(PARKS)
    assert kinds(pk, "Ranger") == {"iri": ("id", "TEXT"), "label": ("value", "TEXT"),
                                   "fullName": ("value", "TEXT"), "hasWarden": ("link", "TEXT"),
                                   "hired": ("value", "DATE"), "postedAt": ("link", "TEXT"),
                                   "salary": ("value", "INTEGER")}
    assert pk.table("Ranger").column("postedAt").target == "Hut"
    assert pk.table("Ranger").column("hasWarden").target == "Warden"  # the most specific table
    assert pk.table("Ranger").column("salary").datatype == XSD + "integer"
    assert pk.table("Ranger").column("label").prop == RDFS.label


def test_column_kinds_and_sql_types_grove_and_catalog() -> None:
    _, grove = view(GROVE)
    _, shop = view(CATALOG)
    assert kinds(grove, "Tree") == {"iri": ("id", "TEXT"), "tree_age": ("value", "INTEGER"),
                                    "tree_id": ("value", "INTEGER"), "fruit": ("value", "TEXT"),
                                    "harvest": ("value", "TEXT")}  # numbers written as plain strings stay TEXT
    product = kinds(shop, "Product")
    assert product["price"] == ("value", "REAL") and product["stock"] == ("value", "INTEGER")
    assert product["discontinued"] == ("value", "BOOLEAN") and product["listedAt"] == ("value", "TIMESTAMP")
    assert product["inCategory"] == ("link", "TEXT")


def test_column_statistics_and_samples() -> None:
    _, grove = view(GROVE)
    fruit = grove.table("Tree").column("fruit")
    assert (fruit.count, fruit.subjects, fruit.distinct) == (4, 4, 3)
    assert fruit.samples[0] == "fig"  # the most frequent value first
    assert grove.values[URIRef(GROVE_NS + "fruit")] == {"fig": 2, "apple": 1, "quince": 1}
    _, pk = view(PARKS)
    assert pk.table("Hut").column("budget").samples == ["90000", "200000", "500000"]


def test_columns_are_the_union_over_subclasses() -> None:
    """Ranger shows hasWarden (used only by plain rangers); Warden does not."""
    _, pk = view(PARKS)
    assert pk.table("Ranger").column("hasWarden") is not None
    assert pk.table("Warden").column("hasWarden") is None
    assert pk.table("Warden").column("salary").samples == ["8700", "9100"]


# ---- label columns -----------------------------------------------------------------------------------------
def test_label_columns() -> None:
    _, pk = view(PARKS)
    emp = pk.table("Ranger")
    assert emp.label_column().name == "label"
    assert emp.column("label").is_label
    assert emp.column("fullName").is_label  # its values are the rows' labels
    assert not emp.column("hired").is_label
    assert pk.label_props == (RDFS.label,)


def test_no_label_columns_without_label_property() -> None:
    _, grove = view(GROVE)
    assert grove.label_props == ()
    assert all(t.label_column() is None for t in grove.tables.values())
    _, shop = view(CATALOG)
    assert shop.table("Supplier").label_column() is None  # sup_name is a value like any other
    assert shop.table("Product").label_column().name == "label"


def test_text_property_that_differs_from_labels_is_no_label() -> None:
    store = store_of("""@prefix : <http://example.org/lib#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
        :b1 a :Book ; rdfs:label "Tide Tables" ; :title "Tide Tables" ; :shelf "North wall" .
        :b2 a :Book ; rdfs:label "Salt Roads" ; :title "Salt Roads" ; :shelf "Window" .""")
    book = build_schema(store).table("Book")
    assert book.column("title").is_label and not book.column("shelf").is_label


# ---- foreign keys found in values --------------------------------------------------------------------------
def test_key_columns_found_in_values_integer_keys() -> None:
    _, grove = view(GROVE)
    own = grove.table("TreeCare")
    assert own.column("tc_grower").key_of == "Grower.grower_id"
    assert own.column("tc_tree").key_of == "Tree.tree_id"
    assert own.column("ref_tc_grower").kind == "link" and own.column("ref_tc_grower").target == "Grower"
    assert own.column("ref_tc_grower").hidden and own.column("ref_tc_tree").hidden
    assert grove.table("Grower").column("grower_id").key_of == ""


def test_key_columns_found_in_values_text_keys() -> None:
    _, shop = view(CATALOG)
    product = shop.table("Product")
    assert product.column("supplier").key_of == "Supplier.sup_code"
    assert product.column("ref_supplier").hidden
    assert not product.column("inCategory").hidden  # a plain link: no value beside it


def test_links_without_matching_values_are_no_keys() -> None:
    _, pk = view(PARKS)
    assert all(not c.key_of and not c.hidden for t in pk.tables.values() for c in t.columns.values())


def test_ddl_shows_keys_and_hides_their_links() -> None:
    _, grove = view(GROVE)
    ddl = schema_ddl(grove)
    assert "tc_grower INTEGER REFERENCES Grower(grower_id)" in ddl
    assert "ref_tc_grower" not in ddl
    _, pk = view(PARKS)
    ddl = schema_ddl(pk)
    assert "postedAt TEXT REFERENCES Hut(iri)" in ddl and "includes the rows of Warden" in ddl


# ---- joins -------------------------------------------------------------------------------------------------
def test_join_edges_follow_links_and_keys_both_ways() -> None:
    _, pk = view(PARKS)
    assert ("postedAt", "Hut", "iri") in join_edges(pk, pk.table("Ranger"))
    assert ("iri", "Ranger", "postedAt") in join_edges(pk, pk.table("Hut"))
    _, grove = view(GROVE)
    edges = join_edges(grove, grove.table("TreeCare"))
    assert ("tc_grower", "Grower", "grower_id") in edges
    assert not any(a.startswith("ref_") or b.startswith("ref_") for a, _, b in edges)  # hidden links
    assert ("grower_id", "TreeCare", "tc_grower") in join_edges(grove, grove.table("Grower"))


def test_join_steps() -> None:
    _, pk = view(PARKS)
    assert join_steps(pk, "Ranger", {"hut"}) == [("postedAt", "Hut", "iri")]
    assert join_steps(pk, "Hut", {"ranger"}) == [("iri", "Ranger", "postedAt")]
    _, grove = view(GROVE)
    assert join_steps(grove, "Grower", {"tree"}) == [("grower_id", "TreeCare", "tc_grower"),
                                                     ("tc_tree", "Tree", "tree_id")]
    assert join_steps(grove, "Grower", {"tree"}, max_hops=1) is None
    assert join_steps(grove, "Nowhere", {"tree"}) is None
    _, shop = view(CATALOG)
    steps = join_steps(shop, "Supplier", {"category"})
    assert steps[0] == ("sup_code", "Product", "supplier") and steps[-1] == ("inCategory", "Category", "iri")


def test_a_column_that_is_the_naming_part_of_the_label_names_the_rows() -> None:
    """Labels built as "code - name" or "name (place)": the name (and a code) name the rows; a repeated value
    inside the label (the place) does not."""
    for ttl, table, naming, other in (
        (HEAD + """@prefix : <http://example.org/a#> .
            :s1 a :Supplier ; rdfs:label "Nordwerk (Germany)" ; :sup_name "Nordwerk" ; :land "Germany" .
            :s2 a :Supplier ; rdfs:label "Polux (France)" ; :sup_name "Polux" ; :land "France" .
            :s3 a :Supplier ; rdfs:label "Aramis (France)" ; :sup_name "Aramis" ; :land "France" .""",
         "Supplier", {"label", "sup_name"}, "land"),
        (HEAD + """@prefix : <http://example.org/b#> .
            :p1 a :Part ; rdfs:label "X-100 - Red valve" ; :code "X-100" ; :title "Red valve" ; :kind "valve" .
            :p2 a :Part ; rdfs:label "X-200 - Blue valve" ; :code "X-200" ; :title "Blue valve" ; :kind "valve" .
            :p3 a :Part ; rdfs:label "H-7 - Hose" ; :code "H-7" ; :title "Hose" ; :kind "hose" .""",
         "Part", {"label", "code", "title"}, "kind"),
    ):
        schema = build_schema(store_of(ttl))
        t = schema.table(table)
        assert {c.name for c in t.columns.values() if c.is_label} == naming and not t.column(other).is_label


def test_a_property_several_tables_use_shows_each_table_its_own_comment() -> None:
    """A property used by two tables, with one comment about each table's column: each table shows the comment
    that names it (not whichever the store lists first), and a table that no comment singles out shows one."""
    ttl = HEAD + """@prefix : <http://example.org/rota#> .
:member a owl:ObjectProperty ; rdfs:comment "The crew list's member column, a hand on the boat" ,
    "The choir book's member column, a singer of the concert" .
:CrewList a owl:Class . :ChoirBook a owl:Class .
:ann a :Person ; rdfs:label "Ann" . :bo a :Person ; rdfs:label "Bo" .
:c1 a :CrewList ; :member :ann . :s1 a :ChoirBook ; :member :bo . :ann :member :bo ."""
    schema = build_schema(store_of(ttl))
    assert schema.table("CrewList").column("member").comment == "The crew list's member column, a hand on the boat"
    assert schema.table("ChoirBook").column("member").comment == "The choir book's member column, a singer of the " \
                                                                 "concert"
    assert schema.table("Person").column("member").comment in ("The crew list's member column, a hand on the "
                                                               "boat", "The choir book's member column, a singer "
                                                               "of the concert")


def test_a_shared_comment_is_no_foreign_key() -> None:
    """Bug fixed: two things read from text had the same rdfs:comment; the view took it for a key, hid the link
    between them and showed `comment REFERENCES ...` instead."""
    from ontouse_graphs import HEAD, view

    ttl = HEAD + """@prefix : <http://example.org/yard#> .
:shed a :Shed ; rdfs:label "tool shed" ; rdfs:comment "noted in the log" ; :standsAt :north .
:north a :Yard ; rdfs:label "North Yard" ; rdfs:comment "noted in the log" ."""
    _, schema = view(ttl)
    shed = schema.tables["shed"]
    assert not shed.column("standsAt").hidden and not shed.column("comment").key_of


KILNS = HEAD + """@prefix : <http://example.org/kilns#> .
:k1 a :Kiln ; rdfs:label "Kiln A" ; :site "Ashby" ; :hasFiring :f1 , :f2 .
:k2 a :Kiln ; rdfs:label "Kiln B" ; :site "Brook" ; :hasFiring :f3 .
:f1 a :Firing ; rdfs:label "F1" ; :peakC 1200 ; :kiln :k1 .
:f2 a :Firing ; rdfs:label "F2" ; :peakC 1180 ; :kiln :k1 .
:f3 a :Firing ; rdfs:label "F3" ; :peakC 1250 ; :kiln :k2 .
:f3 :kiln :k2 .
"""


def test_a_link_and_the_link_stating_its_pairs_backwards_are_one_chain() -> None:
    """`Firing.kiln` and `Kiln.hasFiring` state the same pairs: found in the data, they name each other as inverse,
    and the chain from Firing to Kiln's `site` is one chain, not two (so a column of Kiln is reached)."""
    from ontouse.sqlplan.joins import shortest_paths

    schema = build_schema(store_of(KILNS))
    assert schema.table("Firing").column("kiln").inverse.lower() == "kiln.hasfiring"
    assert len(shortest_paths(schema, "Firing", {"kiln"})) == 1
    odd = build_schema(store_of(KILNS.replace(":hasFiring :f1 , :f2", ":hasFiring :f1")))
    assert odd.table("Firing").column("kiln").inverse == ""  # one pair missing backwards: two relations
    assert len(shortest_paths(odd, "Firing", {"kiln"})) == 2
