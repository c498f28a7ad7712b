"""What a build writes: the outcome folder, big outputs (N-Triples and a loaded store), the scale check, the HTML
report and the loading of an ontology into a SPARQL endpoint."""
