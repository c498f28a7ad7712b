"""Streamed tables: a build of big table exports (CSV/TSV above `--stream-rows` rows in all) with memory bounded by
shapes and keys, not rows.

The model decides what it decides for a small export, on the same material: each table's mapping from its shape
and its first `SAMPLE_ROWS` rows (one `map_records` call per table), each candidate reference that code cannot
decide (one `confirm_reference` call). Everything else is code, in passes over the files:

1. profile: each table read once; its first rows become the sample shape the model sees, and every cell's key value
   a 64-bit hash in a column array. Candidate keys (a value in every row, all different) and candidate references (a
   column whose distinct values all occur among another table's key values) come from the sorted distinct hashes of
   whole columns (`StreamColumns`, the counterpart of proposing.Columns): one pass per table, never quadratic.
2. decide: per table in mapping order, the `map_records` call, then the mapping applied to the sample only, which
   makes the schema (classes, properties, datatypes) exactly as the whole table would; then the references
   (references.confirming.confirm_all) and their links (proposing.link_properties, drop_emptied, settle_links).
3. names: each row's individual named as mapping.apply_mapping names it (two records never one individual: a set of
   name hashes); the tables that are referenced keep key value -> name.
4. write: each table streamed again in batches of `BATCH_ROWS` records, each batch mapped by mapping.apply_mapping
   into a throwaway index that shares the schema (so the triples are those of the normal path), linked, written to
   ontology.nt as N-Triples, then dropped. Provenance (individual, file, row) goes to a gzipped TSV sidecar,
   `sources.tsv.gz`; coverage counts cells per column (mapping.CountingCoverage).

The EntitiesIndex keeps the schema and the decisions; outcome.write_index_outcome appends the schema to ontology.nt
and loads the whole file into the persisted store (bigoutput.py). HermiT gets the schema and each class's first
rows (`StreamResult.sample`); the SPARQL constraint queries check every row in the store (scalecheck.py).

Checkpoints (`CHECKPOINT_FILE`, in the unfinished outcome folder): after every batch, the bytes of ontology.nt and of
the sidecar that are complete and what was counted; the decisions are saved once made. A build run again with the
same inputs and `--resume` (api.build, cli) takes the folder back, truncates the files to the last committed batch
and goes on from the next row, without asking the model again.
The package in the order of those passes: `profile` (1), `step` (2, 3, and the step as a whole), `rows` (a table's
rows as records, shared by the passes), `writing` (4), `checkpoint` (what a resumed run takes up again)."""
