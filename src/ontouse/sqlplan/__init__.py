"""The SQL plan wing of the answerer: the relational view of the ontology, the model's plan in SQL over it, and
that plan compiled to SPARQL.

`schema` (the view: a table per class, a column per property, and their names), built from the store by
`schema_build` with `schema_labels` (what its things are called) and `schema_links` (inverse, owl:sameAs and key
links), or for a big graph from a sample by `bigschema`; `joins` (how its tables join), `plan` (plan data),
`reader` with `sqlexpr` and `sqlfixes` (SQL text read into plan data, with the named fixes; `scope` the names a
query can see while it is read), `compile` with `compile_expr` and `pattern` (plan data to SPARQL), `diagnose`
(why a plan finds nothing). It reads the store through `ontouse.storage` and knows nothing of questions."""
