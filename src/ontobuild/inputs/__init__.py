"""The builder's inputs: one reader per file suffix (JSON, JSON Lines, tables, spreadsheets, text, Markdown,
documents), registered in `readers.READERS`, turning files into records and text chunks."""
