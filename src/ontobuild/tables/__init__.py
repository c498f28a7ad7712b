"""The table step: record shapes and their mapping to classes and properties (the model's decisions), the references
between tables (proposed from the data, confirmed by the model) and the streaming of big tables."""
