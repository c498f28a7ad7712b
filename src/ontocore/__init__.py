"""ontocore: what both tools (ontobuild, ontoask) use; it imports neither of them.

Errors, the model layer (llm, localmodel, cores, prefixcache, cassette), the bounded tool loop (agent, tools),
traces, prompts, redaction, progress and terminal output, CLI helpers, drawing and HTML page pieces, transactional
outcome folders, file reading, numbers, units, text helpers and the sentence-embedding model. See
docs/architecture.md."""

__version__ = "0.1.0"
