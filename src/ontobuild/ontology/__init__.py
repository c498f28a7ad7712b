"""The ontology the builder keeps: the entities index and its file, names, the vocabulary of --schema and its
alignment, OWL output, the reasoner and the repair of what it finds inconsistent."""
