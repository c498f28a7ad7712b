"""The store wing of the answerer: where the graph lives and how every query reaches it.

`store` (the one seam: `Store`, `GraphStore`, `open_store`), `graph` (RDF files read into a graph), `persist` (a
store kept in a folder), `endpoint` (a remote SPARQL endpoint), `sparql` (running a query, its errors), and the
guards around every query: `querycheck` (read-only, bounded) and `sandbox` (a query run in a child process).
Nothing here knows about plans or questions."""
