"""ontocore: what both tools (ontobuild, ontoask) use; it imports neither of them.

Errors, the model layer (the package llm: its backends, the embedded model's file, threads and prompt-prefix cache;
cassette), the bounded tool loop (agent, tools), traces, the prompt loader (each tool holds its own prompt files),
redaction, progress, CLI helpers, drawing and HTML page pieces, transactional outcome folders, file reading, numbers,
units, text helpers and the sentence-embedding model. See docs/architecture.md."""

__version__ = "0.1.0"
