"""Tiny graphs of three made-up domains for the `ontouse` tests, and a helper that loads one into a store.

- PARKS: classes with rdfs:labels, object properties (postedAt, hasWarden), a subclass Warden of Ranger
  whose rows are typed only as Warden, a property whose values are the rows' labels (fullName), numbers.
- GROVE: a database without labels: rows carry key values (grower_id, tree_id) and `ref-` links between them, a
  link table TreeCare, a harvest stored as plain text.
- CATALOG: products in categories, prices, a supplier table keyed by a text code (sup_code), a subclass Lamp
  whose rows are typed with Product too."""

from __future__ import annotations

from functools import lru_cache

from ontouse.storage.graph import new_graph
from ontouse.sqlplan.schema import Schema
from ontouse.sqlplan.schema_build import build_schema
from ontouse.storage.store import GraphStore

HEAD = """
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
"""

PARKS = HEAD + """
@prefix : <http://example.org/parks#> .
:Ranger a owl:Class ; rdfs:label "Ranger" ; rdfs:comment "A person on the patrol roster." .
:Warden a owl:Class ; rdfs:subClassOf :Ranger .
:Hut a owl:Class .
:postedAt a owl:ObjectProperty ; rdfs:comment "The hut the person works at." .
:hasWarden a owl:ObjectProperty .

:pinewood a :Hut ; rdfs:label "Pinewood" ; :budget 500000 .
:reeds a :Hut ; rdfs:label "Reeds" ; :budget 200000 .
:birch a :Hut ; rdfs:label "Birch" ; :budget 90000 .

:mira a :Warden ; rdfs:label "Mira Stone" ; :fullName "Mira Stone" ; :postedAt :pinewood ; :salary 9100 ;
    :hired "2015-03-01"^^xsd:date .
:olaf a :Warden ; rdfs:label "Olaf Brand" ; :fullName "Olaf Brand" ; :postedAt :reeds ; :salary 8700 ;
    :hired "2012-06-15"^^xsd:date .
:ada a :Ranger ; rdfs:label "Ada Quill" ; :fullName "Ada Quill" ; :postedAt :pinewood ; :hasWarden :mira ;
    :salary 5200 ; :hired "2019-01-10"^^xsd:date .
:ben a :Ranger ; rdfs:label "Ben Arbor" ; :fullName "Ben Arbor" ; :postedAt :pinewood ; :hasWarden :mira ;
    :salary 4800 ; :hired "2021-09-01"^^xsd:date .
:cleo a :Ranger ; rdfs:label "Cleo Vance" ; :fullName "Cleo Vance" ; :postedAt :reeds ; :hasWarden :olaf ;
    :salary 4300 ; :hired "2020-02-20"^^xsd:date .
:dan a :Ranger ; rdfs:label "Dan Ferro" ; :fullName "Dan Ferro" ; :postedAt :reeds ; :salary 3900 .
"""

GROVE = HEAD + """
@prefix : <http://example.org/grove#> .
:g1 a :Grower ; :grower_id 1 ; :given_name "Edda" ; :home_farm "Fernhill" ; :age 34 .
:g2 a :Grower ; :grower_id 2 ; :given_name "Mirko" ; :home_farm "Reedmoor" ; :age 51 .
:g3 a :Grower ; :grower_id 3 ; :given_name "Runa" ; :home_farm "Fernhill" ; :age 27 .
:t10 a :Tree ; :tree_id 10 ; :fruit "apple" ; :tree_age 3 ; :harvest "4.5" .
:t11 a :Tree ; :tree_id 11 ; :fruit "fig" ; :tree_age 7 ; :harvest "21" .
:t12 a :Tree ; :tree_id 12 ; :fruit "fig" ; :tree_age 2 ; :harvest "9.75" .
:t13 a :Tree ; :tree_id 13 ; :fruit "quince" ; :tree_age 12 ; :harvest "0.4" .
:c1 a :TreeCare ; :tc_grower 1 ; :tc_tree 10 ; <http://example.org/grove#ref-tc_grower> :g1 ;
    <http://example.org/grove#ref-tc_tree> :t10 .
:c2 a :TreeCare ; :tc_grower 1 ; :tc_tree 11 ; <http://example.org/grove#ref-tc_grower> :g1 ;
    <http://example.org/grove#ref-tc_tree> :t11 .
:c3 a :TreeCare ; :tc_grower 2 ; :tc_tree 12 ; <http://example.org/grove#ref-tc_grower> :g2 ;
    <http://example.org/grove#ref-tc_tree> :t12 .
"""

CATALOG = HEAD + """
@prefix : <http://example.org/shop#> .
:tools a :Category ; rdfs:label "Garden tools" .
:lamps a :Category ; rdfs:label "Desk lamps" .
:s1 a :Supplier ; :sup_code "NRD" ; :sup_name "Nordwerk" .
:s2 a :Supplier ; :sup_code "PLX" ; :sup_name "Polux" .
:rake a :Product ; rdfs:label "Iron rake R-220" ; :inCategory :tools ; :price 24.5 ; :stock 40 ;
    :supplier "NRD" ; <http://example.org/shop#ref-supplier> :s1 .
:spade a :Product ; rdfs:label "Steel spade S-10" ; :inCategory :tools ; :price 31.0 ; :stock 0 ;
    :supplier "NRD" ; <http://example.org/shop#ref-supplier> :s1 .
:lumo a :Product, :Lamp ; rdfs:label "Lumo desk lamp" ; :inCategory :lamps ; :price 58.0 ; :stock 12 ;
    :supplier "PLX" ; <http://example.org/shop#ref-supplier> :s2 ; :discontinued true ;
    :listedAt "2024-05-01T10:00:00"^^xsd:dateTime .
:Lamp rdfs:subClassOf :Product .
"""


# key numbers beside links (as a database export keeps them): sailings hold their vessel's number (`vessel`, keyed by
# the vessels' `vessel_no`) and their berth's number (`berth_id`); two vessels share a name
HARBOUR = """
@prefix : <http://example.org/harbour#> .
@prefix v: <http://example.org/harbour/vessel#> .
@prefix b: <http://example.org/harbour/berth#> .
@prefix s: <http://example.org/harbour/sailing#> .
:v1 a :Vessel ; v:vessel_no 1 ; v:vessel "Morgenrot" ; v:crew 12 .
:v2 a :Vessel ; v:vessel_no 2 ; v:vessel "Kittiwake" ; v:crew 7 .
:v3 a :Vessel ; v:vessel_no 3 ; v:vessel "Kittiwake" ; v:crew 4 .
:b1 a :Berth ; b:berth_id 31 ; b:berth "North quay" .
:b2 a :Berth ; b:berth_id 32 ; b:berth "Ferry steps" .
:s1 a :Sailing ; s:sailing_no 501 ; s:vessel 1 ; s:berth_id 31 ; s:minutes 40 ; s:ref-vessel :v1 ; s:ref-berth_id :b1 .
:s2 a :Sailing ; s:sailing_no 502 ; s:vessel 1 ; s:berth_id 32 ; s:minutes 55 ; s:ref-vessel :v1 ; s:ref-berth_id :b2 .
:s3 a :Sailing ; s:sailing_no 503 ; s:vessel 2 ; s:berth_id 31 ; s:minutes 25 ; s:ref-vessel :v2 ; s:ref-berth_id :b1 .
"""

def store_of(ttl: str) -> GraphStore:
    g = new_graph()
    g.parse(data=ttl, format="turtle")
    return GraphStore(g)


@lru_cache(maxsize=None)
def view(ttl: str) -> tuple[GraphStore, Schema]:
    """The store and relational view of a graph, built once per test session."""
    store = store_of(ttl)
    return store, build_schema(store)


def loop_of(ttl: str):
    """An answer loop over a graph's view that never calls a model (for `answer_sql`)."""
    from ontouse.answerer import AnswerLoop

    store, schema = view(ttl)
    return AnswerLoop(store, NoModel(), schema=schema)


class NoModel:
    """The model of an Answerer that must not call one (`answer_sql` never does)."""

    backend, model = "none", "none"

    def __init__(self) -> None:
        from ontocore.llm import Usage

        self.usage = Usage(backend="none", model="none")

    def chat(self, *args, **kwargs):  # pragma: no cover - a call is a test failure
        raise AssertionError("answer_sql called the model")
